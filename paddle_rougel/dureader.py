"""``RougeLForDuReader``: ROUGE-L with the DuReader contest's yes/no and entity bonus.

Equal to ``paddlenlp.metrics.RougeLForDuReader`` (the contest's
``RougeLWithBonus``).  Per reference i of a candidate C:

* yes/no bonus (when both ``yn_label`` and ``yn_ref`` are given):
  ``yn = LCS(C, ref_i)`` if ``yn_label == yn_ref[i]`` else 0;
* otherwise, when ``entity_ref`` is given: ``ent = sum(len(e) for e in
  entity_ref if e in C)`` (Python's ``in``: substring for str);
* ``P_i = (lcs + alpha*yn + beta*ent) / (len(C) + alpha*yn + beta*ent)``,
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

from typing import Any, Optional, Sequence

import numpy as np

from . import scoring
from .accumulators import DuReaderRougeLAccumulator
from .inputs import make_batch, plain_instance
from .metric import RougeL, reject_unknown
from .settings import DuReaderRougeLSettings
from .text import TextSettings

__all__ = ["RougeLForDuReader"]


class RougeLForDuReader(RougeL):
    """ROUGE-L with the DuReader yes/no and entity bonus.

    Args:
        alpha: weight of the yes/no bonus (``yesno_weight``; paddlenlp's name). Default 1.0.
        beta: weight of the entity bonus (``entity_weight``). Default 1.0.
        gamma: recall weight of F. Default 1.2 (honoured, see the module doc).
        name, multi_ref, sync_dist, trans_func, vocab, keep_instances: as :class:`paddle_rougel.RougeL`.
        tokenize, normalize, lowercase, stem: text settings (:mod:`paddle_rougel.text`); with
            word tokens, an entity counts when its tokens are a run of the candidate's.
    """

    def __init__(self, alpha: float = 1.0, beta: float = 1.0, gamma: float = 1.2,
                 name: str = "rouge-l", multi_ref: str = "max_pr", sync_dist: bool = False,
                 trans_func=None, vocab=None, tokenize: Any = "char", normalize: str = "none",
                 lowercase: Optional[bool] = None, stem: bool = False, keep_instances: bool = False,
                 **kwargs):
        reject_unknown(kwargs, RougeLForDuReader.__init__)
        settings = DuReaderRougeLSettings(gamma=gamma, multi_ref=multi_ref,
                                          yesno_weight=alpha, entity_weight=beta,
                                          text=TextSettings(tokenize, normalize, lowercase, stem))
        self._init(DuReaderRougeLAccumulator(settings, keep_instances), trans_func, vocab, name,
                   sync_dist)

    alpha = yesno_weight = property(lambda self: self._acc.settings.yesno_weight)
    beta = entity_weight = property(lambda self: self._acc.settings.entity_weight)

    # ----------------------------------------------------------- adding data
    def add_inst(self, cand: Any, ref_list: Sequence, yn_label: Any = None,
                 yn_ref: Optional[Sequence] = None, entity_ref: Any = None) -> None:
        """Add one candidate with its references and optional bonus information.

        Args:
            cand: the candidate (str: characters are tokens; or a token sequence).
            ref_list: non-empty list of references.
            yn_label: the candidate's yes/no label (e.g. ``"Yes"``).
            yn_ref: one label per reference (checked: same length as ``ref_list``).
            entity_ref: entities for the entity bonus (used when the yes/no bonus does not apply).
        """
        tok, no_bonus = self._acc.tokenizer, (yn_label is None or yn_ref is None) and entity_ref is None
        batch = plain_instance(cand, ref_list) if tok is None and no_bonus else None
        self._acc.add(batch or make_batch([cand], [ref_list], [yn_label], [yn_ref], [entity_ref],
                                          base=self._acc.n_seen(), tokenizer=tok))

    def add_batch(self, cands: Sequence, ref_lists: Sequence, yn_labels: Optional[Sequence] = None,
                  yn_refs: Optional[Sequence] = None, entity_refs: Optional[Sequence] = None
                  ) -> scoring.Score:
        """Score many instances in one engine call; returns their per-instance Score.

        The optional lists hold one item (or None) per instance; every
        instance is validated before any is counted.

        >>> m = RougeLForDuReader()
        >>> s = m.add_batch(["ab", "xy"], [["ab", "cd"], ["xz"]], yn_labels=["No", None],
        ...                 yn_refs=[["Yes", "No"], None])
        >>> [round(float(v), 4) for v in s.fmeasure]
        [1.0, 0.5]
        """
        batch = make_batch(cands, ref_lists, yn_labels, yn_refs, entity_refs, base=self._acc.n_seen(), tokenizer=self._acc.tokenizer,
                           words=True)
        return self._scored(batch)

    def per_instance_bonus(self) -> np.ndarray:
        """Per-instance weighted bonus (the largest over its references), in the order added."""
        return self._acc.per_instance_bonus()
