"""``paddle-rougel score``: ROUGE of line-aligned text files, every type of ``--rouge-types`` in one
table / JSON (the files read and scored by :mod:`paddle_rougel.cli.lines`; the types come from
the metric registry, :mod:`paddle_rougel.metrics`).
"""
from __future__ import annotations

from .breakdown import breakdown_result, line_keys
from .common import check_finite, type_scores, weights
from .lines import line_accumulators, line_metrics, read_score_inputs, score_lines
from .output import (check_outputs, inputs_of, per_instance_rows, print_result, scores_result,
                     write_results)
from .signatures import ci_parts, signature

__all__ = ["cmd_score"]


def cmd_score(opts) -> int:
    values, origin, parts = line_metrics(opts)
    check_outputs(opts, inputs_of(opts, "--hyp") + [("--ref", p) for p in opts.ref])
    (hyps,), refsets = read_score_inputs([opts.hyp], opts.ref, opts)
    keep = opts.confidence is not None
    accs = line_accumulators(parts, values, origin, keep)
    score_lines(accs, hyps, refsets, origin)
    scores = type_scores(accs)  # F, P, R of each type (merge prints the same)
    check_finite(scores, weights(values, origin))
    sig = signature(parts, ci_parts(opts))
    per = {name: acc.per_instance() for name, acc in accs.items()}
    text = per_instance_rows(opts, ("line",), [(i + 1,) for i in range(len(hyps))],
                             next(iter(per.values())) if len(per) == 1 else per)
    if keep:  # the interval is of the score (F); P and R are printed as they are
        scores = {name: scores[name] for name in accs}
    first = next(iter(accs.values()))
    if opts.by is None:
        result, fmt = scores_result(opts, accs, scores)
    else:  # scores per group (breakdown.py), computed before the outputs are written
        keys = line_keys(opts.by, len(hyps), refsets, first.tokenizer)
        result, fmt = breakdown_result(opts, accs, scores, keys, opts.by)
    write_results(opts, text, {acc.state_key: acc.state_dict() for acc in accs.values()}, sig)
    print_result(opts, result, fmt, sig, [f"lines scored: {len(hyps)}"])
    return 0
