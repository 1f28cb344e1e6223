"""Lossless candidate pairs for ROUGE-L F >= t: the length filter and a prefix-filter index.

For a pair whose hypothesis has m tokens and reference n, with L = LCS:
P = L / m, R = L / n and, for alpha in [0, 1] (gamma g is alpha 1 / (1 + g^2)),

    F = P R / (alpha R + (1 - alpha) P) = L / (alpha m + (1 - alpha) n),

increasing in L; tensor2tensor's F (alpha < 0) is a weighted harmonic mean of P and R, so
F <= max(P, R) = L / min(m, n).  Either way F >= t needs L >= t D(m, n) with
D = alpha m + (1 - alpha) n (alpha < 0: D = min(m, n)).  The library's float64 F is within
1e-15 (relative) of that real value, so :func:`need` asks for
L >= max(1, floor(t D (1 - 1e-9))): a pair it rules out has F < t in float64 as well.

Two bounds on L give the candidates:

* L <= min(m, n): the length filter (``min(m, n) >= need(m, n)``);
* L <= the multiset overlap of the two token lists (each occurrence k of a token is the
  element (token, k), so the overlap is a set intersection): when it is at least ``o``, the
  first ``|x| - o + 1`` elements of x and the first ``|y| - o + 1`` of y, in one global
  order, share an element (prefix filtering, AllPairs / PPJoin).  Elements are ordered
  rarest first, so prefixes hold rare elements and their posting lists are short.  A text's
  ``o`` is the least ``need`` over the partner lengths that pass the length filter.

Every pair with F >= t is a candidate; candidates are verified by the exact LCS kernel.
"""
from __future__ import annotations

from typing import List, NamedTuple, Optional, Sequence  # noqa: F401

import itertools
import re

import numpy as np

__all__ = ["need", "feasible", "Encoded", "encode", "encode_ids", "line_word_ids", "min_need", "Index", "build_index", "prefix_len",
           "prefix_entries", "candidate_pairs", "Passes", "two_windows", "window_indexes", "probe", "lcs_of_pairs", "lcs_index_pairs", "MARGIN"]

MARGIN = 1e-9  # relative slack of the bound (the float64 F is within 1e-15 of the real one)
_SURR = 0xD800  # token ids from here on skip the surrogates as code points
_MAX_ID = 0x10FFFF - 0x800


def need(m, n, t: float, alpha: float) -> np.ndarray:
    """The least LCS (int64, >= 1) a pair of lengths m (hypothesis), n can have with F >= t
    (``t > 0``): smaller LCS gives F < t in float64."""
    m = np.asarray(m, dtype=np.float64)
    n = np.asarray(n, dtype=np.float64)
    d = np.minimum(m, n) if alpha < 0 else alpha * m + (1.0 - alpha) * n
    return np.maximum(1.0, np.floor(t * d * (1.0 - MARGIN))).astype(np.int64)


def feasible(m, n, t: float, alpha: float) -> np.ndarray:
    """The length filter: LCS <= min(m, n) can reach :func:`need`."""
    return np.minimum(m, n) >= need(m, n, t, alpha)


def min_need(lens: np.ndarray, other: np.ndarray, t: float, alpha: float, as_hyp: bool,
             rel: Optional[str] = None) -> np.ndarray:
    """Per text of ``lens``, the least ``need`` over the lengths in ``other`` that pass the
    length filter with it (``as_hyp``: the text is the hypothesis; ``rel`` "le", "lt", "ge"
    or "gt": only the other lengths so related to the text's own); a huge value where none
    does (then the text has no prefix: it can pair with nothing)."""
    ul, inv = np.unique(lens, return_inverse=True)
    uo = np.unique(other)
    out = np.full(len(ul), np.iinfo(np.int64).max // 4, dtype=np.int64)
    if len(uo) == 0:
        return out[inv]
    step = max(1, 4_000_000 // len(uo))
    for lo in range(0, len(ul), step):
        a = ul[lo:lo + step, None]
        m, n = (a, uo[None, :]) if as_hyp else (uo[None, :], a)
        req = need(m, n, t, alpha)
        ok = (np.minimum(m, n) >= req) & (np.minimum(m, n) > 0)
        if rel is not None:
            ok &= _RELS[rel](uo[None, :], a)
        out[lo:lo + step] = np.where(ok, req, out[0]).min(axis=1)
    return out[inv]


_RELS = {"le": np.less_equal, "lt": np.less, "ge": np.greater_equal, "gt": np.greater}


class Encoded(NamedTuple):
    """Texts as the kernel and the index read them.

    ``texts``: each text as a str whose characters stand for its tokens (one code point per
    token id), or as a tuple of int ids when there are more distinct tokens than code points;
    ``lens``: tokens per text (int64); ``elems`` / ``ptr``: each text's elements (token,
    occurrence) as global ranks, ascending (rarest first), text i's at ``ptr[i]:ptr[i+1]``."""

    texts: list
    lens: np.ndarray
    elems: np.ndarray
    ptr: np.ndarray

    def part(self, lo: int, hi: int) -> "Encoded":
        """Texts lo:hi (their element ranks still global)."""
        return Encoded(self.texts[lo:hi], self.lens[lo:hi], self.elems[self.ptr[lo]:self.ptr[hi]],
                       self.ptr[lo:hi + 1] - self.ptr[lo])


_TRUSTED = frozenset({str, int, bool, bytes, tuple, frozenset, type(None)})


def _ids(texts: Sequence) -> tuple:
    """(ids int64 [T], lens int64 [N], chars): every token as an int id, equal tokens (by
    ``==`` and hash) the same id, a token unequal to itself (NaN) a fresh id each time.
    chars: every text a str (the ids are then the code points)."""
    lens = np.fromiter(map(len, texts), dtype=np.int64, count=len(texts))
    if all(type(s) is str for s in texts):
        raw = "".join(texts).encode("utf-32-le", "surrogatepass")
        return np.frombuffer(raw, dtype=np.uint32).astype(np.int64), lens, True
    flat = list(itertools.chain.from_iterable(texts))
    if set(map(type, flat)) <= _TRUSTED:  # equal to themselves: a dict gives the ids at C speed
        first: dict = {}
        raw = np.fromiter(map(first.setdefault, flat, itertools.count()), dtype=np.int64, count=len(flat))
        # raw[p]: where token p's value first occurs; dense ids in order of first occurrence
        code = np.cumsum(raw == np.arange(len(raw), dtype=np.int64)) - 1
        return code[raw], lens, False
    vocab: dict = {}
    out = np.empty(len(flat), dtype=np.int64)
    for p, tok in enumerate(flat):
        if type(tok) not in _TRUSTED and not (tok == tok):  # matches nothing, itself included
            out[p] = -1 - p
        else:
            out[p] = vocab.setdefault(tok, len(vocab))
    bad = out < 0
    if bad.any():
        out[bad] = len(vocab) + np.arange(int(bad.sum()))
    return out, lens, False


def encode(texts: Sequence) -> Encoded:
    """Read token sequences (str: its characters; or tuples / int arrays of tokens) once."""
    ids, lens, chars = _ids(texts)
    return encode_ids(ids, lens, list(texts) if chars else None)


_KEY_SPAN = 1 << 24  # element keys below this many (or a few per token): counted, not sorted
_KEYS_PER_TOKEN = 4


def encode_ids(ids: np.ndarray, lens: np.ndarray, strs: Optional[list] = None) -> Encoded:
    """:class:`Encoded` of texts given as token ids (int64 >= 0, text i's ``lens[i]`` of them
    in turn); ``strs``: the texts as str when the ids are their code points (else the texts
    are built from the ids).  The same ids give the same :class:`Encoded`, bit for bit."""
    n = len(lens)
    ptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(lens, out=ptr[1:])
    if strs is None:
        if len(ids) == 0 or ids.max() <= _MAX_ID:
            cps = (ids + np.where(ids >= _SURR, 0x800, 0)).astype("<u4")
            big = cps.tobytes().decode("utf-32-le")
            del cps
            strs = [big[ptr[i]:ptr[i + 1]] for i in range(n)]
            del big
        else:
            strs = [tuple(ids[ptr[i]:ptr[i + 1]].tolist()) for i in range(n)]
    v = int(ids.max(initial=0)) + 1
    comb = np.repeat(np.arange(n, dtype=np.int64), lens)
    comb *= v
    comb += ids
    comb.sort()  # (text, token) order: one sort of one int64 key
    stix = comb // v
    comb -= stix * v  # the token ids, in that order
    sid = comb
    total = len(sid)
    idx = np.arange(total, dtype=np.int64)
    start = np.zeros(total, dtype=np.int64)
    if total:
        run = np.ones(total, dtype=bool)
        run[1:] = (sid[1:] != sid[:-1]) | (stix[1:] != stix[:-1])
        start[run] = idx[run]
        del run
        np.maximum.accumulate(start, out=start)
    idx -= start  # k: the occurrence of its token in its text
    del start
    width = int(lens.max(initial=0)) + 1
    key = sid * width + idx  # the element (token, occurrence k)
    del sid, idx
    span = v * width
    if span <= max(_KEY_SPAN, _KEYS_PER_TOKEN * total):  # count the keys: np.unique's result without its sort
        counts = np.bincount(key, minlength=span)
        present = counts > 0
        uniq = np.flatnonzero(present)
        inv = np.cumsum(present, dtype=np.int64)[key] - 1
        counts = counts[uniq]
        del present
    else:
        uniq, inv, counts = np.unique(key, return_inverse=True, return_counts=True)
        inv = inv.reshape(-1)
    del key
    rank = np.empty(len(uniq), dtype=np.int64)
    rank[np.lexsort((uniq, counts))] = np.arange(len(uniq), dtype=np.int64)
    e = max(1, len(uniq))
    del uniq, counts
    elems = rank[inv]
    del inv, rank
    stix *= e
    stix += elems
    del elems
    stix.sort()
    stix %= e  # each text's elements, rarest first
    return Encoded(strs, lens, stix, ptr)


def line_word_ids(text: str, mode: int) -> tuple:
    """(ids, lens, words) of the words of each line of ``text`` (lines end at "\\n"): mode 0 the
    runs of non-whitespace (``str.split()``'s words), mode 1 the runs of [a-z0-9] (rouge-score's
    tokens of lowercased text).  ``ids`` (int64): each word's id, numbered in order of first
    occurrence; ``lens`` (int64): the words of each line; ``words``: the distinct words, by id.
    One pass in C; the Python back end splits and looks up a dict."""
    from . import host as engine

    kernel = engine.c_kernel("word_ids")
    if kernel is not None:
        ids, lens, words = kernel(text, mode)
        return np.frombuffer(ids, dtype=np.int64), np.frombuffer(lens, dtype=np.int64), words
    lines = text.split("\n")
    if mode == 1:
        lines = [_RS_WORD.findall(s) for s in lines]
    else:
        lines = [s.split() for s in lines]
    flat = list(itertools.chain.from_iterable(lines))
    vocab = {w: i for i, w in enumerate(dict.fromkeys(flat))}
    lens = np.fromiter(map(len, lines), dtype=np.int64, count=len(lines))
    return np.fromiter(map(vocab.__getitem__, flat), dtype=np.int64, count=len(flat)), lens, list(vocab)


_RS_WORD = re.compile(r"[a-z0-9]+")


class Index(NamedTuple):
    """Posting lists: element e's texts are ``recs[indptr[e]:indptr[e+1]]`` (by length, then
    id), ``pos`` the element's position in each, ``lens`` each one's length."""

    indptr: np.ndarray
    recs: np.ndarray
    pos: np.ndarray
    lens: np.ndarray


def prefix_len(lens: np.ndarray, o: np.ndarray) -> np.ndarray:
    """Prefix lengths: len - o + 1 elements, within [0, len]."""
    return np.clip(lens - o + 1, 0, lens)


def prefix_entries(enc: Encoded, plen: np.ndarray, base: int = 0):
    """(element, text id + base, position) of each text's first ``plen`` elements."""
    total = int(plen.sum())
    owner = np.repeat(np.arange(len(plen), dtype=np.int64), plen)
    first = np.zeros(len(plen) + 1, dtype=np.int64)
    np.cumsum(plen, out=first[1:])
    pos = np.arange(total, dtype=np.int64) - np.repeat(first[:-1], plen)
    return enc.elems[np.repeat(enc.ptr[:-1], plen) + pos], owner + base, pos


def build_index(elems: np.ndarray, recs: np.ndarray, pos: np.ndarray, n_elems: int, lens: np.ndarray) -> Index:
    """Posting lists of the entries (element, text, position); each element's postings
    ordered by the texts' lengths ``lens[recs]``, then ids (the C probe's length window)."""
    rl = lens[recs]
    nrec, nlen = int(len(lens)) + 1, int(lens.max(initial=0)) + 1
    if len(recs) and n_elems * nlen * nrec < 2**62:  # one int64 key: one sort, not three
        key = elems * (nlen * nrec) + rl * nrec + recs
        order = np.argsort(key)  # the keys are distinct (a text's elements are): lexsort's order
        del key
    else:
        order = np.lexsort((recs, rl, elems))
    indptr = np.zeros(n_elems + 1, dtype=np.int64)
    np.cumsum(np.bincount(elems, minlength=n_elems), out=indptr[1:])
    return Index(indptr, recs[order], pos[order], np.ascontiguousarray(rl[order], dtype=np.int64))


class Passes(NamedTuple):
    """Prefix lengths for the two windows of a probe: pairs whose right text is at most as
    long as the left one (window 1) and longer (window 2).  For a pair of lengths (m, n) the
    overlap needed is ``need(m, n)``, and need grows with each length, so a right text that
    is the shorter (n <= m) needs at least need(n, n) with any left partner: a short index
    prefix, while the left text's prefix covers only partners n <= m; window 2 the reverse.
    ``left``: the probe prefixes (window 1, window 2); ``right``: the index prefixes."""

    left: tuple
    right: tuple


def two_windows(llens: np.ndarray, rlens: np.ndarray, t: float, alpha: float) -> Passes:
    """:class:`Passes` of left texts (hypotheses) ``llens`` probing right texts ``rlens``."""
    return Passes((prefix_len(llens, min_need(llens, rlens, t, alpha, True, "le")),
                   prefix_len(llens, min_need(llens, rlens, t, alpha, True, "gt"))),
                  (prefix_len(rlens, min_need(rlens, llens, t, alpha, False, "ge")),
                   prefix_len(rlens, min_need(rlens, llens, t, alpha, False, "lt"))))


def window_indexes(rt: Encoded, plens: tuple, n_elems: int, base: int = 0, lens: Optional[np.ndarray] = None,
                   keep: Optional[np.ndarray] = None) -> list:
    """The right texts' index per window: ``[(1, Index), (2, Index)]`` from their prefixes
    ``plens`` (texts of ``rt``, ids + base, lengths ``lens`` by id: default rt.lens; ``keep``:
    only those texts of rt)."""
    lens = rt.lens if lens is None else lens
    out = []
    for w, plen in ((1, plens[0]), (2, plens[1])):
        e, r, p = prefix_entries(rt, plen if keep is None else np.where(keep, plen, 0), base)
        out.append((w, build_index(e, r, p, n_elems, lens)))
    return out


def candidate_pairs(lt: Encoded, plens: tuple, lo: int, hi: int, indexes: list, rt: Encoded,
                    t: float, alpha: float, order: int, budget: int, threads: Optional[int] = 1):
    """Yield (xs, ys): the candidate pairs of left texts lo:hi against the right texts ``rt``,
    distinct and sorted by (xs, ys), in chunks of about ``budget`` pairs.  ``indexes``:
    (window, :class:`Index`) pairs, each probed with the left prefixes ``plens[window - 1]``
    (window 0: every length, ``plens[0]``); no pair may be in two of them.  ``order``: 0
    every pair, 1 only ys > xs, -1 only ys < xs.  Filters: the lengths, PPJoin's positional
    bound (the shared prefix elements so far plus what can follow the last one) and, in C,
    the overlap bound on the whole texts (the shared prefix elements plus the overlap of what
    follows the last one in each).  ``threads``: the C probe's threads (pieces of rows)."""
    from . import host as engine

    rlens = np.ascontiguousarray(rt.lens, dtype=np.int64)
    kernel = engine.c_kernel("join_candidates")
    each = max(1, budget // max(1, len(indexes)))
    nxt = lo
    while nxt < hi:
        parts, stop = [], hi
        for w, index in indexes:
            plen = plens[max(0, w - 1)]
            if kernel is not None:
                xs, ys, end = kernel(lt.elems, lt.ptr, plen, lt.lens, index.indptr, index.recs, index.pos, index.lens,
                                     rlens,
                                     rt.elems, rt.ptr, nxt, stop, t, alpha, order, w, each,
                                     threads or engine.default_threads())
                xs, ys = np.frombuffer(xs, dtype=np.int64), np.frombuffer(ys, dtype=np.int64)
            else:
                xs, ys, end = _numpy_call(lt, plen, nxt, stop, index, rlens, t, alpha, order, w, each)
            stop = min(stop, end)
            parts.append((xs, ys))
        xs = np.concatenate([p[0] for p in parts] + [np.zeros(0, dtype=np.int64)])
        ys = np.concatenate([p[1] for p in parts] + [np.zeros(0, dtype=np.int64)])
        ok = xs < stop  # earlier indexes may have gone further
        xs, ys = xs[ok], ys[ok]
        if len(indexes) > 1 and len(xs):
            srt = np.lexsort((ys, xs))
            xs, ys = xs[srt], ys[srt]
        if len(xs):
            yield xs, ys
        nxt = stop


def _numpy_call(lt, plen, lo, hi, index, rlens, t, alpha, order, window, budget) -> tuple:
    """The C probe's call in numpy: (xs, ys, next) of rows lo.. until hi or about budget pairs."""
    out, x = [], lo
    total = 0
    while x < hi and total < budget:
        x1 = min(hi, x + 64)
        for xs, ys in _numpy_pairs(lt, plen, x, x1, index, rlens, t, alpha, order, budget):
            m, n = lt.lens[xs], rlens[ys]
            keep = (n <= m) if window == 1 else (n > m) if window == 2 else np.ones(len(xs), dtype=bool)
            out.append((xs[keep], ys[keep]))
            total += int(keep.sum())
        x = x1
    if not out:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64), x
    return np.concatenate([p[0] for p in out]), np.concatenate([p[1] for p in out]), x


def _numpy_pairs(lt, plen, lo, hi, index, rlens, t, alpha, order, budget):
    """:func:`candidate_pairs` in numpy (the Python back end's): probe, filter, sort."""
    part = lt.part(lo, hi)
    le, lown, lpos = prefix_entries(part, plen[lo:hi], base=lo)
    nr = max(1, len(rlens))
    for xs, ys, px, py in probe(index, le, lown, lpos, budget):
        keep = (ys > xs) if order > 0 else (ys < xs) if order < 0 else np.ones(len(xs), dtype=bool)
        m, n = lt.lens[xs], rlens[ys]
        keep &= feasible(m, n, t, alpha)
        xs, ys, px, py, m, n = xs[keep], ys[keep], px[keep], py[keep], m[keep], n[keep]
        key = xs * nr + ys
        srt = np.argsort(key, kind="stable")  # a pair's entries stay in rank order
        key = key[srt]
        if not len(key):
            continue
        ends = np.flatnonzero(np.append(key[1:] != key[:-1], True))
        cnt = np.diff(np.append(-1, ends))
        last = srt[ends]
        bound = cnt + np.minimum(m[last] - 1 - px[last], n[last] - 1 - py[last])
        ok = bound >= need(m[last], n[last], t, alpha)
        if ok.any():
            yield key[ends][ok] // nr, key[ends][ok] % nr


def probe(index: Index, elems: np.ndarray, owners: np.ndarray, lpos: np.ndarray, budget: int):
    """Yield (left ids, right ids, left positions, right positions) of every left prefix
    element's postings, in chunks of about ``budget`` (a chunk ends at a left text's end)."""
    sizes = index.indptr[elems + 1] - index.indptr[elems]
    if len(sizes) == 0:
        return
    csum = np.cumsum(sizes)
    ends = np.flatnonzero(np.append(owners[1:] != owners[:-1], True)) + 1  # each text's entries end
    at_end = csum[ends - 1]
    lo, t = 0, 0
    while t < len(ends):
        base = csum[lo - 1] if lo else 0
        j = max(int(np.searchsorted(at_end, base + budget, side="right")) - 1, t)  # one text at least
        cut = int(ends[j])
        s = sizes[lo:cut]
        total = int(s.sum())
        if total:
            first = np.cumsum(s) - s
            pos = np.repeat(index.indptr[elems[lo:cut]] - first, s) + np.arange(total, dtype=np.int64)
            yield np.repeat(owners[lo:cut], s), index.recs[pos], np.repeat(lpos[lo:cut], s), index.pos[pos]
        lo, t = cut, j + 1


def lcs_index_pairs(left: List, right: List, xs: np.ndarray, ys: np.ndarray, threads: Optional[int]) -> np.ndarray:
    """Exact LCS of left[xs[i]] and right[ys[i]]: the C kernel reads the texts by index (no
    lists of pairs) when they are str, else :func:`lcs_of_pairs`."""
    from . import host as engine

    lcs_index_pairs = engine.c_kernel("lcs_index_pairs")
    if lcs_index_pairs is not None and len(xs):
        raw = lcs_index_pairs(left, right, np.ascontiguousarray(xs, dtype=np.int64),
                              np.ascontiguousarray(ys, dtype=np.int64), threads or engine.default_threads())
        if raw is not None:
            return np.frombuffer(raw, dtype=np.int64)
    return lcs_of_pairs(list(map(left.__getitem__, xs.tolist())), list(map(right.__getitem__, ys.tolist())), threads)


def lcs_of_pairs(a: List, b: List, threads: Optional[int]) -> np.ndarray:
    """Exact LCS of a[i] and b[i] (the engine's kernel; str pairs by its fast path)."""
    from . import host as engine

    if not a:
        return np.zeros(0, dtype=np.int64)
    res = engine.lcs_pairs(a, b, threads)
    if res is None:
        res = engine.lcs_batch(a, [(x,) for x in b], threads)
    return res.lcs
