"""``paddle-rougel score`` and ``compare``: ROUGE of line-aligned text files (every type of
``--rouge-types`` in one table / JSON), and the paired test of two systems (text files, or
DuReader files through :mod:`paddle_rougel.cli_dureader`).  The types come from the metric
registry (:mod:`paddle_rougel.metrics`); shared option handling and outputs are in
:mod:`paddle_rougel.cli`.
"""
from __future__ import annotations

from typing import Any, Dict, List, Optional, Tuple

from . import procio
from .cli import _BATCH, _TYPE_OPTIONS, CliError, _build, _check_finite, check_input, _check_outputs, _choices, _ci_signature, _inputs, _level, _pct, _per_instance, _print_result, read_text, _scores_result, _signature, _type_scores, run_signature, _weights, _write_results
from .cli_dureader import _contest_metrics, _counts, _read_contests
from .api.functional import score_all
from .lineio import read_instances
from .metrics import OPTIONS, resolve_type
from .metrics.dureader_rouge_l import BONUS_OPTIONS, dureader_from_options
from .progress import Progress
from .core.settings import ROUGE_OPTIONS, TEXT_OPTIONS

__all__ = ["cmd_score", "cmd_compare", "line_text", "N_MARKER"]


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
    bar = Progress(n, "scoring", min_total=2 * _BATCH)
    for lo in range(0, n, _BATCH):
        hi = min(lo + _BATCH, n)
        score_all(accs, hyps[lo:hi], [[rs[i] for rs in refsets] for i in range(lo, hi)], base=lo)
        bar.update(hi - lo)
    bar.close()



def line_metrics(args) -> Tuple[Dict[str, Any], Dict[str, str], List[tuple]]:
    """(values, origin, [(type name, spec, params, settings)]) of `score` / text `compare`:
    ``--rouge-types`` (default rougeL; ``--summary-level``: rougeLsum)."""
    values, origin = _choices(args, ROUGE_OPTIONS + TEXT_OPTIONS
                              + tuple(OPTIONS[k] for k in _TYPE_OPTIONS))
    types = getattr(args, "rouge_types", None)
    if args.summary_level:
        if types is not None:
            raise CliError("give --summary-level or --rouge-types, not both (--summary-level is "
                           "--rouge-types rougeLsum)")
        types = ["rougeLsum"]
    parts = []
    for name in types or ["rougeL"]:
        spec, params = resolve_type(name)
        parts.append((name, spec, params, _build(lambda v: spec.from_options({**v, **params}), values, origin)))
    specs = {p[1].name for p in parts}
    if "split" in values and "RougeLsum" not in specs:
        raise CliError(f"{origin['split']}: a sentence split needs --summary-level or --rouge-types "
                       "rougeLsum (ROUGE-Lsum)")
    for key, spec in _TYPE_OPTIONS.items():  # a flag of a type not asked for
        if key in values and spec.name not in specs and origin[key].startswith("--"):
            raise CliError(f"{origin[key]}: applies to {spec.label.replace('{n}', 'N')} only "
                           f"(--rouge-types {spec.key.replace('{n}', '2')})")
    return values, origin, parts


def line_metric(args):
    """(values, origin, settings, accumulator class, signature name) of one type (``explain``,
    ``report``: ROUGE-L, or ROUGE-Lsum with --summary-level)."""
    values, origin, parts = line_metrics(args)
    (name, spec, _, settings), = parts
    return values, origin, settings, spec.accumulator, name


def line_accumulators(parts: List[tuple], values, origin, keep: bool = False) -> Dict[str, Any]:
    """One accumulator per type, by printed name (ROUGE-1, ROUGE-L, ...)."""
    accs = {}
    for _, spec, _, settings in parts:
        acc = _build(lambda _: spec.accumulator(settings, keep), values, origin)  # jieba missing, ...
        accs[acc.label] = acc
    return accs


def read_input(path: str, args, side: str, texts: Optional[Dict[str, str]] = None) -> List[str]:
    """One input's instances (``side``: ``hyp`` or ``ref``): a text file's lines, or a field of
    JSON lines (:mod:`paddle_rougel.lineio`: ``--field``, ``--hyp-field``, ``--ref-field``,
    ``--input-format``); ``texts`` caches a file's text when both sides read it."""
    field = getattr(args, f"{side}_field", None) or getattr(args, "field", None)
    fmt = getattr(args, "input_format", None) or "auto"
    if texts is not None and path != "-":
        text = texts[path] = texts[path] if path in texts else read_text(path)
    else:
        text = read_text(path)
    return read_instances(path, text, field, f"--{side}", fmt)


def read_score_inputs(hyp_paths: List[str], ref_paths: List[str], args=None
                       ) -> Tuple[List[List[str]], List[List[str]]]:
    """Each system's instances and each reference set's, every file read once, aligned."""
    if [*hyp_paths, *ref_paths].count("-") > 1:
        raise CliError("only one of --hyp and --ref can be - (standard input is read once)")
    for p in [*hyp_paths, *ref_paths]:
        if p != "-":
            check_input(p)  # every input there before any is read
    texts: Dict[str, str] = {}  # LLaMA-Factory: --hyp F --ref F reads F once
    systems = [read_input(p, args, "hyp", texts) for p in hyp_paths]
    refsets = [read_input(p, args, "ref", texts) for p in ref_paths]
    first = hyp_paths[0]
    for p, lines in [*zip(hyp_paths[1:], systems[1:]), *zip(ref_paths, refsets)]:
        if len(lines) != len(systems[0]):
            raise CliError(f"{p} has {len(lines)} lines but {first} has {len(systems[0])} "
                           "(files must be line-aligned; JSON lines: one object per instance)")
    return systems, refsets


def cmd_score(args) -> int:
    values, origin, parts = line_metrics(args)
    _check_outputs(args, _inputs(args, "--hyp") + [("--ref", p) for p in args.ref])
    (hyps,), refsets = read_score_inputs([args.hyp], args.ref, args)
    keep = args.confidence is not None
    accs = line_accumulators(parts, values, origin, keep)
    score_lines(accs, hyps, refsets, origin)
    scores = _type_scores(accs)  # F, P, R of each type (merge prints the same)
    _check_finite(scores, _weights(values, origin))
    signature = run_signature(parts, *_ci_signature(args))
    per = {name: acc.per_instance() for name, acc in accs.items()}
    text = _per_instance(args, ("line",), [(i + 1,) for i in range(len(hyps))],
                         next(iter(per.values())) if len(per) == 1 else per)
    if keep:  # the interval is of the score (F); P and R are printed as they are
        scores = {name: scores[name] for name in accs}
    first = next(iter(accs.values()))
    if args.by is None:
        result, fmt = _scores_result(args, accs, scores)
    else:  # scores per group (cli_report.py), computed before the outputs are written
        from . import cli_report
        keys = cli_report.line_keys(args.by, len(hyps), refsets, first.tokenizer)
        result, fmt = cli_report.breakdown_result(args, accs, scores, keys, args.by)
    _write_results(args, text, {acc.state_key: acc.state_dict() for acc in accs.values()}, signature)
    _print_result(args, result, fmt, signature, [f"lines scored: {len(hyps)}"])
    return 0


def _comparison_rows(pairs: Dict[str, tuple], args) -> Dict[str, dict]:
    from .metrics.accumulators import compare

    out = {}
    for name, (a, b) in pairs.items():
        try:
            c = compare(a, b, args.method, args.resamples, args.confidence, args.seed)
        except ValueError as e:
            raise CliError(f"{name}: {e}") from None
        out[name] = {"A": _pct(c.score_a), "B": _pct(c.score_b), "difference": _pct(c.difference),
                     "low": _pct(c.low), "high": _pct(c.high), "p_value": round(c.p_value, 4)}
    return out


def _print_comparison(args, rows: Dict[str, dict], signature: str, extra: List[str]) -> None:
    if args.format == "json":
        _print_result(args, rows, "json", signature, extra)
        return
    procio.hold()
    print(f"{'metric':<9}{'A':>8}{'B':>8}{'B - A':>9}  {'95% interval':<18}{'p':>8}")
    for k, r in rows.items():
        interval = f"[{r['low']:.2f}, {r['high']:.2f}]"
        print(f"{k:<9}{r['A']:>8.2f}{r['B']:>8.2f}{r['difference']:>+9.2f}  {interval:<18}{r['p_value']:>8.4f}")
    for line in extra:
        procio.diag(procio.printable(line))
    print(signature)


def _compare_signature(args, metric: str, settings) -> str:
    from .metrics.accumulators import COMPARE_METHODS

    n = args.resamples if args.resamples is not None else COMPARE_METHODS[args.method]
    level = "" if args.confidence == 0.95 else f",level:{_level(args.confidence)}"
    test = f"test:{args.method},n:{n}{level},seed:{args.seed}"
    if metric is None:  # text files: every type's settings (settings: the types' parts)
        return run_signature(settings, test)
    return _signature(metric, settings, test)


def cmd_compare(args) -> int:
    """Two systems on the same references: DuReader files (--ref_file) or text files (--ref)."""
    names = ["A", "B"]
    if args.ref_file:
        if len(args.pred_file or []) != 2 or args.hyp or args.ref or args.summary_level or args.rouge_types:
            raise CliError("compare DuReader files with --ref_file R --pred_file A --pred_file B")
        values, origin = _choices(args, ROUGE_OPTIONS + TEXT_OPTIONS + BONUS_OPTIONS)
        rouge_s, _ = _build(dureader_from_options, values, origin)
        contests = _read_contests(args, args.pred_file)
        if not contests[0].qids:
            raise CliError(f"nothing to compare: {args.ref_file} has no question with reference answers "
                           f"(A: {args.pred_file[0]}, B: {args.pred_file[1]})")
        runs = [_contest_metrics(c, values, origin, keep=True)[0] for c in contests]
        files, metric, settings = args.pred_file, "rougeL+bleu4", rouge_s
        extra = [f"{n}: {f}: {_counts(c)}" for n, f, c in zip(names, files, contests)]
    else:
        if len(args.hyp or []) != 2 or not args.ref or args.pred_file:
            raise CliError("compare text files with --ref R [--ref R2 ...] --hyp A --hyp B, or "
                           "DuReader files with --ref_file R --pred_file A --pred_file B")
        values, origin, parts = line_metrics(args)
        runs = []
        systems, refsets = read_score_inputs(args.hyp, args.ref, args)  # stdin (-) read once
        if not systems[0]:
            raise CliError(f"nothing to compare: {args.hyp[0]}, {args.hyp[1]} and "
                           f"{', '.join(args.ref)} have no lines")
        for hyps in systems:
            accs = line_accumulators(parts, values, origin)
            score_lines(accs, hyps, refsets, origin)
            runs.append(accs)
        files, metric, settings = args.hyp, None, parts
        extra = [f"{n}: {f}" for n, f in zip(names, files)]
    rows = _comparison_rows({k: (runs[0][k], runs[1][k]) for k in runs[0]}, args)
    if args.by is not None:  # per-group paired tests, Holm-adjusted (cli_report.py)
        from . import cli_report
        keys = cli_report.compare_keys(args, contests if args.ref_file else None, runs)
        result, fmt = cli_report.compare_breakdown_result(args, runs, rows, keys, args.by)
        _print_result(args, result, fmt, _compare_signature(args, metric, settings), extra)
        return 0
    _print_comparison(args, rows, _compare_signature(args, metric, settings), extra)
    return 0

