"""ROUGE-Lsum: summary-level ROUGE-L (union LCS), exactly as rouge-score 0.1.2's ``rougeLsum``.

For each reference sentence r, take one LCS of r with every candidate
sentence (the one rouge-score's backtrack reads out), and the union of their
positions in r; a union token counts as a hit while the candidate still has
an unused token of its type.  P = hits / candidate tokens, R = hits /
reference tokens.  Which LCS is taken matters when there are ties, so the
engines (``csrc/lsum_kernel.c`` and the pure-Python fallback here, the same
algorithm) walk the bit-parallel LCS rows with rouge-score's tie rule: a
match goes diagonally, otherwise left when that keeps more LCS than going
up, otherwise up.

Memory: the LCS rows of a candidate sentence over 64 tokens against a
reference sentence take len(ref) * ceil(len(cand) / 64) words; when that is
over the call's budget (``SCRATCH_BYTES``, shared by the C kernel's threads),
every k-th row is kept (k = ceil(sqrt(len(ref)))) and the rows of a block are
recomputed from their checkpoint during the walk back: about
(len(ref) / k + k) * ceil(len(cand) / 64) words, the same walk.  A pair that
does not fit even so is refused before any work (ValueError naming it).

A summary is a ``str`` (split into sentences by ``split``) or a sequence of
sentences, each a ``str`` (tokenized by the text settings; by default its
characters) or a sequence of tokens.  ``split``:

* ``"newline"`` (default): ``text.split("\\n")``, empty strings dropped, as
  rouge-score (which expects one sentence per line);
* ``"zh"``: a sentence ends after a run of 。！？； (and closing quotes or
  brackets right after it) or at a newline; sentences are stripped and empty
  ones dropped;
* ``"en"``: a sentence ends after a run of ``. ! ?`` (and closing quotes or
  brackets) followed by whitespace or the end, or at a newline; stripped,
  empty ones dropped.  A plain rule, not a trained splitter: "Mr. Smith"
  splits;
* ``"nltk"``: ``nltk.sent_tokenize`` (needs nltk and its punkt model), empty
  sentences dropped: rouge-score's ``split_summaries=True``.

>>> split_sentences("他来了。你呢？好！", "zh")
['他来了。', '你呢？', '好！']
>>> split_sentences('He said "Hi." Then left. 3.5 stays', "en")
['He said "Hi."', 'Then left.', '3.5 stays']
>>> lcs_positions("abcb", "bcab")   # rouge-score's lcs_ind: positions in the first argument
[1, 2, 3]
>>> res = lsum_batch([[["a", "b"], ["c", "a"]]], [[[["a", "c", "a"]]]])
>>> res.hits.tolist(), res.cand_len.tolist(), res.ref_len.tolist()
([3], [4], [3])
"""
from __future__ import annotations

import itertools
import math
import re
from typing import Any, Callable, List, NamedTuple, Optional, Sequence, Tuple

import numpy as np

from . import host as engine
from .inputs import Batch, as_str, check_tokens, ids_against_text, locate, ref_items, unordered, what_is
from ..core.lcs_step import advance_left

__all__ = ["SPLITS", "SCRATCH_BYTES", "split_sentences", "LsumResult", "lsum_batch", "lcs_positions",
           "union_hits", "make_lsum_batch", "score_batch"]

SPLITS = ("newline", "zh", "en", "nltk")

# Bytes of LCS rows one call may hold (the C kernel's threads share them): see the module doc.
SCRATCH_BYTES = 256 << 20

_CLOSE = "\"'”’」』）》】)\\]"
_ZH_END = re.compile(f"([。！？；]+[{_CLOSE}]*)")
_EN_END = re.compile(f"([.!?]+[{_CLOSE}]*)(?=\\s|$)")


def nltk_sentences():
    """``nltk.sent_tokenize`` when nltk and its punkt sentence model are installed, else a
    ValueError saying what to install (``split="nltk"``: rouge-score's ``split_summaries=True``)."""
    how = ("split='nltk' (rouge-score's split_summaries=True) is nltk's sent_tokenize, which needs "
           "the nltk package and its punkt sentence model")
    try:
        import nltk
    except ImportError:
        raise ValueError(f"{how}: pip install 'paddle-rougel[stem]' (nltk), then "
                         "python -m nltk.downloader punkt_tab") from None
    try:
        nltk.sent_tokenize("A b. C d.")
    except LookupError:
        raise ValueError(f"{how}, which is not installed here: python -m nltk.downloader punkt_tab "
                         "(punkt for nltk before 3.8.2); or split on newlines (split='newline', "
                         "rouge-score's default) after splitting the text yourself") from None
    return nltk.sent_tokenize


def split_sentences(text: str, split: str = "newline") -> List[str]:
    """The sentences of ``text`` under one of ``SPLITS`` (see the module doc)."""
    if split == "newline":
        return [s for s in text.split("\n") if len(s)]
    if split == "nltk":  # rouge-score's split_summaries=True: its sentences as they are
        return [s for s in nltk_sentences()(text) if len(s)]
    if split == "zh":
        text = _ZH_END.sub("\\1\n", text)
    elif split == "en":
        text = _EN_END.sub("\\1\n", text)
    else:
        raise ValueError(f"split must be one of {', '.join(SPLITS)}, got {split!r}")
    return [s for s in (p.strip() for p in text.split("\n")) if s]


class LsumResult(NamedTuple):
    """Union-LCS hits of every (candidate, reference) pair of a batch, in order.

    ``hits`` and ``ref_len`` (reference tokens) are flat over all pairs [M];
    ``cand_len`` (candidate tokens) and ``ref_count`` are per instance [N].
    """

    hits: np.ndarray
    cand_len: np.ndarray
    ref_len: np.ndarray
    ref_count: np.ndarray

    offsets = engine.LcsResult.offsets  # the references of instance i: offsets[i]:offsets[i+1]


# ------------------------------------------------------------------ inputs

def summary_of(x: Any, where: str, split: str, tokenizer: Optional[Callable]) -> tuple:
    """A summary as a tuple of sentence snapshots (str, tuple or read-only int array)."""
    if isinstance(x, str):
        x = split_sentences(as_str(x), split)  # a str subclass: its str value (as everywhere)
    elif x is None or unordered(x):
        got = "None" if x is None else type(x).__name__
        raise TypeError(f"{where}: got {got}, expected a str or a sequence of sentences")
    elif isinstance(x, (bytes, bytearray)):
        raise TypeError(f"{where}: got {type(x).__name__} where text is expected: decode it first, "
                        "e.g. x.decode('utf-8')")
    try:
        sents = tuple(x)
    except TypeError:
        raise TypeError(f"{where}: got {what_is(x)}, expected a str or a sequence of "
                        "sentences") from None
    out = []
    for k, s in enumerate(sents):
        if tokenizer is not None and isinstance(s, str):
            try:
                s = tokenizer(as_str(s))
            except (TypeError, ValueError) as e:  # a tokenize callable's: name the sentence
                raise locate(e, f"{where}, sentence {k}")
        out.append(check_tokens(s, f"{where}, sentence {k}"))
    return tuple(out)


def _ref_list(refs: Any, index: int) -> tuple:
    return ref_items(refs, index, "reference summaries")


def all_text(cands: Sequence, ref_lists: Sequence) -> bool:
    """Every candidate a str, every ref_list a non-empty list/tuple of str."""
    return (set(map(type, cands)) <= {str} and set(map(type, ref_lists)) <= {list, tuple}
            and all(ref_lists) and set(map(type, itertools.chain.from_iterable(ref_lists))) <= {str})


def make_lsum_batch(cands: Sequence, ref_lists: Sequence, split: str = "newline",
                    tokenizer: Optional[Callable] = None, raw_text: bool = False,
                    base: int = 0, one_ref: bool = False, hint: Optional[Callable] = None) -> Batch:
    """Validate and snapshot N (candidate, references) instances of summaries.

    Each summary becomes a tuple of sentence snapshots, except that with
    ``raw_text`` (settings the C text path reads: see
    ``RougeLsumSettings.text_mode``) a ``str`` summary stays a ``str``.  With
    ``one_ref``, ``ref_lists[i]`` is instance i's only reference summary, not a
    list of them.  Errors name ``instance {base + i}``, the reference and the
    sentence.  ``hint`` (the metric's :class:`paddle_rougel.hints.Hinter`) looks at the
    ``str`` summaries first.
    """
    if isinstance(cands, (str, bytes)) or isinstance(ref_lists, (str, bytes)):
        raise TypeError("expected a list of candidate summaries and a list of reference lists, not a str")
    cands = cands if isinstance(cands, (list, tuple)) else list(cands)
    ref_lists = ref_lists if isinstance(ref_lists, (list, tuple)) else list(ref_lists)
    if len(cands) != len(ref_lists):
        raise ValueError(f"got {len(cands)} candidates but {len(ref_lists)} reference lists")
    if hint is not None:
        hint(cands, ref_lists)

    if raw_text:  # the common case: every summary a str, snapshot by the back end's fast path
        snap = engine.get_backend().lsum_text_snapshot(cands, ref_lists, one_ref)
        if snap is not None:
            return Batch(snap[0], snap[1], False, None, None, tokenizer is not None)
    if one_ref:
        ref_lists = [[r] for r in ref_lists]

    def one(x, where):
        if raw_text and type(x) is str:
            return x
        return summary_of(x, where, split, tokenizer)

    c_out, r_out = [], []
    for i, (c, refs) in enumerate(zip(cands, ref_lists)):
        refs = _ref_list(refs, base + i)
        c_out.append(one(c, f"instance {base + i}, candidate"))
        r_out.append(tuple(one(r, f"instance {base + i}, reference {j}") for j, r in enumerate(refs)))
        ids_against_text(c_out[-1], r_out[-1], base + i, sentences=True)
    return Batch(tuple(c_out), tuple(r_out), False, None, None, tokenizer is not None)


# ------------------------------------------------------------------ engine

def lsum_batch(cands: Sequence, ref_lists: Sequence, threads: Optional[int] = None) -> LsumResult:
    """Union-LCS hits of each candidate summary against each of its references.

    Args:
        cands: N summaries, each a sequence of sentences (a str sentence is its
            characters; otherwise a sequence of hashable tokens, as the engine).
        ref_lists: N non-empty lists of reference summaries of the same kind.
        threads: worker threads for the C kernel (default: ``engine.default_threads()``).
    """
    batch = make_lsum_batch(cands, ref_lists)
    return _tokens_batch(batch.cands, batch.ref_lists, threads)


def _tokens_batch(cands: tuple, ref_lists: tuple, threads: Optional[int] = None, base: int = 0) -> LsumResult:
    ref_count = np.fromiter(map(len, ref_lists), dtype=np.int64, count=len(ref_lists))
    return engine.get_backend().lsum_batch(cands, ref_lists, ref_count, threads, base)


_FLAT = re.compile(r"^instance (\d+), reference (\d+)")


def rename_flat(msg: str, cands: tuple, ref_lists: tuple) -> str:
    """A back end's reader (the C one) names a token by its flat sentence index; name the summary and sentence."""
    m = _FLAT.match(msg)
    if not m:
        return msg
    i, k = int(m.group(1)), int(m.group(2))
    if k < len(cands[i]):
        return f"instance {i}, candidate, sentence {k}{msg[m.end():]}"
    k -= len(cands[i])
    for j, r in enumerate(ref_lists[i]):
        if k < len(r):
            return f"instance {i}, reference {j}, sentence {k}{msg[m.end():]}"
        k -= len(r)
    return msg


def score_batch(cands: tuple, ref_lists: Sequence, prepare: Callable[[str], tuple],
                threads: Optional[int] = None, chars: bool = False, base: int = 0) -> LsumResult:
    """Hits of a batch from ``make_lsum_batch``: raw ``str`` summaries (``raw_text``) go
    through the C text path when every summary is a str (an ASCII str for rouge-score's
    tokens; with ``chars``, the ``"char"`` text mode, any str), else ``prepare(text)``
    (split + tokenize in Python) first.  Errors name instance ``base + i``."""
    if cands and type(cands[0]) is str:  # the back end's text fast path checks them all
        res = engine.get_backend().lsum_text(cands, ref_lists, threads, chars, base)
        if res is not None:
            return res

    def ready(x):
        return prepare(x) if type(x) is str else x
    return _tokens_batch(tuple(map(ready, cands)), tuple(tuple(map(ready, r)) for r in ref_lists), threads, base)


# -------------------------------------------------- pure-Python engine

def _run(masks: dict, n: int, b: Sequence, v: int) -> tuple:
    """Hyyro's rows over the bit side a (masks, n bits) from row v, and per row the
    cells where rouge-score's backtrack goes left when there is no match
    (:func:`paddle_rougel.lcs_step.advance_left`).  Returns the last row and the go-left
    cells of each token of b."""
    get = masks.get
    return advance_left(v, [get(t, 0) for t in b], (1 << n) - 1)


def _rows(masks: dict, n: int, b: Sequence) -> tuple:
    """The LCS and every row's go-left cells (see :func:`_run`): the whole table."""
    v, go_left = _run(masks, n, b, (1 << n) - 1)
    return n - bin(v).count("1"), go_left


def _walk(masks: dict, b: Sequence, go_left: list, i0: int, i: int, j: int, lcs: int, out: list) -> tuple:
    """rouge-score's _backtrack_norec, a row at a time, from row i - 1 up to row i0
    (go_left[r - i0]: row r's go-left cells, at least their low j bits): left through the
    go-left, non-matching cells; leave the row diagonally at a match (appended to out as
    (position in ``b``, position in the bit side)) or upwards.  Returns (i, j, lcs) where
    it stopped (lcs: the LCS still to find)."""
    while lcs > 0 and i > i0:
        m = masks.get(b[i - 1], 0)
        stop = (m | ~go_left[i - 1 - i0]) & ((1 << j) - 1)
        p = stop.bit_length() - 1
        j = p + 1
        if (m >> p) & 1:
            out.append((i - 1, p))
            j, lcs = p, lcs - 1
        i -= 1
    return i, j, lcs


def backtrack_pairs(masks: dict, b: Sequence, go_left: list, lcs: int, n: int) -> List[Tuple[int, int]]:
    """The matches of rouge-score's backtrack over the whole table of :func:`_rows`, as
    (position in ``b``, position in the bit side), increasing in both."""
    out: list = []
    _walk(masks, b, go_left, 0, len(b), n, lcs, out)
    return out[::-1]


def _block_rows(m: int) -> int:
    """ceil(sqrt(m)): the rows between checkpoints."""
    return math.isqrt(m - 1) + 1


def pair_scratch(n: int, m: int) -> int:
    """Bytes of LCS rows a candidate sentence of n tokens needs at least against a reference
    sentence of m, checkpointed (0 for n <= 64), as ``lsum_pair_scratch`` in the C kernel."""
    if n <= 64 or m <= 0:
        return 0
    k = _block_rows(m)
    return (-(-m // k) - 1 + k) * -(-n // 64) * 8


def lcs_pairs_of(masks: dict, n: int, b: Sequence) -> List[Tuple[int, int]]:
    """:func:`backtrack_pairs` of (b, a) within SCRATCH_BYTES: the whole table of rows when it
    fits, else rows checkpointed every k and a block recomputed (up to the walk's column)
    when the walk enters it."""
    m, out = len(b), []
    if m * -(-n // 64) * 8 <= SCRATCH_BYTES:  # (backtrack_pairs of _rows, inlined: the common case)
        v, go_left = _run(masks, n, b, (1 << n) - 1)
        _walk(masks, b, go_left, 0, m, n, n - bin(v).count("1"), out)
        return out[::-1]
    k = _block_rows(m)
    marks, v = [], (1 << n) - 1  # marks[c]: the row before block c
    for c in range(0, m, k):
        marks.append(v)
        v = _run(masks, n, b[c:c + k], v)[0]
    i, j, lcs = m, n, n - bin(v).count("1")
    for c in range(len(marks) - 1, -1, -1):  # the walk goes up: each block once
        if lcs == 0:
            break
        go_left = _run(masks, j, b[c * k:c * k + k], marks[c] & ((1 << j) - 1))[1]  # left of j suffices
        i, j, lcs = _walk(masks, b, go_left, c * k, i, j, lcs, out)
    return out[::-1]


def _positions(masks: dict, n: int, b: Sequence) -> List[int]:
    """The positions in b of :func:`lcs_pairs_of`."""
    return [q for q, _ in lcs_pairs_of(masks, n, b)]


def bit_masks(a: Sequence) -> dict:
    masks: dict = {}
    for p, t in enumerate(a):
        masks[t] = masks.get(t, 0) | (1 << p)
    return masks


def lcs_positions(ref: Sequence, cand: Sequence) -> List[int]:
    """Positions in ``ref`` of the LCS of (ref, cand) that rouge-score's ``lcs_ind`` returns."""
    ref = engine.fix_tokens(engine.snap_text(ref, 0, 0), 0, 0)
    cand = engine.fix_tokens(engine.snap_text(cand, 0, None), 0, None)
    if not ref or not cand:
        return []
    return _positions(bit_masks(cand), len(cand), ref)


def union_hits(cand_sents: Sequence, ref_sents: Sequence) -> int:
    """rouge-score's clipped summary-level hits of one candidate against one reference
    (sentences already tokenized)."""
    ref_sents = [list(r) for r in ref_sents]
    counts: dict = {}
    for s in cand_sents:
        for t in s:
            counts[t] = counts.get(t, 0) + 1
    marked = [[False] * len(r) for r in ref_sents]
    for c in cand_sents:
        if not len(c):
            continue
        masks = bit_masks(c)
        for r, mark in zip(ref_sents, marked):
            if r:
                for q in _positions(masks, len(c), r):
                    mark[q] = True
    hits = 0
    for r, mark in zip(ref_sents, marked):
        for t, hit in zip(r, mark):
            if hit and counts.get(t, 0) > 0:
                counts[t] -= 1
                hits += 1
    return hits


