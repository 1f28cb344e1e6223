"""ROUGE-N counting engine: n-gram overlap of every (candidate, reference) pair.

:func:`ngram_overlap` counts, for each order n of ``orders`` and each pair, the n-grams the
candidate and the reference share and how many each has; the metric turns them into
P = hits / cand_grams, R = hits / ref_grams and F.  Two ways to count:

* clipped (``distinct=False``): hits = sum over the distinct n-grams g of
  min(count in the candidate, count in the reference); cand_grams / ref_grams = len - n + 1
  (0 when shorter).  rouge-score 0.1.2's ``_score_ngrams`` and ROUGE-1.5.5.
* distinct (``distinct=True``): n-grams as sets (rouge-chinese's default ``exclusive=True``):
  hits = |set(cand n-grams) & set(ref n-grams)|, cand_grams / ref_grams = the sets' sizes.

Texts, tokens and errors are exactly those of :func:`paddle_rougel.engine.lcs_batch` (a str
is its characters, any other sequence holds hashable tokens compared with ``==``; a token
unequal to itself, such as NaN, matches nothing, so an n-gram holding one never matches; it
still counts in cand_grams / ref_grams, and in distinct mode each such n-gram is distinct
from every other).  ``words=(mode, fold)`` (``TextSettings.c_words()``) splits str texts into
words first, in C by the LCS engine's word reader (``csrc/words_kernel.c``).

Back ends: the active one's ``ngram_overlap`` (:mod:`paddle_rougel.backends`): the C kernel
(``csrc/rougen_kernel.c``), or Counter-based Python; both give the same numbers.

>>> res = ngram_overlap(["the cat sat"], [["the cat sat down", "a cat"]], orders=(1, 2),
...                     words=(0, False))
>>> res.hits.tolist(), res.cand_grams.tolist(), res.ref_grams.tolist(), res.ref_count.tolist()
([[3, 2], [1, 0]], [[3, 2]], [[4, 3], [2, 1]], [2])
>>> ngram_overlap(["aab"], [["aba"]], orders=(1,), distinct=True).hits.tolist()
[[2]]
"""
from __future__ import annotations

import numbers
from collections import Counter
from typing import Any, NamedTuple, Optional, Sequence, Tuple

import numpy as np

from . import host as engine
from .inputs import fast_refs, split_texts, unordered

__all__ = ["NgramResult", "ngram_overlap", "lcs_ngram_words"]

# Orders above this are counted as this one: no text has more tokens (they give all zeros).
_ORDER_CAP = 1 << 62


class NgramResult(NamedTuple):
    """N-gram counts of every (candidate, reference) pair of a batch, in order.

    ``hits`` and ``ref_grams`` are flat over all pairs ([M, K]), ``cand_grams`` ([N, K]) and
    ``ref_count`` ([N]) per instance; column k is order ``orders[k]``; the references of
    instance i are the rows ``offsets[i]:offsets[i+1]`` of the flat arrays.
    """

    hits: np.ndarray
    cand_grams: np.ndarray
    ref_grams: np.ndarray
    ref_count: np.ndarray

    offsets = engine.LcsResult.offsets  # from ref_count, as LcsResult's (one home)


def _check_orders(orders: Any) -> Tuple[int, ...]:
    if isinstance(orders, (str, bytes)) or not hasattr(orders, "__iter__") or unordered(orders):
        raise TypeError(f"orders must be a tuple of distinct ints >= 1, e.g. (1, 2); got {orders!r}")
    out = tuple(orders)
    if not out or len(out) > 1 << 20:
        raise ValueError(f"orders has {len(out)} entries: give 1 to 2**20 n-gram orders, e.g. (1, 2)")
    for k, o in enumerate(out):
        if isinstance(o, bool) or not isinstance(o, numbers.Integral):
            raise ValueError(f"orders[{k}] = {o!r}: expected an int >= 1 (an n-gram order)")
        if o < 1:
            raise ValueError(f"orders[{k}] = {o!r}: an n-gram order must be >= 1")
    out = tuple(int(o) for o in out)
    if len(set(out)) != len(out):
        dup = next(o for o in out if out.count(o) > 1)
        raise ValueError(f"orders {out}: order {dup} is given twice")
    return out


def ngram_overlap(cands: Sequence, ref_lists: Sequence, orders: Sequence[int] = (1, 2),
                  distinct: bool = False, words: Optional[tuple] = None,
                  threads: Optional[int] = None) -> NgramResult:
    """N-gram overlap counts of each candidate against each of its references.

    Args:
        cands: N candidates (str or token sequences).
        ref_lists: N non-empty lists of references (or an ``inputs.OneRef``: one str
            reference each).
        orders: distinct ints >= 1, the n-gram orders (K of them; column k is orders[k]).
        distinct: count n-grams as sets (see the module doc) rather than clipped counts.
        words: ``(mode, fold)`` as :func:`engine.lcs_batch`'s: str texts split into words.
        threads: worker threads for the C kernel (default: ``engine.default_threads()``).

    Returns:
        :class:`NgramResult` of int64 arrays: hits [M, K], cand_grams [N, K], ref_grams [M, K],
        ref_count [N] (M = ref_count.sum(), pairs instance by instance).

    Raises:
        TypeError / ValueError: bad orders, or (as lcs_batch) a None item, a bare str as a
        reference list, an empty reference list, an unhashable token, mismatched lengths,
        naming the instance, reference and token.
    """
    orders = _check_orders(orders)
    cands = engine.batch_args("ngram_overlap", cands, ref_lists)
    return _count(cands, ref_lists, orders, bool(distinct), words, threads)


def lcs_ngram_words(cands: Sequence, ref_lists: Sequence, words: tuple, orders: Sequence[int] = (1, 2),
                    distinct: bool = False, threads: Optional[int] = None):
    """ROUGE-L's LCS and ROUGE-N's counts of the same ``str`` texts from one read of their words.

    ``(engine.lcs_batch(cands, ref_lists, words=words), ngram_overlap(cands, ref_lists, orders,
    distinct, words=words))``, the same numbers, by the active back end's fast path
    (``Backend.lcs_ngram_words``); None when it does not take these inputs (some text not a
    ``str``, or a back end without it): the caller then makes the two calls.  Arguments as
    :func:`ngram_overlap`'s (``words`` required).

    >>> lcs, res = lcs_ngram_words(["the cat sat"], [["the cat sat down", "a cat"]], (0, False), (1, 2))
    >>> lcs.lcs.tolist(), res.hits.tolist()
    ([3, 1], [[3, 2], [1, 0]])
    """
    orders = _check_orders(orders)
    cands = engine.batch_args("lcs_ngram_words", cands, ref_lists)
    refs, one_ref = fast_refs(ref_lists)
    return engine.get_backend().lcs_ngram_words(cands, refs, tuple(words), orders, bool(distinct), threads,
                                                one_ref=one_ref)


def c_orders(orders: Tuple[int, ...]) -> Tuple[int, ...]:
    """The orders as the C kernel takes them (an order past every text counts nothing)."""
    return tuple(min(o, _ORDER_CAP) for o in orders)


def result(arrays, K: int) -> NgramResult:
    """An NgramResult of the kernels' flat int64 arrays (hits, cand_grams, ref_grams, ref_count)."""
    h, cg, rg, rc = arrays
    return NgramResult(h.reshape(-1, K), cg.reshape(-1, K), rg.reshape(-1, K), rc)


def _count(cands: Sequence, ref_lists: Any, orders: Tuple[int, ...], distinct: bool,
           words: Optional[tuple], threads: Optional[int]) -> NgramResult:
    """The active back end's counts (:mod:`paddle_rougel.backends`): str texts read into words
    by its fast path when it has one, else split here and counted by its general operation."""
    be = engine.get_backend()
    refs, one_ref = fast_refs(ref_lists)  # (inputs.FlatRefs, generators, ...: a list)
    if words is not None:  # str texts: words read by the back end (None: some text is not a str)
        res = be.ngram_words(cands, refs, words, orders, distinct, threads, one_ref=one_ref)
        if res is not None:
            return res
    ref_lists = list(ref_lists) if one_ref else refs
    if words is not None:  # the Python tokenizer of the same settings (as lcs_batch)
        cands, ref_lists = split_texts(cands, ref_lists, words)
    return be.ngram_overlap(cands, ref_lists, orders, distinct, threads)


