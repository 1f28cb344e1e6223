"""The metric registry: one module per metric, one ``SPEC`` each, all of them in ``METRICS``.

=====================  =====================  ==========  ============  ===========  ===============
metric                 module                 Python      ROUGE type    state key    printed
=====================  =====================  ==========  ============  ===========  ===============
ROUGE-N                ``rouge_n``            RougeN      rouge1, ..    rouge_1, ..  ROUGE-1, ..
ROUGE-L                ``rouge_l``            RougeL      rougeL        rouge_l      ROUGE-L
ROUGE-Lsum             ``rouge_lsum``         RougeLsum   rougeLsum     rouge_lsum   ROUGE-Lsum
ROUGE-W                ``rouge_w``            RougeW      rougeW        rouge_w      ROUGE-W
ROUGE-S / ROUGE-SU     ``rouge_s``            RougeS(U)   rougeS4, ..   rouge_s4, .. ROUGE-S4, ..
DuReader ROUGE-L       ``dureader_rouge_l``   RougeLFor.. (dureader)    rouge_l      ROUGE-L
DuReader BLEU-4        ``bleu``               BLEUFor..   (dureader)    bleu         BLEU-4
=====================  =====================  ==========  ============  ===========  ===============

The command line (``score --rouge-types``, ``merge``, ``compare``), :func:`paddle_rougel.compute`,
the config keys, state files and ``paddle_rougel``'s public names are read from here.  A new
metric (ROUGE-W, say) is a module ``paddle_rougel/metrics/rouge_w.py`` holding its settings,
accumulator, Paddle class, functional call and ``SPEC``, and one line below.

>>> sorted(METRICS)
['BLEUForDuReader', 'RougeL', 'RougeLForDuReader', 'RougeLsum', 'RougeN', 'RougeS', 'RougeSU', 'RougeW']
>>> spec, params = resolve_type("rouge2")
>>> spec.name, params
('RougeN', {'n': 2})
"""
from __future__ import annotations

from typing import Any, Dict, Tuple

from ..core.settings import SHARED_OPTIONS, SettingsError, suggest
from . import bleu, dureader_rouge_l, rouge_l, rouge_lsum, rouge_n, rouge_s, rouge_w
from .spec import MetricSpec

__all__ = ["from_state", "METRICS", "OPTIONS", "SETTINGS", "ACCUMULATORS", "ROUGE_TYPES", "MetricSpec", "resolve_type", "rouge_types", "spec_of"]

METRICS: Dict[str, MetricSpec] = {s.name: s for s in (rouge_n.SPEC, rouge_l.SPEC, rouge_lsum.SPEC,
                                                       dureader_rouge_l.SPEC, bleu.SPEC, rouge_w.SPEC,
                                                       rouge_s.SPEC, rouge_s.SPEC_SU)}

# every command-line / config option: the shared ones, then each metric's own
OPTIONS = {o.key: o for o in SHARED_OPTIONS + tuple(o for s in METRICS.values() for o in s.options)}

# the ROUGE types by name (ROUGE-N: rouge1, rouge2, ... any n)
#: metric name -> its settings class / its accumulator class
SETTINGS = {n: s.settings for n, s in METRICS.items()}
ACCUMULATORS = {n: s.accumulator for n, s in METRICS.items()}
ROUGE_TYPES = tuple(s.key.replace("{n}", "N").replace("{skip_name}", "N") for s in METRICS.values()
                    if s.key is not None)


def _bind() -> None:
    """Each metric's classes know their spec (the one home of their names)."""
    for spec in METRICS.values():
        spec.accumulator.spec = spec
        spec.accumulator.metric_name = spec.name
        spec.accumulator.settings_class = spec.settings
        spec.paddle_class.spec = spec


_bind()


def resolve_type(name: Any) -> Tuple[MetricSpec, Dict[str, int]]:
    """The metric of a ROUGE type name (``rougeL``, ``rougeLsum``, ``rouge1``, ``rouge2``, ...)
    and the settings the name fixes; a ValueError naming the known types otherwise."""
    if isinstance(name, str):
        for spec in METRICS.values():
            params = spec.type_params(name)
            if params is not None:
                return spec, params
    known = ", ".join(("rouge1", "rouge2", "rougeL", "rougeLsum"))
    shown = name if isinstance(name, str) else type(name).__name__
    raise SettingsError(f"unknown ROUGE type {shown!r}{suggest(str(name), ('rouge1', 'rouge2', 'rougeL', 'rougeLsum'))}"
                        f" (known: {known}, rougeN for any n >= 1, rougeW, rougeSN / rougeSUN: rougeS4, rougeSU4)")


def rouge_types(names: Any) -> list:
    """Validated, de-duplicated ROUGE type names in the order given (a str: one, or a
    comma-separated list as the command line takes it)."""
    if isinstance(names, str):
        names = [t.strip() for t in names.split(",")]
    try:
        names = list(names)
    except TypeError:
        raise SettingsError(f"rouge_types must be a list of names, got {type(names).__name__}") from None
    if not names:
        raise SettingsError("rouge_types is empty: name at least one of rouge1, rouge2, rougeL, rougeLsum")
    out = []
    for t in names:
        resolve_type(t)
        if t not in out:
            out.append(t)
    return out


def spec_of(acc: Any) -> MetricSpec:
    """The spec of an accumulator or metric instance."""
    return type(acc).spec


def from_state(state: Any, where: str = "state") -> Accumulator:
    """A new accumulator holding ``state`` (a ``state_dict()``), its class and settings from it."""
    if not isinstance(state, dict):
        raise ValueError(f"{where}: not a metric state (got {type(state).__name__})")
    name = state.get("metric")
    spec = METRICS.get(name) if isinstance(name, str) else None
    if spec is None:
        raise ValueError(f"{where}: unknown metric {name!r} (expected one of {', '.join(METRICS)})")
    acc = spec.accumulator(spec.settings.from_config(state.get("config", {}), f"{where}: config"),
                           keep_instances=state.get("instances") is not None)
    try:
        acc.load_state_dict(state)
    except (TypeError, ValueError) as e:
        raise type(e)(f"{where}: {e}") from None
    return acc
