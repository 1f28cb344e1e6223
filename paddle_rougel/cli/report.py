"""``paddle-rougel report``: one self-contained HTML file that explains a score (the page:
:mod:`paddle_rougel.cli.page`).

The numbers are the command line's: the same accumulators, intervals
(``--confidence [LEVEL]``, default 0.95, ``--resamples`` resamples, ``--seed``: the options,
defaults, checks and formula of ``score --confidence``) and tests
(``compare``: paired bootstrap) as ``dureader --by ... --confidence`` and
``compare --by ...``; every statistic the page shows (intervals, tests, Holm adjustments,
groups, the histogram, the alignments drawn) is computed here before the page is rendered
(:func:`compute`).
"""
from __future__ import annotations

from typing import Any, Dict, List, Sequence

import numpy as np

from paddle_rougel.api.align import best_reference
from paddle_rougel.api.groups import LENGTH_ORDER, grouped, holm
from paddle_rougel.metrics.bonus import BONUS_OPTIONS
from paddle_rougel.metrics.dureader_rouge_l import dureader_from_options
from paddle_rougel.core.settings import ROUGE_OPTIONS, TEXT_OPTIONS

from .breakdown import DUREADER_BY, LINE_BY, dureader_keys, line_keys
from .common import CliError, no_field_flags, build, choices, level, pct
from .contest import contest_metrics, counts, read_contests
from .fileio import check_distinct, write_outputs
from .lines import line_accumulators, line_metrics, line_text, no_bonus, read_score_inputs, score_lines
from .output import inputs_of, print_result
from .page import Grouping, System, render, user_html
from .signatures import ci_parts, one_metric, signature

__all__ = ["cmd_report", "compute"]

DIFF_SHOWN = 10  # instances shown where two systems differ most
LCS_TYPES = ("ROUGE-L", "ROUGE-Lsum")  # the types whose counted tokens an alignment shows


def _builtin(by: str, keys: Sequence) -> Grouping:
    words = by.replace("_", " ")
    return Grouping(by, f"By {words}", by, words, keys)


def _key_file(path: str, keys: Sequence) -> Grouping:
    return Grouping("keys", f"By keys from {user_html(path)}", "key", "key", keys)


def _load(opts):
    """(systems, items, groupings, settings, signature, summary) from the command's sources;
    ``settings``: those of the alignment shown (the primary type's), None for ROUGE-N alone."""
    out = [("-o", opts.output)]
    if opts.ref_file:
        preds = opts.pred_file or []
        if not 1 <= len(preds) <= 2 or opts.hyp or opts.ref:
            raise CliError("report DuReader files with --ref_file R --pred_file A [--pred_file B]")
        no_field_flags(opts)
        if opts.summary_level or opts.by or opts.settings.get("split") or opts.rouge_types:
            raise CliError("--summary-level, --rouge-types, --split and --by are for text files (--hyp/--ref)")
        check_distinct(inputs_of(opts, "--ref_file") + [("--pred_file", p) for p in preds], out)
        values, origin = choices(opts, ROUGE_OPTIONS + TEXT_OPTIONS + BONUS_OPTIONS)
        settings, _ = build(dureader_from_options, values, origin)
        contests = read_contests(opts.ref_file, preds)
        systems = [System(n, p, contest_metrics(c, values, origin, keep=True)[0], c.cands)
                   for n, p, c in zip("AB", preds, contests)]
        c0 = contests[0]
        tok = systems[0].accs["ROUGE-L"].tokenizer
        groupings = [_builtin(by, dureader_keys(by, c0, tok)) for by in DUREADER_BY]
        items = [{"id": q, "type": t, "refs": r} for q, t, r in zip(c0.qids, c0.types, c0.ref_lists)]
        sig = signature(one_metric("rougeL+bleu4", settings), ci_parts(opts))
        summary = counts(c0)
    else:
        systems, items, groupings, settings, sig = _load_text(opts, out)
        summary = f"lines scored: {len(items)}"
    if not len(systems[0].f):
        raise CliError("nothing to report: no instance was scored")
    return systems, items, groupings, settings, sig, summary


def _load_text(opts, out):
    """Text line files: every type of ``--rouge-types`` (``score``'s reading and numbers)."""
    hyps_files = opts.hyp or []
    if not 1 <= len(hyps_files) <= 2 or not opts.ref or opts.pred_file:
        raise CliError("report text files with --ref R [--ref R2 ...] --hyp A [--hyp B], or "
                       "DuReader files with --ref_file R --pred_file A [--pred_file B]")
    inputs = [("--hyp", h) for h in hyps_files] + [("--ref", r) for r in opts.ref]
    if opts.by:
        inputs.append(("--by", opts.by))
    check_distinct([(f, p) for f, p in inputs if p != "-"], out)
    no_bonus(opts)
    values, origin, parts = line_metrics(opts)
    lines, refsets = read_score_inputs(hyps_files, opts.ref, opts)
    systems = []
    for n, h, hyps in zip("AB", hyps_files, lines):
        accs = line_accumulators(parts, values, origin, keep=True)
        score_lines(accs, hyps, refsets, origin)
        primary = next((m for m in accs if m in LCS_TYPES), None)
        systems.append(System(n, h, accs, hyps, primary))
    if len(systems) == 2 and len(systems[0].f) != len(systems[1].f):
        raise CliError(f"{hyps_files[1]} has {len(systems[1].f)} lines but {hyps_files[0]} has "
                       f"{len(systems[0].f)}")
    n = len(systems[0].f)
    first = systems[0].accs[next(iter(systems[0].accs))]
    groupings = [_builtin("length", line_keys("length", n, refsets, first.tokenizer))]
    if opts.by and opts.by != LINE_BY:  # --by length is the built-in (warned about when a file of that name is here)
        groupings.append(_key_file(opts.by, line_keys(opts.by, n)))
    elif opts.by:
        line_keys(opts.by, n, refsets, first.tokenizer)  # the warning
    items = [{"id": f"line {i + 1}", "type": None, "refs": [rs[i] for rs in refsets]} for i in range(n)]
    for it in items:  # as score reads them (lines.line_text)
        it["refs"] = [line_text(r) for r in it["refs"]]
    for s in systems:
        s.cands = [line_text(c) for c in s.cands]
    primary = systems[0].primary
    settings = systems[0].accs[primary].settings if primary in LCS_TYPES else None
    sig = signature(parts, ci_parts(opts))
    return systems, items, groupings, settings, sig


def _cell(grp) -> Dict[str, Any]:
    """A group's score and interval, x100 (the interval None for a group of one instance)."""
    iv = grp.interval
    return {"score": pct(grp.score), "low": None if iv is None else pct(iv.low),
            "high": None if iv is None else pct(iv.high)}


def _group_data(res: Dict[Any, Any], systems: List[System]) -> dict:
    """A grouping's page data: ``labels`` (the groups' keys in order), ``count`` and ``cells``
    (by system, metric, key), and ``diffs``: per metric, ``(key, count, comparison, p Holm)`` of
    each group (comparison and p None: one instance), Holm over the tested groups (as ``compare --by``)."""
    cells = {(s.name, m, k): _cell(grp) for k, g in res.items()
             for s, per in zip(systems, g.systems) for m, grp in per.items()}
    diffs: Dict[str, list] = {}
    if len(systems) == 2:
        for m in systems[0].accs:
            tested = [k for k, g in res.items() if m in g.comparisons]
            adjusted = dict(zip(tested, holm([res[k].comparisons[m].p_value for k in tested])))
            diffs[m] = [(k, g.count, g.comparisons[m] if k in adjusted else None, adjusted.get(k))
                        for k, g in res.items()]
    return {"labels": list(res), "count": {k: g.count for k, g in res.items()}, "cells": cells, "diffs": diffs}


def _alignments(systems: List[System], items: List[dict], settings, n_worst: int):
    """(worst, differ): the instances listed in full, each with its best reference's alignment
    (None for ROUGE-N alone): A's lowest F first; the largest B - A first (two systems)."""
    def best(s, i):
        return None if settings is None else best_reference(s.cands[i], items[i]["refs"], settings)

    a = systems[0]
    worst = [(i, best(a, i)) for i in np.argsort(a.f, kind="stable")[:n_worst].tolist()]
    differ = []
    if len(systems) == 2:
        d = systems[1].f - a.f
        differ = [(i, d[i], [best(s, i) for s in systems])
                  for i in np.argsort(-np.abs(d), kind="stable")[:DIFF_SHOWN].tolist()]
    return worst, differ


def compute(systems: List[System], items: List[dict], groupings: List[Grouping], settings, opts) -> dict:
    """Every statistic the page shows, before it is written (:func:`paddle_rougel.groups.grouped`:
    one set of resampled sums per group for every metric of both systems).  All instances as one
    group give the headline: each score's interval (the draws and percentile interval of
    ``score --confidence``, :func:`paddle_rougel.stats.bootstrap`) and, with two systems, B - A
    with its paired bootstrap test (the draws and test of ``compare``,
    :func:`paddle_rougel.stats.paired_bootstrap`): their numbers, at the report's
    ``--confidence``, ``--resamples`` and ``--seed``.  Then each grouping's groups, the histogram
    of per-instance F and the alignments of the instances listed."""
    two = len(systems) == 2
    runs = [s.accs for s in systems]

    def stats(keys, order=None):
        return grouped(runs, keys, opts.confidence, opts.resamples, opts.seed, order, paired=two)

    (whole,) = stats([0] * len(systems[0].f)).values()
    headline = {(s.name, m): _cell(grp) for s, per in zip(systems, whole.systems) for m, grp in per.items()}
    groups = [_group_data(stats(g.keys, LENGTH_ORDER if g.by == "length" else None), systems)
              for g in groupings]
    edges = np.linspace(0.0, 1.0, 11)
    worst, differ = _alignments(systems, items, settings, opts.worst)
    return {"headline": headline, "groups": groups, "overall": whole.comparisons if two else None,
            "histogram": (edges, [np.histogram(s.f, bins=edges)[0] for s in systems]),
            "worst": worst, "differ": differ,
            "level": level(opts.confidence), "resamples": opts.resamples, "seed": opts.seed}


def cmd_report(opts) -> int:
    systems, items, groupings, settings, sig, summary = _load(opts)
    data = compute(systems, items, groupings, settings, opts)  # the statistics first, then the page
    page = render(systems, items, groupings, settings, sig, summary, data)
    write_outputs([(opts.output, page)])  # -o -: the page is stdout, the result line stderr
    print_result(opts, {"report": opts.output, "systems": len(systems), "instances": len(items)},
                 "json", sig, [summary])
    return 0
