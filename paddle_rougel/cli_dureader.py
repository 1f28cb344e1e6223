"""``paddle-rougel dureader``: the DuReader contest score (ROUGE-L and BLEU-4 with the bonus).

The contest files are read by :mod:`paddle_rougel.dureader_io`; the two metrics are the
registry's ``RougeLForDuReader`` and ``BLEUForDuReader`` (:mod:`paddle_rougel.metrics`).
Shared option handling, messages and outputs are in :mod:`paddle_rougel.cli`.
"""
from __future__ import annotations

import warnings
from typing import List

from .cli import _BATCH, CliError, _build, _check_finite, _check_outputs, _choices, _ci_signature, _inputs, _per_instance, _print_result, _scores_result, _signature, _weights, _write_results
from .dureader_io import build_contest, distinct_entities, file_size, read_rows, text_match_warning
from .engine.inputs import make_batch
from .metrics.bleu import BleuAccumulator
from .metrics.dureader_rouge_l import BONUS_OPTIONS, DuReaderRougeLAccumulator, dureader_from_options
from .progress import Progress
from .core.settings import ROUGE_OPTIONS, TEXT_OPTIONS

__all__ = ["cmd_dureader"]


def _score_contest(contest, rouge: DuReaderRougeLAccumulator, bleu: BleuAccumulator) -> None:
    n = len(contest.cands)
    bar = Progress(n, "scoring", min_total=2 * _BATCH)
    rouge.hint.chosen()  # characters are the contest's rule: only a word tokenizer on CJK is hinted
    for lo in range(0, n, _BATCH):
        hi = min(lo + _BATCH, n)
        sl = slice(lo, hi)
        ents = [distinct_entities(e, rouge.tokenizer) for e in contest.entity_refs[sl]]
        batch = make_batch(contest.cands[sl], contest.ref_lists[sl], contest.yn_labels[sl],
                           contest.yn_refs[sl], ents, base=lo, tokenizer=rouge.tokenizer, hint=rouge.hint)
        rouge.add_now(batch)
        bleu.add_now(batch)
        bar.update(hi - lo)
    bar.close()


def _read_contests(args, pred_files: List[str]):
    """One scoring contest per prediction file, against the one reference file."""
    total = sum(map(file_size, pred_files)) + file_size(args.ref_file)
    bar = Progress(total, "reading", min_total=8 << 20)
    # text as given: the metrics' text settings normalise it (the contest: drop whitespace)
    refs = read_rows(args.ref_file, is_ref=True, progress=bar.update, keep_spaces=True)
    contests = [build_contest(read_rows(p, is_ref=False, progress=bar.update, keep_spaces=True), refs)
                for p in pred_files]
    bar.close()
    for p, c in zip(pred_files, contests):
        said = text_match_warning(p, c)
        if said is not None:  # "1001" vs 1001: the official number (0 for them), never a silent one
            warnings.warn(said)
    return contests


def _contest_metrics(contest, values, origin, keep: bool):
    """The contest's ROUGE-L and BLEU-4 accumulators, scored; errors name the settings at fault."""
    rouge_s, bleu_s = _build(dureader_from_options, values, origin)
    rouge, bleu = _build(lambda _: (DuReaderRougeLAccumulator(rouge_s, keep), BleuAccumulator(bleu_s, keep)),
                         values, origin)  # a tokenizer's optional package may be missing
    try:
        _score_contest(contest, rouge, bleu)
        scores = {"ROUGE-L": rouge.score(), "BLEU-4": bleu.score()}
    except (ValueError, TypeError, OverflowError) as e:  # e.g. sums out of range with absurd weights
        raise CliError(f"cannot score with {_weights(values, origin)}: {e}") from None
    _check_finite(scores, _weights(values, origin))
    return {"ROUGE-L": rouge, "BLEU-4": bleu}, scores


def _counts(contest) -> str:
    return (f"questions scored: {len(contest.qids)}; missing predictions: {len(contest.missing)}; "
            f"unexpected predictions: {len(contest.unexpected)}; "
            f"skipped (no reference answers): {len(contest.no_answer)}")


def cmd_dureader(args) -> int:
    values, origin = _choices(args, ROUGE_OPTIONS + TEXT_OPTIONS + BONUS_OPTIONS)
    rouge_s, _ = _build(dureader_from_options, values, origin)
    _check_outputs(args, _inputs(args, "--pred_file", "--ref_file"))  # before any work
    (contest,) = _read_contests(args, [args.pred_file])
    keep = args.confidence is not None or args.by is not None  # --by: BLEU's per-question rows
    accs, scores = _contest_metrics(contest, values, origin, keep=keep)
    rouge, bleu = accs["ROUGE-L"], accs["BLEU-4"]
    signature = _signature("rougeL+bleu4", rouge_s, *_ci_signature(args))
    text = _per_instance(args, ("question_id", "question_type"), list(zip(contest.qids, contest.types)),
                         rouge.per_instance(), rouge.per_instance_bonus())
    if args.by is None:
        result, fmt = _scores_result(args, accs, scores)
    else:  # scores per group (cli_report.py), computed before the outputs are written
        from . import cli_report
        keys = cli_report.dureader_keys(args.by, contest, rouge.tokenizer)
        result, fmt = cli_report.breakdown_result(args, accs, scores, keys, args.by)
    _write_results(args, text, {a.state_key: a.state_dict() for a in (rouge, bleu)}, signature)
    _print_result(args, result, fmt, signature, [_counts(contest)])
    return 0
