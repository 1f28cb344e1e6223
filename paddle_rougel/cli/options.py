"""The resolved options of one run: built once from argparse's namespace (:func:`resolve`), frozen,
handed to the command.  Commands and helpers never see the namespace, and nothing is written back.

* ``settings``: the option table's flags given (``{key: value}``, the keys of
  :data:`paddle_rougel.metrics.OPTIONS`: ``gamma``, ``tokenize``, ``split``, ...), merged with a
  config file by :func:`paddle_rougel.cli.common.choices`;
* ``flag_names``: the spelling the user typed for each (``--alpha`` for ``--yesno-weight``);
* the interval's ``confidence`` / ``resamples`` as the rule resolves them (``--confidence N``, the
  old resample count, is ``--resamples N`` at 0.95; ``score --confidence`` draws 1000 by default);
* every other flag of the command by its name (None when the command has no such flag);
* ``results_to_stderr``: an output (``--per-instance -``, ``--save-state /dev/stdout``, ``report
  -o -``) goes to stdout, so the result line goes to stderr.
"""
from __future__ import annotations

import dataclasses
import warnings
from types import MappingProxyType
from typing import Any, List, Mapping, Optional

from paddle_rougel.metrics import OPTIONS
from paddle_rougel.stats.intervals import check_resamples

from .common import CliError
from .fileio import output_fd

__all__ = ["Options", "resolve", "flag_names", "SETTING_KEYS"]

SETTING_KEYS = "setting_keys"  # the namespace's list of the option-table flags a command has (parser)
_OLD_BONUS = {"yesno_weight": "--alpha", "entity_weight": "--beta"}


@dataclasses.dataclass(frozen=True)
class Options:
    """One run's options (see the module doc); a field a command lacks is None."""

    command: str
    settings: Mapping[str, Any] = dataclasses.field(default_factory=lambda: MappingProxyType({}))
    flag_names: Mapping[str, str] = dataclasses.field(default_factory=lambda: MappingProxyType({}))
    # inputs
    pred_file: Any = None  # a path, or (compare, report) a list of them
    ref_file: Optional[str] = None
    hyp: Any = None  # a path, or (compare, report) a list of them
    ref: Optional[List[str]] = None
    field: Optional[str] = None
    hyp_field: Optional[str] = None
    ref_field: Optional[str] = None
    input_format: Optional[str] = None
    state_files: Optional[List[str]] = None
    config: Optional[str] = None
    # what is scored and how it is shown
    rouge_types: Optional[List[str]] = None
    summary_level: Optional[bool] = None
    format: Optional[str] = None
    by: Optional[str] = None
    confidence: Optional[float] = None
    resamples: Optional[int] = None
    seed: Optional[int] = None
    method: Optional[str] = None
    # outputs
    per_instance: Optional[str] = None
    per_instance_format: Optional[str] = None
    save_state: Optional[str] = None
    output: Optional[str] = None
    # explain, report
    question_id: Optional[str] = None
    line: Optional[int] = None
    color: Optional[str] = None
    worst: Optional[int] = None
    # dedup, join (their own --tokenize, --alpha, ...: not the option table's)
    items: Optional[str] = None
    pool: Optional[str] = None
    all: Optional[bool] = None
    best: Optional[str] = None
    threshold: Optional[float] = None
    tokenize: Optional[str] = None
    lowercase: Optional[bool] = None
    stem: Optional[bool] = None
    alpha: Optional[float] = None
    id_field: Optional[str] = None
    threads: Optional[int] = None
    left: Optional[str] = None
    right: Optional[str] = None

    @property
    def results_to_stderr(self) -> bool:
        """Whether an output (per-instance rows, a state, the report page) is written to stdout."""
        outs = [self.per_instance, self.save_state] + ([self.output] if self.command == "report" else [])
        return any(o and output_fd(o) == 1 for o in outs)


_FIELDS = {f.name for f in dataclasses.fields(Options)} - {"command", "settings", "flag_names"}


def flag_names(argv: List[str]) -> Mapping[str, str]:
    """The flag spelling the user typed for each option (--alpha vs --yesno-weight), for messages."""
    names = {}
    for tok in argv:
        flag = tok.split("=", 1)[0]
        for o in OPTIONS.values():
            if flag in o.flags or (o.key == "yesno_weight" and flag == "--alpha") \
                    or (o.key == "entity_weight" and flag == "--beta"):
                names.setdefault(o.key, flag)
                old = _OLD_BONUS.get(o.key)
                first = names[o.key].split(" ")[0]
                if old is not None and (flag == old) != (first == old) and " " not in names[o.key]:
                    names[o.key] += " " + flag  # an old spelling with the new one (see common.choices)
    return MappingProxyType(names)


def resolve(ns, argv: List[str]) -> Options:
    """The run's :class:`Options` from argparse's namespace and the arguments typed (``argv``)."""
    given = dict(vars(ns))
    command = given.pop("command")
    keys = given.pop(SETTING_KEYS, ())
    settings = {k: given.pop(k) for k in keys}
    unknown = set(given) - _FIELDS
    if unknown:  # a flag the parser has and the options lack: a slip of this package
        raise AssertionError(f"options without a field: {sorted(unknown)}")
    if "confidence" in given:
        given["confidence"], given["resamples"] = _interval(given)
    return Options(command=command, settings=MappingProxyType({k: v for k, v in settings.items() if v is not None}),
                   flag_names=flag_names(argv), **given)


def _interval(given: dict):
    """(confidence, resamples) by the rule (stats.check_resamples), before any input is read.
    ``--confidence N`` with N a count (the old spelling) means ``--resamples N``."""
    conf, resamples, method = given["confidence"], given.get("resamples"), given.get("method")
    flag = "--resamples"
    if conf is not None and conf >= 1:  # the old --confidence N (a resample count)
        if resamples is not None:
            raise CliError("--confidence takes a level (e.g. 0.95) with --resamples N")
        instead = "" if method is not None else "--confidence [LEVEL] "  # compare: a level
        warnings.warn(f"--confidence {conf} as a resample count is deprecated: use {instead}"
                      f"--resamples {conf}", DeprecationWarning)
        conf, resamples, flag = 0.95, conf, "--confidence"
    elif conf is None and resamples is not None and method is None:
        raise CliError("--resamples needs --confidence (a bootstrap interval of each score)")
    if method is not None:  # compare: the interval of the difference
        conf = 0.95 if conf is None else conf
        if method != "paired_bootstrap":  # randomization trials: any count
            return conf, resamples
    elif conf is None:
        return conf, resamples
    elif resamples is None:
        resamples = 1000
    try:
        check_resamples(1000 if resamples is None else resamples, conf)
    except ValueError as e:
        raise CliError(f"{flag}: {e}") from None
    return conf, resamples
