"""Exact ROUGE-L similarity join: every pair with F >= threshold, without all pairs.

``similarity_join(left, right, threshold)`` returns the pairs (i, j) with
``rouge_l_matrix(left, right)[i, j] >= threshold`` in float64, sorted, as three arrays; with
``right=None`` it joins ``left`` with itself, pairs i < j.  Candidates come from lossless
bounds (:mod:`paddle_rougel.candidates`: the length filter and a prefix-filter index on
tokens ordered by rarity) and each is verified by the exact LCS kernel; F is computed by
the same float64 operations as ``rouge_l_matrix`` (``scoring.precision_recall`` and
``f_measure``), so each F is bit for bit the matrix cell's float64 value (the matrix holds
it rounded to float32).  Memory: the inputs, the output and one block of candidates
(about ``block`` pairs), never the N x M grid.

>>> j = similarity_join(["the cat sat", "the cat sat down", "a dog"], threshold=0.7,
...                     tokenize="whitespace")
>>> j.left.tolist(), j.right.tolist(), j.f.round(4).tolist()
([0], [1], [0.8571])
"""
from __future__ import annotations

import itertools
import math
import numbers
import os
from typing import Any, Iterator, NamedTuple, Optional, Sequence

import numpy as np

from ..engine import candidates as cand
from ..core import scoring
from ..core.hints import hint_texts
from ..core.settings import keywords_checked
from ..core.text import TextSettings

__all__ = ["similarity_join", "Join", "check_threshold", "check_memory", "pair_f", "token_texts",
           "batch_words", "word_ids", "encode_texts", "encode_sides", "BLOCK"]

BLOCK = 2_000_000  # candidate pairs verified at a time (before duplicates are removed)


class Join(NamedTuple):
    """Pairs with F >= threshold, sorted by (left, right): ``left`` and ``right`` int64
    indices, ``f`` float64 (the left text is the hypothesis: P = LCS / len(left))."""

    left: np.ndarray
    right: np.ndarray
    f: np.ndarray


def check_threshold(threshold: Any, name: str = "threshold") -> float:
    """A finite real number (a str such as '0.5', None, nan or inf: an error naming it)."""
    if isinstance(threshold, (bool, np.bool_)) or not isinstance(threshold, numbers.Real):
        raise TypeError(f"{name} must be a real number, got {type(threshold).__name__} {threshold!r}")
    t = float(threshold)
    if not math.isfinite(t):
        raise ValueError(f"{name} must be finite, got {threshold!r}")
    return t


def _available_bytes() -> Optional[int]:
    try:
        with open("/proc/meminfo") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return None


def check_memory(what: str, shape: tuple, nbytes: int,
                 advice: str = "use similarity_join (the pairs above a threshold) or smaller blocks") -> None:
    """MemoryError naming ``what``, its shape and the bytes it needs when that is more than
    the memory available now (``/proc/meminfo``'s MemAvailable; unknown: no check)."""
    avail = _available_bytes()
    if avail is not None and nbytes > avail:
        dims = " x ".join(f"{d:,}" for d in shape)
        raise MemoryError(f"{what}: [{dims}] needs about {nbytes / 2**30:,.1f} GiB ({nbytes:,} bytes), "
                          f"more than the {avail / 2**30:,.1f} GiB available; {advice}")


def token_texts(items: Sequence, what: str, tok) -> list:
    """The items as token sequences (str tokenized by ``tok``; None: characters); errors name
    the item (``what`` and its index)."""
    from ..engine.inputs import check_tokens

    if isinstance(items, (str, bytes)):
        raise TypeError(f"{what}s must be a list of texts, not a single {type(items).__name__}")
    words = getattr(tok, "c_words", None)
    if words is not None and isinstance(items, (list, tuple)):
        fast = batch_words(items, words)
        if fast is not None:
            return fast
    out = []
    for i, x in enumerate(items):
        if isinstance(x, str):
            out.append(tok(x) if tok is not None else x)
        else:  # bytes (decode first), None, sets, unhashable tokens: named
            out.append(check_tokens(x, f"{what} {i}"))
    return out


def batch_words(items: Sequence, words: tuple) -> Optional[list]:
    """The words of every str of ``items`` as the tokenizer of ``words`` = (mode, fold) gives them
    (``TextSettings.c_words``: 0 ``str.split()``, lowercased with fold; 1 rouge-score's tokens),
    as tuples of str, read by :func:`word_ids`' reader (one pass over the batch); None unless
    every item is a str without a newline."""
    got = _chunk_words(items, words)
    if got is None:
        return None
    ids, lens, uniq = got
    flat = iter(list(map(uniq.__getitem__, ids.tolist())))
    return [tuple(itertools.islice(flat, k)) for k in lens.tolist()]


def _chunk_words(items: Sequence, words: tuple) -> Optional[tuple]:
    """:func:`candidates.line_word_ids` of the str ``items`` (one line each: joined, lowercased
    once when the tokenizer folds case); None unless every item is a str without a newline."""
    if not all(type(x) is str for x in items):
        return None
    if not items:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64), []
    big = "\n".join(items)
    if big.count("\n") != len(items) - 1:
        return None
    mode, fold = words
    return cand.line_word_ids(big.lower() if mode == 1 or fold else big, mode)


def pair_f(lcs: np.ndarray, m: np.ndarray, n: np.ndarray, alpha: float) -> np.ndarray:
    """float64 F of pairs (hypothesis length m, reference n): ``rouge_l_matrix``'s operations."""
    p, r = scoring.precision_recall(lcs, m, n)
    return scoring.f_measure(p, r, scoring.Weighting(None, alpha))


def settings_of(tokenize, normalize, lowercase, stem, samples: Sequence) -> Any:
    """The tokenizer of the text settings (None: characters), after the English hint."""
    settings = TextSettings(tokenize, normalize, lowercase, stem)
    hint_texts(settings, samples)
    return None if settings.is_default else settings.tokenizer()


def verify(lt: cand.Encoded, rt: cand.Encoded, xs: np.ndarray, ys: np.ndarray, alpha: float,
           threads: Optional[int]) -> np.ndarray:
    """Exact float64 F of the pairs (lt[xs] hypothesis, rt[ys])."""
    lcs = cand.lcs_index_pairs(lt.texts, rt.texts, xs, ys, threads)
    return pair_f(lcs, lt.lens[xs], rt.lens[ys], alpha)


def candidate_blocks(lt: cand.Encoded, rt: cand.Encoded, t: float, alpha: float, self_join: bool,
                     block: int, threads: Optional[int] = None) -> Iterator[tuple]:
    """(xs, ys) blocks of distinct candidate pairs, sorted, xs ascending over the blocks
    (self_join: ys > xs).  ``t`` >= 0.  Two windows (:func:`candidates.two_windows`): right
    texts at most as long as the left one, and longer, each with its own prefixes."""
    passes = cand.two_windows(lt.lens, rt.lens, t, alpha)
    n_elems = int(max(lt.elems.max(initial=-1), rt.elems.max(initial=-1))) + 1
    indexes = cand.window_indexes(rt, passes.right, n_elems)
    yield from cand.candidate_pairs(lt, passes.left, 0, len(lt.lens), indexes, rt, t, alpha,
                                    1 if self_join else 0, block, threads)


def _all_pairs(nl: int, nr: int, self_join: bool, block: int) -> Iterator[tuple]:
    """Every pair (threshold <= 0: every F qualifies), in blocks of about ``block``."""
    rows = max(1, block // max(1, nr))
    for lo in range(0, nl, rows):
        xs = np.repeat(np.arange(lo, min(nl, lo + rows), dtype=np.int64), nr)
        ys = np.tile(np.arange(nr, dtype=np.int64), min(nl, lo + rows) - lo)
        if self_join:
            keep = ys > xs
            xs, ys = xs[keep], ys[keep]
        yield xs, ys


def join_blocks(lt: cand.Encoded, rt: cand.Encoded, t: float, alpha: float, self_join: bool,
                block: int, threads: Optional[int]) -> Iterator[tuple]:
    """(xs, ys, f) of the pairs with F >= t, block by block, sorted."""
    blocks = (_all_pairs(len(lt.lens), len(rt.lens), self_join, block) if t <= 0 else
              candidate_blocks(lt, rt, t, alpha, self_join, block, threads=threads))
    for xs, ys in blocks:
        f = verify(lt, rt, xs, ys, alpha, threads)
        ok = f >= t
        yield xs[ok], ys[ok], f[ok]


WORDS_CHUNK = 1 << 16  # str items split into words at a time by encode_texts


def word_ids(items: Sequence, words: tuple, chunk: Optional[int] = None) -> Optional[tuple]:
    """(ids, lens) int64 of the words of every str of ``items`` (:func:`batch_words`'s tokens),
    each word an id in order of first occurrence (what :func:`candidates.encode` gives the
    same tokens), read ``chunk`` items (default :data:`WORDS_CHUNK`) at a time by
    :func:`candidates.line_word_ids`: no token list per item.  None unless every item is a
    str without a newline."""
    chunk = chunk or WORDS_CHUNK
    if not all(type(x) is str for x in items):
        return None
    vocab: dict = {}
    ids, lens = [], []
    for lo in range(0, len(items), chunk):
        got = _chunk_words(items[lo:lo + chunk], words)
        if got is None:
            return None
        local, n_words, uniq = got
        for w in uniq:  # the chunk's distinct words in order of first occurrence
            if w not in vocab:
                vocab[w] = len(vocab)
        remap = np.fromiter(map(vocab.__getitem__, uniq), dtype=np.int64, count=len(uniq))
        ids.append(remap[local])
        lens.append(n_words)
    z = np.zeros(0, dtype=np.int64)
    return np.concatenate(ids + [z]), np.concatenate(lens + [z])


def encode_texts(sides: Sequence[tuple], tok, who: str) -> list:
    """Each side ``(items, what)`` as :class:`candidates.Encoded`, with one vocabulary and element
    order over all of them: lists of str under a words tokenizer (``c_words``) by
    :func:`word_ids`, anything else by :func:`token_texts` (errors name the item by ``what``
    and index).  A memory check before the index (about 80 bytes a token at its peak)."""
    words = getattr(tok, "c_words", None)
    got = None
    if words is not None and all(isinstance(items, (list, tuple)) for items, _ in sides):
        got = word_ids([x for items, _ in sides for x in items], words)
    if got is None:
        texts = [t for items, what in sides for t in token_texts(items, what, tok)]
        sizes = np.fromiter(map(len, texts), dtype=np.int64, count=len(texts))
    else:
        sizes = got[1]
    tokens = int(sizes.sum())
    check_memory(f"{who}'s token index", (len(sizes), tokens), 80 * tokens,
                 "split the corpus, or use paddle_rougel.dask on a cluster")
    enc = cand.encode(texts) if got is None else cand.encode_ids(*got)
    out, lo = [], 0
    for items, _ in sides:
        out.append(enc.part(lo, lo + len(items)))
        lo += len(items)
    return out


def encode_sides(left: Sequence, right: Optional[Sequence], tok) -> tuple:
    """(left, right) :class:`candidates.Encoded` with one vocabulary and element order (right
    None: left twice, a self-join)."""
    sides = [(left, "left item")] + ([] if right is None else [(right, "right item")])
    enc = encode_texts(sides, tok, "similarity_join")
    return enc[0], enc[-1]


@keywords_checked
def similarity_join(left: Sequence, right: Optional[Sequence] = None, threshold: float = 0.7, *,
                    alpha: Optional[float] = None, gamma: Optional[float] = None, tokenize: Any = "char",
                    normalize: str = "none", lowercase: Optional[bool] = None, stem: bool = False,
                    threads: Optional[int] = None, block: int = BLOCK, progress=None) -> Join:
    """Every pair (i, j) with ROUGE-L F(left[i], right[j]) >= threshold, exactly.

    Args:
        left: texts (str, tokenized by the text settings, or token sequences); the hypothesis
            side (P = LCS / len(left[i])).
        right: texts of the same kinds; None: ``left`` with itself, pairs i < j only.
        threshold: a finite number; <= 0 gives every pair.
        alpha, gamma: the F weighting, as :func:`paddle_rougel.rouge_l_matrix`.
        tokenize, normalize, lowercase, stem: text settings (:mod:`paddle_rougel.text`).
        threads: worker threads of the LCS kernel.
        block: candidate pairs verified at a time (memory per block: about 100 bytes each).
        progress: called with the number of left texts done since its last call.

    Returns a :class:`Join` sorted by (left, right); ``f`` is the float64 value whose float32
    rounding is ``rouge_l_matrix(left, right)[i, j]``.
    """
    a = scoring.weighting(gamma, alpha, default_alpha=0.5).as_alpha()
    t = check_threshold(threshold)
    block = int(check_threshold(block, "block"))
    if block < 1:
        raise ValueError(f"block must be >= 1, got {block}")
    tok = settings_of(tokenize, normalize, lowercase, stem, list(left[:64]) if isinstance(left, (list, tuple)) else [])
    el, er = encode_sides(left, right, tok)
    parts, done = [], 0
    for part in join_blocks(el, er, t, a, right is None, block, threads):
        parts.append(part)
        if progress is not None and len(part[0]) and part[0][-1] + 1 > done:
            progress(int(part[0][-1]) + 1 - done)
            done = int(part[0][-1]) + 1
    if progress is not None and len(el.lens) > done:
        progress(len(el.lens) - done)
    if not parts:
        z = np.zeros(0, dtype=np.int64)
        return Join(z, z.copy(), np.zeros(0, dtype=np.float64))
    return Join(*(np.concatenate([p[k] for p in parts]) for k in range(3)))
