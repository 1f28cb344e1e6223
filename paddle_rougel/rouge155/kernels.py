"""The quadratic parts of ROUGE-1.5.5's ROUGE-L / ROUGE-W and its n-gram / skip-bigram counts.

``lcs_mask`` and ``wlcs_mask`` mark, in a model (reference) sentence, the positions the
script's DP backtrack puts on its LCS / weighted LCS with one peer sentence: the same DP
(ties go up: ``c[i-1][j] >= c[i][j-1]``; a match always goes diagonal) and the same walk from
the corner (``markLCS``).  The weighted DP adds ``(k+1)**w - k**w`` for the k-th consecutive
match, in floating point in the script's order, so the tie-breaks are the script's.  The C
engine has the same two loops (``_lcs.r155_masks``); these are the reference and fallback.
"""
from __future__ import annotations

from array import array
from collections import Counter
from typing import List, Sequence, Tuple

from ..engine.cext import r155 as EXT   # the extension (engine/cext.py, its one importer); None in the
_C = EXT                                  # pure-Python build: the reference kernels here

__all__ = ["EXT", "lcs_mask", "wlcs_mask", "ngram_counts", "skip_bigram_counts", "local_ids", "skip_overlaps",
           "weighted_hit"]


def _mark(mask: List[int], b: List[bytearray], i: int, j: int) -> None:
    while i and j:
        step = b[i][j]
        if step == 1:
            i -= 1
            j -= 1
            mask[i] = 1
        elif step == 2:
            i -= 1
        else:
            j -= 1


def lcs_mask(model: Sequence, peer: Sequence, mask: List[int]) -> None:
    """``lcs_inner``: set ``mask[i] = 1`` for the model positions on the script's LCS."""
    m, n = len(model), len(peer)
    if m == 0:
        return
    prev = [0] * (n + 1)
    b = [bytearray(n + 1)]
    for i in range(1, m + 1):
        cur = [0] * (n + 1)
        bi = bytearray(n + 1)
        x = model[i - 1]
        for j in range(1, n + 1):
            if x == peer[j - 1]:
                cur[j] = prev[j - 1] + 1
                bi[j] = 1
            elif prev[j] >= cur[j - 1]:
                cur[j] = prev[j]
                bi[j] = 2
            else:
                cur[j] = cur[j - 1]
                bi[j] = 3
        b.append(bi)
        prev = cur
    _mark(mask, b, m, n)


def wlcs_mask(model: Sequence, peer: Sequence, mask: List[int], weight: float) -> None:
    """``wlcs_inner``: the weighted LCS (``f(k) = k**weight``) with the script's backtrack."""
    m, n = len(model), len(peer)
    if m == 0:
        return
    prev = [0.0] * (n + 1)
    prevl = [0] * (n + 1)
    b = [bytearray(n + 1)]
    for i in range(1, m + 1):
        cur = [0.0] * (n + 1)
        curl = [0] * (n + 1)
        bi = bytearray(n + 1)
        x = model[i - 1]
        for j in range(1, n + 1):
            if x == peer[j - 1]:
                k = prevl[j - 1]
                cur[j] = prev[j - 1] + float(k + 1) ** weight - float(k) ** weight
                bi[j] = 1
                curl[j] = k + 1
            elif prev[j] >= cur[j - 1]:
                cur[j] = prev[j]
                bi[j] = 2
            else:
                cur[j] = cur[j - 1]
                bi[j] = 3
        b.append(bi)
        prev, prevl = cur, curl
    _mark(mask, b, m, n)


def ngram_counts(toks: Sequence, n: int):
    """``createNGram``: (Counter of the n-grams as tuples, their number)."""
    grams = Counter(tuple(toks[i:i + n]) for i in range(len(toks) - n + 1))
    return grams, max(0, len(toks) - n + 1)


def skip_bigram_counts(toks: Sequence, skip: int, unigrams: bool):
    """``createSkipBigram``: skip-bigrams ``(a, b)`` at most ``skip`` apart (any distance when
    ``skip < 0``), and with ``unigrams`` (``-u``) each token's unigram ``(a,)`` except the last
    one's."""
    g: Counter = Counter()
    count = 0
    last = len(toks) - 1
    for i in range(last):
        if unigrams:
            g[(toks[i],)] += 1
            count += 1
        stop = last if skip < 0 else min(last, i + skip + 1)
        for j in range(i + 1, stop + 1):
            g[(toks[i], toks[j])] += 1
            count += 1
    return g, count


def local_ids(seqs: Sequence[Sequence]) -> List[array]:
    """The sequences as int32 ids of one vocabulary of their own (first occurrence order)."""
    vocab: dict = {}
    return [array("i", [vocab.setdefault(t, len(vocab)) for t in seq]) for seq in seqs]


def skip_overlaps(cand: Sequence, refs: Sequence[Sequence], skip: int, unigrams: bool) -> Tuple[list, int, list]:
    """(clipped skip-bigram hits per reference, the candidate's count, each reference's count):
    ``createSkipBigram`` on both sides (``skip < 0``: any distance; ``unigrams``: ``-u``), the
    C kernel's sorted keys merged in one pass, else the Counters above."""
    if _C is None:
        cg, cc = skip_bigram_counts(tuple(cand), skip, unigrams)
        hits, counts = [], []
        for ref in refs:
            rg, rcount = skip_bigram_counts(tuple(ref), skip, unigrams)
            hits.append(sum(min(c, cg[g]) for g, c in rg.items() if g in cg))
            counts.append(rcount)
        return hits, cc, counts
    ids = local_ids([cand] + list(refs))
    ck = _C.skip_keys(ids[0].tobytes(), int(skip), bool(unigrams))
    hits, counts = [], []
    for r in ids[1:]:
        rk = _C.skip_keys(r.tobytes(), int(skip), bool(unigrams))
        hits.append(_C.clip_sorted(rk, ck))
        counts.append(len(rk) // 8)
    return hits, len(ck) // 8, counts


def weighted_hit(model: Sequence, peer: Sequence, weight: float) -> float:
    """ROUGE-W's hit of one model unit against one peer unit (the script's ``wlcs`` with one
    sentence each: the C weighted-LCS DP and backtrack, the runs of the model's matched
    positions), or None without the C extension."""
    if _C is None:
        return None
    m, p = local_ids([model, peer])
    mo = array("q", [0, len(m)]).tobytes()
    po = array("q", [0, len(p)]).tobytes()
    mb, pb = m.tobytes(), p.tobytes()
    scratch = bytearray(8 * (len(m) + len(p) + 1))   # the kernel's clipping counts
    return _C.lcs_hits(mb, mo, pb, po, mb, pb, float(weight), scratch)[0]
