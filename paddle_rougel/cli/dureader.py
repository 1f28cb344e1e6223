"""``paddle-rougel dureader``: the DuReader contest score (ROUGE-L and BLEU-4 with the bonus).

The contest files are read and scored by :mod:`paddle_rougel.cli.contest`; shared option
handling, messages and outputs are in :mod:`paddle_rougel.cli.common` and
:mod:`paddle_rougel.cli.output`.
"""
from __future__ import annotations

from paddle_rougel.metrics.bonus import BONUS_OPTIONS
from paddle_rougel.metrics.dureader_rouge_l import dureader_from_options
from paddle_rougel.core.settings import ROUGE_OPTIONS, TEXT_OPTIONS

from .breakdown import breakdown_result, dureader_keys
from .common import build, choices
from .contest import contest_metrics, counts, read_contests
from .output import (check_outputs, inputs_of, per_instance_rows, print_result, scores_result,
                     write_results)
from .signatures import ci_parts, one_metric, signature

__all__ = ["cmd_dureader"]


def cmd_dureader(opts) -> int:
    values, origin = choices(opts, ROUGE_OPTIONS + TEXT_OPTIONS + BONUS_OPTIONS)
    rouge_s, _ = build(dureader_from_options, values, origin)
    check_outputs(opts, inputs_of(opts, "--pred_file", "--ref_file"))  # before any work
    (contest,) = read_contests(opts.ref_file, [opts.pred_file])
    keep = opts.confidence is not None or opts.by is not None  # --by: BLEU's per-question rows
    accs, scores = contest_metrics(contest, values, origin, keep=keep)
    rouge, bleu = accs["ROUGE-L"], accs["BLEU-4"]
    sig = signature(one_metric("rougeL+bleu4", rouge_s), ci_parts(opts))
    text = per_instance_rows(opts, ("question_id", "question_type"), list(zip(contest.qids, contest.types)),
                             rouge.per_instance(), rouge.per_instance_bonus())
    if opts.by is None:
        result, fmt = scores_result(opts, accs, scores)
    else:  # scores per group (breakdown.py), computed before the outputs are written
        keys = dureader_keys(opts.by, contest, rouge.tokenizer)
        result, fmt = breakdown_result(opts, accs, scores, keys, opts.by)
    write_results(opts, text, {a.state_key: a.state_dict() for a in (rouge, bleu)}, sig)
    print_result(opts, result, fmt, sig, [counts(contest)])
    return 0
