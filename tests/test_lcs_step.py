"""The Python home of the bit-parallel LCS step (paddle_rougel.lcs_step) against the textbook table.

The oracle is the dynamic programme t[i][j] (i over the stepped side b, j over the bit side
a), written here; the step's rows must be its horizontal differences, the go-left cells
rouge-score's backtrack rule, on Python ints of any width and on Paddle int64 tensors.
"""
from __future__ import annotations

import random

import numpy as np
import paddle
import pytest

from paddle_rougel.core.lcs_step import advance, advance_left


def _table(a, b):
    t = [[0] * (len(a) + 1) for _ in range(len(b) + 1)]
    for i in range(1, len(b) + 1):
        for j in range(1, len(a) + 1):
            t[i][j] = t[i - 1][j - 1] + 1 if b[i - 1] == a[j - 1] else max(t[i - 1][j], t[i][j - 1])
    return t


def _masks(a, b):
    return [sum(1 << p for p, x in enumerate(a) if x == y) for y in b]


@pytest.mark.parametrize("seed", range(6))
def test_rows_and_go_left_cells_are_the_tables(seed):
    rng = random.Random(seed)
    for _ in range(40):
        a = [rng.randrange(3 + seed) for _ in range(rng.randint(0, 150))]
        b = [rng.randrange(3 + seed) for _ in range(rng.randint(0, 150))]
        n, full = len(a), (1 << len(a)) - 1
        t = _table(a, b)
        v, left = advance_left(full, _masks(a, b), full)
        assert n - bin(v).count("1") == t[len(b)][n]
        assert advance(full, _masks(a, b), full) == v
        assert advance(full, [m for m in _masks(a, b) if m], full) == v  # a mask of 0 changes nothing
        assert len(left) == len(b)
        for i in range(1, len(b) + 1):
            want = sum(1 << (j - 1) for j in range(1, n + 1)
                       if t[i][j - 1] == t[i][j] and t[i - 1][j] < t[i][j])
            assert left[i - 1] == want, (i, a, b)
        # each row: a one at bit j - 1 where t[i][j] == t[i][j - 1]
        rows = [full]
        for m in _masks(a, b):
            rows.append(advance(rows[-1], [m], full))
        for i, row in enumerate(rows):
            assert row == sum(1 << (j - 1) for j in range(1, n + 1) if t[i][j] == t[i][j - 1])


def test_advance_runs_on_tensors_as_on_ints():
    rng = random.Random(7)
    width = 62
    pairs = [([rng.randrange(4) for _ in range(rng.randint(1, width))], [rng.randrange(4) for _ in range(30)])
             for _ in range(16)]
    full = np.array([(1 << len(a)) - 1 for a, _ in pairs], dtype=np.int64)
    masks = np.array([_masks(a, b) for a, b in pairs], dtype=np.int64)  # [pairs, steps]
    v = advance(paddle.to_tensor(full), [paddle.to_tensor(masks[:, s]) for s in range(masks.shape[1])],
                paddle.to_tensor(full))
    want = [advance(int(f), [int(m) for m in row], int(f)) for f, row in zip(full, masks)]
    assert v.numpy().tolist() == want
    assert [len(a) - bin(x).count("1") for (a, b), x in zip(pairs, want)] == \
        [_table(a, b)[len(b)][len(a)] for a, b in pairs]
