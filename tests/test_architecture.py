"""The package's architecture rules (issue 33), as a ratchet until the layered redesign lands.

The rules: no import cycle among the package's modules (lazy imports count, TYPE_CHECKING ones
do not); no module imports another module's ``_private`` name or reads ``mod._name``; no package
file (.py, .c, .h) over 600 lines; no function over 80 lines (Python without its docstring, C
too); importlib and module-level ``__getattr__`` only where they are today.  Measured by
tests/archrules.py (ast, so it cannot drift from the code).

A new metric module joins the registry's cycle (metrics/__init__ imports it, it imports settings,
which reads the registry): until the redesign, adding one means adding it to the known cycle.

tests/arch_known.json lists today's exceptions, measured on the tree: a change may remove
entries (and must then remove them from the file, so the list only shrinks) but never add one.
"""
from __future__ import annotations

import json
import pathlib

import archrules

KNOWN = json.loads((pathlib.Path(__file__).parent / "arch_known.json").read_text(encoding="utf-8"))
NOW = archrules.measure()


def test_no_new_import_cycle():
    known = [set(c) for c in KNOWN["cycles"]]
    for cyc in NOW["cycles"]:
        assert any(set(cyc) <= k for k in known), f"a new import cycle (or a module joined one): {cyc}"


def test_no_new_private_name_crossing_modules():
    new = sorted(set(NOW["private"]) - set(KNOWN["private"]))
    assert not new, f"private names imported across modules (give them public names): {new}"


def test_no_file_and_no_function_grows_over_the_limits():
    for kind in ("long_files", "long_functions"):
        for key, n in NOW[kind].items():
            assert key in KNOWN[kind], f"{key}: {n} lines, over the limit ({kind})"
            assert n <= KNOWN[kind][key], f"{key}: grew from {KNOWN[kind][key]} to {n} lines"


def test_dynamic_imports_only_where_they_are():
    for mod, uses in NOW["dynamic_imports"].items():
        assert set(uses) <= set(KNOWN["dynamic_imports"].get(mod, [])), (mod, uses)


def test_c_extensions_imported_only_where_they_are():
    """The C extensions (setup.py's Extension names) are imported by the engine layer only: today
    engine and inputs for _lcs, rouge155.evaluate for _r155; no new importer."""
    for ext, users in NOW["extension_users"].items():
        assert set(users) <= set(KNOWN["extension_users"].get(ext, [])), (ext, users)


def test_the_known_list_only_shrinks():
    """An exception that is gone must leave tests/arch_known.json, so it cannot come back."""
    stale = sorted(set(KNOWN["private"]) - set(NOW["private"]))
    stale += [k for kind in ("long_files", "long_functions") for k in KNOWN[kind] if k not in NOW[kind]]
    stale += [f"cycle {c}" for c in KNOWN["cycles"] if not any(set(c) & set(n) for n in NOW["cycles"])]
    assert not stale, f"fixed: remove these from tests/arch_known.json: {stale}"


def test_the_measure_can_fail():
    """The cycle finder finds cycles (a -> b -> c -> a, and a lazy one b <-> d) and no false one."""
    edges = {"a": {"b"}, "b": {"c", "d"}, "c": {"a"}, "d": {"b"}, "e": {"a"}}
    assert archrules.cycles(edges) == [["a", "b", "c", "d"]]
    assert archrules.cycles({"a": {"b"}, "b": {"c"}}) == []
    # today's tree breaks the rules (issue 33's measure): the ratchet is not vacuous
    assert NOW["cycles"] and NOW["private"] and NOW["long_files"]
