"""``RougeL``: a ``paddle.metric.Metric`` drop-in for ``paddlenlp.metrics.RougeL``.

The score is the mean over instances of the gamma-weighted F of each
candidate against its references.  Instances given one by one with
``add_inst`` are buffered and scored in batches by the host engine, so a
plain Python loop over ``add_inst`` pays one kernel call per few thousand
instances, not one per instance.

Example (the numbers of paddlenlp's own docstring):
    >>> from paddle_rougel import RougeL
    >>> rougel = RougeL()
    >>> cand = ["The","cat","The","cat","on","the","mat"]
    >>> ref_list = [["The","cat","is","on","the","mat"], ["There","is","a","cat","on","the","mat"]]
    >>> rougel.add_inst(cand, ref_list)
    >>> print(rougel.score())
    0.7800511508951408
"""
from __future__ import annotations

from typing import Any, Callable, List, Optional, Sequence

import numpy as np

from . import engine, scoring
from .state import MergeableMetric

__all__ = ["RougeL"]

_FLUSH_AT = 4096  # buffered add_inst instances per engine call


def _check_instance(cand: Any, ref_list: Any, index: int) -> None:
    """Structural checks done eagerly, so a bad call leaves the state unchanged."""
    if cand is None:
        raise TypeError(f"instance {index}: candidate is None")
    if ref_list is None or isinstance(ref_list, (str, bytes)):
        got = "None" if ref_list is None else f"a bare {type(ref_list).__name__}"
        raise TypeError(
            f"instance {index}: ref_list must be a list of references, got {got} "
            "(wrap a single reference as [ref])"
        )
    if not isinstance(ref_list, (list, tuple)):
        try:
            ref_list = list(ref_list)
        except TypeError:
            raise TypeError(f"instance {index}: ref_list must be a list of references, "
                            f"got {type(ref_list).__name__}") from None
    if len(ref_list) == 0:
        raise ValueError(f"instance {index}: ref_list is empty (need at least one reference)")
    for j, ref in enumerate(ref_list):
        if ref is None:
            raise TypeError(f"instance {index}, reference {j}: got None")
        if not isinstance(ref, str):
            _check_tokens(ref, f"instance {index}, reference {j}")
    if not isinstance(cand, str):
        _check_tokens(cand, f"instance {index}, candidate")


def _check_tokens(seq: Any, where: str) -> None:
    try:
        hash(tuple(seq))  # one C-level pass: every token must be hashable
    except TypeError as e:
        raise TypeError(f"{where}: expected a str or a sequence of hashable tokens ({e})") from None


class RougeL(MergeableMetric):
    r"""ROUGE-L (LCS-based F-measure), averaged over instances.

    For a candidate C and reference S: P = LCS(C,S)/len(C), R = LCS(C,S)/len(S),
    F = (1 + gamma^2) P R / (R + gamma^2 P), 0 when P or R is 0.

    Args:
        trans_func: ``cand_list, ref_lists = trans_func(output, label, seq_mask)``
            turns network output into tokens for ``update`` (as paddlenlp).
        vocab: id -> token mapping for ``update`` without ``trans_func``.
        gamma: recall weight (>= 0, finite). Default 1.2 as paddlenlp; the
            same weighting as ROUGE's alpha = 1 / (1 + gamma^2).
        name: metric name reported to hapi. Default ``"rouge-l"``.
        multi_ref: how several references combine: ``"max_pr"`` (default; max P
            and max R separately, as paddlenlp and DuReader), ``"best"`` (the
            reference with the highest F, as rouge-score), ``"avg"``.
        sync_dist: all-reduce the state over ``paddle.distributed`` in
            ``accumulate()`` (see the README, "Distributed evaluation").
    """

    def __init__(
        self,
        trans_func: Optional[Callable] = None,
        vocab: Any = None,
        gamma: float = 1.2,
        name: str = "rouge-l",
        multi_ref: str = "max_pr",
        sync_dist: bool = False,
        *args,
        **kwargs,
    ):
        super().__init__(sync_dist=sync_dist)
        if multi_ref not in scoring.MULTI_REF_MODES:
            raise ValueError(f"multi_ref must be one of {scoring.MULTI_REF_MODES}, got {multi_ref!r}")
        self.gamma = scoring.check_gamma(gamma)
        self.multi_ref = multi_ref
        self.trans_func = trans_func
        self.vocab = vocab
        self._name = name
        self.add_state("f_sum", 0.0, "sum")
        self.add_state("p_sum", 0.0, "sum")
        self.add_state("r_sum", 0.0, "sum")
        self.add_state("count", 0, "sum")
        self._pending_cands: List[Any] = []
        self._pending_refs: List[Any] = []
        self._pending_extra: List[Any] = []  # per-instance extras for subclasses (None here)
        self._per_inst: List[scoring.Score] = []

    # ----------------------------------------------------------- adding data
    def add_inst(self, cand: Any, ref_list: Sequence) -> None:
        """Add one candidate scored against its list of references.

        Args:
            cand: the candidate: a str (characters are tokens) or a sequence of tokens.
            ref_list: a non-empty list of references of the same kind.
        """
        _check_instance(cand, ref_list, self._n_seen())
        self._pending_cands.append(cand)
        self._pending_refs.append(ref_list)
        self._pending_extra.append(None)
        if len(self._pending_cands) >= _FLUSH_AT:
            self._flush()

    def add_batch(self, cands: Sequence, ref_lists: Sequence) -> scoring.Score:
        """Score many instances in one engine call; returns their per-instance Score.

        >>> m = RougeL(gamma=1.0)
        >>> s = m.add_batch(["abcd", "xy"], [["abce"], ["xy", "yx"]])
        >>> [round(float(v), 4) for v in s.fmeasure], round(m.score(), 4)
        ([0.75, 1.0], 0.875)
        """
        if len(cands) != len(ref_lists):
            raise ValueError(f"add_batch: got {len(cands)} candidates but {len(ref_lists)} reference lists")
        self._flush()
        res = engine.lcs_batch(cands, ref_lists)  # validates; errors name the index in this batch
        return self._fold(self._score_lcs(res, cands, ref_lists, [None] * len(cands)))

    def _n_seen(self) -> int:
        return int(self.count) + len(self._pending_cands)

    def _score_lcs(self, res: engine.LcsResult, cands, ref_lists, extras) -> scoring.Score:
        """Per-instance Score from engine output; ``extras[i]`` is what the
        subclass buffered beside instance i (subclasses add bonuses here)."""
        p, r = scoring.precision_recall(res.lcs, np.repeat(res.cand_len, res.ref_count), res.ref_len)
        pi, ri, fi = scoring.reduce_refs(p, r, res.offsets, self.multi_ref, self._f)
        return scoring.Score(pi, ri, fi)

    def _f(self, p, r):
        return scoring.f_gamma(p, r, self.gamma)

    def _fold(self, s: scoring.Score) -> scoring.Score:
        if len(s.fmeasure):
            self.f_sum = self.f_sum + np.sum(s.fmeasure)
            self.p_sum = self.p_sum + np.sum(s.precision)
            self.r_sum = self.r_sum + np.sum(s.recall)
            self.count = self.count + len(s.fmeasure)
            self._per_inst.append(s)
        return s

    def _flush(self) -> None:
        if not self._pending_cands:
            return
        cands, refs, extras = self._pending_cands, self._pending_refs, self._pending_extra
        res = engine.lcs_batch(cands, refs)  # validated in add_inst: cannot raise on structure
        self._pending_cands, self._pending_refs, self._pending_extra = [], [], []
        self._fold(self._score_lcs(res, cands, refs, extras))

    # --------------------------------------------------------------- results
    def accumulate(self) -> float:
        """Mean per-instance F over everything added (0.0 when nothing was added)."""
        st = self._synced_states()
        n = int(st["count"])
        return float(st["f_sum"] / n) if n else 0.0

    def score(self) -> float:
        """Same as ``accumulate()`` (paddlenlp's name)."""
        return self.accumulate()

    def scores(self) -> scoring.Score:
        """Macro-averaged precision, recall and F (metrax's figures), as floats."""
        st = self._synced_states()
        n = int(st["count"])
        if not n:
            return scoring.Score(0.0, 0.0, 0.0)
        return scoring.Score(float(st["p_sum"] / n), float(st["r_sum"] / n), float(st["f_sum"] / n))

    def per_instance(self) -> scoring.Score:
        """Per-instance P, R, F (float64 arrays, in the order added) on this process."""
        self._flush()
        if not self._per_inst:
            z = np.zeros(0, dtype=np.float64)
            return scoring.Score(z, z.copy(), z.copy())
        return scoring.Score(*(np.concatenate(parts) for parts in zip(*self._per_inst)))

    def reset(self) -> None:
        """Forget every instance."""
        self._reset_states()
        self._pending_cands, self._pending_refs, self._pending_extra = [], [], []
        self._per_inst = []

    def name(self) -> str:
        return self._name

    def lcs(self, string: Any, sub: Any) -> float:
        """LCS length of two sequences, as a float (paddlenlp compatibility)."""
        return float(engine.lcs_length(string, sub))

    # ------------------------------------------------------- paddle.metric API
    def update(self, output, label, seq_mask=None):
        """Accumulate a batch of network output (paddlenlp call pattern).

        With ``trans_func``: ``cand_list, ref_lists = trans_func(output, label, seq_mask)``.
        """
        if self.trans_func is None:
            raise AttributeError("update() needs trans_func (or see the device path)")
        cand_list, ref_lists = self.trans_func(output, label, seq_mask)
        if len(cand_list) != len(ref_lists):
            raise ValueError(f"trans_func returned {len(cand_list)} candidates but "
                             f"{len(ref_lists)} reference lists")
        self.add_batch(cand_list, ref_lists)

    # ----------------------------------------------------- state/merge hooks
    def _config(self) -> dict:
        return {"gamma": self.gamma, "multi_ref": self.multi_ref}

    def _clear_local(self) -> None:
        self._pending_cands, self._pending_refs, self._pending_extra = [], [], []
        self._per_inst = []

    def _merge_local(self, other) -> None:
        # a state dict carries only the sums, not per-instance figures
        if other is not None:
            self._per_inst.extend(other._per_inst)

