"""Smoke test: the DuReader benchmark runs end to end with --quick (its score checks inside).

No timing assertions: the script is run by path in a subprocess.
"""
from __future__ import annotations

import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_bench_dureader_quick_exits_zero():
    proc = subprocess.run([sys.executable, os.path.join(ROOT, "benchmarks", "bench_dureader.py"), "--quick"],
                          capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert "All score checks passed." in proc.stdout
    assert "| `python -m paddle_rougel dureader`" in proc.stdout
    assert "MISMATCH" not in proc.stdout
