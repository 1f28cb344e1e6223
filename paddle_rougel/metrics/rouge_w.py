"""ROUGE-W: weighted LCS (``rougeW``; ROUGE-1.5.5's ``-w W``, weight ``W`` 1.2 by default).

The weighted LCS rewards consecutive matches: a run of k matched tokens is worth ``k**W``.  The
figures are ROUGE-1.5.5.pl's, conventions included (tests/test_rouge155_metrics.py):

* the matched positions are the script's plain-DP backtrack over the weighted scores (ties go
  up), and the hit is the sum of ``k**W`` over the runs of consecutive matched *reference*
  positions (``wlcs``);
* P = (hit / |cand|**W) ** (1/W); R = (hit / (|ref|**W)**W) ** (1/W): the reference length
  enters the weighting twice, as in the script (its ``wlcs`` base is already weighted and
  ``computeWLCSScore`` weights it again);
* ``multi_ref="pooled"`` (the script's ``-f A``) sums the hits and the weighted lengths over
  the references before the root; ``best_recall`` (``-f B``) keeps the first reference of
  highest ``(hit / |ref|**W) ** (1/W)`` (the script ranks by its ``wlcs`` score, whose base is
  weighted once) and reports its P and R as above.  An empty reference, on which the script dies (a division by zero), has R = 0.

The whole text is one unit here (the script's ROUGE-W of a one-sentence summary); the
command ``paddle-rougel rouge155 -w`` does its summary-level version over sentences.

>>> out = rouge_w(["a b c d"], ["a b x d"], tokenize="whitespace")
>>> round(float(out.precision[0]), 6), round(float(out.recall[0]), 6)
(0.675693, 0.512079)
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional, Sequence

import numpy as np

from ..core import scoring
from ..engine.inputs import Batch, pair_lists, pairs_batch, split_words
from .metric import reject_unknown
from ..core.scoring import Score
from ..core.settings import SettingsError, text_of, weighting_of
from ..core.text import TextSettings
from ..rouge155.evaluate import weighted_hits
from .rouge_l import RougeL, RougeLSettings, TextPrfAccumulator
from .spec import MetricSpec

__all__ = ["RougeWSettings", "RougeWAccumulator", "RougeW", "rouge_w", "wlcs_counts", "SPEC"]


@dataclass(frozen=True)
class RougeWSettings(RougeLSettings):
    """ROUGE-W: the weight (``k**weight`` for a run of k), and ROUGE-L's settings.

    >>> RougeWSettings(weight=1.2, alpha=0.5).signature()
    'w:1.2|alpha:0.5|multi_ref:max_pr|tok:char|norm:none|lc:no'
    """

    weight: float = 1.2

    def __post_init__(self):
        w = self.weight
        if isinstance(w, (bool, np.bool_)) or not isinstance(w, (int, float, np.integer, np.floating)) \
                or not np.isfinite(w) or not w > 0:
            raise SettingsError(f"weight must be a finite number > 0, got {w!r}")
        self._set("weight", float(w))
        super().__post_init__()

    def signature(self) -> str:
        return f"w:{self.weight!r}|{super().signature()}"


def wlcs_counts(cands: Sequence, ref_lists: Sequence, weight: float):
    """(hits, |cand|**W, (|ref|**W)**W per pair, references per instance, |ref|**W per pair)."""
    hits, cs, rs, rc, base = [], [], [], [], []
    for cand, refs in zip(cands, ref_lists):
        rc.append(len(refs))
        for ref in refs:
            hits.append(weighted_hits(tuple(ref), tuple(cand), weight))
            cs.append(float(len(cand)) ** weight)
            base.append(float(len(ref)) ** weight)
            rs.append(base[-1] ** weight)
    as_f = lambda x: np.asarray(x, dtype=np.float64)  # noqa: E731
    return as_f(hits), as_f(cs), as_f(rs), np.asarray(rc, dtype=np.int64), as_f(base)


def _root(num, den, weight):
    out = np.zeros(len(num))
    ok = den > 0
    out[ok] = (num[ok] / den[ok]) ** (1 / weight)
    return out


class RougeWAccumulator(TextPrfAccumulator):
    """Mean per-instance ROUGE-W F (and macro P, R): the state of ROUGE-L."""

    reads_words = False

    def _score(self, batch: Batch):
        st = self.settings
        batch = split_words(batch)
        hits, cs, rs, rc, base = wlcs_counts(batch.cands, batch.ref_lists, st.weight)
        offsets = np.concatenate([[0], np.cumsum(rc)]).astype(np.int64)
        if st.multi_ref == "pooled" and len(hits) != len(rc):
            h, c, r = (np.add.reduceat(x, offsets[:-1]) for x in (hits, cs, rs))
            p, rr = _root(h, c, st.weight), _root(h, r, st.weight)
            s = Score(p, rr, st.f(p, rr))
        elif st.multi_ref == "best_recall" and len(hits) != len(rc):
            # the script's -f B ranks the references by (hit / |ref|**W) ** (1/W), its wlcs score
            # (the base weighted once), and keeps the first best; it reports the figures above
            key = _root(hits, base, st.weight)
            pick = np.array([a + int(np.argmax(key[a:b])) for a, b in zip(offsets[:-1], offsets[1:])],
                            dtype=np.int64)
            p, rr = _root(hits[pick], cs[pick], st.weight), _root(hits[pick], rs[pick], st.weight)
            s = Score(p, rr, st.f(p, rr))
        else:
            p, rr = _root(hits, cs, st.weight), _root(hits, rs, st.weight)
            s = Score(*scoring.reduce_refs(p, rr, None if len(hits) == len(rc) else offsets, st.multi_ref,
                                           st.f, None, owned=True))
        return self._deltas(s), (s, None)


class RougeW(RougeL):
    """ROUGE-W averaged over instances: :class:`RougeL`'s API on texts and token lists.

    >>> m = RougeW(tokenize="whitespace")
    >>> m.add_inst("a b c d", ["a b x d"])
    >>> round(m.score(), 6)
    0.582617
    """

    def __init__(self, weight: float = 1.2, gamma: Optional[float] = None, alpha: Optional[float] = None,
                 name: Optional[str] = None, multi_ref: str = "pooled", tokenize: Any = "rouge_score",
                 normalize: str = "none", lowercase: Optional[bool] = None, stem: Any = False,
                 keep_instances: bool = False, **kwargs):
        reject_unknown(kwargs, RougeW.__init__)
        text = TextSettings(tokenize, normalize, lowercase, stem)
        if gamma is None and alpha is None:
            alpha = 0.5
        settings = RougeWSettings(weight=weight, gamma=gamma, alpha=alpha, multi_ref=multi_ref, text=text)
        self._init(RougeWAccumulator(settings, keep_instances), None, None,
                   f"rouge-w-{settings.weight:g}" if name is None else name, False)
        self._set_outputs(1, 0)

    weight = property(lambda self: self._acc.settings.weight)

    def update(self, *args, **kwargs):
        raise NotImplementedError("RougeW scores texts and token lists (add_inst / add_batch), not network output")


def rouge_w(hypotheses: Sequence, references: Sequence, weight: float = 1.2, alpha: Optional[float] = None, *,
            gamma: Optional[float] = None, tokenize: Any = "rouge_score", normalize: str = "none",
            lowercase: Optional[bool] = None, stem: Any = False) -> Score:
    """ROUGE-W P, R and F of each (hypothesis, reference) pair."""
    w = scoring.weighting(gamma, alpha, default_alpha=0.5)
    hypotheses, references = pair_lists("rouge_w", hypotheses, references)
    settings = RougeWSettings(weight=weight, text=TextSettings(tokenize, normalize, lowercase, stem))
    acc = RougeWAccumulator(settings)
    batch = split_words(pairs_batch(hypotheses, references, acc.tokenizer, acc.hint))
    hits, cs, rs, _, _ = wlcs_counts(batch.cands, batch.ref_lists, settings.weight)
    p, r = _root(hits, cs, settings.weight), _root(hits, rs, settings.weight)
    return Score(p, r, scoring.f_measure(p, r, w))


def _from_options(values: dict) -> RougeWSettings:
    kw = {k: values[k] for k in ("multi_ref", "weight") if k in values}
    return RougeWSettings(text=text_of(values), **weighting_of(values), **kw)


SPEC = MetricSpec(
    name="RougeW", key="rougeW", label="ROUGE-W", state_key="rouge_w", settings=RougeWSettings,
    accumulator=RougeWAccumulator, paddle_class=RougeW, functional=rouge_w, from_options=_from_options,
    doc="weighted LCS, ROUGE-1.5.5 -w 1.2 (rougeW)")
