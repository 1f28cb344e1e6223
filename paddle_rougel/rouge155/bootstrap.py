"""ROUGE-1.5.5's averages and confidence intervals (``computeAverages``, ``bootstrapResampling``).

For resample i = 0 .. R-1 the script calls ``srand(i)`` and draws ``int(rand(N))`` N times over
the evaluation ids sorted as strings.  Perl >= 5.20 has its own drand48 on every platform: a
48-bit linear congruential generator (``x = 0x5DEECE66D x + 0xB mod 2**48``, ``rand() = x /
2**48``) whose ``srand(s)`` sets ``x = s << 16 | 0x330E``; :func:`resample_indices` is that
generator, all resamples at once.  A resample's figure is the plain running sum of the drawn
evaluations' figures (in draw order, as the script adds them), divided by N (``-t 0``) or made
into R, P, F from the summed counts (``-t 1``).  The printed average is the mean of the R sorted
resample figures (summed in order), the interval ends interpolate between two order
statistics at ``delta = R (100 - c) / 200`` with the upper end's fraction used for both ends.
"""
from __future__ import annotations

from typing import List, Sequence

import numpy as np

from .kernels import EXT as _ext   # None in the pure-Python build: numpy draws

__all__ = ["drand48_first", "resample_indices", "resample_sums", "averages", "score_intervals", "compute_intervals"]

_A = np.uint64(0x5DEECE66D)
_C = np.uint64(0xB)
_MASK = np.uint64((1 << 48) - 1)
_SCALE = 2.0 ** -48


def drand48_first(seed: int, count: int) -> List[float]:
    """The first ``count`` values of Perl's ``rand()`` after ``srand(seed)`` (plain Python)."""
    x = ((seed << 16) + 0x330E) & ((1 << 48) - 1)
    out = []
    for _ in range(count):
        x = (0x5DEECE66D * x + 0xB) & ((1 << 48) - 1)
        out.append(x * _SCALE)
    return out


def resample_indices(first: int, stop: int, n: int) -> np.ndarray:
    """[n, stop - first] int64 (draw k, resample i): ``int(rand(n))`` drawn n times after
    ``srand(i)`` for each i in ``range(first, stop)``."""
    key = (first, stop, n)
    got = _INDEX_CACHE.get(key)
    if got is not None:
        return got
    x = (np.arange(first, stop, dtype=np.uint64) << np.uint64(16)) + np.uint64(0x330E)
    out = np.empty((n, stop - first), dtype=np.int64)
    fn = float(n)
    for k in range(n):
        x = (x * _A + _C) & _MASK          # uint64 wraps mod 2**64; 2**48 divides it
        out[k] = (fn * (x.astype(np.float64) * _SCALE)).astype(np.int64)
    _INDEX_CACHE.clear()                   # one run's draws (every metric pass reuses them)
    _INDEX_CACHE[key] = out
    return out


_INDEX_CACHE: dict = {}


def _ranked_stats(values: np.ndarray, conf: float, resamples: int) -> tuple:
    ranked = np.sort(values, kind="stable")
    mean = np.cumsum(ranked)[-1] / len(ranked)
    delta = resamples * ((100 - conf) / 2.0) / 100.0
    ci_ua = int(resamples - delta - 1)
    ci_la = int(delta)
    ratio = resamples - delta - 1 - ci_ua

    def at(i):
        return float(ranked[i]) if -len(ranked) <= i < len(ranked) else 0.0
    lo = at(ci_la) + (at(ci_la + 1) - at(ci_la)) * ratio
    hi = at(ci_ua) + (at(ci_ua + 1) - at(ci_ua)) * ratio
    return mean, lo, hi


def averages(rows: Sequence[Sequence[float]], resamples: int, conf: float, token_level: bool,
             alpha: float, chunk: int = 1 << 22) -> tuple:
    """((avg, low, high) of R, of P, of F) as the script prints them (unformatted floats).

    ``rows``: one (R, P, F) per evaluation in the string order of their ids (``-t 0``), or
    (model count, peer count, hits) (``token_level``: ``-t 1``)."""
    vals = np.asarray(rows, dtype=np.float64).reshape(-1, 3)
    n = len(vals)
    if resamples <= 0:
        raise ZeroDivisionError("Illegal division by zero")
    samples = np.zeros((resamples, 3))
    if n:
        samples = resample_sums(vals, resamples, chunk)
        if not token_level:
            samples /= n
        else:
            m, p, h = samples[:, 0], samples[:, 1], samples[:, 2]
            with np.errstate(divide="ignore", invalid="ignore"):
                r = np.where(m > 0, h / np.where(m > 0, m, 1), 0.0)
                pr = np.where(p > 0, h / np.where(p > 0, p, 1), 0.0)
                den = (1 - alpha) * pr + alpha * r
                f = np.where(den > 0, (r * pr) / np.where(den > 0, den, 1), 0.0)
            samples = np.stack([r, pr, f], axis=1)
    return tuple(_ranked_stats(samples[:, c], conf, resamples) for c in range(3))


def resample_sums(vals: np.ndarray, resamples: int, chunk: int = 1 << 22) -> np.ndarray:
    """[resamples, 3]: each resample's sums of the drawn rows of ``vals`` ([n, 3] float64), the
    draws added in order as the script adds them (no pairwise sum): the C kernel, else numpy."""
    n = len(vals)
    if _ext is not None:
        sums = _ext.boot_sums(np.ascontiguousarray(vals, dtype=np.float64).tobytes(), resamples)
        return np.frombuffer(sums, dtype=np.float64).reshape(resamples, 3).copy()
    samples = np.zeros((resamples, 3))
    step = max(1, chunk // n)
    for first in range(0, resamples, step):
        stop = min(resamples, first + step)
        idx = resample_indices(first, stop, n)
        for c in range(3):
            drawn = vals[:, c][idx]
            acc = drawn[0].copy()
            for row in drawn[1:]:
                acc += row
            samples[first:stop, c] = acc
    return samples


def score_intervals(precision: Sequence[float], recall: Sequence[float], f_of, resamples: int = 1000,
                    confidence: float = 95.0) -> tuple:
    """The script's averages and intervals of per-instance figures (instance i its evaluation
    ``"i+1"``): each R and P rounded to 5 decimals as its ``-t 0`` results are, F made from the
    rounded two by ``f_of(p, r)`` (arrays) and rounded, drawn over the ids sorted as strings.
    ((avg, low, high) of R, of P, of F)."""
    p5 = np.array([float("%7.5f" % x) for x in np.asarray(precision, dtype=np.float64)])
    r5 = np.array([float("%7.5f" % x) for x in np.asarray(recall, dtype=np.float64)])
    with np.errstate(divide="ignore", invalid="ignore"):
        f = np.asarray(f_of(p5, r5), dtype=np.float64)
    f5 = np.array([float("%7.5f" % x) if np.isfinite(x) else 0.0 for x in f])
    order = sorted(range(len(p5)), key=lambda k: str(k + 1))
    rows = np.column_stack([r5, p5, f5])[order] if len(p5) else np.zeros((0, 3))
    return averages(rows, resamples, confidence, False, 0.5)


def compute_intervals(accs: dict) -> tuple:
    """``compute(aggregate="rouge155")``: ({key: (low, high)}, {name: (P, R, F) averages}) of
    each accumulator's per-instance figures, its F weighting (``settings.f``) applied to the
    rounded P and R as the script does."""
    intervals, mids = {}, {}
    for name, acc in accs.items():
        s = acc.per_instance()
        (r, rl, rh), (p, pl, ph), (f, fl, fh) = score_intervals(s.precision, s.recall, acc.settings.f)
        intervals.update({name: (fl, fh), f"{name}_precision": (pl, ph), f"{name}_recall": (rl, rh)})
        mids[name] = (p, r, f)
    return intervals, mids
