"""Mergeable metric state, declared once per field with its reduction.

Every metric keeps its figures in a few named fields (float64 sums, int64
counts, ...).  Declaring each field with ``add_state(name, default, reduce)``
gives all metrics, with no per-metric code:

* ``merge(other)``: combine two metrics' results (separate jobs, shards);
* ``state_dict()`` / ``load_state_dict()``: save and restore, JSON-friendly;
* ``sync_dist=True``: ``accumulate()`` all-reduces every field over the default
  ``paddle.distributed`` process group (one collective per dtype), so each
  rank returns the global figure.  With one process it is a no-op.

Reductions: ``"sum"``, ``"max"``, ``"min"``.  Fields are numpy arrays (a scalar
is a 0-d array) of float64 or int64, so nothing is lost in a reduction.
"""
from __future__ import annotations

from typing import Any, Dict

import numpy as np

from ._host import metric_base

__all__ = ["MergeableMetric"]

_REDUCE = {"sum": np.add, "max": np.maximum, "min": np.minimum}
_DIST_OP = {"sum": "SUM", "max": "MAX", "min": "MIN"}


class MergeableMetric(metric_base()):
    """Base class: declared state fields, merge, state dicts and distributed sync."""

    def __init__(self, sync_dist: bool = False):
        super().__init__()
        self._state_specs: Dict[str, tuple] = {}
        self.sync_dist = bool(sync_dist)

    # ---------------------------------------------------------------- declare
    def add_state(self, name: str, default: Any, reduce: str = "sum") -> None:
        """Declare a state field; ``default`` fixes its dtype and shape."""
        if reduce not in _REDUCE:
            raise ValueError(f"reduce must be one of {sorted(_REDUCE)}, got {reduce!r}")
        arr = np.array(default)
        if arr.dtype.kind == "f":
            arr = arr.astype(np.float64)
        elif arr.dtype.kind in "iub":
            arr = arr.astype(np.int64)
        else:
            raise TypeError(f"state {name!r} must be numeric, got {arr.dtype}")
        self._state_specs[name] = (arr, reduce)
        setattr(self, name, arr.copy())

    def _reset_states(self) -> None:
        for name, (default, _) in self._state_specs.items():
            setattr(self, name, default.copy())

    def _flush(self) -> None:
        """Hook: fold buffered work into the state fields before it is read."""

    # ------------------------------------------------------------ config/keys
    def _config(self) -> dict:
        """Settings that must match for two states to be merged."""
        return {}

    def state_dict(self) -> dict:
        """The metric's state as plain Python data (JSON-serialisable)."""
        self._flush()
        return {
            "metric": type(self).__name__,
            "config": self._config(),
            "states": {n: getattr(self, n).tolist() for n in self._state_specs},
        }

    def _check_compatible(self, metric: str, config: dict) -> None:
        if metric != type(self).__name__:
            raise ValueError(f"cannot combine a {metric} state with a {type(self).__name__}")
        mine = self._config()
        if config != mine:
            diff = {k: (config.get(k), mine.get(k)) for k in set(config) | set(mine)
                    if config.get(k) != mine.get(k)}
            raise ValueError(f"cannot combine states with different settings: {diff} (theirs, ours)")

    def _values_of(self, state: dict) -> Dict[str, np.ndarray]:
        """The checked state fields of a ``state_dict()`` (settings, names, shapes)."""
        self._check_compatible(state.get("metric"), state.get("config", {}))
        values = {}
        for name, (default, _) in self._state_specs.items():
            if name not in state["states"]:
                raise ValueError(f"state field {name!r} is missing")
            v = np.array(state["states"][name], dtype=default.dtype)
            if v.shape != default.shape:
                raise ValueError(f"state field {name!r} has shape {v.shape}, expected {default.shape}")
            values[name] = v
        return values

    def load_state_dict(self, state: dict) -> None:
        """Replace this metric's state with ``state`` (from ``state_dict()``)."""
        values = self._values_of(state)
        self._flush()
        self._clear_local()
        for name, v in values.items():
            setattr(self, name, v)

    def _clear_local(self) -> None:
        """Hook: drop local-only data (per-instance arrays) on load."""

    def merge(self, other: "MergeableMetric | dict") -> "MergeableMetric":
        """Fold ``other`` (a metric or a ``state_dict()``) into this one, in place; returns self."""
        if isinstance(other, dict):  # a state dict carries the sums only
            values, local = self._values_of(other), None
        else:
            other._flush()
            self._check_compatible(type(other).__name__, other._config())
            values, local = {n: getattr(other, n) for n in self._state_specs}, other
        self._flush()
        for name, (_, red) in self._state_specs.items():
            setattr(self, name, _REDUCE[red](getattr(self, name), values[name]))
        self._merge_local(local)
        return self

    def _merge_local(self, other) -> None:
        """Hook: combine local-only data on merge."""

    # ---------------------------------------------------------- distributed
    def _synced_states(self) -> Dict[str, np.ndarray]:
        """Current state fields, all-reduced over the process group when sync_dist is on.

        The local fields are not modified, so calling accumulate() twice does
        not double count.
        """
        self._flush()
        local = {n: getattr(self, n) for n in self._state_specs}
        if not self.sync_dist:
            return local
        import paddle
        import paddle.distributed as dist

        if not dist.is_initialized() or dist.get_world_size() <= 1:
            return local
        out = {}
        # one collective per (dtype, reduction): every field flattened together
        groups: Dict[tuple, list] = {}
        for name, (default, red) in self._state_specs.items():
            groups.setdefault((default.dtype.str, red), []).append(name)
        for (dt, red), names in groups.items():
            flat = np.concatenate([np.ravel(local[n]) for n in names]).astype(np.dtype(dt))
            t = paddle.to_tensor(flat)
            dist.all_reduce(t, op=getattr(dist.ReduceOp, _DIST_OP[red]))
            res = t.numpy()
            pos = 0
            for n in names:
                size = local[n].size
                out[n] = res[pos:pos + size].reshape(local[n].shape).astype(local[n].dtype)
                pos += size
        return out
