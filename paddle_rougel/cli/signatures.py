"""The signatures the commands print: every setting that changes the number (the library's one
builder, :func:`paddle_rougel.functional.signature`), then the command line's own parts, as data:
the interval or test drawn, the version, and the engine (never a number: what ran) last.

``dureader``: ``rougeL+bleu4|<the contest settings>|...``; ``score``: ``rouge1+rougeL|<every
setting, once>|...``; ``compare`` adds ``test:...`` and ``merge`` the engines its files name.
"""
from __future__ import annotations

from typing import List, Optional, Sequence

from paddle_rougel.core.version import __version__
from paddle_rougel.engine.registry import backend
from paddle_rougel.core.signature import signature as settings_signature

from .common import level

__all__ = ["signature", "one_metric", "ci_parts", "test_parts", "current_engine"]


def current_engine() -> str:
    return backend()


def signature(parts: List[tuple], extra: Sequence[str] = (), engine: Optional[str] = "") -> str:
    """``parts``: ``(type name, spec, params, settings)`` of every metric (the builder's parts);
    ``extra``: the command's parts before the version; ``engine``: the engine named last (``""``:
    the one running; None: not named)."""
    engine = current_engine() if engine == "" else engine
    tail = [f"engine:{engine}"] if engine is not None else []
    return "|".join([settings_signature(parts), *extra, f"v:{__version__}", *tail])


def one_metric(name: str, settings) -> List[tuple]:
    """The builder's parts of one named metric and its settings (``rougeL+bleu4``: the contest's)."""
    return [(name, None, {}, settings)]


def ci_parts(opts) -> List[str]:
    """``score --confidence``'s part: the interval drawn (none without --confidence)."""
    if opts.confidence is None:
        return []
    return [f"ci:bootstrap,n:{opts.resamples},level:{level(opts.confidence)},seed:{opts.seed}"]


def test_parts(opts, default_trials: int) -> List[str]:
    """``compare``'s part: the test, its draws (``default_trials`` when not given), level and seed."""
    n = opts.resamples if opts.resamples is not None else default_trials
    lvl = "" if opts.confidence == 0.95 else f",level:{level(opts.confidence)}"
    return [f"test:{opts.method},n:{n}{lvl},seed:{opts.seed}"]
