"""The package's architecture rules (issue 33), measured by tests/archrules.py (ast, so it cannot
drift from the code), with no exception anywhere in the package.

The rules: no import cycle among the package's modules (lazy imports count, TYPE_CHECKING ones
do not); no module imports another module's ``_private`` name or reads ``mod._name``; the C
extensions imported by ``engine/cext.py`` only; ``importlib`` and module-level ``__getattr__``
only in the package face, ``compat.py`` and the command dispatch (``cli/__init__.py``); no package
file (.py, .c, .h) over 600 lines; no function over 80 lines (Python without its docstring, C
too); and one import direction: core <- engine <- stats <- metrics <- api <- cli (a layer imports
its own and the ones below; ``rouge155/`` is a side package).

Adding a metric touches one new module (metrics/<name>.py) plus one registry line
(metrics/__init__.py): no cycle, no exception (docs/layout.md).
"""
from __future__ import annotations

import archrules

NOW = archrules.measure()

#: where importlib / a module-level __getattr__ may be: the face, the compatibility module, the dispatch
DYNAMIC = {"paddle_rougel": {"importlib", "__getattr__"}, "paddle_rougel.compat": {"importlib"},
           "paddle_rougel.cli": {"importlib"}}


def test_no_import_cycle():
    assert not NOW["cycles"], f"import cycles: {NOW['cycles']}"


def test_no_private_name_crossing_modules():
    assert not NOW["private"], f"private names used across modules (give them public names): {NOW['private']}"


def test_no_file_and_no_function_over_the_limits():
    assert not NOW["long_files"], f"files over {archrules.MAX_FILE_LINES} lines: {NOW['long_files']}"
    assert not NOW["long_functions"], f"functions over {archrules.MAX_FUNCTION_LINES} lines: {NOW['long_functions']}"


def test_dynamic_imports_only_in_the_face_compat_and_dispatch():
    for mod, uses in NOW["dynamic_imports"].items():
        assert set(uses) <= DYNAMIC.get(mod, set()), (mod, uses)


def test_c_extensions_imported_by_engine_cext_only():
    """The C extensions (setup.py's Extension names): engine/cext.py is their one importer
    (rouge155 reaches _r155 through it)."""
    assert set(NOW["extension_users"]) == archrules.EXTENSIONS
    for ext, users in NOW["extension_users"].items():
        assert users == ["paddle_rougel.engine.cext"], (ext, users)


def test_one_import_direction():
    assert not NOW["upward"], f"imports into a higher layer: {NOW['upward']}"


def test_the_measure_can_fail(tmp_path):
    """The measure finds what breaks the rules, on a small package of its own: a cycle (a lazy
    import counts), a private name imported and read, a module __getattr__, an importlib call,
    an import into a higher layer; and no false cycle."""
    edges = {"a": {"b"}, "b": {"c", "d"}, "c": {"a"}, "d": {"b"}, "e": {"a"}}
    assert archrules.cycles(edges) == [["a", "b", "c", "d"]]
    assert archrules.cycles({"a": {"b"}, "b": {"c"}}) == []
    pkg = tmp_path / "paddle_rougel"
    (pkg / "core").mkdir(parents=True)
    (pkg / "engine").mkdir()
    files = {
        "__init__.py": "",
        "core/__init__.py": "",
        "engine/__init__.py": "",
        "core/a.py": "def f():\n    from paddle_rougel.engine.b import _hidden\n    return _hidden\n",
        "engine/b.py": "from paddle_rougel.core import a\n_hidden = 1\nx = a._private\n",
        "engine/c.py": "import importlib\ndef __getattr__(name):\n    return importlib.import_module(name)\n",
    }
    for rel, text in files.items():
        (pkg / rel).write_text(text)
    mods = {"paddle_rougel": pkg / "__init__.py", "paddle_rougel.core": pkg / "core/__init__.py",
            "paddle_rougel.engine": pkg / "engine/__init__.py", "paddle_rougel.core.a": pkg / "core/a.py",
            "paddle_rougel.engine.b": pkg / "engine/b.py", "paddle_rougel.engine.c": pkg / "engine/c.py"}
    edges, private = archrules.imports(mods)
    assert archrules.cycles(edges) == [["paddle_rougel.core.a", "paddle_rougel.engine.b"]]
    assert sorted(t for _, _, t in private) == ["from paddle_rougel.engine.b import _hidden",
                                                "paddle_rougel.core.a._private"]
    assert archrules.dynamic_imports(mods) == {"paddle_rougel.engine.c": ["importlib", "__getattr__"]}
    assert archrules.upward_imports(edges) == ["paddle_rougel.core.a -> paddle_rougel.engine.b"]
