"""The ``paddle-rougel`` command line: the parser, option handling, messages and outputs
shared by the commands, whose bodies are in :mod:`cli_dureader`, :mod:`cli_score`
(``score``, ``compare``), :mod:`cli_merge` and :mod:`cli_report` (``explain``, ``report``).
What is not about the commands lives elsewhere: outputs in :mod:`fileio`, rows in
:mod:`perinstance`, streams and signals in :mod:`procio`, contest files in :mod:`dureader_io`.

Commands:

* ``dureader --pred_file P --ref_file R``: the DuReader contest score (ROUGE-L
  and BLEU-4 with the yes/no and entity bonus), printed as the contest's
  JSON ``{"ROUGE-L": .., "BLEU-4": ..}`` (x100, 2 decimals) on stdout;
* ``score --hyp H --ref R [--ref R2 ...] [--rouge-types rouge1,rouge2,rougeL,rougeLsum]``:
  ROUGE of line-aligned text files, every type in one table / JSON (the types come from
  the metric registry, :mod:`paddle_rougel.metrics`);
* ``merge STATE...``: combine ``dureader --save-state`` files (or metric
  ``state_dict()`` JSON files) into the score of all their data;
* ``explain`` and ``report``, and ``--by`` (scores per group) on ``dureader``,
  ``score`` and ``compare``: see :mod:`paddle_rougel.cli_report`.

Every run prints a signature naming the settings that change the number, then
``engine:c`` or ``engine:python``: the engine never changes the number (both
are exact), it tells the reader what ran; ``merge`` ignores it when comparing
the states' signatures (``--version`` names the engine too).
Machine-readable output (JSON) keeps stdout pure: the signature and counts go
to stderr; the ``table`` format prints the signature under the table.  When an
output (``--per-instance -``, ``--save-state /dev/stdout``) goes to stdout, the
score goes to stderr.  Diagnostics never go to stdout (not even when stderr is
closed: they are dropped, see :mod:`paddle_rougel.procio`).

Errors are one line on stderr (``paddle-rougel: error: ...`` naming the file,
zip member, line or field), exit status 2, no traceback.  Outputs
(``--per-instance``, ``--save-state``; ``-`` is stdout) may not be an input or
each other (symlinks and hard links included), and are written all or nothing,
streams in place and files by rename: see :mod:`paddle_rougel.fileio`.  Inputs
are ``.zip`` archives when the name ends in ``.zip`` in any case or the file
starts with zip magic bytes, else JSON lines.  A reader that closes stdout
early (``| head``) ends the run quietly with status 0; a stdout closed from the
start is an error (the score would vanish).  SIGINT / SIGTERM / SIGHUP exit
with 128 + the signal number, temp files removed (status 0 once everything is
committed and printed).  Warnings (the pure-Python engine fallback, tokenization
hints: :mod:`paddle_rougel.hints`) are one plain ``paddle-rougel: warning:`` line.

(The parser and the option, output and interval helpers every command shares, one home each;
the commands' bodies are in the modules above, flag value parsers in :mod:`cli_values`.)
"""
from __future__ import annotations

import argparse
import json
import math
import os
import sys
import warnings
from typing import Any, Dict, List, Optional, Tuple

import numpy as np

from . import procio
from .core.version import __version__
from .engine import host as engine
from .core import scoring
# accumulators, not the metric classes: those import paddle (about 1 s) when created, and
# this process never needs it; state files are the same either way
from .api.config import ConfigError, read_config, resolve_config_path
from .dureader_io import InputError
from .fileio import OutputError, check_distinct, output_fd, remove_temps, write_outputs
from .cli_values import confidence_level, flag_type, positive_count, seed_value
from .lineio import add_field_options, reject_constant, text_lines
from .api.functional import signature as types_signature
from .metrics import METRICS, OPTIONS, rouge_types
from .metrics.dureader_rouge_l import BONUS_OPTIONS
from .perinstance import FORMATS, RowError, per_instance_format, per_instance_text
from .core.settings import ROUGE_OPTIONS, TEXT_OPTIONS

__all__ = ["main"]

PROG = "paddle-rougel"
_BATCH = 8192  # instances per scoring call (progress granularity)
STATE_FORMAT = "paddle-rougel-state/1"
_TYPE_OPTIONS = {o.key: s for s in METRICS.values() if s.key is not None for o in s.options}  # each ROUGE type's own options (split, distinct)


class CliError(Exception):
    """A one-line error for the user."""


# ------------------------------------------------------------------ helpers

def _say(kind: str, msg: str) -> None:
    procio.diag(f"{PROG}: {kind}: {procio.printable(msg)}")  # a newline in a file or member name: one line


def _err(msg: str) -> None:
    _say("error", msg)


def _show_warning(message, category, filename, lineno, file=None, line=None) -> None:
    """Warnings as one plain line (no source line): the engine's fallback notice."""
    text = str(message)
    if text.startswith("paddle_rougel: "):
        text = text[len("paddle_rougel: "):]
    _say("warning", text)


def _os_message(e: OSError) -> str:
    why = e.strerror or str(e) or type(e).__name__
    return f"{e.filename}: {why}" if e.filename not in (None, "") else why


def check_input(path: str) -> None:
    if not os.path.exists(path):
        raise CliError(f"{path}: no such file")
    if os.path.isdir(path):
        raise CliError(f"{path}: is a directory, expected a file")


def _choices(args, options) -> Tuple[Dict[str, Any], Dict[str, str]]:
    """The settings' values: the config file's, then the flags given (``{key: value}``), and
    where each came from (``{key: "--gamma"}``, ``{key: "x.yaml: 'gamma'"}``) for messages."""
    values: Dict[str, Any] = {}
    origin: Dict[str, str] = {}
    if getattr(args, "config", None):
        for key, (val, where) in read_config(args.config).items():
            values[key], origin[key] = val, where
    given = [(o, getattr(args, o.key, None)) for o in options]
    given = [(o, v) for o, v in given if v is not None]
    for o, v in given:
        values[o.key], origin[o.key] = v, args.flag_names.get(o.key, o.flags[0])
        old = {"yesno_weight": "--alpha", "entity_weight": "--beta"}.get(o.key)
        if old is not None and " " in origin[o.key]:
            raise CliError(f"give {o.flags[0]} or {old}, not both ({old} is its deprecated spelling)")
        if old is not None and origin[o.key] == old:  # the contest script's names of the bonus weights
            warnings.warn(f"{old} for the DuReader bonus weight is deprecated: use {o.flags[0]} "
                          f"({old} is the F weight of `score`)", DeprecationWarning)
    keys = {o.key for o, _ in given}
    try:
        scoring.weighting(*(1.0 if k in keys else None for k in ("gamma", "alpha")))  # the one rule
    except ValueError:
        raise CliError("give --gamma or --alpha, not both") from None
    for flag_key, other in (("gamma", "alpha"), ("alpha", "gamma")):
        if flag_key in keys:  # a flag overrides the other weighting of the config file
            values.pop(other, None)
    return values, origin


def _build(fn, values: Dict[str, Any], origin: Dict[str, str]):
    """The metrics' settings from the values; an error names the flag or config key at fault."""
    try:
        return fn(values)
    except (ValueError, TypeError, ImportError) as e:
        msg = str(e)
        for key in sorted(origin, key=len, reverse=True):  # longest first: yesno_weight before alpha
            if key in msg:
                raise CliError(f"{origin[key]}: {msg}") from None
        raise CliError(msg) from None


def _weights(values: Dict[str, Any], origin: Dict[str, str]) -> str:
    """The numeric settings a scoring failure may come from, with where each was given."""
    parts = [f"{origin[k]} {values[k]}" for k in ("gamma", "alpha", "yesno_weight", "entity_weight")
             if k in origin]
    return ", ".join(parts) or "the default settings"


def _signature(metric: str, settings, *extra: str) -> str:
    """Every setting that changes the number, then the version; the engine (never a number) last."""
    return "|".join([metric, settings.signature(), *extra, f"v:{__version__}", f"engine:{engine.backend()}"])


def _check_finite(result: Dict[str, float], why: str) -> None:
    bad = [k for k, v in result.items() if not math.isfinite(v)]
    if bad:
        raise CliError(f"{', '.join(bad)} is not a finite number ({why}); nothing printed")


def _pct(x: float) -> float:
    return round(x * 100, 2)


def _to_stdout(args) -> bool:
    """Whether an output (per-instance rows, a state) is written to stdout."""
    return any(getattr(args, o, None) and output_fd(getattr(args, o)) == 1
               for o in ("per_instance", "save_state"))


def _show(args, line: str) -> None:
    """A result line: stdout, or stderr when an output goes to stdout (never mixed into it)."""
    if getattr(args, "results_to_stderr", False):
        procio.diag(line)
    else:
        print(line)


def _print_result(args, result: Dict[str, Any], fmt: str, signature: str, extra_lines: List[str]) -> None:
    procio.hold()  # outputs committed, the result computed: the run ends with its status
    extra_lines = [procio.printable(line) for line in extra_lines]  # file names, input keys: escaped
    if fmt == "json":
        _show(args, json.dumps(result, ensure_ascii=False))
        for line in extra_lines:
            procio.diag(line)
        procio.diag(signature)
    elif fmt == "lines":  # a table laid out by its command (cli_report: --by), keys escaped there
        for line in result:
            _show(args, procio.printable(line))
        for line in extra_lines:
            procio.diag(line)
        _show(args, signature)
    else:
        width = max(len(k) for k in result) if result else 6
        _show(args, f"{'metric':<{width}}  score")
        for k, v in result.items():
            _show(args, procio.printable(f"{k:<{width}}  {v}"))
        for line in extra_lines:
            procio.diag(line)
        _show(args, signature)


def _per_instance(args, names: Tuple[str, ...], keys: List[tuple], score, bonus=None) -> Optional[str]:
    """The --per-instance rows (None without --per-instance)."""
    if not args.per_instance:
        return None
    try:
        return per_instance_text(names, keys, score, bonus,
                                 per_instance_format(args.per_instance, args.per_instance_format))
    except RowError as e:
        raise CliError(f"--per-instance: {e}") from None


def _check_outputs(args, inputs: List[Tuple[str, str]]) -> None:
    """Before any work: outputs vs inputs and each other; where the score goes."""
    if args.per_instance_format and not args.per_instance:
        raise CliError("--per-instance-format needs --per-instance FILE")
    if getattr(args, "config", None):
        inputs = inputs + [("--config", resolve_config_path(args.config))]
    check_distinct(inputs, [("--per-instance", args.per_instance), ("--save-state", args.save_state)])
    args.results_to_stderr = _to_stdout(args)


def _inputs(args, *flags: str) -> List[Tuple[str, str]]:
    """The files a command reads, for the output-overwrite check (``-``: standard input)."""
    return [(flag, getattr(args, flag.lstrip("-").replace("-", "_"))) for flag in flags]


def _write_results(args, per_instance: Optional[str], states: Dict[str, dict], signature: str) -> None:
    files = []
    if args.per_instance:
        files.append((args.per_instance, per_instance))
    if args.save_state:
        state = {"format": STATE_FORMAT, "signature": signature, "metrics": states}
        files.append((args.save_state, json.dumps(state, ensure_ascii=False, indent=1) + "\n"))
    write_outputs(files)  # all or nothing


def _level(level: float) -> str:
    return f"{level * 100:g}%"


def _ci_signature(args) -> List[str]:
    if getattr(args, "confidence", None) is None:
        return []
    return [f"ci:bootstrap,n:{args.resamples},level:{_level(args.confidence)},seed:{args.seed}"]


def _type_scores(accs: Dict[str, Any]) -> Dict[str, float]:
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


def _interval_cell(args, name: str, acc, score: float) -> Dict[str, float]:
    """A score (x100) with its bootstrap interval at ``--confidence``: ``{score, pm, low, high}``."""
    try:
        iv = acc.confidence_interval(args.resamples, args.confidence, args.seed)
    except ValueError as e:
        raise CliError(f"--confidence {args.confidence} --resamples {args.resamples}: {name}: {e}") from None
    low, high = _pct(iv.low), _pct(iv.high)
    return {"score": _pct(score), "pm": round((high - low) / 2, 2), "low": low, "high": high}


def _scores_result(args, accs: Dict[str, Any], scores: Dict[str, float]) -> Tuple[Dict[str, Any], str]:
    """(what to print, its format): the scores (x100, 2 decimals); with --confidence, each with
    its bootstrap interval (computed before the outputs are written: printing is then quick)."""
    if args.confidence is None:
        return {k: _pct(v) for k, v in scores.items()}, args.format
    result = {name: _interval_cell(args, name, acc, scores[name]) for name, acc in accs.items()}
    if args.format == "json":
        return result, "json"
    return {k: f"{v['score']:.2f} ± {v['pm']:.2f}  [{v['low']:.2f}, {v['high']:.2f}]"
            for k, v in result.items()}, "table"


def read_text(path: str) -> str:
    """A file's text (``-``: standard input): UTF-8, an optional BOM dropped; errors name the line."""
    if path == "-":
        data = sys.stdin.buffer.read() if sys.stdin is not None else b""
    else:
        check_input(path)
        try:
            with open(path, "rb") as f:
                data = f.read()
        except OSError as e:
            raise CliError(f"{path}: cannot read ({e.strerror or e})") from None
    if data.startswith(b"\xef\xbb\xbf"):  # dropped before decoding: offsets stay file offsets - 3
        data = data[3:]
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise CliError(f"{path}:{_line_of(data, e.start)}: not UTF-8 text") from None


def _read_json(path: str) -> Any:
    text = read_text(path)
    try:
        obj = json.loads(text, parse_constant=reject_constant)
    except ValueError as e:
        raise CliError(f"{path}: invalid JSON ({e})") from None
    except RecursionError:
        raise CliError(f"{path}: invalid JSON (nested too deeply)") from None
    return obj


def _line_of(data: bytes, offset: int) -> int:
    return data.count(b"\n", 0, offset) + 1


def _read_lines(path: str) -> List[str]:
    """A text file's lines (``-``: standard input), UTF-8 with an optional BOM."""
    return text_lines(read_text(path))


def run_signature(parts: List[tuple], *extra: str) -> str:
    """Every setting of every type (once), then the version; the engine last."""
    return "|".join([types_signature(parts), *extra, f"v:{__version__}", f"engine:{engine.backend()}"])


# ------------------------------------------------------------------- parser

def _add_options(p: argparse.ArgumentParser, options, aliases: Optional[Dict[str, tuple]] = None) -> None:
    """Flags from the settings' option table (one definition for flags, config keys and checks)."""
    for o in options:
        p.add_argument(*(o.flags + (aliases or {}).get(o.key, ())), dest=o.key, type=flag_type(o.parse),
                       choices=o.choices, default=None, help=o.help)


def _check_resamples(args) -> None:
    """The interval's level and resample count (the rule: stats.check_resamples), before any input
    is read.  ``--confidence N`` with N a count (the old spelling) means ``--resamples N``."""
    from .stats.intervals import check_resamples

    if not hasattr(args, "confidence"):
        return
    level, flag = args.confidence, "--resamples"
    if level is not None and level >= 1:  # the old --confidence N (a resample count)
        if getattr(args, "resamples", None) is not None:
            raise CliError("--confidence takes a level (e.g. 0.95) with --resamples N")
        instead = "" if getattr(args, "method", None) is not None else "--confidence [LEVEL] "  # compare: a level
        warnings.warn(f"--confidence {level} as a resample count is deprecated: use {instead}"
                      f"--resamples {level}", DeprecationWarning)
        args.confidence, args.resamples, flag = 0.95, level, "--confidence"
    elif level is None and getattr(args, "resamples", None) is not None and getattr(args, "method", None) is None:
        raise CliError("--resamples needs --confidence (a bootstrap interval of each score)")
    if getattr(args, "method", None) is not None:  # compare: the interval of the difference
        args.confidence = 0.95 if args.confidence is None else args.confidence
        if args.method != "paired_bootstrap":  # randomization trials: any count
            return
    elif args.confidence is None:
        return
    elif args.resamples is None:
        args.resamples = 1000
    try:
        check_resamples(1000 if args.resamples is None else args.resamples, args.confidence)
    except ValueError as e:
        raise CliError(f"{flag}: {e}") from None


def _rouge_types(text: str) -> List[str]:
    try:
        return rouge_types(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def _add_summary(p: argparse.ArgumentParser, types: bool = True) -> None:
    """Without ``types`` (explain, report: ROUGE-L or -Lsum only) other types' options are left out."""
    if types:
        p.add_argument("--rouge-types", "--rouge_types", dest="rouge_types", type=_rouge_types, default=None,
                       metavar="TYPES", help="comma-separated: rouge1, rouge2 (any rougeN), rougeL "
                                             "(default), rougeLsum; every type in one table / JSON")
    p.add_argument("--summary-level", "--summary_level", dest="summary_level", action="store_true",
                   help="ROUGE-Lsum (summary-level, union LCS over sentences) instead of ROUGE-L "
                        "(= --rouge-types rougeLsum)")
    _add_options(p, [OPTIONS[k] for k, spec in _TYPE_OPTIONS.items()
                     if types or spec.key in ("rougeL", "rougeLsum")])


def _add_confidence(p: argparse.ArgumentParser, always: bool = False) -> None:
    """``always``: intervals without the flag too (``report``), at 0.95 unless LEVEL is given."""
    when = "always drawn; LEVEL " if always else ""
    p.add_argument("--confidence", nargs="?", const=0.95, type=confidence_level, default=0.95 if always else None,
                   metavar="LEVEL", help=f"percentile bootstrap interval of each score over instances at LEVEL "
                                         f"({when}default 0.95; at least 2 instances)")
    p.add_argument("--resamples", type=positive_count, default=None, metavar="N",
                   help="bootstrap resamples of --confidence (default 1000; at least 40 at 0.95, "
                        "200 at 0.99)")
    p.add_argument("--seed", type=seed_value, default=0, help="resampling seed (default 0)")


def _add_outputs(p: argparse.ArgumentParser, per_instance_help: str) -> None:
    p.add_argument("--config", help="YAML config file or preset name (dureader, paddlenlp, rouge155, t2t)")
    p.add_argument("--per-instance", "--per_instance", dest="per_instance", metavar="FILE",
                   help=per_instance_help + " (- for standard output: the score then goes to stderr)")
    p.add_argument("--per-instance-format", "--per_instance_format", dest="per_instance_format",
                   choices=FORMATS, default=None,
                   help="jsonl or csv (default: csv when FILE ends in .csv, else jsonl)")
    p.add_argument("--save-state", "--save_state", dest="save_state", metavar="FILE",
                   help="write the metrics' state (for `merge`; - for standard output)")
    p.add_argument("--format", choices=("json", "table"), default="json",
                   help="json (default: one line on stdout, scores x100) or table")


def _command(module: str, name: str):
    """A command's function, from its module (which imports this one for the shared helpers)."""
    def run(args) -> int:
        import importlib

        return getattr(importlib.import_module(f".{module}", __package__), name)(args)

    return run


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog=PROG, description="Fast exact ROUGE-L (and the DuReader contest score).")
    ap.add_argument("--version", action="version",
                    version=f"{PROG} {__version__} (engine: {engine.backend()})")
    sub = ap.add_subparsers(dest="command", required=True)

    d = sub.add_parser("dureader", help="DuReader contest score: ROUGE-L and BLEU-4 with bonus")
    d.add_argument("--pred_file", "--pred-file", required=True, help="predictions (JSON lines or .zip)")
    d.add_argument("--ref_file", "--ref-file", required=True, help="references (JSON lines or .zip)")
    _add_options(d, [OPTIONS["gamma"], OPTIONS["multi_ref"]] + list(TEXT_OPTIONS))
    # --alpha / --beta: the contest script's names for the bonus weights (ROUGE's alpha is --alpha
    # of `score`); kept as aliases
    _add_options(d, BONUS_OPTIONS, {"yesno_weight": ("--alpha",), "entity_weight": ("--beta",)})
    _add_outputs(d, "write one row per question: id, type, ROUGE-L P, R, F (0-1) and the "
                    "weighted bonus in tokens (the largest over its references)")
    _add_confidence(d)
    _add_by(d, dureader=True, text=False)
    d.set_defaults(func=_command("cli_dureader", "cmd_dureader"))

    sc = sub.add_parser("score", help="ROUGE-L of line-aligned hypothesis/reference text files")
    sc.add_argument("--hyp", required=True, help="hypotheses, one per line or JSON lines (- for standard input)")
    sc.add_argument("--ref", required=True, action="append",
                    help="references, one per line; repeat for several reference sets (- for stdin)")
    add_field_options(sc)  # JSON lines: --field, --hyp-field, --ref-field, --input-format
    _add_options(sc, ROUGE_OPTIONS + TEXT_OPTIONS)
    _add_summary(sc)
    _add_outputs(sc, "write one row per hypothesis line: line, P, R, F (0-1)")
    _add_confidence(sc)
    _add_by(sc, dureader=False, text=True)
    sc.set_defaults(func=_command("cli_score", "cmd_score"))

    c = sub.add_parser("compare", help="is system B better than A? paired test on the same references")
    c.add_argument("--ref_file", "--ref-file", help="DuReader references (with two --pred_file)")
    c.add_argument("--pred_file", "--pred-file", action="append", help="DuReader predictions: A, then B")
    c.add_argument("--ref", action="append", help="text references, one per line (with two --hyp)")
    c.add_argument("--hyp", action="append", help="text hypotheses: A, then B")
    add_field_options(c)
    c.add_argument("--method", choices=("paired_bootstrap", "approximate_randomization"),
                   default="paired_bootstrap", help="sacreBLEU's paired-bs (default) or paired-ar")
    c.add_argument("--resamples", type=positive_count, default=None,
                   help="bootstrap resamples (default 1000, at least 40) or randomization trials "
                        "(default 10000); at least 2 instances")
    c.add_argument("--confidence", type=confidence_level, default=None, metavar="LEVEL",
                   help="level of the interval of the difference (default 0.95)")
    c.add_argument("--seed", type=seed_value, default=0, help="resampling seed (default 0)")
    _add_options(c, [OPTIONS["gamma"], OPTIONS["multi_ref"]] + list(TEXT_OPTIONS))
    _add_options(c, BONUS_OPTIONS)
    _add_summary(c)
    c.add_argument("--config", help="YAML config file or preset name")
    c.add_argument("--format", choices=("json", "table"), default="json")
    _add_by(c, dureader=True, text=True)
    c.set_defaults(func=_command("cli_score", "cmd_compare"))

    m = sub.add_parser("merge", help="combine state files into the score of all their data")
    m.add_argument("state_files", nargs="+", metavar="STATE_FILE")
    m.add_argument("--config", help="check the states were made with this config")
    m.add_argument("--format", choices=("json", "table"), default="json")
    _add_confidence(m)  # over the instances the states keep (score --confidence --save-state)
    m.set_defaults(func=_command("cli_merge", "cmd_merge"))

    from . import cli_report  # explain, report (cli_report.py)
    cli_report.add_parsers(sub)
    from . import cli_scale  # dedup, join (cli_scale.py)
    cli_scale.add_parsers(sub)
    # rouge155 takes ROUGE-1.5.5.pl's own flags: main() hands its arguments over before argparse
    sub.add_parser("rouge155", add_help=False,
                   help="ROUGE-1.5.5.pl's command line, its output byte for byte (rouge155/cli.py)")
    return ap


def _add_by(p: argparse.ArgumentParser, dureader: bool, text: bool) -> None:
    from . import cli_report
    cli_report.add_by(p, dureader, text)


def _flag_names(argv: List[str]) -> Dict[str, str]:
    """The flag spelling the user typed for each option (--alpha vs --yesno-weight), for messages."""
    names = {}
    for tok in argv:
        flag = tok.split("=", 1)[0]
        for o in OPTIONS.values():
            if flag in o.flags or (o.key == "yesno_weight" and flag == "--alpha") \
                    or (o.key == "entity_weight" and flag == "--beta"):
                names.setdefault(o.key, flag)
                old = {"yesno_weight": "--alpha", "entity_weight": "--beta"}.get(o.key)
                first = names[o.key].split(" ")[0]
                if old is not None and (flag == old) != (first == old) and " " not in names[o.key]:
                    names[o.key] += " " + flag  # an old spelling with the new one (see _choices)
    return names


def _stdout_gone() -> int:
    """stdout's reader went away (``| head``): quiet, as other CLIs; what it read is what it wanted."""
    procio.stdout_gone()  # fd 1 to /dev/null: the interpreter's final flush cannot fail again
    return 0


def _run(args) -> int:
    if sys.stdout is None:  # started with fd 1 closed: the score would vanish
        raise CliError("standard output is closed: nowhere to print the score")
    _check_resamples(args)
    with np.errstate(all="ignore"):  # numbers are checked finite before printing: no numpy warnings
        rc = args.func(args)
    procio.hold()  # printed (and committed): a signal from here on is dropped
    try:
        sys.stdout.flush()  # a closed pipe shows up here
    except BrokenPipeError:
        rc = _stdout_gone()
    procio.finish()
    return rc


def main(argv: Optional[List[str]] = None) -> int:
    """Run the command line; returns the exit status (0 ok, 2 error, 128 + N on signal N)."""
    raw = list(sys.argv[1:] if argv is None else argv)
    if raw[:1] == ["rouge155"]:  # the Perl script's flags (Getopt::Std), not argparse's
        from .rouge155.cli import main as rouge155_main
        return rouge155_main(raw[1:])
    parser = build_parser()
    try:
        try:
            args = parser.parse_args(argv)
        finally:
            if sys.stdout is not None:
                sys.stdout.flush()  # --help / --version into a closed pipe
    except SystemExit as e:  # usage errors (2), --help / --version (0)
        return e.code if isinstance(e.code, int) else 2
    except BrokenPipeError:
        return _stdout_gone()
    args.flag_names = _flag_names(list(sys.argv[1:] if argv is None else argv))
    with warnings.catch_warnings():
        warnings.showwarning = _show_warning  # one plain line, no source line
        # our deprecations (--alpha, --confidence N) are for the user: shown, as any warning here
        warnings.filterwarnings("default", category=DeprecationWarning, module=r"paddle_rougel(\.|$)")
        try:
            return _run(args)
        except BrokenPipeError:
            return _stdout_gone()
        except (CliError, InputError, ConfigError, OutputError) as e:
            _err(str(e))
        except (ValueError, TypeError, OverflowError) as e:  # a metric rejected an input
            _err(str(e) or type(e).__name__)
        except RecursionError:
            _err("input nested too deeply")
        except MemoryError:
            _err("out of memory")
        except OSError as e:
            _err(_os_message(e))
        except KeyboardInterrupt as e:  # Ctrl-C, or SIGTERM / SIGHUP as procio.Interrupted
            procio.stop()
            remove_temps()
            _err("interrupted" if not isinstance(e, procio.Interrupted) else f"interrupted ({e})")
            return getattr(e, "status", 130)
        finally:
            procio.stop()  # cleaning up: a signal now changes nothing
            remove_temps()
    return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
