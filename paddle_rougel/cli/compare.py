"""``paddle-rougel compare``: is system B better than A?  The paired test of two systems on the
same references (sacreBLEU's paired bootstrap or approximate randomization), on text files
(:mod:`paddle_rougel.cli.lines`) or DuReader files (:mod:`paddle_rougel.cli.contest`); ``--by``:
each group's test, Holm-adjusted (:mod:`paddle_rougel.cli.breakdown`).
"""
from __future__ import annotations

from typing import Dict, List

from paddle_rougel.metrics.accumulators import COMPARE_METHODS, compare
from paddle_rougel.metrics.bonus import BONUS_OPTIONS
from paddle_rougel.metrics.dureader_rouge_l import dureader_from_options
from paddle_rougel.core.settings import ROUGE_OPTIONS, TEXT_OPTIONS

from . import procio
from .breakdown import compare_breakdown_result, compare_keys
from .common import CliError, no_field_flags, build, choices, pct
from .contest import contest_metrics, counts, read_contests
from .lines import line_accumulators, line_metrics, read_score_inputs, score_lines
from .output import print_result
from .signatures import one_metric, signature, test_parts

__all__ = ["cmd_compare"]


def _comparison_rows(pairs: Dict[str, tuple], opts) -> Dict[str, dict]:
    out = {}
    for name, (a, b) in pairs.items():
        try:
            c = compare(a, b, opts.method, opts.resamples, opts.confidence, opts.seed)
        except ValueError as e:
            raise CliError(f"{name}: {e}") from None
        out[name] = {"A": pct(c.score_a), "B": pct(c.score_b), "difference": pct(c.difference),
                     "low": pct(c.low), "high": pct(c.high), "p_value": round(c.p_value, 4)}
    return out


def _print_comparison(opts, rows: Dict[str, dict], sig: str, extra: List[str]) -> None:
    if opts.format == "json":
        print_result(opts, rows, "json", sig, extra)
        return
    procio.hold()
    print(f"{'metric':<9}{'A':>8}{'B':>8}{'B - A':>9}  {'95% interval':<18}{'p':>8}")
    for k, r in rows.items():
        interval = f"[{r['low']:.2f}, {r['high']:.2f}]"
        print(f"{k:<9}{r['A']:>8.2f}{r['B']:>8.2f}{r['difference']:>+9.2f}  {interval:<18}{r['p_value']:>8.4f}")
    for line in extra:
        procio.diag(procio.printable(line))
    print(sig)


def _dureader_runs(opts):
    """(runs, contests, signature parts, extra lines) of two DuReader prediction files."""
    if len(opts.pred_file or []) != 2 or opts.hyp or opts.ref or opts.summary_level or opts.rouge_types:
        raise CliError("compare DuReader files with --ref_file R --pred_file A --pred_file B")
    no_field_flags(opts)
    values, origin = choices(opts, ROUGE_OPTIONS + TEXT_OPTIONS + BONUS_OPTIONS)
    rouge_s, _ = build(dureader_from_options, values, origin)
    contests = read_contests(opts.ref_file, opts.pred_file)
    if not contests[0].qids:
        raise CliError(f"nothing to compare: {opts.ref_file} has no question with reference answers "
                       f"(A: {opts.pred_file[0]}, B: {opts.pred_file[1]})")
    runs = [contest_metrics(c, values, origin, keep=True)[0] for c in contests]
    extra = [f"{n}: {f}: {counts(c)}" for n, f, c in zip("AB", opts.pred_file, contests)]
    return runs, contests, one_metric("rougeL+bleu4", rouge_s), extra


def _text_runs(opts):
    """(runs, None, signature parts, extra lines) of two hypothesis files."""
    if len(opts.hyp or []) != 2 or not opts.ref or opts.pred_file:
        raise CliError("compare text files with --ref R [--ref R2 ...] --hyp A --hyp B, or "
                       "DuReader files with --ref_file R --pred_file A --pred_file B")
    values, origin, parts = line_metrics(opts)
    runs = []
    systems, refsets = read_score_inputs(opts.hyp, opts.ref, opts)  # stdin (-) read once
    if not systems[0]:
        raise CliError(f"nothing to compare: {opts.hyp[0]}, {opts.hyp[1]} and "
                       f"{', '.join(opts.ref)} have no lines")
    for hyps in systems:
        accs = line_accumulators(parts, values, origin)
        score_lines(accs, hyps, refsets, origin)
        runs.append(accs)
    return runs, None, parts, [f"{n}: {f}" for n, f in zip("AB", opts.hyp)]


def cmd_compare(opts) -> int:
    """Two systems on the same references: DuReader files (--ref_file) or text files (--ref)."""
    runs, contests, parts, extra = _dureader_runs(opts) if opts.ref_file else _text_runs(opts)
    rows = _comparison_rows({k: (runs[0][k], runs[1][k]) for k in runs[0]}, opts)
    sig = signature(parts, test_parts(opts, COMPARE_METHODS[opts.method]))
    if opts.by is not None:  # per-group paired tests, Holm-adjusted (breakdown.py)
        keys = compare_keys(opts, contests, runs)
        result, fmt = compare_breakdown_result(opts, runs, rows, keys, opts.by)
        print_result(opts, result, fmt, sig, extra)
        return 0
    _print_comparison(opts, rows, sig, extra)
    return 0

