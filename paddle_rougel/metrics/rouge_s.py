"""ROUGE-S / ROUGE-SU: skip-bigram overlap (``rougeS4``, ``rougeSU4``; ROUGE-1.5.5's ``-2 N``,
``-u`` / ``-U``).

A skip-bigram is an ordered token pair ``(a, b)`` at most ``skip`` tokens apart in between
(``skip=None``: any distance, ROUGE-S*); ROUGE-SU also counts each token's unigram, except the
last token's, as ROUGE-1.5.5's ``createSkipBigram`` does (a one-token text has no unit at all).
Per pair: clipped hits, the candidate's and the reference's unit counts, then P, R, F and the
references combined as ROUGE-N (``pooled`` is the script's ``-f A``, ``best_recall`` its ``-f B``).
Checked against ROUGE-1.5.5.pl's per-evaluation counts (tests/test_rouge155_metrics.py).

>>> out = rouge_s(["police killed the gunman"], ["police kill the gunman"], skip=None,
...               tokenize="whitespace")
>>> out.recall.tolist()                                  # 3 of the reference's 6 pairs
[0.5]
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
from ..rouge155.kernels import skip_overlaps
from .rouge_l import RougeL, RougeLSettings, TextPrfAccumulator
from .spec import MetricSpec

__all__ = ["RougeSSettings", "RougeSAccumulator", "RougeS", "rouge_s", "skip_counts", "SPEC", "SPEC_SU"]


@dataclass(frozen=True)
class RougeSSettings(RougeLSettings):
    """ROUGE-S: the largest gap ``skip`` (None: any), ``unigrams`` (ROUGE-SU), and ROUGE-L's
    settings (F weighting, ``multi_ref``, text).

    >>> RougeSSettings(skip=4, unigrams=True, alpha=0.5).signature()
    'skip:4|su|alpha:0.5|multi_ref:max_pr|tok:char|norm:none|lc:no'
    """

    skip: Optional[int] = 4
    unigrams: bool = False

    def __post_init__(self):
        s = self.skip
        if s is not None and (isinstance(s, (bool, np.bool_)) or not isinstance(s, (int, np.integer)) or s < 0):
            raise SettingsError(f"skip must be None (any distance) or an int >= 0, got {s!r}")
        self._set("skip", None if s is None else int(s))
        if not isinstance(self.unigrams, (bool, np.bool_)):
            raise TypeError(f"unigrams must be a bool, got {type(self.unigrams).__name__}")
        self._set("unigrams", bool(self.unigrams))
        super().__post_init__()

    @property
    def skip_name(self) -> str:
        return "*" if self.skip is None else str(self.skip)

    def signature(self) -> str:
        parts = [f"skip:{self.skip_name}"] + (["su"] if self.unigrams else []) + [super().signature()]
        return "|".join(parts)


def skip_counts(cands: Sequence, ref_lists: Sequence, skip: Optional[int], unigrams: bool):
    """(hits per pair, candidate units per instance, reference units per pair, references per
    instance) of token sequences."""
    hits, cn, rn, rc = [], [], [], []
    sd = -1 if skip is None else skip
    for cand, refs in zip(cands, ref_lists):
        h, cc, counts = skip_overlaps(cand, refs, sd, unigrams)   # the C kernel (one pass a side)
        rc.append(len(refs))
        cn.append(cc)
        hits.extend(h)
        rn.extend(counts)
    as_i = lambda x: np.asarray(x, dtype=np.int64)  # noqa: E731
    return as_i(hits), as_i(cn), as_i(rn), as_i(rc)


class RougeSAccumulator(TextPrfAccumulator):
    """Mean per-instance ROUGE-S F (and macro P, R): the state of ROUGE-L."""

    reads_words = False

    def _score(self, batch: Batch):
        st = self.settings
        batch = split_words(batch)
        hits, cn, rn, rc = skip_counts(batch.cands, batch.ref_lists, st.skip, st.unigrams)
        s = self._prf(hits, cn, rn, rc)
        return self._deltas(s), (s, None)


class RougeS(RougeL):
    """ROUGE-S (``unigrams=False``) / ROUGE-SU, averaged over instances: :class:`RougeL`'s API
    on texts and token lists (no network-output path).

    >>> m = RougeS(skip=4, unigrams=True, alpha=0.5, tokenize="rouge_score")
    >>> m.add_inst("the cat sat", ["the cat sat down"])
    >>> round(m.score(), 6)
    0.714286
    """

    def __init__(self, skip: Optional[int] = 4, unigrams: bool = False, gamma: Optional[float] = None,
                 alpha: Optional[float] = None, name: Optional[str] = None, multi_ref: str = "pooled",
                 tokenize: Any = "rouge_score", normalize: str = "none", lowercase: Optional[bool] = None,
                 stem: Any = False, keep_instances: bool = False, **kwargs):
        reject_unknown(kwargs, RougeS.__init__)
        text = TextSettings(tokenize, normalize, lowercase, stem)
        settings = RougeSSettings(skip=skip, unigrams=unigrams, gamma=gamma, alpha=alpha if gamma is not None or
                                  alpha is not None else 0.5, multi_ref=multi_ref, text=text)
        label = f"rouge-s{'u' if settings.unigrams else ''}{settings.skip_name}"
        self._init(self.accumulator_class(settings, keep_instances), None, None, label if name is None else name,
                   False)
        self._set_outputs(1, 0)

    accumulator_class = RougeSAccumulator
    skip = property(lambda self: self._acc.settings.skip)
    unigrams = property(lambda self: self._acc.settings.unigrams)

    def update(self, *args, **kwargs):
        raise NotImplementedError("RougeS scores texts and token lists (add_inst / add_batch), not network output")

    def lcs(self, string: Any, sub: Any) -> float:
        raise AttributeError("RougeS has no lcs(): it counts skip-bigrams")


def rouge_s(hypotheses: Sequence, references: Sequence, skip: Optional[int] = 4, unigrams: bool = False,
            alpha: Optional[float] = None, *, gamma: Optional[float] = None, tokenize: Any = "rouge_score",
            normalize: str = "none", lowercase: Optional[bool] = None, stem: Any = False) -> Score:
    """ROUGE-S (or -SU) P, R and F of each (hypothesis, reference) pair."""
    w = scoring.weighting(gamma, alpha, default_alpha=0.5)
    hypotheses, references = pair_lists("rouge_s", hypotheses, references)
    settings = RougeSSettings(skip=skip, unigrams=unigrams, text=TextSettings(tokenize, normalize, lowercase, stem))
    acc = RougeSAccumulator(settings)
    batch = split_words(pairs_batch(hypotheses, references, acc.tokenizer, acc.hint))
    hits, cn, rn, _ = skip_counts(batch.cands, batch.ref_lists, settings.skip, settings.unigrams)
    p, r = scoring.precision_recall(hits, cn, rn)
    return Score(p, r, scoring.f_measure(p, r, w))


def _from_options(unigrams: bool):
    def make(values: dict) -> RougeSSettings:
        kw = {k: values[k] for k in ("multi_ref", "skip") if k in values}
        return RougeSSettings(text=text_of(values), unigrams=unigrams, **weighting_of(values), **kw)
    return make


SPEC = MetricSpec(
    name="RougeS", key="rougeS{skip_name}", label="ROUGE-S{skip_name}", state_key="rouge_s{skip_name}",
    type_pattern=r"rougeS(?P<skip>[0-9]{1,3})", settings=RougeSSettings, accumulator=RougeSAccumulator,
    paddle_class=RougeS, functional=rouge_s, from_options=_from_options(False),
    doc="skip-bigram overlap, ROUGE-1.5.5 -2 N (rougeS4, ...)")


class RougeSUAccumulator(RougeSAccumulator):
    """ROUGE-SU's accumulator (its own class: a registry entry binds one spec to it)."""


class RougeSU(RougeS):
    """ROUGE-SU: :class:`RougeS` with ``unigrams=True``."""

    accumulator_class = RougeSUAccumulator

    def __init__(self, skip: Optional[int] = 4, **kwargs):
        kwargs.setdefault("unigrams", True)
        super().__init__(skip=skip, **kwargs)


SPEC_SU = MetricSpec(
    name="RougeSU", key="rougeSU{skip_name}", label="ROUGE-SU{skip_name}", state_key="rouge_su{skip_name}",
    type_pattern=r"rougeSU(?P<skip>[0-9]{1,3})", settings=RougeSSettings, accumulator=RougeSUAccumulator,
    paddle_class=RougeSU, functional=None, from_options=_from_options(True),  # rouge_s(unigrams=True)
    doc="skip-bigram and unigram overlap, ROUGE-1.5.5 -2 N -U (rougeSU4, ...)")
