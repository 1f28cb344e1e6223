"""Helpers shared by the benchmark scripts (imported as a sibling file: a unique name, so an
unrelated installed package cannot shadow it)."""
from __future__ import annotations

import platform
import sys
import time

import numpy as np


def best_time(fn, repeat):
    """(best wall time of ``repeat`` calls, the last result)."""
    best, out = float("inf"), None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return best, out


def cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as fh:
            for line in fh:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def max_abs_diff(got, want) -> float:
    """The largest |got - want| of two score arrays, compared as float64 (0.0 when empty)."""
    got, want = np.asarray(got, dtype=np.float64), np.asarray(want, dtype=np.float64)
    return float(np.max(np.abs(got - want))) if got.size else 0.0


def score_verdict(failures, say="MISMATCH in: ", sep=", ", stream=None, passed="All score checks passed.") -> int:
    """The end of a benchmark's score checks: with failures, 1 after a line naming them (say,
    then their names joined by sep, on stream: stdout by default); else 0 after the line
    ``passed`` (None: no line)."""
    if failures:
        print(say + sep.join(failures), file=stream or sys.stdout)
        return 1
    if passed is not None:
        print(passed)
    return 0
