"""paddle_rougel.stats: the generator, bit-identical back ends, BLEU from corpus sums, calibration."""
from __future__ import annotations

import math

import numpy as np
import pytest

from paddle_rougel import _lcs
from paddle_rougel.metrics import bleu as bleu_mod
from paddle_rougel.engine import fallbacks
from paddle_rougel.engine import host as engine
from paddle_rougel.stats import intervals as stats
from paddle_rougel.metrics.bleu import BleuAccumulator
from paddle_rougel.metrics.bleu import BleuSettings

MASK = 2 ** 64 - 1
GAMMA = 0x9E3779B97F4A7C15


def ref_mix(z: int) -> int:
    """splitmix64's output function on Python ints (an independent implementation)."""
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
    return z ^ (z >> 31)


def ref_draw(seed: int, r: int, j: int, m: int) -> int:
    key = ref_mix((seed + (r + 1) * GAMMA) & MASK)
    return (ref_mix((key + (j + 1) * GAMMA) & MASK) * m) >> 64


@pytest.fixture
def on_backend():
    """Call ``run(name, fn)``: fn() on engine back end ``name``, restored afterwards."""
    old = engine.backend()
    assert old == "c" and hasattr(_lcs, "resample_sums"), "build the C extension (pip install -e .)"

    def run(name, fn):
        engine.set_backend(name)
        try:
            return fn()
        finally:
            engine.set_backend(old)
    return run


# ------------------------------------------------------------------ generator

def test_generator_is_splitmix64():
    # splitmix64 from state 0: published first outputs
    assert [ref_mix(k * GAMMA & MASK) for k in (1, 2)] == [0xE220A8397B1DCDAF, 0x6E789E6AA1B965F4]
    for seed, r, m in [(0, 0, 10), (12345, 7, 2), (2 ** 64 - 1, 3, 2 ** 32 - 1), (99, 10 ** 6, 1000003)]:
        got = stats.draws(seed, r, m, 300).tolist()
        assert got == [ref_draw(seed, r, j, m) for j in range(300)]


def test_generator_is_uniform_and_streams_differ():
    d = stats.draws(1, 0, 10, 100_000)
    counts = np.bincount(d, minlength=10)
    assert counts.min() > 9_700 and counts.max() < 10_300  # +-3% (4 sd is 1.2%)
    assert not np.array_equal(stats.draws(1, 0, 10, 50), stats.draws(1, 1, 10, 50))
    assert not np.array_equal(stats.draws(1, 0, 10, 50), stats.draws(2, 0, 10, 50))


# ------------------------------------------------------------------ back ends agree bit for bit

@pytest.mark.parametrize("n", [1, 2, 3, 7, 8, 9, 255, 1023, 1024, 1025, 3001])
@pytest.mark.parametrize("threads", ["1", "2"])
def test_c_and_numpy_sums_identical(n, threads, on_backend, monkeypatch):
    monkeypatch.setenv("PADDLE_ROUGEL_THREADS", threads)
    x = np.random.default_rng(n).normal(size=(n, 3)) * np.array([1.0, 1e-8, 1e8])
    y = np.random.default_rng(n + 1).random((n, 3))
    for name in ("c", "python"):
        boot = on_backend(name, lambda: stats.resample_sums(x, 70, seed=n))
        perm = on_backend(name, lambda: stats.randomized_sums(x, y, 70, seed=n))
        if name == "c":
            boot_c, perm_c = boot, perm
    assert boot.shape == (70, 3) and boot.tobytes() == boot_c.tobytes()
    assert all(p.tobytes() == q.tobytes() for p, q in zip(perm, perm_c))


def test_sums_are_count_weighted_tree_sums():
    x = np.random.default_rng(0).random((1500, 2))
    counts = np.stack([np.bincount(stats.draws(4, r, 1500, 1500), minlength=1500) for r in range(5)])
    want = np.stack([stats.tree_sum(counts * x[:, c]) for c in range(2)], axis=1)
    assert stats.resample_sums(x, 5, seed=4).tobytes() == want.tobytes()


def test_numpy_chunks_and_blocks_change_nothing(on_backend, monkeypatch):
    x = np.random.default_rng(1).random((777, 2))
    y = np.random.default_rng(2).random((777, 2))
    want = on_backend("c", lambda: (stats.resample_sums(x, 9, 3), *stats.randomized_sums(x, y, 9, 3)))
    monkeypatch.setattr(fallbacks, "_BUDGET", 100)  # several row chunks, draw blocks (np.add.at)
    got = on_backend("python", lambda: (stats.resample_sums(x, 9, 3), *stats.randomized_sums(x, y, 9, 3)))
    assert all(g.tobytes() == w.tobytes() for g, w in zip(got, want))


def test_kernel_paths_identical():
    """32-bit counts (taken when an instance is drawn 256+ times) and the portable draw loop."""
    x = np.ascontiguousarray(np.random.default_rng(3).random((2, 5000)))
    out = [bytes(_lcs.resample_sums(x, 5000, 2, 40, 7, mode, 2)) for mode in (0, 2, 4, 6)]
    assert out[0] == out[1] == out[2] == out[3]
    assert bytes(_lcs.resample_sums(x, 5000, 2, 40, 7, 1, 2)) == bytes(_lcs.resample_sums(x, 5000, 2, 40, 7, 5, 2))
    with pytest.raises(ValueError):
        _lcs.resample_sums(x, 5000, 3, 4, 7, 0)  # buffer size != n * k * 8
    with pytest.raises(ValueError):
        _lcs.resample_sums(x[:1], 5000, 1, 4, 7, 1)  # randomization needs an even k


def test_full_results_identical_across_back_ends(on_backend):
    g = np.random.default_rng(5)
    a, b = g.random(400), g.random(400)
    calls = lambda: (stats.bootstrap(a, stats.mean_statistic(), 200, seed=8),  # noqa: E731
                     stats.paired_bootstrap(a, b, stats.mean_statistic(), 200, seed=8),
                     stats.approximate_randomization(a, b, stats.mean_statistic(), 300, seed=8, ci_resamples=50))
    assert on_backend("c", calls) == on_backend("python", calls)
    assert on_backend("c", calls) == on_backend("c", calls)
    assert stats.bootstrap(a, stats.mean_statistic(), 200, seed=9) != calls()[0]


# ------------------------------------------------------------------ BLEU

def _bleu_acc(n, match, candi, bp_c, bp_r, count):
    acc = BleuAccumulator(BleuSettings(n_size=n))
    state = acc.state_dict()
    state["states"].update(match_ngram=list(match), candi_ngram=list(candi), bp_c=bp_c, bp_r=bp_r, count=count)
    acc.load_state_dict(state)
    return acc.score()


def test_bleu_statistic_equals_accumulator_score():
    g = np.random.default_rng(11)
    for n in (1, 2, 4):
        stat = bleu_mod.bleu_statistic(n)
        for _ in range(200):
            # corpus sums a run can give (paddle_rougel/invariants.py): count candidates of bp_c
            # tokens in all have between bp_c - (k - 1) count and bp_c - (k - 1) k-grams
            count, bp_c, bp_r = int(g.integers(1, 20)), float(g.integers(0, 80)), float(g.integers(1, 80))
            lo, hi = np.maximum(bp_c - np.arange(n) * count, 0), np.maximum(bp_c - np.arange(n), 0)
            candi = np.floor(lo + (hi - lo) * g.random(n))
            match = np.floor(candi * g.random(n) * g.integers(0, 2)) + g.random(n).round(1) * (candi > 0)
            match = np.minimum(match, candi)
            row = np.concatenate([match, candi, [bp_c, bp_r]])[None, :]
            assert stat(row, count)[0] == _bleu_acc(n, match, candi, bp_c, bp_r, count)


def test_bleu_bootstrap_from_resampled_corpus_sums_by_hand():
    # 3 instances of BLEU-2: matches (1, 2 grams), candidate n-grams, candidate and reference length
    cols = bleu_mod.bleu_columns([[3, 1], [2, 0], [5, 3]], [[4, 3], [2, 1], [6, 5]], [4, 2, 6], [5, 2, 6])
    assert np.bincount(stats.draws(0, 0, 3, 3), minlength=3).tolist() == [0, 2, 1]
    assert np.bincount(stats.draws(0, 1, 3, 3), minlength=3).tolist() == [2, 0, 1]
    stat = bleu_mod.bleu_statistic(2)
    values = stat(stats.resample_sums(cols, 2, seed=0), 3)
    # resample 0 = 2 x instance 1 + instance 2: matches (9, 3) of (10, 7), c = r = 10
    assert values[0] == pytest.approx(math.sqrt(9 / 10 * 3 / 7), rel=1e-14)
    # resample 1 = 2 x instance 0 + instance 2: matches (11, 5) of (14, 11), c = 14, r = 16
    assert values[1] == pytest.approx(math.exp(1 - 16 / 14) * math.sqrt(11 / 14 * 5 / 11), rel=1e-14)
    # corpus BLEU of the resample, not the mean of its sentence BLEUs (instance 1 has BLEU 1e-154)
    assert values[0] > 0.6
    iv = stats.bootstrap(cols, stat, resamples=40, seed=0)  # the fewest at 95%: sorted[1], sorted[38]
    v40 = np.sort(stat(stats.resample_sums(cols, 40, seed=0), 3))
    assert (iv.low, iv.high) == (v40[1], v40[38])
    assert iv.estimate == _bleu_acc(2, [10, 4], [12, 9], 12.0, 13.0, 3)


def test_bleu_statistic_checks_layout():
    with pytest.raises(ValueError, match=r"BLEU-4 needs sums \[R, 10\]"):
        stats.bootstrap(np.ones((5, 6)), bleu_mod.bleu_statistic(4))
    with pytest.raises(ValueError):
        bleu_mod.bleu_columns([[1, 2]], [[1, 2], [3, 4]], [1], [1])


# ------------------------------------------------------------------ p-values and intervals

def test_percentile_bounds_follow_sacrebleu_estimate_ci():
    x = np.random.default_rng(4).random(50)
    vals = np.sort(stats.resample_sums(x, 1000, seed=6)[:, 0] / 50)
    iv = stats.bootstrap(x, stats.mean_statistic(), 1000, seed=6)
    assert (iv.low, iv.high) == (vals[1000 // 40], vals[1000 - 1000 // 40 - 1])
    iv90 = stats.bootstrap(x, stats.mean_statistic(), 1000, confidence=0.9, seed=6)
    assert (iv90.low, iv90.high) == (vals[50], vals[949])


def test_p_values_match_their_formulas():
    g = np.random.default_rng(7)
    a, b = g.random(60), g.random(60) + 0.05
    ms = stats.mean_statistic()
    c = stats.paired_bootstrap(a, b, ms, resamples=500, seed=2)
    s = stats.resample_sums(np.stack([a, b], 1), 500, seed=2) / 60
    d_star, d = s[:, 1] - s[:, 0], c.difference
    assert d == c.score_b - c.score_a and c.score_b == stats.tree_sum(b) / 60
    assert c.p_value == (1 + np.sum(np.abs(d_star - d) >= abs(d))) / 501
    ar = stats.approximate_randomization(a, b, ms, trials=700, seed=2, ci_resamples=500)
    sa, sb = stats.randomized_sums(a, b, 700, seed=2)
    assert ar.p_value == (1 + np.sum(np.abs(sa[:, 0] / 60 - sb[:, 0] / 60) >= abs(d))) / 701
    assert (ar.low, ar.high, ar.resamples, ar.method) == (c.low, c.high, 700, "approximate randomization")


def test_identical_systems_and_clear_differences():
    a = np.random.default_rng(8).random(30)
    for test in (stats.paired_bootstrap, stats.approximate_randomization):
        assert test(a, a, stats.mean_statistic(), 200).p_value == 1.0
        assert test(a, a + 1, stats.mean_statistic(), 200).p_value == 1 / 201


def test_interval_covers_the_mean_95_percent():
    """Percentile bootstrap on simulated per-instance scores (Beta(2, 5), mean 2/7)."""
    ms, hits = stats.mean_statistic(), 0
    for rep in range(1000):
        x = np.random.default_rng(rep).beta(2, 5, size=200)
        iv = stats.bootstrap(x, ms, resamples=1000, seed=rep)
        hits += iv.low <= 2 / 7 <= iv.high
    assert 930 <= hits <= 970


def test_paired_tests_hold_their_level_under_the_null():
    """Two systems with the same score distribution, paired by instance: p < 0.05 in 3-7%."""
    ms, rejections = stats.mean_statistic(), {"bs": 0, "ar": 0}
    for rep in range(1000):
        g = np.random.default_rng(10_000 + rep)
        base = g.beta(2, 3, size=100)
        a = np.clip(base + g.normal(0, 0.1, 100), 0, 1)
        b = np.clip(base + g.normal(0, 0.1, 100), 0, 1)
        rejections["bs"] += stats.paired_bootstrap(a, b, ms, 1000, seed=rep).p_value < 0.05
        rejections["ar"] += stats.approximate_randomization(a, b, ms, 1000, seed=rep, ci_resamples=40).p_value < 0.05
    assert 30 <= rejections["bs"] <= 70 and 30 <= rejections["ar"] <= 70, rejections


# ------------------------------------------------------------------ refusals

@pytest.mark.parametrize("test", [stats.paired_bootstrap, stats.approximate_randomization])
def test_mismatched_systems_refused(test):
    ms = stats.mean_statistic()
    with pytest.raises(ValueError, match="system A has 5 instances but B has 4"):
        test(np.ones(5), np.ones(4), ms)
    with pytest.raises(ValueError, match="system A has 2 columns but B has 3"):
        test(np.ones((5, 2)), np.ones((5, 3)), ms)
    with pytest.raises(ValueError, match="cols_b: values must be finite"):
        test(np.ones(5), np.array([1, 2, np.nan, 4, 5]), ms)


@pytest.mark.parametrize("kwargs, error", [
    ({"columns": []}, ValueError), ({"columns": np.ones((2, 2, 2))}, ValueError),
    ({"columns": [1.0, np.inf]}, ValueError), ({"resamples": 0}, ValueError),
    ({"resamples": True}, TypeError), ({"resamples": 2.5}, TypeError), ({"confidence": 1.0}, ValueError),
    ({"seed": -1}, ValueError), ({"seed": 2 ** 64}, ValueError),
    ({"statistic": lambda s, n: s}, ValueError),  # [R, 1], not [R]
])
def test_bad_arguments_refused(kwargs, error):
    args = {"columns": [1.0, 2.0, 3.0], "statistic": stats.mean_statistic(), **kwargs}
    with pytest.raises(error):
        stats.bootstrap(**args)


# ------------------------------------------------------------------ limits (issue 20.7, 20.10)

def _fewest(confidence):
    """Independent oracle: the smallest R with floor(R (1 - c) / 2) >= 1, in exact arithmetic."""
    from fractions import Fraction
    c = Fraction(str(confidence))
    r = 1
    while r * (1 - c) / 2 < 1:
        r += 1
    return r


@pytest.mark.parametrize("test", ["bootstrap", "paired_bootstrap", "approximate_randomization"])
@pytest.mark.parametrize("n", [0, 1])
def test_fewer_than_two_instances_are_refused(test, n):
    """One instance gave p = 0.000999 and a zero-width '95%' interval; none said 'shape (0, 3)'."""
    x, ms = np.full((n, 3), 0.729), stats.mean_statistic(2)
    call = (lambda: stats.bootstrap(x, ms)) if test == "bootstrap" else \
        (lambda: getattr(stats, test)(x, x + 0.1, ms))
    with pytest.raises(ValueError, match=f"{n} instances?; an interval or a test needs at least 2"):
        call()
    assert stats.bootstrap(np.array([[0.5], [1.0]]), stats.mean_statistic()).low == 0.5  # two will do


@pytest.mark.parametrize("confidence", [0.5, 0.8, 0.9, 0.95, 0.98, 0.99, 0.999])
def test_resamples_too_few_for_the_level_are_refused(confidence):
    """resamples=1 gave an interval that excluded its own estimate (0.729 outside [0.625, 0.625])."""
    need = _fewest(confidence)
    assert stats.min_resamples(confidence) == need
    x = np.array([0.5, 0.75, 1.0, 0.625, 0.729])
    for call in (lambda r: stats.bootstrap(x, stats.mean_statistic(), r, confidence),
                 lambda r: stats.paired_bootstrap(x, x[::-1], stats.mean_statistic(), r, confidence),
                 lambda r: stats.approximate_randomization(x, x[::-1], stats.mean_statistic(), 10, confidence,
                                                           ci_resamples=r)):
        for r in (1, need - 1):
            with pytest.raises(ValueError, match=f"resamples={r} is too few .* at least {need}"):
                call(r)
        call(need)
    iv = stats.bootstrap(x, stats.mean_statistic(), need, confidence)
    values = np.sort(stats.resample_sums(x, need)[:, 0] / 5)
    assert (iv.low, iv.high) == (values[1], values[-2])  # one resample left out on each side
    assert stats.approximate_randomization(x, x, stats.mean_statistic(), trials=1).p_value == 1.0  # trials: any


@pytest.mark.parametrize("count", [2 ** 31, 10 ** 9, 2 ** 63, 2 ** 100])
def test_unallocatable_resample_counts_are_refused_before_allocating(count):
    """They ended in MemoryError, 'SystemError: deallocated bytearray object has exported buffers'
    or 'Python int too large to convert to C ssize_t'."""
    x = np.random.default_rng(0).random((10, 10))
    ms = stats.mean_statistic()
    calls = {"resamples": [lambda: stats.bootstrap(x, ms, count), lambda: stats.resample_sums(x, count),
                           lambda: stats.paired_bootstrap(x, x, ms, count),
                           lambda: stats.approximate_randomization(x, x, ms, 10, ci_resamples=count)],
             "trials": [lambda: stats.approximate_randomization(x, x, ms, count),
                        lambda: stats.randomized_sums(x, x, count)]}
    for name, fns in calls.items():
        for fn in fns:
            with pytest.raises(ValueError, match=rf"{name}={count} needs .* GiB .* the limit is 1 GiB"):
                fn()
    limit = stats.MAX_BYTES // ((10 + 4) * 8)
    assert stats.resample_sums(x[:, :1], 1000).shape == (1000, 1)
    with pytest.raises(ValueError, match=f"at most {limit} resamples"):
        stats.resample_sums(x, limit + 1)
