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


def _check_instance(cand: Any, ref_list: Any, index: int) -> tuple:
    """Structural checks done eagerly, so a bad call leaves the state unchanged.

    Returns ``(cand, ref_list)`` with one-shot iterables materialised, since
    they are buffered and read again at the next flush."""
    if cand is None:
        raise TypeError(f"instance {index}: candidate is None")
    if ref_list is None or isinstance(ref_list, (str, bytes)):
        got = "None" if ref_list is None else f"a bare {type(ref_list).__name__}"
        raise TypeError(
            f"instance {index}: ref_list must be a list of references, got {got} "
            "(wrap a single reference as [ref])"
        )
    try:  # a copy: the caller's list is never modified, iterators are materialised
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
            ref_list[j] = _check_tokens(ref, f"instance {index}, reference {j}")
    if not isinstance(cand, str):
        cand = _check_tokens(cand, f"instance {index}, candidate")
    return cand, ref_list


def _check_tokens(seq: Any, where: str) -> Any:
    """Check every token is hashable; return seq, or a tuple of it if it was a one-shot iterator."""
    try:
        toks = tuple(seq)
        hash(toks)  # one C-level pass: every token must be hashable
    except TypeError as e:
        raise TypeError(f"{where}: expected a str or a sequence of hashable tokens ({e})") from None
    return seq if isinstance(seq, (list, tuple, np.ndarray)) else toks


def _opt_id(v: Any, what: str) -> Optional[int]:
    if v is None:
        return None
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)):
        raise TypeError(f"{what} must be an int or None, got {type(v).__name__}")
    return int(v)


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
            ``accumulate()`` (see the README, "Distributed evaluation").  Leave
            it off under hapi ``Model`` on several ranks: hapi all-gathers the
            outputs before ``compute``, so every rank already sees every instance.
        pad_id: device path: pad tokens are dropped from both sides.
        eos_id: device path: each side ends at its first eos (excluded).
        paddlenlp_compat: device path: reproduce paddlenlp's
            ``default_trans_func`` conversion exactly (logits multiplied by
            ``seq_mask`` before argmax; only the ``seq_mask`` cut, so ``pad_id``
            and ``eos_id`` must be None).  Scores equal paddlenlp's
            ``RougeL(vocab=...).update`` (see ``update``).

    Device path (no ``trans_func``): ``compute(output, label, seq_mask=None)``
    runs the conversion (:mod:`paddle_rougel.convert`) and the Paddle-op LCS
    (:mod:`paddle_rougel.device`) on the inputs' place and returns one int64
    tensor [B, 3] of (lcs, cand_len, ref_len); ``update`` with that single
    array only folds it into the state.  The model output is the candidate,
    the label the reference.
    """

    def __init__(
        self,
        trans_func: Optional[Callable] = None,
        vocab: Any = None,
        gamma: float = 1.2,
        name: str = "rouge-l",
        multi_ref: str = "max_pr",
        sync_dist: bool = False,
        pad_id: Optional[int] = None,
        eos_id: Optional[int] = None,
        paddlenlp_compat: bool = False,
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
        self.pad_id = _opt_id(pad_id, "pad_id")
        self.eos_id = _opt_id(eos_id, "eos_id")
        self.paddlenlp_compat = bool(paddlenlp_compat)
        if self.paddlenlp_compat and (self.pad_id is not None or self.eos_id is not None):
            raise ValueError("paddlenlp_compat=True reproduces paddlenlp's conversion, which has "
                             "no pad_id / eos_id: leave them None")
        self._canon_cache: tuple = (None, None, {})  # (vocab, numpy table, {place: tensor})
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
        cand, ref_list = _check_instance(cand, ref_list, self._n_seen())
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
    def compute(self, output, label, seq_mask=None, *extra):
        """hapi step 1, on the inputs' place: the per-instance LCS figures.

        ``output``: logits [B, T, V] or ids [B, T]; ``label``: ids [B, T] or
        [B, T, 1]; ``seq_mask``: optional [B, T].  Returns ``[packed]`` with
        ``packed`` an int64 tensor [B, 3] of (lcs, cand_len, ref_len), which
        hapi turns into numpy and hands to ``update``.  With ``trans_func``
        the inputs are passed through unchanged (``update`` converts them).
        """
        if extra:
            raise TypeError(f"compute(output, label, seq_mask=None) got {3 + len(extra)} arguments: "
                            "the network must return one output (logits or ids)")
        if self.trans_func is not None:
            return [output, label] + ([] if seq_mask is None else [seq_mask])
        import paddle

        from . import convert, device

        with paddle.no_grad():
            place = output.place if isinstance(output, paddle.Tensor) else None
            cand, cv, ref, rv = convert.prepare(
                output, label, seq_mask, pad_id=self.pad_id, eos_id=self.eos_id,
                canon=self._canon(place), mask_logits=self.paddlenlp_compat)
            lcs = device.lcs_masked(cand, cv, ref, rv)
            return [paddle.stack([lcs, cv.astype("int64").sum(axis=1),
                                  rv.astype("int64").sum(axis=1)], axis=1)]

    def update(self, output, label=None, seq_mask=None):
        """Accumulate a batch.  Two call patterns, told apart by arity:

        * hapi: ``update(packed)``, one argument, the [B, 3] integer array of
          ``compute`` (lcs, cand_len, ref_len): folded into the state only;
        * paddlenlp: ``update(output, label[, seq_mask])`` with raw network
          output (numpy or tensors): with ``trans_func``,
          ``cand_list, ref_lists = trans_func(output, label, seq_mask)`` scored
          by the host engine (as paddlenlp); otherwise ``compute`` then fold,
          so both patterns give the same score.

        Unlike paddlenlp, no ``vocab`` is needed: without one, token ids are
        the tokens (paddlenlp raises instead).
        """
        if label is None:
            if seq_mask is not None:
                raise TypeError("update(): seq_mask given without label")
            return self._fold_packed(output)
        if self.trans_func is None:
            return self._fold_packed(self.compute(output, label, seq_mask)[0])
        cand_list, ref_lists = self.trans_func(output, label, seq_mask)
        if len(cand_list) != len(ref_lists):
            raise ValueError(f"trans_func returned {len(cand_list)} candidates but "
                             f"{len(ref_lists)} reference lists")
        self.add_batch(cand_list, ref_lists)

    def _fold_packed(self, packed) -> scoring.Score:
        from .convert import check_packed

        arr = check_packed(packed)
        self._flush()
        p, r = scoring.precision_recall(arr[:, 0], arr[:, 1], arr[:, 2])
        return self._fold(scoring.Score(p, r, self._f(p, r)))

    def _canon(self, place):
        """The vocab's canonical-id table as a tensor on ``place`` (built once per vocab)."""
        if self.vocab is None:
            return None
        import paddle

        from .convert import vocab_table

        vocab, table, per_place = self._canon_cache
        if vocab is not self.vocab:
            table, per_place = vocab_table(self.vocab), {}
            self._canon_cache = (self.vocab, table, per_place)
        key = str(place)
        if key not in per_place:
            per_place[key] = paddle.to_tensor(table, place=place)
        return per_place[key]

    # ----------------------------------------------------- state/merge hooks
    def _config(self) -> dict:
        return {"gamma": self.gamma, "multi_ref": self.multi_ref, "pad_id": self.pad_id,
                "eos_id": self.eos_id, "paddlenlp_compat": self.paddlenlp_compat}

    def _clear_local(self) -> None:
        self._pending_cands, self._pending_refs, self._pending_extra = [], [], []
        self._per_inst = []

    def _merge_local(self, other) -> None:
        # a state dict carries only the sums, not per-instance figures
        if other is not None:
            self._per_inst.extend(other._per_inst)

