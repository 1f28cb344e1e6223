"""Pure accumulators: the state, scoring and merging of every metric, numpy only.

An accumulator holds a metric's figures in a few declared fields (float64
sums, int64 counts), each with the reduction that combines two states
(``"sum"``, ``"max"``, ``"min"``).  From that one declaration come ``merge``,
``state_dict`` / ``load_state_dict`` and distributed sync, with no
per-metric code.  A metric implements only ``_score(batch)``: the field
increments and per-instance results of one validated :class:`~.inputs.Batch`.

The command line and the functional API use accumulators directly (no
paddle); each metric's ``paddle.metric.Metric`` class holds one.  This module
is the machinery; each metric's accumulator lives in its metric module
(:mod:`paddle_rougel.metrics`), named there by its ``SPEC``.
:class:`PrfAccumulator` is the shared state of the metrics averaged per
instance (ROUGE-L, ROUGE-Lsum, ROUGE-N, the DuReader ROUGE-L).

Guarantees (tested):

* instances are snapshotted when added (see ``inputs.py``); a rejected call
  changes nothing;
* buffered instances are scored in batches; a scoring error leaves them
  buffered and the fields unchanged (fold first, clear after success);
* one lock serialises every call, so an accumulator may be shared by threads;
* a call's changes are committed in one step (``_commit``), so ``os.fork()``
  while another thread is inside a call gives the child the accumulator as of
  the last completed call, with a new lock (``_after_fork_in_child``);
* ``load_state_dict`` / ``merge`` refuse a state of another metric, other
  settings, or values that no run can produce (wrong type, NaN, negative,
  fractional counts, sums above their counts, int64 overflow, and fields
  that no run gives together: :mod:`~paddle_rougel.invariants`).

>>> from paddle_rougel.engine.inputs import make_batch
>>> from paddle_rougel.metrics.rouge_l import RougeLAccumulator, RougeLSettings
>>> acc = RougeLAccumulator(RougeLSettings(gamma=1.0))
>>> acc.add(make_batch(["abcd", "xy"], [["abce"], ["xy", "yx"]]))
>>> acc.score(), acc.count
(0.875, 2)
"""
from __future__ import annotations

import copy
import math
import os
import threading
import weakref
from typing import Any, Callable, Dict, List, Optional, Tuple

import numpy as np

from ..engine import host as engine
from ..core import invariants, scoring
from ..core.hints import Hinter
from ..engine.inputs import Batch, concat, make_batch, plain_instance

__all__ = ["Accumulator", "PrfAccumulator", "compare", "FLUSH_AT", "check_sum"]

FLUSH_AT = 4096          # buffered instances per engine call
_MAX_VALUE = 2 ** 62     # a count or sum at or above this cannot come from a real run
_REDUCE = {"sum": np.add, "max": np.maximum, "min": np.minimum}

# (values, {name: reduction}) -> all-reduced values; supplied by the Paddle layer
SyncFn = Callable[[Dict[str, np.ndarray], Dict[str, str]], Dict[str, np.ndarray]]


class Accumulator:
    """Declared state fields, buffering, merge, state dicts; subclasses score batches."""

    # bound by the metric module's MetricSpec (metrics/spec.py): the one home of its names
    spec: Any = None
    metric_name = ""         # the spec's name: "metric" in a state_dict()
    settings_class: type = object
    reads_words = False  # True: _score passes Batch.words to the engine (strs split in C)

    def __init__(self, settings, keep_instances: bool = False):
        if not isinstance(settings, self.settings_class):
            raise TypeError(f"{type(self).__name__} needs {self.settings_class.__name__}, "
                            f"got {type(settings).__name__}")
        self.settings = settings
        self._lock = threading.RLock()
        self._specs: Dict[str, Tuple[np.ndarray, str]] = {}
        self._declare()
        self._values = {n: d.copy() for n, (d, _) in self._specs.items()}
        self._pending: List[Batch] = []
        self._n_pending = 0
        self._local: List[Any] = []  # per-instance results, in order (not part of the state)
        self._n_local = 0            # of which committed (see _commit)
        _LIVE.add(self)
        self.tokenizer = settings.tokenizer()  # str -> tokens, None for characters as given
        self.hint = Hinter(settings.text)  # warns once if the text settings do not fit the text
        # per-instance statistics in the state (state_dict, merge, sync), for intervals and tests
        self.keep_instances = bool(keep_instances)

    @property
    def state_key(self) -> str:
        """Its entry in a command-line state file (``"metrics": {state_key: state}``)."""
        return self.spec.state_key_of(self.settings)

    @property
    def label(self) -> str:
        """The printed name (``ROUGE-L``, ``ROUGE-2``, ``BLEU-4``)."""
        return self.spec.label_of(self.settings)

    # ------------------------------------------------------------ declaring
    def _declare(self) -> None:
        raise NotImplementedError

    def _field(self, name: str, default: Any, reduce: str = "sum") -> None:
        arr = np.array(default)
        arr = arr.astype(np.int64 if arr.dtype.kind in "iub" else np.float64)
        self._specs[name] = (arr, reduce)

    def field_names(self) -> Tuple[str, ...]:
        return tuple(self._specs)

    # -------------------------------------------------------------- scoring
    def _score(self, batch: Batch) -> Tuple[Dict[str, np.ndarray], Any]:
        """Field increments and the per-instance result of one batch (no side effects)."""
        raise NotImplementedError

    def _folded(self, deltas: Dict[str, Any]) -> Dict[str, np.ndarray]:
        """The fields with ``deltas`` reduced in, checked (nothing is changed)."""
        new = {n: _REDUCE[red](self._values[n], deltas[n]) for n, (_, red) in self._specs.items()}
        self._check_range(new, "after adding")
        return new

    def _fold(self, deltas: Dict[str, Any], local: Any, **changes: Any) -> None:
        """Fold a batch's increments and per-instance result, and commit ``changes`` with them."""
        new = self._folded(deltas)
        del self._local[self._n_local:]  # left by a call cut short (fork, KeyboardInterrupt)
        if local is not None:
            self._local.append(local)
        self._commit(_values=new, **changes)

    def _commit(self, **changes: Any) -> None:
        """A call's changes in one step: one update of ``__dict__`` (C code: no other thread
        runs inside it), so ``os.fork()`` in another thread copies the accumulator before
        or after the call, never half-way.  Per-instance results are appended in place,
        before (or replaced with ``_local``): ``_n_local`` says how many are committed."""
        changes["_n_local"] = len(changes.get("_local", self._local))
        self.__dict__.update(changes)

    def _results(self) -> List[Any]:
        """The committed per-instance results (under the lock)."""
        return self._local[:self._n_local]

    # ------------------------------------------------------------ adding data
    def n_seen(self) -> int:
        """Instances added so far (folded and buffered): the next instance's index."""
        with self._lock:
            return int(self._values["count"]) + self._n_pending

    def batch(self, cands, ref_lists, yn_labels=None, yn_refs=None, entity_refs=None) -> Batch:
        """The inputs as a validated batch for this accumulator: its text settings, its running
        instance index in errors, its tokenization hint, and strs kept for the C word reader where
        this accumulator scores with it (see :func:`paddle_rougel.inputs.make_batch`)."""
        return make_batch(cands, ref_lists, yn_labels, yn_refs, entity_refs, base=self.n_seen(),
                          tokenizer=self.tokenizer, hint=self.hint, words=self.reads_words)

    def instance(self, cand, ref_list, yn_label=None, yn_ref=None, entity_ref=None) -> Batch:
        """One instance as a batch (``add_inst``): a str and a list of str under the default
        text settings and without bonus skip the checks (a few hundred nanoseconds)."""
        no_bonus = (yn_label is None or yn_ref is None) and entity_ref is None
        batch = plain_instance(cand, ref_list) if self.tokenizer is None and no_bonus else None
        if batch is None:
            return self.batch([cand], [ref_list], *(([yn_label], [yn_ref], [entity_ref]) if not no_bonus
                                                    else ()))
        if not self.hint.done:
            self.hint(batch.cands, batch.ref_lists)
        return batch

    def add(self, batch: Batch) -> None:
        """Buffer a validated batch; scored when FLUSH_AT instances wait or on a read."""
        n = len(batch.cands)  # (Batch.__len__ is a Python call: this is the add_inst hot path)
        if not n:
            return
        with self._lock:
            self._pending.append(batch)
            self._n_pending += n
            if self._n_pending >= FLUSH_AT:
                self.flush()

    def add_now(self, batch: Batch) -> Any:
        """Score a validated batch at once (after what is buffered); returns its per-instance result."""
        with self._lock:
            self.flush()
            deltas, local = self._score(batch)
            self._fold(deltas, local)
            return local

    def score_batch(self, batch: Batch) -> Tuple[Dict[str, np.ndarray], Any]:
        """Field increments and per-instance result of a validated batch, nothing changed (fold
        them with ``add_scored``: ``compute`` scores every type before it folds any)."""
        return self._score(batch)

    def add_scored(self, deltas: Dict[str, Any], local: Any) -> None:
        """Fold a batch this accumulator's metric scored elsewhere (``compute`` counts several
        ROUGE-N orders, and ROUGE-L's LCS, in one pass), after what is buffered."""
        with self._lock:
            self.flush()
            self._fold(deltas, local)

    def flush(self) -> None:
        """Score what is buffered.  On error the buffer and the fields stay as they were."""
        with self._lock:
            if not self._pending:
                return
            deltas, local = self._score(concat(self._pending))
            self._fold(deltas, local, _pending=[], _n_pending=0)

    # -------------------------------------------------------------- reading
    def values(self, sync: Optional[SyncFn] = None) -> Dict[str, np.ndarray]:
        """Copies of the fields after a flush, all-reduced by ``sync`` when given."""
        with self._lock:
            self.flush()
            local = {n: v.copy() for n, v in self._values.items()}
        if sync is None:
            return local
        return sync(local, {n: red for n, (_, red) in self._specs.items()})

    def __getattr__(self, name: str):
        # state fields read as attributes (acc.count), flushed first
        specs = self.__dict__.get("_specs")
        if specs is not None and name in specs:
            v = self.values()[name]
            return v.item() if v.ndim == 0 else v
        raise AttributeError(f"{type(self).__name__!s} has no attribute {name!r}")

    def reset(self) -> None:
        with self._lock:
            self._commit(_values={n: d.copy() for n, (d, _) in self._specs.items()}, _pending=[],
                         _n_pending=0, _local=[])

    # ------------------------------------------------------- state and merge
    def state_dict(self) -> dict:
        """The state as plain JSON-friendly data: metric name, settings, fields (and, with
        ``keep_instances``, the per-instance statistics as ``instances``: rows of ``columns``)."""
        with self._lock:
            vals = self.values()
            out = {"metric": self.metric_name, "config": self.settings.config(),
                   "states": {n: v.tolist() for n, v in vals.items()}}
            if self.keep_instances:
                out["instances"] = self.instance_columns().tolist()
        return out

    # ------------------------------------------------- per-instance statistics
    columns: Tuple[str, ...] = ()  # names of the per-instance statistics (instance_columns)

    def _columns_of(self, local: Any) -> Optional[np.ndarray]:
        """The per-instance rows of one folded batch's result (None: not kept)."""
        raise NotImplementedError

    def _local_of(self, cols: np.ndarray) -> Any:
        """The inverse of ``_columns_of``: a batch result from rows (a loaded state)."""
        raise NotImplementedError

    def statistic(self):
        """The score as a function of column sums (:mod:`paddle_rougel.stats`)."""
        raise NotImplementedError

    def _check_instances(self, values: Dict[str, np.ndarray], cols: np.ndarray) -> None:
        """Rows must add up to the fields (a tampered file cannot pair other rows with its sums)."""

    def instance_columns(self, gather=None) -> np.ndarray:
        """Per-instance statistics ``[N, len(columns)]`` in the order added (all ranks with
        ``gather``); an error when some instances have none (merged from a state without them)."""
        with self._lock:
            self.flush()
            parts = [c for c in map(self._columns_of, self._results()) if c is not None]
            n = int(self._values["count"])
        cols = np.concatenate(parts) if parts else np.zeros((0, len(self.columns)))
        if len(cols) != n:
            raise ValueError(f"per-instance statistics cover {len(cols)} of the {n} instances: "
                             "create the metric, and every metric or state merged into it, with "
                             "keep_instances=True")
        return cols if gather is None else gather(cols)

    def confidence_interval(self, resamples: int = 1000, confidence: float = 0.95, seed: int = 0,
                            gather=None):
        """Percentile bootstrap interval of the score over instances (:func:`stats.bootstrap`)."""
        from ..stats import intervals as stats

        return stats.bootstrap(self.instance_columns(gather), self.statistic(), resamples,
                               confidence, seed)

    def _checked_state(self, state: Any) -> Dict[str, np.ndarray]:
        """The field values of a ``state_dict()``, after every check (nothing is modified);
        its per-instance rows, if any, under the key ``None``."""
        if not isinstance(state, dict) or not isinstance(state.get("states"), dict):
            raise ValueError("not a metric state (needs 'metric', 'config' and 'states')")
        name = state.get("metric")
        if name != self.metric_name:
            raise ValueError(f"cannot combine a {name} state with a {self.metric_name}")
        theirs = self.settings_class.from_config(state.get("config", {}), "state 'config'")
        self._check_settings(theirs)
        values = {}
        for field, (default, _) in self._specs.items():
            if field not in state["states"]:
                raise ValueError(f"state field {field!r} is missing")
            values[field] = _field_value(state["states"][field], default, field)
        extra = set(state["states"]) - set(self._specs)
        if extra:
            raise ValueError(f"unknown state field {sorted(extra)[0]!r}")
        self._check_range(values, "in the state")
        if state.get("instances") is not None:
            shape = np.zeros((int(values["count"]), len(self.columns)))
            cols = _field_value(state["instances"], shape, "instances")
            self._check_instances(values, cols)
            values[None] = cols
        elif self.keep_instances:
            raise ValueError("the state has no per-instance statistics ('instances') but this "
                             "metric keeps them (keep_instances=True)")
        return values

    def _check_settings(self, theirs) -> None:
        if theirs != self.settings:
            mine, other = self.settings.config(), theirs.config()
            diff = {k: (other.get(k), mine.get(k)) for k in mine if other.get(k) != mine.get(k)}
            raise ValueError(f"cannot combine states with different settings: {diff} (theirs, ours)")

    def _check_range(self, values: Dict[str, np.ndarray], when: str) -> None:
        """Counts and sums within what a real run gives; subclasses add consistency rules."""
        for name, v in values.items():
            if name is not None and v.size and (not np.all(np.isfinite(v)) or v.min() < 0 or v.max() >= _MAX_VALUE):
                raise ValueError(f"state field {name!r} {when} is out of range "
                                 f"(must be finite, >= 0 and < 2**62): {v.tolist()}")

    def load_state_dict(self, state: dict) -> None:
        """Replace the state with ``state`` (from ``state_dict()``); per-instance results are dropped."""
        values = self._checked_state(state)
        cols = values.pop(None, None)
        local = [] if cols is None else [self._local_of(cols)]
        with self._lock:
            self._commit(_values=values, _pending=[], _n_pending=0, _local=local)

    def merge(self, other: "Accumulator | dict") -> "Accumulator":
        """Fold another accumulator (or a ``state_dict()``) into this one; returns self."""
        if isinstance(other, Accumulator):
            if other is self:
                raise ValueError("cannot merge a metric into itself")
            if other.metric_name != self.metric_name:
                raise ValueError(f"cannot combine a {other.metric_name} with a {self.metric_name}")
            self._check_settings(other.settings)
            with other._lock:
                values, local = other.values(), other._results()
                if self.keep_instances:
                    other.instance_columns()  # every instance has its rows, or an error
        else:
            values = self._checked_state(other)
            cols = values.pop(None, None)
            local = [] if cols is None else [self._local_of(cols)]
        with self._lock:
            self.flush()
            self._guard_int_overflow(values)
            new = self._folded(values)
            del self._local[self._n_local:]
            self._local.extend(local)
            self._commit(_values=new)
        return self

    def _guard_int_overflow(self, values: Dict[str, np.ndarray]) -> None:
        for n, (d, red) in self._specs.items():  # int64 sums would wrap silently
            if d.dtype.kind == "i" and red == "sum":
                if int(self._values[n].max(initial=0)) + int(values[n].max(initial=0)) >= _MAX_VALUE:
                    raise ValueError(f"state field {n!r}: the merged count would overflow")

    # ------------------------------------------------------------- copying
    def __getstate__(self):
        with self._lock:
            d = dict(self.__dict__)
        del d["_lock"], d["tokenizer"]  # rebuilt from the settings
        return d

    def __setstate__(self, d):
        self.__dict__.update(d)
        self.__dict__.setdefault("_n_local", len(self._local))  # pickled before it existed
        self._lock = threading.RLock()
        self.tokenizer = self.settings.tokenizer()
        _LIVE.add(self)

    def __copy__(self):
        # a copy never shares mutable state (fields, buffer, results) with the original
        return copy.deepcopy(self)

    def __deepcopy__(self, memo):
        new = object.__new__(type(self))
        new.__setstate__(copy.deepcopy(self.__getstate__(), memo))
        return new


# Every live accumulator, for the fork handler.
_LIVE: "weakref.WeakSet[Accumulator]" = weakref.WeakSet()


def _after_fork_in_child() -> None:
    """In a child of ``os.fork()``: a lock held by another thread at the fork is copied
    held, and that thread does not exist here, so every accumulator gets a new lock.  A
    call cut short by the fork committed nothing (see ``_commit``); a per-instance
    result it appended is dropped, and the buffered count is recounted (``add``
    appends to the buffer, then counts)."""
    for acc in list(_LIVE):
        acc._lock = threading.RLock()
        del acc._local[acc._n_local:]
        acc._n_pending = sum(len(b.cands) for b in acc._pending)


if hasattr(os, "register_at_fork"):  # not on Windows (no fork there)
    os.register_at_fork(after_in_child=_after_fork_in_child)


def _field_value(raw: Any, default: np.ndarray, name: str) -> np.ndarray:
    """One state field from JSON data: numbers of the right kind and shape, nothing coerced."""
    integral = default.dtype.kind == "i"

    def check(x):
        if isinstance(x, list):
            return [check(y) for y in x]
        if isinstance(x, (bool, np.bool_)) or not isinstance(x, (int, float, np.integer, np.floating)):
            raise TypeError(f"state field {name!r}: expected numbers, got {type(x).__name__} {x!r}")
        if not math.isfinite(x) or x < 0 or x >= _MAX_VALUE:
            raise ValueError(f"state field {name!r}: {x!r} is out of range "
                             "(must be finite, >= 0 and < 2**62)")
        if integral and not float(x).is_integer():
            raise ValueError(f"state field {name!r}: a count must be a whole number, got {x!r}")
        return int(x) if integral else float(x)

    arr = np.array(check(raw.tolist() if isinstance(raw, np.ndarray) else raw), dtype=default.dtype)
    if arr.shape == (0,) and default.ndim == 2 and default.shape[0] == 0:
        arr = arr.reshape(default.shape)  # no rows: JSON's [] (a state of no instances)
    if arr.shape != default.shape:
        raise ValueError(f"state field {name!r} has shape {arr.shape}, expected {default.shape}")
    return arr


# ------------------------------------------------ metrics averaged per instance

class PrfAccumulator(Accumulator):
    """Mean per-instance F (and macro P, R): sums of P, R, F and the count.

    The state of every metric scored per instance from a (hits, candidate size,
    reference size) triple per pair: ROUGE-L (LCS, tokens), ROUGE-Lsum (union
    hits, tokens), ROUGE-N (clipped matches, n-grams), the DuReader ROUGE-L.  A
    subclass gives ``_score(batch)``, usually through :meth:`_prf`.  Its settings
    carry the F weighting (``f``) and ``multi_ref``.
    """

    def _declare(self) -> None:
        for name in ("f_sum", "p_sum", "r_sum"):
            self._field(name, 0.0)
        self._field("count", 0)

    def _check_range(self, values, when) -> None:
        super()._check_range(values, when)
        n = float(values["count"])
        for name in ("f_sum", "p_sum", "r_sum"):  # each per-instance value is <= 1
            if float(values[name]) > n * (1 + 1e-9) + 1e-9:
                raise ValueError(f"state field {name!r} {when} is {float(values[name])!r}, "
                                 f"more than the count {int(n)} (each instance adds at most 1)")
        bad = invariants.rouge_violation(self.settings, values["p_sum"], values["r_sum"], values["f_sum"], n)
        if bad is not None:
            raise ValueError(f"state fields 'f_sum', 'p_sum', 'r_sum', 'count' {when}: {bad[1]}")

    def _prf(self, hits, cand_len, ref_len, ref_count, bonus=0.0) -> scoring.Score:
        """Per-instance P, R, F from the pairs' hits and sizes under the settings' multi_ref and F
        (the one path of every metric here; ``pooled`` sums the counts, not the ratios).  As
        many pairs as instances: one reference each (an instance has at least one), no
        repeat and no offsets."""
        one = len(ref_len) == len(cand_len)
        counts = scoring.pair_counts(hits, cand_len if one else np.repeat(cand_len, ref_count, axis=0), ref_len,
                                     bonus)
        p, r = scoring.ratios(*counts)
        offsets = None if one else engine.offsets_of(ref_count)
        return scoring.Score(*scoring.reduce_refs(p, r, offsets, self.settings.multi_ref, self.settings.f,
                                                  counts, owned=True))

    columns = ("precision", "recall", "fmeasure")

    def _columns_of(self, local) -> np.ndarray:
        s = local[0]
        return np.stack([s.precision, s.recall, s.fmeasure], axis=1)

    def _local_of(self, cols: np.ndarray):
        return scoring.Score(cols[:, 0].copy(), cols[:, 1].copy(), cols[:, 2].copy()), None

    def statistic(self):
        from ..stats import intervals as stats

        return stats.mean_statistic(2)  # the score: mean per-instance F

    def _check_instances(self, values, cols) -> None:
        for j, name in enumerate(("p_sum", "r_sum", "f_sum")):
            check_sum(cols[:, j], values[name], name)
        if len(cols) and cols[:, :3].max() > 1.0:
            raise ValueError("state 'instances': P, R and F are at most 1")
        bad = invariants.rouge_violation(self.settings, cols[:, 0], cols[:, 1], cols[:, 2], np.ones(len(cols)))
        if bad is not None:
            raise ValueError(f"state 'instances' row {bad[0]}: {bad[1]}")

    @staticmethod
    def _deltas(s: scoring.Score) -> Dict[str, Any]:
        return {"f_sum": np.sum(s.fmeasure), "p_sum": np.sum(s.precision),
                "r_sum": np.sum(s.recall), "count": np.int64(len(s.fmeasure))}

    def score(self, sync: Optional[SyncFn] = None) -> float:
        """Mean per-instance F (0.0 when nothing was added)."""
        v = self.values(sync)
        n = int(v["count"])
        return float(v["f_sum"] / n) if n else 0.0

    def scores(self, sync: Optional[SyncFn] = None) -> scoring.Score:
        """Macro-averaged P, R and F as floats."""
        v = self.values(sync)
        n = int(v["count"])
        if not n:
            return scoring.Score(0.0, 0.0, 0.0)
        return scoring.Score(float(v["p_sum"] / n), float(v["r_sum"] / n), float(v["f_sum"] / n))

    def per_instance(self) -> scoring.Score:
        """Per-instance P, R, F arrays in the order added (this process, since the last reset)."""
        with self._lock:
            self.flush()
            parts = [loc[0] for loc in self._results()]
        if not parts:
            return scoring.Score(*(np.zeros(0, dtype=np.float64) for _ in range(3)))
        return scoring.Score(*(np.concatenate(cols) for cols in zip(*parts)))


def check_sum(col: np.ndarray, total: np.ndarray, name: str) -> None:
    """Per-instance rows must add up to their state field (a tampered file)."""
    got, want = float(np.sum(col)), float(np.sum(total))
    if abs(got - want) > 1e-9 * max(1.0, abs(want)):
        raise ValueError(f"state 'instances' add up to {got!r} but {name!r} is {want!r}")


# ------------------------------------------------------------ states and tests

COMPARE_METHODS = {"paired_bootstrap": 1000, "approximate_randomization": 10000}  # default counts


def compare(a: Accumulator, b: Accumulator, method: str = "paired_bootstrap",
            resamples: Optional[int] = None, confidence: float = 0.95, seed: int = 0, gather=None):
    """System ``b`` against baseline ``a`` on the same instances (:mod:`paddle_rougel.stats`).

    Both must be the same metric with the same settings and hold per-instance
    statistics for the same number of instances, in the same order.
    ``method``: ``"paired_bootstrap"`` (default 1,000 resamples) or
    ``"approximate_randomization"`` (default 10,000 trials).
    """
    from ..stats import intervals as stats

    if method not in COMPARE_METHODS:
        raise ValueError(f"method must be one of {', '.join(COMPARE_METHODS)}, got {method!r}")
    if type(a) is not type(b):
        raise ValueError(f"cannot compare a {a.metric_name} with a {b.metric_name}")
    if a.settings != b.settings:
        raise ValueError(f"the systems were scored with different settings: {a.settings.signature()} "
                         f"vs {b.settings.signature()}")
    ca, cb = a.instance_columns(gather), b.instance_columns(gather)
    if len(ca) != len(cb):
        raise ValueError(f"the systems were scored on different instances: {len(ca)} vs {len(cb)}")
    count = COMPARE_METHODS[method] if resamples is None else resamples
    if method == "paired_bootstrap":
        return stats.paired_bootstrap(ca, cb, a.statistic(), count, confidence, seed)
    return stats.approximate_randomization(ca, cb, a.statistic(), count, confidence, seed)

