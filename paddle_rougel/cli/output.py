"""What the scoring commands write and print: the result (JSON, a table, or lines laid out by the
command), the ``--per-instance`` rows and the ``--save-state`` file (all or nothing, after the
overwrite check), and each score's bootstrap interval at ``--confidence`` (computed before any
output is written: printing is then quick).
"""
from __future__ import annotations

import json
from typing import Any, Dict, List, Optional, Tuple

from paddle_rougel.api.config import resolve_config_path

from . import procio
from .common import CliError, pct
from .fileio import check_distinct, write_outputs
from .perinstance import RowError, per_instance_format, per_instance_text

__all__ = ["STATE_FORMAT", "print_result", "show", "per_instance_rows", "inputs_of", "check_outputs", "write_results",
           "interval_cell", "scores_result"]

STATE_FORMAT = "paddle-rougel-state/1"


def show(opts, line: str) -> None:
    """A result line: stdout, or stderr when an output goes to stdout (never mixed into it)."""
    if opts.results_to_stderr:
        procio.diag(line)
    else:
        print(line)


def print_result(opts, result: Any, fmt: str, signature: str, extra_lines: List[str]) -> None:
    procio.hold()  # outputs committed, the result computed: the run ends with its status
    extra_lines = [procio.printable(line) for line in extra_lines]  # file names, input keys: escaped
    if fmt == "json":
        show(opts, json.dumps(result, ensure_ascii=False))
        for line in extra_lines:
            procio.diag(line)
        procio.diag(signature)
    elif fmt == "lines":  # a table laid out by its command (breakdown: --by), keys escaped there
        for line in result:
            show(opts, procio.printable(line))
        for line in extra_lines:
            procio.diag(line)
        show(opts, signature)
    else:
        width = max(len(k) for k in result) if result else 6
        show(opts, f"{'metric':<{width}}  score")
        for k, v in result.items():
            show(opts, procio.printable(f"{k:<{width}}  {v}"))
        for line in extra_lines:
            procio.diag(line)
        show(opts, signature)


def per_instance_rows(opts, names: Tuple[str, ...], keys: List[tuple], score, bonus=None) -> Optional[str]:
    """The --per-instance rows (None without --per-instance)."""
    if not opts.per_instance:
        return None
    try:
        return per_instance_text(names, keys, score, bonus,
                                 per_instance_format(opts.per_instance, opts.per_instance_format))
    except RowError as e:
        raise CliError(f"--per-instance: {e}") from None


def inputs_of(opts, *flags: str) -> List[Tuple[str, str]]:
    """The files a command reads, for the output-overwrite check (``-``: standard input)."""
    return [(flag, getattr(opts, flag.lstrip("-").replace("-", "_"))) for flag in flags]


def check_outputs(opts, inputs: List[Tuple[str, str]]) -> None:
    """Before any work: outputs vs inputs and each other."""
    if opts.per_instance_format and not opts.per_instance:
        raise CliError("--per-instance-format needs --per-instance FILE")
    if opts.config:
        inputs = inputs + [("--config", resolve_config_path(opts.config))]
    check_distinct(inputs, [("--per-instance", opts.per_instance), ("--save-state", opts.save_state)])


def write_results(opts, per_instance: Optional[str], states: Dict[str, dict], signature: str) -> None:
    files = []
    if opts.per_instance:
        files.append((opts.per_instance, per_instance))
    if opts.save_state:
        state = {"format": STATE_FORMAT, "signature": signature, "metrics": states}
        files.append((opts.save_state, json.dumps(state, ensure_ascii=False, indent=1) + "\n"))
    write_outputs(files)  # all or nothing


def interval_cell(opts, name: str, acc, score: float) -> Dict[str, float]:
    """A score (x100) with its bootstrap interval at ``--confidence``: ``{score, pm, low, high}``."""
    try:
        iv = acc.confidence_interval(opts.resamples, opts.confidence, opts.seed)
    except ValueError as e:
        raise CliError(f"--confidence {opts.confidence} --resamples {opts.resamples}: {name}: {e}") from None
    low, high = pct(iv.low), pct(iv.high)
    return {"score": pct(score), "pm": round((high - low) / 2, 2), "low": low, "high": high}


def scores_result(opts, accs: Dict[str, Any], scores: Dict[str, float]) -> Tuple[Dict[str, Any], str]:
    """(what to print, its format): the scores (x100, 2 decimals); with --confidence, each with
    its bootstrap interval (computed before the outputs are written: printing is then quick)."""
    if opts.confidence is None:
        return {k: pct(v) for k, v in scores.items()}, opts.format
    result = {name: interval_cell(opts, name, acc, scores[name]) for name, acc in accs.items()}
    if opts.format == "json":
        return result, "json"
    return {k: f"{v['score']:.2f} ± {v['pm']:.2f}  [{v['low']:.2f}, {v['high']:.2f}]"
            for k, v in result.items()}, "table"
