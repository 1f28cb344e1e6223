"""A tiny progress bar on stderr, shown only when stderr is a terminal.

>>> import io
>>> bar = Progress(100, "scoring", stream=io.StringIO())  # not a tty: silent
>>> bar.update(50); bar.close()
>>> bar.enabled
False
"""
from __future__ import annotations

import sys
import time
from typing import Optional, TextIO

__all__ = ["Progress"]


class Progress:
    """``update(n)`` adds n units of ``total``; redraws at most 10 times a second."""

    def __init__(self, total: int, desc: str, stream: Optional[TextIO] = None, min_total: int = 1):
        self.stream = stream if stream is not None else sys.stderr
        self.total = max(int(total), 1)
        self.desc = desc
        self.done = 0
        isatty = getattr(self.stream, "isatty", None)
        self.enabled = bool(isatty and isatty()) and total >= min_total
        self._last = 0.0
        self._start = time.monotonic()

    def update(self, n: int = 1) -> None:
        self.done += n
        if not self.enabled:
            return
        now = time.monotonic()
        if now - self._last < 0.1 and self.done < self.total:
            return
        self._last = now
        frac = min(self.done / self.total, 1.0)
        width = 30
        fill = int(frac * width)
        self.stream.write(f"\r{self.desc} [{'#' * fill}{'.' * (width - fill)}] {frac * 100:5.1f}% "
                          f"{now - self._start:6.1f}s")
        self.stream.flush()

    def close(self) -> None:
        if self.enabled:
            self.stream.write("\r" + " " * (len(self.desc) + 50) + "\r")
            self.stream.flush()
