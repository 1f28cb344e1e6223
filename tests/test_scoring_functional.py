"""Scoring formulas, the TF-Text compatible functional API and gamma <-> alpha."""
from __future__ import annotations

import math
import random

import numpy as np
import pytest

import oracle
from paddle_rougel import RougeL, alpha_from_gamma, gamma_from_alpha, rouge_l
from paddle_rougel.core import scoring

HYP = [["captain", "of", "the", "delta", "flight"], ["the", "1990", "transcript"]]
REF = [["delta", "air", "lines", "flight"], ["this", "concludes", "the", "transcript"]]


# ------------------------------------------------------------- TF-Text examples

def test_tf_text_example_default_alpha():
    f, p, r = rouge_l(HYP, REF)
    np.testing.assert_allclose(f, [0.44444, 0.57143], atol=5e-6)
    np.testing.assert_allclose(p, [0.4, 0.66667], atol=5e-6)
    np.testing.assert_allclose(r, [0.5, 0.5], atol=5e-6)
    assert f.dtype == p.dtype == r.dtype == np.float64


def test_tf_text_example_alpha_0_and_1():
    np.testing.assert_allclose(rouge_l(HYP, REF, alpha=0).f_measure, [0.5, 0.5], atol=5e-6)
    np.testing.assert_allclose(rouge_l(HYP, REF, alpha=1).f_measure, [0.4, 0.66667], atol=5e-6)


def test_tf_text_example_ab_vs_b():
    out = rouge_l([["a", "b"]], [["b"]], alpha=1)
    assert out.f_measure.tolist() == [0.5]
    assert out.p_measure.tolist() == [0.5]
    assert out.r_measure.tolist() == [1.0]
    assert out._fields == ("f_measure", "p_measure", "r_measure")


@pytest.mark.parametrize("alpha", [1.0000001, 2, float("inf"), float("nan")])
def test_alpha_above_one_or_not_finite_is_rejected(alpha):
    with pytest.raises(ValueError):
        rouge_l(HYP, REF, alpha=alpha)


# ------------------------------------------------------------- against the oracle

def _pairs(seed, n=400):
    rng = random.Random(seed)
    hyps, refs = [], []
    for _ in range(n):
        kind = rng.choice(["ab", "words", "ints", "cjk", "astral"])
        hyps.append(oracle.random_seq(rng, rng.randrange(0, 30), kind))
        refs.append(oracle.random_seq(rng, rng.randrange(0, 30), kind))
    return hyps, refs


@pytest.mark.parametrize("alpha", [None, 0.0, 0.1, 0.5, 0.8, 1.0, 1 / (1 + 1.2 ** 2)])
def test_rouge_l_matches_plain_formula(alpha):
    hyps, refs = _pairs(21)
    f, p, r = rouge_l(hyps, refs, alpha=alpha)
    a = 0.5 if alpha is None else alpha
    for i, (h, ref) in enumerate(zip(hyps, refs)):
        ep, er = oracle.pr(oracle.lcs(h, ref), len(h), len(ref))
        assert p[i] == pytest.approx(ep, abs=1e-15)
        assert r[i] == pytest.approx(er, abs=1e-15)
        assert f[i] == pytest.approx(oracle.f_alpha(ep, er, a), rel=1e-12, abs=1e-15)


@pytest.mark.parametrize("alpha", [-1, -0.5, -1e-9])
def test_negative_alpha_is_tensor2tensor(alpha):
    hyps, refs = _pairs(22)
    f, p, r = rouge_l(hyps, refs, alpha=alpha)
    for i in range(len(hyps)):
        P, R = float(p[i]), float(r[i])
        beta = P / (R + 1e-12)
        want = (1 + beta ** 2) * R * P / (R + beta ** 2 * P + 1e-12)
        assert f[i] == pytest.approx(want, rel=1e-12, abs=1e-15)
    # and it is not the alpha=0.5 figure in general
    assert not np.allclose(f, rouge_l(hyps, refs).f_measure)


def test_empty_side_scores_zero_in_every_mode():
    hyps = [[], ["a"], "", "abc", []]
    refs = [["a"], [], "abc", "", []]
    for alpha in (None, 0, 0.3, 1, -1):
        f, p, r = rouge_l(hyps, refs, alpha=alpha)
        assert f.tolist() == p.tolist() == r.tolist() == [0.0] * 5


def test_no_overlap_scores_zero_without_nan():
    with np.errstate(all="raise"):
        f, p, r = rouge_l(["abc", "x"], ["def", "y"], alpha=-1)
    assert f.tolist() == [0.0, 0.0] and not np.isnan(f).any()


def test_rouge_l_accepts_numpy_and_mixed_containers():
    f, p, r = rouge_l([np.array([1, 2, 3]), "abc"], [[1, 3], ["a", "c"]])
    assert p.tolist() == [2 / 3, 2 / 3] and r.tolist() == [1.0, 1.0]


# ------------------------------------------------------------- gamma <-> alpha

@pytest.mark.parametrize("gamma", [0.0, 0.3, 0.5, 1.0, 1.2, 2.0, 3.7])
def test_metric_gamma_equals_functional_alpha(gamma):
    hyps, refs = _pairs(23, n=300)
    m = RougeL(gamma=gamma)
    m.add_batch(hyps, [[r] for r in refs])
    f_metric = m.per_instance().fmeasure
    f_func = rouge_l(hyps, refs, alpha=1 / (1 + gamma ** 2)).f_measure
    np.testing.assert_allclose(f_metric, f_func, rtol=1e-12, atol=1e-15)
    assert alpha_from_gamma(gamma) == pytest.approx(1 / (1 + gamma ** 2), rel=1e-15)


@pytest.mark.parametrize("gamma", [0.0, 0.5, 1.0, 1.2, 2.0, 10.0])
def test_gamma_alpha_round_trip(gamma):
    assert gamma_from_alpha(alpha_from_gamma(gamma)) == pytest.approx(gamma, rel=1e-12, abs=1e-12)


@pytest.mark.parametrize("alpha", [0.01, 0.25, 0.5, 0.9, 1.0])
def test_alpha_gamma_round_trip(alpha):
    assert alpha_from_gamma(gamma_from_alpha(alpha)) == pytest.approx(alpha, rel=1e-12)


@pytest.mark.parametrize("alpha", [0.0, -0.5, 1.5])
def test_gamma_from_alpha_outside_domain(alpha):
    with pytest.raises(ValueError):
        gamma_from_alpha(alpha)


@pytest.mark.parametrize("gamma", [-0.1, float("nan"), float("inf"), -float("inf")])
def test_alpha_from_bad_gamma(gamma):
    with pytest.raises(ValueError):
        alpha_from_gamma(gamma)


# ------------------------------------------------------------- scoring module

def test_f_gamma_matches_paddlenlp_operation_order_bitwise():
    rng = random.Random(24)
    for _ in range(2000):
        p, r = rng.choice([0.0, rng.random()]), rng.choice([0.0, rng.random()])
        g = rng.choice([0.5, 1.0, 1.2, 2.0, rng.random() * 3])
        assert float(scoring.f_gamma(np.array([p]), np.array([r]), g)[0]) == oracle.f_gamma(p, r, g)


def test_reduce_refs_modes_against_oracle():
    rng = random.Random(25)
    cands, ref_lists = [], []
    for _ in range(500):
        kind = rng.choice(["ab", "words", "cjk"])
        cands.append(oracle.random_seq(rng, rng.randrange(0, 25), kind))
        ref_lists.append([oracle.random_seq(rng, rng.randrange(0, 25), kind)
                          for _ in range(rng.choice([1, 2, 3, 4]))])
    # exact ties in F: the same P/R twice, and swapped P and R (the F is symmetric)
    cands += ["abcd", "ab", "abcd"]
    ref_lists += [["abxx", "abyy"], ["a", "abxx"], ["a", "ab", "abcd"]]
    from paddle_rougel import lcs_batch
    res = lcs_batch(cands, ref_lists)
    counts = scoring.pair_counts(res.lcs, np.repeat(res.cand_len, res.ref_count), res.ref_len)
    p, r = scoring.precision_recall(*counts)
    for mode in scoring.MULTI_REF_MODES:
        for g in (0.5, 1.2):
            P, R, F = scoring.reduce_refs(p, r, res.offsets, mode, lambda a, b: scoring.f_gamma(a, b, g),
                                          counts)
            for i, (c, refs) in enumerate(zip(cands, ref_lists)):
                want = oracle.score_instance(c, refs, gamma=g, mode=mode)
                got = (P[i], R[i], F[i])
                assert got == pytest.approx(want, rel=1e-12, abs=1e-15), (mode, g, i)


def test_multi_ref_pooled_and_best_recall_rouge155_examples():
    """ROUGE-1.5.5 (-f A, -f B, alpha 0.5) on the examples of issue 19: pooled counts, and the
    reference with the highest recall (not F) with its own P."""
    from paddle_rougel import compute

    out = compute(["a b"], [["a", "a b c"]], tokenize="whitespace", alpha=0.5, multi_ref="pooled",
                  rouge_types=["rougeL", "rougeLsum"])
    for t in ("rougeL", "rougeLsum"):
        assert (out[f"{t}_recall"], out[f"{t}_precision"], out[t]) == (0.75, 0.75, 0.75)
    out = compute(["a b c d"], [["a", "a b c d e"]], tokenize="whitespace", alpha=0.5,
                  multi_ref="best_recall", rouge_types=["rougeL", "rougeLsum"])
    for t in ("rougeL", "rougeLsum"):
        assert (out[f"{t}_recall"], out[f"{t}_precision"]) == (1.0, 0.25)
        assert out[t] == pytest.approx(0.4, rel=1e-15)
    # ties in R: the first such reference (P 1/2 before P 1), as ROUGE-1.5.5's strict '>'
    p, r = np.array([0.5, 1.0]), np.array([0.5, 0.5])
    P, R, F = scoring.reduce_refs(p, r, np.array([0, 2]), "best_recall", scoring.f_alpha)
    assert P.tolist() == [0.5] and R.tolist() == [0.5]
    with pytest.raises(ValueError, match="counts"):
        scoring.reduce_refs(p, r, np.array([0, 2]), "pooled", scoring.f_alpha)


def test_pooled_states_merge_exactly_and_instances_match_the_score():
    """pooled reduces each instance's counts before the fold: the state (sums of per-instance
    P, R, F) merges exactly, and the per-instance rows (bootstrap) average to the score."""
    from paddle_rougel.metrics.rouge_lsum import RougeLsumAccumulator
    from paddle_rougel.metrics.rouge_l import RougeLAccumulator
    from paddle_rougel.engine.inputs import make_batch
    from paddle_rougel.engine.lsum import make_lsum_batch
    from paddle_rougel.metrics.rouge_l import RougeLSettings
    from paddle_rougel.metrics.rouge_lsum import RougeLsumSettings

    rng = random.Random(19)
    cands = [" ".join(rng.choice("abc") for _ in range(rng.randrange(0, 8))) for _ in range(60)]
    refs = [[" ".join(rng.choice("abcd") for _ in range(rng.randrange(0, 8)))
             for _ in range(rng.randrange(1, 5))] for _ in range(60)]
    for mode in ("pooled", "best_recall"):
        for cls, st, mk in ((RougeLAccumulator, RougeLSettings, make_batch),
                            (RougeLsumAccumulator, RougeLsumSettings, make_lsum_batch)):
            s = st(gamma=1.0, multi_ref=mode)
            whole, a, b = cls(s, keep_instances=True), cls(s, keep_instances=True), cls(s, keep_instances=True)
            whole.add(mk(cands, refs))
            a.add(mk(cands[:25], refs[:25]))
            b.add(mk(cands[25:], refs[25:]))
            a.merge(b.state_dict())
            assert a.scores() == pytest.approx(whole.scores(), rel=1e-13)  # sums in another order
            cols = a.instance_columns()
            assert cols.tolist() == whole.instance_columns().tolist()
            assert cols[:, 2].mean() == pytest.approx(whole.score(), rel=1e-12)
            for i, (c, rl) in enumerate(zip(cands, refs)):  # one line: the union LCS is the LCS
                want = oracle.score_instance(c, rl, 1.0, mode)
                assert cols[i].tolist() == pytest.approx(list(want), rel=1e-12, abs=1e-15), (mode, i)


def test_reduce_refs_best_takes_first_on_ties():
    # instance 0: refs give (P, R) = (1/2, 1) and (1, 1/2): equal F at gamma 1 -> first
    p = np.array([0.5, 1.0, 1.0, 0.5])
    r = np.array([1.0, 0.5, 0.5, 1.0])
    P, R, F = scoring.reduce_refs(p, r, np.array([0, 2, 4]), "best", lambda a, b: scoring.f_gamma(a, b, 1.0))
    assert P.tolist() == [0.5, 1.0] and R.tolist() == [1.0, 0.5]
    assert math.isclose(F[0], F[1])
    with pytest.raises(ValueError):
        scoring.reduce_refs(p, r, np.array([0, 4]), "mean", scoring.f_gamma)


def test_reduce_refs_one_reference_each_returns_new_arrays_equal_to_the_general_path():
    p, r = np.array([0.5, 1.0, 0.0]), np.array([0.25, 1.0, 0.5])
    f = lambda a, b: scoring.f_gamma(a, b, 1.0)  # noqa: E731
    for mode in scoring.MULTI_REF_MODES:
        P, R, F = scoring.reduce_refs(p, r, np.array([0, 1, 2, 3]), mode, f)
        assert P.tolist() == p.tolist() and R.tolist() == r.tolist() and F.tolist() == f(p, r).tolist()
        assert P is not p and R is not r  # the caller's arrays stay the caller's
        P[:] = 9
        assert p.tolist() == [0.5, 1.0, 0.0]
    # as many pairs as instances but not one each: the general path (reduceat), not the
    # pass-through, whose P would be p itself
    got = scoring.reduce_refs(p, r, np.array([0, 0, 1, 3]), "max_pr", f)
    assert got[0].tolist() == [0.5, 0.5, 1.0]
    # offsets None (one reference each, the metrics' _prf): the same bits; owned=True hands
    # the given arrays back (the metrics give fresh ones), owned=False copies them
    rng = np.random.default_rng(2)
    p, r = rng.random(500), rng.random(500)
    p[::7], r[::5] = 0.0, 0.0
    counts = (p * 10, np.full(500, 10.0), np.where(r > 0, p * 10 / np.where(r > 0, r, 1), 0.0))
    for mode in scoring.MULTI_REF_MODES:
        want = scoring.reduce_refs(p, r, np.arange(501), mode, f, counts)
        for owned in (False, True):
            got = scoring.reduce_refs(p.copy(), r.copy(), None, mode, f, counts, owned=owned)
            for a, b in zip(got, want):
                assert a.dtype == b.dtype == np.float64 and a.tobytes() == b.tobytes(), (mode, owned)
        mine = p.copy()
        assert scoring.reduce_refs(mine, r, None, mode, f, owned=True)[0] is mine
        assert scoring.reduce_refs(mine, r, None, mode, f)[0] is not mine


def test_prf_one_reference_each_is_the_general_path_bit_for_bit():
    """The metrics' _prf skips the repeat and the offsets when there are as many pairs as
    instances (one reference each); its P, R, F are those of the general path, every mode."""
    from paddle_rougel.metrics.rouge_l import RougeLAccumulator, RougeLSettings

    rng = np.random.default_rng(4)
    n = 400
    cand_len = rng.integers(0, 30, n)
    ref_len = rng.integers(0, 30, n)
    hits = np.minimum(rng.integers(0, 30, n), np.minimum(cand_len, ref_len))
    rc = np.ones(n, dtype=np.int64)
    for mode in scoring.MULTI_REF_MODES:
        for w in (dict(gamma=1.2), dict(alpha=0.5), dict(alpha=-1.0)):
            acc = RougeLAccumulator(RougeLSettings(multi_ref=mode, **w))
            got = acc._prf(hits, cand_len, ref_len, rc)
            counts = scoring.pair_counts(hits, np.repeat(cand_len, rc), ref_len)
            want = scoring.reduce_refs(*scoring.ratios(*counts), np.arange(n + 1), mode, acc.settings.f, counts)
            for a, b in zip(got, want):
                assert a.tobytes() == b.tobytes(), (mode, w)


def test_compute_preset_and_overrides():
    from paddle_rougel import compute
    from paddle_rougel.api.config import ConfigError, preset

    cand, refs = ["A b, c d"], [["a", "a b c d e"]]
    with_preset = compute(cand, refs, preset="rouge155")
    spelled = compute(cand, refs, alpha=0.5, multi_ref="pooled", tokenize="rouge_score")
    assert with_preset == spelled and with_preset["rougeL"] == pytest.approx(5 / 7, rel=1e-15)
    # a setting given replaces the preset's; a gamma replaces its alpha
    assert compute(cand, refs, preset="rouge155", multi_ref="best_recall")["rougeL"] == pytest.approx(0.4)
    out = compute(cand, refs, preset="rouge155", gamma=1.2)
    assert out["signature"].startswith("rougeL|gamma:1.2|multi_ref:pooled|tok:rouge_score|")
    # without a preset, None settings are the defaults
    assert compute(["ab"], ["ab"])["signature"].startswith("rougeL|gamma:1.2|multi_ref:max_pr|tok:char|norm:none|")
    assert preset("dureader") == {"gamma": 1.2, "multi_ref": "max_pr", "tokenize": "char", "normalize": "nows"}
    for bad in ("nosuch", "./rouge155.yaml", 3):
        with pytest.raises(ConfigError, match="preset must be one of"):
            compute(cand, refs, preset=bad)


def test_precision_recall_is_the_plain_ratio_bit_for_bit():
    """P and R are (hits + bonus) / (size + bonus), 0 where the size is 0, as a plain Python
    division gives them (every bit: the masked numpy division must not change a value), for
    int and float inputs, scalar and per-pair bonuses, broadcast shapes (rouge_l_matrix's)."""
    rng = np.random.default_rng(11)
    for _ in range(50):
        n = int(rng.integers(1, 200))
        hits = rng.integers(0, 30, n)
        cand, ref = hits + rng.integers(0, 30, n), hits + rng.integers(0, 30, n)
        cand[rng.random(n) < 0.2] = 0
        ref[rng.random(n) < 0.2] = 0
        hits = np.minimum(hits, np.minimum(cand, ref))
        for bonus in (0.0, 0, 0.5, rng.random(n)):
            bs = np.broadcast_to(bonus, (n,))
            p, r = scoring.precision_recall(hits, cand, ref, bonus)
            pw = [(h + b) / (c + b) if c + b > 0 else 0.0 for h, c, b in zip(hits.tolist(), cand.tolist(), bs.tolist())]
            rw = [(h + b) / (x + b) if x + b > 0 else 0.0 for h, x, b in zip(hits.tolist(), ref.tolist(), bs.tolist())]
            assert p.tobytes() == np.array(pw).tobytes() and r.tobytes() == np.array(rw).tobytes()
            num, pd, rd = scoring.pair_counts(hits.astype(np.float64), cand, ref, bonus)
            p2, r2 = scoring.ratios(num, pd, rd)
            assert p2.tobytes() == p.tobytes() and r2.tobytes() == r.tobytes()
    q, c = np.array([[3.0], [0.0]]), np.array([[4.0, 0.0, 2.0]])
    p, r = scoring.precision_recall(np.minimum(q, c), q, c)
    assert p.shape == (2, 3) and p.tolist() == [[1.0, 0.0, 2 / 3], [0.0, 0.0, 0.0]]
    src = np.arange(3.0)
    assert scoring.pair_counts(src, src, src)[0] is not src  # new arrays, never the caller's


def test_f_gamma_is_the_scalar_formula_bit_for_bit():
    """scoring.f_gamma (in place in two arrays) gives, element by element, the bits of the
    oracle's scalar paddlenlp formula ((1 + g^2) P R / (R + g^2 P), 0 where P or R is 0): P and
    R over [0, 1] with zeros, subnormals and 1, gammas 0 to 1e150, arrays, broadcasts and
    scalars (a 0-d array back, as np.where gave)."""
    import oracle

    rng = np.random.default_rng(9)
    vals = np.concatenate([rng.random(3000), [0.0, 1.0, 5e-324, 1e-310, 0.5, 1e-300]])
    other = rng.permutation(vals)
    other[::11] = 0.0
    for g in (1.2, 1.0, 0.0, 0.5, 3.7, 1e-200, 1e150):
        got = scoring.f_gamma(vals, other, g)
        want = np.array([oracle.f_gamma(float(a), float(b), g) for a, b in zip(vals, other)])
        assert got.tobytes() == want.tobytes(), g
        col = scoring.f_gamma(vals[:50, None], other[None, :40], g)  # broadcast [50, 40]
        assert col.shape == (50, 40) and col[7, 3] == oracle.f_gamma(float(vals[7]), float(other[3]), g)
        one = scoring.f_gamma(0.25, 0.5, g)
        assert isinstance(one, np.ndarray) and one.shape == () and float(one) == oracle.f_gamma(0.25, 0.5, g)
