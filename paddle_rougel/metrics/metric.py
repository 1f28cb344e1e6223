"""The Paddle side of every metric: :class:`PaddleMetric`, a ``paddle.metric.Metric``.

The Paddle classes are thin: each holds a pure accumulator (its metric module
in :mod:`paddle_rougel.metrics`: state, scoring, merge) and adds what
Paddle's ``Metric`` interface needs (``compute``, ``update``, ``accumulate``,
``name``), the conversion of network output, and distributed sync.  This
module imports paddle only when a metric is created.

The metric classes themselves live in their metric modules (the old
``paddle_rougel.metric.RougeL`` is answered by :mod:`paddle_rougel.compat`).
"""
from __future__ import annotations

import copy
import sys
from typing import Any

import numpy as np

from ..core import scoring
from .distributed import all_gather_rows, all_reduce, import_paddle
from .accumulators import Accumulator
from ..core.signature import signature
from ..core.settings import keywords_checked, reject_unknown  # noqa: F401 - its home is settings; read here by the metric classes

__all__ = ["PaddleMetric", "reject_unknown", "register_with_paddle"]

_REGISTERED = False


def paddle_module():
    """``paddle``, imported on first use (an ImportError naming the distributions if missing)."""
    return import_paddle()


def register_with_paddle() -> None:
    """Make every :class:`PaddleMetric` a virtual subclass of ``paddle.metric.Metric``."""
    global _REGISTERED
    if not _REGISTERED:
        paddle_module().metric.Metric.register(PaddleMetric)
        _REGISTERED = True


class PaddleMetric:
    """A ``paddle.metric.Metric`` over an accumulator: state, merge and sync come from it.

    Registered as a ``paddle.metric.Metric`` (an abstract base class) when paddle is
    first needed, so ``isinstance(m, paddle.metric.Metric)`` holds for every metric
    here (hapi's ``Model.prepare`` checks it) while the classes import without paddle.
    """

    spec: Any = None  # bound by the metric module's MetricSpec

    def __init__(self, acc: Accumulator, name: str, sync_dist: bool):
        register_with_paddle()
        self._acc = acc
        self._name = name
        self.sync_dist = bool(sync_dist)

    @property
    def accumulator(self) -> Accumulator:
        """The pure (numpy-only) accumulator behind this metric."""
        return self._acc

    def _sync(self):
        return all_reduce if self.sync_dist else None

    @keywords_checked
    def confidence_interval(self, resamples: int = 1000, confidence: float = 0.95, seed: int = 0):
        """Percentile bootstrap interval of the score over instances (all ranks with
        ``sync_dist``): a :class:`paddle_rougel.stats.Interval` (estimate, low, high, ...)."""
        return self._acc.confidence_interval(resamples, confidence, seed,
                                             all_gather_rows if self.sync_dist else None)

    def name(self) -> str:
        return self._name

    def signature(self) -> str:
        """Every setting that changes the number, as one line (sacreBLEU style)."""
        return signature([(self._acc.metric_name, None, (), self._acc.settings)], version=True)

    def reset(self) -> None:
        """Forget every instance."""
        self._acc.reset()

    def score(self) -> float:
        """Same as ``accumulate()`` (paddlenlp's name)."""
        return self.accumulate()

    def accumulate(self) -> float:
        """The figure over everything added (all ranks with ``sync_dist=True``); 0.0 when empty."""
        return self._acc.score(self._sync())

    def state_dict(self) -> dict:
        """The state as plain JSON-friendly data (see docs/distributed.md)."""
        return self._acc.state_dict()

    def load_state_dict(self, state: dict) -> None:
        """Replace the state with ``state``: a ``state_dict()``, or a state file of the
        command line (``--save-state``), from which this metric's entry is taken."""
        self._acc.load_state_dict(self._own_entry(state))

    def merge(self, other: "PaddleMetric | Accumulator | dict") -> "PaddleMetric":
        """Fold another metric, accumulator or state dict into this one, in place; returns self."""
        if isinstance(other, PaddleMetric):
            other = other._acc
        self._acc.merge(other if isinstance(other, Accumulator) else self._own_entry(other))
        return self

    def _own_entry(self, state: Any) -> Any:
        if isinstance(state, dict) and isinstance(state.get("metrics"), dict):
            mine = [v for v in state["metrics"].values()
                    if isinstance(v, dict) and v.get("metric") == self._acc.metric_name]
            if len(mine) != 1:
                raise ValueError(f"the state file holds {len(mine)} {self._acc.metric_name} states "
                                 f"(entries: {', '.join(map(str, state['metrics']))})")
            return mine[0]
        return state

    def compute(self, *args):
        """hapi's step 1, for the metrics that score text: refused in one line (hapi calls it
        from ``Model.prepare`` in a static graph, at the first step in dygraph)."""
        raise TypeError(f"{type(self).__name__} scores text (add_inst / add_batch), not network "
                        "output: it cannot be a paddle.Model metric; use RougeL (or RougeLForDuReader) "
                        "in Model.prepare(metrics=...)")

    def _scored(self, batch) -> scoring.Score:
        """Score a validated batch now; its per-instance Score, as copies (the metric keeps its own)."""
        return copied(self._acc.add_now(batch)[0])

    def __getattr__(self, name: str):
        # state fields (count, f_sum, ...) read through, after a flush
        acc = self.__dict__.get("_acc")
        if acc is not None and not name.startswith("_") and name in acc.field_names():
            return getattr(acc, name)
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def __copy__(self):
        # never share the accumulator (its buffer and fields) between two metrics
        new = object.__new__(type(self))
        new.__dict__.update(self.__dict__)
        new._acc = copy.deepcopy(self._acc)
        return new


def copied(s: scoring.Score) -> scoring.Score:
    return scoring.Score(*(np.array(a, dtype=np.float64) for a in s))



if "paddle" in sys.modules:  # paddle already loaded: issubclass holds from the start
    register_with_paddle()
