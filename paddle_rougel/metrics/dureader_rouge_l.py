"""``RougeLForDuReader``: ROUGE-L with the DuReader contest's yes/no and entity bonus.

Equal to ``paddlenlp.metrics.RougeLForDuReader`` (the contest's
``RougeLWithBonus``).  Per reference i of a candidate C:

* yes/no bonus (when both ``yn_label`` and ``yn_ref`` are given):
  ``yn = LCS(C, ref_i)`` if ``yn_label == yn_ref[i]`` else 0;
* otherwise, when ``entity_ref`` is given: ``ent = sum(len(e) for e in
  entity_ref if e in C)`` (Python's ``in``: substring for str);
* ``P_i = (lcs + w_yn*yn + w_ent*ent) / (len(C) + w_yn*yn + w_ent*ent)`` (``yesno_weight``
  and ``entity_weight``: paddlenlp's ``alpha`` and ``beta``),
  ``R_i`` likewise with ``len(ref_i)`` (0 when the denominator is 0);

then the max P and the max R over references and F with ``gamma``.  Unlike
paddlenlp, whose ``__init__`` passes gamma positionally into ``trans_func``
(so its gamma is always 1.2), ``gamma`` here is honoured.

Example:
    >>> from paddle_rougel import RougeLForDuReader
    >>> m = RougeLForDuReader()
    >>> m.add_inst("是的可以吃", ["可以吃", "不能吃"], yn_label="Yes", yn_ref=["Yes", "No"])
    >>> m.add_inst("北京和上海", ["上海"], entity_ref=["上海", "广州"])
    >>> round(m.score(), 12)
    0.82234898722
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Optional, Sequence

import numpy as np

from ..engine import host as engine
from ..core import scoring
from ..engine.inputs import Batch
from .metric import reject_unknown
from ..core.settings import Option, SettingsError, check_weight, keywords_checked, text_of
from ..core.text import TextSettings
from .rouge_l import RougeL, RougeLAccumulator, RougeLSettings
from .bonus import BONUS_OPTIONS, DEFAULT_WEIGHT, BonusInstances, bonus_weights, deprecated_alias  # noqa: F401
from .spec import MetricSpec

__all__ = ["DuReaderRougeLSettings", "DuReaderRougeLAccumulator", "RougeLForDuReader", "BonusInstances", "BONUS_OPTIONS",
           "dureader_from_options", "bonus_weights", "SPEC"]

@dataclass(frozen=True)
class DuReaderRougeLSettings(RougeLSettings):
    """ROUGE-L with the DuReader yes/no and entity bonus weights (gamma weighting only)."""

    yesno_weight: float = 1.0
    entity_weight: float = 1.0
    _LEGACY = {"beta": "entity_weight"}  # "alpha": see from_config

    def __post_init__(self):
        if self.alpha is not None:
            raise SettingsError("the DuReader metric weights F by gamma; alpha is not supported "
                                "(alpha a equals gamma sqrt((1 - a) / a))")
        super().__post_init__()
        self._set("yesno_weight", check_weight(self.yesno_weight, "yesno_weight (alpha)"))
        self._set("entity_weight", check_weight(self.entity_weight, "entity_weight (beta)"))

    @classmethod
    def from_config(cls, cfg: Any, where: str = "config"):
        # state files before the rename spelt the yes/no bonus weight "alpha"
        if isinstance(cfg, dict) and "alpha" in cfg and "yesno_weight" not in cfg:
            cfg = dict(cfg)
            cfg["yesno_weight"] = cfg.pop("alpha")
        return super().from_config(cfg, where)

    def signature(self) -> str:
        return f"{super().signature()}|bonus:yn{self.yesno_weight},ent{self.entity_weight}"


def dureader_from_options(values: dict):
    """(DuReaderRougeLSettings, BleuSettings) of the contest from option values.

    An alpha in (0, 1] becomes the equal gamma (the DuReader metric is weighted by gamma)."""
    gamma = values.get("gamma")
    alpha = values.get("alpha")
    if alpha is not None:
        a = scoring.check_alpha(alpha)
        if not 0 < a <= 1:
            raise SettingsError(f"alpha {alpha} has no gamma equivalent (the DuReader metric needs "
                                "0 < alpha <= 1, or a gamma)")
        gamma = scoring.gamma_from_alpha(a)
        if not math.isfinite(gamma):
            raise SettingsError(f"alpha {alpha} is too small (gamma = sqrt((1 - alpha) / alpha) "
                                "is not finite)")
    from .bleu import bleu_from_options

    text = text_of(values)
    bonus = {k: values[k] for k in ("yesno_weight", "entity_weight") if k in values}
    rouge = DuReaderRougeLSettings(gamma=1.2 if gamma is None else gamma, text=text,
                                   multi_ref=values.get("multi_ref", "max_pr"), **bonus)
    return rouge, bleu_from_options(values)


def dureader_rouge_from_options(values: dict) -> "DuReaderRougeLSettings":
    """The contest's ROUGE-L settings of option values (see :func:`dureader_from_options`)."""
    return dureader_from_options(values)[0]


def _entity_bonus(cand: Any, ents: tuple, tokenized: bool) -> float:
    """paddlenlp's add_entity_bonus: the float sum of the lengths of the entities found
    (``e in cand``: a substring of a str).  Tokenized text: a run of tokens of the candidate."""
    total = 0.0
    for e in ents:
        if (_contains_run(cand, e) if tokenized and not isinstance(cand, str) else e in cand):
            total += len(e)
    return total


def _contains_run(seq: tuple, run: Any) -> bool:
    k = len(run)
    if k == 0:
        return True
    run = tuple(run)
    first = run[0]
    return any(seq[i] == first and seq[i:i + k] == run for i in range(len(seq) - k + 1))


class DuReaderRougeLAccumulator(RougeLAccumulator):
    """ROUGE-L with the DuReader yes/no and entity bonus (see ``dureader.py``)."""

    def _pair_bonus(self, res: engine.LcsResult, batch: Batch) -> np.ndarray:
        """Weighted bonus of every (candidate, reference) pair, flat [M]."""
        counts = res.ref_count
        ent = np.zeros(len(counts), dtype=np.float64)
        if batch.entities is not None:
            for i, ents in enumerate(batch.entities):
                if ents is not None:
                    found = _entity_bonus(batch.cands[i], ents, batch.tokenized)
                    ent[i] = self.settings.entity_weight * found
        bonus = np.repeat(ent, counts)
        if batch.yn_match is not None:
            mask = np.zeros(len(res.lcs), dtype=bool)
            offsets = res.offsets.tolist()  # a property: computed once here, not per instance
            for i, m in enumerate(batch.yn_match):
                if m is not None:
                    mask[offsets[i]:offsets[i + 1]] = m
            bonus[mask] = self.settings.yesno_weight * res.lcs[mask].astype(np.float64)
        return bonus

    columns = ("precision", "recall", "fmeasure", "bonus")

    def _columns_of(self, local) -> np.ndarray:
        s, bonus = local
        return np.stack([s.precision, s.recall, s.fmeasure,
                         np.zeros(len(s.fmeasure)) if bonus is None else bonus], axis=1)

    def _local_of(self, cols: np.ndarray):
        return super()._local_of(cols)[0], cols[:, 3].copy()

    def per_instance_bonus(self) -> np.ndarray:
        """Per-instance weighted bonus (the largest over its references), in the order added."""
        with self._lock:
            self.flush()
            parts = [loc[1] if loc[1] is not None else np.zeros(len(loc[0].fmeasure))
                     for loc in self._results()]
        return np.concatenate(parts) if parts else np.zeros(0, dtype=np.float64)


class RougeLForDuReader(BonusInstances, RougeL):
    """ROUGE-L with the DuReader yes/no and entity bonus.

    Args:
        yesno_weight: weight of the yes/no bonus. Default 1.0.  (paddlenlp's keyword
            ``alpha=`` is still taken, with a DeprecationWarning: alpha is the F weight
            everywhere else; positional arguments are unchanged.)
        entity_weight: weight of the entity bonus. Default 1.0 (paddlenlp's ``beta=``).
        gamma: recall weight of F. Default 1.2 (honoured, see the module doc).
        name, multi_ref, sync_dist, trans_func, vocab, keep_instances: as :class:`paddle_rougel.RougeL`.
        tokenize, normalize, lowercase, stem: text settings (:mod:`paddle_rougel.text`); with
            word tokens, an entity counts when its tokens are a run of the candidate's.
    """

    def __init__(self, yesno_weight: float = DEFAULT_WEIGHT, entity_weight: float = DEFAULT_WEIGHT,
                 gamma: float = 1.2,
                 name: str = "rouge-l", multi_ref: str = "max_pr", sync_dist: bool = False,
                 trans_func=None, vocab=None, tokenize: Any = "char", normalize: str = "none",
                 lowercase: Optional[bool] = None, stem: bool = False, keep_instances: bool = False,
                 **kwargs):
        yesno_weight, entity_weight = bonus_weights("RougeLForDuReader", yesno_weight, entity_weight, kwargs)
        reject_unknown(kwargs, RougeLForDuReader.__init__, ("alpha", "beta"))
        settings = DuReaderRougeLSettings(gamma=gamma, multi_ref=multi_ref,
                                          yesno_weight=yesno_weight, entity_weight=entity_weight,
                                          text=TextSettings(tokenize, normalize, lowercase, stem))
        self._init(DuReaderRougeLAccumulator(settings, keep_instances), trans_func, vocab, name,
                   sync_dist)

    yesno_weight = property(lambda self: self._acc.settings.yesno_weight)
    entity_weight = property(lambda self: self._acc.settings.entity_weight)
    alpha = deprecated_alias("alpha", "yesno_weight")
    beta = deprecated_alias("beta", "entity_weight")

    # ----------------------------------------------------------- adding data
    @keywords_checked
    def add_batch(self, cands: Sequence, ref_lists: Sequence, yn_labels: Optional[Sequence] = None,
                  yn_refs: Optional[Sequence] = None, entity_refs: Optional[Sequence] = None
                  ) -> scoring.Score:
        """Score many instances in one engine call; returns their per-instance Score.

        The optional lists hold one item (or None) per instance; every
        instance is validated before any is counted.

        Examples:
            >>> m = RougeLForDuReader()
            >>> s = m.add_batch(["ab", "xy"], [["ab", "cd"], ["xz"]], yn_labels=["No", None],
            ...                 yn_refs=[["Yes", "No"], None])
            >>> [round(float(v), 4) for v in s.fmeasure]
            [1.0, 0.5]
        """
        return self._scored(self._acc.batch(cands, ref_lists, yn_labels, yn_refs, entity_refs))

    def per_instance_bonus(self) -> np.ndarray:
        """Per-instance weighted bonus (the largest over its references), in the order added."""
        return self._acc.per_instance_bonus()


SPEC = MetricSpec(
    name="RougeLForDuReader", label="ROUGE-L", state_key="rouge_l",
    settings=DuReaderRougeLSettings, accumulator=DuReaderRougeLAccumulator, paddle_class=RougeLForDuReader,
    options=BONUS_OPTIONS, from_options=dureader_rouge_from_options, doc="the DuReader contest's ROUGE-L with the yes/no and entity bonus")
