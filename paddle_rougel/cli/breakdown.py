"""Scores per group, computed before anything is written: ``--by`` breakdowns of ``dureader``,
``score`` and ``compare`` (the groups: :func:`paddle_rougel.groups.grouped`,
:func:`paddle_rougel.groups.compare_breakdown`).

Breakdown output (``--by``): the usual scores, then ``"by"`` (what the groups are) and
``"groups"``: ``{key: {"count": n, "ROUGE-L": .., "BLEU-4": ..}}`` (x100, 2 decimals; with
``--confidence`` each value is ``{"score", "pm", "low", "high"}``); ``compare --by`` gives each
group's paired test with ``"p_holm"``, the p-value adjusted for the number of groups (Holm).
"""
from __future__ import annotations

import os
import warnings
from typing import Any, Dict, List, Optional, Sequence, Tuple

from paddle_rougel.api.groups import LENGTH_ORDER, compare_breakdown, grouped, length_bucket

from .common import CliError, pct
from .lineio import read_lines
from .lines import read_input
from .output import interval_cell
from .procio import printable

__all__ = ["DUREADER_BY", "LINE_BY", "breakdown_result", "compare_breakdown_result",
           "dureader_keys", "line_keys", "length_keys", "compare_keys", "group_order"]

DUREADER_BY = ("question_type", "source", "length")
LINE_BY = "length"  # the built-in grouping of text files; any other --by is a key file


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
    keys = read_lines(spec)
    if len(keys) != n:
        raise CliError(f"--by {spec}: has {len(keys)} lines but there are {n} hypotheses "
                       "(one key per line, line-aligned)")
    return keys


def compare_keys(opts, contests, runs: List[Dict[str, Any]]) -> List[Any]:
    """``compare --by``: the groups of the first system's contest (both have the reference
    file's questions, in its order), or of the text files' lines."""
    acc = next(iter(runs[0].values()))
    if contests is not None:
        return dureader_keys(opts.by, contests[0], acc.tokenizer)
    n = int(acc.count)
    refsets = [read_input(opts.ref[0], opts, "ref")] if opts.by == "length" else None
    return line_keys(opts.by, n, refsets, acc.tokenizer)


def group_order(by: str):
    return LENGTH_ORDER if by == "length" else None


# ------------------------------------------------------------------ printing

def _cell(opts, group, name: str) -> Any:
    if opts.confidence is None:
        return pct(group.score)
    if group.interval is None:  # one instance: nothing to resample
        return {"score": pct(group.score), "pm": None, "low": None, "high": None}
    low, high = pct(group.interval.low), pct(group.interval.high)
    return {"score": pct(group.score), "pm": round((high - low) / 2, 2), "low": low, "high": high}


def _breakdown_rows(opts, accs: Dict[str, Any], keys: Sequence, by: str) -> Dict[str, dict]:
    res = grouped([accs], keys, opts.confidence, opts.resamples or 1000, opts.seed, group_order(by))
    rows: Dict[str, dict] = {}
    for key, g in res.items():
        row = rows[str(key)] = {"count": g.count}
        for name, grp in g.systems[0].items():
            row[name] = _cell(opts, grp, name)
    return rows


def _fmt(v: Any) -> str:
    if isinstance(v, dict) and v["low"] is None:
        return f"{v['score']:.2f} (1 instance: no interval)"
    if isinstance(v, dict):
        return f"{v['score']:.2f} [{v['low']:.2f}, {v['high']:.2f}]"
    return f"{v:.2f}"


def breakdown_result(opts, accs: Dict[str, Any], scores: Dict[str, float], keys: Sequence,
                     by: str) -> Tuple[Any, str]:
    """(what to print, its format) for ``--by``: the overall scores and one row per group
    (JSON, or the lines of a table), for :func:`paddle_rougel.cli.output.print_result`."""
    rows = _breakdown_rows(opts, accs, keys, by)
    if not rows:
        raise CliError(f"--by {by}: no group to show (no instance was scored)")
    overall: Dict[str, Any] = {}
    for name, acc in accs.items():
        if opts.confidence is None:
            overall[name] = pct(scores[name])
        else:
            overall[name] = interval_cell(opts, name, acc, scores[name])
    if opts.format == "json":
        return {**overall, "by": by, "groups": rows}, "json"
    names = list(accs)
    table = [["(all)", str(sum(r["count"] for r in rows.values()))] + [_fmt(overall[n]) for n in names]]
    table += [[printable(k), str(r["count"])] + [_fmt(r[n]) for n in names] for k, r in rows.items()]
    head = [printable(by), "count"] + names  # keys from the user's files: escaped before the layout
    widths = [max(len(x) for x in col) for col in zip(head, *table)]
    return ["  ".join([line[0].ljust(widths[0])] + [c.rjust(w) for c, w in zip(line[1:], widths[1:])])
            for line in [head] + table], "lines"


def compare_breakdown_result(opts, runs: List[Dict[str, Any]], rows: Dict[str, dict], keys: Sequence,
                             by: str) -> Tuple[Any, str]:
    """``compare --by``: the overall comparison rows, then each group's paired test, with p-values
    adjusted for the number of groups by Holm's method (``p_holm``); (result, format)."""
    groups: Dict[str, dict] = {}
    for name in runs[0]:
        res = compare_breakdown(runs[0][name], runs[1][name], keys, opts.method, opts.resamples, opts.confidence,
                                opts.seed, group_order(by))
        for key, g in res.items():
            c = g.comparison
            row = groups.setdefault(str(key), {"count": g.count})
            if c is None:  # one instance: not tested
                row[name] = None
                continue
            row[name] = {"A": pct(c.score_a), "B": pct(c.score_b), "difference": pct(c.difference),
                         "low": pct(c.low), "high": pct(c.high), "p_value": round(c.p_value, 4),
                         "p_holm": round(g.p_adjusted, 4)}
    if not groups:
        raise CliError(f"--by {by}: no group to show (no instance was scored)")
    if opts.format == "json":
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
