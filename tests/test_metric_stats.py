"""Confidence intervals and paired tests on the metrics (issue 12): state, merge and back ends."""
from __future__ import annotations

import json

import numpy as np
import pytest

import oracle
from paddle_rougel import BLEUForDuReader, RougeL, RougeLForDuReader, compare
from paddle_rougel.engine import host as engine
from paddle_rougel.stats import intervals as stats

CANDS, REFS = oracle.random_instances(3, 300, ["cjk", "ab"], [0, 3, 9, 20], [1, 5, 12])


def _fed(cls, cands=CANDS, refs=REFS, **kw):
    m = cls(**kw)
    m.add_batch(cands, refs)
    return m


@pytest.mark.parametrize("cls", [RougeL, RougeLForDuReader, BLEUForDuReader])
def test_interval_is_the_bootstrap_of_the_metrics_own_statistics(cls):
    m = _fed(cls, keep_instances=True)
    iv = m.confidence_interval(resamples=300, seed=5)
    assert iv.estimate == pytest.approx(m.score(), rel=1e-12, abs=1e-15)  # corpus BLEU, not a mean
    assert iv.low <= iv.estimate <= iv.high and iv.resamples == 300 and iv.seed == 5
    want = stats.bootstrap(m.accumulator.instance_columns(), m.accumulator.statistic(), 300, 0.95, 5)
    assert iv == want


def test_rouge_interval_is_over_per_instance_f():
    m = _fed(RougeL)  # RougeL keeps its per-instance F locally even without keep_instances
    iv = m.confidence_interval(resamples=200, seed=1)
    assert iv == stats.bootstrap(m.per_instance().fmeasure, stats.mean_statistic(), 200, 0.95, 1)


def test_same_seed_same_numbers_on_both_engines():
    m = _fed(BLEUForDuReader, keep_instances=True)
    c = m.confidence_interval(resamples=200, seed=9)
    old = engine.backend()
    engine.set_backend("python")
    try:
        p = _fed(BLEUForDuReader, keep_instances=True).confidence_interval(resamples=200, seed=9)
    finally:
        engine.set_backend(old)
    assert c == p


@pytest.mark.parametrize("cls", [RougeL, RougeLForDuReader, BLEUForDuReader])
def test_instances_travel_through_merge_and_state_files(cls):
    whole = _fed(cls, keep_instances=True)
    a = _fed(cls, CANDS[:120], REFS[:120], keep_instances=True)
    b = _fed(cls, CANDS[120:], REFS[120:], keep_instances=True)
    via_state = cls(keep_instances=True)
    via_state.load_state_dict(json.loads(json.dumps(a.state_dict())))
    via_state.merge(json.loads(json.dumps(b.state_dict())))
    a.merge(b)
    want = whole.confidence_interval(resamples=150, seed=2)
    assert a.confidence_interval(resamples=150, seed=2) == want
    assert via_state.confidence_interval(resamples=150, seed=2) == want


def test_missing_instances_are_refused_not_guessed():
    kept = _fed(BLEUForDuReader, keep_instances=True)
    plain = _fed(BLEUForDuReader)
    with pytest.raises(ValueError, match="keep_instances=True"):
        plain.confidence_interval()
    with pytest.raises(ValueError, match="keep_instances=True"):
        kept.merge(plain)
    with pytest.raises(ValueError, match="instances"):
        kept.merge(plain.state_dict())
    before = kept.state_dict()
    assert kept.state_dict() == before


def test_tampered_instances_are_refused():
    m = _fed(RougeL, keep_instances=True)
    st = json.loads(json.dumps(m.state_dict()))
    st["instances"][0][2] = 0.999 if st["instances"][0][2] != 0.999 else 0.5
    with pytest.raises(ValueError, match="add up"):
        RougeL(keep_instances=True).load_state_dict(st)
    st = json.loads(json.dumps(m.state_dict()))
    st["instances"] = st["instances"][:-1]
    with pytest.raises(ValueError, match="shape"):
        RougeL(keep_instances=True).load_state_dict(st)


def test_compare_two_systems():
    better = [r[0] for r in REFS]  # a system that copies the first reference
    a = _fed(RougeL)
    b = _fed(RougeL, better, REFS)
    c = compare(a, b, seed=4)
    assert c.difference == pytest.approx(b.score() - a.score()) and c.difference > 0
    assert c.p_value < 0.01 and c.low > 0 and c.method == "paired bootstrap"
    ar = compare(a, b, method="approximate_randomization", resamples=999, seed=4)
    assert ar.p_value == pytest.approx(1 / 1000) and ar.method == "approximate randomization"
    same = compare(a, _fed(RougeL), seed=4)
    assert same.difference == 0.0 and same.p_value == 1.0


def test_compare_refuses_different_instances_or_settings():
    a = _fed(RougeL)
    with pytest.raises(ValueError, match="different instances"):
        compare(a, _fed(RougeL, CANDS[:10], REFS[:10]))
    with pytest.raises(ValueError, match="different settings"):
        compare(a, _fed(RougeL, gamma=1.0))
    with pytest.raises(ValueError, match="cannot compare"):
        compare(a, _fed(BLEUForDuReader, keep_instances=True))
    with pytest.raises(ValueError, match="method"):
        compare(a, a, method="t-test")


def test_default_memory_keeps_no_bleu_rows():
    m = _fed(BLEUForDuReader)
    assert m.accumulator._local == [] and "instances" not in m.state_dict()
    assert np.asarray(_fed(BLEUForDuReader, keep_instances=True).state_dict()["instances"]).shape == (300, 10)


@pytest.mark.parametrize("cls", [RougeL, RougeLForDuReader, BLEUForDuReader])
def test_intervals_and_tests_need_two_instances(cls):
    """Issue 20.7: one instance reported p = 0.000999 and a zero-width interval."""
    one = _fed(cls, CANDS[:1], REFS[:1], keep_instances=True)
    for fn in (one.confidence_interval, lambda: compare(one, _fed(cls, REFS[0][:1], REFS[:1], keep_instances=True))):
        with pytest.raises(ValueError, match="1 instance; an interval or a test needs at least 2"):
            fn()
    with pytest.raises(ValueError, match="0 instances; an interval or a test needs at least 2"):
        cls(keep_instances=True).confidence_interval()
    assert _fed(cls, CANDS[:2], REFS[:2], keep_instances=True).confidence_interval().resamples == 1000
