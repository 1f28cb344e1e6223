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

from typing import Any, List, Optional, Sequence

import numpy as np

from . import engine, scoring
from .bleu import _check_number, check_batch, check_bonus_args
from .metric import _FLUSH_AT, RougeL, _check_instance

__all__ = ["RougeLForDuReader"]


def _entity_bonus(cand: Any, ents: Sequence) -> float:
    # paddlenlp's add_entity_bonus: a float sum of the lengths of the entities found
    total = 0.0
    for e in ents:
        if e in cand:
            total += len(e)
    return total


class RougeLForDuReader(RougeL):
    """ROUGE-L with the DuReader yes/no and entity bonus.

    Args:
        alpha: weight of the yes/no bonus. Default 1.0.
        beta: weight of the entity bonus. Default 1.0.
        gamma: recall weight of F. Default 1.2 (honoured, see the module doc).
        name, multi_ref, sync_dist: as :class:`paddle_rougel.RougeL`.
    """

    def __init__(self, alpha: float = 1.0, beta: float = 1.0, gamma: float = 1.2,
                 name: str = "rouge-l", multi_ref: str = "max_pr", sync_dist: bool = False,
                 trans_func=None, vocab=None):
        super().__init__(trans_func=trans_func, vocab=vocab, gamma=gamma, name=name,
                         multi_ref=multi_ref, sync_dist=sync_dist)
        self.alpha = _check_number(alpha, "alpha")
        self.beta = _check_number(beta, "beta")
        self._per_bonus: List[np.ndarray] = []

    # ----------------------------------------------------------- adding data
    def _extra(self, cand, yn_label, yn_ref, ents, index):
        """What _score_lcs needs of one instance's (checked) bonus arguments."""
        if yn_ref is not None:
            return ("yn", tuple(not (yn_label != r) for r in yn_ref))
        if ents is not None:
            try:
                return ("ent", _entity_bonus(cand, ents))
            except TypeError as e:
                raise TypeError(f"instance {index}: entity_ref: {e}") from None
        return None

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
        index = self._n_seen()
        cand, ref_list = _check_instance(cand, ref_list, index)  # iterators materialised
        yn_ref, ents = check_bonus_args(cand, ref_list, yn_label, yn_ref, entity_ref, index)
        extra = self._extra(cand, yn_label, yn_ref, ents, index)
        self._pending_cands.append(cand)
        self._pending_refs.append(ref_list)
        self._pending_extra.append(extra)
        if len(self._pending_cands) >= _FLUSH_AT:
            self._flush()

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
        base = self._n_seen()
        items = check_batch(cands, ref_lists, yn_labels, yn_refs, entity_refs, base)
        cands = [it[0] for it in items]
        ref_lists = [it[1] for it in items]
        extras = [self._extra(c, yl, yr, er, base + i) for i, (c, _, yl, yr, er) in enumerate(items)]
        self._flush()
        res = engine.lcs_batch(cands, ref_lists)
        return self._fold(self._score_lcs(res, cands, ref_lists, extras))

    # --------------------------------------------------------------- scoring
    def _bonus(self, res: engine.LcsResult, extras) -> np.ndarray:
        """Weighted bonus of every (candidate, reference) pair, flat [M]."""
        counts = res.ref_count
        ent = np.zeros(len(counts), dtype=np.float64)
        yn_mask = np.zeros(len(res.lcs), dtype=bool)
        offsets = res.offsets
        any_yn = False
        for i, ex in enumerate(extras):
            if ex is None:
                continue
            if ex[0] == "yn":
                yn_mask[offsets[i]:offsets[i + 1]] = ex[1]
                any_yn = True
            else:
                ent[i] = self.beta * ex[1]
        bonus = np.repeat(ent, counts)
        if any_yn:
            bonus[yn_mask] = self.alpha * res.lcs[yn_mask].astype(np.float64)
        return bonus

    def _score_lcs(self, res: engine.LcsResult, cands, ref_lists, extras) -> scoring.Score:
        bonus = self._bonus(res, extras)
        # (lcs + bonus) / (len + bonus): paddlenlp's operation order (the unused
        # bonus of the two is 0.0, an exact addition)
        p, r = scoring.precision_recall(res.lcs, np.repeat(res.cand_len, res.ref_count),
                                        res.ref_len, bonus)
        pi, ri, fi = scoring.reduce_refs(p, r, res.offsets, self.multi_ref, self._f)
        if len(fi):
            self._per_bonus.append(np.maximum.reduceat(bonus, res.offsets[:-1]))
        return scoring.Score(pi, ri, fi)

    def per_instance_bonus(self) -> np.ndarray:
        """Per-instance weighted bonus (the largest over its references), in the order added."""
        self._flush()
        if not self._per_bonus:
            return np.zeros(0, dtype=np.float64)
        return np.concatenate(self._per_bonus)

    # ----------------------------------------------------- state/merge hooks
    def reset(self) -> None:
        super().reset()
        self._per_bonus = []

    def _config(self) -> dict:
        cfg = super()._config()
        cfg.update(alpha=self.alpha, beta=self.beta)
        return cfg

    def _clear_local(self) -> None:
        super()._clear_local()
        self._per_bonus = []

    def _merge_local(self, other) -> None:
        super()._merge_local(other)
        if other is not None:
            self._per_bonus.extend(other._per_bonus)
