"""Scores per group of instances (question type, source, length bucket, any key), with
intervals and paired tests between two systems.

A group's score is the metric applied to the group's instances alone: ROUGE-L
the mean of their per-instance F, BLEU the corpus BLEU of their summed n-gram
statistics (never a mean of sentence BLEU).  It equals scoring the group's
instances in a metric of their own (tested).  Intervals and tests are the ones
of :mod:`paddle_rougel.stats` on the group's per-instance rows; a comparison of
two systems over G groups gives each group's paired test and its p-value
adjusted for the G tests by **Holm**'s step-down method (``p_adjusted``; controls
the family-wise error rate like Bonferroni, and rejects at least as often).

>>> from paddle_rougel.metrics.rouge_l import RougeLAccumulator
>>> from paddle_rougel.engine.inputs import make_batch
>>> from paddle_rougel.metrics.rouge_l import RougeLSettings
>>> acc = RougeLAccumulator(RougeLSettings(gamma=1.0))
>>> acc.add(make_batch(["abcd", "xy", "ab"], [["abce"], ["xy"], ["cd"]]))
>>> {k: (g.count, g.score) for k, g in breakdown(acc, ["a", "b", "a"]).items()}
{'a': (2, 0.375), 'b': (1, 1.0)}
"""
from __future__ import annotations

from typing import Any, Dict, List, NamedTuple, Optional, Sequence, Tuple

import numpy as np

from ..stats import intervals as stats
from ..core.settings import keywords_checked

__all__ = ["Group", "GroupComparison", "GroupStats", "breakdown", "compare_breakdown", "grouped", "holm",
           "group_index",
           "length_bucket", "LENGTH_BUCKETS"]

# answer-length buckets (tokens of the first reference, after the text settings)
LENGTH_BUCKETS = ((10, "<=10"), (20, "11-20"), (50, "21-50"), (100, "51-100"), (200, "101-200"))
LENGTH_TOP = ">200"


def length_bucket(n: int) -> str:
    """The label of a length in tokens: ``<=10``, ``11-20``, ``21-50``, ``51-100``, ``101-200``, ``>200``."""
    for hi, label in LENGTH_BUCKETS:
        if n <= hi:
            return label
    return LENGTH_TOP


LENGTH_ORDER = tuple(label for _, label in LENGTH_BUCKETS) + (LENGTH_TOP,)


class Group(NamedTuple):
    """One group: its key, instance count, score (0-1) and, when asked, its interval."""

    key: Any
    count: int
    score: float
    interval: Optional[stats.Interval]


class GroupComparison(NamedTuple):
    """One group of a two-system comparison: the paired test and its Holm-adjusted p-value
    (both None for a group of one instance, which is not tested and not counted by Holm)."""

    key: Any
    count: int
    comparison: Optional[stats.Comparison]
    p_adjusted: Optional[float]


def _acc(metric: Any):
    """The accumulator of a metric class (``.accumulator``) or an accumulator."""
    acc = getattr(metric, "accumulator", metric)
    if not hasattr(acc, "instance_columns") or not hasattr(acc, "statistic"):
        raise TypeError(f"expected a paddle-rougel metric or accumulator, got {type(metric).__name__}")
    return acc


def _sorted_keys(keys: Sequence) -> List[Any]:
    uniq = list(dict.fromkeys(keys))
    if set(uniq) <= set(LENGTH_ORDER):
        return [k for k in LENGTH_ORDER if k in set(uniq)]
    try:
        return sorted(uniq)
    except TypeError:  # mixed key types: first appearance
        return uniq


def group_index(keys: Sequence, n: int, order: Optional[Sequence] = None) -> Dict[Any, np.ndarray]:
    """``{key: instance indices}`` in ``order`` (default: sorted keys; length buckets by length)."""
    keys = list(keys)
    if len(keys) != n:
        raise ValueError(f"got {len(keys)} keys for {n} instances (one key per instance, in order)")
    for i, k in enumerate(keys):
        try:
            hash(k)
        except TypeError:
            raise TypeError(f"key {i} ({type(k).__name__}) is not hashable") from None
    where: Dict[Any, List[int]] = {}
    for i, k in enumerate(keys):
        where.setdefault(k, []).append(i)
    order = _sorted_keys(keys) if order is None else [k for k in order if k in where]
    return {k: np.asarray(where[k], dtype=np.int64) for k in order}


def _score(statistic, x: np.ndarray) -> float:
    """The statistic of one group's rows: column sums as a metric of its own would add them."""
    sums = np.array([[np.sum(np.ascontiguousarray(x[:, j])) for j in range(x.shape[1])]])
    return float(statistic(sums, len(x))[0])


def _columns(acc) -> Tuple[np.ndarray, Any]:
    """The per-instance columns the score reads, and the statistic over them (ROUGE-L: only
    the F column is resampled; its resampled sums are the same numbers)."""
    from ..metrics.accumulators import PrfAccumulator

    cols = acc.instance_columns()
    if isinstance(acc, PrfAccumulator):
        return cols[:, 2:3], stats.mean_statistic(0)
    return cols, acc.statistic()


class GroupStats(NamedTuple):
    """One group of :func:`grouped`: per system ``{metric: Group}``, and with two systems and
    ``paired``, ``{metric: Comparison}`` (B against A; empty for a group of one instance)."""

    key: Any
    count: int
    systems: List[Dict[str, Group]]
    comparisons: Dict[str, stats.Comparison]


def grouped(runs: Sequence[Dict[str, Any]], keys: Sequence, confidence: Optional[float] = 0.95,
            resamples: int = 1000, seed: int = 0, order: Optional[Sequence] = None,
            paired: bool = False) -> Dict[Any, GroupStats]:
    """Scores of one or more systems (``runs``: ``[{metric name: metric or accumulator}]``, scored
    on the same instances) per group, with intervals and, with ``paired``, the paired bootstrap
    test of the second system against the first (a group of fewer than
    ``stats.MIN_INSTANCES`` instances gets its score only: no interval, no test).  All intervals
    and tests of a group come from
    one set of resampled sums (the same draws as :func:`paddle_rougel.stats.bootstrap` and
    :func:`~paddle_rougel.stats.paired_bootstrap` with that seed: the same numbers)."""
    parts = [(s, name, *_columns(_acc(m))) for s, run in enumerate(runs) for name, m in run.items()]
    n = len(parts[0][2])
    for s, name, cols, _ in parts:
        if len(cols) != n:
            raise ValueError(f"the systems were scored on different instances: {n} vs {len(cols)}")
    if paired and len(runs) != 2:
        raise ValueError("a paired comparison needs two systems")
    sample = confidence is not None or paired
    if paired and confidence is None:
        raise ValueError("a paired comparison needs a confidence level for its interval")
    if sample:
        resamples = stats.check_resamples(resamples, confidence)
    out = {}
    for k, idx in group_index(keys, n, order).items():
        xs = [cols[idx] for _, _, cols, _ in parts]
        # a group of one instance has nothing to resample: its score, no interval or test
        tested = sample and len(idx) >= stats.MIN_INSTANCES
        sums = stats.resample_sums(np.concatenate(xs, axis=1), resamples, seed) if tested else None
        systems: List[Dict[str, Group]] = [{} for _ in runs]
        values: Dict[Tuple[int, str], np.ndarray] = {}
        lo = 0
        for (s, name, _, statistic), x in zip(parts, xs):
            iv = None
            if tested:
                values[s, name] = stats.apply_statistic(statistic, sums[:, lo:lo + x.shape[1]], len(x))
                lo += x.shape[1]
                if confidence is not None:
                    iv = stats.interval_of(values[s, name], stats.estimate(statistic, x), confidence, seed)
            systems[s][name] = Group(k, len(idx), _score(statistic, x), iv)
        comparisons = {}
        if paired and tested:
            for (s, name, _, statistic), x in zip(parts, xs):
                if s == 0:
                    xb = xs[[(t, nm) for t, nm, _, _ in parts].index((1, name))]
                    comparisons[name] = stats.paired_of(values[0, name], values[1, name],
                                                        stats.estimate(statistic, x),
                                                        stats.estimate(statistic, xb), confidence, seed)
        out[k] = GroupStats(k, len(idx), systems, comparisons)
    return out


@keywords_checked
def breakdown(metric: Any, keys: Sequence, confidence: Optional[float] = None,
              resamples: int = 1000, seed: int = 0, order: Optional[Sequence] = None) -> Dict[Any, Group]:
    """The metric's score per group of instances: ``{key: Group(key, count, score, interval)}``.

    ``metric``: a metric (``RougeL``, ``RougeLsum``, ``RougeLForDuReader``, ``BLEUForDuReader``)
    or an accumulator, holding per-instance statistics (BLEU: ``keep_instances=True``);
    ``keys``: one hashable key per instance, in the order added.  With ``confidence`` (e.g.
    0.95), each group gets a percentile bootstrap interval over its instances
    (``resamples``, ``seed``: :func:`paddle_rougel.stats.bootstrap`).
    """
    res = grouped([{"m": metric}], keys, confidence, resamples, seed, order)
    return {k: g.systems[0]["m"] for k, g in res.items()}


def holm(p_values: Sequence[float]) -> List[float]:
    """Holm's step-down adjusted p-values (in the input order), each at most 1.

    >>> holm([0.01, 0.04, 0.03])
    [0.03, 0.06, 0.06]
    """
    p = [float(x) for x in p_values]
    m = len(p)
    adj = [0.0] * m
    running = 0.0
    for rank, i in enumerate(sorted(range(m), key=lambda i: p[i])):
        running = max(running, min(1.0, (m - rank) * p[i]))
        adj[i] = running
    return adj


@keywords_checked
def compare_breakdown(a: Any, b: Any, keys: Sequence, method: str = "paired_bootstrap",
                      resamples: Optional[int] = None, confidence: float = 0.95, seed: int = 0,
                      order: Optional[Sequence] = None) -> Dict[Any, GroupComparison]:
    """System ``b`` against ``a`` per group: the paired test of
    :func:`paddle_rougel.compare` on each group's instances, with Holm-adjusted p-values."""
    from ..metrics.accumulators import COMPARE_METHODS

    acc_a, acc_b = _acc(a), _acc(b)
    if type(acc_a) is not type(acc_b) or acc_a.settings != acc_b.settings:
        raise ValueError("compare_breakdown: the systems must be the same metric with the same settings")
    if method not in COMPARE_METHODS:
        raise ValueError(f"method must be one of {', '.join(COMPARE_METHODS)}, got {method!r}")
    count = COMPARE_METHODS[method] if resamples is None else resamples
    if method == "paired_bootstrap":
        res = grouped([{"m": acc_a}, {"m": acc_b}], keys, confidence, count, seed, order, paired=True)
        results = {k: g.comparisons.get("m") for k, g in res.items()}
        counts = {k: g.count for k, g in res.items()}
    else:
        ca, cb = acc_a.instance_columns(), acc_b.instance_columns()
        if len(ca) != len(cb):
            raise ValueError(f"the systems were scored on different instances: {len(ca)} vs {len(cb)}")
        groups = group_index(keys, len(ca), order)
        results = {k: stats.approximate_randomization(ca[idx], cb[idx], acc_a.statistic(), count,
                                                      confidence, seed)
                   if len(idx) >= stats.MIN_INSTANCES else None for k, idx in groups.items()}
        counts = {k: len(idx) for k, idx in groups.items()}
    tested = [k for k, c in results.items() if c is not None]
    adjusted = dict(zip(tested, holm([results[k].p_value for k in tested])))
    return {k: GroupComparison(k, counts[k], c, adjusted.get(k)) for k, c in results.items()}
