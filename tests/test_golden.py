"""Golden outputs: every command the README and the docs pages show, run on the shipped example files.

Each ``paddle-rougel ...`` line of the ``bash`` blocks of README.md and docs/*.md
(tests/markdown_docs.py) whose input files ship in
the repository is run from the repository root; its exit status, stdout and stderr must
equal ``tests/golden/readme_commands.json`` exactly, and every output line a page
prints under it (``# ...`` comments, ``...`` standing for any text) must be a line of the
golden stdout.  A change of any printed number therefore fails here, where it is seen.

After an intended change, regenerate and review the diff:
``PADDLE_ROUGEL_UPDATE_GOLDEN=1 python -m pytest tests/test_golden.py``.
"""
from __future__ import annotations

import json
import os
import pathlib
import re
import shlex
import subprocess
import sys

import pytest

from markdown_docs import blocks

ROOT = pathlib.Path(__file__).resolve().parents[1]
GOLDEN = ROOT / "tests" / "golden" / "readme_commands.json"
UPDATE = os.environ.get("PADDLE_ROUGEL_UPDATE_GOLDEN") == "1"


def _commands():
    """(command, [displayed output lines]) for each command of the pages on shipped files."""
    out = []
    for _, block in blocks("bash"):
        lines = block.splitlines()
        for i, line in enumerate(lines):
            cmd = line.split("&& ", 1)[1] if "&& paddle-rougel " in line else line
            if not cmd.startswith("paddle-rougel "):
                continue
            args = shlex.split(cmd)
            files = [a for a in args if "/" in a and not a.startswith("-")]
            if not files or not all((ROOT / f).exists() for f in files):
                continue  # a command on the user's own files (hyp.txt, ...)
            shown = []
            for nxt in lines[i + 1:]:
                if not nxt.startswith("# "):
                    break
                shown.append(nxt[2:])
            out.append((cmd, shown))
    return out


COMMANDS = _commands()


def _run(cmd: str) -> dict:
    args = shlex.split(cmd)
    p = subprocess.run([sys.executable, "-m", "paddle_rougel", *args[1:]], cwd=ROOT,
                       capture_output=True, text=True, timeout=300,
                       env={**os.environ, "PYTHONHASHSEED": "0"})
    return {"returncode": p.returncode, "stdout": p.stdout, "stderr": p.stderr}


@pytest.fixture(scope="module")
def golden():
    if UPDATE:
        data = {cmd: _run(cmd) for cmd, _ in COMMANDS}
        GOLDEN.parent.mkdir(exist_ok=True)
        GOLDEN.write_text(json.dumps(data, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    return json.loads(GOLDEN.read_text(encoding="utf-8"))


def test_every_readme_command_has_a_golden_output(golden):
    assert len(COMMANDS) >= 3
    assert sorted(golden) == sorted({cmd for cmd, _ in COMMANDS})


@pytest.mark.parametrize("cmd", sorted({c for c, _ in COMMANDS}))
def test_output_is_the_golden_output(cmd, golden):
    assert _run(cmd) == golden[cmd]


@pytest.mark.parametrize("cmd,shown", [c for c in COMMANDS if c[1]], ids=lambda x: str(x)[:60])
def test_readme_shows_the_golden_output(cmd, shown, golden):
    stream = None  # "stdout: " / "stderr: " name the stream; an indented line continues it
    for line in shown:
        if line.startswith(("stdout: ", "stderr: ")):
            stream, line = line.split(": ", 1)
        elif not line.startswith(" "):
            stream = None
        line = line.strip()
        printed = (golden[cmd][stream] if stream else golden[cmd]["stdout"] + golden[cmd]["stderr"]).splitlines()
        pattern = ".*".join(re.escape(part) for part in line.split("..."))
        assert any(re.fullmatch(pattern, p.rstrip()) for p in printed), (
            f"a page shows {line!r} under {cmd!r}, but it prints:\n" + "\n".join(printed))
