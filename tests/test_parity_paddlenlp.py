"""Per-instance parity with paddlenlp.metrics.RougeL (imported for real: no skip).

paddlenlp's LCS is an O(n*m) numpy-indexed loop (~1-2 M cells/s), so sizes stay small.
"""
from __future__ import annotations

import random

import numpy as np
import pytest

import oracle
from paddle_rougel import RougeL

from paddlenlp.metrics import RougeL as PaddleNLPRougeL  # ImportError = failure, by design

GAMMAS = [0.5, 1.0, 1.2, 2.0]


def _data(seed, n, tokens):
    # empty candidates / references are included: both score them 0
    kinds = ["cjk", "ab", "astral"] if tokens == "str" else ["words", "ints"]
    return oracle.random_instances(seed, n, kinds, [0, 1, 3, 8, 15, 24], [0, 1, 4, 10, 20],
                                   overlap=0.4)


@pytest.mark.parametrize("gamma", GAMMAS)
@pytest.mark.parametrize("tokens", ["str", "list"])
def test_per_instance_equal_to_paddlenlp(gamma, tokens):
    cands, ref_lists = _data(41 + int(gamma * 10), 120, tokens)
    theirs = PaddleNLPRougeL(gamma=gamma)
    ours = RougeL(gamma=gamma)  # multi_ref="max_pr" by default, paddlenlp's only mode
    for c, refs in zip(cands, ref_lists):
        theirs.add_inst(c, refs)
        ours.add_inst(c, refs)
    got = ours.per_instance().fmeasure
    want = np.array(theirs.inst_scores, dtype=np.float64)
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-12)
    assert ours.score() == pytest.approx(theirs.score(), abs=1e-12)
    assert (want > 0).sum() > 20  # the comparison is not all zeros


def test_add_batch_equal_to_paddlenlp():
    cands, ref_lists = _data(49, 120, "list")
    theirs = PaddleNLPRougeL()
    for c, refs in zip(cands, ref_lists):
        theirs.add_inst(c, refs)
    ours = RougeL()
    ours.add_batch(cands, ref_lists)
    np.testing.assert_allclose(ours.per_instance().fmeasure, theirs.inst_scores, rtol=0, atol=1e-12)


def test_lcs_equal_to_paddlenlp():
    rng = random.Random(50)
    theirs, ours = PaddleNLPRougeL(), RougeL()
    for _ in range(100):
        a = oracle.random_seq(rng, rng.randrange(0, 30), "ab")
        b = oracle.random_seq(rng, rng.randrange(0, 30), "ab")
        assert ours.lcs(a, b) == theirs.lcs(a, b)


def test_docstring_example_both():
    cand = ["The", "cat", "The", "cat", "on", "the", "mat"]
    refs = [["The", "cat", "is", "on", "the", "mat"], ["There", "is", "a", "cat", "on", "the", "mat"]]
    theirs, ours = PaddleNLPRougeL(), RougeL()
    theirs.add_inst(cand, refs)
    ours.add_inst(cand, refs)
    assert theirs.score() == 0.7800511508951408
    assert ours.score() == 0.7800511508951408
    assert ours.name() == theirs.name() == "rouge-l"
