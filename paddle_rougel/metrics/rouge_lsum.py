"""ROUGE-Lsum: summary-level ROUGE-L, the union LCS of each reference sentence against
the candidate's sentences (rouge-score's ``rougeLsum``; the engine is :mod:`paddle_rougel.lsum`).

Everything of the metric: :class:`RougeLsumSettings`, :class:`RougeLsumAccumulator`,
:class:`RougeLsum` (the ``paddle.metric.Metric``), :func:`rouge_lsum` and its ``SPEC``.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Optional, Sequence

import numpy as np

from ..engine import lsum
from ..core import scoring
from .accumulators import PrfAccumulator
from ..engine.inputs import Batch, pair_lists
from ..engine.lsum import make_lsum_batch, score_batch
from .metric import PaddleMetric, reject_unknown
from ..core.scoring import RougeLOutput
from ..core.settings import Option, SettingsError, Weighted, keywords_checked, text_of, weighting_of
from ..core.text import TextSettings
from .spec import MetricSpec

__all__ = ["RougeLsumSettings", "RougeLsumAccumulator", "RougeLsum", "rouge_lsum", "SUMMARY_OPTIONS", "SPEC"]

SUMMARY_OPTIONS = (
    Option("split", ("--split",), str,
           "ROUGE-Lsum sentences: newline (default; in a line file, <n> separates sentences), "
           "zh (after 。！？；), en (after . ! ? and a space), nltk (nltk's sent_tokenize: "
           "rouge-score's split_summaries; needs its punkt model)", ("newline", "zh", "en", "nltk")),
)


@dataclass(frozen=True)
class RougeLsumSettings(Weighted):
    """ROUGE-Lsum (summary-level union LCS): the F weighting and reference combination of
    ROUGE-L, how a text is split into sentences (``split``: see :mod:`paddle_rougel.lsum`),
    and the text settings, applied to each sentence.

    >>> s = RougeLsumSettings(gamma=1.0, multi_ref="best", split="zh")
    >>> s.signature()
    'gamma:1.0|multi_ref:best|split:zh|tok:char|norm:none|lc:no'
    >>> RougeLsumSettings.from_config(s.config()) == s
    True
    """

    gamma: Optional[float] = None  # None: 1.2, unless alpha is given
    alpha: Optional[float] = None
    multi_ref: str = "max_pr"
    split: str = "newline"
    text: TextSettings = field(default_factory=TextSettings)

    def __post_init__(self):
        from ..engine.lsum import SPLITS

        self._check_text()
        self._check_weighting()
        if self.split not in SPLITS:
            raise SettingsError(f"split must be one of {', '.join(SPLITS)}, got {self.split!r}")
        if self.split == "nltk":
            lsum.nltk_sentences()  # a clear error now when its model is missing, not mid-batch

    def text_mode(self) -> Optional[str]:
        """How the C text path can read ``str`` summaries untouched: ``"rouge_score"``
        (rouge-score's own handling: newline split, its tokenizer, no stemming),
        ``"char"`` (the defaults: newline split, every character a token), or None
        (other settings: split and tokenize in Python)."""
        if self.split != "newline":
            return None
        if self.text == TextSettings(tokenize="rouge_score"):
            return "rouge_score"
        return "char" if self.text == TextSettings() else None

    def raw_text(self) -> bool:
        """``str`` summaries can go to the C text path untouched (see ``text_mode``)."""
        return self.text_mode() is not None

    def signature(self) -> str:
        return "|".join([self.f_name(), f"multi_ref:{self.multi_ref}", f"split:{self.split}",
                         self.text.signature()])


def lsum_from_options(values: dict) -> RougeLsumSettings:
    """RougeLsumSettings (summary-level) from option values, as :func:`rouge_from_options`."""
    kw = {k: values[k] for k in ("multi_ref", "split") if k in values}
    return RougeLsumSettings(text=text_of(values), **weighting_of(values), **kw)


class RougeLsumAccumulator(PrfAccumulator):
    """Mean per-instance ROUGE-Lsum F (and macro P, R), rouge-score's summary-level union LCS.

    The same fields, reductions, state and per-instance results as ROUGE-L; only
    the per-pair figure differs (:mod:`paddle_rougel.lsum`).

    >>> from paddle_rougel.engine.lsum import make_lsum_batch
    >>> acc = RougeLsumAccumulator(RougeLsumSettings(gamma=1.0))
    >>> acc.add(make_lsum_batch([["ab", "ca"]], [[["aca"]]]))
    >>> acc.scores()
    Score(precision=0.75, recall=1.0, fmeasure=0.8571428571428571)
    """

    def _prepare(self, text: str) -> tuple:
        return lsum.summary_of(text, "text", self.settings.split, self.tokenizer)

    def _score(self, batch: Batch):
        res = lsum.score_batch(batch.cands, batch.ref_lists, self._prepare,
                               chars=self.settings.text_mode() == "char", base=int(self._values["count"]))
        s = self._prf(res.hits, res.cand_len, res.ref_len, res.ref_count)
        return self._deltas(s), (s, None)

    def compute_batch(self, predictions: Sequence, references: Sequence, base: int = 0) -> Batch:
        """The batch of :func:`paddle_rougel.compute`'s inputs (see :func:`_lsum_refs`)."""
        st = self.settings
        if set(map(type, references)) <= {str}:  # one reference each (no list per instance)
            return make_lsum_batch(predictions, references, st.split, self.tokenizer, st.raw_text(),
                                   one_ref=True, hint=self.hint, base=base)
        refs = [_lsum_refs(p, r) for p, r in zip(predictions, references)]
        return make_lsum_batch(predictions, refs, st.split, self.tokenizer, st.raw_text(), hint=self.hint,
                               base=base)

    def add_lcs(self, lcs, cand_len, ref_len):
        raise TypeError("ROUGE-Lsum needs sentences: add summaries (add / add_now), not LCS figures")


class RougeLsum(PaddleMetric):
    r"""ROUGE-Lsum (summary-level ROUGE-L, union LCS), averaged over instances.

    Exactly rouge-score 0.1.2's ``rougeLsum`` per (candidate, reference) pair
    (:mod:`paddle_rougel.lsum`); the same API, state, merge and sync as
    :class:`RougeL`, and the same ``gamma`` and ``multi_ref``.  A summary is a
    ``str``, split into sentences by ``split`` (``"newline"``, as rouge-score;
    ``"zh"``; ``"en"``), or a list of sentences, each a ``str`` or a token
    list; the text settings apply to each sentence.  rouge-score's numbers:
    ``gamma=1.0, multi_ref="best", tokenize="rouge_score"``.

    >>> m = RougeLsum(gamma=1.0, multi_ref="best", tokenize="rouge_score")
    >>> m.add_inst("The cat sat.\nIt was happy.", ["A cat sat down.\nIt was very happy."])
    >>> round(m.score(), 6)                  # P = 5/6, R = 5/8 (rouge-score's numbers)
    0.714286

    There is no hapi ``compute`` path (network output has no sentences):
    ``update(cands, ref_lists)`` is ``add_batch``.  Unknown keyword arguments
    are an error.
    """

    def __init__(self, gamma: float = 1.2, name: str = "rouge-lsum", multi_ref: str = "max_pr",
                 split: str = "newline", sync_dist: bool = False, tokenize: Any = "char",
                 normalize: str = "none", lowercase: Optional[bool] = None, stem: bool = False,
                 keep_instances: bool = False, **kwargs):
        reject_unknown(kwargs, RougeLsum.__init__)
        text = TextSettings(tokenize, normalize, lowercase, stem)
        settings = RougeLsumSettings(gamma=gamma, multi_ref=multi_ref, split=split, text=text)
        acc = (RougeLsumAccumulator(settings, keep_instances) if keep_instances
               else RougeLsumAccumulator(settings))
        super().__init__(acc, name, sync_dist)

    gamma = property(lambda self: self._acc.settings.gamma)
    multi_ref = property(lambda self: self._acc.settings.multi_ref)
    split = property(lambda self: self._acc.settings.split)
    text = property(lambda self: self._acc.settings.text)

    def _batch(self, cands: Sequence, ref_lists: Sequence):
        s = self._acc.settings
        return make_lsum_batch(cands, ref_lists, s.split, self._acc.tokenizer, s.raw_text(),
                               base=self._acc.n_seen(), hint=self._acc.hint)

    def add_inst(self, cand: Any, ref_list: Sequence) -> None:
        """Add one candidate summary scored against its list of reference summaries.

        The inputs are copied (and split and tokenized) now; a bad instance raises
        naming its index, reference and sentence, and changes nothing.
        """
        self._acc.add(self._batch([cand], [ref_list]))

    def add_batch(self, cands: Sequence, ref_lists: Sequence) -> scoring.Score:
        """Score many instances in one engine call; returns their per-instance Score."""
        return self._scored(self._batch(cands, ref_lists))

    def update(self, cands: Sequence, ref_lists: Sequence) -> scoring.Score:
        """``add_batch`` under Paddle's metric name."""
        return self.add_batch(cands, ref_lists)

    def scores(self) -> scoring.Score:
        """Macro-averaged precision, recall and F, as floats."""
        return self._acc.scores(self._sync())

    def per_instance(self) -> scoring.Score:
        """Per-instance P, R, F (float64 arrays, in the order added) on this process."""
        return self._acc.per_instance()


def _depth(x: Any) -> int:
    """Nesting by first items: a str or a token 0, a list / tuple / array one more than its first
    item (an empty one 1).  ``"ab"`` 0, ``["s1", "s2"]`` 1, ``[["a", "b"], ["c"]]`` 2."""
    d = 0
    while isinstance(x, (list, tuple, np.ndarray)):
        d += 1
        if len(x) == 0:
            break
        x = x[0]
    return d


def _lsum_refs(pred: Any, refs: Any) -> Any:
    """One prediction's references for ROUGE-Lsum: a str is one reference; a reference with the
    prediction's shape (sentences of a prediction given as a list of sentences) is one
    reference, as the prediction is one summary; deeper, a list of references."""
    if isinstance(refs, str) or refs is None:
        return [refs]
    if not isinstance(pred, str) and isinstance(refs, (list, tuple, np.ndarray)) \
            and _depth(refs) <= _depth(pred):
        return [refs]
    return refs


@keywords_checked
def rouge_lsum(hypotheses: Sequence, references: Sequence, alpha: Optional[float] = None, *,
               gamma: Optional[float] = None, split: str = "newline", tokenize: Any = "char", normalize: str = "none",
               lowercase: Optional[bool] = None, stem: bool = False) -> RougeLOutput:
    """ROUGE-Lsum (summary-level, union LCS) F, P and R of each (hypothesis, reference) pair.

    Exactly rouge-score 0.1.2's ``rougeLsum`` (with ``tokenize="rouge_score"``).

    Args:
        hypotheses: N summaries: a str (split into sentences by ``split``:
            ``"newline"``, ``"zh"`` or ``"en"``, see :mod:`paddle_rougel.lsum`) or a
            list of sentences (each a str or a token list).
        references: N summaries of the same kinds, one per hypothesis.
        alpha: as :func:`rouge_l` (None = 0.5; negative: tensor2tensor's formula).
        gamma: instead of alpha (alpha = 1 / (1 + gamma^2)).
        tokenize, normalize, lowercase, stem: text settings, applied to each sentence.

    Returns:
        ``RougeLOutput(f_measure, p_measure, r_measure)``, float64 arrays [N].

    >>> out = rouge_lsum(["the cat sat\\nit was happy"], ["a cat sat down\\nit was very happy"],
    ...                  tokenize="whitespace")
    >>> out.p_measure.round(6).tolist(), out.r_measure.round(6).tolist()
    ([0.833333], [0.625])
    """
    w = scoring.weighting(gamma, alpha, default_alpha=0.5)
    hypotheses, references = pair_lists("rouge_lsum", hypotheses, references)
    settings = RougeLsumSettings(split=split, text=TextSettings(tokenize, normalize, lowercase, stem))
    acc = RougeLsumAccumulator(settings)
    batch = make_lsum_batch(hypotheses, references, split, acc.tokenizer, settings.raw_text(),
                            one_ref=True, hint=acc.hint)
    res = score_batch(batch.cands, batch.ref_lists, acc._prepare, chars=settings.text_mode() == "char")
    p, r = scoring.precision_recall(res.hits, res.cand_len, res.ref_len)
    return RougeLOutput(scoring.f_measure(p, r, w), p, r)


SPEC = MetricSpec(
    name="RougeLsum", key="rougeLsum", label="ROUGE-Lsum", state_key="rouge_lsum",
    settings=RougeLsumSettings, accumulator=RougeLsumAccumulator, paddle_class=RougeLsum,
    functional=rouge_lsum, options=SUMMARY_OPTIONS, from_options=lsum_from_options,
    doc="summary-level ROUGE-L: union LCS over sentences")
