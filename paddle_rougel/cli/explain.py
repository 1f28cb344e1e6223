"""``paddle-rougel explain``: which tokens one instance's LCS matches, against its best reference
(:func:`paddle_rougel.align.best_reference`): a DuReader question or a line of text files, scored
as ``dureader`` and ``score`` score it.
"""
from __future__ import annotations

import os
import sys

from paddle_rougel.api.align import best_reference
from paddle_rougel.metrics.bonus import BONUS_OPTIONS
from paddle_rougel.metrics.dureader_rouge_l import dureader_from_options
from paddle_rougel.core.settings import ROUGE_OPTIONS, TEXT_OPTIONS

from . import procio
from .common import CliError, no_field_flags, build, choices
from .contest import contest_metrics, one_question, read_contests
from .lines import line_metric, line_text, no_bonus, read_score_inputs, score_lines
from .procio import printable

__all__ = ["cmd_explain"]

_ANSI = ("\x1b[1;32m", "\x1b[0m")


def _colour(opts) -> bool:
    if opts.color == "always":
        return True
    if opts.color == "never":
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


def _question(opts):
    """(F, settings, candidate, references, title, metric) of a DuReader question."""
    if not opts.pred_file or opts.hyp or opts.ref or opts.question_id is None or opts.line:
        raise CliError("explain DuReader files with --ref_file R --pred_file P --question_id Q")
    no_field_flags(opts)
    if opts.summary_level or opts.settings.get("split"):
        raise CliError("--summary-level and --split are for text files (--hyp/--ref)")
    values, origin = choices(opts, ROUGE_OPTIONS + TEXT_OPTIONS + BONUS_OPTIONS)
    rouge_s, _ = build(dureader_from_options, values, origin)
    (contest,) = read_contests(opts.ref_file, [opts.pred_file])
    i = _find_question(contest, opts.question_id)
    accs, _ = contest_metrics(one_question(contest, i), values, origin, keep=False)
    f = float(accs["ROUGE-L"].per_instance().fmeasure[0])
    title = f"question {contest.qids[i]} ({contest.types[i]})"
    return f, rouge_s, contest.cands[i], contest.ref_lists[i], title, "ROUGE-L (with the contest bonus)"


def _text_line(opts):
    """(F, settings, candidate, references, title, metric) of a line of text files."""
    if not opts.hyp or not opts.ref or opts.line is None or opts.pred_file or opts.question_id:
        raise CliError("explain text files with --hyp H --ref R [--ref R2 ...] --line N, or "
                       "DuReader files with --ref_file R --pred_file P --question_id Q")
    no_bonus(opts)
    values, origin, settings, acc_class, _ = line_metric(opts)
    (hyps,), refsets = read_score_inputs([opts.hyp], opts.ref, opts)
    n = opts.line
    if n > len(hyps):
        raise CliError(f"--line {n}: {opts.hyp} has {len(hyps)} lines")
    cand, refs = hyps[n - 1], [rs[n - 1] for rs in refsets]
    cand, refs = line_text(cand), [line_text(r) for r in refs]  # as score reads them
    acc = build(lambda _: acc_class(settings), values, origin)
    score_lines(acc, [hyps[n - 1]], [[rs[n - 1]] for rs in refsets], origin)
    f = float(acc.per_instance().fmeasure[0])
    return f, settings, cand, refs, f"line {n}", "ROUGE-Lsum" if opts.summary_level else "ROUGE-L"


def cmd_explain(opts) -> int:
    f, settings, cand, refs, title, metric = _question(opts) if opts.ref_file else _text_line(opts)
    k, align, fs = best_reference(cand, refs, settings)
    mark = _ANSI if _colour(opts) else ("[", "]")
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
