"""The markdown the tests read: README.md and every page of the documentation site (docs/*.md).

One home for the list and for the fenced blocks, so that tests/test_readme.py (the Python blocks
run), tests/test_golden.py (the commands' outputs) and tests/test_hints.py (no hint fires) cover
every page the same way.
"""
from __future__ import annotations

import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parents[1]
FILES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def name(path: pathlib.Path) -> str:
    """The file's path from the repository root (README.md, docs/python-api.md)."""
    return path.relative_to(ROOT).as_posix()


def text(path) -> str:
    return (ROOT / path).read_text(encoding="utf-8")


def blocks(lang: str, files=None) -> list[tuple[str, str]]:
    """(file name, block) for every ```lang fenced block of the files (default: all), in order."""
    return [(name(p), b) for p in (files or FILES)
            for b in re.findall(rf"```{lang}\n(.*?)```", p.read_text(encoding="utf-8"), flags=re.S)]
