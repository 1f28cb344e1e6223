"""The bit-parallel LCS step in Python: the one home of the recurrence outside C.

The C kernels' step is ``csrc/lcs_step.h``; this is the same recurrence (Allison-Dix /
Hyyro) on Python's arbitrary-size ints, for the pure-Python engine (``engine.py``) and
ROUGE-Lsum's fallback (``lsum.py``), and on integer tensors for the device path's
one-word rows (``device.py``).

The bit side ``a`` (n tokens) is ``v``, one bit per position, all ones (``full``) before
the first row; for each token ``t`` of the other side, with ``m`` its match mask (bit p
set iff ``a[p] == t``)::

    u = v & m
    v = ((v + u) & full) | (v - u)        # v - u == v & ~m: u is inside v

and after the last row the LCS is the number of zero bits of ``v`` among the n positions.
``& full`` drops the carry out of the top position (it would grow the int by a bit a row;
on a tensor it is the word's width).  A mask of 0 leaves ``v`` as it is.

>>> a, b = "ABCBDAB", "BDCABA"
>>> masks = {t: sum(1 << p for p, x in enumerate(a) if x == t) for t in set(a)}
>>> full = (1 << len(a)) - 1
>>> v = advance(full, [masks.get(t, 0) for t in b], full)
>>> len(a) - bin(v).count("1")     # LCS("ABCBDAB", "BDCABA")
4
"""
from __future__ import annotations

from typing import Iterable, List, Tuple, TypeVar

__all__ = ["advance", "advance_left"]

V = TypeVar("V")  # a Python int, or an integer tensor (one word per element)


def advance(v: V, masks: Iterable, full: V) -> V:
    """``v`` after one step for each match mask of ``masks``, in turn (see the module doc)."""
    for m in masks:
        u = v & m
        v = ((v + u) & full) | (v - u)
    return v


def advance_left(v: int, masks: Iterable[int], full: int) -> Tuple[int, List[int]]:
    """:func:`advance` on Python ints, and each row's go-left cells: where rouge-score's
    backtrack moves left when there is no match, t[i][j-1] == t[i][j] (a one in the new row)
    and t[i-1][j] < t[i][j] (the carry out of bit j-1 of the row's sum ``s``: with ``u``
    inside ``v``, ``u | (v & ~u & ~s)``).  Returns the last row and the go-left cells of
    every row (one per mask, 0 for a mask of 0)."""
    go_left = []
    for m in masks:
        u = v & m
        s = v + u
        n = (s | (v - u)) & full
        go_left.append(n & (u | (v & ~u & ~s)))
        v = n
    return v, go_left
