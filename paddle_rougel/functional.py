"""Functional ROUGE-L: ``compute`` (text in, numbers out) and TF-Text's ``rouge_l``.

``compute(predictions, references, **settings)`` scores a whole set in one
call and returns a plain dict (as ``evaluate``'s ``rouge.compute`` and
torchmetrics' functional calls).  ``rouge_l`` is TF-Text compatible: one
reference per hypothesis, per-pair F, P and R as float64 arrays.

``alpha`` weights the harmonic mean as ROUGE-1.5.5 does
(1/F = alpha/P + (1 - alpha)/R); ``None`` means 0.5; a negative alpha selects
tensor2tensor's formula.  The metric classes' ``gamma`` is the same weighting:
alpha = 1 / (1 + gamma^2).

>>> f, p, r = rouge_l([["captain", "of", "the", "delta", "flight"], ["the", "1990", "transcript"]],
...                   [["delta", "air", "lines", "flight"], ["this", "concludes", "the", "transcript"]])
>>> f.round(5).tolist(), p.round(5).tolist(), r.round(5).tolist()
([0.44444, 0.57143], [0.4, 0.66667], [0.5, 0.5])
>>> rouge_l([["a", "b"]], [["b"]], alpha=1)
RougeLOutput(f_measure=array([0.5]), p_measure=array([0.5]), r_measure=array([1.]))
"""
from __future__ import annotations

from typing import Any, NamedTuple, Optional, Sequence

import numpy as np

from . import __version__, engine, scoring
from .accumulators import RougeLAccumulator
from .inputs import check_tokens, make_batch
from .settings import RougeLSettings
from .text import TextSettings

__all__ = ["RougeLOutput", "rouge_l", "lcs_length", "compute"]

lcs_length = engine.lcs_length


class RougeLOutput(NamedTuple):
    """Per-pair ROUGE-L, field names as TF-Text."""

    f_measure: np.ndarray
    p_measure: np.ndarray
    r_measure: np.ndarray


def rouge_l(hypotheses: Sequence, references: Sequence, alpha: Optional[float] = None, *,
            tokenize: Any = "char", normalize: str = "none", lowercase: Optional[bool] = None,
            stem: bool = False) -> RougeLOutput:
    """ROUGE-L F, P and R of each (hypothesis, reference) pair.

    Args:
        hypotheses: N token sequences (a str is a sequence of characters).
        references: N token sequences, one per hypothesis.
        alpha: None (0.5), a weight in [0, 1] (1 -> F = P, 0 -> F = R), or a
            negative number for tensor2tensor mode. alpha > 1 is a ValueError.
        tokenize, normalize, lowercase, stem: how a ``str`` becomes tokens
            (:mod:`paddle_rougel.text`; default: its characters as given).

    Returns:
        ``RougeLOutput(f_measure, p_measure, r_measure)``, float64 arrays [N].
        A pair with an empty side scores 0, 0, 0.
    """
    a = scoring.check_alpha(alpha)
    if isinstance(hypotheses, (str, bytes)) or isinstance(references, (str, bytes)):
        raise TypeError("rouge_l takes a list of hypotheses and a list of references, not a single str")
    if len(hypotheses) != len(references):
        raise ValueError(f"rouge_l: got {len(hypotheses)} hypotheses but {len(references)} references")
    tok = RougeLSettings(text=TextSettings(tokenize, normalize, lowercase, stem)).tokenizer()
    batch = make_batch(hypotheses, [[ref] for ref in references], tokenizer=tok)  # errors name the instance
    res = engine.lcs_batch(batch.cands, batch.ref_lists)
    p, r = scoring.precision_recall(res.lcs, res.cand_len, res.ref_len)
    f = scoring.f_t2t(p, r) if a < 0 else scoring.f_alpha(p, r, a)
    return RougeLOutput(f, p, r)


def _ref_list(pred: Any, refs: Any, i: int) -> Any:
    """One prediction's references: a single reference of the prediction's kind, or a list of them."""
    if isinstance(refs, str) or refs is None:
        return [refs]
    if isinstance(pred, str):
        return refs  # a str prediction: a list here is a list of references
    items = refs.tolist() if isinstance(refs, np.ndarray) and refs.ndim == 1 else refs
    try:
        first = next(iter(items), None)
    except TypeError:
        return [refs]  # not iterable: make_batch names the problem
    # token lists: a list whose items are sequences (not str tokens) is a list of references
    if isinstance(first, (list, tuple, np.ndarray)):
        return refs
    return [check_tokens(refs, f"instance {i}, reference 0")]


def compute(predictions: Sequence, references: Sequence, *, gamma: Optional[float] = None,
            alpha: Optional[float] = None, multi_ref: str = "max_pr", tokenize: Any = "char",
            normalize: str = "none", lowercase: Optional[bool] = None, stem: bool = False,
            per_instance: bool = False) -> dict:
    """ROUGE-L of a set of predictions against their references, in one call.

    Args:
        predictions: N predictions, each a str or a token list.
        references: N items, each one reference of the prediction's kind (a str,
            or a token list) or a list of them.
        gamma / alpha: the F weighting (default gamma 1.2; give one of them).
        multi_ref: ``"max_pr"`` (default), ``"best"`` or ``"avg"``.
        tokenize, normalize, lowercase, stem: text settings (:mod:`paddle_rougel.text`).
        per_instance: also return the per-instance figures.

    Returns:
        ``{"rougeL": F, "rougeL_precision": P, "rougeL_recall": R, "count": N,
        "signature": str}``: macro averages over the N instances (0.0 when N is 0),
        plus ``"per_instance": {"rougeL": array, "rougeL_precision": array,
        "rougeL_recall": array}`` (float64 arrays [N]) when asked.

    >>> out = compute(["the cat sat on the mat"], [["the cat is on the mat", "a cat"]],
    ...               tokenize="whitespace", gamma=1.0)
    >>> round(out["rougeL"], 6), out["count"]
    (0.833333, 1)
    """
    if isinstance(predictions, (str, bytes)) or isinstance(references, (str, bytes)):
        raise TypeError("compute takes a list of predictions and a list of references, not a str")
    predictions = list(predictions)
    references = list(references)
    if len(predictions) != len(references):
        raise ValueError(f"compute: got {len(predictions)} predictions but {len(references)} references")
    if gamma is not None and alpha is not None:
        raise ValueError("compute: give gamma or alpha, not both")
    text = TextSettings(tokenize, normalize, lowercase, stem)
    settings = (RougeLSettings(gamma=None, alpha=alpha, multi_ref=multi_ref, text=text)
                if alpha is not None else
                RougeLSettings(gamma=1.2 if gamma is None else gamma, multi_ref=multi_ref, text=text))
    acc = RougeLAccumulator(settings)
    ref_lists = [_ref_list(p, r, i) for i, (p, r) in enumerate(zip(predictions, references))]
    s = acc.add_now(make_batch(predictions, ref_lists, tokenizer=acc.tokenizer))[0]
    mean = acc.scores()
    out = {"rougeL": mean.fmeasure, "rougeL_precision": mean.precision, "rougeL_recall": mean.recall,
           "count": len(predictions),
           "signature": f"rougeL|{settings.signature()}|v:{__version__}"}
    if per_instance:
        out["per_instance"] = {"rougeL": s.fmeasure, "rougeL_precision": s.precision,
                               "rougeL_recall": s.recall}
    return out
