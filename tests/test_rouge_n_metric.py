"""The ``RougeN`` metric class (issue 22) as users drive it: adding text, the figures,
state / merge round trips, refusals, intervals and ``compare``, network output (numpy,
CPU tensors, hapi ``Model`` in dygraph), ``paddle.metric.Metric``.  The ROUGE-N numbers
against rouge-score / rouge-chinese / ROUGE-1.5.5 are tested elsewhere.

Oracle: clipped n-gram counts with ``collections.Counter`` and the F formulas, written here.
"""
from __future__ import annotations

import copy
import json
import random
import threading
from collections import Counter

import numpy as np
import pytest

from model_helpers import hapi_example, hapi_model, hapi_predicted_pairs
from paddle_rougel import RougeL, RougeN, compare, compute



# ----------------------------------------------------------------------------- the oracle

def grams(toks, n, distinct=False):
    c = Counter(tuple(toks[i:i + n]) for i in range(len(toks) - n + 1))
    return Counter(set(c)) if distinct else c


def counts(cand, ref, n, distinct=False):
    gc, gr = grams(list(cand), n, distinct), grams(list(ref), n, distinct)
    return sum((gc & gr).values()), sum(gc.values()), sum(gr.values())


def f_gamma(p, r, g):
    return 0.0 if p == 0 or r == 0 else (1 + g * g) * p * r / (r + g * g * p)


def pr(hits, nc, nr):
    return (hits / nc if nc else 0.0), (hits / nr if nr else 0.0)


def oracle_instance(cand, refs, n, gamma=1.2, multi_ref="max_pr", distinct=False):
    """(P, R, F) of one instance, several references."""
    rows = []
    for ref in refs:
        p, r = pr(*counts(cand, ref, n, distinct))
        rows.append((p, r, f_gamma(p, r, gamma)))
    if multi_ref == "max_pr":
        p, r = max(x[0] for x in rows), max(x[1] for x in rows)
        return p, r, f_gamma(p, r, gamma)
    assert multi_ref == "best"
    return max(rows, key=lambda x: x[2])  # the first of the highest F


def oracle_mean(cands, ref_lists, n, **kw):
    rows = [oracle_instance(c, rs, n, **kw) for c, rs in zip(cands, ref_lists)]
    return tuple(float(np.mean(col)) for col in zip(*rows)) if rows else (0.0, 0.0, 0.0)


def data(seed=0, k=60, alphabet="abcd"):
    """Character strings with many repeats (clipping counts), 1-3 references each."""
    rnd = random.Random(seed)
    mk = lambda lo: "".join(rnd.choice(alphabet) for _ in range(rnd.randint(lo, 12)))  # noqa: E731
    cands = [mk(0) for _ in range(k)]
    refs = [[mk(1) for _ in range(rnd.randint(1, 3))] for _ in range(k)]
    return cands, refs


CANDS, REFS = data()


# ----------------------------------------------------------------------------- adding text, figures

@pytest.mark.parametrize("n", [1, 2, 3, 5])
@pytest.mark.parametrize("multi_ref, gamma", [("max_pr", 1.2), ("best", 1.0), ("max_pr", 0.0)])
def test_add_batch_add_inst_and_update_equal_the_oracle(n, multi_ref, gamma):
    want = oracle_mean(CANDS, REFS, n, gamma=gamma, multi_ref=multi_ref)
    a, b = RougeN(n=n, gamma=gamma, multi_ref=multi_ref), RougeN(n=n, gamma=gamma, multi_ref=multi_ref)
    s = a.add_batch(CANDS, REFS)
    for c, r in zip(CANDS, REFS):
        b.add_inst(c, r)
    for m in (a, b):
        got = m.scores()
        assert (got.precision, got.recall, got.fmeasure) == pytest.approx(want, abs=1e-12)
        assert m.score() == m.accumulate() == got.fmeasure
        assert int(m.count) == len(CANDS)
    per = b.per_instance()
    for i, (c, r) in enumerate(zip(CANDS, REFS)):
        assert (per.precision[i], per.recall[i], per.fmeasure[i]) == pytest.approx(
            oracle_instance(c, r, n, gamma=gamma, multi_ref=multi_ref), abs=1e-12), i
    np.testing.assert_array_equal(s.fmeasure, per.fmeasure)
    assert m.n == n and m.name() == f"rouge-{n}"


def test_distinct_counts_each_ngram_once():
    m, plain = RougeN(n=1, distinct=True), RougeN(n=1)
    m.add_batch(CANDS, REFS)
    plain.add_batch(CANDS, REFS)
    assert m.score() == pytest.approx(oracle_mean(CANDS, REFS, 1, distinct=True)[2], abs=1e-12)
    assert m.score() != plain.score() and m.distinct and not plain.distinct
    assert "grams:distinct" in m.signature() and "grams" not in plain.signature()


def test_words_and_token_lists():
    m = RougeN(n=2, gamma=1.0, tokenize="whitespace")
    m.add_inst("the cat sat on the mat", ["the cat is on the mat"])
    t = RougeN(n=2, gamma=1.0)
    t.add_inst("the cat sat on the mat".split(), ["the cat is on the mat".split()])
    assert m.score() == t.score() == pytest.approx(0.6, abs=1e-15)  # the cat, on the, the mat of 5


def test_empty_metric_and_empty_sides():
    m = RougeN(n=3)
    assert m.score() == 0.0 and tuple(m.scores()) == (0.0, 0.0, 0.0)
    m.add_batch(["ab", "", "abc"], [["abc"], ["abc"], [""]])  # fewer tokens than n, empty sides
    np.testing.assert_array_equal(m.per_instance().fmeasure, [0.0, 0.0, 0.0])
    assert int(m.count) == 3


def test_bad_instance_names_its_index_and_changes_nothing():
    m = RougeN(n=2)
    m.add_batch(CANDS[:5], REFS[:5])
    before = json.dumps(m.state_dict())
    with pytest.raises((TypeError, ValueError), match="instance 6, candidate"):  # counted since reset
        m.add_batch(["ab", 3], [["ab"], ["ab"]])
    with pytest.raises((TypeError, ValueError)):
        m.add_inst("ab", [])
    assert json.dumps(m.state_dict()) == before


@pytest.mark.parametrize("bad, exc", [(0, ValueError), (-1, ValueError), (65, ValueError), (1.5, ValueError),
                                      (True, ValueError), ("2", ValueError)])
def test_bad_n_is_refused(bad, exc):
    with pytest.raises(exc, match="n must be an int"):
        RougeN(n=bad)


def test_settings_are_read_only_and_unknown_keywords_named():
    m = RougeN(n=2)
    with pytest.raises(AttributeError):
        m.n = 3
    with pytest.raises(TypeError, match="distinkt.*distinct"):
        RougeN(distinkt=True)
    with pytest.raises(AttributeError, match="n-grams"):
        m.lcs("ab", "ab")


# ----------------------------------------------------------------------------- state, merge

def _fed(cands=CANDS, refs=REFS, **kw):
    m = RougeN(**kw)
    m.add_batch(cands, refs)
    return m


@pytest.mark.parametrize("kw", [dict(n=1), dict(n=2, gamma=1.0, multi_ref="best"), dict(n=4, distinct=True),
                                dict(n=2, keep_instances=True)])
def test_state_round_trip_is_bit_for_bit(kw):
    m = RougeN(**kw)
    m.add_batch(CANDS[:30], REFS[:30])
    for c, r in zip(CANDS[30:], REFS[30:]):
        m.add_inst(c, r)  # some still buffered when the state is taken
    st = json.loads(json.dumps(m.state_dict()))
    assert st["metric"] == "RougeN" and st["config"]["n"] == kw["n"]
    fresh = RougeN(**kw)
    fresh.load_state_dict(st)
    assert fresh.state_dict() == m.state_dict()
    assert fresh.score() == m.score() and tuple(fresh.scores()) == tuple(m.scores())
    fresh.add_batch(CANDS[:7], REFS[:7])
    m.add_batch(CANDS[:7], REFS[:7])
    assert fresh.state_dict() == m.state_dict()


def test_merge_equals_one_run_on_all_data():
    kw = dict(n=2, gamma=1.0, keep_instances=True)
    whole = _fed(**kw)
    a, b = _fed(CANDS[:25], REFS[:25], **kw), _fed(CANDS[25:], REFS[25:], **kw)
    via_state = RougeN(**kw)
    via_state.load_state_dict(json.loads(json.dumps(a.state_dict())))
    via_state.merge(json.loads(json.dumps(b.state_dict())))
    assert a.merge(b) is a
    for m in (a, via_state):
        assert int(m.count) == len(CANDS)
        assert m.score() == pytest.approx(whole.score(), rel=1e-12)
        assert m.confidence_interval(100, seed=3) == whole.confidence_interval(100, seed=3)
    assert a.state_dict() == via_state.state_dict()  # the same merge either way, bit for bit


@pytest.mark.parametrize("other", [dict(n=1), dict(n=2, gamma=1.0), dict(n=2, distinct=True),
                                   dict(n=2, multi_ref="best"), dict(n=2, tokenize="whitespace")])
def test_merge_refuses_other_n_or_settings(other):
    m = _fed(n=2)
    before = m.state_dict()
    o = _fed(**other)
    for arg in (o, o.state_dict(), json.loads(json.dumps(o.state_dict()))):
        with pytest.raises(ValueError, match="different settings"):
            m.merge(arg)
        with pytest.raises(ValueError, match="different settings"):
            RougeN(n=2).load_state_dict(arg if isinstance(arg, dict) else arg.state_dict())
    assert m.state_dict() == before


def test_merge_refuses_a_rouge_l_state():
    m = _fed(n=2)
    rl = RougeL()
    rl.add_batch(CANDS, REFS)
    with pytest.raises(ValueError, match="RougeL"):
        m.merge(rl.state_dict())
    with pytest.raises((TypeError, ValueError)):
        m.merge(rl)
    st = m.state_dict()
    with pytest.raises(ValueError, match="RougeN"):
        RougeL().load_state_dict(st)


@pytest.mark.parametrize("path, value", [
    (("config", "n"), 0), (("config", "n"), 10 ** 6), (("config", "n"), "2"), (("config", "distinct"), "yes"),
    (("states", "count"), -1), (("states", "f_sum"), float("nan")), (("states", "p_sum"), 1e9),
    (("metric",), "RougeL"),
])
def test_tampered_states_are_refused(path, value):
    m = _fed(n=2)
    st = json.loads(json.dumps(m.state_dict()))
    d = st
    for k in path[:-1]:
        d = d[k]
    d[path[-1]] = value
    before = m.state_dict()
    for call in (m.load_state_dict, m.merge):
        with pytest.raises((ValueError, TypeError)):
            call(copy.deepcopy(st))
    assert m.state_dict() == before


def test_cli_state_file_entry_is_taken_by_its_n(tmp_path):
    """A `score --rouge-types rouge1,rouge2 --save-state` file: each metric takes its own entry."""
    from paddle_rougel.cli import main

    h, r, s = tmp_path / "h.txt", tmp_path / "r.txt", tmp_path / "s.json"
    h.write_text("".join(c + "\n" for c in CANDS), encoding="utf-8")
    r.write_text("".join(rs[0] + "\n" for rs in REFS), encoding="utf-8")
    assert main(["score", "--hyp", str(h), "--ref", str(r), "--rouge-types", "rouge1,rouge2",
                 "--save-state", str(s)]) == 0
    state = json.loads(s.read_text())
    for n in (1, 2):
        m = RougeN(n=n, normalize="nows")  # the command line's default with characters
        with pytest.raises(ValueError, match="2 RougeN states"):
            m.load_state_dict(state)  # two RougeN entries: which one is not guessed
        m.load_state_dict(state["metrics"][f"rouge_{n}"])
        want = oracle_mean(CANDS, [[rs[0]] for rs in REFS], n)
        assert m.score() == pytest.approx(want[2], abs=1e-12)


# ----------------------------------------------------------------------------- intervals, compare, sync

def test_interval_and_compare():
    a = _fed(n=2, keep_instances=True)
    b = _fed([c[::-1] for c in CANDS], REFS, n=2, keep_instances=True)
    iv = a.confidence_interval(resamples=200, confidence=0.9, seed=4)
    assert iv.low <= iv.estimate <= iv.high and iv.estimate == pytest.approx(a.score(), abs=1e-15)
    assert iv == a.confidence_interval(resamples=200, confidence=0.9, seed=4)
    c = compare(a.accumulator, b.accumulator, resamples=200, seed=1)
    assert c.difference == pytest.approx(b.score() - a.score(), abs=1e-12)
    with pytest.raises(ValueError, match="different settings"):
        compare(a.accumulator, _fed(n=1, keep_instances=True).accumulator)


def test_sync_dist_without_a_process_group_is_the_local_score():
    m = _fed(n=2, sync_dist=True)
    assert m.accumulate() == _fed(n=2).accumulate()


def test_threads_adding_at_once_lose_nothing():
    m = RougeN(n=2)
    parts = [(CANDS[i::4], REFS[i::4]) for i in range(4)]
    ts = [threading.Thread(target=lambda c=c, r=r: [m.add_inst(x, y) for x, y in zip(c, r)]) for c, r in parts]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert int(m.count) == len(CANDS)
    assert m.score() == pytest.approx(oracle_mean(CANDS, REFS, 2)[2], abs=1e-12)


# ----------------------------------------------------------------------------- network output

def _ids(seed=0, b=16, t=12, vocab=8, pad=0):
    rng = np.random.default_rng(seed)
    pred = rng.integers(1, vocab, (b, t))
    label = rng.integers(1, vocab, (b, t))
    lens = rng.integers(0, t + 1, b)
    mask = (np.arange(t)[None] < lens[:, None]).astype("int64")
    pred[rng.random((b, t)) < 0.15] = pad  # pads inside the candidates: dropped with pad_id
    return pred, label, mask, lens


def _host_rows(pred, label, lens, pad=None, eos=None):
    """The cutting rules by hand: the mask's prefix, then up to the first eos, pads dropped."""
    cands, refs = [], []
    for p, lab, n in zip(pred, label, lens):
        sides = []
        for side in (p[:n].tolist(), lab[:n].tolist()):
            if eos is not None and eos in side:
                side = side[:side.index(eos)]
            sides.append([x for x in side if x != pad] if pad is not None else side)
        cands.append(sides[0])
        refs.append(sides[1])
    return cands, refs


@pytest.mark.parametrize("kw", [dict(n=1), dict(n=2, pad_id=0), dict(n=2, eos_id=3, gamma=1.0),
                                dict(n=3, pad_id=0, eos_id=5, distinct=True)])
def test_compute_on_ids_gives_hits_and_sizes(kw):
    pred, label, mask, lens = _ids()
    logits = np.eye(8)[pred]  # [B, T, V]: argmax is pred
    m = RougeN(**kw)
    packed = m.compute(logits, label[..., None], mask)
    arr = np.asarray(packed[0])
    assert arr.shape == (16, 3) and arr.dtype == np.int64
    cands, refs = _host_rows(pred, label, lens, kw.get("pad_id"), kw.get("eos_id"))
    want = [counts(c, r, kw["n"], kw.get("distinct", False)) for c, r in zip(cands, refs)]
    np.testing.assert_array_equal(arr, np.array(want, dtype=np.int64))
    m.update(packed)
    host = RougeN(**{k: v for k, v in kw.items() if k not in ("pad_id", "eos_id")})
    host.add_batch(cands, [[r] for r in refs])
    assert m.accumulate() == host.accumulate()
    direct = RougeN(**kw)
    direct.update(logits, label[..., None], mask)  # paddlenlp's call pattern: the same conversion
    assert direct.accumulate() == host.accumulate()


def test_compute_on_cpu_tensors_equals_numpy():
    import paddle

    pred, label, mask, _ = _ids(seed=2)
    logits = np.eye(8, dtype="float32")[pred]
    a, b = RougeN(n=2, pad_id=0), RougeN(n=2, pad_id=0)
    got = a.compute(paddle.to_tensor(logits), paddle.to_tensor(label[..., None]), paddle.to_tensor(mask))
    assert isinstance(got[0], paddle.Tensor) and got[0].shape == [16, 3]
    want = b.compute(logits, label[..., None], mask)
    np.testing.assert_array_equal(got[0].numpy(), np.asarray(want[0]))
    a.update(got[0].numpy())
    b.update(want)
    assert a.accumulate() == b.accumulate()


def test_vocab_maps_ids_to_tokens():
    pred, label, mask, lens = _ids(seed=3, vocab=8)
    vocab = {i: f"w{i % 3}" for i in range(8)}  # several ids, one token
    logits = np.eye(8)[pred]
    m = RougeN(n=1, vocab=vocab, pad_id=0)
    m.update(m.compute(logits, label[..., None], mask))
    cands, refs = _host_rows(pred, label, lens, pad=0)
    host = RougeN(n=1)
    host.add_batch([[vocab[t] for t in c] for c in cands], [[[vocab[t] for t in r]] for r in refs])
    assert m.accumulate() == host.accumulate()
    ids = RougeN(n=1, pad_id=0)
    ids.update(ids.compute(logits, label[..., None], mask))
    assert ids.accumulate() != m.accumulate()  # the vocab counts


def test_trans_func_is_called_with_the_outputs():
    seen = []

    def trans(output, label, seq_mask):
        seen.append((np.asarray(output).shape, np.asarray(label).shape))
        return ["abcab", "xy"], [["abc"], ["xyz"]]

    m = RougeN(n=2, trans_func=trans)
    m.update(np.zeros((2, 3, 4)), np.zeros((2, 3, 1), dtype="int64"))
    assert seen == [((2, 3, 4), (2, 3, 1))]
    assert m.score() == pytest.approx(oracle_mean(["abcab", "xy"], [["abc"], ["xyz"]], 2)[2], abs=1e-15)


def test_is_a_paddle_metric_and_importing_does_not_import_paddle():
    import subprocess
    import sys

    code = ("import sys, paddle_rougel; assert 'paddle' not in sys.modules, 'paddle imported'; "
            "m = paddle_rougel.RougeN(n=1); import paddle; "
            "assert isinstance(m, paddle.metric.Metric) and issubclass(paddle_rougel.RougeN, paddle.metric.Metric); "
            "print('ok')")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert p.returncode == 0 and p.stdout.strip() == "ok", p.stderr[-2000:]
    import paddle

    assert isinstance(RougeN(), paddle.metric.Metric)


# ----------------------------------------------------------------------------- hapi Model, dygraph

def test_hapi_model_reports_rouge_n_equal_to_add_batch_on_the_same_ids():
    import paddle

    ex = hapi_example()
    vocab = {i: f"w{i % 20}" for i in range(ex.VOCAB)}
    metrics = [RougeN(n=1, pad_id=ex.PAD, name="r1"), RougeN(n=2, pad_id=ex.PAD, gamma=1.0, name="r2"),
               RougeN(n=2, pad_id=ex.PAD, vocab=vocab, distinct=True, name="r2v")]
    paddle.seed(11)
    model = hapi_model(ex, ex.TinySeq2Seq(), ex.MaskedCE(), metrics)
    model.fit(ex.SyntheticPairs(256, 11), epochs=1, batch_size=64, verbose=0)
    dev = ex.SyntheticPairs(96, 12)
    got = model.evaluate(dev, batch_size=32, verbose=0)
    cands, refs = hapi_predicted_pairs(ex, model, dev)
    for name, n, kw, conv in (("r1", 1, {}, None), ("r2", 2, dict(gamma=1.0), None),
                              ("r2v", 2, dict(distinct=True), vocab)):
        c = cands if conv is None else [[conv[t] for t in x] for x in cands]
        r = refs if conv is None else [[[conv[t] for t in x[0]]] for x in refs]
        host = RougeN(n=n, **kw)
        host.add_batch(c, r)
        assert 0.0 < got[name] < 1.0, (name, got)
        np.testing.assert_allclose(got[name], host.accumulate(), rtol=1e-12, err_msg=name)
        np.testing.assert_allclose(got[name], oracle_mean(c, r, n, gamma=kw.get("gamma", 1.2),
                                                          distinct=kw.get("distinct", False))[2], rtol=1e-12)
    assert got["r1"] != got["r2"]


# ----------------------------------------------------------------------------- compute()

def test_compute_each_type_equals_its_metric():
    out = compute(CANDS, REFS, rouge_types=["rouge1", "rouge3", "rougeL"], gamma=1.0, multi_ref="best",
                  per_instance=True)
    for n in (1, 3):
        m = _fed(n=n, gamma=1.0, multi_ref="best")
        s = m.scores()
        assert (out[f"rouge{n}_precision"], out[f"rouge{n}_recall"], out[f"rouge{n}"]) == (
            s.precision, s.recall, s.fmeasure)
        np.testing.assert_array_equal(out["per_instance"][f"rouge{n}"], m.per_instance().fmeasure)
    assert out["count"] == len(CANDS)


@pytest.mark.parametrize("types, kw, word", [
    (["rougeL"], dict(distinct=True), "distinct"),
])
def test_compute_refuses_a_setting_no_requested_type_takes(types, kw, word):
    """As the command line (--distinct without a rougeN type is an error): not silently ignored.
    ROUGE-Lsum's split= is the exception (issue 32, item 19: generic callers pass it whatever the
    types; tests/test_flows_library.py): checked, then unused."""
    with pytest.raises(ValueError, match=word):
        compute(["a b"], ["a b"], rouge_types=types, tokenize="whitespace", **kw)
    out = compute(["a b"], ["a b"], rouge_types=["rougeL", "rouge2"], tokenize="whitespace", split="zh")
    assert out["rougeL"] == out["rouge2"] == 1.0


def test_network_output_errors_name_rouge_n():
    """The hint about several network outputs names the class the user made."""
    m = RougeN(n=2)
    ids = np.array([[1, 2, 3]])
    with pytest.raises(TypeError, match=r"pass RougeN\(num_outputs="):
        m.compute(ids, ids.astype(float))
    with pytest.raises(TypeError, match=r"RougeN\(num_outputs=N, output_index=i\)"):
        m.compute(ids)
    before = m.state_dict()
    with pytest.raises(ValueError, match="inconsistent"):
        m.update(np.array([[5, 2, 2]]))  # more hits than n-grams
    assert m.state_dict() == before
