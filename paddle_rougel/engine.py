"""Host LCS engine: exact longest-common-subsequence lengths for batches.

Two interchangeable back ends compute the same numbers:

* ``c``: the compiled bit-parallel kernel in ``_lcs.c`` (built by setup.py),
  O(len(a) * len(b) / 64) word operations and O(len(a) + len(b)) memory per
  pair, both cores used for large batches.
* ``python``: the same bit-parallel recurrence on Python's arbitrary-size
  ints, used when the extension could not be built (one warning).

Tokens: a ``str`` is its sequence of characters; any other sequence holds
hashable tokens compared with ``==`` (str, int, ...); numpy integer arrays
are accepted too.

Example:
    >>> from paddle_rougel.engine import lcs_length, lcs_batch
    >>> lcs_length("ABCBDAB", "BDCABA")
    4
    >>> res = lcs_batch(["abc", ["x", "y"]], [["abd", "c"], [["y"]]])
    >>> res.lcs.tolist(), res.ref_len.tolist(), res.ref_count.tolist()
    ([2, 1, 1], [3, 1, 1], [2, 1])
"""
from __future__ import annotations

import os
import warnings
from collections import Counter
from typing import Any, List, NamedTuple, Optional, Sequence

import numpy as np

try:  # the compiled kernel is optional: see setup.py
    from . import _lcs as _c_ext
except ImportError:  # pragma: no cover - exercised by the fallback test via BACKEND
    _c_ext = None

__all__ = ["LcsResult", "lcs_batch", "lcs_length", "clipped_matches", "backend", "set_backend",
           "default_threads"]


class LcsResult(NamedTuple):
    """LCS of every (candidate, reference) pair of a batch, in order.

    ``lcs`` and ``ref_len`` are flat over all pairs ([M]); ``cand_len`` and
    ``ref_count`` are per instance ([N]); the references of instance i are the
    slice ``offsets[i]:offsets[i+1]`` of the flat arrays.
    """

    lcs: np.ndarray
    cand_len: np.ndarray
    ref_len: np.ndarray
    ref_count: np.ndarray

    @property
    def offsets(self) -> np.ndarray:
        out = np.zeros(len(self.ref_count) + 1, dtype=np.int64)
        np.cumsum(self.ref_count, out=out[1:])
        return out


_BACKEND = "c" if _c_ext is not None else "python"
_WARNED = False


def backend() -> str:
    """The engine in use: ``"c"`` or ``"python"``."""
    return _BACKEND


def set_backend(name: str) -> None:
    """Force a back end (``"c"`` or ``"python"``); used by tests and benchmarks."""
    global _BACKEND
    if name not in ("c", "python"):
        raise ValueError(f"unknown LCS backend {name!r}; expected 'c' or 'python'")
    if name == "c" and _c_ext is None:
        raise RuntimeError("the C LCS kernel is not built (reinstall with a C compiler)")
    _BACKEND = name


def default_threads() -> int:
    """Worker threads for the C kernel: PADDLE_ROUGEL_THREADS, else all cores (max 8)."""
    env = os.environ.get("PADDLE_ROUGEL_THREADS")
    if env:
        return max(1, int(env))
    return max(1, min(8, os.cpu_count() or 1))


def lcs_batch(cands: Sequence, ref_lists: Sequence, threads: int | None = None) -> LcsResult:
    """LCS lengths of each candidate against each of its references.

    Args:
        cands: N candidates (str or token sequences).
        ref_lists: N non-empty lists of references.
        threads: worker threads for the C kernel (default: ``default_threads()``).

    Raises:
        TypeError / ValueError naming the instance (and reference) index for
        a ``None`` item, a bare ``str`` given as a reference list, an empty
        reference list, unhashable tokens or mismatched lengths.
    """
    if isinstance(cands, (str, bytes)) or isinstance(ref_lists, (str, bytes)):
        raise TypeError("lcs_batch takes a list of candidates and a list of reference lists")
    if not isinstance(cands, (list, tuple)):
        cands = list(cands)  # generators: both back ends need len() and two passes
    if not isinstance(ref_lists, (list, tuple)):
        ref_lists = list(ref_lists)
    if _BACKEND == "c":
        raw = _c_ext.lcs_batch(cands, ref_lists, threads or default_threads())
        return LcsResult(*(np.frombuffer(b, dtype=np.int64) for b in raw))
    _warn_fallback()
    return _python_lcs_batch(cands, ref_lists)


def lcs_length(a: Any, b: Any) -> int:
    """Exact LCS length of one pair.

    >>> lcs_length([1, 2, 3, 2], [2, 2, 3])
    2
    """
    return int(lcs_batch([a], [[b]], threads=1).lcs[0])


# ------------------------------------------------------------------ fallback

def _warn_fallback() -> None:
    global _WARNED
    if not _WARNED and _c_ext is None:
        warnings.warn(
            "paddle_rougel: the C LCS kernel is not built; using the pure-Python "
            "bit-parallel engine (exact, roughly 10-50x slower). Reinstall with a C compiler.",
            RuntimeWarning,
            stacklevel=3,
        )
        _WARNED = True


def _check_seq(x: Any, i: int, what: str) -> Any:
    if x is None:
        raise TypeError(f"instance {i}, {what}: got None, expected a str or a sequence of tokens")
    if isinstance(x, str):
        return x
    try:
        return list(x)
    except TypeError:
        raise TypeError(
            f"instance {i}, {what}: got {type(x).__name__}, expected a str or a sequence of tokens"
        ) from None


def _python_lcs_pair(masks: dict, n: int, b: Sequence) -> int:
    # Hyyro's recurrence on one big int; V - U == V & ~M because U is a subset of V.
    v = (1 << n) - 1
    get = masks.get
    for t in b:
        m = get(t)
        if m:
            u = v & m
            v = (v + u) | (v - u)
    return n - bin(v & ((1 << n) - 1)).count("1")


def _python_lcs_batch(cands: Sequence, ref_lists: Sequence) -> LcsResult:
    if len(cands) != len(ref_lists):
        raise ValueError(f"got {len(cands)} candidates but {len(ref_lists)} reference lists")
    lcs, cand_len, ref_len, ref_count = [], [], [], []
    for i, (cand, refs) in enumerate(zip(cands, ref_lists)):
        if refs is None or isinstance(refs, (str, bytes)):
            got = "None" if refs is None else type(refs).__name__
            raise TypeError(
                f"instance {i}: ref_list must be a list of references, got {got} "
                "(wrap a single reference as [ref])"
            )
        cand = _check_seq(cand, i, "candidate")
        refs = list(refs)
        if not refs:
            raise ValueError(f"instance {i}: ref_list is empty (need at least one reference)")
        masks: dict = {}
        for p, t in enumerate(cand):
            try:
                masks[t] = masks.get(t, 0) | (1 << p)
            except TypeError:
                raise TypeError(f"instance {i}, candidate: token {p} is unhashable "
                                f"({type(t).__name__})") from None
        n = len(cand)
        cand_len.append(n)
        ref_count.append(len(refs))
        for j, ref in enumerate(refs):
            ref = _check_seq(ref, i, f"reference {j}")
            try:
                lcs.append(_python_lcs_pair(masks, n, ref))  # also hashes tokens when n == 0
            except TypeError:
                raise TypeError(f"instance {i}, reference {j}: a token is unhashable") from None
            ref_len.append(len(ref))
    as64 = lambda x: np.asarray(x, dtype=np.int64)  # noqa: E731
    return LcsResult(as64(lcs), as64(cand_len), as64(ref_len), as64(ref_count))


# --------------------------------------------------------------- counting

def _python_matches(cand, sources, n_size: int) -> List[int]:
    """Exact per-k clipped matches with dicts (fallback for huge alphabets)."""
    out = []
    for k in range(1, n_size + 1):
        cc = Counter(tuple(cand[i:i + k]) for i in range(len(cand) - k + 1))
        best: Counter = Counter()
        for src in sources:
            best |= Counter(tuple(src[i:i + k]) for i in range(len(src) - k + 1))
        out.append(sum(min(c, best[g]) for g, c in cc.items() if g in best))
    return out


def clipped_matches(cands: Sequence, source_lists: Sequence, n_size: int,
                    prefix: Optional[Sequence[int]] = None) -> np.ndarray:
    """match[i, k-1] = sum over the distinct k-grams g of cands[i] of
    min(count in cands[i], max over s in source_lists[i] of count in s).

    Tokens: a str is its characters, any other sequence holds hashable tokens.
    With ``prefix`` (one int per instance), the result is [2, N, n_size]: the
    above and the same with the max over the first ``prefix[i]`` sources only
    (one pass over the sources gives both).  Counted by the C kernel (a hash
    table of the candidate's k-grams, sources streamed through it), or with
    dicts when the extension is not built.

    >>> clipped_matches(["aab", "xy"], [["ab", "aa"], []], 2).tolist()
    [[3.0, 2.0], [0.0, 0.0]]
    >>> clipped_matches(["aab"], [["aa", "ab"]], 2, prefix=[1]).tolist()
    [[[3.0, 2.0]], [[2.0, 1.0]]]
    """
    N = len(cands)
    if backend() == "c":
        raw = _c_ext.ngram_matches(cands, source_lists, n_size, prefix, default_threads())
        out = np.frombuffer(raw, dtype=np.int64).astype(np.float64)
        return out.reshape(N, n_size) if prefix is None else out.reshape(2, N, n_size)
    full = np.array([_python_matches(c, s, n_size) for c, s in zip(cands, source_lists)],
                    dtype=np.float64).reshape(N, n_size)
    if prefix is None:
        return full
    pre = np.array([_python_matches(c, s[:k], n_size) for c, s, k in zip(cands, source_lists, prefix)],
                   dtype=np.float64).reshape(N, n_size)
    return np.stack([full, pre])
