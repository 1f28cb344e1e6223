"""Line-aligned text files scored (``score``, ``compare``, ``explain``, ``report``): the types of
``--rouge-types`` from the metric registry (:mod:`paddle_rougel.metrics`), each file read by
:mod:`paddle_rougel.cli.lineio`, every text read as :func:`line_text` says.
"""
from __future__ import annotations

from typing import Any, Dict, List, Optional, Tuple

from paddle_rougel.api.functional import score_all
from paddle_rougel.metrics import OPTIONS, resolve_type
from paddle_rougel.core.settings import ROUGE_OPTIONS, TEXT_OPTIONS

from .common import BATCH, TYPE_OPTIONS, CliError, build, check_input, choices
from .lineio import read_instances, read_text
from .progress import Progress

__all__ = ["N_MARKER", "line_text", "score_lines", "line_metrics", "line_metric", "line_accumulators",
           "read_input", "read_score_inputs", "no_bonus"]

N_MARKER = "<n>"


def line_text(text: str) -> str:
    """The one reading of a text the line commands score (``score``, ``compare``, ``explain``,
    ``report``): ``<n>``, the CNN/DailyMail newline marker, is a line break, for every type of
    every run.  ROUGE-Lsum (newline split) takes it as a sentence break; to the other types a
    newline is whitespace, as rouge-score reads the same summaries (the marker is never a token)."""
    return text.replace(N_MARKER, "\n") if N_MARKER in text else text


def score_lines(accs: "Dict[str, Any] | Any", hyps: List[str], refsets: List[List[str]],
                origin: Dict[str, str]) -> None:
    """Line-aligned texts into each accumulator (``{name: acc}``, or one), each read by
    :func:`line_text`; ROUGE-N and ROUGE-L read each batch once (:func:`functional.score_all`)."""
    if not isinstance(accs, dict):
        accs = {"": accs}
    for acc in accs.values():
        if "tokenize" in origin:  # a tokenizer named by a flag or the config: no English-as-characters hint
            acc.hint.chosen()
    hyps = [line_text(h) for h in hyps]
    refsets = [[line_text(r) for r in rs] for rs in refsets]
    n = len(hyps)
    bar = Progress(n, "scoring", min_total=2 * BATCH)
    for lo in range(0, n, BATCH):
        hi = min(lo + BATCH, n)
        score_all(accs, hyps[lo:hi], [[rs[i] for rs in refsets] for i in range(lo, hi)], base=lo)
        bar.update(hi - lo)
    bar.close()


def line_metrics(opts) -> Tuple[Dict[str, Any], Dict[str, str], List[tuple]]:
    """(values, origin, [(type name, spec, params, settings)]) of `score` / text `compare`:
    ``--rouge-types`` (default rougeL; ``--summary-level``: rougeLsum)."""
    values, origin = choices(opts, ROUGE_OPTIONS + TEXT_OPTIONS + tuple(OPTIONS[k] for k in TYPE_OPTIONS))
    types = opts.rouge_types
    if opts.summary_level:
        if types is not None:
            raise CliError("give --summary-level or --rouge-types, not both (--summary-level is "
                           "--rouge-types rougeLsum)")
        types = ["rougeLsum"]
    parts = []
    for name in types or ["rougeL"]:
        spec, params = resolve_type(name)
        parts.append((name, spec, params, build(lambda v: spec.from_options({**v, **params}), values, origin)))
    specs = {p[1].name for p in parts}
    if "split" in values and "RougeLsum" not in specs:
        raise CliError(f"{origin['split']}: a sentence split needs --summary-level or --rouge-types "
                       "rougeLsum (ROUGE-Lsum)")
    for key, spec in TYPE_OPTIONS.items():  # a flag of a type not asked for
        if key in values and spec.name not in specs and origin[key].startswith("--"):
            raise CliError(f"{origin[key]}: applies to {spec.label.replace('{n}', 'N')} only "
                           f"(--rouge-types {spec.key.replace('{n}', '2')})")
    return values, origin, parts


def line_metric(opts):
    """(values, origin, settings, accumulator class, signature name) of one type (``explain``,
    ``report``: ROUGE-L, or ROUGE-Lsum with --summary-level)."""
    values, origin, parts = line_metrics(opts)
    (name, spec, _, settings), = parts
    return values, origin, settings, spec.accumulator, name


def line_accumulators(parts: List[tuple], values, origin, keep: bool = False) -> Dict[str, Any]:
    """One accumulator per type, by printed name (ROUGE-1, ROUGE-L, ...)."""
    accs = {}
    for _, spec, _, settings in parts:
        acc = build(lambda _: spec.accumulator(settings, keep), values, origin)  # jieba missing, ...
        accs[acc.label] = acc
    return accs


def read_input(path: str, opts, side: str, texts: Optional[Dict[str, str]] = None) -> List[str]:
    """One input's instances (``side``: ``hyp`` or ``ref``): a text file's lines, or a field of
    JSON lines (:mod:`paddle_rougel.cli.lineio`: ``--field``, ``--hyp-field``, ``--ref-field``,
    ``--input-format``); ``texts`` caches a file's text when both sides read it."""
    field = (opts.hyp_field if side == "hyp" else opts.ref_field) or opts.field
    fmt = opts.input_format or "auto"
    if texts is not None and path != "-":
        text = texts[path] = texts[path] if path in texts else read_text(path)
    else:
        text = read_text(path)
    return read_instances(path, text, field, f"--{side}", fmt)


def read_score_inputs(hyp_paths: List[str], ref_paths: List[str], opts) -> Tuple[List[List[str]], List[List[str]]]:
    """Each system's instances and each reference set's, every file read once, aligned."""
    if [*hyp_paths, *ref_paths].count("-") > 1:
        raise CliError("only one of --hyp and --ref can be - (standard input is read once)")
    for p in [*hyp_paths, *ref_paths]:
        if p != "-":
            check_input(p)  # every input there before any is read
    texts: Dict[str, str] = {}  # LLaMA-Factory: --hyp F --ref F reads F once
    systems = [read_input(p, opts, "hyp", texts) for p in hyp_paths]
    refsets = [read_input(p, opts, "ref", texts) for p in ref_paths]
    first = hyp_paths[0]
    for p, lines in [*zip(hyp_paths[1:], systems[1:]), *zip(ref_paths, refsets)]:
        if len(lines) != len(systems[0]):
            raise CliError(f"{p} has {len(lines)} lines but {first} has {len(systems[0])} "
                           "(files must be line-aligned; JSON lines: one object per instance)")
    return systems, refsets


def no_bonus(opts) -> None:
    """Text files have no yes/no labels or entities: a bonus weight there would be ignored."""
    for key in ("yesno_weight", "entity_weight"):
        if opts.settings.get(key) is not None:
            raise CliError(f"{opts.flag_names.get(key, '--' + key.replace('_', '-'))}: the DuReader bonus "
                           "applies to DuReader files (--ref_file/--pred_file), not text files")
