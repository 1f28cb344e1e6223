"""What every command shares: the one-line error, messages, the settings' values from the flags and
the config file (and where each came from), and the numbers' checks and scales.  Commands receive
the resolved :class:`paddle_rougel.cli.options.Options`, never argparse's namespace.
"""
from __future__ import annotations

import os
import math
import warnings
from typing import Any, Dict, Sequence, Tuple

from paddle_rougel.api.config import ConfigError, read_config
from paddle_rougel.metrics import METRICS
from paddle_rougel.core.scoring import weighting

from . import procio
from .fileio import OutputError
from .jsonline import InputError

__all__ = ["PROG", "BATCH", "TYPE_OPTIONS", "CliError", "USER_ERRORS", "say", "error", "show_warning", "os_message",
           "no_field_flags",
           "check_input", "choices", "build", "weights", "check_finite", "pct", "level", "type_scores"]

PROG = "paddle-rougel"
BATCH = 8192  # instances per scoring call (progress granularity)
TYPE_OPTIONS = {o.key: s for s in METRICS.values() if s.key is not None for o in s.options}  # each ROUGE type's own options (split, distinct)


class CliError(Exception):
    """A one-line error for the user."""


USER_ERRORS = (CliError, InputError, ConfigError, OutputError)  # printed as one line, status 2


def say(kind: str, msg: str) -> None:
    procio.diag(f"{PROG}: {kind}: {procio.printable(msg)}")  # a newline in a file or member name: one line


def error(msg: str) -> None:
    say("error", msg)


def show_warning(message, category, filename, lineno, file=None, line=None) -> None:
    """Warnings as one plain line (no source line): the engine's fallback notice."""
    text = str(message)
    if text.startswith("paddle_rougel: "):
        text = text[len("paddle_rougel: "):]
    say("warning", text)


def os_message(e: OSError) -> str:
    why = e.strerror or str(e) or type(e).__name__
    return f"{e.filename}: {why}" if e.filename not in (None, "") else why


def check_input(path: str) -> None:
    if not os.path.exists(path):
        raise CliError(f"{path}: no such file")
    if os.path.isdir(path):
        raise CliError(f"{path}: is a directory, expected a file")


def no_field_flags(opts) -> None:
    """CliError when a JSON-lines field flag comes with DuReader files, which it would not change."""
    given = [flag for flag, v in (("--field", opts.field), ("--hyp-field", opts.hyp_field),
                                  ("--ref-field", opts.ref_field),
                                  ("--input-format", None if opts.input_format == "auto" else opts.input_format))
             if v is not None]
    if given:
        raise CliError(f"{', '.join(given)}: for text and JSON-lines files (--hyp/--ref); DuReader files "
                       "(--ref_file/--pred_file) are read by the contest's own fields (question_id, answers, ...)")


def choices(opts, options: Sequence) -> Tuple[Dict[str, Any], Dict[str, str]]:
    """The settings' values: the config file's, then the flags given (``{key: value}``), and
    where each came from (``{key: "--gamma"}``, ``{key: "x.yaml: 'gamma'"}``) for messages."""
    values: Dict[str, Any] = {}
    origin: Dict[str, str] = {}
    if opts.config:
        for key, (val, where) in read_config(opts.config).items():
            values[key], origin[key] = val, where
    given = [(o, opts.settings.get(o.key)) for o in options]
    given = [(o, v) for o, v in given if v is not None]
    for o, v in given:
        values[o.key], origin[o.key] = v, opts.flag_names.get(o.key, o.flags[0])
        old = {"yesno_weight": "--alpha", "entity_weight": "--beta"}.get(o.key)
        if old is not None and " " in origin[o.key]:
            raise CliError(f"give {o.flags[0]} or {old}, not both ({old} is its deprecated spelling)")
        if old is not None and origin[o.key] == old:  # the contest script's names of the bonus weights
            warnings.warn(f"{old} for the DuReader bonus weight is deprecated: use {o.flags[0]} "
                          f"({old} is the F weight of `score`)", DeprecationWarning)
    keys = {o.key for o, _ in given}
    try:
        weighting(*(1.0 if k in keys else None for k in ("gamma", "alpha")))  # the one rule
    except ValueError:
        raise CliError("give --gamma or --alpha, not both") from None
    for flag_key, other in (("gamma", "alpha"), ("alpha", "gamma")):
        if flag_key in keys:  # a flag overrides the other weighting of the config file
            values.pop(other, None)
    return values, origin


def build(fn, values: Dict[str, Any], origin: Dict[str, str]):
    """The metrics' settings from the values; an error names the flag or config key at fault."""
    try:
        return fn(values)
    except (ValueError, TypeError, ImportError) as e:
        msg = str(e)
        for key in sorted(origin, key=len, reverse=True):  # longest first: yesno_weight before alpha
            if key in msg:
                raise CliError(f"{origin[key]}: {msg}") from None
        raise CliError(msg) from None


def weights(values: Dict[str, Any], origin: Dict[str, str]) -> str:
    """The numeric settings a scoring failure may come from, with where each was given."""
    parts = [f"{origin[k]} {values[k]}" for k in ("gamma", "alpha", "yesno_weight", "entity_weight")
             if k in origin]
    return ", ".join(parts) or "the default settings"


def check_finite(result: Dict[str, float], why: str) -> None:
    bad = [k for k, v in result.items() if not math.isfinite(v)]
    if bad:
        raise CliError(f"{', '.join(bad)} is not a finite number ({why}); nothing printed")


def pct(x: float) -> float:
    return round(x * 100, 2)


def level(value: float) -> str:
    return f"{value * 100:g}%"


def type_scores(accs: Dict[str, Any]) -> Dict[str, float]:
    """What ``score`` and ``merge`` print (0-1): a ROUGE type's F, P, R (``ROUGE-L``, ``ROUGE-L-P``,
    ``ROUGE-L-R``); a DuReader contest metric (no ROUGE type) its score alone, as ``dureader``."""
    scores: Dict[str, float] = {}
    for name, acc in accs.items():
        if acc.spec.key is None:
            scores[name] = acc.score()
            continue
        mean = acc.scores()
        scores.update({name: mean.fmeasure, f"{name}-P": mean.precision, f"{name}-R": mean.recall})
    return scores
