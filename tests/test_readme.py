"""The README's Python blocks run as written (blocks marked '# fragment' are excerpts)."""
from __future__ import annotations

import pathlib
import re

import pytest

README = (pathlib.Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
BLOCKS = re.findall(r"```python\n(.*?)```", README, flags=re.S)
RUNNABLE = [b for b in BLOCKS if not b.startswith("# fragment")]


def test_there_are_runnable_blocks():
    assert len(RUNNABLE) >= 5 and len(BLOCKS) > len(RUNNABLE)


@pytest.mark.parametrize("code", RUNNABLE, ids=[f"block{i}" for i in range(len(RUNNABLE))])
def test_block_runs(code, capsys):
    exec(compile(code, "README.md", "exec"), {"__name__": "readme"})


def test_printed_numbers_are_the_readme_numbers(capsys):
    exec(compile(RUNNABLE[0], "README.md", "exec"), {"__name__": "readme"})
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "0.7800511508951408"  # the README's comment on that line
    assert out[-1] == "RougeL|gamma:1.2|multi_ref:max_pr|tok:char|norm:none|lc:no|v:0.1.0"
