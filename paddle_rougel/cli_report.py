"""Command-line parts that explain a score: ``--by`` breakdowns of ``dureader``, ``score`` and
``compare``, and the ``explain`` and ``report`` commands (registered by ``cli.build_parser``).

Breakdown output (``--by``): the usual scores, then ``"by"`` (what the groups are) and
``"groups"``: ``{key: {"count": n, "ROUGE-L": .., "BLEU-4": ..}}`` (x100, 2 decimals; with
``--confidence`` each value is ``{"score", "pm", "low", "high"}``); ``compare --by`` gives each
group's paired test with ``"p_holm"``, the p-value adjusted for the number of groups (Holm).
"""
from __future__ import annotations

import argparse
import os
import sys
import warnings
from typing import Any, Dict, List, Optional, Sequence, Tuple

from . import cli, cli_dureader, cli_score, procio
from .cli import CliError, _pct
from .cli_values import positive_count
from .lineio import add_field_options
from .procio import printable
from .api.groups import LENGTH_ORDER, compare_breakdown, grouped, length_bucket
from .metrics.dureader_rouge_l import BONUS_OPTIONS, dureader_from_options
from .core.settings import ROUGE_OPTIONS, TEXT_OPTIONS

__all__ = ["DUREADER_BY", "add_by", "add_parsers", "breakdown_result", "compare_breakdown_result",
           "dureader_keys", "line_keys", "length_keys", "compare_keys"]

DUREADER_BY = ("question_type", "source", "length")


# ------------------------------------------------------------------ keys

def _length(tokenizer, text: str) -> int:
    return len(tokenizer(text) if tokenizer is not None else text)


def dureader_keys(by: str, contest, tokenizer) -> List[Any]:
    """One key per scored question: its type, its source, or the length bucket of its first
    reference answer (tokens after the text settings)."""
    if by not in DUREADER_BY:
        raise CliError(f"--by {by}: DuReader files are grouped by one of {', '.join(DUREADER_BY)}")
    if by == "question_type":
        return list(contest.types)
    if by == "source":
        return ["(none)" if s is None else str(s) for s in contest.sources]
    return [length_bucket(_length(tokenizer, refs[0])) for refs in contest.ref_lists]


def length_keys(refsets: List[List[str]], tokenizer) -> List[str]:
    """The length bucket of each line's first reference (tokens after the text settings)."""
    return [length_bucket(_length(tokenizer, r)) for r in refsets[0]]


LINE_BY = "length"  # the built-in grouping of text files; any other --by is a key file


def line_keys(spec: str, n: int, refsets: Optional[List[List[str]]] = None, tokenizer=None) -> List[str]:
    """``length``: the length bucket of each line's first reference (always the built-in: a key
    file of that name is ``./length``, and one in the working directory is warned about); else a
    key file, one key per line, line-aligned with the hypotheses."""
    if spec == LINE_BY:
        if refsets is None:
            raise CliError(f"--by {LINE_BY}: needs the reference lines")  # a caller's slip, not the user's
        if os.path.exists(spec):
            warnings.warn(f"--by {LINE_BY} groups by the first reference's length (built in); a file named "
                          f"{LINE_BY!r} is here: give ./{LINE_BY} to group by its lines")
        return length_keys(refsets, tokenizer)
    keys = cli._read_lines(spec)
    if len(keys) != n:
        raise CliError(f"--by {spec}: has {len(keys)} lines but there are {n} hypotheses "
                       "(one key per line, line-aligned)")
    return keys


def compare_keys(args, contests, runs: List[Dict[str, Any]]) -> List[Any]:
    """``compare --by``: the groups of the first system's contest (both have the reference
    file's questions, in its order), or of the text files' lines."""
    acc = next(iter(runs[0].values()))
    if contests is not None:
        return dureader_keys(args.by, contests[0], acc.tokenizer)
    n = int(acc.count)
    refsets = [cli_score.read_input(args.ref[0], args, "ref")] if args.by == "length" else None
    return line_keys(args.by, n, refsets, acc.tokenizer)


def _order(by: str):
    return LENGTH_ORDER if by == "length" else None


# ------------------------------------------------------------------ printing

def _cell(args, group, name: str) -> Any:
    if args.confidence is None:
        return _pct(group.score)
    if group.interval is None:  # one instance: nothing to resample
        return {"score": _pct(group.score), "pm": None, "low": None, "high": None}
    low, high = _pct(group.interval.low), _pct(group.interval.high)
    return {"score": _pct(group.score), "pm": round((high - low) / 2, 2), "low": low, "high": high}


def _breakdown_rows(args, accs: Dict[str, Any], keys: Sequence, by: str) -> Dict[str, dict]:
    res = grouped([accs], keys, args.confidence, args.resamples or 1000, args.seed, _order(by))
    rows: Dict[str, dict] = {}
    for key, g in res.items():
        row = rows[str(key)] = {"count": g.count}
        for name, grp in g.systems[0].items():
            row[name] = _cell(args, grp, name)
    return rows


def _fmt(v: Any) -> str:
    if isinstance(v, dict) and v["low"] is None:
        return f"{v['score']:.2f} (1 instance: no interval)"
    if isinstance(v, dict):
        return f"{v['score']:.2f} [{v['low']:.2f}, {v['high']:.2f}]"
    return f"{v:.2f}"


def breakdown_result(args, accs: Dict[str, Any], scores: Dict[str, float], keys: Sequence,
                     by: str) -> Tuple[Any, str]:
    """(what to print, its format) for ``--by``: the overall scores and one row per group
    (JSON, or the lines of a table), for ``cli._print_result``."""
    rows = _breakdown_rows(args, accs, keys, by)
    if not rows:
        raise CliError(f"--by {by}: no group to show (no instance was scored)")
    overall: Dict[str, Any] = {}
    for name, acc in accs.items():
        if args.confidence is None:
            overall[name] = _pct(scores[name])
        else:
            overall[name] = cli._interval_cell(args, name, acc, scores[name])
    if args.format == "json":
        return {**overall, "by": by, "groups": rows}, "json"
    names = list(accs)
    table = [["(all)", str(sum(r["count"] for r in rows.values()))] + [_fmt(overall[n]) for n in names]]
    table += [[printable(k), str(r["count"])] + [_fmt(r[n]) for n in names] for k, r in rows.items()]
    head = [printable(by), "count"] + names  # keys from the user's files: escaped before the layout
    widths = [max(len(x) for x in col) for col in zip(head, *table)]
    return ["  ".join([line[0].ljust(widths[0])] + [c.rjust(w) for c, w in zip(line[1:], widths[1:])])
            for line in [head] + table], "lines"


def compare_breakdown_result(args, runs: List[Dict[str, Any]], rows: Dict[str, dict], keys: Sequence,
                             by: str) -> Tuple[Any, str]:
    """``compare --by``: the overall comparison rows, then each group's paired test, with p-values
    adjusted for the number of groups by Holm's method (``p_holm``); (result, format)."""
    groups: Dict[str, dict] = {}
    for name in runs[0]:
        res = compare_breakdown(runs[0][name], runs[1][name], keys, args.method, args.resamples, args.confidence,
                                args.seed, _order(by))
        for key, g in res.items():
            c = g.comparison
            row = groups.setdefault(str(key), {"count": g.count})
            if c is None:  # one instance: not tested
                row[name] = None
                continue
            row[name] = {"A": _pct(c.score_a), "B": _pct(c.score_b), "difference": _pct(c.difference),
                         "low": _pct(c.low), "high": _pct(c.high), "p_value": round(c.p_value, 4),
                         "p_holm": round(g.p_adjusted, 4)}
    if not groups:
        raise CliError(f"--by {by}: no group to show (no instance was scored)")
    if args.format == "json":
        return {**rows, "by": by, "correction": "holm", "groups": groups}, "json"
    lines = [f"{printable(by):<16}{'count':>6}  {'metric':<8}{'A':>8}{'B':>8}{'B - A':>9}  {'95% interval':<18}"
             f"{'p':>8}{'p (Holm)':>10}"]
    for key, grow in [("(all)", {"count": None, **rows})] + list(groups.items()):
        key = printable(key)  # from the user's key file: escaped before the layout
        for name in runs[0]:
            r = grow[name]
            if r is None:
                lines.append(f"{key:<16}{grow['count']:>6}  {name:<8}  (1 instance: no test)")
                continue
            interval = f"[{r['low']:.2f}, {r['high']:.2f}]"
            holm = f"{r['p_holm']:>10.4f}" if "p_holm" in r else f"{'':>10}"
            count = "" if grow["count"] is None else str(grow["count"])
            lines.append(f"{key:<16}{count:>6}  {name:<8}{r['A']:>8.2f}{r['B']:>8.2f}"
                         f"{r['difference']:>+9.2f}  {interval:<18}{r['p_value']:>8.4f}{holm}")
    tested = sum(1 for g in groups.values() if g[next(iter(runs[0]))] is not None)
    lines.append(f"p (Holm): adjusted for {tested} tested groups by Holm's step-down method")
    return lines, "lines"


# ------------------------------------------------------------------ parsers

def add_by(p: argparse.ArgumentParser, dureader: bool, text: bool) -> None:
    """``--by`` on a scoring command."""
    if dureader and text:
        what = (f"one of {', '.join(DUREADER_BY)} (DuReader files), or for text files a key file "
                "(one key per line) or length")
    elif dureader:
        what = f"one of {', '.join(DUREADER_BY)}"
    else:
        what = "a key file (one key per line, line-aligned with --hyp) or length (first reference's tokens)"
    p.add_argument("--by", metavar="KEY", default=None, choices=DUREADER_BY if dureader and not text else None,
                   help=f"scores per group: {what}; length buckets the first reference answer's tokens")


def add_parsers(sub) -> None:
    """The ``explain`` and ``report`` commands."""
    e = sub.add_parser("explain", help="show which tokens one instance's LCS matches (best reference)")
    _add_sources(e)
    e.add_argument("--question_id", "--question-id", help="the DuReader question to explain")
    e.add_argument("--line", type=positive_count, help="the text line to explain (1-based)")
    e.add_argument("--color", choices=("auto", "always", "never"), default="auto",
                   help="colour the matched tokens (auto: on a terminal); otherwise [brackets]")
    e.set_defaults(func=cmd_explain)

    r = sub.add_parser("report", help="write a self-contained HTML report (scores, groups, alignments)")
    _add_sources(r, multi=True)
    r.add_argument("-o", "--output", required=True, help="the HTML file to write")
    r.add_argument("--by", metavar="KEYFILE", default=None,
                   help="text files: also group by this key file (one key per line)")
    r.add_argument("--worst", type=positive_count, default=20, help="instances listed in full (default 20)")
    cli._add_confidence(r, always=True)  # score's --confidence [LEVEL] --resamples N --seed S
    r.set_defaults(func=_cmd_report)


def _cmd_report(args) -> int:
    from . import report  # the HTML writer: loaded only for this command

    return report.cmd_report(args)


def _add_sources(p: argparse.ArgumentParser, multi: bool = False) -> None:
    from .metrics import OPTIONS

    act = "append" if multi else "store"
    p.add_argument("--ref_file", "--ref-file", help="DuReader references (JSON lines or .zip)")
    p.add_argument("--pred_file", "--pred-file", action=act,
                   help="DuReader predictions" + (" (A, then optionally B)" if multi else ""))
    p.add_argument("--ref", action="append", help="text references, one per line (repeatable)")
    p.add_argument("--hyp", action=act, help="text hypotheses, one per line" + (" (A, then optionally B)" if multi else ""))
    cli._add_options(p, [OPTIONS["gamma"], OPTIONS["multi_ref"]] + list(TEXT_OPTIONS))
    cli._add_options(p, BONUS_OPTIONS)
    cli._add_summary(p, types=multi)  # report: --rouge-types (every type); explain: ROUGE-L or -Lsum
    p.add_argument("--config", help="YAML config file or preset name")
    add_field_options(p)  # text files as JSON lines


# ------------------------------------------------------------------ explain

_ANSI = ("\x1b[1;32m", "\x1b[0m")


def _colour(args) -> bool:
    if args.color == "always":
        return True
    if args.color == "never":
        return False
    return sys.stdout.isatty() and not os.environ.get("NO_COLOR")


def _find_question(contest, qid: str) -> int:
    for i, q in enumerate(contest.qids):
        if q == qid or str(q) == qid:
            return i
    if any(q == qid or str(q) == qid for q in contest.missing):
        raise CliError(f"--question_id {qid}: not found")  # unreachable: missing ones are scored
    raise CliError(f"--question_id {qid}: no such scored question in the reference file "
                   f"({len(contest.qids)} questions scored)")


def cmd_explain(args) -> int:
    from .api.align import best_reference

    if args.ref_file:
        if not args.pred_file or args.hyp or args.ref or args.question_id is None or args.line:
            raise CliError("explain DuReader files with --ref_file R --pred_file P --question_id Q")
        if args.summary_level or getattr(args, "split", None):
            raise CliError("--summary-level and --split are for text files (--hyp/--ref)")
        values, origin = cli._choices(args, ROUGE_OPTIONS + TEXT_OPTIONS + BONUS_OPTIONS)
        rouge_s, _ = cli._build(dureader_from_options, values, origin)
        (contest,) = cli_dureader._read_contests(args, [args.pred_file])
        i = _find_question(contest, args.question_id)
        sub = _one_question(contest, i)
        accs, _ = cli_dureader._contest_metrics(sub, values, origin, keep=False)
        f = float(accs["ROUGE-L"].per_instance().fmeasure[0])
        settings, cand, refs = rouge_s, contest.cands[i], contest.ref_lists[i]
        title = f"question {contest.qids[i]} ({contest.types[i]})"
        metric = "ROUGE-L (with the contest bonus)"
    else:
        if not args.hyp or not args.ref or args.line is None or args.pred_file or args.question_id:
            raise CliError("explain text files with --hyp H --ref R [--ref R2 ...] --line N, or "
                           "DuReader files with --ref_file R --pred_file P --question_id Q")
        no_bonus(args)
        values, origin, settings, acc_class, _ = cli_score.line_metric(args)
        (hyps,), refsets = cli_score.read_score_inputs([args.hyp], args.ref, args)
        n = args.line
        if n > len(hyps):
            raise CliError(f"--line {n}: {args.hyp} has {len(hyps)} lines")
        cand, refs = hyps[n - 1], [rs[n - 1] for rs in refsets]
        cand, refs = cli_score.line_text(cand), [cli_score.line_text(r) for r in refs]  # as score reads them
        acc = cli._build(lambda _: acc_class(settings), values, origin)
        cli_score.score_lines(acc, [hyps[n - 1]], [[rs[n - 1]] for rs in refsets], origin)
        f = float(acc.per_instance().fmeasure[0])
        title = f"line {n}"
        metric = "ROUGE-Lsum" if args.summary_level else "ROUGE-L"
    k, align, fs = best_reference(cand, refs, settings)
    mark = _ANSI if _colour(args) else ("[", "]")
    c_txt, r_txt = align.marked(*mark, show=printable)  # the input's text escaped, the marks as written
    summary = hasattr(settings, "split")
    hits = align.n_hits if summary else align.lcs
    n_c = sum(map(len, align.cand)) if summary else len(align.cand)
    n_r = sum(map(len, align.ref)) if summary else len(align.ref)
    lines = [f"{printable(title)}: {metric} F {f:.4f}",
             f"best reference: {k + 1} of {len(refs)} (F {fs[k]:.4f}; "
             f"{'union LCS hits' if summary else 'LCS'} {hits} of {n_c} candidate and {n_r} reference tokens)"]
    if summary:
        lines += [f"candidate {s + 1}: {t}" for s, t in enumerate(c_txt)]
        lines += [f"reference {s + 1}: {t}" for s, t in enumerate(r_txt)]
    else:
        lines += [f"candidate: {c_txt}", f"reference: {r_txt}"]
    if len(refs) > 1:
        lines.append("F per reference: " + ", ".join(f"{x:.4f}" for x in fs))
    procio.hold()  # the result is computed: the run ends with its status
    for line in lines:
        print(line)
    return 0


def no_bonus(args) -> None:
    """Text files have no yes/no labels or entities: a bonus weight there would be ignored."""
    for key in ("yesno_weight", "entity_weight"):
        if getattr(args, key, None) is not None:
            raise CliError(f"{args.flag_names.get(key, '--' + key.replace('_', '-'))}: the DuReader bonus "
                           "applies to DuReader files (--ref_file/--pred_file), not text files")


def _one_question(contest, i: int):
    from .dureader_io import Contest

    c = Contest()
    for name in ("qids", "types", "cands", "ref_lists", "yn_labels", "yn_refs", "entity_refs", "sources"):
        getattr(c, name).append(getattr(contest, name)[i])
    return c
