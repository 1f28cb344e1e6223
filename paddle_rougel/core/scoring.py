"""Pure scoring formulas: precision, recall and the weighted F-measures.

Everything here is vectorised numpy on float64 and free of state, so the
metric classes, the functional API and the CLI share one definition.

Two parameterisations of the same weighted harmonic mean are in use:

* gamma (paddlenlp, DuReader):  F = (1 + g^2) P R / (R + g^2 P)
* alpha (ROUGE-1.5.5, TF-Text): 1/F = alpha/P + (1 - alpha)/R,
  i.e. F = P R / (alpha R + (1 - alpha) P)

They are equal when alpha = 1 / (1 + gamma^2): gamma 1.2 <=> alpha ~0.40984,
gamma 1 <=> alpha 0.5.

>>> import numpy as np
>>> p, r = np.array([0.4]), np.array([0.5])
>>> float(f_gamma(p, r, 1.0)[0]), float(f_alpha(p, r, 0.5)[0])
(0.4444444444444445, 0.4444444444444445)
>>> round(alpha_from_gamma(1.2), 6), round(gamma_from_alpha(alpha_from_gamma(1.2)), 12)
(0.409836, 1.2)
"""
from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

__all__ = [
    "Score", "RougeLOutput", "precision_recall", "f_gamma", "f_alpha", "f_t2t",
    "alpha_from_gamma", "gamma_from_alpha", "check_gamma", "check_alpha",
    "reduce_refs", "MULTI_REF_MODES", "pair_counts", "ratios", "Weighting", "weighting", "f_measure",
]

MULTI_REF_MODES = ("max_pr", "best", "avg", "pooled", "best_recall")


class Score(NamedTuple):
    """Precision, recall and F-measure (floats or float64 arrays): the result type of every
    metric and function here.  TF-Text's names read the same fields: ``p_measure``,
    ``r_measure``, ``f_measure`` (``f1``: another common name of ``fmeasure``).

    >>> s = Score(0.5, 0.25, 1 / 3)
    >>> s.f_measure == s.fmeasure, s.p_measure
    (True, 0.5)
    """

    precision: "np.ndarray | float"
    recall: "np.ndarray | float"
    fmeasure: "np.ndarray | float"

    p_measure = property(lambda self: self.precision)
    r_measure = property(lambda self: self.recall)
    f_measure = property(lambda self: self.fmeasure)


class RougeLOutput(NamedTuple):
    """Per-pair figures in TF-Text's order ``(f_measure, p_measure, r_measure)``, returned by
    the TF-Text compatible calls (:func:`~paddle_rougel.rouge_l`, ``rouge_lsum``,
    ``rouge_l_matrix``) because code written for TF-Text unpacks it in that order.  It has
    :class:`Score`'s field names too (``precision``, ``recall``, ``fmeasure``), and
    ``score()`` gives it as a Score.
    """

    f_measure: np.ndarray
    p_measure: np.ndarray
    r_measure: np.ndarray

    precision = property(lambda self: self.p_measure)
    recall = property(lambda self: self.r_measure)
    fmeasure = property(lambda self: self.f_measure)

    def score(self) -> Score:
        return Score(self.p_measure, self.r_measure, self.f_measure)


def check_gamma(gamma: float) -> float:
    """Validate gamma: a finite number >= 0 (a str such as '1.2' is not a number)."""
    if isinstance(gamma, (str, bytes, bytearray)):
        raise TypeError(f"gamma must be a number, got {type(gamma).__name__} {gamma!r}")
    try:
        g = float(gamma)
    except (TypeError, ValueError):
        raise TypeError(f"gamma must be a number, got {type(gamma).__name__}") from None
    if not math.isfinite(g) or g < 0:
        raise ValueError(f"gamma must be finite and >= 0, got {gamma!r}")
    return g


def check_alpha(alpha: "float | None") -> float:
    """Validate alpha (TF-Text convention): None -> 0.5; <= 1; negative = tensor2tensor mode."""
    if alpha is None:
        return 0.5
    if isinstance(alpha, (str, bytes, bytearray)):
        raise TypeError(f"alpha must be a number or None, got {type(alpha).__name__} {alpha!r}")
    try:
        a = float(alpha)
    except (TypeError, ValueError):
        raise TypeError(f"alpha must be a number or None, got {type(alpha).__name__}") from None
    if not math.isfinite(a) or a > 1:
        raise ValueError(f"alpha must be finite and <= 1 (negative = tensor2tensor mode), got {alpha!r}")
    return a


def alpha_from_gamma(gamma: float) -> float:
    """alpha = 1 / (1 + gamma^2): the alpha that weights P and R as gamma does."""
    g = check_gamma(gamma)
    return 1.0 / (1.0 + g * g)


def gamma_from_alpha(alpha: float) -> float:
    """gamma = sqrt((1 - alpha) / alpha), for 0 < alpha <= 1."""
    a = check_alpha(alpha)
    if not 0 < a <= 1:
        raise ValueError(f"alpha must be in (0, 1] to have a gamma, got {alpha!r}")
    return math.sqrt((1.0 - a) / a)


class Weighting(NamedTuple):
    """The F weighting: ``gamma`` (alpha None) or ``alpha`` (gamma None; negative: tensor2tensor)."""

    gamma: "float | None"
    alpha: "float | None"

    def as_alpha(self) -> float:
        """The alpha of this weighting (a gamma g is alpha 1 / (1 + g^2): equal F up to rounding)."""
        return alpha_from_gamma(self.gamma) if self.alpha is None else self.alpha

    def signature(self) -> str:
        if self.alpha is None:
            return f"gamma:{self.gamma}"
        return "f:t2t" if self.alpha < 0 else f"alpha:{self.alpha}"


def weighting(gamma: "float | None" = None, alpha: "float | None" = None, *,
              default_gamma: "float | None" = None, default_alpha: "float | None" = None) -> Weighting:
    """The one rule of every API that takes both: ``gamma`` or ``alpha``, not both; neither
    gives the caller's default (the metrics: gamma 1.2; the per-pair functions: alpha 0.5).

    >>> weighting(gamma=1.0), weighting(default_alpha=0.5)
    (Weighting(gamma=1.0, alpha=None), Weighting(gamma=None, alpha=0.5))
    """
    if gamma is not None and alpha is not None:
        raise ValueError("give gamma or alpha, not both")
    if alpha is not None:
        return Weighting(None, check_alpha(alpha))
    if gamma is not None:
        return Weighting(check_gamma(gamma), None)
    if default_alpha is not None:
        return Weighting(None, check_alpha(default_alpha))
    return Weighting(check_gamma(1.2 if default_gamma is None else default_gamma), None)


def f_measure(p, r, w: Weighting) -> np.ndarray:
    """F of P and R under a :class:`Weighting`."""
    if w.alpha is None:
        return f_gamma(p, r, w.gamma)
    if w.alpha < 0:
        return f_t2t(p, r)
    return f_alpha(p, r, w.alpha)


def pair_counts(lcs, cand_len, ref_len, bonus=0.0):
    """The numerator and the two denominators of P and R, as new float64 arrays:
    ``(lcs + bonus, len(cand) + bonus, len(ref) + bonus)``."""
    out = tuple(np.array(x, dtype=np.float64) for x in (lcs, cand_len, ref_len))
    if np.ndim(bonus) == 0 and bonus == 0:  # counts are >= 0: adding 0.0 changes no bit
        return out
    return tuple(x + bonus for x in out)


def _ratio(num, den):
    """num / den, 0 where den is not positive."""
    num, den = np.asarray(num, dtype=np.float64), np.asarray(den, dtype=np.float64)
    out = np.zeros(np.broadcast(num, den).shape)
    np.divide(num, den, out=out, where=den > 0)
    return out


def ratios(num, pd, rd):
    """P = num / pd and R = num / rd (0 where a denominator is 0) from :func:`pair_counts`."""
    return _ratio(num, pd), _ratio(num, rd)


def precision_recall(lcs, cand_len, ref_len, bonus=0.0):
    """P = (lcs + bonus) / (len(cand) + bonus), R likewise; 0 where a denominator is 0."""
    return ratios(*pair_counts(lcs, cand_len, ref_len, bonus))


def f_gamma(p, r, gamma: float = 1.2) -> np.ndarray:
    """(1 + g^2) P R / (R + g^2 P), 0 where P or R is 0 (paddlenlp's exact operation order).

    Finite for every finite gamma: when g^2 would overflow (g > 1e150) the
    equal form (1/g^2 + 1) P R / (R/g^2 + P) is used, whose limit is R.

    >>> float(f_gamma(np.array([0.5]), np.array([0.25]), 1e200)[0])
    0.25
    """
    p = np.asarray(p, dtype=np.float64)
    r = np.asarray(r, dtype=np.float64)
    g = float(gamma)
    # in place in two new arrays (each step the operation written in the docstring, operands
    # as written or swapped, which IEEE products and sums do not see): fewer temporaries
    shape = np.broadcast(p, r).shape
    f, d = np.empty(shape), np.empty(shape)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        if g <= _G_SAFE:
            g2 = g ** 2
            np.multiply(p, 1 + g2, out=f)  # (1 + g2) P R / (R + g2 P)
            np.multiply(p, g2, out=d)
            np.add(d, r, out=d)
        else:
            w = (1.0 / g) ** 2  # may underflow to 0: then F = P R / P = R exactly
            np.multiply(p, w + 1, out=f)  # (w + 1) P R / (w R + P)
            np.multiply(r, w, out=d)
            np.add(d, p, out=d)
        np.multiply(f, r, out=f)
        np.divide(f, d, out=f)
    np.copyto(f, 0.0, where=(p == 0) | (r == 0))
    return f


_G_SAFE = 1e150  # g^2 <= 1e300: (1 + g^2) * P * R stays finite for P, R <= 1


def f_alpha(p, r, alpha: float = 0.5) -> np.ndarray:
    """P R / (alpha R + (1 - alpha) P), 0 where P or R is 0 (alpha in [0, 1])."""
    p = np.asarray(p, dtype=np.float64)
    r = np.asarray(r, dtype=np.float64)
    ok = (p != 0) & (r != 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        f = (p * r) / (alpha * r + (1 - alpha) * p)
    return np.where(ok, f, 0.0)


def f_t2t(p, r) -> np.ndarray:
    """tensor2tensor's ROUGE-L F: beta = P / (R + 1e-12); (1 + b^2) R P / (R + b^2 P + 1e-12)."""
    p = np.asarray(p, dtype=np.float64)
    r = np.asarray(r, dtype=np.float64)
    beta = p / (r + 1e-12)
    return ((1 + beta ** 2) * r * p) / (r + (beta ** 2) * p + 1e-12)


def reduce_refs(p, r, offsets, mode: str, f_of, counts=None, *, owned: bool = False):
    """Reduce per-pair P and R to per-instance P, R, F.

    ``offsets`` [N+1] delimits each instance's references in the flat
    arrays (None: one reference each); ``f_of(p, r)`` is the F formula; ``counts`` is the pairs'
    ``pair_counts`` (numerator, P and R denominators), which ``pooled`` needs.
    ``owned``: p and r are float64 arrays the caller gives away (returned as they are
    when there is one reference each, not copied).
    Modes:

    * ``max_pr``: max P and max R over references, taken separately, then F
      (paddlenlp and the DuReader contest);
    * ``best``: the reference with the highest F (first on ties), as rouge-score;
    * ``avg``: P, R and F averaged over references;
    * ``pooled``: ROUGE-1.5.5's ``-f A``: hits and lengths summed over the k
      references, R = sum(hits) / sum(len(ref)), P = sum(hits) / (k len(cand)),
      then F;
    * ``best_recall``: ROUGE-1.5.5's ``-f B``: the reference with the highest
      R (first on ties), its P, then F.

    >>> num, pd, rd = pair_counts([1, 2], [2, 2], [1, 3])      # cand "a b"; refs "a", "a b c"
    >>> p, r = precision_recall(num, pd, rd)
    >>> [x.tolist() for x in reduce_refs(p, r, [0, 2], "pooled", f_alpha, (num, pd, rd))]
    [[0.75], [0.75], [0.75]]
    """
    if mode not in MULTI_REF_MODES:
        raise ValueError(f"multi_ref must be one of {MULTI_REF_MODES}, got {mode!r}")
    starts = None if offsets is None else np.asarray(offsets[:-1], dtype=np.int64)
    if starts is None or (len(p) == len(starts) and np.array_equal(starts, np.arange(len(starts)))):
        # one reference each: every mode gives that pair's figures (as new arrays, not the caller's)
        if not owned:
            p, r = np.array(p, dtype=np.float64), np.array(r, dtype=np.float64)
        return p, r, f_of(p, r)
    if len(starts) == 0:
        z = np.zeros(0, dtype=np.float64)
        return z, z.copy(), z.copy()
    if mode == "max_pr":
        pi = np.maximum.reduceat(p, starts)
        ri = np.maximum.reduceat(r, starts)
        return pi, ri, f_of(pi, ri)
    if mode == "pooled":
        if counts is None:
            raise ValueError("multi_ref='pooled' needs the pairs' counts (pair_counts)")
        num, pd, rd = (np.add.reduceat(np.asarray(c, dtype=np.float64), starts) for c in counts)
        pi, ri = _ratio(num, pd), _ratio(num, rd)
        return pi, ri, f_of(pi, ri)
    if mode == "best_recall":
        first = _first_max(np.asarray(r, dtype=np.float64), starts, offsets)
        pi, ri = np.array(p, dtype=np.float64)[first], np.array(r, dtype=np.float64)[first]
        return pi, ri, f_of(pi, ri)
    f = f_of(p, r)
    if mode == "avg":
        counts = np.diff(np.asarray(offsets, dtype=np.int64)).astype(np.float64)
        return (np.add.reduceat(p, starts) / counts, np.add.reduceat(r, starts) / counts,
                np.add.reduceat(f, starts) / counts)
    first = _first_max(f, starts, offsets)  # best
    return p[first], r[first], f[first]


def _first_max(key: np.ndarray, starts: np.ndarray, offsets) -> np.ndarray:
    """Per segment, the flat index of the first maximal ``key``."""
    kmax = np.maximum.reduceat(key, starts)
    owner = np.repeat(np.arange(len(starts)), np.diff(offsets))
    idx = np.flatnonzero(key == kmax[owner])
    first = np.full(len(starts), -1, dtype=np.int64)
    # reversed assignment keeps the smallest index per owner
    first[owner[idx][::-1]] = idx[::-1]
    return first
