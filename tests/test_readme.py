"""The Python blocks of README.md and of every docs/*.md page run as written (blocks marked
'# fragment' are excerpts); tests/markdown_docs.py lists the files."""
from __future__ import annotations

import pytest

from markdown_docs import blocks

BLOCKS = blocks("python")
RUNNABLE = [(f, b) for f, b in BLOCKS if not b.startswith("# fragment")]


def test_there_are_runnable_blocks():
    assert len(RUNNABLE) >= 5 and len(BLOCKS) > len(RUNNABLE)
    assert {f for f, _ in RUNNABLE} >= {"README.md", "docs/python-api.md", "docs/getting-started.md"}


@pytest.mark.parametrize("where,code", RUNNABLE, ids=[f"{f}:block{i}" for i, (f, _) in enumerate(RUNNABLE)])
def test_block_runs(where, code, capsys):
    exec(compile(code, where, "exec"), {"__name__": "readme"})


def _run_first(where, capsys):
    code = next(b for f, b in RUNNABLE if f == where)
    exec(compile(code, where, "exec"), {"__name__": "readme"})
    return capsys.readouterr().out.splitlines()


def test_printed_numbers_are_the_readme_numbers(capsys):
    out = _run_first("docs/python-api.md", capsys)
    assert out[0] == "0.7800511508951408"  # the page's comment on that line
    assert out[-1] == "RougeL|gamma:1.2|multi_ref:max_pr|tok:char|norm:none|lc:no|v:0.1.0"


@pytest.mark.parametrize("where", ["README.md", "docs/index.md", "docs/getting-started.md"])
def test_first_examples_print_their_numbers(where, capsys):
    """The first block needs no Paddle (compute); the second is the Paddle metric."""
    code = [b for f, b in RUNNABLE if f == where]
    exec(compile(code[0], where, "exec"), {"__name__": "readme"})
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "0.6666666666666666"  # the comment
    if where != "docs/getting-started.md":
        assert out[1:] == ["0.6"]  # rouge2 of the four-type example
    exec(compile(code[1], where, "exec"), {"__name__": "readme"})
    assert capsys.readouterr().out.splitlines() == ["0.7800511508951408"]
