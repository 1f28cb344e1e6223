"""Functional ROUGE-L, compatible with TF-Text's ``text.metrics.rouge_l``.

One reference per hypothesis; returns per-pair F, P and R as float64 arrays.

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

from typing import NamedTuple, Optional, Sequence

import numpy as np

from . import engine, scoring
from .inputs import make_batch

__all__ = ["RougeLOutput", "rouge_l", "lcs_length"]

lcs_length = engine.lcs_length


class RougeLOutput(NamedTuple):
    """Per-pair ROUGE-L, field names as TF-Text."""

    f_measure: np.ndarray
    p_measure: np.ndarray
    r_measure: np.ndarray


def rouge_l(hypotheses: Sequence, references: Sequence, alpha: Optional[float] = None) -> RougeLOutput:
    """ROUGE-L F, P and R of each (hypothesis, reference) pair.

    Args:
        hypotheses: N token sequences (a str is a sequence of characters).
        references: N token sequences, one per hypothesis.
        alpha: None (0.5), a weight in [0, 1] (1 -> F = P, 0 -> F = R), or a
            negative number for tensor2tensor mode. alpha > 1 is a ValueError.

    Returns:
        ``RougeLOutput(f_measure, p_measure, r_measure)``, float64 arrays [N].
        A pair with an empty side scores 0, 0, 0.
    """
    a = scoring.check_alpha(alpha)
    if isinstance(hypotheses, (str, bytes)) or isinstance(references, (str, bytes)):
        raise TypeError("rouge_l takes a list of hypotheses and a list of references, not a single str")
    if len(hypotheses) != len(references):
        raise ValueError(f"rouge_l: got {len(hypotheses)} hypotheses but {len(references)} references")
    batch = make_batch(hypotheses, [[ref] for ref in references])  # errors name the instance
    res = engine.lcs_batch(batch.cands, batch.ref_lists)
    p, r = scoring.precision_recall(res.lcs, res.cand_len, res.ref_len)
    f = scoring.f_t2t(p, r) if a < 0 else scoring.f_alpha(p, r, a)
    return RougeLOutput(f, p, r)
