"""All pairs: ``_lcs.lcs_matrix`` against the textbook DP on every cell and on both lane
paths (AVX2 where the CPU has it, and the portable one forced with simd=0);
``rouge_l_matrix`` and ``deduplicate`` against rouge-score (Self-Instruct's own filter loop).
"""
from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rouge_score import rouge_scorer

import oracle
from paddle_rougel import _lcs, deduplicate, rouge_l_matrix
from paddle_rougel.engine import host as engine

SETTINGS = dict(deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow],
                max_examples=120)
SIMD = [0] + ([1] if _lcs.simd_level() else [])  # the portable lanes always, AVX2 where it runs
ALPHABETS = ["ab", "abc\xe9", "a\u4e2d\u0101", "ab\U0001F600"]


@st.composite
def text(draw):
    alphabet = draw(st.sampled_from(ALPHABETS))
    n = draw(st.one_of(st.integers(0, 10), st.sampled_from([63, 64, 65, 127, 128, 129])))
    s = "".join(draw(st.lists(st.sampled_from(alphabet), min_size=n, max_size=n)))
    return s if draw(st.booleans()) else list(s)  # strs and token lists in one call


@pytest.mark.parametrize("simd", SIMD)
@settings(**SETTINGS)
@given(st.lists(text(), min_size=0, max_size=9), st.lists(text(), min_size=0, max_size=6))
def test_lcs_matrix_equals_dp(simd, queries, choices):
    lcs, lens = _lcs.lcs_matrix(queries + choices, len(queries), threads=2, simd=simd)
    got = np.frombuffer(lcs, dtype=np.int32).reshape(len(queries), len(choices))
    assert np.frombuffer(lens, dtype=np.int64).tolist() == [len(t) for t in queries + choices]
    for i, q in enumerate(queries):
        for j, c in enumerate(choices):
            assert got[i, j] == oracle.lcs_dp(q, c), (i, j)


def test_simd_paths_agree_on_a_pool():
    rng = random.Random(1)
    words = ["w%d" % k for k in range(300)]
    texts = [[rng.choice(words) for _ in range(rng.randint(0, 90))] for _ in range(160)]
    outs = [np.frombuffer(_lcs.lcs_matrix(texts, 60, threads=2, simd=s)[0], dtype=np.int32) for s in SIMD]
    for o in outs[1:]:
        assert o.tolist() == outs[0].tolist()
    m = outs[0].reshape(60, 100)
    for _ in range(200):
        i, j = rng.randrange(60), rng.randrange(100)
        assert m[i, j] == oracle.lcs_dp(texts[i], texts[60 + j])


def _instructions(n, seed):
    rng = random.Random(seed)
    vocab = ["Write", "a", "poem", "about", "the", "sea", "Explain", "how", "to", "cook", "rice",
             "List", "three", "reasons", "why", "cats", "sleep", "Describe", "your", "day", "in",
             "five", "words", "Translate", "this", "sentence", "into", "French", "Give", "an",
             "example", "of", "recursion", "Python", "code", "for", "sorting", "numbers", "!", "?"]
    out = []
    for _ in range(n):
        out.append(" ".join(rng.choice(vocab) for _ in range(rng.randint(0, 70))).replace(" !", "!"))
    return out


def test_rouge_l_matrix_equals_rouge_score_on_sampled_cells():
    queries, choices = _instructions(70, 1), _instructions(90, 2)
    out = rouge_l_matrix(queries, choices, tokenize="rouge_score", with_pr=True)
    f = rouge_l_matrix(queries, choices, tokenize="rouge_score")
    assert f.dtype == np.float32 and f.shape == (70, 90)
    assert np.array_equal(f, out.f_measure)
    scorer = rouge_scorer.RougeScorer(["rougeL"])
    rng = random.Random(0)
    for _ in range(300):
        i, j = rng.randrange(70), rng.randrange(90)
        s = scorer.score(choices[j], queries[i])["rougeL"]  # (target, prediction)
        assert out.f_measure[i, j] == np.float32(s.fmeasure), (i, j)
        assert out.p_measure[i, j] == np.float32(s.precision)
        assert out.r_measure[i, j] == np.float32(s.recall)


def test_deduplicate_equals_self_instructs_loop():
    pool, new = _instructions(40, 3), _instructions(60, 4)
    new += [new[0], new[5] + " again", pool[2]]  # duplicates of kept items and of the pool
    scorer = rouge_scorer.RougeScorer(["rougeL"], use_stemmer=False)
    kept, best, seen = [], [], list(pool)
    for i, inst in enumerate(new):  # Self-Instruct: score against everything kept so far
        scores = [scorer.score(inst, old)["rougeL"].fmeasure for old in seen]
        b = max(scores, default=0.0)
        best.append(b)
        if b > 0.7:
            continue
        kept.append(i)
        seen.append(inst)
    got = deduplicate(new, pool, 0.7, tokenize="rouge_score", best="exact")  # every item's best, as the loop
    assert got.kept.tolist() == kept
    np.testing.assert_allclose(got.best, best, rtol=0, atol=1e-15)
    assert len(kept) < len(new)


def test_python_engine_gives_the_same_matrix():
    queries, choices = _instructions(9, 5), _instructions(7, 6)
    want = rouge_l_matrix(queries, choices, tokenize="whitespace", alpha=0.3)
    want_d = deduplicate(queries + queries[:3], choices, 0.5, tokenize="whitespace", alpha=0.3, best="exact")
    engine.set_backend("python")
    try:
        got = rouge_l_matrix(queries, choices, tokenize="whitespace", alpha=0.3)
        got_d = deduplicate(queries + queries[:3], choices, 0.5, tokenize="whitespace", alpha=0.3, best="exact")
    finally:
        engine.set_backend("c")
    assert np.array_equal(got, want)
    assert got_d.kept.tolist() == want_d.kept.tolist() and np.array_equal(got_d.best, want_d.best)


def test_empty_sides_and_named_errors():
    assert rouge_l_matrix([], ["a"]).shape == (0, 1)
    assert rouge_l_matrix(["a"], []).shape == (1, 0)
    assert rouge_l_matrix(["", "ab"], ["", "b"]).tolist() == [[0.0, 0.0], [0.0, np.float32(2 / 3)]]
    with pytest.raises(TypeError, match="query 1"):
        rouge_l_matrix(["a", None], ["b"])
    with pytest.raises(TypeError, match="choice 0"):
        rouge_l_matrix(["a"], [[["x"]]])
    with pytest.raises(TypeError, match="not a single str"):
        rouge_l_matrix("abc", ["b"])
    assert deduplicate([], ["a"]).kept.tolist() == []


@pytest.mark.parametrize("alpha", [None, 0.0, 1.0, 0.3, -1.0])
def test_c_scores_are_the_numpy_float64_values(alpha):
    """score_matrix (C) computes each cell as scoring.precision_recall / f_alpha / f_t2t do."""
    from paddle_rougel.core import scoring
    from paddle_rougel.api.matrix import _lcs_matrix
    from paddle_rougel.engine.fallbacks import prf_matrix as _prf

    rng = random.Random(7)
    texts = [[rng.choice("abcdef") for _ in range(rng.randint(0, 80))] for _ in range(70)]
    lcs, lens = _lcs_matrix(texts, 30, 2)
    a = scoring.check_alpha(alpha)
    f, p, r = _prf(lcs, lens[:30], lens[30:], a)
    got = rouge_l_matrix(texts[:30], texts[30:], alpha, with_pr=True)
    assert np.array_equal(got.f_measure, f.astype(np.float32))
    assert np.array_equal(got.p_measure, p.astype(np.float32))
    assert np.array_equal(got.r_measure, r.astype(np.float32))
