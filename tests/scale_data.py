"""Test data and brute-force references for the similarity join and de-duplication.

``near_dups``: texts built so that many pairs sit near a threshold (each base text with
variants one to six edits away); ``brute_join`` / ``brute_dedup``: every pair through the
all-pairs kernel (``_lcs.lcs_matrix``, verified cell by cell against the textbook DP in
test_engine_matrix.py) and its C float64 F (``_lcs.score_matrix(f64=True)``), the code the
previous ``deduplicate`` ran on the full N x (P + N) grid.
"""
from __future__ import annotations

import random

import numpy as np

from paddle_rougel import _lcs

VOCAB = ("write a poem about the sea explain how to cook rice list three reasons why cats sleep "
         "describe your day in five words translate this sentence into french give an example of "
         "recursion python code for sorting numbers summarize article below classify following "
         "tweets as positive or negative").split()


def _edit(rng: random.Random, toks: list, k: int, vocab) -> list:
    out = list(toks)
    for _ in range(k):
        op = rng.randrange(3)
        if op == 0 and out:
            out.pop(rng.randrange(len(out)))
        elif op == 1 and out:
            out[rng.randrange(len(out))] = rng.choice(vocab)
        else:
            out.insert(rng.randint(0, len(out)), rng.choice(vocab))
    return out


def near_dups(seed: int, bases: int, per: int = 3, lo: int = 3, hi: int = 22, vocab=VOCAB,
              chars: bool = False) -> list:
    """``bases`` random texts, each followed (in shuffled order) by ``per`` variants 1-6 edits
    away; token lists, or str when ``chars`` (one character a token)."""
    rng = random.Random(seed)
    out = []
    for _ in range(bases):
        b = [rng.choice(vocab) for _ in range(rng.randint(lo, hi))]
        out.append(b)
        out.extend(_edit(rng, b, rng.randint(1, 6), vocab) for _ in range(per))
    rng.shuffle(out)
    if chars:
        return ["".join(x) for x in out]
    return out


def f64_grid(queries: list, choices: list, alpha: float) -> np.ndarray:
    """float64 F of every (query, choice) pair: the all-pairs kernel and C's float64 F."""
    if not queries or not choices:
        return np.zeros((len(queries), len(choices)))
    lcs, lens = _lcs.lcs_matrix(queries + choices, len(queries), threads=2)
    f = _lcs.score_matrix(lcs, lens, len(queries), alpha, False, 2, True)[0]
    return np.frombuffer(f, dtype=np.float64).reshape(len(queries), len(choices))


def brute_join(left: list, right, t: float, alpha: float):
    f = f64_grid(left, left if right is None else right, alpha)
    ok = f >= t
    if right is None:
        ok &= np.triu(np.ones_like(ok), 1).astype(bool)
    i, j = np.nonzero(ok)
    return i, j, f[i, j]


def brute_dedup(items: list, pool: list, t: float, alpha: float):
    """The previous deduplicate: the full grid, then one pass in order."""
    n, npool = len(items), len(pool)
    f = f64_grid(items, pool + items, alpha)
    best = f[:, :npool].max(axis=1) if npool else np.zeros(n)
    best = np.array(best, dtype=np.float64)
    against = np.zeros(n)
    kept = []
    for i in range(n):
        b = max(best[i], against[i])
        best[i] = b
        if b <= t:
            kept.append(i)
            np.maximum(against[i + 1:], f[i + 1:, npool + i], out=against[i + 1:])
    return np.array(kept, dtype=np.int64), best
