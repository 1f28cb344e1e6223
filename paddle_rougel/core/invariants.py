"""Joint invariants of metric states: what every run guarantees of its fields taken together.

Each field of a state is checked on its own in :mod:`~paddle_rougel.accumulators`
(finite, >= 0, whole counts, sums at most their count).  The rules here tie
fields together; each is derived from how a run computes the fields, so a
state of real runs (and any merge of them: every rule survives addition) is
always accepted, and a state that breaks one was written by hand.  Floating
sums are compared with a relative tolerance of ``TOL``.

**ROUGE-L, ROUGE-Lsum, ROUGE-L with the DuReader bonus** (fields ``p_sum``,
``r_sum``, ``f_sum``, ``count``; kept rows P, R, F (, bonus)).  Per pair of a
candidate and a reference, ``F = f(P, R)`` under the settings' weighting
(P and R include the DuReader bonus, which is added to both the LCS and the
lengths, so they stay at most 1).  An instance takes one pair's figures
(``best``, ``best_recall``), ``f`` of the largest P and R (``max_pr``) or of
the pooled counts (``pooled``), or the means (``avg``).  Then:

* ``count == 0``: every sum is 0;
* gamma or alpha in [0, 1]: ``f`` is a weighted harmonic mean, monotone,
  concave and homogeneous of degree 1, hence superadditive; so an instance
  has ``F <= f(P, R)`` (equality except with ``avg``) and the sums have
  ``f_sum <= count * f(p_sum / count, r_sum / count)``.  In particular F is
  0 when P or R is;
* tensor2tensor's formula (negative alpha), ``h(P, R) = P R (P^2 + R^2) /
  (P^3 + R^3)``, is neither monotone nor concave, but ``h <= T2T_RATIO *
  min(P, R)`` (``(1 + y^2) / (1 + y^3) <= 1.11844`` for ``y = min / max``),
  a bound that survives means and sums: ``F <= T2T_RATIO * min(P, R)`` and
  ``f_sum <= T2T_RATIO * min(p_sum, r_sum)``.

**BLEU** (fields ``match_ngram[k]``, ``candi_ngram[k]``, ``bp_c``, ``bp_r``,
``count``; kept rows the same per instance).  An instance with a candidate
of ``c`` tokens has ``S_k = max(c - k + 1, 0)`` k-grams; ``candi_k = S_k +
B_k`` and ``match_k = M_k + B_k`` with clipped matches ``0 <= M_k <= S_k``
and the bonus ``B_k = weight * (clipped matches of the candidate against the
same-label references or the entities)``, so ``0 <= B_k <= w S_k`` with ``w``
the larger bonus weight; ``bp_c = c`` and ``bp_r`` is a reference length.
Summed over ``count`` instances, ``S_1 = bp_c`` and ``max(bp_c - (k - 1)
count, 0) <= S_k <= max(bp_c - (k - 1), 0)``.  Hence:

* ``count == 0``: every field is 0; ``bp_c`` and ``bp_r`` are whole numbers;
* ``match_k <= candi_k`` and ``candi_k - match_k <= max(bp_c - (k - 1), 0)``;
* ``max(bp_c - (k - 1) count, 0) <= candi_k <= (1 + w) max(bp_c - (k - 1), 0)``;
* with both weights 0: ``candi_k`` is ``S_k``, non-increasing in k, by at
  most ``count`` a step.  (With a bonus, candidate n-grams may grow with k:
  the bonus counts matches of k-grams against several references or entities,
  clipped per k-gram, so more bigrams than unigrams can match.)
"""
from __future__ import annotations

from typing import Optional

import numpy as np

__all__ = ["TOL", "T2T_RATIO", "rouge_violation", "bleu_violation"]

TOL = 1e-9
T2T_RATIO = 1.1185  # sup of (1 + y^2) / (1 + y^3) on (0, 1] is 1.118434 (at y^3 + 3y = 2)


def _over(x, bound, scale=0.0) -> np.ndarray:
    """x exceeds bound by more than the tolerance (relative to the larger magnitude)."""
    x, bound = np.asarray(x, dtype=np.float64), np.asarray(bound, dtype=np.float64)
    mag = np.maximum(np.maximum(np.abs(bound), np.abs(np.asarray(scale, dtype=np.float64))), 1.0)
    with np.errstate(invalid="ignore", over="ignore"):
        return x > bound + TOL * mag


def _first(bad: np.ndarray) -> Optional[int]:
    idx = np.flatnonzero(bad)
    return int(idx[0]) if len(idx) else None


def f_ceiling(settings, p, r, n) -> np.ndarray:
    """The largest F sum of ``n`` instances whose P and R sum to ``p`` and ``r`` (see above)."""
    p, r = np.asarray(p, dtype=np.float64), np.asarray(r, dtype=np.float64)
    n = np.asarray(n, dtype=np.float64)
    if settings.alpha is not None and settings.alpha < 0:  # tensor2tensor's formula
        return T2T_RATIO * np.minimum(p, r)
    m = np.maximum(n, 1.0)
    with np.errstate(all="ignore"):
        return m * settings.f(p / m, r / m)


def rouge_violation(settings, p, r, f, n) -> Optional[tuple]:
    """``(index, reason)`` of the first state (sums ``p``, ``r``, ``f`` of ``n`` instances,
    arrays of one shape) that no run gives, or None."""
    p, r, f, n = (np.atleast_1d(np.asarray(a, dtype=np.float64)) for a in (p, r, f, n))
    i = _first((n == 0) & ((p != 0) | (r != 0) | (f != 0)))
    if i is not None:
        return i, "no instances but sums that are not 0"
    ceiling = f_ceiling(settings, p, r, n)
    i = _first(_over(f, ceiling))
    if i is not None:
        return i, (f"F {f[i]!r} is more than P {p[i]!r} and R {r[i]!r} allow "
                   f"(at most {float(ceiling[i])!r} with {settings.f_name()}, {int(n[i])} instance(s))")
    return None


def bleu_violation(settings, match, candi, bp_c, bp_r, count) -> Optional[tuple]:
    """``(index, reason)`` of the first state (``match``, ``candi`` [m, n]; ``bp_c``, ``bp_r``,
    ``count`` [m]) that no run gives, or None."""
    match, candi = np.atleast_2d(match).astype(np.float64), np.atleast_2d(candi).astype(np.float64)
    bp_c, bp_r, count = (np.atleast_1d(np.asarray(a, dtype=np.float64)) for a in (bp_c, bp_r, count))
    k1 = np.arange(match.shape[1], dtype=np.float64)[None, :]  # k - 1
    w = max(settings.yesno_weight, settings.entity_weight)
    rules = [
        ((count == 0) & ((match != 0).any(1) | (candi != 0).any(1) | (bp_c != 0) | (bp_r != 0)),
         "no instances but fields that are not 0"),
        ((bp_c != np.floor(bp_c)) | (bp_r != np.floor(bp_r)), "'bp_c' and 'bp_r' are sums of lengths: whole numbers"),
    ]
    hi = np.maximum(bp_c[:, None] - k1, 0.0)
    lo = np.maximum(bp_c[:, None] - k1 * count[:, None], 0.0)
    with np.errstate(over="ignore"):
        rules += [
            (_over(candi - match, hi, candi).any(1),
             "more unmatched candidate n-grams than the candidate tokens ('bp_c') have"),
            (_over(lo, candi, candi).any(1), "fewer candidate n-grams than the candidate tokens ('bp_c') give"),
            (_over(candi, (1.0 + w) * hi, candi).any(1),
             f"more candidate n-grams than the candidate tokens ('bp_c') give, with bonus weight {w!r}"),
        ]
    if w == 0 and match.shape[1] > 1:
        step = candi[:, :-1] - candi[:, 1:]
        rules.append((_over(-step, 0.0, candi[:, :-1]).any(1) | _over(step, count[:, None], candi[:, :-1]).any(1),
                      "candidate n-grams that do not fall with n by 0 to 'count' a step (no bonus weight)"))
    for bad, reason in rules:
        i = _first(bad)
        if i is not None:
            return i, reason
    return None
