"""LCS alignments: which tokens a ROUGE-L (or ROUGE-Lsum) score counts.

:func:`alignment` returns one LCS of a candidate and a reference as
(candidate position, reference position) pairs, increasing in both: the LCS
that rouge-score's backtrack reads out, the one the ROUGE-Lsum engines count
(``lsum.backtrack_pairs``: the bit-parallel rows of the pair, walked back with
rouge-score's tie rule, a match diagonally, otherwise left when that keeps
more LCS than going up, otherwise up).  Its length is the LCS length the
score uses.  With ``summary_level=True`` it is rouge-score's union LCS: per
reference sentence, the union of its LCS positions with every candidate
sentence, and the union tokens counted as hits (while the candidate still has
an unused token of that type), which add up to what ``RougeLsum`` counts.

Tokens are the metric's: a ``str`` goes through the text settings (by default
every character is a token; ``tokenize``, ``normalize``, ``lowercase``,
``stem`` as in :class:`~paddle_rougel.text.TextSettings`); a token list is
used as given.  Pure Python on big ints: about 1-2 µs per reference token.

>>> a = alignment("abcbdab", "bdcaba")
>>> a.lcs, a.pairs
(4, ((3, 0), (4, 1), (5, 3), (6, 4)))
>>> a.marked()
('abc[bdab]', '[bd]c[ab]a')
"""
from __future__ import annotations

from typing import Any, Callable, Dict, List, NamedTuple, Optional, Sequence, Tuple

import numpy as np

from ..engine import host as engine, lsum
from ..core.settings import keywords_checked
from ..engine.inputs import check_tokens
from ..core.text import TextSettings

__all__ = ["Alignment", "SummaryAlignment", "alignment", "align_tokens", "best_reference",
           "marked_runs"]

Pairs = Tuple[Tuple[int, int], ...]


def _tokens(x: Any, where: str) -> Any:
    """A checked snapshot, tokens unequal to themselves (NaN) replaced so they match nothing."""
    toks = check_tokens(x, where)
    if isinstance(toks, str):
        return toks
    return tuple(engine.fix_tokens(list(toks.tolist() if isinstance(toks, np.ndarray) else toks), 0, None))


def align_tokens(cand: Sequence, ref: Sequence) -> Pairs:
    """One LCS of two token sequences as (candidate position, reference position) pairs,
    increasing in both; ties broken by rouge-score's backtrack (reference rows, candidate
    columns)."""
    if not len(cand) or not len(ref):
        return ()
    return tuple((c, r) for r, c in lsum.lcs_pairs_of(lsum.bit_masks(cand), len(cand), ref))  # memory bounded


def marked_runs(tokens: Sequence, marked: Sequence[bool]) -> List[Tuple[bool, list]]:
    """Maximal runs of tokens with the same mark: [(is_marked, [tokens])]."""
    runs: List[Tuple[bool, list]] = []
    for t, m in zip(tokens, marked):
        if runs and runs[-1][0] == bool(m):
            runs[-1][1].append(t)
        else:
            runs.append((bool(m), [t]))
    return runs


def _render(tokens: Sequence, marked: Sequence[bool], open_: str, close: str, show=str) -> str:
    sep = "" if isinstance(tokens, str) else " "
    out = []
    for m, run in marked_runs(tokens, marked):
        text = sep.join(show(str(t)) for t in run)
        out.append(open_ + text + close if m else text)
    return sep.join(out)


class Alignment(NamedTuple):
    """One LCS of ``cand`` and ``ref`` (their tokens): ``pairs`` of (candidate position,
    reference position), increasing in both; ``lcs`` is its length."""

    cand: Any
    ref: Any
    pairs: Pairs

    @property
    def lcs(self) -> int:
        return len(self.pairs)

    def cand_marked(self) -> List[bool]:
        m = [False] * len(self.cand)
        for c, _ in self.pairs:
            m[c] = True
        return m

    def ref_marked(self) -> List[bool]:
        m = [False] * len(self.ref)
        for _, r in self.pairs:
            m[r] = True
        return m

    def marked(self, open_: str = "[", close: str = "]", show=str) -> Tuple[str, str]:
        """Candidate and reference with each run of matched tokens between ``open_`` and ``close``
        (characters joined, word tokens joined by spaces); ``show`` maps each token's text (the
        command line's ``procio.printable``: the marks are written as given, the text escaped)."""
        return (_render(self.cand, self.cand_marked(), open_, close, show),
                _render(self.ref, self.ref_marked(), open_, close, show))


class SummaryAlignment(NamedTuple):
    """rouge-score's summary-level union LCS of one candidate and one reference summary.

    ``cand`` and ``ref``: tuples of sentences (tokens); ``lcs[(s, k)]``: the LCS pairs of
    candidate sentence s and reference sentence k; ``union[k]``: the union of their positions
    in reference sentence k; ``hits[k]``: the union positions counted (clipped by the
    candidate's token counts, sentence by sentence, as rouge-score); ``n_hits``: their number,
    the hits ROUGE-Lsum counts (P = n_hits / candidate tokens, R = n_hits / reference tokens).
    """

    cand: tuple
    ref: tuple
    lcs: Dict[Tuple[int, int], Pairs]
    union: Tuple[Tuple[int, ...], ...]
    hits: Tuple[Tuple[int, ...], ...]

    @property
    def n_hits(self) -> int:
        return sum(map(len, self.hits))

    @property
    def pairs(self) -> Tuple[Tuple[Tuple[int, int], Tuple[int, int]], ...]:
        """((candidate sentence, position), (reference sentence, position)) of every counted hit,
        through the LCS pair that put the position in the union (the first candidate sentence)."""
        out = []
        for k, hit in enumerate(self.hits):
            for j in hit:
                for s in range(len(self.cand)):
                    c = next((c for c, r in self.lcs.get((s, k), ()) if r == j), None)
                    if c is not None:
                        out.append(((s, c), (k, j)))
                        break
        return tuple(out)

    def cand_marked(self) -> List[List[bool]]:
        m = [[False] * len(s) for s in self.cand]
        for (s, c), _ in self.pairs:
            m[s][c] = True
        return m

    def ref_marked(self) -> List[List[bool]]:
        m = [[False] * len(r) for r in self.ref]
        for k, hit in enumerate(self.hits):
            for j in hit:
                m[k][j] = True
        return m

    def marked(self, open_: str = "[", close: str = "]", show=str) -> Tuple[List[str], List[str]]:
        """Per sentence, as :meth:`Alignment.marked`."""
        return ([_render(s, m, open_, close, show) for s, m in zip(self.cand, self.cand_marked())],
                [_render(r, m, open_, close, show) for r, m in zip(self.ref, self.ref_marked())])


def _summary_alignment(cand: tuple, ref: tuple) -> SummaryAlignment:
    counts: Dict[Any, int] = {}
    for s in cand:
        for t in s:
            counts[t] = counts.get(t, 0) + 1
    pairs: Dict[Tuple[int, int], Pairs] = {}
    unions, hits = [], []
    for k, r in enumerate(ref):
        union = set()
        for s, c in enumerate(cand):
            p = align_tokens(c, r)
            if p:
                pairs[(s, k)] = p
                union.update(q for _, q in p)
        hit = []
        for j in sorted(union):
            if counts.get(r[j], 0) > 0:
                counts[r[j]] -= 1
                hit.append(j)
        unions.append(tuple(sorted(union)))
        hits.append(tuple(hit))
    return SummaryAlignment(cand, ref, pairs, tuple(unions), tuple(hits))


def _text_tokenizer(text: Optional[TextSettings]) -> Optional[Callable]:
    return None if text is None or text.is_default else text.tokenizer()


def _prepare(x: Any, where: str, tok: Optional[Callable], summary: bool, split: str) -> Any:
    if summary:
        sents = lsum.summary_of(x, where, split, tok)
        return tuple(_tokens(s, f"{where}, sentence {k}") for k, s in enumerate(sents))
    if tok is not None and isinstance(x, str):
        x = tok(x)
    return _tokens(x, where)


@keywords_checked
def alignment(cand: Any, ref: Any, *, summary_level: bool = False, split: str = "newline",
              tokenize: Any = "char", normalize: str = "none", lowercase: Optional[bool] = None,
              stem: bool = False):
    """The LCS that ROUGE-L counts for ``cand`` against ``ref`` (:class:`Alignment`), or with
    ``summary_level=True`` the union LCS of ROUGE-Lsum (:class:`SummaryAlignment`; a summary
    is a ``str`` split by ``split``, or a list of sentences).  Text settings as the metrics'.

    >>> alignment("the cat sat", "a cat sat down", tokenize="whitespace").marked()
    ('the [cat sat]', 'a [cat sat] down')
    """
    text = TextSettings(tokenize, normalize, lowercase, stem)
    return _align(cand, ref, _text_tokenizer(text), summary_level, split)


def _align(cand: Any, ref: Any, tok: Optional[Callable], summary: bool, split: str = "newline",
           where: str = ""):
    if summary and split not in lsum.SPLITS:
        raise ValueError(f"split must be one of {', '.join(lsum.SPLITS)}, got {split!r}")
    c = _prepare(cand, f"{where}candidate", tok, summary, split)
    r = _prepare(ref, f"{where}reference", tok, summary, split)
    if summary:
        return _summary_alignment(c, r)
    return Alignment(c, r, align_tokens(c, r))


def best_reference(cand: Any, refs: Sequence, settings, summary: Optional[bool] = None,
                   where: str = "") -> Tuple[int, Any, List[float]]:
    """(index, alignment, per-reference F) of the reference with the highest F under the
    metric's ``settings`` (its text settings and F weighting; ROUGE-Lsum settings align
    summaries), first on ties."""
    if summary is None:
        summary = hasattr(settings, "split")
    split = getattr(settings, "split", "newline")
    tok = _text_tokenizer(settings.text)
    aligns = [_align(cand, r, tok, summary, split, f"{where}reference {k}: ") for k, r in enumerate(refs)]
    fs = []
    for a in aligns:
        n_c = sum(map(len, a.cand)) if summary else len(a.cand)
        n_r = sum(map(len, a.ref)) if summary else len(a.ref)
        hits = a.n_hits if summary else a.lcs
        p = hits / n_c if n_c else 0.0
        r = hits / n_r if n_r else 0.0
        fs.append(float(settings.f(np.array([p]), np.array([r]))[0]))
    best = int(np.argmax(fs)) if fs else 0
    return best, aligns[best], fs
