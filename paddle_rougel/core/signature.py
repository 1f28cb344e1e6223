"""The one signature builder: every setting that changes a number, as one line (sacreBLEU style).

Every caller builds its line here: :func:`paddle_rougel.compute` (several ROUGE types, each
setting once), a metric object's ``signature()`` (one metric), and the command line (its
extra parts passed as data: intervals, bonus files, ...).  The order is fixed: the type
names joined by ``+``, every setting once, the extra parts, the version, the engine (never a
number) last.

>>> from paddle_rougel.metrics.rouge_l import RougeLSettings
>>> s = RougeLSettings(gamma=1.0, multi_ref="best")
>>> signature([("rougeL", None, (), s)], version=True)
'rougeL|gamma:1.0|multi_ref:best|tok:char|norm:none|lc:no|v:0.1.0'
"""
from __future__ import annotations

from typing import Iterable, Optional

from .version import __version__

__all__ = ["signature"]


def signature(parts: Iterable[tuple], *extra: str, version: bool = False, engine: Optional[str] = None) -> str:
    """``rouge1+rougeL|<every setting, once>|<extra...>|v:<version>|engine:<name>``.

    ``parts``: ``(type name, spec, params, settings)``; a setting the type name fixes
    (ROUGE-N's ``n:2``, a key in ``params``) is said by the name and left out.  ``extra``:
    parts the caller adds after the settings; ``version``: append ``v:``; ``engine``: the
    back end's name, appended last when given."""
    names, seen = [], []
    for name, _spec, params, settings in parts:
        names.append(name)
        for part in settings.signature().split("|"):
            if part.split(":", 1)[0] not in params and part not in seen:
                seen.append(part)
    tail = list(extra) + ([f"v:{__version__}"] if version else []) + ([f"engine:{engine}"] if engine else [])
    return "|".join(["+".join(names), *seen, *tail])
