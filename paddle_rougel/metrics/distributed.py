"""The Paddle side of the metrics: importing paddle, and distributed sync.

paddle is not a hard requirement of this package (CPU and GPU users install
different distributions, and the command line never needs it), so it is
imported here, on first use, with a message that names both.
"""
from __future__ import annotations

from typing import Dict

import numpy as np

__all__ = ["import_paddle", "all_reduce", "all_gather_rows"]

_DIST_OP = {"sum": "SUM", "max": "MAX", "min": "MIN"}


def import_paddle():
    """``paddle``, or an ImportError that says which distribution to install."""
    try:
        import paddle
    except ImportError as e:
        raise ImportError(
            "paddle_rougel's metric classes and device path need PaddlePaddle, which is not "
            "installed: pip install paddlepaddle (CPU) or paddlepaddle-gpu (GPU; see Paddle's "
            "install guide for your CUDA), or pip install 'paddle-rougel[cpu]'. The command line "
            f"and the functional API work without it. ({e})") from e
    return paddle


def all_reduce(values: Dict[str, np.ndarray], reductions: Dict[str, str]) -> Dict[str, np.ndarray]:
    """All-reduce declared state fields over the default process group (one collective
    per dtype and reduction); the input is not modified.  A no-op with one process."""
    paddle = import_paddle()
    import paddle.distributed as dist

    if not dist.is_initialized() or dist.get_world_size() <= 1:
        return values
    groups: Dict[tuple, list] = {}
    for name, red in reductions.items():
        groups.setdefault((values[name].dtype.str, red), []).append(name)
    out = {}
    for (dt, red), names in groups.items():
        flat = np.concatenate([np.ravel(values[n]) for n in names]).astype(np.dtype(dt))
        t = paddle.to_tensor(flat)
        dist.all_reduce(t, op=getattr(dist.ReduceOp, _DIST_OP[red]))
        res, pos = t.numpy(), 0
        for n in names:
            size = values[n].size
            out[n] = res[pos:pos + size].reshape(values[n].shape).astype(values[n].dtype)
            pos += size
    return out


def all_gather_rows(rows: np.ndarray) -> np.ndarray:
    """Per-instance rows of every rank, concatenated in rank order (a no-op with one process)."""
    import_paddle()
    import paddle.distributed as dist

    if not dist.is_initialized() or dist.get_world_size() <= 1:
        return rows
    parts: list = []
    dist.all_gather_object(parts, np.ascontiguousarray(rows))
    return np.concatenate([np.asarray(p, dtype=rows.dtype).reshape(-1, rows.shape[1]) for p in parts])
