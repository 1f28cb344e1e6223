"""The package's architecture, measured from its source (ast for Python, a brace scan for C).

Used by tests/test_architecture.py (the rules, with today's known exceptions that may only
shrink) and runnable by itself to print the measures: ``python tests/archrules.py``.

What counts:
* an import edge is every ``import`` / ``from ... import`` of a package module, at any depth
  (imports inside functions count: a lazy import is still an import), except those under
  ``if TYPE_CHECKING:``; ``from . import x`` is an edge to the submodule ``x`` when it is one;
* an import cycle is a strongly connected component of two or more modules;
* a private crossing is ``from .mod import _name`` (a name starting with one underscore, of
  another package module) or ``mod._name`` read through a module imported as ``mod``;
* line counts are physical lines of ``.py``, ``.c`` and ``.h`` files; a Python function's length
  is its lines without its docstring, a C function's from its opening line to its closing brace.
"""
from __future__ import annotations

import ast
import pathlib
import re
from collections import defaultdict

ROOT = pathlib.Path(__file__).resolve().parents[1]
PKG = ROOT / "paddle_rougel"
NAME = "paddle_rougel"
EXTENSIONS = frozenset(re.findall(r'Extension\(\s*(?:#[^\n]*\n\s*)?"paddle_rougel\.(\w+)"',
                                  (ROOT / "setup.py").read_text(encoding="utf-8")))
MAX_FILE_LINES = 600
MAX_FUNCTION_LINES = 80


def modules() -> dict[str, pathlib.Path]:
    """Dotted module name -> path, for every .py file of the package."""
    out = {}
    for path in sorted(PKG.rglob("*.py")):
        rel = path.relative_to(ROOT).with_suffix("")
        parts = list(rel.parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = path
    return out


def _is_package(mod: str, mods: dict) -> bool:
    return mods[mod].name == "__init__.py"


def _resolve(mod: str, mods: dict, level: int, target: str | None) -> str:
    """The absolute name a relative import of ``target`` at ``level`` means inside ``mod``."""
    if level == 0:
        return target or ""
    base = mod.split(".")
    if not _is_package(mod, mods):
        base = base[:-1]
    if level > 1:
        base = base[: len(base) - (level - 1)]
    return ".".join(base + ([target] if target else []))


def _type_checking_lines(tree: ast.AST) -> set[int]:
    lines: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If):
            test = node.test
            name = test.id if isinstance(test, ast.Name) else getattr(test, "attr", None)
            if name == "TYPE_CHECKING":
                for child in node.body:
                    lines.update(range(child.lineno, (child.end_lineno or child.lineno) + 1))
    return lines


def _closest_module(name: str, mods: dict) -> str | None:
    while name and name not in mods:
        name = name.rpartition(".")[0]
    return name or None


def imports(mods: dict | None = None, extension_users: dict | None = None):
    """(edges, private): edges[mod] = {imported module, ...}; private = [(mod, line, text)].
    A C extension (setup.py's ``Extension("paddle_rougel.X")``) is no package module: who
    imports one goes into ``extension_users`` (extension -> {module, ...}), not into the edges."""
    mods = mods or modules()
    edges: dict[str, set] = defaultdict(set)
    private: list[tuple[str, int, str]] = []
    if extension_users is None:
        extension_users = {}
    for mod, path in mods.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        skip = _type_checking_lines(tree)
        aliases: dict[str, str] = {}  # local name -> package module it names
        for node in ast.walk(tree):
            if getattr(node, "lineno", None) in skip:
                continue
            if isinstance(node, ast.Import):
                for a in node.names:
                    if a.name.split(".")[0] == NAME:
                        target = _closest_module(a.name, mods)
                        if target and target != mod:
                            edges[mod].add(target)
                            aliases[a.asname or a.name] = target
            elif isinstance(node, ast.ImportFrom):
                base = _resolve(mod, mods, node.level, node.module)
                if base.split(".")[0] != NAME:
                    continue
                if base.rpartition(".")[2] in EXTENSIONS and base.count(".") == 1:
                    extension_users.setdefault(base.rpartition(".")[2], set()).add(mod)
                    continue
                for a in node.names:
                    sub = f"{base}.{a.name}"
                    if base == NAME and a.name in EXTENSIONS:
                        extension_users.setdefault(a.name, set()).add(mod)
                        continue
                    if sub in mods:  # `from . import engine`: the submodule itself
                        if sub != mod:
                            edges[mod].add(sub)
                        aliases[a.asname or a.name] = sub
                        continue
                    target = _closest_module(base, mods)
                    if target and target != mod:
                        edges[mod].add(target)
                        if a.name.startswith("_") and not a.name.startswith("__"):
                            private.append((mod, node.lineno, f"from {base} import {a.name}"))
        for node in ast.walk(tree):
            if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
                    and node.value.id in aliases and node.attr.startswith("_")
                    and not node.attr.startswith("__") and aliases[node.value.id] != mod):
                private.append((mod, node.lineno, f"{aliases[node.value.id]}.{node.attr}"))
    return edges, private


def cycles(edges: dict) -> list[list[str]]:
    """Strongly connected components of two or more modules (Tarjan), largest first."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []
    counter = [0]
    nodes = set(edges) | {t for ts in edges.values() for t in ts}

    def visit(v: str) -> None:  # iterative enough for a package of ~60 modules
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(nodes):
        if v not in index:
            visit(v)
    return sorted(out, key=lambda c: (-len(c), c))


def long_files() -> dict[str, int]:
    """Package files (.py, .c, .h) over MAX_FILE_LINES lines -> their line count."""
    out = {}
    for path in sorted(PKG.rglob("*")):
        if path.suffix in (".py", ".c", ".h"):
            n = len(path.read_text(encoding="utf-8").splitlines())
            if n > MAX_FILE_LINES:
                out[path.relative_to(ROOT).as_posix()] = n
    return out


def _py_function_lengths(path: pathlib.Path):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            n = node.end_lineno - node.lineno + 1
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(getattr(body[0], "value", None), ast.Constant) \
                    and isinstance(body[0].value.value, str):
                n -= body[0].end_lineno - body[0].lineno + 1
            yield node.name, node.lineno, n


_C_FUNC = re.compile(r"^[A-Za-z_][\w \t\*]*?\b(\w+)\s*\([^;{}]*\)\s*\{?\s*$")


def _c_function_lengths(path: pathlib.Path):
    """Top-level C functions: a line at column 0 that looks like a definition, to the brace that
    closes it (comments and strings are blanked first)."""
    src = path.read_text(encoding="utf-8")
    src = re.sub(r"/\*.*?\*/", lambda m: re.sub(r"[^\n]", " ", m.group()), src, flags=re.S)
    src = re.sub(r"//[^\n]*", "", src)
    src = re.sub(r'"(?:\\.|[^"\\\n])*"', '""', src)
    src = re.sub(r"'(?:\\.|[^'\\\n])*'", "''", src)
    lines = src.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        head = line
        j = i
        # a signature may run over several lines
        while head.count("(") > head.count(")") and j + 1 < len(lines):
            j += 1
            head += " " + lines[j].strip()
        m = _C_FUNC.match(head) if line and not line[0].isspace() and not line.startswith("#") else None
        if m and m.group(1) not in ("if", "for", "while", "switch", "return"):
            k = j if "{" in head else j + 1
            if k < len(lines) and "{" in (head if k == j else lines[k]):
                depth = 0
                end = k
                for end in range(k, len(lines)):
                    depth += lines[end].count("{") - lines[end].count("}")
                    if depth == 0 and "}" in lines[end]:
                        break
                yield m.group(1), i + 1, end - i + 1
                i = end + 1
                continue
        i += 1


def long_functions() -> dict[str, int]:
    """'path:function' -> length, for functions over MAX_FUNCTION_LINES (Python and C)."""
    out = {}
    for path in sorted(PKG.rglob("*")):
        rel = path.relative_to(ROOT).as_posix()
        if path.suffix == ".py":
            found = _py_function_lengths(path)
        elif path.suffix in (".c", ".h"):
            found = _c_function_lengths(path)
        else:
            continue
        for name, _line, n in found:
            if n > MAX_FUNCTION_LINES:
                key = f"{rel}:{name}"
                out[key] = max(n, out.get(key, 0))
    return out


def dynamic_imports(mods: dict | None = None) -> dict[str, list[str]]:
    """Modules importing by name at run time (``importlib.import_module``, ``__import__``) or with
    a module-level ``__getattr__`` -> which of the two (``importlib.resources`` / ``find_spec`` are no imports)."""
    out: dict[str, list[str]] = {}
    for mod, path in (mods or modules()).items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        uses = []
        if any(isinstance(n, ast.Call) and getattr(n.func, "attr", getattr(n.func, "id", None))
               in ("import_module", "__import__") for n in ast.walk(tree)):
            uses.append("importlib")  # a dynamic import (importlib.import_module, __import__)
        if any(isinstance(n, ast.FunctionDef) and n.name == "__getattr__" for n in tree.body):
            uses.append("__getattr__")
        if uses:
            out[mod] = uses
    return out


#: the library's layers, lowest first: a module of a layer imports its own layer and the ones
#: below only (the package face, compat.py and the command line sit above them all)
LAYERS = ("core", "engine", "stats", "metrics", "api", "cli")
#: outside the layers: the ROUGE-1.5.5 port (a side package: core.text reads its stemmer, two
#: metrics its kernels; it reaches the C extension through engine.cext only)
SIDE = ("rouge155",)


def layer_of(mod: str) -> int | None:
    parts = mod.split(".")
    return LAYERS.index(parts[1]) if len(parts) > 1 and parts[1] in LAYERS else None


def upward_imports(edges: dict) -> list[str]:
    """'a -> b' for every import from a layer into a higher one (or into a module of no layer)."""
    out = []
    for a, targets in sorted(edges.items()):
        la = layer_of(a)
        if la is None:
            continue
        for b in sorted(targets):
            lb = layer_of(b)
            side = len(b.split(".")) > 1 and b.split(".")[1] in SIDE
            if (lb is not None and lb > la) or (lb is None and not side):
                out.append(f"{a} -> {b}")
    return out


def measure() -> dict:
    users: dict = {}
    edges, private = imports(extension_users=users)
    return {
        "upward": upward_imports(edges),
        "extension_users": {e: sorted(m) for e, m in sorted(users.items())},
        "cycles": cycles(edges),
        "private": sorted({f"{m}: {t}" for m, _, t in private}),
        "long_files": long_files(),
        "long_functions": long_functions(),
        "dynamic_imports": dynamic_imports(),
    }


if __name__ == "__main__":
    m = measure()
    print("import cycles:", [len(c) for c in m["cycles"]])
    for c in m["cycles"]:
        print("  ", " ".join(c))
    print("private crossings:", len(m["private"]))
    print("files over", MAX_FILE_LINES, "lines:", m["long_files"])
    print("functions over", MAX_FUNCTION_LINES, "lines:", m["long_functions"])
    print("importlib / module __getattr__:", m["dynamic_imports"])
    print("C extensions imported by:", m["extension_users"])
    print("imports into a higher layer:", m["upward"])
