"""Helpers shared by the benchmark scripts (imported as a sibling file: a unique name, so an
unrelated installed package cannot shadow it)."""
from __future__ import annotations

import platform
import time


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
