"""Parity with Google's rouge-score (imported for real: no skip).

rouge-score's rougeL: P = LCS/len(prediction), R = LCS/len(target),
F = 2 P R / (P + R) (alpha = 0.5, gamma = 1).  ``score_multi`` keeps the
target with the highest F, ``np.argmax`` -> the FIRST on ties (rouge_scorer.py,
score_multi); ``RougeL(multi_ref="best")`` also takes the first maximal F.
"""
from __future__ import annotations


import numpy as np
import pytest

import oracle
from paddle_rougel import RougeL, rouge_l

from rouge_score import rouge_scorer  # ImportError = failure, by design


class PassThrough:
    """rouge-score tokenizer: the 'text' is already a token list."""

    def tokenize(self, text):
        return list(text)


@pytest.fixture(scope="module")
def scorer():
    return rouge_scorer.RougeScorer(["rougeL"], tokenizer=PassThrough())


def _data(seed, n):
    return oracle.random_instances(seed, n, ["cjk", "ab", "words", "ints", "astral"],
                                   [0, 1, 5, 12, 30, 64, 65], [0, 1, 6, 20, 40], [1, 2, 4])


CANDS, REFS = _data(61, 400)


def test_rouge_l_pairs_equal_score(scorer):
    hyps = CANDS
    refs = [r[0] for r in REFS]
    f, p, r = rouge_l(hyps, refs)  # alpha None = 0.5
    for i, (h, t) in enumerate(zip(hyps, refs)):
        s = scorer.score(t, h)["rougeL"]  # score(target, prediction)
        assert p[i] == pytest.approx(s.precision, abs=1e-15)
        assert r[i] == pytest.approx(s.recall, abs=1e-15)
        assert f[i] == pytest.approx(s.fmeasure, abs=1e-12)


def test_best_mode_equals_score_multi(scorer):
    m = RougeL(gamma=1.0, multi_ref="best")
    m.add_batch(CANDS, REFS)
    pi = m.per_instance()
    for i, (c, refs) in enumerate(zip(CANDS, REFS)):
        s = scorer.score_multi(refs, c)["rougeL"]
        assert pi.fmeasure[i] == pytest.approx(s.fmeasure, abs=1e-12)
        assert pi.precision[i] == pytest.approx(s.precision, abs=1e-15), i
        assert pi.recall[i] == pytest.approx(s.recall, abs=1e-15), i
    assert m.score() == pytest.approx(np.mean([scorer.score_multi(r, c)["rougeL"].fmeasure
                                               for c, r in zip(CANDS, REFS)]), abs=1e-12)


def test_ties_pick_the_first_reference_like_score_multi(scorer):
    # F ties with different P/R: (P, R) = (1/2, 1) vs (1, 1/2), in both orders,
    # and an all-zero tie
    cases = [("ab", ["abcd", "a"]), ("ab", ["a", "abcd"]), ("xy", ["ab", "cd"]),
             (["a", "b", "c", "d"], [["a", "b"], ["a", "b", "c", "d", "e", "f", "g", "h"]])]
    m = RougeL(gamma=1.0, multi_ref="best")
    for c, refs in cases:
        m.add_inst(c, refs)
    pi = m.per_instance()
    for i, (c, refs) in enumerate(cases):
        s = scorer.score_multi(refs, c)["rougeL"]
        assert (pi.precision[i], pi.recall[i]) == (s.precision, s.recall)
    assert pi.precision.tolist()[:2] == [1.0, 0.5]  # first reference wins each tie
