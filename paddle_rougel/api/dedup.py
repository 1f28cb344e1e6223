"""Self-Instruct de-duplication in bounded memory, on the similarity join's candidate index.

Item i is kept iff its best ROUGE-L F against the pool and the items kept before it is at
most the threshold (Self-Instruct: ``if max(rouge_scores) > 0.7: continue``).  Items are
read in blocks; each block's items are checked against three sources of candidates, all
from the lossless bounds of :mod:`paddle_rougel.candidates` and verified by the LCS kernel:
the pool's index, the index of the items kept in earlier blocks (dropped items never enter
it), and the block itself (pairs j < i, resolved in order).  A dropped item's best F is
its exact best (the largest F against the pool and the items kept before it, not the first
above the threshold: every pair above the threshold is a candidate, and all are verified).
A kept item's best is at most the threshold; ``best="dropped"`` (the default) leaves it NaN,
which keeps the run near-linear; ``best="exact"`` computes it exactly by a second pass over the
kept items (all pairs of kept items: quadratic time, bounded memory).  The kept set is the
same, bit for bit, either way.

>>> d = deduplicate(["the cat sat", "the cat sat down", "a dog"], ["a cat"], 0.7, tokenize="whitespace")
>>> d.kept.tolist(), d.best.round(4).tolist()
([0, 2], [nan, 0.8571, nan])
>>> deduplicate(["the cat sat", "the cat sat down", "a dog"], ["a cat"], 0.7, tokenize="whitespace",
...             best="exact").best.round(4).tolist()
[0.4, 0.8571, 0.5]
"""
from __future__ import annotations

from typing import Any, List, NamedTuple, Optional, Sequence

import numpy as np

from ..engine import candidates as cand
from ..engine import host as engine
from ..core import scoring
from ..core.settings import keywords_checked
from .join import BLOCK, check_memory, check_threshold, encode_texts, settings_of, verify

__all__ = ["deduplicate", "Dedup", "ITEMS_PER_BLOCK", "prepare", "resolve", "exact_rows"]

ITEMS_PER_BLOCK = 4096  # items resolved per block
_EXACT_BYTES = 1 << 27  # the exact pass's LCS + F block: about 128 MiB


class Dedup(NamedTuple):
    """``kept``: indices of the items kept, in order (int64); ``best``: per item, its best F
    against the pool and the items kept before it (float64; 0.0 with nothing to compare;
    NaN for a kept item under ``best="dropped"``)."""

    kept: np.ndarray
    best: np.ndarray


class _KeptIndex:
    """The kept items' prefix entries, per window, as a few posting-list segments (merged as a
    binary counter: O(log blocks) segments, each entry re-sorted O(log blocks) times)."""

    def __init__(self, n_elems: int, lens: np.ndarray):
        self.n_elems, self.lens = n_elems, lens
        self.segs: dict = {1: [], 2: []}  # window: [(elems, recs, pos, Index)]

    def add(self, window: int, elems: np.ndarray, recs: np.ndarray, pos: np.ndarray) -> None:
        segs = self.segs[window]
        while segs and len(segs[-1][0]) <= 2 * len(elems):
            e, r, p, _ = segs.pop()
            elems, recs, pos = np.concatenate([e, elems]), np.concatenate([r, recs]), np.concatenate([p, pos])
        if len(elems):
            segs.append((elems, recs, pos, cand.build_index(elems, recs, pos, self.n_elems, self.lens)))

    def indexes(self):
        return [(w, s[3]) for w in (1, 2) for s in self.segs[w]]


def prepare(items, pool, threshold, alpha, gamma, best, text) -> tuple:
    """(alpha, threshold, items, pool) checked, the texts as :class:`candidates.Encoded` (one
    vocabulary); ``text``: (tokenize, normalize, lowercase, stem)."""
    a = scoring.weighting(gamma, alpha, default_alpha=0.5).as_alpha()
    t = check_threshold(threshold)
    if best not in ("exact", "dropped"):
        raise ValueError(f"best must be 'exact' or 'dropped', got {best!r}")
    samples = list(items[:64]) if isinstance(items, (list, tuple)) else []
    tok = settings_of(*text, samples)
    it, pt = encode_texts([(items, "item"), (pool, "pool item")], tok, "deduplicate")
    return a, t, it, pt


@keywords_checked
def deduplicate(items: Sequence, pool: Sequence = (), threshold: float = 0.7,
                alpha: Optional[float] = None, *, gamma: Optional[float] = None, tokenize: Any = "char",
                normalize: str = "none", lowercase: Optional[bool] = None, stem: bool = False,
                threads: Optional[int] = None, best: str = "dropped", progress=None) -> Dedup:
    """Self-Instruct's ROUGE-L filter: keep item i when its best F against the pool and the
    items kept before it is at most ``threshold`` (drop it when above).

    The item is the hypothesis (P = LCS / len(item)); at the default alpha (0.5, rouge-score's
    F, what Self-Instruct uses) F is symmetric anyway.  ``gamma``: instead of alpha (as alpha
    1 / (1 + gamma^2)).  Memory: the inputs, the kept items' index and one block, not the
    N x (P + N) grid.  ``best``: ``"dropped"`` (default) the dropped items' exact best F (as
    computed by ``rouge_l_matrix``'s float64 operations), NaN for the kept ones (their best is
    at most the threshold); ``"exact"`` every item's (a second pass over the kept items,
    quadratic in their number).  The kept indices do not depend on it.
    ``progress``: called with the number of items resolved since its last call.
    """
    a, t, I, P = prepare(items, pool, threshold, alpha, gamma, best, (tokenize, normalize, lowercase, stem))
    n = len(I.lens)
    out = np.zeros(n, dtype=np.float64)
    kept = np.zeros(n, dtype=bool)
    if t < 0:  # every F is >= 0 > t: nothing kept, each item's best is against the pool only
        _exact_best(I, P, np.arange(n), a, threads, out, kept_cols=False)
    elif n:
        _greedy(I, P, t, a, threads, out, kept, progress)
        if best == "exact":
            _exact_best(I, P, np.flatnonzero(kept), a, threads, out)
        else:
            out[kept] = np.nan
    return Dedup(np.flatnonzero(kept).astype(np.int64), out)


def _greedy(I: cand.Encoded, P: cand.Encoded, t: float, a: float, threads, best: np.ndarray,
            kept: np.ndarray, progress=None) -> None:
    """Fill kept and (for the dropped items, exactly) best, block by block (t >= 0)."""
    n = len(I.lens)
    probe = cand.two_windows(I.lens, np.concatenate([P.lens, I.lens]), t, a).left
    ref = cand.two_windows(I.lens, I.lens, t, a).right
    n_elems = int(max(I.elems.max(initial=-1), P.elems.max(initial=-1))) + 1
    sources = []
    if len(P.lens):
        sources.append((cand.window_indexes(P, cand.two_windows(I.lens, P.lens, t, a).right, n_elems), P))
    kept_index = _KeptIndex(n_elems, I.lens)
    for lo in range(0, n, ITEMS_PER_BLOCK):
        hi = min(n, lo + ITEMS_PER_BLOCK)
        bmax = np.zeros(hi - lo, dtype=np.float64)
        for indexes, rt in sources + [(kept_index.indexes(), I)]:
            for xs, ys in cand.candidate_pairs(I, probe, lo, hi, indexes, rt, t, a, 0, BLOCK, threads):
                np.maximum.at(bmax, xs - lo, verify(I, rt, xs, ys, a, threads))
        block = I.part(lo, hi)
        entries = [cand.prefix_entries(block, ref[w - 1][lo:hi], base=lo) for w in (1, 2)]
        own = [(w, cand.build_index(*entries[w - 1], n_elems, I.lens)) for w in (1, 2)]
        inner = [(xs, ys, verify(I, I, xs, ys, a, threads))
                 for xs, ys in cand.candidate_pairs(I, probe, lo, hi, own, I, t, a, -1, BLOCK, threads)]
        resolve(lo, hi, bmax, inner, t, best, kept)
        for w in (1, 2):
            ok = kept[entries[w - 1][1]]
            kept_index.add(w, *(x[ok] for x in entries[w - 1]))
        if progress is not None:
            progress(hi - lo)


def resolve(lo: int, hi: int, bmax: np.ndarray, inner: list, t: float, best: np.ndarray,
             kept: np.ndarray) -> None:
    """Items lo:hi in order: best = max(earlier sources, kept earlier items of the block)."""
    if inner:
        xs, ys, f = (np.concatenate([p[k] for p in inner]) for k in range(3))
        hot = f > t  # only pairs above the threshold can drop an item or set a dropped one's best
        xs, ys, f = xs[hot], ys[hot], f[hot]
    else:
        xs = ys = np.zeros(0, dtype=np.int64)
        f = np.zeros(0)
    starts = np.searchsorted(xs, np.arange(lo, hi + 1))
    xl, yl, fl = xs.tolist(), ys.tolist(), f.tolist()
    for i in range(lo, hi):
        b = float(bmax[i - lo])
        for k in range(starts[i - lo], starts[i - lo + 1]):
            if kept[yl[k]] and fl[k] > b:
                b = fl[k]
        best[i] = b
        kept[i] = b <= t


def _exact_best(I: cand.Encoded, P: cand.Encoded, kept: np.ndarray, a: float, threads,
                best: np.ndarray, kept_cols: bool = True) -> None:
    """best[i] of the kept items exactly (without kept_cols: against the pool only)."""
    best[kept] = exact_rows(I, P, kept, 0, len(kept), a, threads, kept_cols)


def exact_rows(I: cand.Encoded, P: cand.Encoded, kept: np.ndarray, r0: int, r1: int, a: float, threads,
               kept_cols: bool = True) -> np.ndarray:
    """The exact best F of the kept items kept[r0:r1]: against the whole pool and every kept
    item before each (kept_cols False: the pool only); the all-pairs kernel in blocks of rows
    and C's float64 F, as rouge_l_matrix's.  0.0 with nothing to compare."""
    out = np.zeros(r1 - r0, dtype=np.float64)
    npool = len(P.lens)
    if r1 <= r0 or (not npool and not kept_cols):
        return out
    be = engine.get_backend()
    ptexts = list(P.texts)
    ktexts = [I.texts[i] for i in kept[:r1].tolist()]
    rows = max(16, _EXACT_BYTES // (12 * (npool + (r1 if kept_cols else 0)) + 1))
    for b0 in range(r0, r1, rows):
        b1 = min(r1, b0 + rows)
        cols = ptexts + (ktexts[:b1 - 1] if kept_cols else [])
        if not cols:
            continue
        check_memory("deduplicate's exact pass", (b1 - b0, len(cols)), 12 * (b1 - b0) * len(cols),
                     "pass best='dropped' (the same kept items)")
        lcs, lens = be.lcs_matrix(ktexts[b0:b1] + cols, b1 - b0, threads)
        f = np.array(be.score_matrix(lcs, lens, b1 - b0, a, False, threads, f64=True)[0])
        later = np.arange(len(cols) - npool)[None, :] >= np.arange(b0, b1)[:, None]  # from itself on
        f[:, npool:][later] = -np.inf
        out[b0 - r0:b1 - r0] = np.maximum(f.max(axis=1, initial=-np.inf), 0.0)
    return out
