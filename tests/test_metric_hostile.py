"""Hostile use of the metric classes: nothing lost, nothing silently wrong (issue 8).

Each test names the defect it guards against; each failed on the code before the fix.
"""
from __future__ import annotations

import copy
import json
import math
import threading

import numpy as np
import paddle
import pytest

import oracle
from paddle_rougel import BLEUForDuReader, RougeL, RougeLForDuReader
from paddle_rougel.metrics import accumulators
from paddle_rougel.engine import host as engine

METRICS = [RougeL, RougeLForDuReader, BLEUForDuReader]


# ---------------------------------------------------------------- gamma overflow (8.3)

@pytest.mark.parametrize("gamma", [1e150, 1e155, 1e200, 1.7e308])
def test_huge_gamma_scores_finite_and_keeps_instances(gamma):
    m = RougeL(gamma=gamma)
    for _ in range(3):
        m.add_inst("abcd", ["abxx"])  # P = R = 0.5
    m.add_inst("ab", ["abcd"])        # P = 1, R = 0.5: F -> R as gamma -> inf
    assert m.score() == pytest.approx((0.5 * 3 + 0.5) / 4, rel=1e-12)
    assert m.count == 4
    assert m.score() == m.score()     # a second read gives the same, nothing dropped


@pytest.mark.parametrize("where", ["engine", "scoring"])
def test_scoring_error_keeps_buffered_instances(monkeypatch, where):
    """An error while folding (the engine, or the formulas after it) loses nothing."""
    from paddle_rougel.core import scoring

    m = RougeL(gamma=1.0)
    m.add_inst("ab", ["ab"])
    m.add_inst("ab", ["ac"])
    mod, name = (engine, "lcs_batch") if where == "engine" else (scoring, "reduce_refs")
    real = getattr(mod, name)
    calls = {"n": 0}

    def flaky(*a, **k):
        calls["n"] += 1
        if calls["n"] == 1:
            raise OverflowError("simulated")
        return real(*a, **k)

    monkeypatch.setattr(mod, name, flaky)
    with pytest.raises(OverflowError):
        m.score()
    assert m.score() == pytest.approx(0.75)  # both buffered instances still there
    assert m.count == 2


# ---------------------------------------------------------------- snapshots (8.4)

@pytest.mark.parametrize("cls", METRICS)
def test_reused_numpy_buffer_is_snapshotted(cls):
    m = cls()
    buf = np.zeros(3, dtype=np.int64)
    for i in range(1, 6):
        buf[:] = i
        m.add_inst(buf, [[i, i, i]])
    fresh = cls()
    for i in range(1, 6):
        fresh.add_inst(np.full(3, i), [[i, i, i]])
    assert m.score() == fresh.score()
    if cls is not BLEUForDuReader:
        assert m.score() == 1.0


@pytest.mark.parametrize("cls", METRICS)
def test_mutating_references_after_add_inst_changes_nothing(cls):
    m, ref = cls(), ["a", "b", "c"]
    refs = [ref]
    m.add_inst(["a", "b", "c"], refs)
    ref[:] = ["x", "y", "z"]
    refs.append(["q"])
    want = cls()
    want.add_inst(["a", "b", "c"], [["a", "b", "c"]])
    assert m.score() == want.score()


def test_dureader_bonus_inputs_are_snapshotted():
    m, labels, ents = RougeLForDuReader(), ["Yes", "No"], ["上海"]
    m.add_inst("是的", ["是的", "不是"], yn_label="Yes", yn_ref=labels)
    m.add_inst("北京和上海", ["上海"], entity_ref=ents)
    labels[:] = ["No", "Yes"]
    ents[:] = ["北京和上海"]
    want = RougeLForDuReader()
    want.add_inst("是的", ["是的", "不是"], yn_label="Yes", yn_ref=["Yes", "No"])
    want.add_inst("北京和上海", ["上海"], entity_ref=["上海"])
    assert m.score() == want.score()


# ---------------------------------------------------------------- threads (8.5)

@pytest.mark.parametrize("cls", [RougeL, BLEUForDuReader])
def test_one_metric_shared_by_four_threads(cls, monkeypatch):
    monkeypatch.setattr(accumulators, "FLUSH_AT", 64)  # many flushes race with adds
    m = cls()
    rounds, errors = 40, []

    def work(seed):
        try:
            for r in range(rounds):
                m.add_batch(["abc", "abd"], [["abc"], ["abc", "xbd"]])
                for _ in range(5):
                    m.add_inst("ab", ["ab"])
                if r % 7 == 0:
                    m.score()
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(s,)) for s in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert m.count == 4 * rounds * 7
    single = cls()
    for _ in range(4 * rounds):
        single.add_batch(["abc", "abd"], [["abc"], ["abc", "xbd"]])
        for _ in range(5):
            single.add_inst("ab", ["ab"])
    assert m.score() == pytest.approx(single.score(), rel=1e-12)


# ---------------------------------------------------------------- tampered states (8.7)

def _state(cls=RougeL):
    m = cls()
    m.add_batch(["abc", "ab"], [["abd"], ["ab"]])
    return m, m.state_dict()


@pytest.mark.parametrize("field,value,exc", [
    ("count", -100, ValueError),
    ("count", "5", TypeError),
    ("count", 1.9, ValueError),
    ("count", 2 ** 63, ValueError),
    ("count", None, TypeError),
    ("count", True, TypeError),
    ("f_sum", float("nan"), ValueError),
    ("f_sum", float("inf"), ValueError),
    ("f_sum", -0.5, ValueError),
    ("f_sum", 7.0, ValueError),      # more than the count: no run gives that
    ("p_sum", [1.0], ValueError),    # wrong shape
])
def test_tampered_state_is_refused_naming_the_field(field, value, exc):
    m, st = _state()
    before = m.state_dict()
    bad = json.loads(json.dumps(st))
    bad["states"][field] = value
    for call in (m.load_state_dict, m.merge):
        with pytest.raises(exc, match=field):
            call(bad)
        assert m.state_dict() == before


def test_tampered_bleu_states_are_refused():
    m, st = _state(BLEUForDuReader)
    bad = json.loads(json.dumps(st))
    bad["config"]["n_size"] = 10 ** 8
    with pytest.raises(ValueError, match="n_size"):
        m.merge(bad)
    bad = json.loads(json.dumps(st))
    bad["states"]["match_ngram"] = [99.0, 0.0, 0.0, 0.0]
    with pytest.raises(ValueError, match="match_ngram"):
        m.load_state_dict(bad)


def test_merged_counts_cannot_wrap():
    m, st = _state()
    big = json.loads(json.dumps(st))
    big["states"]["count"] = 2 ** 62 - 1
    big["states"]["f_sum"] = 1.0
    big["states"]["p_sum"] = big["states"]["r_sum"] = 1.0
    with pytest.raises(ValueError, match="count"):
        m.merge(big)
    assert m.count == 2


def test_unknown_field_and_settings_are_refused():
    m, st = _state()
    bad = json.loads(json.dumps(st))
    bad["states"]["extra"] = 1
    with pytest.raises(ValueError, match="extra"):
        m.merge(bad)
    bad = json.loads(json.dumps(st))
    bad["config"]["gama"] = 3
    with pytest.raises(ValueError, match="gamma"):
        m.merge(bad)


def test_legacy_dureader_state_keys_load():
    m = RougeLForDuReader(alpha=2.0, beta=0.5)
    m.add_inst("ab", ["ab"])
    st = m.state_dict()
    cfg = st["config"]
    cfg["alpha"], cfg["beta"] = cfg.pop("yesno_weight"), cfg.pop("entity_weight")  # v0.1 names
    fresh = RougeLForDuReader(alpha=2.0, beta=0.5)
    fresh.load_state_dict(st)
    assert fresh.score() == m.score()


# ---------------------------------------------------------------- device path (8.8)

def _device(monkeypatch):
    import paddle_rougel.engine.convert as conv
    monkeypatch.setattr(conv, "on_host", lambda x: False)


@pytest.mark.parametrize("force_device", [False, True])
def test_huge_ids_do_not_collide(monkeypatch, force_device):
    if force_device:
        _device(monkeypatch)
    for a, b in [(2 ** 62, -2 ** 62), (2 ** 62, 0), (-2 ** 63, 0), (2 ** 63 - 1, -1)]:
        m = RougeL()
        m.update(paddle.to_tensor(np.array([[a, 5]], dtype=np.int64)),
                 paddle.to_tensor(np.array([[b, 5]], dtype=np.int64)))
        assert m.per_instance().precision.tolist() == [0.5], (a, b)
    m = RougeL()
    m.update(paddle.to_tensor(np.array([[2 ** 62, 7]])), paddle.to_tensor(np.array([[2 ** 62, 7]])))
    assert m.score() == 1.0


@pytest.mark.parametrize("force_device", [False, True])
def test_logits_without_vocab_axis_are_rejected(monkeypatch, force_device):
    if force_device:
        _device(monkeypatch)
    m = RougeL()
    with pytest.raises(ValueError, match="V = 0"):
        m.update(np.zeros((2, 3, 0), "float32"), np.zeros((2, 3), "int64"))
    assert m.count == 0


@pytest.mark.parametrize("force_device", [False, True])
def test_vocab_mutated_in_place_is_seen(monkeypatch, force_device):
    if force_device:
        _device(monkeypatch)
    vocab = {0: "a", 1: "b", 2: "c"}
    m = RougeL(vocab=vocab)
    out, lab = np.array([[0, 1]]), np.array([[0, 2]])
    m.update(out, lab)
    assert m.per_instance().precision.tolist() == [0.5]
    vocab[2] = "b"  # now ids 1 and 2 are the same token
    m.update(out, lab)
    assert m.per_instance().precision.tolist() == [0.5, 1.0]


@pytest.mark.parametrize("cls", METRICS)
def test_copy_does_not_share_the_buffer(cls):
    m = cls()
    m.add_inst("ab", ["ab"])
    c = copy.copy(m)
    c.add_inst("xy", ["ab"])
    d = copy.deepcopy(m)
    d.add_inst("xy", ["ab"])
    assert m.count == 1 and c.count == 2 and d.count == 2
    fresh = cls()
    fresh.add_inst("ab", ["ab"])
    assert m.score() == fresh.score()


# ---------------------------------------------------------------- token sequences (8.12)

@pytest.mark.parametrize("bad", [{"a", "b"}, frozenset("ab"), {"a": 1}])
@pytest.mark.parametrize("where", ["cand", "ref"])
def test_sets_and_dicts_are_not_token_sequences(bad, where):
    m = RougeL()
    args = (bad, ["ab"]) if where == "cand" else ("ab", [bad])
    with pytest.raises(TypeError, match="no order"):
        m.add_inst(*args)
    assert m.count == 0


@pytest.mark.parametrize("cls", METRICS)
def test_error_indexes_are_global_in_every_metric(cls):
    m = cls()
    m.add_batch(["a", "b"], [["a"], ["b"]])
    m.add_inst("c", ["c"])
    with pytest.raises(ValueError, match="instance 4"):
        m.add_batch(["a", "b"], [["a"], []])
    with pytest.raises(ValueError, match="instance 3"):
        m.add_inst("a", [])


# ---------------------------------------------------------------- drop-in gaps (issue 9.6)

@pytest.mark.parametrize("cls,kw,hint", [(RougeL, "gama", "gamma"), (RougeLForDuReader, "alhpa", "alpha"),
                                         (BLEUForDuReader, "n_szie", "n_size")])
def test_unknown_keyword_is_rejected_with_a_suggestion(cls, kw, hint):
    with pytest.raises(TypeError, match=f"did you mean '{hint}'"):
        cls(**{kw: 1})


def test_inst_scores_is_paddlenlps_attribute():
    m = RougeL()
    m.add_batch(["abc", "ab"], [["abd"], ["ab"]])
    assert m.inst_scores == m.per_instance().fmeasure.tolist()
    assert isinstance(m.inst_scores[0], float)


def test_cli_state_file_loads_into_each_metric():
    r, b = RougeLForDuReader(), BLEUForDuReader()
    for x in (r, b):
        x.add_batch(["北京", "上海"], [["北京"], ["上海市"]])
    state = {"format": "paddle-rougel-state/1", "metrics": {"rouge_l": r.state_dict(),
                                                           "bleu": b.state_dict()}}
    r2, b2 = RougeLForDuReader(), BLEUForDuReader()
    r2.load_state_dict(state)
    b2.load_state_dict(state)
    assert (r2.score(), b2.score()) == (r.score(), b.score())
    with pytest.raises(ValueError, match="0 RougeL states"):
        RougeL().load_state_dict(state)


def test_gamma_and_oracle_agree_for_moderate_gammas():
    for g in (0.0, 1.0, 1.2, 1e3, 1e100):
        m = RougeL(gamma=g)
        m.add_inst("abcde", ["abxyz", "ab"])
        p, r = max(2 / 5, 2 / 5), max(2 / 5, 2 / 2)
        want = 0.0 if p == 0 or r == 0 else (1 + g * g) * p * r / (r + g * g * p) if g < 1e100 else r
        assert m.score() == pytest.approx(want, rel=1e-12)
        assert math.isfinite(m.score())
    assert oracle.lcs_dp("abcde", "abxyz") == 2


@pytest.mark.parametrize("cls", [RougeL, RougeLForDuReader])
def test_returned_per_instance_arrays_are_the_callers(cls):
    """add_batch / update return copies: writing to them does not change the metric."""
    m = cls()
    s = m.add_batch(["ab", "xy"], [["ab"], ["xz"]])
    s.fmeasure[:] = 0.0
    s.precision[:] = 0.0
    assert m.per_instance().fmeasure.tolist()[0] == 1.0 and m.score() > 0.5
    r = RougeL()
    got = r.update(np.array([[1, 2]]), np.array([[1, 2]]))
    got.fmeasure[:] = 0.0
    assert r.per_instance().fmeasure.tolist() == [1.0]
