"""DuReader contest files scored (``dureader``, ``compare``, ``explain``, ``report``): read by
:mod:`paddle_rougel.cli.dureader_io`, scored by the registry's ``RougeLForDuReader`` and
``BLEUForDuReader`` accumulators (:mod:`paddle_rougel.metrics`).
"""
from __future__ import annotations

import warnings
from typing import Any, Dict, List, Tuple

from paddle_rougel.engine.inputs import make_batch
from paddle_rougel.metrics.bleu import BleuAccumulator
from paddle_rougel.metrics.dureader_rouge_l import DuReaderRougeLAccumulator, dureader_from_options

from .common import BATCH, CliError, build, check_finite, weights
from .dureader_io import Contest, build_contest, distinct_entities, file_size, read_rows, text_match_warning
from .progress import Progress

__all__ = ["read_contests", "contest_metrics", "counts", "one_question", "score_contest"]


def score_contest(contest, rouge: DuReaderRougeLAccumulator, bleu: BleuAccumulator) -> None:
    n = len(contest.cands)
    bar = Progress(n, "scoring", min_total=2 * BATCH)
    rouge.hint.chosen()  # characters are the contest's rule: only a word tokenizer on CJK is hinted
    for lo in range(0, n, BATCH):
        hi = min(lo + BATCH, n)
        sl = slice(lo, hi)
        ents = [distinct_entities(e, rouge.tokenizer) for e in contest.entity_refs[sl]]
        batch = make_batch(contest.cands[sl], contest.ref_lists[sl], contest.yn_labels[sl],
                           contest.yn_refs[sl], ents, base=lo, tokenizer=rouge.tokenizer, hint=rouge.hint)
        rouge.add_now(batch)
        bleu.add_now(batch)
        bar.update(hi - lo)
    bar.close()


def read_contests(ref_file: str, pred_files: List[str]) -> List[Contest]:
    """One scoring contest per prediction file, against the one reference file."""
    total = sum(map(file_size, pred_files)) + file_size(ref_file)
    bar = Progress(total, "reading", min_total=8 << 20)
    # text as given: the metrics' text settings normalise it (the contest: drop whitespace)
    refs = read_rows(ref_file, is_ref=True, progress=bar.update, keep_spaces=True)
    contests = [build_contest(read_rows(p, is_ref=False, progress=bar.update, keep_spaces=True), refs)
                for p in pred_files]
    bar.close()
    for p, c in zip(pred_files, contests):
        said = text_match_warning(p, c)
        if said is not None:  # "1001" vs 1001: the official number (0 for them), never a silent one
            warnings.warn(said)
    return contests


def contest_metrics(contest, values, origin, keep: bool) -> Tuple[Dict[str, Any], Dict[str, float]]:
    """The contest's ROUGE-L and BLEU-4 accumulators, scored; errors name the settings at fault."""
    rouge_s, bleu_s = build(dureader_from_options, values, origin)
    rouge, bleu = build(lambda _: (DuReaderRougeLAccumulator(rouge_s, keep), BleuAccumulator(bleu_s, keep)),
                        values, origin)  # a tokenizer's optional package may be missing
    try:
        score_contest(contest, rouge, bleu)
        scores = {"ROUGE-L": rouge.score(), "BLEU-4": bleu.score()}
    except (ValueError, TypeError, OverflowError) as e:  # e.g. sums out of range with absurd weights
        raise CliError(f"cannot score with {weights(values, origin)}: {e}") from None
    check_finite(scores, weights(values, origin))
    return {"ROUGE-L": rouge, "BLEU-4": bleu}, scores


def counts(contest) -> str:
    return (f"questions scored: {len(contest.qids)}; missing predictions: {len(contest.missing)}; "
            f"unexpected predictions: {len(contest.unexpected)}; "
            f"skipped (no reference answers): {len(contest.no_answer)}")


def one_question(contest, i: int) -> Contest:
    """The contest of question ``i`` alone (``explain``)."""
    c = Contest()
    for name in ("qids", "types", "cands", "ref_lists", "yn_labels", "yn_refs", "entity_refs", "sources"):
        getattr(c, name).append(getattr(contest, name)[i])
    return c
