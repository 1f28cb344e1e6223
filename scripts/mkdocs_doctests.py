"""A griffe extension for the documentation site (mkdocs.yml loads it through mkdocstrings).

The docstrings carry doctests (`pytest --doctest-modules` runs them) as plain ``>>>`` paragraphs;
Markdown would render them as nested block quotes. This wraps each such paragraph (one that starts
at the docstring's left margin) in a ``pycon`` code fence. Doctests already inside an indented
``Examples:`` section are left to griffe, which renders them as code. The source is not changed.
"""
from __future__ import annotations

import griffe


def fence_doctests(text: str) -> str:
    out, lines, i = [], text.split("\n"), 0
    while i < len(lines):
        if lines[i].startswith(">>>"):
            j = i
            while j < len(lines) and lines[j].strip():
                j += 1
            out += ["```pycon", *lines[i:j], "```"]
            i = j
        else:
            out.append(lines[i])
            i += 1
    return "\n".join(out)


class FenceDoctests(griffe.Extension):
    def on_instance(self, *, obj, **kwargs) -> None:
        if obj.docstring is not None and ">>>" in obj.docstring.value:
            obj.docstring.value = fence_doctests(obj.docstring.value)
