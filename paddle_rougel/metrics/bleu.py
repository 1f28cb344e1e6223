"""``BLEUForDuReader``: the DuReader contest's BLEU with yes/no and entity bonus.

Equal to ``paddlenlp.metrics.BLEUForDuReader`` (itself the contest's
``BLEUWithBonus``): corpus-level modified n-gram precisions for n = 1..n_size
(clipped by the maximum count over the references), uniform weights and the
brevity penalty of the closest reference length (ties -> the shorter).  The
bonuses add matched n-grams to both the match and the candidate counts:

* yes/no (``yn_label`` and ``yn_ref`` given): ``yesno_weight`` x the clipped matches of
  the candidate against the references whose label equals ``yn_label``
  (paddlenlp appends ``"_" + label`` to every n-gram, so only equal labels match);
* otherwise entity (``entity_ref`` given): ``entity_weight`` x the clipped matches of the
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

import math
import operator
import sys
from dataclasses import dataclass, field
from typing import Any, Optional, Sequence, Tuple

import numpy as np

from ..engine import host as engine
from ..core import invariants
from .accumulators import Accumulator, SyncFn, check_sum
from ..engine.inputs import Batch
from .metric import PaddleMetric, reject_unknown
from ..core.settings import MAX_N_SIZE, SettingsError, BaseSettings, check_weight, keywords_checked, text_of
from ..core.text import TextSettings
from .bonus import DEFAULT_WEIGHT, BonusInstances, bonus_weights, deprecated_alias
from .spec import MetricSpec

__all__ = ["BleuSettings", "BleuAccumulator", "BLEUForDuReader", "bleu_of_sums", "bleu_columns", "bleu_statistic",
           "SPEC"]


@dataclass(frozen=True)
class BleuSettings(BaseSettings):
    """BLEU-n_size with the DuReader yes/no and entity bonus weights."""

    n_size: int = 4
    yesno_weight: float = 1.0
    entity_weight: float = 1.0
    text: TextSettings = field(default_factory=TextSettings)
    _LEGACY = {"alpha": "yesno_weight", "beta": "entity_weight"}

    def __post_init__(self):
        self._check_text()
        n = self.n_size
        if isinstance(n, (bool, np.bool_)) or not isinstance(n, (int, np.integer)) \
                or not 1 <= n <= MAX_N_SIZE:
            raise SettingsError(f"n_size must be an int from 1 to {MAX_N_SIZE}, got {n!r}")
        self._set("n_size", int(n))
        self._set("yesno_weight", check_weight(self.yesno_weight, "yesno_weight (alpha)"))
        self._set("entity_weight", check_weight(self.entity_weight, "entity_weight (beta)"))

    def signature(self) -> str:
        return (f"n:{self.n_size}|{self.text.signature()}|"
                f"bonus:yn{self.yesno_weight},ent{self.entity_weight}")


def bleu_from_options(values: dict) -> BleuSettings:
    """The contest's BLEU settings of option values (``n_size`` 4 unless given)."""
    bonus = {k: values[k] for k in ("yesno_weight", "entity_weight") if k in values}
    return BleuSettings(n_size=values.get("n_size", 4), text=text_of(values), **bonus)


def bleu_of_sums(sums: np.ndarray, n_size: int) -> np.ndarray:
    """Corpus BLEU-n_size of each row of sums ``[R, 2 n + 2]`` (matches 1..n, candidate
    n-grams 1..n, bp_c, bp_r): the one formula of the score and of the bootstrap.

    paddlenlp's formula and operation order: precisions and the brevity-penalty ratio
    vectorised, then ``math.log`` / ``math.fsum`` / ``math.exp`` per row (numpy's SIMD log
    may differ from libm in the last bit, and ``fsum`` has no vectorised equivalent); a
    precision of 0 is floored at the smallest float (paddlenlp's floor, not the
    contest's 0); 0.0 for a row with no candidate token.

    >>> s = bleu_of_sums(np.array([[2.0, 1.0, 3.0, 2.0, 3.0, 4.0]]), 2)
    >>> float(s[0]) == math.exp(1 - 4 / 3) * math.sqrt(2 / 3 * 1 / 2)
    True
    """
    n = operator.index(n_size)
    if n < 1:
        raise ValueError("n_size must be >= 1")
    w = 1 / n
    sums = np.asarray(sums, dtype=np.float64)
    if sums.ndim != 2 or sums.shape[1] != 2 * n + 2:
        raise ValueError(f"BLEU-{n} needs sums [R, {2 * n + 2}], got {sums.shape}")
    match, candi = sums[:, :n], sums[:, n:2 * n]
    with np.errstate(divide="ignore", invalid="ignore"):
        p = np.where(candi == 0, 0.0, match / np.where(candi == 0, 1.0, candi))
    p = np.where(p == 0, sys.float_info.min, p).tolist()  # paddlenlp's floor
    out = np.zeros(len(sums))
    for r, (row, c, ref) in enumerate(zip(p, sums[:, 2 * n].tolist(), sums[:, 2 * n + 1].tolist())):
        if c != 0:
            out[r] = math.exp(min(1 - ref / c, 0)) * math.exp(math.fsum(w * math.log(q) for q in row))
    return out


# ------------------------------------------------------------- accumulator

def bleu_columns(match, candi, bp_c, bp_r) -> np.ndarray:
    """Per-instance BLEU statistics as columns ``[N, 2n + 2]``: matches 1..n, candidate n-grams 1..n, bp_c, bp_r.

    ``match`` and ``candi`` are ``[N, n]`` (clipped matches and candidate
    n-gram counts per order, bonuses included), ``bp_c`` and ``bp_r`` ``[N]``
    (candidate length, closest reference length): the per-instance terms whose
    sums are :class:`~paddle_rougel.accumulators.BleuAccumulator`'s fields.

    >>> bleu_columns([[2, 1]], [[3, 2]], [3], [4]).tolist()
    [[2.0, 1.0, 3.0, 2.0, 3.0, 4.0]]
    """
    match, candi = np.asarray(match, dtype=np.float64), np.asarray(candi, dtype=np.float64)
    bp_c, bp_r = np.asarray(bp_c, dtype=np.float64), np.asarray(bp_r, dtype=np.float64)
    if match.ndim != 2 or candi.shape != match.shape or bp_c.shape != bp_r.shape or bp_c.shape != match.shape[:1]:
        raise ValueError(f"bleu_columns: match {match.shape} and candi {candi.shape} must be [N, n], "
                         f"bp_c {bp_c.shape} and bp_r {bp_r.shape} [N]")
    return np.concatenate([match, candi, bp_c[:, None], bp_r[:, None]], axis=1)


def bleu_statistic(n_size: int = 4) -> Callable[[np.ndarray, int], np.ndarray]:
    """Corpus BLEU-n_size of each row of sums ``[R, 2 n + 2]`` (the layout of :func:`bleu_columns`).

    :func:`paddle_rougel.metrics.bleu.bleu_of_sums`, the formula of
    :meth:`BleuAccumulator.score <paddle_rougel.metrics.bleu.BleuAccumulator.score>`, on each row.

    >>> s = bleu_statistic(2)(np.array([[2.0, 1.0, 3.0, 2.0, 3.0, 4.0]]), 1)
    >>> float(s[0]) == math.exp(1 - 4 / 3) * math.sqrt(2 / 3 * 1 / 2)
    True
    """
    n = operator.index(n_size)
    if n < 1:
        raise ValueError("n_size must be >= 1")

    def statistic(sums: np.ndarray, count: int) -> np.ndarray:
        return bleu_of_sums(sums, n)

    return statistic


class BleuAccumulator(Accumulator):
    """Corpus BLEU with the DuReader bonus: clipped n-gram matches, candidate n-grams, lengths."""

    def _declare(self) -> None:
        n = self.settings.n_size
        self._field("match_ngram", np.zeros(n))
        self._field("candi_ngram", np.zeros(n))
        self._field("bp_c", 0.0)
        self._field("bp_r", 0.0)
        self._field("count", 0)

    def _check_range(self, values, when) -> None:
        super()._check_range(values, when)
        if np.any(values["match_ngram"] > values["candi_ngram"] * (1 + 1e-9) + 1e-9):
            raise ValueError(f"state field 'match_ngram' {when} exceeds 'candi_ngram' "
                             "(matches are at most the candidate n-grams)")
        bad = invariants.bleu_violation(self.settings, values["match_ngram"], values["candi_ngram"],
                                        values["bp_c"], values["bp_r"], values["count"])
        if bad is not None:
            raise ValueError(f"state fields 'match_ngram', 'candi_ngram', 'bp_c', 'bp_r', 'count' {when}: "
                             f"{bad[1]}")

    def _score(self, batch: Batch):
        n, st = self.settings.n_size, self.settings
        cands, refs = batch.cands, batch.ref_lists
        # one pass for the plain counts and the yes/no bonus: the same-label
        # references first (a max ignores order), the bonus is the max over that prefix
        srcs, npre, e_idx = [], [], []
        yn = batch.yn_match or (None,) * len(cands)
        ents = batch.entities or (None,) * len(cands)
        for i, (rl, same) in enumerate(zip(refs, yn)):
            if same is not None:
                srcs.append([r for r, s in zip(rl, same) if s] + [r for r, s in zip(rl, same) if not s])
                npre.append(sum(same))
            else:
                srcs.append(rl)
                npre.append(0)
                if ents[i] is not None:
                    e_idx.append(i)
        base, yn_m = engine.clipped_matches(cands, srcs, n, prefix=npre)
        weight = np.array([st.yesno_weight if s is not None else 0.0 for s in yn], dtype=np.float64)
        bonus = yn_m * weight[:, None]
        if e_idx:  # the entity bonus: a second, small pass over (candidate, entities)
            bonus[e_idx] = engine.clipped_matches([cands[i] for i in e_idx],
                                                  [list(ents[i]) for i in e_idx], n) * st.entity_weight
        clen = np.fromiter(map(len, cands), dtype=np.int64, count=len(cands))
        ks = np.arange(1, n + 1)
        cand_size = np.maximum(clen[:, None] - ks[None, :] + 1, 0).astype(np.float64)
        bsum = bonus.sum(axis=0)
        # brevity penalty: the reference length closest to the candidate's (ties -> shorter)
        bp_r = [min((abs(c - len(r)), len(r)) for r in rl)[1] for c, rl in zip(clen.tolist(), refs)]
        rows = None
        if self.keep_instances:  # per instance: matches, candidate n-grams (bonus in both), lengths
            rows = np.concatenate([base + bonus, cand_size + bonus, clen[:, None],
                                   np.array(bp_r, dtype=np.float64)[:, None]], axis=1)
        return {"match_ngram": base.sum(axis=0) + bsum, "candi_ngram": cand_size.sum(axis=0) + bsum,
                "bp_c": float(clen.sum()), "bp_r": float(sum(bp_r)), "count": np.int64(len(cands))}, rows

    @property
    def columns(self) -> Tuple[str, ...]:
        n = self.settings.n_size
        return tuple(f"match_{k}" for k in range(1, n + 1)) + \
            tuple(f"candi_{k}" for k in range(1, n + 1)) + ("bp_c", "bp_r")

    def _columns_of(self, local) -> Optional[np.ndarray]:
        return local

    def _local_of(self, cols: np.ndarray) -> np.ndarray:
        return cols

    def statistic(self):
        from ..stats import intervals as stats

        return bleu_statistic(self.settings.n_size)

    def _check_instances(self, values, cols) -> None:
        n = self.settings.n_size
        for j in range(n):
            check_sum(cols[:, j], values["match_ngram"][j], f"match_ngram[{j}]")
            check_sum(cols[:, n + j], values["candi_ngram"][j], f"candi_ngram[{j}]")
        check_sum(cols[:, 2 * n], values["bp_c"], "bp_c")
        check_sum(cols[:, 2 * n + 1], values["bp_r"], "bp_r")
        if np.any(cols[:, :n] > cols[:, n:2 * n] * (1 + 1e-9) + 1e-9):
            raise ValueError("state 'instances': matches are at most the candidate n-grams")
        bad = invariants.bleu_violation(self.settings, cols[:, :n], cols[:, n:2 * n], cols[:, 2 * n],
                                        cols[:, 2 * n + 1], np.ones(len(cols)))
        if bad is not None:
            raise ValueError(f"state 'instances' row {bad[0]}: {bad[1]}")

    def score(self, sync: Optional[SyncFn] = None) -> float:
        """BLEU-n_size (paddlenlp's formula and operation order; 0.0 with no candidate token)."""
        v = self.values(sync)
        row = np.concatenate([v["match_ngram"], v["candi_ngram"], [v["bp_c"], v["bp_r"]]])
        return float(bleu_of_sums(row[None, :], self.settings.n_size)[0])


# ------------------------------------------------------------ paddle metric

class BLEUForDuReader(BonusInstances, PaddleMetric):
    """BLEU-n with the DuReader yes/no and entity bonus (``paddlenlp.metrics.BLEUForDuReader``).

    Args:
        n_size: the largest n-gram order (BLEU-n_size, uniform weights), 1 to 32. Default 4.
            (paddlenlp's ``BLEUForDuReader`` always uses 4: its ``__init__``
            passes n_size positionally into ``trans_func``.)
        yesno_weight: weight of the yes/no bonus. Default 1.0 (paddlenlp's ``alpha=``, still
            taken with a DeprecationWarning; positional arguments are unchanged).
        entity_weight: weight of the entity bonus. Default 1.0 (paddlenlp's ``beta=``).
        name: metric name. Default ``"bleu"``.
        sync_dist: all-reduce the counts over ``paddle.distributed`` in ``score()``.
        tokenize, normalize, lowercase, stem: text settings (:mod:`paddle_rougel.text`).
        keep_instances: keep per-instance counts (needed by ``confidence_interval`` and
            ``compare``; corpus BLEU is recomputed from resampled counts).

    ``score()`` is a float, as paddlenlp's (0.0 when no candidate token was
    seen, where paddlenlp divides by zero).  State: per-order match and
    candidate n-gram counts and the brevity-penalty lengths, float64 sums, so
    ``merge`` / ``state_dict`` give exactly the single-run figures.
    """

    def __init__(self, n_size: int = 4, yesno_weight: float = DEFAULT_WEIGHT,
                 entity_weight: float = DEFAULT_WEIGHT,
                 name: str = "bleu", sync_dist: bool = False, tokenize: Any = "char",
                 normalize: str = "none", lowercase: Optional[bool] = None, stem: bool = False,
                 keep_instances: bool = False, **kwargs):
        yesno_weight, entity_weight = bonus_weights("BLEUForDuReader", yesno_weight, entity_weight, kwargs)
        reject_unknown(kwargs, BLEUForDuReader.__init__, ("alpha", "beta"))
        settings = BleuSettings(n_size=n_size, yesno_weight=yesno_weight, entity_weight=entity_weight,
                                text=TextSettings(tokenize, normalize, lowercase, stem))
        super().__init__(BleuAccumulator(settings, keep_instances), name, sync_dist)

    n_size = property(lambda self: self._acc.settings.n_size)
    yesno_weight = property(lambda self: self._acc.settings.yesno_weight)
    entity_weight = property(lambda self: self._acc.settings.entity_weight)
    alpha = deprecated_alias("alpha", "yesno_weight")
    beta = deprecated_alias("beta", "entity_weight")
    weights = property(lambda self: [1 / self.n_size] * self.n_size)

    @keywords_checked
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
        self._acc.add_now(self._acc.batch(cands, ref_lists, yn_labels, yn_refs, entity_refs))

    def update(self, *args, **kwargs):
        raise NotImplementedError("BLEUForDuReader takes text: use add_inst or add_batch")


SPEC = MetricSpec(
    name="BLEUForDuReader", label="BLEU-{n_size}", state_key="bleu",
    settings=BleuSettings, accumulator=BleuAccumulator, paddle_class=BLEUForDuReader,
    from_options=bleu_from_options, doc="the DuReader contest's corpus BLEU with the yes/no and entity bonus")
