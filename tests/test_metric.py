"""RougeL (paddle.metric.Metric) API against the plain-Python oracle scorer."""
from __future__ import annotations

import json
import random

import numpy as np
import paddle
import pytest

import oracle
from paddle_rougel import RougeL
from paddle_rougel.metrics import accumulators as metric_mod


def _data(seed, n, max_len=30):
    return oracle.random_instances(seed, n, ["ab", "acgt", "words", "cjk", "ints"],
                                   lambda rng: rng.randrange(0, max_len),
                                   lambda rng: rng.randrange(0, max_len))


def _expected(cands, ref_lists, gamma, mode):
    return np.array([oracle.score_instance(c, r, gamma, mode) for c, r in zip(cands, ref_lists)])


CANDS, REFS = _data(31, 600)


def test_is_a_paddle_metric_with_name():
    m = RougeL()
    assert isinstance(m, paddle.metric.Metric)
    assert m.name() == "rouge-l"
    assert RougeL(name="rl").name() == "rl"


def test_accumulate_empty_is_zero():
    m = RougeL()
    assert m.accumulate() == 0.0 and m.score() == 0.0
    assert tuple(m.scores()) == (0.0, 0.0, 0.0)
    assert all(a.size == 0 for a in m.per_instance())


@pytest.mark.parametrize("mode", ["max_pr", "best", "avg", "pooled", "best_recall"])
@pytest.mark.parametrize("gamma", [0.5, 1.2])
def test_add_inst_add_batch_and_oracle_agree(mode, gamma):
    want = _expected(CANDS, REFS, gamma, mode)
    a = RougeL(gamma=gamma, multi_ref=mode)
    for c, r in zip(CANDS, REFS):
        a.add_inst(c, r)
    b = RougeL(gamma=gamma, multi_ref=mode)
    s = b.add_batch(CANDS, REFS)
    for m in (a, b):
        pi = m.per_instance()
        assert isinstance(pi.fmeasure, np.ndarray) and pi.fmeasure.shape == (len(CANDS),)
        np.testing.assert_allclose(np.c_[pi.precision, pi.recall, pi.fmeasure], want, rtol=1e-12, atol=1e-15)
        assert m.score() == pytest.approx(want[:, 2].mean(), rel=1e-12)
        assert isinstance(m.score(), float) and isinstance(m.accumulate(), float)
        sc = m.scores()
        assert (sc.precision, sc.recall, sc.fmeasure) == pytest.approx(tuple(want.mean(axis=0)), rel=1e-12)
    np.testing.assert_allclose(s.fmeasure, want[:, 2], rtol=1e-12, atol=1e-15)


def test_flush_boundary_many_add_inst_calls():
    n = 2 * metric_mod.FLUSH_AT + 37  # crosses the buffer size twice
    rng = random.Random(32)
    cands = [oracle.random_seq(rng, rng.randrange(0, 8), "ab") for _ in range(n)]
    refs = [[oracle.random_seq(rng, rng.randrange(0, 8), "ab")] for _ in range(n)]
    want = _expected(cands, refs, 1.2, "max_pr")[:, 2]
    m = RougeL()
    for i, (c, r) in enumerate(zip(cands, refs)):
        m.add_inst(c, r)
        if i == metric_mod.FLUSH_AT + 5:  # reading mid-way must not double count
            assert m.score() == pytest.approx(want[: i + 1].mean(), rel=1e-12)
    np.testing.assert_allclose(m.per_instance().fmeasure, want, rtol=1e-12, atol=1e-15)
    assert m.score() == pytest.approx(want.mean(), rel=1e-12)
    assert int(m.count) == n


def test_mixing_add_inst_and_add_batch_keeps_order():
    want = _expected(CANDS[:30], REFS[:30], 1.2, "max_pr")[:, 2]
    m = RougeL()
    for c, r in zip(CANDS[:10], REFS[:10]):
        m.add_inst(c, r)
    m.add_batch(CANDS[10:20], REFS[10:20])
    for c, r in zip(CANDS[20:30], REFS[20:30]):
        m.add_inst(c, r)
    np.testing.assert_allclose(m.per_instance().fmeasure, want, rtol=1e-12, atol=1e-15)


def test_reset():
    m = RougeL()
    m.add_batch(CANDS[:5], REFS[:5])
    m.add_inst(CANDS[5], REFS[5])
    m.reset()
    assert m.score() == 0.0 and m.per_instance().fmeasure.size == 0
    m.add_inst("abc", ["abc"])
    assert m.score() == 1.0 and m.per_instance().fmeasure.tolist() == [1.0]


def test_lcs_compat_returns_float():
    m = RougeL()
    v = m.lcs("ABCBDAB", "BDCABA")
    assert isinstance(v, float) and v == 4.0
    assert m.lcs(["a", "b"], []) == 0.0


def test_merge_equals_one_metric_on_all_data():
    whole = RougeL(gamma=1.0, multi_ref="best")
    whole.add_batch(CANDS, REFS)
    a, b = RougeL(gamma=1.0, multi_ref="best"), RougeL(gamma=1.0, multi_ref="best")
    for c, r in zip(CANDS[:250], REFS[:250]):
        a.add_inst(c, r)  # still buffered when merged
    b.add_batch(CANDS[250:], REFS[250:])
    assert a.merge(b) is a
    assert a.score() == pytest.approx(whole.score(), rel=1e-12)
    assert tuple(a.scores()) == pytest.approx(tuple(whole.scores()), rel=1e-12)
    assert int(a.count) == len(CANDS)
    np.testing.assert_allclose(a.per_instance().fmeasure, whole.per_instance().fmeasure, rtol=1e-12)


def test_merge_incompatible_configs_raises():
    a, b = RougeL(gamma=1.2), RougeL(gamma=1.0)
    a.add_inst("ab", ["ab"])
    b.add_inst("ab", ["b"])
    with pytest.raises(ValueError, match="gamma"):
        a.merge(b)
    with pytest.raises(ValueError, match="multi_ref"):
        a.merge(RougeL(gamma=1.2, multi_ref="best"))
    assert a.score() == 1.0 and int(a.count) == 1  # untouched by the failed merges


def test_state_dict_json_round_trip():
    m = RougeL(gamma=2.0, multi_ref="avg")
    m.add_batch(CANDS[:100], REFS[:100])
    for c, r in zip(CANDS[100:150], REFS[100:150]):
        m.add_inst(c, r)
    sd = json.loads(json.dumps(m.state_dict()))
    fresh = RougeL(gamma=2.0, multi_ref="avg")
    fresh.load_state_dict(sd)
    assert fresh.score() == m.score()
    assert tuple(fresh.scores()) == tuple(m.scores())
    assert int(fresh.count) == 150
    # continue accumulating after the restore
    fresh.add_batch(CANDS[150:200], REFS[150:200])
    m.add_batch(CANDS[150:200], REFS[150:200])
    assert fresh.score() == pytest.approx(m.score(), rel=1e-12)
    # merging a state dict works like merging the metric
    other = RougeL(gamma=2.0, multi_ref="avg")
    other.merge(json.loads(json.dumps(m.state_dict())))
    assert other.score() == pytest.approx(m.score(), rel=1e-12)
    with pytest.raises(ValueError):
        RougeL(gamma=1.2, multi_ref="avg").load_state_dict(sd)
    # a malformed state dict is refused by merge as by load_state_dict, state unchanged
    before = other.score()
    for bad, msg in (({**sd, "states": {k: v for k, v in sd["states"].items() if k != "count"}}, "missing"),
                     ({**sd, "states": {**sd["states"], "f_sum": [1.0, 2.0]}}, "shape")):
        for call in (other.merge, RougeL(gamma=2.0, multi_ref="avg").load_state_dict):
            with pytest.raises(ValueError, match=msg):
                call(bad)
    assert other.score() == before


def test_paddlenlp_docstring_example():
    m = RougeL()
    m.add_inst(["The", "cat", "The", "cat", "on", "the", "mat"],
               [["The", "cat", "is", "on", "the", "mat"], ["There", "is", "a", "cat", "on", "the", "mat"]])
    assert m.score() == 0.7800511508951408


def test_update_with_trans_func():
    def trans(output, label, seq_mask):
        return output, label

    m = RougeL(trans_func=trans, gamma=1.0)
    m.update(["abcd", "xy"], [["abce"], ["xy", "yx"]])
    assert m.score() == pytest.approx(0.875, rel=1e-12)


def test_results_identical_on_python_backend(python_backend):
    want = _expected(CANDS[:200], REFS[:200], 1.2, "max_pr")
    m = RougeL()
    for c, r in zip(CANDS[:200], REFS[:200]):
        m.add_inst(c, r)
    pi = m.per_instance()
    np.testing.assert_allclose(np.c_[pi.precision, pi.recall, pi.fmeasure], want, rtol=1e-12, atol=1e-15)
