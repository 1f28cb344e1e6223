"""``BLEUForDuReader``: the DuReader contest's BLEU with yes/no and entity bonus.

Equal to ``paddlenlp.metrics.BLEUForDuReader`` (itself the contest's
``BLEUWithBonus``): corpus-level modified n-gram precisions for n = 1..n_size
(clipped by the maximum count over the references), uniform weights and the
brevity penalty of the closest reference length (ties -> the shorter).  The
bonuses add matched n-grams to both the match and the candidate counts:

* yes/no (``yn_label`` and ``yn_ref`` given): alpha x the clipped matches of
  the candidate against the references whose label equals ``yn_label``
  (paddlenlp appends ``"_" + label`` to every n-gram, so only equal labels match);
* otherwise entity (``entity_ref`` given): beta x the clipped matches of the
  candidate against the entity strings.

Counting: the C kernel keeps a hash table of the candidate's k-grams and
streams every reference through it, so one pass per order gives the clipped
matches against all references and, for the yes/no bonus, against the
same-label references (listed first) at once.  A position whose k-gram
matched nothing is skipped for k + 1 (no longer gram can match there).

Example (paddlenlp's numbers):
    >>> from paddle_rougel import BLEUForDuReader
    >>> bleu = BLEUForDuReader()
    >>> bleu.add_inst("今天天气很好", ["今天天气不错", "天气很好"], yn_label="Yes", yn_ref=["Yes", "No"])
    >>> round(bleu.score(), 12)
    0.930604859102
"""
from __future__ import annotations

import itertools
import math
import sys
from typing import Any, List, Optional, Sequence

import numpy as np

from . import engine
from .engine import clipped_matches
from .metric import _check_instance, _check_tokens
from .state import MergeableMetric

__all__ = ["BLEUForDuReader"]

_FLUSH_AT = 4096


def _check_number(x: Any, what: str) -> float:
    try:
        v = float(x)
    except (TypeError, ValueError):
        raise TypeError(f"{what} must be a number, got {type(x).__name__}") from None
    if not math.isfinite(v):
        raise ValueError(f"{what} must be finite, got {x!r}")
    return v


def check_bonus_args(cand, ref_list, yn_label, yn_ref, entity_ref, index: int):
    """Validate the bonus arguments of one instance (shared with RougeLForDuReader).

    Returns ``(yn_ref tuple or None, entity tuple or None)`` as they will be used:
    yn_ref only when yn_label is given too (paddlenlp ignores it otherwise),
    entity_ref only when the yes/no bonus does not apply.
    """
    if yn_label is not None and yn_ref is not None:
        if isinstance(yn_ref, (str, bytes)):
            raise TypeError(f"instance {index}: yn_ref must be a list of labels, one per reference, "
                            f"got a bare {type(yn_ref).__name__}")
        yn_ref = tuple(yn_ref)
        if len(yn_ref) != len(ref_list):
            raise ValueError(f"instance {index}: yn_ref has {len(yn_ref)} labels but ref_list has "
                             f"{len(ref_list)} references (need one label per reference)")
        return yn_ref, None
    if entity_ref is not None:
        if isinstance(entity_ref, (str, bytes)):
            raise TypeError(f"instance {index}: entity_ref must be a collection of entities, "
                            f"got a bare {type(entity_ref).__name__} (wrap it as [entity])")
        ents = list(entity_ref)
        for j, e in enumerate(ents):
            if e is None:
                raise TypeError(f"instance {index}, entity {j}: got None")
            if not isinstance(e, str):
                ents[j] = _check_tokens(e, f"instance {index}, entity {j}")
            if isinstance(cand, str) and not isinstance(e, str):
                raise TypeError(f"instance {index}, entity {j}: the candidate is a str, so "
                                f"entities must be str too (got {type(e).__name__})")
        return None, tuple(ents)
    return None, None


def plain_strings(cands: Sequence, ref_lists: Sequence) -> bool:
    """True when every candidate is a str and every ref_list a non-empty list of
    str: the common case, checked at C speed so batches skip per-instance checks."""
    return (set(map(type, cands)) <= {str} and set(map(type, ref_lists)) <= {list, tuple}
            and all(ref_lists) and set(map(type, itertools.chain.from_iterable(ref_lists))) <= {str})


def check_batch(cands: Sequence, ref_lists: Sequence, yn_labels: Optional[Sequence],
                yn_refs: Optional[Sequence], entity_refs: Optional[Sequence], base: int) -> List[tuple]:
    """Validate a batch of DuReader instances, all before any is counted.

    Returns one ``(cand, ref_list, yn_label, yn_ref, entities)`` per instance as
    ``add_inst`` would keep it: iterators materialised, ``yn_ref`` / ``entities``
    checked and None where that bonus does not apply.  Errors name the
    instance as ``base + i``.
    """
    n = len(cands)
    for what, xs in (("ref_lists", ref_lists), ("yn_labels", yn_labels),
                     ("yn_refs", yn_refs), ("entity_refs", entity_refs)):
        if xs is not None and len(xs) != n:
            raise ValueError(f"add_batch: got {n} candidates but {len(xs)} {what}")
    checked = plain_strings(cands, ref_lists)
    nones = itertools.repeat(None)
    out = []
    for i, (cand, refs, yl, yr, er) in enumerate(zip(
            cands, ref_lists, yn_labels if yn_labels is not None else nones,
            yn_refs if yn_refs is not None else nones, entity_refs if entity_refs is not None else nones)):
        if not checked:
            cand, refs = _check_instance(cand, refs, base + i)  # iterators materialised
        if (yl is not None and yr is not None) or er is not None:
            yr, er = check_bonus_args(cand, refs, yl, yr, er, base + i)
        else:
            yr = None
        out.append((cand, refs, yl, yr, er))
    return out


# ----------------------------------------------------------------- metric

class BLEUForDuReader(MergeableMetric):
    """BLEU-n with the DuReader yes/no and entity bonus (``paddlenlp.metrics.BLEUForDuReader``).

    Args:
        n_size: the largest n-gram order (BLEU-n_size, uniform weights). Default 4.
            (paddlenlp's ``BLEUForDuReader`` always uses 4: its ``__init__``
            passes n_size positionally into ``trans_func``.)
        alpha: weight of the yes/no bonus. Default 1.0.
        beta: weight of the entity bonus. Default 1.0.
        name: metric name. Default ``"bleu"``.
        sync_dist: all-reduce the counts over ``paddle.distributed`` in ``score()``.

    ``score()`` is a float, as paddlenlp's (0.0 when no candidate token was
    seen, where paddlenlp divides by zero).  State: per-order match and
    candidate n-gram counts and the brevity-penalty lengths, float64 sums, so
    ``merge`` / ``state_dict`` give exactly the single-run figures.
    """

    def __init__(self, n_size: int = 4, alpha: float = 1.0, beta: float = 1.0,
                 name: str = "bleu", sync_dist: bool = False):
        super().__init__(sync_dist=sync_dist)
        if isinstance(n_size, bool) or not isinstance(n_size, (int, np.integer)) or n_size < 1:
            raise ValueError(f"n_size must be a positive int, got {n_size!r}")
        self.n_size = int(n_size)
        self.alpha = _check_number(alpha, "alpha")
        self.beta = _check_number(beta, "beta")
        self.weights = [1 / self.n_size for _ in range(self.n_size)]
        self._name = name
        self.add_state("match_ngram", np.zeros(self.n_size), "sum")
        self.add_state("candi_ngram", np.zeros(self.n_size), "sum")
        self.add_state("bp_c", 0.0, "sum")
        self.add_state("bp_r", 0.0, "sum")
        self.add_state("count", 0, "sum")
        self._pending: List[tuple] = []

    # ----------------------------------------------------------- adding data
    def add_inst(self, cand: Any, ref_list: Sequence, yn_label: Any = None,
                 yn_ref: Optional[Sequence] = None, entity_ref: Any = None) -> None:
        """Add one candidate with its references and optional bonus information.

        Args:
            cand: the candidate (str: characters are tokens; or a token sequence).
            ref_list: non-empty list of references.
            yn_label: the candidate's yes/no label (e.g. ``"Yes"``).
            yn_ref: one label per reference; with ``yn_label``, selects the yes/no bonus.
            entity_ref: entities (strings) for the entity bonus (used when the
                yes/no bonus does not apply).
        """
        index = int(self.count) + len(self._pending)
        cand, ref_list = _check_instance(cand, ref_list, index)  # iterators materialised
        yn_ref, ents = check_bonus_args(cand, ref_list, yn_label, yn_ref, entity_ref, index)
        self._pending.append((cand, ref_list, yn_label, yn_ref, ents))
        if len(self._pending) >= _FLUSH_AT:
            self._flush()

    def add_batch(self, cands: Sequence, ref_lists: Sequence, yn_labels: Optional[Sequence] = None,
                  yn_refs: Optional[Sequence] = None, entity_refs: Optional[Sequence] = None) -> None:
        """Add many instances at once (the fast path; same result as add_inst in a loop).

        The optional lists hold one item (or None) per instance.  All
        instances are validated before any is counted.

        >>> m = BLEUForDuReader(n_size=2)
        >>> m.add_batch(["ab", "cd"], [["ab"], ["cx", "d"]])
        >>> round(m.score(), 6)
        0.707107
        """
        items = check_batch(cands, ref_lists, yn_labels, yn_refs, entity_refs,
                            int(self.count) + len(self._pending))
        self._flush()
        self._count(items)

    def _flush(self) -> None:
        if self._pending:
            items, self._pending = self._pending, []
            self._count(items)

    def _count(self, items: List[tuple]) -> None:
        if not items:
            return
        n = self.n_size
        cands = [it[0] for it in items]
        refs = [it[1] for it in items]
        # one pass for the plain counts and the yes/no bonus: each instance's
        # references reordered with the same-label ones first (a max does not
        # care about order), the bonus is the max over that prefix only
        srcs, npre, e_idx, e_srcs = [], [], [], []
        for i, (cand, rl, yl, yr, ents) in enumerate(items):
            if yr is not None:  # only references with the same label can match
                same = [not (yl != lab) for lab in yr]
                srcs.append([r for r, s in zip(rl, same) if s] + [r for r, s in zip(rl, same) if not s])
                npre.append(sum(same))
            else:
                srcs.append(rl)
                npre.append(0)
                if ents is not None:
                    e_idx.append(i)
                    e_srcs.append(list(ents))
        base, yn = clipped_matches(cands, srcs, n, prefix=npre)
        weight = np.fromiter((self.alpha if it[3] is not None else 0.0 for it in items),
                             dtype=np.float64, count=len(items))
        bonus = yn * weight[:, None]
        if e_idx:  # the entity bonus: a second, small pass over (candidate, entities)
            bonus[e_idx] = clipped_matches([cands[i] for i in e_idx], e_srcs, n) * self.beta
        clen = np.fromiter(map(len, cands), dtype=np.int64, count=len(cands))
        ks = np.arange(1, n + 1)
        cand_size = np.maximum(clen[:, None] - ks[None, :] + 1, 0).astype(np.float64)
        match = base.sum(axis=0)
        candi = cand_size.sum(axis=0)
        bonus = bonus.sum(axis=0)
        match = match + bonus
        candi = candi + bonus
        # brevity penalty: the reference length closest to the candidate's (ties -> shorter)
        bp_r = 0
        for c, rl in zip(clen.tolist(), refs):
            bp_r += min([(abs(c - len(r)), len(r)) for r in rl])[1]
        self.match_ngram = self.match_ngram + match
        self.candi_ngram = self.candi_ngram + candi
        self.bp_c = self.bp_c + float(clen.sum())
        self.bp_r = self.bp_r + float(bp_r)
        self.count = self.count + len(items)

    # --------------------------------------------------------------- results
    def accumulate(self) -> float:
        """BLEU-n_size over everything added (paddlenlp's formula and operation order)."""
        st = self._synced_states()
        match, candi = st["match_ngram"].tolist(), st["candi_ngram"].tolist()
        bp_c, bp_r = float(st["bp_c"]), float(st["bp_r"])
        if bp_c == 0:  # no candidate token at all (paddlenlp: ZeroDivisionError)
            return 0.0
        prob_list = []
        for k in range(self.n_size):
            p = 0.0 if candi[k] == 0 else match[k] / float(candi[k])
            prob_list.append(sys.float_info.min if p == 0 else p)
        logs = math.fsum(w * math.log(p) for w, p in zip(self.weights, prob_list))
        bp = math.exp(min(1 - bp_r / bp_c, 0))
        return bp * math.exp(logs)

    def score(self) -> float:
        """Same as ``accumulate()``."""
        return self.accumulate()

    def reset(self) -> None:
        self._reset_states()
        self._pending = []

    def name(self) -> str:
        return self._name

    def update(self, *args, **kwargs):
        raise NotImplementedError("BLEUForDuReader takes text: use add_inst or add_batch")

    # ----------------------------------------------------- state/merge hooks
    def _config(self) -> dict:
        return {"n_size": self.n_size, "alpha": self.alpha, "beta": self.beta}

    def _clear_local(self) -> None:
        self._pending = []
