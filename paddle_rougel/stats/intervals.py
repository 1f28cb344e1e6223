"""Confidence intervals and significance tests for corpus metrics (numpy; no paddle).

A metric here is a function of **column sums** over instances: ROUGE-L's
mean of per-instance F is ``sum(F) / N`` (one column), and corpus BLEU is a
function of the summed clipped matches, candidate n-grams and brevity-penalty
lengths (``2 n + 2`` columns, see :func:`bleu_columns`).  Resampling draws
instances, sums their columns and applies the metric to the sums, so BLEU is
recomputed from resampled corpus statistics, never averaged over sentences.

* :func:`bootstrap`: percentile bootstrap interval of one system's score.
* :func:`paired_bootstrap`: paired bootstrap test of B against A.
* :func:`approximate_randomization`: approximate randomization test of B against A.

A *statistic* is ``statistic(sums, n) -> values``: sums ``[R, k]`` (and the
instance count ``n``) to ``R`` scores; :func:`mean_statistic` and
:func:`bleu_statistic` build them.

**The generator** (counter-based; the C kernel and the numpy fallback
implement it identically, so the same seed gives the same numbers on every
back end and thread count).  With splitmix64's output function ``mix``,
``GAMMA = 0x9E3779B97F4A7C15`` and arithmetic mod 2**64::

    key(seed, r)     = mix(seed + (r + 1) * GAMMA)
    draw(seed, r, j, m) = mulhi64(mix(key(seed, r) + (j + 1) * GAMMA), m)   # in [0, m)

(stream ``r`` is splitmix64 started from state ``key``, and the keys are
splitmix64 started from ``seed``).  ``mulhi64(h, m) = floor(h * m / 2**64)``
is computed exactly from 32-bit halves for ``m < 2**32``; its bias is at most
``m / 2**64``.  Bootstrap resample ``r`` draws instances
``draw(seed, r, j, N)`` for ``j < N``; randomization trial ``r`` exchanges
instance ``i`` of the two systems when ``draw(seed, r, i, 2)`` is 1.

**Summation.** A resampled sum is ``sum_i count_r[i] * x[i]`` (``count_r[i]``:
how often instance ``i`` was drawn), added as a fixed pairwise tree over
``i`` (adjacent pairs level by level, an odd last element carried up), the
same IEEE operations in C and numpy: bit-identical results, and an error of
O(log N) ulps rather than O(N).  The full-data estimate uses the same tree
(all counts 1).

The resampled sums come from the engine's back end
(:func:`paddle_rougel.engine.get_backend`): the C kernel when the extension is
built, else (or after ``engine.set_backend("python")``) the numpy version here,
which processes resamples in chunks of about ``_BUDGET`` elements.

**Limits** (checked before any work, each a ``ValueError`` naming the argument):

* an interval or a test needs at least ``MIN_INSTANCES`` (2) instances: one
  instance has nothing to resample (every resample is that instance: a
  zero-width "interval" and p = 1 / (R + 1) whatever the data);
* a percentile interval needs ``resamples >= min_resamples(confidence)``,
  the fewest with ``floor(R (1 - confidence) / 2) >= 1`` (40 at 95%, 200 at
  99%), so that each bound leaves at least one resample outside it (with
  fewer, both bounds are the extreme resamples, and one resample gives an
  interval that need not contain its own estimate);
* resamples (or trials) x (columns + 4) x 8 bytes, the resampled sums and
  the statistic's values, must fit in ``MAX_BYTES`` (1 GiB): about 5.5
  million paired BLEU-4 resamples (20 columns), 13 million paired ROUGE-L
  ones (6 columns).

Example:
    >>> import numpy as np
    >>> f = np.linspace(0.0, 1.0, 101)          # per-instance ROUGE-L F
    >>> iv = bootstrap(f, mean_statistic(), resamples=200, seed=1)
    >>> iv.estimate, iv.low < 0.5 < iv.high, iv.method
    (0.5, True, 'percentile bootstrap')
    >>> cmp = approximate_randomization(f, f + 0.01, mean_statistic(), trials=99, seed=1)
    >>> round(cmp.difference, 6), cmp.p_value < 0.05
    (0.01, True)
"""
from __future__ import annotations

import math
import operator
from typing import Callable, NamedTuple, Tuple

import numpy as np

from ..engine import host as engine
from ..engine.fallbacks import BOOTSTRAP, RANDOMIZE, check_seed, draws, tree_sum

__all__ = ["Interval", "Comparison", "Statistic", "mean_statistic",
           "draws", "tree_sum", "resample_sums", "randomized_sums", "bootstrap", "paired_bootstrap",
           "approximate_randomization", "min_resamples", "check_resamples", "MIN_INSTANCES", "MAX_BYTES",
           "interval_of", "paired_of", "estimate"]

Statistic = Callable[[np.ndarray, int], np.ndarray]

MIN_INSTANCES = 2    # instances an interval or a test needs
MAX_BYTES = 1 << 30  # resamples x (columns + 4) x 8 bytes at most (see "Limits")


class Interval(NamedTuple):
    """A bootstrap confidence interval: ``low <= high``; ``estimate`` is the score on all instances."""

    estimate: float
    low: float
    high: float
    resamples: int
    confidence: float
    seed: int
    method: str


class Comparison(NamedTuple):
    """System B against baseline A: ``difference = score_b - score_a`` (positive: B scores higher),
    ``[low, high]`` its paired-bootstrap percentile interval, ``p_value`` two-sided."""

    score_a: float
    score_b: float
    difference: float
    low: float
    high: float
    p_value: float
    method: str
    resamples: int
    confidence: float
    seed: int


# ------------------------------------------------------------------ statistics

def mean_statistic(column: int = 0) -> Statistic:
    """The mean of one column over instances: ``sums[:, column] / n`` (ROUGE-L: mean per-instance F).

    >>> mean_statistic()(np.array([[3.0], [1.5]]), 3).tolist()
    [1.0, 0.5]
    """
    column = operator.index(column)

    def statistic(sums: np.ndarray, n: int) -> np.ndarray:
        return np.asarray(sums, dtype=np.float64)[:, column] / n

    return statistic


# ------------------------------------------------------------------ generator and sums

def _check_count(value: int, name: str) -> int:
    if isinstance(value, bool):
        raise TypeError(f"{name} must be an int")
    value = operator.index(value)
    if value < 1:
        raise ValueError(f"{name} must be >= 1, got {value}")
    return value


def _check_confidence(confidence: float) -> float:
    confidence = float(confidence)
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be in (0, 1), got {confidence}")
    return confidence


def _tail(resamples: int, confidence: float) -> int:
    """Sorted resamples left out below the interval (and above): floor(R (1 - c) / 2)."""
    return int(math.floor(resamples * (1 - confidence) / 2 + 1e-9))


def min_resamples(confidence: float = 0.95) -> int:
    """The fewest resamples whose percentile interval leaves a resample out on each side.

    >>> min_resamples(0.95), min_resamples(0.99), min_resamples(0.9)
    (40, 200, 20)
    """
    c = _check_confidence(confidence)
    r = max(1, math.ceil(2 / (1 - c) * (1 - 1e-9)))
    while _tail(r, c) < 1:
        r += 1
    while r > 1 and _tail(r - 1, c) >= 1:
        r -= 1
    return r


def check_resamples(resamples: int, confidence: float = 0.95, name: str = "resamples") -> int:
    """``resamples`` for a percentile interval at ``confidence``: a count of at least
    :func:`min_resamples` (the command line checks its options with this before reading input).

    >>> check_resamples(39)
    Traceback (most recent call last):
    ...
    ValueError: resamples=39 is too few for a 95% interval: use at least 40 (each bound must leave a resample outside it)
    """
    resamples, c = _check_count(resamples, name), _check_confidence(confidence)
    need = min_resamples(c)
    if resamples < need:
        raise ValueError(f"{name}={resamples} is too few for a {c * 100:g}% interval: use at least "
                         f"{need} (each bound must leave a resample outside it)")
    return resamples


def _check_size(rows: int, k: int, name: str) -> None:
    """rows x (k + 4) x 8 bytes within MAX_BYTES, before anything is allocated."""
    need = rows * (k + 4) * 8
    if need > MAX_BYTES:
        raise ValueError(f"{name}={rows} needs {need / 2 ** 30:.3g} GiB ({name} x ({k} columns + 4) x 8 "
                         f"bytes); the limit is {MAX_BYTES / 2 ** 30:g} GiB: at most "
                         f"{MAX_BYTES // ((k + 4) * 8)} {name} here")


def _columns(columns, name: str = "columns", min_n: int = 1) -> np.ndarray:
    """Finite float64 [N, k] (a 1-D input is one column), min_n <= N < 2**32."""
    x = np.asarray(columns, dtype=np.float64)
    if x.ndim == 1:
        x = x[:, None]
    if x.ndim != 2 or x.shape[1] < 1 or (x.shape[0] < 1 and min_n <= 1):
        raise ValueError(f"{name}: expected per-instance values [N] or [N, k] with N, k >= 1, "
                         f"got shape {np.shape(columns)}")
    if x.shape[0] < min_n:
        raise ValueError(f"{name}: {x.shape[0]} instance{'s' if x.shape[0] != 1 else ''}; an interval "
                         f"or a test needs at least {min_n} (one instance has nothing to resample)")
    if x.shape[0] >= 2 ** 32:
        raise ValueError(f"{name}: at most 2**32 - 1 instances")
    if not np.isfinite(x).all():
        raise ValueError(f"{name}: values must be finite (found NaN or infinity)")
    return x


def _pair(cols_a, cols_b, min_n: int = 1) -> Tuple[np.ndarray, np.ndarray]:
    a, b = _columns(cols_a, "cols_a", min_n), _columns(cols_b, "cols_b", min_n)
    if a.shape[0] != b.shape[0]:
        raise ValueError(f"paired test: system A has {a.shape[0]} instances but B has {b.shape[0]} "
                         "(both must score the same instances, in the same order)")
    if a.shape[1] != b.shape[1]:
        raise ValueError(f"paired test: system A has {a.shape[1]} columns but B has {b.shape[1]}")
    return a, b


def _sums(cols_kn: np.ndarray, resamples: int, seed: int, mode: int, name: str) -> np.ndarray:
    """[R, k] resampled sums of column-major cols [k, N], C kernel or numpy (bit-identical)."""
    _check_size(resamples, cols_kn.shape[0], name)
    return engine.get_backend().resample_sums(cols_kn, resamples, seed, mode)


def resample_sums(columns, resamples: int = 1000, seed: int = 0) -> np.ndarray:
    """Bootstrap column sums ``[resamples, k]``: row r sums the N instances drawn by resample r.

    ``columns`` is ``[N]`` or ``[N, k]`` per-instance values (finite).

    >>> x = np.array([1.0, 10.0, 100.0])
    >>> [np.bincount(draws(5, r, 3, 3), minlength=3).tolist() for r in range(2)]
    [[1, 0, 2], [1, 2, 0]]
    >>> resample_sums(x, resamples=2, seed=5)[:, 0].tolist()   # 1 + 2 * 100, 1 + 2 * 10
    [201.0, 21.0]
    """
    x = _columns(columns)
    return _sums(x.T, _check_count(resamples, "resamples"), check_seed(seed), BOOTSTRAP, "resamples")


def randomized_sums(cols_a, cols_b, trials: int = 10000, seed: int = 0) -> Tuple[np.ndarray, np.ndarray]:
    """Approximate-randomization column sums of the two pseudo-systems, each ``[trials, k]``.

    In trial r, instance i of A and of B are exchanged when ``draws(seed, r, 2, N)[i]`` is 1.

    >>> draws(5, 0, 2, 3).tolist()
    [1, 0, 1]
    >>> sa, sb = randomized_sums([1.0, 2.0, 3.0], [10.0, 20.0, 30.0], trials=1, seed=5)
    >>> float(sa[0, 0]), float(sb[0, 0])   # A' = (10, 2, 30), B' = (1, 20, 3)
    (42.0, 24.0)
    """
    a, b = _pair(cols_a, cols_b)
    k = a.shape[1]
    out = _sums(np.concatenate([a.T, b.T]), _check_count(trials, "trials"), check_seed(seed), RANDOMIZE,
                "trials")
    return out[:, :k], out[:, k:]


def apply_statistic(statistic: Statistic, sums: np.ndarray, n: int) -> np.ndarray:
    values = np.asarray(statistic(sums, n), dtype=np.float64)
    if values.shape != (len(sums),):
        raise ValueError(f"statistic returned shape {values.shape} for sums {sums.shape}; "
                         f"expected ({len(sums)},)")
    return values


def _percentile(values: np.ndarray, confidence: float) -> Tuple[float, float]:
    """sacreBLEU's ``estimate_ci`` bounds: sorted[lo] and sorted[R - 1 - lo], lo = floor(R (1 - c) / 2)."""
    v = np.sort(values)
    lo = _tail(len(v), confidence)
    return float(v[lo]), float(v[len(v) - 1 - lo])


def estimate(statistic: Statistic, x: np.ndarray) -> float:
    """The statistic on all instances ``x`` [N, k] (column sums by the module's tree)."""
    return _estimate(statistic, x)


def _estimate(statistic: Statistic, x: np.ndarray) -> float:
    return float(apply_statistic(statistic, tree_sum(x.T)[None, :], len(x))[0])


# ------------------------------------------------------------------ intervals and tests

def bootstrap(columns, statistic: Statistic, resamples: int = 1000, confidence: float = 0.95,
              seed: int = 0) -> Interval:
    """Percentile bootstrap interval of ``statistic`` over instances.

    ``columns``: per-instance values ``[N]`` or ``[N, k]`` (for BLEU,
    :func:`bleu_columns`).  Each of ``resamples`` resamples draws N instances
    with replacement (the generator of the module docstring), and the
    statistic is recomputed from the resampled column sums.  ``low`` and
    ``high`` are the sorted resampled scores at ``lo = floor(R (1 -
    confidence) / 2)`` and ``R - 1 - lo``: sacreBLEU's ``estimate_ci``
    (``sacrebleu/significance.py``: ``n // 40`` for its fixed 95%; 1,000
    resamples is its default too), which reports the half-width around the
    resamples' mean instead.

    >>> iv = bootstrap([0.0, 1.0, 1.0, 0.0, 1.0], mean_statistic(), resamples=100, seed=3)
    >>> iv.estimate, 0.0 <= iv.low <= iv.estimate <= iv.high <= 1.0, iv.resamples
    (0.6, True, 100)
    """
    x = _columns(columns, min_n=MIN_INSTANCES)
    confidence = _check_confidence(confidence)
    resamples, seed = check_resamples(resamples, confidence), check_seed(seed)
    values = apply_statistic(statistic, _sums(x.T, resamples, seed, BOOTSTRAP, "resamples"), len(x))
    return interval_of(values, _estimate(statistic, x), confidence, seed)


def interval_of(values: np.ndarray, estimate: float, confidence: float, seed: int) -> Interval:
    """The percentile interval of resampled scores ``values`` (the second half of :func:`bootstrap`;
    scores from :func:`resample_sums` of the same seed give the same interval)."""
    low, high = _percentile(values, confidence)
    return Interval(estimate, low, high, len(values), confidence, seed, "percentile bootstrap")


def paired_of(values_a: np.ndarray, values_b: np.ndarray, score_a: float, score_b: float,
              confidence: float, seed: int) -> Comparison:
    """The paired-bootstrap test from the two systems' scores on the same resamples (the second
    half of :func:`paired_bootstrap`)."""
    diff_star = values_b - values_a
    d = score_b - score_a
    p = (1 + int(np.count_nonzero(np.abs(diff_star - d) >= abs(d)))) / (len(diff_star) + 1)
    low, high = _percentile(diff_star, confidence)
    return Comparison(score_a, score_b, d, low, high, p, "paired bootstrap", len(diff_star), confidence, seed)


def paired_bootstrap(cols_a, cols_b, statistic: Statistic, resamples: int = 1000, confidence: float = 0.95,
                     seed: int = 0) -> Comparison:
    """Paired bootstrap test of system B against baseline A (the same N instances, in order).

    Each resample draws N instance indices and applies them to both systems
    (sacreBLEU's ``_paired_bs_test``, after Koehn 2004; default 1,000
    resamples as there), giving ``d*_r = score_b* - score_a*``.  The interval
    is the percentile interval of ``d*`` (as :func:`bootstrap`).  The p-value
    is two-sided for H0: no difference, from the bootstrap distribution
    shifted to the null (Efron & Tibshirani 1993, sec. 16.4)::

        p = (1 + #{r : |d*_r - d| >= |d|}) / (R + 1),    d = score_b - score_a

    sacreBLEU counts ``#{|d*_r| - mean(|d*|) > |d|}`` instead; under the null
    that statistic rejects about 10% of the time at p < 0.05 (two
    independent resamples-of-the-null estimates of |d| are compared), whereas
    the shifted form holds its level (tested: 3-7% at 0.05).  ``>=`` rather
    than ``>``: a system compared with itself gets p = 1.

    >>> a = np.linspace(0, 1, 50)
    >>> c = paired_bootstrap(a, a, mean_statistic(), resamples=99)
    >>> c.difference, c.low, c.high, c.p_value
    (0.0, 0.0, 0.0, 1.0)
    >>> paired_bootstrap(a, a[:49], mean_statistic())
    Traceback (most recent call last):
    ...
    ValueError: paired test: system A has 50 instances but B has 49 (both must score the same instances, in the same order)
    """
    a, b = _pair(cols_a, cols_b, MIN_INSTANCES)
    confidence = _check_confidence(confidence)
    resamples, seed = check_resamples(resamples, confidence), check_seed(seed)
    k, n = a.shape[1], len(a)
    sums = _sums(np.concatenate([a.T, b.T]), resamples, seed, BOOTSTRAP, "resamples")
    return paired_of(apply_statistic(statistic, sums[:, :k], n), apply_statistic(statistic, sums[:, k:], n),
                     _estimate(statistic, a), _estimate(statistic, b), confidence, seed)


def approximate_randomization(cols_a, cols_b, statistic: Statistic, trials: int = 10000,
                              confidence: float = 0.95, seed: int = 0, ci_resamples: int = 1000) -> Comparison:
    """Paired approximate randomization test of system B against baseline A (two-sided).

    In each of ``trials`` trials every instance's pair of rows is exchanged
    between the systems with probability 1/2 (a swap bit from the generator),
    and ``|score(A') - score(B')|`` is compared with the observed ``|d|``
    (sacreBLEU's ``_paired_ar_test`` and ``_compute_p_value``, after Riezler
    & Maxwell 2005 and MultEval; default 10,000 trials as there)::

        p = (1 + #{t : |score(A'_t) - score(B'_t)| >= |d|}) / (trials + 1)

    (sacreBLEU counts ``>``: with ``>=``, a system compared with itself gets
    p = 1, not 1 / (trials + 1)).  ``[low, high]`` is the interval of
    :func:`paired_bootstrap` with ``ci_resamples`` resamples and the same
    seed (sacreBLEU's ``n_ar_confidence`` bootstrap, 1,000 when enabled).

    >>> a = np.zeros(20)
    >>> c = approximate_randomization(a, a + 1.0, mean_statistic(), trials=999, seed=2)
    >>> c.difference, c.p_value == 1 / 1000, c.method
    (1.0, True, 'approximate randomization')
    """
    a, b = _pair(cols_a, cols_b, MIN_INSTANCES)
    trials, seed = _check_count(trials, "trials"), check_seed(seed)
    _check_size(trials, 2 * a.shape[1], "trials")  # before the interval's work
    ci = paired_bootstrap(a, b, statistic, check_resamples(ci_resamples, confidence, "ci_resamples"),
                          confidence, seed)
    n = len(a)
    sa, sb = randomized_sums(a, b, trials, seed)
    spread = np.abs(apply_statistic(statistic, sa, n) - apply_statistic(statistic, sb, n))
    p = (1 + int(np.count_nonzero(spread >= abs(ci.difference)))) / (trials + 1)
    return ci._replace(p_value=p, method="approximate randomization", resamples=trials)
