"""``compute(aggregate="bootstrap_mid")``: the figure HF ``evaluate``'s ``rouge`` reports by default.

``evaluate.load("rouge").compute(...)`` with its default ``use_aggregator=True`` does not report
the mean over the instances: it feeds rouge-score's ``scoring.BootstrapAggregator`` and reports
its ``mid``, the median of 1,000 bootstrap means (``np.percentile(..., 50)`` of them).  That
aggregator draws its resamples from numpy's *global* random state
(``np.random.choice(np.arange(n), size=n)`` once per resample, 1,000 resamples per ROUGE type, the
types in the order asked), and takes the 2.5th / 50th / 97.5th percentile of each of P, R and F
on its own.  :func:`bootstrap_mid` does the same operations in the same order, so:

* ``seed=S`` gives, bit for bit, what ``evaluate`` / ``BootstrapAggregator`` gives right after
  ``np.random.seed(S)`` (a script that seeds numpy, e.g. with ``transformers.set_seed(S)``, and
  draws nothing from it before the ROUGE call);
* ``seed=None`` draws from numpy's global random state itself, exactly as ``evaluate`` would at
  that point of the program (and moves it on as ``evaluate`` would): in place of the
  ``evaluate`` call in the same script, the same number.

A number obtained earlier with an unseeded global state cannot be reproduced exactly by anyone
(``evaluate`` neither); it is the mean give or take the bootstrap's noise (a few hundredths of a
point on a few hundred instances).

>>> import numpy as np
>>> scores = {"rougeL": np.array([[1.0, 0.5, 2 / 3], [0.0, 0.0, 0.0], [0.5, 0.5, 0.5]])}
>>> mid = bootstrap_mid(scores, seed=0)["rougeL"]
>>> [round(float(x), 6) for x in mid]
[0.5, 0.333333, 0.388889]
"""
from __future__ import annotations

from typing import Dict, Optional

import numpy as np

__all__ = ["AGGREGATES", "bootstrap_mid", "RESAMPLES"]

AGGREGATES = ("mean", "bootstrap_mid", "rouge155")   # rouge155: paddle_rougel.rouge155.bootstrap
RESAMPLES = 1000  # BootstrapAggregator's n_samples default (evaluate does not change it)


def bootstrap_mid(scores: Dict[str, np.ndarray], seed: Optional[int] = None,
                  resamples: int = RESAMPLES, confidence: float = 0.95) -> Dict[str, np.ndarray]:
    """``{type: [P, R, F] mid}`` of ``{type: float64 [N, 3] per-instance (P, R, F)}`` (dict order:
    the order the types are drawn in), as rouge-score's ``BootstrapAggregator(confidence,
    resamples).aggregate()[type].mid``.  ``seed`` None: numpy's global random state, else a
    ``RandomState(seed)`` (the global one seeded with it, left untouched)."""
    if isinstance(seed, bool) or not (seed is None or isinstance(seed, (int, np.integer))):
        raise TypeError(f"seed must be an int or None, got {type(seed).__name__}")
    if isinstance(resamples, bool) or not isinstance(resamples, (int, np.integer)) or resamples <= 0:
        raise ValueError(f"resamples must be a positive int, got {resamples!r}")
    choice = np.random.choice if seed is None else np.random.RandomState(seed).choice
    delta = (1 - confidence) / 2
    q = 100 * np.array([delta, 0.5, 1 - delta])
    out = {}
    for name, matrix in scores.items():
        n = matrix.shape[0]
        if n == 0:  # no instance: the mean's 0.0 (the aggregator itself would fail)
            out[name] = np.zeros(matrix.shape[1])
            continue
        means = np.zeros((resamples, matrix.shape[1]))
        population = np.arange(n)
        for i in range(resamples):  # its loop: choice() per resample, np.mean of the rows
            idx = choice(population, size=n)
            means[i, :] = np.mean(matrix[idx, :], axis=0)
        out[name] = np.percentile(means, q, axis=0)[1]
    return out
