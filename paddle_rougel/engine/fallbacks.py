"""The Python reference fallbacks of the host engine, gathered: what the Python back end
(:class:`.backends.PythonBackend`) runs when the C extension is not built, computing the same
numbers as ``csrc/`` (the tests hold the two to each other).  The LCS by Python ints
(``lcs_step.advance``), the clipped n-gram matches, ROUGE-N's n-gram counts, ROUGE-Lsum's
union LCS, the F / P / R matrix of ``rouge_l_matrix``, and the counter-based generator with
the numpy resampled sums of the statistics (``draws``, ``tree_sum``: :mod:`paddle_rougel.stats`
re-exports them).
"""
from __future__ import annotations

import operator
from collections import Counter
from typing import List, Sequence, Tuple

import numpy as np

from ..core import scoring
from ..core.lcs_step import advance
from . import host, lsum, ngrams

__all__ = ["python_lcs_batch", "python_lcs_pair", "python_matches", "python_clipped_matches", "python_lsum_batch",
           "check_scratch", "python_ngram_overlap", "grams", "python_score_matrix", "prf_matrix", "MATRIX_ROWS",
           "draws", "tree_sum", "numpy_sums", "check_seed", "BOOTSTRAP", "RANDOMIZE"]


# ------------------------------------------------------------------ LCS and clipped matches

def python_lcs_pair(masks: dict, n: int, b: Sequence, i: int, j: int) -> int:
    """LCS of the bit side (masks, n tokens) with b: lcs_step.advance over b's masks (a
    token the bit side lacks changes nothing: skipped)."""
    it = iter(b)  # b: a list or a str
    try:
        rows = list(filter(None, map(masks.get, it)))
    except Exception as e:  # noqa: BLE001 - an __eq__ raising on a hash collision
        p = len(b) - operator.length_hint(it) - 1  # the token it raised on: the last one read
        host.reraise_at(e, i, j, p, b[p])
    full = (1 << n) - 1
    return n - bin(advance(full, rows, full)).count("1")


def python_lcs_batch(cands: Sequence, ref_lists: Sequence) -> host.LcsResult:
    lcs, cand_len, ref_len, ref_count = [], [], [], []
    for i, texts in enumerate(host.snap_batch(cands, ref_lists, refs=True)):
        cand = host.fix_tokens(texts[0], i, None)
        masks: dict = {}
        p = 0
        try:
            for p, t in enumerate(cand):
                masks[t] = masks.get(t, 0) | (1 << p)
        except Exception as e:  # noqa: BLE001 - an __eq__ raising on a hash collision
            host.reraise_at(e, i, None, p, cand[p])
        n = len(cand)
        cand_len.append(n)
        ref_count.append(len(texts) - 1)
        for j, ref in enumerate(texts[1:]):
            ref = host.fix_tokens(ref, i, j)
            lcs.append(python_lcs_pair(masks, n, ref, i, j))  # also hashes tokens when n == 0
            ref_len.append(len(ref))
    as64 = lambda x: np.asarray(x, dtype=np.int64)  # noqa: E731
    return host.LcsResult(as64(lcs), as64(cand_len), as64(ref_len), as64(ref_count))


def python_matches(cand, sources, n_size: int, inst: int = 0) -> List[int]:
    """Exact per-k clipped matches with dicts (the fallback, and the tests' reference)."""
    cand = host.fix_tokens(host.snap_text(cand, inst, None), inst, None)
    sources = [host.fix_tokens(host.snap_text(s, inst, j), inst, j) for j, s in enumerate(sources)]
    out = []
    for k in range(1, n_size + 1):
        cc = Counter(tuple(cand[i:i + k]) for i in range(len(cand) - k + 1))
        best: Counter = Counter()
        for src in sources:
            best |= Counter(tuple(src[i:i + k]) for i in range(len(src) - k + 1))
        out.append(sum(min(c, best[g]) for g, c in cc.items() if g in best))
    return out


def python_clipped_matches(cands: Sequence, source_lists: Sequence, n_size: int,
                            prefix: Optional[Sequence[int]] = None) -> np.ndarray:
    """:func:`clipped_matches` with dicts (the Python back end)."""
    batch = host.snap_batch(cands, source_lists, refs=False)
    N = len(batch)
    full = np.array([python_matches(t[0], t[1:], n_size, i) for i, t in enumerate(batch)],
                    dtype=np.float64).reshape(N, n_size)
    if prefix is None:
        return full
    prefix = list(prefix)
    if len(prefix) != N:
        raise ValueError("prefix must have one entry per candidate")
    pre = np.array([python_matches(t[0], t[1:1 + max(0, int(k))], n_size, i)
                    for i, (t, k) in enumerate(zip(batch, prefix))],
                   dtype=np.float64).reshape(N, n_size)
    return np.stack([full, pre])



# ------------------------------------------------------------------ ROUGE-Lsum

def check_scratch(i: int, cand: list, refs: list) -> None:
    """The pair of instance i with the most LCS rows must fit in lsum.SCRATCH_BYTES (checkpointed):
    else the C kernel's ValueError, word for word."""
    n, c = max(((len(s), k) for k, s in enumerate(cand)), default=(0, 0), key=lambda x: x[0])
    if n <= 64:
        return
    m, j, s = max(((len(x), j, k) for j, r in enumerate(refs) for k, x in enumerate(r)),
                  default=(0, 0, 0), key=lambda x: x[0])
    need = lsum.pair_scratch(n, m)
    if need > lsum.SCRATCH_BYTES:
        raise ValueError(f"instance {i}: candidate sentence {c} ({n} tokens) against reference {j}, "
                         f"sentence {s} ({m} tokens): ROUGE-Lsum needs {need} bytes of LCS scratch, over "
                         f"the limit of {lsum.SCRATCH_BYTES} (paddle_rougel.lsum.SCRATCH_BYTES); split these "
                         "sentences")


def python_lsum_batch(cands: tuple, ref_lists: tuple, ref_count: np.ndarray, base: int = 0) -> lsum.LsumResult:
    hits, cand_len, ref_len = [], [], []
    snaps = []
    for i, (c, refs) in enumerate(zip(cands, ref_lists)):
        c = [host.fix_tokens(host.snap_text(s, i, None), i, None) for s in c]
        refs = [[host.fix_tokens(host.snap_text(s, i, j), i, j) for s in r] for j, r in enumerate(refs)]
        check_scratch(base + i, c, refs)  # every instance before any work, as the C kernel
        snaps.append((c, refs))
    for c, refs in snaps:
        cand_len.append(sum(map(len, c)))
        for r in refs:
            ref_len.append(sum(map(len, r)))
            hits.append(lsum.union_hits(c, r))
    as64 = lambda x: np.asarray(x, dtype=np.int64)  # noqa: E731
    return lsum.LsumResult(as64(hits), as64(cand_len), as64(ref_len), ref_count)



# ------------------------------------------------------------------ ROUGE-N

def python_ngram_overlap(cands: Sequence, ref_lists: Sequence, orders: Tuple[int, ...],
                    distinct: bool) -> ngrams.NgramResult:
    """The fallback: Counters of n-gram tuples (tokens read and checked as the LCS engine's)."""
    hits, cand_grams, ref_grams, ref_count = [], [], [], []
    for i, texts in enumerate(host.snap_batch(cands, ref_lists, refs=True)):
        cand = host.fix_tokens(texts[0], i, None)
        refs = [host.fix_tokens(t, i, j) for j, t in enumerate(texts[1:])]
        ref_count.append(len(refs))
        h_rows = [[0] * len(orders) for _ in refs]
        r_rows = [[0] * len(orders) for _ in refs]
        c_row = [0] * len(orders)
        for k, n in enumerate(orders):
            cc = grams(cand, n)
            c_row[k] = len(cc) if distinct else max(0, len(cand) - n + 1)
            for h_row, r_row, ref in zip(h_rows, r_rows, refs):
                rc = grams(ref, n)
                if distinct:
                    h_row[k], r_row[k] = len(cc.keys() & rc.keys()), len(rc)
                else:
                    h_row[k] = sum(min(c, rc[g]) for g, c in cc.items() if g in rc)
                    r_row[k] = max(0, len(ref) - n + 1)
        hits += h_rows
        ref_grams += r_rows
        cand_grams.append(c_row)
    K = len(orders)
    as64 = lambda x: np.asarray(x, dtype=np.int64).reshape(-1, K)  # noqa: E731
    return ngrams.NgramResult(as64(hits), as64(cand_grams), as64(ref_grams), np.asarray(ref_count, dtype=np.int64))


def grams(toks: Sequence, n: int) -> Counter:
    if n > len(toks):
        return Counter()
    return Counter(tuple(toks[p:p + n]) for p in range(len(toks) - n + 1))



# ------------------------------------------------------------------ rouge_l_matrix

MATRIX_ROWS = 256  # rows of F computed in float64 at a time (the float64 temporaries stay small)


def prf_matrix(lcs: np.ndarray, qlen: np.ndarray, clen: np.ndarray, a: float):
    p, r = scoring.precision_recall(lcs, qlen[:, None], clen[None, :])
    return scoring.f_measure(p, r, scoring.Weighting(None, a)), p, r


def python_score_matrix(lcs: np.ndarray, lens: np.ndarray, q: int, a: float, with_pr: bool, f64: bool) -> list:
    """The Python back end's ``score_matrix``: core/scoring.py itself, float32 [Q, C] arrays of F
    (and P, R) computed MATRIX_ROWS rows at a time; ``f64``: [F] in float64, at once."""
    qlen, clen = lens[:q], lens[q:]
    if f64:
        return [prf_matrix(lcs, qlen, clen, a)[0]]
    out = [np.empty(lcs.shape, dtype=np.float32) for _ in range(3 if with_pr else 1)]
    for lo in range(0, q, MATRIX_ROWS):
        hi = min(q, lo + MATRIX_ROWS)
        for dst, src in zip(out, prf_matrix(lcs[lo:hi], qlen[lo:hi], clen, a)):
            dst[lo:hi] = src
    return out



# ------------------------------------------------------------------ the statistics' generator and sums

_GAMMA = np.uint64(0x9E3779B97F4A7C15)


_M1, _M2 = np.uint64(0xBF58476D1CE4E5B9), np.uint64(0x94D049BB133111EB)


_LO32, _S32 = np.uint64(0xFFFFFFFF), np.uint64(32)


_BUDGET = 1 << 22  # elements per numpy chunk (a few arrays of this many 8-byte values)


BOOTSTRAP, RANDOMIZE = 0, 1  # resample_sums' modes (the C kernel's)


def _mix(z: np.ndarray) -> np.ndarray:
    z = (z ^ (z >> np.uint64(30))) * _M1
    z = (z ^ (z >> np.uint64(27))) * _M2
    return z ^ (z >> np.uint64(31))


def _keys(seed: int, rows: np.ndarray) -> np.ndarray:
    return _mix(np.uint64(seed) + (rows.astype(np.uint64) + np.uint64(1)) * _GAMMA)


def _draw_block(keys: np.ndarray, j0: int, count: int, m: int) -> np.ndarray:
    """draw(seed, r, j0 + t, m) for every key (row) and t < count: int64 [len(keys), count]."""
    j = np.arange(j0 + 1, j0 + count + 1, dtype=np.uint64)
    h = _mix(keys[:, None] + j[None, :] * _GAMMA)
    mm = np.uint64(m)
    return (((h >> _S32) * mm + (((h & _LO32) * mm) >> _S32)) >> _S32).astype(np.int64)

def check_seed(seed: int) -> int:
    if isinstance(seed, bool):
        raise TypeError("seed must be an int")
    seed = operator.index(seed)
    if not 0 <= seed < 2 ** 64:
        raise ValueError(f"seed must be in [0, 2**64), got {seed}")
    return seed



def draws(seed: int, stream: int, modulus: int, count: int) -> np.ndarray:
    """Values ``draw(seed, stream, j, modulus)`` for ``j < count`` (the generator in the module docstring).

    Bootstrap resample ``r`` of N instances draws ``draws(seed, r, N, N)``;
    randomization trial ``r`` swaps where ``draws(seed, r, 2, N)`` is 1.
    ``key(0, 0)`` is splitmix64's first output from state 0:

    >>> hex(int(_keys(0, np.array([0]))[0]))
    '0xe220a8397b1dcdaf'
    >>> draws(0, 0, 10, 5).tolist()
    [6, 7, 3, 6, 7]
    """
    seed, modulus = check_seed(seed), operator.index(modulus)
    if not 1 <= modulus < 2 ** 32:
        raise ValueError("modulus must be in [1, 2**32)")
    with np.errstate(over="ignore"):
        return _draw_block(_keys(seed, np.array([operator.index(stream)])), 0, operator.index(count), modulus)[0]


def tree_sum(values: np.ndarray) -> np.ndarray:
    """Pairwise-tree sums along the last axis (the summation order of every sum in this module).

    >>> tree_sum(np.array([[1.0, 2.0, 3.0], [1e16, 1.0, -1e16]])).tolist()   # (1+2)+3, (1e16+1)-1e16
    [6.0, 0.0]
    """
    a = np.asarray(values, dtype=np.float64)
    while a.shape[-1] > 1:
        m = a.shape[-1]
        s = a[..., 0:m - 1:2] + a[..., 1:m:2]
        a = np.concatenate([s, a[..., m - 1:]], axis=-1) if m % 2 else s
    return a[..., 0]


def _numpy_bootstrap(cols: np.ndarray, resamples: int, seed: int) -> np.ndarray:
    """[R, k] bootstrap sums of cols [k, N] in row chunks of about _BUDGET draws."""
    k, n = cols.shape
    out = np.empty((resamples, k))
    rows_per = max(1, _BUDGET // n)
    block = min(n, _BUDGET)
    for r0 in range(0, resamples, rows_per):
        rows = np.arange(r0, min(resamples, r0 + rows_per))
        keys, off = _keys(seed, rows), (np.arange(len(rows)) * n)[:, None]
        count = np.zeros(len(rows) * n, dtype=np.int64)
        for j0 in range(0, n, block):
            flat = (_draw_block(keys, j0, min(block, n - j0), n) + off).ravel()
            if block == n:
                count += np.bincount(flat, minlength=len(count))
            else:
                np.add.at(count, flat, 1)
        count = count.reshape(len(rows), n).astype(np.float64)
        for c in range(k):
            out[r0:r0 + len(rows), c] = tree_sum(count * cols[c][None, :])
    return out


def _numpy_randomize(cols: np.ndarray, trials: int, seed: int) -> np.ndarray:
    """[T, k] randomization sums: cols [k, N] is A's k/2 columns then B's."""
    k, n = cols.shape
    half, out = k // 2, np.empty((trials, k))
    rows_per, block = max(1, _BUDGET // n), min(n, _BUDGET)
    for r0 in range(0, trials, rows_per):
        rows = np.arange(r0, min(trials, r0 + rows_per))
        keys, acc = _keys(seed, rows), []
        for j0 in range(0, n, block):  # the blocks are joined before the one tree over n
            swap = _draw_block(keys, j0, min(block, n - j0), 2).astype(bool)
            a, b = cols[:half, None, j0:j0 + block], cols[half:, None, j0:j0 + block]
            acc.append(np.concatenate([np.where(swap, b, a), np.where(swap, a, b)]))  # [k, rows, block]
        out[r0:r0 + len(rows)] = tree_sum(np.concatenate(acc, axis=-1)).T
    return out


def numpy_sums(cols_kn: np.ndarray, resamples: int, seed: int, mode: int) -> np.ndarray:
    """The numpy back end of ``stats.intervals``' resampled sums (the Python back end's ``resample_sums``)."""
    with np.errstate(over="ignore"):
        if mode == BOOTSTRAP:
            return _numpy_bootstrap(cols_kn, resamples, seed)
        return _numpy_randomize(cols_kn, resamples, seed)
