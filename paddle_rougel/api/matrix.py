"""All-pairs ROUGE-L: every query against every choice, and Self-Instruct style de-duplication.

``rouge_l_matrix(queries, choices)`` is ``rouge_l`` over the Q x C grid in one call: the
choices are tokenized once and read once, and the C kernel scores four short queries at a
time against each choice on all threads; memory is the [Q, C] result (plus its int32 LCS
table), never Q copies of the pool.  A query is the hypothesis: P = LCS / len(query),
R = LCS / len(choice); F as ``rouge_l`` (``alpha`` None = 0.5, rouge-score's F).

``deduplicate(items, pool, threshold)`` is Self-Instruct's filter: items in order, each
compared with the pool and with the items kept before it; an item whose best F is above the
threshold is dropped (Self-Instruct: ``if max(rouge_scores) > 0.7: continue``).

>>> m = rouge_l_matrix(["the cat", "a dog"], ["the cat sat", "dog"], tokenize="whitespace")
>>> m.dtype, m.astype(float).round(4).tolist()
(dtype('float32'), [[0.8, 0.0], [0.0, 0.6667]])
>>> items = ["the cat sat", "the cat sat down", "a dog"]
>>> d = deduplicate(items, ["a cat"], 0.7, tokenize="whitespace")
>>> d.kept.tolist(), d.best.round(4).tolist()  # best: a dropped item's exact best F, NaN if kept
([0, 2], [nan, 0.8571, nan])
>>> deduplicate(items, ["a cat"], 0.7, tokenize="whitespace", best="exact").best.round(4).tolist()
[0.4, 0.8571, 0.5]
"""
from __future__ import annotations

from typing import Any, Optional, Sequence

from ..engine import host as engine
from ..core import scoring
from ..core.settings import keywords_checked
from .dedup import Dedup, deduplicate
from ..core.scoring import RougeLOutput
from ..core.hints import SAMPLE
from .join import check_memory, settings_of, token_texts

__all__ = ["rouge_l_matrix", "deduplicate", "Dedup"]

_texts = token_texts


def _lcs_matrix(texts: list, q: int, threads: Optional[int]):
    """(lcs int32 [Q, C], lengths int64 [Q + C]) of texts = queries + choices."""
    return engine.get_backend().lcs_matrix(texts, q, threads)


@keywords_checked
def rouge_l_matrix(queries: Sequence, choices: Sequence, alpha: Optional[float] = None, *,
                   gamma: Optional[float] = None, tokenize: Any = "char", normalize: str = "none", lowercase: Optional[bool] = None,
                   stem: bool = False, with_pr: bool = False, threads: Optional[int] = None):
    """ROUGE-L F of every (query, choice) pair: float32 [Q, C] (float64 values rounded once).

    Args:
        queries: Q texts (str, tokenized by the text settings, or token sequences).
        choices: C texts of the same kinds.
        alpha: as :func:`paddle_rougel.rouge_l` (None: 0.5; negative: tensor2tensor's F).
        gamma: instead of alpha (as alpha 1 / (1 + gamma^2)).
        tokenize, normalize, lowercase, stem: text settings (:mod:`paddle_rougel.text`).
        with_pr: return ``RougeLOutput(f, p, r)`` of three float32 [Q, C] arrays instead.
        threads: worker threads (default: ``engine.default_threads()``).

    Errors name the item (``query 3``, ``choice 7``).
    """
    a = scoring.weighting(gamma, alpha, default_alpha=0.5).as_alpha()
    samples = list(queries[:SAMPLE]) + list(choices[:SAMPLE]) if isinstance(queries, (list, tuple)) and \
        isinstance(choices, (list, tuple)) else []
    tok = settings_of(tokenize, normalize, lowercase, stem, samples)
    qt, ct = _texts(queries, "query", tok), _texts(choices, "choice", tok)
    shape = (len(qt), len(ct))
    nbytes = shape[0] * shape[1] * 4 * (4 if with_pr else 2)  # int32 LCS + float32 F (P, R)
    check_memory("rouge_l_matrix", shape, nbytes)
    try:
        lcs, lens = _lcs_matrix(qt + ct, len(qt), threads)
        out = engine.get_backend().score_matrix(lcs, lens, lcs.shape[0], a, with_pr, threads)
    except MemoryError as e:
        if str(e):
            raise
        dims = f"{shape[0]:,} x {shape[1]:,}"
        raise MemoryError(f"rouge_l_matrix: [{dims}] needs about {nbytes:,} bytes, which could not be "
                          "allocated; use similarity_join (the pairs above a threshold)") from None
    return RougeLOutput(*out) if with_pr else out[0]


