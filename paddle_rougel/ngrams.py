"""Interim pure-Python n-gram overlap (replaced by the C kernel branch)."""
from __future__ import annotations

from collections import Counter
from typing import NamedTuple, Sequence

import numpy as np

from .engine import _fix, _snap_batch


class NgramResult(NamedTuple):
    hits: np.ndarray
    cand_grams: np.ndarray
    ref_grams: np.ndarray
    ref_count: np.ndarray

    @property
    def offsets(self) -> np.ndarray:
        out = np.zeros(len(self.ref_count) + 1, dtype=np.int64)
        np.cumsum(self.ref_count, out=out[1:])
        return out


def _grams(toks, n, distinct):
    c = Counter(tuple(toks[i:i + n]) for i in range(len(toks) - n + 1))
    bad = [g for g in c if any(t != t for t in g)]
    return c, bad


def ngram_overlap(cands: Sequence, ref_lists: Sequence, orders=(1, 2), distinct=False, words=None,
                  threads=None) -> NgramResult:
    if words is not None:
        from .inputs import Batch, make_batch, split_words
        b = make_batch(cands, ref_lists)
        split = split_words(Batch(b.cands, b.ref_lists, b.plain, None, None, False, tuple(words)))
        cands, ref_lists = split.cands, split.ref_lists
    batch = _snap_batch(cands, ref_lists, refs=True)
    K = len(orders)
    hits, cg, rg, rc = [], [], [], []
    for t in batch:
        cand, refs = t[0], t[1:]
        rc.append(len(refs))
        row = []
        for n in orders:
            c, bad = _grams(cand, n, distinct)
            row.append(len(c) if distinct else max(0, len(cand) - n + 1))
        cg.append(row)
        for ref in refs:
            hrow, rrow = [], []
            for n in orders:
                c, bad = _grams(cand, n, distinct)
                r, rbad = _grams(ref, n, distinct)
                bad = set(bad)
                if distinct:
                    h = sum(1 for g in c if g in r and g not in bad)
                    rrow.append(len(r))
                else:
                    h = sum(min(k, r[g]) for g, k in c.items() if g in r and g not in bad)
                    rrow.append(max(0, len(ref) - n + 1))
                hrow.append(h)
            hits.append(hrow)
            rg.append(rrow)
    as2 = lambda x: np.array(x, dtype=np.int64).reshape(-1, K)
    return NgramResult(as2(hits), as2(cg), as2(rg), np.array(rc, dtype=np.int64))
