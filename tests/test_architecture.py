"""The package's architecture rules (issue 33), measured by tests/archrules.py (ast, so it cannot
drift from the code): strict for the library, a shrinking ratchet for the command line.

The rules: no import cycle among the package's modules (lazy imports count, TYPE_CHECKING ones
do not); no module imports another module's ``_private`` name or reads ``mod._name``; the C
extensions imported by ``engine/cext.py`` only; ``importlib`` and module-level ``__getattr__``
only in the package face, ``compat.py`` and the command dispatch; no package file (.py, .c, .h)
over 600 lines; no function over 80 lines (Python without its docstring, C too); and one import
direction: core <- engine <- stats <- metrics <- api (a layer imports its own and the ones below;
``rouge155/`` is a side package).

The library (every module of the layer folders, the face, compat.py, rouge155/) has no
exception.  tests/arch_known.json lists the command line's exceptions today (its modules are
being made a package of their own): a change may remove entries (and must then remove them from
the file, so the list only shrinks) but never add one, and no entry may name a library module.

Adding a metric touches one new module (metrics/<name>.py) plus one registry line
(metrics/__init__.py): no cycle, no exception (docs/layout.md).
"""
from __future__ import annotations

import json
import pathlib

import archrules

KNOWN = json.loads((pathlib.Path(__file__).parent / "arch_known.json").read_text(encoding="utf-8"))
NOW = archrules.measure()

#: the command line's modules (the only ones arch_known.json may name)
CLI = frozenset({"cli", "cli_dureader", "cli_merge", "cli_report", "cli_scale", "cli_score", "cli_values", "report",
                 "fileio", "procio", "dureader_io", "perinstance", "progress", "lineio", "textmarks", "__main__"})
#: where importlib / a module-level __getattr__ may be: the face, the compatibility module, the dispatch
DYNAMIC = {"paddle_rougel": {"importlib", "__getattr__"}, "paddle_rougel.compat": {"importlib"},
           "paddle_rougel.cli": {"importlib"}}


def _is_cli(mod: str) -> bool:
    parts = mod.split(".")
    return len(parts) > 1 and (parts[1] in CLI or parts[1] == "cli")


def test_the_known_list_names_command_line_modules_only():
    names = [m for c in KNOWN["cycles"] for m in c] + [p.split(":")[0] for p in KNOWN["private"]]
    assert all(_is_cli(m) for m in names), [m for m in names if not _is_cli(m)]
    assert not KNOWN["long_files"] and not KNOWN["long_functions"]


def test_no_import_cycle():
    known = [set(c) for c in KNOWN["cycles"]]
    for cyc in NOW["cycles"]:
        assert any(set(cyc) <= k for k in known), f"an import cycle (or a module joined the CLI's): {cyc}"


def test_no_private_name_crossing_modules():
    new = sorted(set(NOW["private"]) - set(KNOWN["private"]))
    assert not new, f"private names imported across modules (give them public names): {new}"


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


def test_the_known_list_only_shrinks():
    """An exception that is gone must leave tests/arch_known.json, so it cannot come back."""
    stale = sorted(set(KNOWN["private"]) - set(NOW["private"]))
    stale += [f"cycle {c}" for c in KNOWN["cycles"] if not any(set(c) & set(n) for n in NOW["cycles"])]
    assert not stale, f"fixed: remove these from tests/arch_known.json: {stale}"


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
