"""Functional API: ``compute`` (text in, numbers out, every ROUGE type), ``compare``, and the
per-pair calls of each metric (``rouge_l``, ``rouge_lsum``, ``rouge_n``: in their metric modules).

``compute(predictions, references, rouge_types=[...], **settings)`` scores a whole set in one
call and returns a plain dict with ``evaluate``'s key names (``rouge1``, ``rouge2``,
``rougeL``, ``rougeLsum``, each with ``_precision`` / ``_recall``), as ``evaluate``'s
``rouge.compute`` and torchmetrics' functional calls.  The types are read from the metric
registry (:mod:`paddle_rougel.metrics`).

``rouge_l`` is TF-Text compatible: one reference per hypothesis, per-pair F, P and R.
``alpha`` weights the harmonic mean as ROUGE-1.5.5 does (1/F = alpha/P + (1 - alpha)/R);
``None`` means 0.5; a negative alpha selects tensor2tensor's formula; ``gamma`` is the same
weighting as the metric classes spell it (alpha = 1 / (1 + gamma^2)).

>>> f, p, r = rouge_l([["captain", "of", "the", "delta", "flight"], ["the", "1990", "transcript"]],
...                   [["delta", "air", "lines", "flight"], ["this", "concludes", "the", "transcript"]])
>>> f.round(5).tolist(), p.round(5).tolist(), r.round(5).tolist()
([0.44444, 0.57143], [0.4, 0.66667], [0.5, 0.5])
>>> rouge_l([["a", "b"]], [["b"]], alpha=1)
RougeLOutput(f_measure=array([0.5]), p_measure=array([0.5]), r_measure=array([1.]))
"""
from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence

import numpy as np

from ..core.signature import signature
from ..metrics import accumulators
from ..engine import host as engine
from ..core import scoring
from ..metrics import METRICS, resolve_type, rouge_types as _types
from ..metrics.rouge_l import RougeLAccumulator, rouge_l
from ..metrics.rouge_lsum import rouge_lsum
from ..metrics.rouge_n import RougeNAccumulator, rouge_n
from ..engine.ngrams import lcs_ngram_words, ngram_overlap
from ..core.scoring import RougeLOutput
from ..core.settings import SettingsError, keywords_checked, suggest

__all__ = ["RougeLOutput", "rouge_l", "rouge_lsum", "rouge_n", "lcs_length", "compute", "compare",
           "ROUGE_TYPES", "signature", "score_all"]

lcs_length = engine.lcs_length

ROUGE_TYPES = ("rouge1", "rouge2", "rougeL", "rougeLsum")  # the usual ones; rougeN for any n
_DEFAULTS = {"multi_ref": "max_pr", "tokenize": "char", "normalize": "none", "stem": False,
             "split": "newline", "distinct": False}  # left None: gamma, alpha, lowercase


def _settings_values(preset: Optional[str], given: Dict[str, Any]) -> Dict[str, Any]:
    """The option values of compute's keywords over a preset's, then the defaults."""
    if preset is not None:
        from .config import preset as preset_values

        base = preset_values(preset)
        if given.get("gamma") is not None or given.get("alpha") is not None:
            base.pop("gamma", None), base.pop("alpha", None)  # the caller's weighting replaces the preset's
        given = {k: base.get(k) if v is None else v for k, v in given.items()}
    for k, v in _DEFAULTS.items():
        if given[k] is None:
            given[k] = v
    return {k: v for k, v in given.items() if v is not None}


@keywords_checked
def compute(predictions: Sequence, references: Sequence, *, rouge_types: Any = ("rougeL",),
            gamma: Optional[float] = None, alpha: Optional[float] = None,
            multi_ref: Optional[str] = None, tokenize: Any = None, normalize: Optional[str] = None,
            lowercase: Optional[bool] = None, stem: Optional[bool] = None,
            split: Optional[str] = None, distinct: Optional[bool] = None, per_instance: bool = False,
            preset: Optional[str] = None, aggregate: str = "mean", seed: Optional[int] = None,
            use_stemmer: Optional[bool] = None, tokenizer: Any = None,
            split_summaries: Optional[bool] = None) -> dict:
    """ROUGE-1, ROUGE-2, ROUGE-L, ROUGE-Lsum (any of them) of a set of predictions, in one call.

    Args:
        predictions: N predictions, each a str or a token list (ROUGE-Lsum: a str
            split into sentences by ``split``, or a list of sentences).
        references: N items, each one reference of the prediction's kind (a str,
            or a token list) or a list of them.  ROUGE-Lsum reads them the same
            way: a str is one reference; for a prediction given as a list of
            sentences, a list of the same shape (``[s1, s2]``) is one reference, a
            list of such lists (``[[s1, s2], [t1]]``) several; for a str prediction,
            a list is a list of references (``[[s1, s2]]``: one, given as sentences).
        rouge_types: names as ``evaluate``'s: ``"rouge1"``, ``"rouge2"`` (any
            ``"rougeN"``), ``"rougeL"`` (default), ``"rougeLsum"`` (summary-level);
            a list, or one name.
        gamma / alpha: the F weighting (default gamma 1.2; give one of them).
        preset: a shipped preset's settings (``"rouge_score"``, ``"rouge_chinese"``,
            ``"rouge155"``, ...: :func:`paddle_rougel.config.preset`); the settings given here
            override it (a gamma or alpha replaces its weighting).  None of the settings given
            and no preset: the defaults below.
        multi_ref: ``"max_pr"`` (default), ``"best"``, ``"avg"``, ``"pooled"`` or
            ``"best_recall"`` (see :class:`paddle_rougel.RougeL`).
        tokenize, normalize, lowercase, stem: text settings (:mod:`paddle_rougel.text`;
            default characters as given).  ``tokenize`` also takes a tokenizer object
            (anything with a ``tokenize(text)`` method, as rouge-score's ``tokenizer=``).
        split: ROUGE-Lsum's sentence splitter: ``"newline"`` (default), ``"zh"``, ``"en"``
            or ``"nltk"``; without ROUGE-Lsum in ``rouge_types`` it is checked and unused.
        distinct: ROUGE-N counts each distinct n-gram once (rouge-chinese); default False.
        per_instance: also return the per-instance figures.
        aggregate: ``"mean"`` (default: the mean over the instances) or ``"bootstrap_mid"``
            (what ``evaluate``'s rouge reports by default: rouge-score's BootstrapAggregator
            ``mid``, :mod:`paddle_rougel.aggregate`), drawn from ``numpy.random.RandomState(seed)``,
            or from numpy's global random state as ``evaluate`` does when ``seed`` is None.
            ``"rouge155"``: ROUGE-1.5.5.pl's printed averages (the mean of its 1,000 bootstrap
            resamples) and, under ``"intervals"``, its 95% interval ends, from the per-instance
            figures as the script rounds them (:func:`paddle_rougel.rouge155.bootstrap.score_intervals`).
        use_stemmer, tokenizer, split_summaries: rouge-score's names of ``stem``,
            ``tokenize`` and ``split="nltk"`` (``split_summaries=True``), for migrating code.

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
    ...               rouge_types=["rouge1", "rouge2", "rougeL", "rougeLsum"], tokenize="whitespace",
    ...               gamma=1.0)
    >>> [round(out[t], 6) for t in ("rouge1", "rouge2", "rougeL", "rougeLsum")]
    [0.714286, 0.333333, 0.714286, 0.714286]
    >>> out = compute(["a b c d"], [["a", "a b c d e"]], preset="rouge155")   # ROUGE-1.5.5 -f A
    >>> round(out["rougeL_recall"], 6), out["rougeL_precision"]
    (0.833333, 0.625)
    """
    types, predictions, references = _inputs(rouge_types, predictions, references)
    stem, tokenize, split = _peer_names(stem, use_stemmer, tokenize, tokenizer, split, split_summaries)
    _check_aggregate(aggregate, seed)
    values = _settings_values(preset, dict(gamma=gamma, alpha=alpha, multi_ref=multi_ref, tokenize=tokenize,
                                           normalize=normalize, lowercase=lowercase, stem=stem, split=split,
                                           distinct=distinct))
    parts = _parts(types, values, gamma, alpha)
    _check_type_options(parts, dict(split=split, distinct=distinct))
    accs = {name: spec.accumulator(settings) for name, spec, _, settings in parts}
    score_all(accs, predictions, references)
    out = _results(accs, per_instance, aggregate, seed)
    out["count"] = len(predictions)
    out["signature"] = signature(parts, version=True)
    if aggregate == "bootstrap_mid":
        out["signature"] += f"|agg:{aggregate}:seed:{'global' if seed is None else int(seed)}"
    elif aggregate != "mean":
        out["signature"] += f"|agg:{aggregate}"   # rouge155: the script's fixed draws
    return out


def _parts(types: List[str], values: Dict[str, Any], gamma, alpha) -> List[tuple]:
    """``(name, spec, params, settings)`` of each type asked, under the option values."""
    try:
        scoring.weighting(gamma, alpha)  # the one rule, before a preset's weighting is merged in
    except ValueError as e:
        raise ValueError(f"compute: {e}") from None
    parts = []
    for name in types:
        spec, params = resolve_type(name)
        parts.append((name, spec, params, spec.from_options({**values, **params})))
    return parts


def _inputs(rouge_types: Any, predictions: Sequence, references: Sequence) -> tuple:
    """compute's validated type names and snapshots of its two lists."""
    try:
        types = _types(rouge_types)
    except SettingsError as e:
        raise ValueError(f"compute: rouge_types: {e}") from None
    if isinstance(predictions, (str, bytes)) or isinstance(references, (str, bytes)):
        raise TypeError("compute takes a list of predictions and a list of references, not a str")
    predictions, references = tuple(predictions), tuple(references)  # a snapshot (a tuple is kept: it cannot change)
    if len(predictions) != len(references):
        raise ValueError(f"compute: got {len(predictions)} predictions but {len(references)} references")
    return types, predictions, references


def _peer_names(stem, use_stemmer, tokenize, tokenizer, split, split_summaries) -> tuple:
    """(stem, tokenize, split) of compute's keywords and rouge-score's names of them (either
    spelling; both, differing, is an error)."""
    def one(ours, theirs, our_name, their_name):
        if theirs is None:
            return ours
        if ours is not None and ours is not theirs and ours != theirs:
            raise ValueError(f"compute: give {our_name}= or {their_name}= (rouge-score's name), not both")
        return theirs

    if split_summaries is not None and not isinstance(split_summaries, bool):
        raise TypeError(f"compute: split_summaries must be a bool, got {type(split_summaries).__name__}")
    stem = one(stem, use_stemmer, "stem", "use_stemmer")
    tokenize = one(tokenize, tokenizer, "tokenize", "tokenizer")
    split = one(split, {True: "nltk", False: None}.get(split_summaries), "split", "split_summaries")
    return stem, tokenize, split


def _check_aggregate(aggregate: str, seed: Optional[int]) -> None:
    from ..stats.aggregate import AGGREGATES

    if aggregate not in AGGREGATES:
        raise ValueError(f"compute: aggregate must be one of {', '.join(AGGREGATES)}, got {aggregate!r}"
                         f"{suggest(str(aggregate), AGGREGATES)}")
    if seed is not None and aggregate in ("mean", "rouge155"):
        raise ValueError(f"compute: seed= is for aggregate='bootstrap_mid' ({aggregate!r} takes none)")


def _results(accs: Dict[str, Any], per_instance: bool, aggregate: str, seed: Optional[int]) -> dict:
    """The figures of each type (the mean, or the bootstrap mid), and the per-instance ones."""
    out: dict = {}
    per: dict = {}
    if aggregate == "bootstrap_mid":
        from ..stats.aggregate import bootstrap_mid

        rows = {}
        for name, acc in accs.items():
            s = acc.per_instance()
            rows[name] = np.column_stack([s.precision, s.recall, s.fmeasure])
        mids = bootstrap_mid(rows, seed)
    if aggregate == "rouge155":   # ROUGE-1.5.5's averages and intervals (-t 0 -r 1000 -c 95)
        from ..rouge155.bootstrap import compute_intervals

        out["intervals"], mids = compute_intervals(accs)
    for name, acc in accs.items():
        if aggregate in ("bootstrap_mid", "rouge155"):
            p, r, f = (float(x) for x in mids[name])
        else:
            mean = acc.scores()
            p, r, f = mean.precision, mean.recall, mean.fmeasure
        out.update({name: f, f"{name}_precision": p, f"{name}_recall": r})
        if per_instance:
            s = acc.per_instance()
            per.update({name: s.fmeasure, f"{name}_precision": s.precision, f"{name}_recall": s.recall})
    if per_instance:
        out["per_instance"] = per
    return out


def _check_type_options(parts: List[tuple], given: Dict[str, Any]) -> None:
    """A type's own setting given (``distinct=``) with no type of it asked for: a ValueError, as
    ``score --distinct`` (not silently ignored; a preset's are left alone).  ``split=`` is taken
    without ROUGE-Lsum (checked, unused): generic callers (torchmetrics', transformers' helpers)
    pass their sentence-splitting flag whatever the types."""
    asked = {o.key for _, spec, _, _ in parts for o in spec.options}
    for key, value in given.items():
        if value is None or key in asked:
            continue
        owner = next(s for s in METRICS.values() if s.key is not None and key in {o.key for o in s.options})
        if key == "split":
            from ..engine.lsum import SPLITS

            if value not in SPLITS:
                raise ValueError(f"compute: split must be one of {', '.join(SPLITS)}, got {value!r}")
            continue
        raise ValueError(f"compute: {key}= applies to {owner.label.replace('{n}', 'N')} only "
                         f"(rouge_types={[p[0] for p in parts]} has none; add "
                         f"{owner.key.replace('{n}', '2')!r})")


def score_all(accs: Dict[str, Any], predictions: Sequence, references: Sequence, base: int = 0) -> None:
    """Score every type (``{name: accumulator}``) on the same inputs: one batch per way of
    reading them, every type scored (:func:`_score_jobs`: the reads they share made once)
    before any is folded, so an error changes none.  ``base``: the index of the first
    instance (in error messages)."""
    batches: Dict[Any, Any] = {}
    jobs = []
    for acc in accs.values():
        key = (type(acc).compute_batch, acc.settings.text)
        if key not in batches:
            batches[key] = acc.compute_batch(predictions, references, base)
        jobs.append((acc, batches[key]))
    for acc, (deltas, local) in _score_jobs(jobs):
        acc.add_scored(deltas, local)


def _score_jobs(jobs: List[tuple]) -> List[tuple]:
    """``(accumulator, (deltas, local))`` of each ``(accumulator, batch)``, nothing folded.

    The one place where several metrics read the same batch: ROUGE-N's orders of one batch and
    one ``distinct`` are counted in one pass, and ROUGE-L's LCS of that batch is read with
    them when its texts are ``str`` split into words and the back end reads both at once
    (:func:`ngrams.lcs_ngram_words`); otherwise each type scores as it would alone.  The
    numbers are the same either way (each metric's own ``score_counts`` / ``score_lcs`` turns
    them into P, R, F under its ``multi_ref`` and weighting)."""
    batch_of: Dict[int, Any] = {}
    lcs: Dict[int, list] = {}               # id(batch) -> ROUGE-L accumulators
    grams: Dict[tuple, list] = {}           # (id(batch), distinct) -> ROUGE-N accumulators
    for acc, batch in jobs:
        batch_of[id(batch)] = batch
        if isinstance(acc, RougeNAccumulator):
            grams.setdefault((id(batch), acc.settings.distinct), []).append(acc)
        elif isinstance(acc, RougeLAccumulator) and type(acc)._score is RougeLAccumulator._score:
            lcs.setdefault(id(batch), []).append(acc)
    done: Dict[int, tuple] = {}
    for (b, distinct), group in grams.items():
        batch = batch_of[b]
        orders = tuple(sorted({a.settings.n for a in group}))
        both = None
        if b in lcs and batch.words is not None:
            both = lcs_ngram_words(batch.cands, batch.ref_lists, batch.words, orders, distinct)
        if both is not None:
            for acc in lcs.pop(b):
                done[id(acc)] = acc.score_lcs(both[0], batch)
            res = both[1]
        else:
            res = ngram_overlap(batch.cands, batch.ref_lists, orders, distinct=distinct, words=batch.words)
        for acc in group:
            done[id(acc)] = acc.score_counts(res, orders.index(acc.settings.n))
    return [(acc, done[id(acc)] if id(acc) in done else acc.score_batch(batch)) for acc, batch in jobs]


@keywords_checked
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

    >>> from paddle_rougel.metrics.rouge_l import RougeLAccumulator, RougeLSettings
    >>> from paddle_rougel.engine.inputs import make_batch
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
        from ..metrics.distributed import all_gather_rows as gather
    return accumulators.compare(acc(system_a), acc(system_b), method, resamples, confidence, seed, gather)
