"""What the registry knows of a metric: one :class:`MetricSpec` per metric module.

A metric module (``paddle_rougel/metrics/<metric>.py``) holds everything of its
metric: the settings class (every setting that changes the number, its
validation, its state identity and its signature), the accumulator (the state
fields, the batch scorer, the per-instance statistic), the
``paddle.metric.Metric`` class, its functional call, and a ``SPEC`` naming it
everywhere.  :mod:`paddle_rougel.metrics` collects the SPECs in ``METRICS``; the
command line, :func:`paddle_rougel.compute`, ``merge``, the presets and the
package's public names read them from there.

Names that depend on a setting (ROUGE-N's ``n``) are format strings over the
settings' fields: ``label="ROUGE-{n}"`` gives ``ROUGE-2`` for ``n=2``.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, Optional, Tuple

__all__ = ["MetricSpec"]


@dataclass(frozen=True)
class MetricSpec:
    """One metric's names and parts.

    Names, one spelling scheme (the README's table):

    * ``name``: the Python class, and ``"metric"`` in a ``state_dict()``;
    * ``key``: ``compute(rouge_types=...)`` / ``score --rouge-types`` name and the
      signature's metric name (evaluate's keys: ``rougeL``, ``rouge2``); None for
      metrics that are not a ROUGE type (the DuReader contest's two);
    * ``label``: the printed name (``ROUGE-L``, ``BLEU-4``): JSON keys and tables;
    * ``state_key``: its entry in a command-line state file (``"metrics"``).

    Parts: ``settings`` (class), ``accumulator`` (class), ``paddle_class`` (the
    ``paddle.metric.Metric``), ``functional`` (per-pair call, or None),
    ``options`` (its own command-line / config options, beyond the shared
    ones), ``from_options`` (settings from option values), ``type_params``
    (what a ROUGE type name sets: ``rouge2`` -> ``{"n": 2}``).
    """

    name: str
    label: str
    state_key: str
    settings: type
    accumulator: type
    paddle_class: type
    key: Optional[str] = None
    functional: Optional[Callable] = None
    options: Tuple[Any, ...] = ()
    from_options: Optional[Callable[[dict], Any]] = None
    type_pattern: Optional[str] = None   # regex of the key with named groups (parametric keys)
    doc: str = ""
    _rx: Any = field(default=None, repr=False, compare=False)

    def __post_init__(self):
        if self.type_pattern is not None:
            object.__setattr__(self, "_rx", re.compile(self.type_pattern + r"\Z"))

    # ---------------------------------------------------------------- names
    def _fmt(self, template: str, settings: Any) -> str:
        if "{" not in template:
            return template
        return template.format(**{k: getattr(settings, k) for k in _fields(template)})

    def label_of(self, settings: Any) -> str:
        return self._fmt(self.label, settings)

    def key_of(self, settings: Any) -> Optional[str]:
        return None if self.key is None else self._fmt(self.key, settings)

    def state_key_of(self, settings: Any) -> str:
        return self._fmt(self.state_key, settings)

    def label_fields(self) -> Tuple[str, ...]:
        """The settings its names depend on (``("n",)`` for ROUGE-N, ``("n_size",)`` for BLEU)."""
        return tuple(dict.fromkeys(_fields(self.label) + _fields(self.state_key)))

    def type_params(self, type_name: str) -> Optional[Dict[str, Any]]:
        """The settings a ROUGE type name fixes (``{}`` for a plain key), or None: not this metric."""
        if self.key is None:
            return None
        if self._rx is None:
            return {} if type_name == self.key else None
        m = self._rx.match(type_name)
        return None if m is None else {k: int(v) for k, v in m.groupdict().items()}


def _fields(template: str):
    return re.findall(r"\{(\w+)\}", template)
