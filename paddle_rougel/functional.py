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

from . import __version__, accumulators, engine, scoring
from .accumulators import RougeLAccumulator, RougeLsumAccumulator
from .hints import Hinter
from .inputs import check_tokens, make_batch, str_pairs_batch
from .lsum import make_lsum_batch, score_batch
from .settings import RougeLSettings, RougeLsumSettings
from .text import TextSettings

__all__ = ["RougeLOutput", "rouge_l", "rouge_lsum", "lcs_length", "compute", "compare"]

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
    text = TextSettings(tokenize, normalize, lowercase, stem)
    tok = RougeLSettings(text=text).tokenizer()
    hint = Hinter(text)
    res = engine.lcs_pairs(hypotheses, references) if tok is None else None  # strs: one C call
    if res is not None:
        hint(hypotheses, references)
        p, r = scoring.precision_recall(res.lcs, res.cand_len, res.ref_len)
        f = scoring.f_t2t(p, r) if a < 0 else scoring.f_alpha(p, r, a)
        return RougeLOutput(f, p, r)
    batch = make_batch(hypotheses, list(zip(references)), tokenizer=tok, hint=hint, words=True,
                       snapshot=False)  # errors name the instance
    res = engine.lcs_batch(batch.cands, batch.ref_lists, words=batch.words)
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


def _depth(x: Any) -> int:
    """Nesting by first items: a str or a token 0, a list / tuple / array one more than its first
    item (an empty one 1).  ``"ab"`` 0, ``["s1", "s2"]`` 1, ``[["a", "b"], ["c"]]`` 2."""
    d = 0
    while isinstance(x, (list, tuple, np.ndarray)):
        d += 1
        if len(x) == 0:
            break
        x = x[0]
    return d


def _lsum_refs(pred: Any, refs: Any) -> Any:
    """One prediction's references for ROUGE-Lsum: a str is one reference; a reference with the
    prediction's shape (sentences of a prediction given as a list of sentences) is one
    reference, as the prediction is one summary; deeper, a list of references."""
    if isinstance(refs, str) or refs is None:
        return [refs]
    if not isinstance(pred, str) and isinstance(refs, (list, tuple, np.ndarray)) \
            and _depth(refs) <= _depth(pred):
        return [refs]
    return refs


_SEQS = {list, tuple}


def _one_reference_each(predictions: list, references: list) -> bool:
    """What _ref_list decides item by item, for the two common cases at once: every reference
    a str, or every prediction and reference a list/tuple of tokens that are not sequences."""
    rtypes = set(map(type, references))
    if rtypes <= {str}:
        return True
    if not (rtypes <= _SEQS and set(map(type, predictions)) <= _SEQS):
        return False
    return not {type(r[0]) for r in references if r} & {list, tuple, np.ndarray}


def _weighting(gamma: Optional[float], alpha: Optional[float]) -> dict:
    if gamma is not None and alpha is not None:
        raise ValueError("compute: give gamma or alpha, not both")
    return dict(gamma=None, alpha=alpha) if alpha is not None else \
        dict(gamma=1.2 if gamma is None else gamma)


def _rouge_l_part(predictions: list, references: list, text: TextSettings, weight: dict,
                  multi_ref: str, per_instance: bool) -> dict:
    settings = RougeLSettings(multi_ref=multi_ref, text=text, **weight)
    acc = RougeLAccumulator(settings)
    batch = str_pairs_batch(predictions, references, acc.tokenizer)  # strs, one reference each
    if batch is not None:
        acc.hint(predictions, references)
    else:
        if _one_reference_each(predictions, references):  # 1-tuples at C speed
            ref_lists = list(zip(references))
        else:
            ref_lists = [_ref_list(p, r, i) for i, (p, r) in enumerate(zip(predictions, references))]
        batch = make_batch(predictions, ref_lists, tokenizer=acc.tokenizer, hint=acc.hint, words=True,
                           snapshot=False)
    s = acc.add_now(batch)[0]
    return _part("rougeL", acc, s, per_instance), settings


def _rouge_lsum_part(predictions: list, references: list, text: TextSettings, weight: dict,
                     multi_ref: str, split: str, per_instance: bool) -> dict:
    settings = RougeLsumSettings(multi_ref=multi_ref, split=split, text=text, **weight)
    acc = RougeLsumAccumulator(settings)
    if set(map(type, references)) <= {str}:  # one reference each (no list per instance)
        batch = make_lsum_batch(predictions, references, split, acc.tokenizer, settings.raw_text(),
                                one_ref=True, hint=acc.hint)
    else:
        refs = [_lsum_refs(p, r) for p, r in zip(predictions, references)]
        batch = make_lsum_batch(predictions, refs, split, acc.tokenizer, settings.raw_text(), hint=acc.hint)
    return _part("rougeLsum", acc, acc.add_now(batch)[0], per_instance), settings


def _part(name: str, acc, s, per_instance: bool) -> dict:
    mean = acc.scores()
    out = {name: mean.fmeasure, f"{name}_precision": mean.precision, f"{name}_recall": mean.recall}
    if per_instance:
        out["per_instance"] = {name: s.fmeasure, f"{name}_precision": s.precision,
                               f"{name}_recall": s.recall}
    return out


ROUGE_TYPES = ("rougeL", "rougeLsum")
_DEFAULTS = {"multi_ref": "max_pr", "tokenize": "char", "normalize": "none", "stem": False,
             "split": "newline"}  # compute's settings left None (gamma, alpha, lowercase: None)


def compute(predictions: Sequence, references: Sequence, *, rouge_types: Any = ("rougeL",),
            gamma: Optional[float] = None, alpha: Optional[float] = None,
            multi_ref: Optional[str] = None, tokenize: Any = None, normalize: Optional[str] = None,
            lowercase: Optional[bool] = None, stem: Optional[bool] = None,
            split: Optional[str] = None, per_instance: bool = False,
            preset: Optional[str] = None) -> dict:
    """ROUGE-L (and ROUGE-Lsum) of a set of predictions against their references, in one call.

    Args:
        predictions: N predictions, each a str or a token list (ROUGE-Lsum: a str
            split into sentences by ``split``, or a list of sentences).
        references: N items, each one reference of the prediction's kind (a str,
            or a token list) or a list of them.  ROUGE-Lsum reads them the same
            way: a str is one reference; for a prediction given as a list of
            sentences, a list of the same shape (``[s1, s2]``) is one reference, a
            list of such lists (``[[s1, s2], [t1]]``) several; for a str prediction,
            a list is a list of references (``[[s1, s2]]``: one, given as sentences).
        rouge_types: ``"rougeL"`` (default), ``"rougeLsum"`` (summary-level), or both.
        gamma / alpha: the F weighting (default gamma 1.2; give one of them).
        preset: a shipped preset's settings (``"rouge155"``, ``"rouge_chinese"``, ...:
            :func:`paddle_rougel.config.preset`); the settings given here override it
            (a gamma or alpha replaces its weighting).  None of the settings given and no
            preset: the defaults below.
        multi_ref: ``"max_pr"`` (default), ``"best"``, ``"avg"``, ``"pooled"`` or
            ``"best_recall"`` (see :class:`paddle_rougel.RougeL`).
        tokenize, normalize, lowercase, stem: text settings (:mod:`paddle_rougel.text`;
            default characters as given).
        split: ROUGE-Lsum's sentence splitter: ``"newline"`` (default), ``"zh"`` or ``"en"``.
        per_instance: also return the per-instance figures.

    Returns:
        For each type T asked: ``T``, ``T_precision``, ``T_recall`` (macro averages
        over the N instances, 0-1; 0.0 when N is 0); ``"count"``: N; ``"signature"``:
        every setting that changes the numbers; with ``per_instance``, a
        ``"per_instance"`` dict of the same keys holding float64 arrays [N].

    >>> out = compute(["the cat sat on the mat"], [["the cat is on the mat", "a cat"]],
    ...               tokenize="whitespace", gamma=1.0)
    >>> round(out["rougeL"], 6), out["count"]
    (0.833333, 1)
    >>> out = compute(["the cat sat\\nit was happy"], ["a cat sat down\\nit was very happy"],
    ...               rouge_types=["rougeL", "rougeLsum"], tokenize="whitespace", gamma=1.0)
    >>> round(out["rougeL"], 6), round(out["rougeLsum"], 6)
    (0.714286, 0.714286)
    >>> out = compute(["a b c d"], [["a", "a b c d e"]], preset="rouge155")   # ROUGE-1.5.5 -f A
    >>> round(out["rougeL_recall"], 6), out["rougeL_precision"]
    (0.833333, 0.625)
    """
    types = [rouge_types] if isinstance(rouge_types, str) else list(rouge_types)
    if not types or any(t not in ROUGE_TYPES for t in types):
        raise ValueError(f"compute: rouge_types must name some of {', '.join(ROUGE_TYPES)}, "
                         f"got {rouge_types!r}")
    if isinstance(predictions, (str, bytes)) or isinstance(references, (str, bytes)):
        raise TypeError("compute takes a list of predictions and a list of references, not a str")
    predictions, references = list(predictions), list(references)
    if len(predictions) != len(references):
        raise ValueError(f"compute: got {len(predictions)} predictions but {len(references)} references")
    given = dict(gamma=gamma, alpha=alpha, multi_ref=multi_ref, tokenize=tokenize,
                 normalize=normalize, lowercase=lowercase, stem=stem, split=split)
    if preset is not None:
        from .config import preset as preset_values

        base = preset_values(preset)
        if gamma is not None or alpha is not None:  # the caller's weighting replaces the preset's
            base.pop("gamma", None), base.pop("alpha", None)
        given = {k: base.get(k) if v is None else v for k, v in given.items()}
    for k, v in _DEFAULTS.items():
        if given[k] is None:
            given[k] = v
    gamma, alpha, multi_ref, split = given["gamma"], given["alpha"], given["multi_ref"], given["split"]
    text = TextSettings(given["tokenize"], given["normalize"], given["lowercase"], given["stem"])
    weight = _weighting(gamma, alpha)
    out: dict = {}
    parts = []
    if "rougeL" in types:
        parts.append(_rouge_l_part(predictions, references, text, weight, multi_ref, per_instance))
    if "rougeLsum" in types:
        parts.append(_rouge_lsum_part(predictions, references, text, weight, multi_ref, split,
                                      per_instance))
    for part, _ in parts:
        per = part.pop("per_instance", None)
        out.update(part)
        if per is not None:
            out.setdefault("per_instance", {}).update(per)
    names = "+".join(t for t in ROUGE_TYPES if t in types)
    out["count"] = len(predictions)
    out["signature"] = f"{names}|{parts[-1][1].signature()}|v:{__version__}"
    return out


def compare(system_a: Any, system_b: Any, method: str = "paired_bootstrap",
            resamples: Optional[int] = None, confidence: float = 0.95, seed: int = 0):
    """Is system B better than baseline A?  A paired test on the same instances.

    ``system_a`` / ``system_b``: two metrics (or accumulators) of the same kind
    and settings, fed the same instances in the same order; BLEU needs
    ``keep_instances=True``.  ``method``: ``"paired_bootstrap"`` (1,000
    resamples) or ``"approximate_randomization"`` (10,000 trials), as
    sacreBLEU's ``--paired-bs`` / ``--paired-ar`` (see :mod:`paddle_rougel.stats`).
    Returns a :class:`paddle_rougel.stats.Comparison`: ``score_a``, ``score_b``,
    ``difference`` (B - A), its interval ``low``/``high``, ``p_value`` (two-sided).

    >>> from paddle_rougel.accumulators import RougeLAccumulator
    >>> from paddle_rougel.inputs import make_batch
    >>> from paddle_rougel.settings import RougeLSettings
    >>> a, b = RougeLAccumulator(RougeLSettings()), RougeLAccumulator(RougeLSettings())
    >>> refs = [["abcd"]] * 40
    >>> a.add(make_batch(["abxx"] * 40, refs)); b.add(make_batch(["abcx"] * 40, refs))
    >>> c = compare(a, b, seed=1)
    >>> round(c.difference, 4), c.p_value < 0.01
    (0.25, True)
    """
    def acc(m):
        return m.accumulator if hasattr(m, "accumulator") else m

    gather = None
    if getattr(system_a, "sync_dist", False) or getattr(system_b, "sync_dist", False):
        from ._paddle import all_gather_rows as gather
    return accumulators.compare(acc(system_a), acc(system_b), method, resamples, confidence, seed, gather)


# --------------------------------------------------------------- ROUGE-Lsum

def rouge_lsum(hypotheses: Sequence, references: Sequence, alpha: Optional[float] = None, *,
               split: str = "newline", tokenize: Any = "char", normalize: str = "none",
               lowercase: Optional[bool] = None, stem: bool = False) -> RougeLOutput:
    """ROUGE-Lsum (summary-level, union LCS) F, P and R of each (hypothesis, reference) pair.

    Exactly rouge-score 0.1.2's ``rougeLsum`` (with ``tokenize="rouge_score"``).

    Args:
        hypotheses: N summaries: a str (split into sentences by ``split``:
            ``"newline"``, ``"zh"`` or ``"en"``, see :mod:`paddle_rougel.lsum`) or a
            list of sentences (each a str or a token list).
        references: N summaries of the same kinds, one per hypothesis.
        alpha: as :func:`rouge_l` (None = 0.5; negative: tensor2tensor's formula).
        tokenize, normalize, lowercase, stem: text settings, applied to each sentence.

    Returns:
        ``RougeLOutput(f_measure, p_measure, r_measure)``, float64 arrays [N].

    >>> out = rouge_lsum(["the cat sat\\nit was happy"], ["a cat sat down\\nit was very happy"],
    ...                  tokenize="whitespace")
    >>> out.p_measure.round(6).tolist(), out.r_measure.round(6).tolist()
    ([0.833333], [0.625])
    """
    a = scoring.check_alpha(alpha)
    if isinstance(hypotheses, (str, bytes)) or isinstance(references, (str, bytes)):
        raise TypeError("rouge_lsum takes a list of hypotheses and a list of references, not a single str")
    hypotheses, references = list(hypotheses), list(references)
    if len(hypotheses) != len(references):
        raise ValueError(f"rouge_lsum: got {len(hypotheses)} hypotheses but {len(references)} references")
    settings = RougeLsumSettings(split=split, text=TextSettings(tokenize, normalize, lowercase, stem))
    acc = RougeLsumAccumulator(settings)
    batch = make_lsum_batch(hypotheses, references, split, acc.tokenizer, settings.raw_text(),
                            one_ref=True, hint=acc.hint)
    res = score_batch(batch.cands, batch.ref_lists, acc._prepare, chars=settings.text_mode() == "char")
    p, r = scoring.precision_recall(res.hits, res.cand_len, res.ref_len)
    f = scoring.f_t2t(p, r) if a < 0 else scoring.f_alpha(p, r, a)
    return RougeLOutput(f, p, r)
