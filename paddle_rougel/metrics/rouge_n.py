"""ROUGE-N: clipped n-gram overlap of a candidate and a reference (``rouge1``, ``rouge2``, any n).

Per pair: ``hits`` = the sum over the candidate's distinct n-grams g of
``min(count in candidate, count in reference)``; P = hits / (candidate
n-grams), R = hits / (reference n-grams) (0 when a side has none), then F under
the settings' weighting and the references combined by ``multi_ref``, as
ROUGE-L.  The conventions of the tools a number is quoted against:

* rouge-score 0.1.2 (``rouge1``/``rouge2``, and HF ``evaluate``'s rouge):
  ``tokenize="rouge_score"`` (``stem`` as its ``use_stemmer``), ``gamma=1``,
  ``multi_ref="best"`` (its ``score_multi``);
* ROUGE-1.5.5 (``-n N``): the ``rouge155`` preset (alpha 0.5, ``pooled`` is its
  ``-f A``, ``best_recall`` its ``-f B``, rouge-score's tokens);
* rouge-chinese (``rouge-1``/``rouge-2``, default ``exclusive=True``): the
  ``rouge_chinese`` preset: jieba words, ``gamma=1``, and ``distinct=True``, its
  n-grams counted as a set (each distinct n-gram once on both sides).

Everything of the metric: :class:`RougeNSettings`, :class:`RougeNAccumulator`,
:class:`RougeN` (the ``paddle.metric.Metric``, with RougeL's network-output
path), :func:`rouge_n` and its ``SPEC``.

>>> out = rouge_n(["the cat sat on the mat"], ["the cat is on the mat"], n=2, tokenize="whitespace")
>>> out.precision.tolist(), out.recall.tolist()          # the cat, on the, the mat
([0.6], [0.6])
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional, Sequence

import numpy as np

from ..core import scoring
from ..engine.inputs import Batch, pair_lists, pairs_batch
from .metric import reject_unknown
from ..engine.ngrams import ngram_overlap
from ..core.scoring import Score
from ..core.settings import Option, SettingsError, parse_bool, keywords_checked, text_of, weighting_of
from ..core.text import TextSettings
from .rouge_l import RougeL, RougeLSettings, TextPrfAccumulator
from .spec import MetricSpec

__all__ = ["RougeNSettings", "RougeNAccumulator", "RougeN", "rouge_n", "MAX_N", "NGRAM_OPTIONS", "SPEC"]

MAX_N = 64  # the largest order taken (a state file cannot ask for more)

NGRAM_OPTIONS = (
    Option("distinct", ("--distinct",), parse_bool,
           "ROUGE-N: count each distinct n-gram once, as rouge-chinese (yes/no; default no)"),
)


@dataclass(frozen=True)
class RougeNSettings(RougeLSettings):
    """ROUGE-N: the order ``n``, how n-grams count (``distinct``), and ROUGE-L's settings
    (F weighting, ``multi_ref``, text, the network-output cuts).

    >>> RougeNSettings(n=2, gamma=1.0, multi_ref="best").signature()
    'n:2|gamma:1.0|multi_ref:best|tok:char|norm:none|lc:no'
    """

    n: int = 2
    distinct: bool = False  # n-grams as a set (rouge-chinese's default exclusive=True)

    def __post_init__(self):
        n = self.n
        if isinstance(n, (bool, np.bool_)) or not isinstance(n, (int, np.integer)) or not 1 <= n <= MAX_N:
            raise SettingsError(f"n must be an int from 1 to {MAX_N}, got {n!r}")
        self._set("n", int(n))
        if not isinstance(self.distinct, (bool, np.bool_)):
            raise TypeError(f"distinct must be a bool, got {type(self.distinct).__name__}")
        self._set("distinct", bool(self.distinct))
        super().__post_init__()

    def signature(self) -> str:
        parts = [f"n:{self.n}", super().signature()]
        if self.distinct:
            parts.append("grams:distinct")
        return "|".join(parts)


def rouge_n_from_options(values: dict) -> RougeNSettings:
    """RougeNSettings from option values (``n`` from the type name, as ``rouge2``)."""
    kw = {k: values[k] for k in ("multi_ref", "n", "distinct") if k in values}
    return RougeNSettings(text=text_of(values), **weighting_of(values), **kw)


class RougeNAccumulator(TextPrfAccumulator):
    """Mean per-instance ROUGE-N F (and macro P, R): the state of ROUGE-L (P, R, F sums, count).
    ``add_lcs`` (the network-output path) folds (hits, candidate n-grams, reference n-grams)."""

    def _score(self, batch: Batch):
        st = self.settings
        res = ngram_overlap(batch.cands, batch.ref_lists, (st.n,), distinct=st.distinct, words=batch.words)
        return self.score_counts(res, 0)

    def score_counts(self, res, k: int):
        """Field increments and per-instance result from an ``ngram_overlap`` result's order k
        (compute() counts several orders in one pass and hands each its own)."""
        s = self._prf(res.hits[:, k], res.cand_grams[:, k], res.ref_grams[:, k], res.ref_count)
        return self._deltas(s), (s, None)


class RougeN(RougeL):
    r"""ROUGE-N (clipped n-gram overlap), averaged over instances.

    The API of :class:`RougeL` (``add_inst``, ``add_batch``, ``update``, ``accumulate``,
    state, merge, sync, hapi ``compute`` on network output with the same cutting rules),
    with the order ``n`` (default 2) and ``distinct`` (count n-grams as a set, as
    rouge-chinese).  rouge-score's numbers: ``gamma=1.0, multi_ref="best",
    tokenize="rouge_score"``.  On network output the ids are scored on the host (the
    device has no n-gram op): ``compute`` returns [B, 3] int64 rows of (hits,
    candidate n-grams, reference n-grams).

    >>> m = RougeN(n=1, gamma=1.0, tokenize="whitespace")
    >>> m.add_inst("the cat sat", ["the cat is here"])
    >>> round(m.score(), 6)                  # P = 2/3, R = 2/4
    0.571429
    """

    def __init__(self, n: int = 2, trans_func=None, vocab: Any = None, gamma: float = 1.2,
                 name: Optional[str] = None, multi_ref: str = "max_pr", sync_dist: bool = False,
                 pad_id: Optional[int] = None, eos_id: Optional[int] = None,
                 paddlenlp_compat: bool = False, tokenize: Any = "char", normalize: str = "none",
                 lowercase: Optional[bool] = None, stem: bool = False, distinct: bool = False,
                 num_outputs: int = 1, output_index: int = 0, keep_instances: bool = False, **kwargs):
        reject_unknown(kwargs, RougeN.__init__)
        text = TextSettings(tokenize, normalize, lowercase, stem)
        settings = RougeNSettings(n=n, distinct=distinct, gamma=gamma, multi_ref=multi_ref, pad_id=pad_id,
                                  eos_id=eos_id, paddlenlp_compat=paddlenlp_compat, text=text)
        self._init(RougeNAccumulator(settings, keep_instances), trans_func, vocab,
                   f"rouge-{settings.n}" if name is None else name, sync_dist)
        self._set_outputs(num_outputs, output_index)

    n = property(lambda self: self._acc.settings.n)
    distinct = property(lambda self: self._acc.settings.distinct)

    def _host_figures(self, cands: list, refs: list) -> np.ndarray:
        st = self._acc.settings
        res = ngram_overlap(cands, [[r] for r in refs], (st.n,), distinct=st.distinct)
        return np.stack([res.hits[:, 0], res.cand_grams[:, 0], res.ref_grams[:, 0]], axis=1)

    def _device_figures(self, cand, cv, ref, rv):
        from ..engine import convert

        return self._host_figures(*convert.rows(cand.numpy(), cv.numpy(), ref.numpy(), rv.numpy()))

    def lcs(self, string: Any, sub: Any) -> float:
        raise AttributeError("RougeN has no lcs(): it counts n-grams")


@keywords_checked
def rouge_n(hypotheses: Sequence, references: Sequence, n: int = 2, alpha: Optional[float] = None, *,
            gamma: Optional[float] = None, distinct: bool = False, tokenize: Any = "char",
            normalize: str = "none", lowercase: Optional[bool] = None, stem: bool = False) -> Score:
    """ROUGE-N P, R and F of each (hypothesis, reference) pair.

    Args:
        hypotheses, references: N token sequences each (a str is a sequence of
            characters unless ``tokenize`` says otherwise), one reference per hypothesis.
        n: the n-gram order.
        alpha / gamma: the F weighting, as :func:`paddle_rougel.rouge_l` (default alpha
            0.5: F1, rouge-score's).
        distinct: count each distinct n-gram once (rouge-chinese).
        tokenize, normalize, lowercase, stem: text settings (:mod:`paddle_rougel.text`).

    Returns:
        :class:`~paddle_rougel.Score` ``(precision, recall, fmeasure)``, float64 arrays [N].
    """
    w = scoring.weighting(gamma, alpha, default_alpha=0.5)
    hypotheses, references = pair_lists("rouge_n", hypotheses, references)
    settings = RougeNSettings(n=n, distinct=distinct, text=TextSettings(tokenize, normalize, lowercase, stem))
    acc = RougeNAccumulator(settings)
    batch = pairs_batch(hypotheses, references, acc.tokenizer, acc.hint)
    res = ngram_overlap(batch.cands, batch.ref_lists, (settings.n,), distinct=distinct, words=batch.words)
    p, r = scoring.precision_recall(res.hits[:, 0], res.cand_grams[:, 0], res.ref_grams[:, 0])
    return Score(p, r, scoring.f_measure(p, r, w))


SPEC = MetricSpec(
    name="RougeN", key="rouge{n}", label="ROUGE-{n}", state_key="rouge_{n}", type_pattern=r"rouge(?P<n>[1-9][0-9]?)",
    settings=RougeNSettings, accumulator=RougeNAccumulator, paddle_class=RougeN, functional=rouge_n,
    options=NGRAM_OPTIONS, from_options=rouge_n_from_options, doc="clipped n-gram overlap (rouge1, rouge2, ...)")
