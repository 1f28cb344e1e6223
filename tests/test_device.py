"""Device path: Paddle-op LCS exactness, input forms, call patterns, paddlenlp compat, bad inputs."""
import numpy as np
import paddle
import pytest

from paddle_rougel import RougeL, lcs_device, lcs_masked, vocab_table
from paddle_rougel.engine import host as engine
from paddle_rougel.engine.convert import prepare

T_CHOICES = [0, 1, 2, 5, 31, 32, 33, 61, 62, 63, 64, 65, 124, 125, 127, 187, 250]


def _host(c, cl, r, rl):
    return engine.lcs_batch([c[i, :cl[i]] for i in range(len(c))], [[r[i, :rl[i]]] for i in range(len(r))]).lcs


def _check_random_batches(rng, iters, t_choices, max_b, label, **kw):
    """Seeded random batches through lcs_device vs the host engine: alphabets of
    1 to 10**6 tokens, lengths at word boundaries, full rows, all-padding rows,
    and every carry mode; returns the number of pairs checked."""
    n_pairs = 0
    for it in range(iters):
        b = int(rng.integers(1, max_b))
        tc, tr = (int(rng.choice(t_choices)) for _ in range(2))
        alpha = int(rng.choice([1, 2, 3, 8, 50, 10**6]))
        c = rng.integers(0, alpha, (b, tc))
        r = rng.integers(0, alpha, (b, tr))
        cl = rng.integers(0, tc + 1, b)
        rl = rng.integers(0, tr + 1, b)
        kind = it % 4
        if kind == 1:  # full rows
            cl[:], rl[:] = tc, tr
        elif kind == 2:  # some all-padding rows
            cl[rng.random(b) < 0.3] = 0
            rl[rng.random(b) < 0.3] = 0
        elif kind == 3:  # one full row, the rest random
            cl[0], rl[0] = tc, tr
        carry = [None, "ripple", "lookahead"][it % 3]
        got = lcs_device(*(paddle.to_tensor(x) for x in (c, cl, r, rl)), carry=carry, **kw).numpy()
        np.testing.assert_array_equal(got, _host(c, cl, r, rl), err_msg=f"{label} it {it} carry {carry}")
        n_pairs += b
    return n_pairs


@pytest.mark.parametrize("seed", range(10))
def test_lcs_device_equals_host_engine(seed):
    n = _check_random_batches(np.random.default_rng(seed), 150, T_CHOICES, 40, f"seed {seed}")
    assert n > 1500


def test_lcs_masked_middle_gaps_are_removed_tokens():
    rng = np.random.default_rng(7)
    for _ in range(40):
        b, t = 16, int(rng.choice([10, 33, 70]))
        c, r = rng.integers(0, 4, (b, t)), rng.integers(0, 4, (b, t))
        cv, rv = rng.random((b, t)) < 0.7, rng.random((b, t)) < 0.6
        got = lcs_masked(*(paddle.to_tensor(x) for x in (c, cv, r, rv))).numpy()
        exp = engine.lcs_batch([c[i][cv[i]] for i in range(b)], [[r[i][rv[i]]] for i in range(b)]).lcs
        np.testing.assert_array_equal(got, exp)


def _spy_bits(monkeypatch):
    """Record (rows, masks) of every _lcs_bits call."""
    from paddle_rougel.engine import device
    calls, real = [], device._lcs_bits
    def spy(ck, rk, words, width, carry, masks):
        calls.append((ck.shape[0], masks))
        return real(ck, rk, words, width, carry, masks)
    monkeypatch.setattr(device, "_lcs_bits", spy)
    return calls


def test_lcs_row_groups_under_a_small_budget(monkeypatch):
    from paddle_rougel.engine import device
    # one row's table is at most 70 x 2 words: under the budget, so the table
    # path is kept, in groups of >= 2 rows
    monkeypatch.setattr(device, "_BUDGET_WORDS", 300)
    calls = _spy_bits(monkeypatch)
    rng = np.random.default_rng(3)
    c, r = rng.integers(0, 5, (9, 70)), rng.integers(0, 5, (9, 40))
    cl, rl = rng.integers(0, 71, 9), rng.integers(0, 41, 9)
    got = lcs_device(*(paddle.to_tensor(x) for x in (c, cl, r, rl))).numpy()
    np.testing.assert_array_equal(got, _host(c, cl, r, rl))
    assert len(calls) > 1 and {m for _, m in calls} == {"table"} and sum(n for n, _ in calls) == 9


COMPARE_T = [0, 1, 2, 61, 62, 63, 64, 65, 123, 124, 125, 130]


def test_compare_path_equals_host_engine():
    n = _check_random_batches(np.random.default_rng(20), 240, COMPARE_T, 12, "compare", masks="compare")
    assert n > 1000


def test_compare_path_masked_middle_gaps():
    rng = np.random.default_rng(8)
    for _ in range(20):
        b, t = 8, int(rng.choice([10, 62, 125]))
        c, r = rng.integers(0, 4, (b, t)), rng.integers(0, 4, (b, t + 7))
        cv, rv = rng.random((b, t)) < 0.7, rng.random((b, t + 7)) < 0.6
        got = lcs_masked(*(paddle.to_tensor(x) for x in (c, cv, r, rv)), masks="compare").numpy()
        exp = engine.lcs_batch([c[i][cv[i]] for i in range(b)], [[r[i][rv[i]]] for i in range(b)]).lcs
        np.testing.assert_array_equal(got, exp)


@pytest.mark.parametrize("budget,expected", [(10**6, "table"), (125 * 3 - 1, "compare"), (1, "compare")])
def test_compare_path_chosen_when_one_row_table_exceeds_budget(monkeypatch, budget, expected):
    from paddle_rougel.engine import device
    monkeypatch.setattr(device, "_BUDGET_WORDS", budget)
    calls = _spy_bits(monkeypatch)
    rng = np.random.default_rng(4)
    for alpha in (3, 10**6):
        c, r = rng.integers(0, alpha, (7, 125)), rng.integers(0, alpha, (7, 90))
        cl, rl = rng.integers(0, 126, 7), rng.integers(0, 91, 7)
        cl[0] = 125  # longest side 125 -> 3 words, one row's table = 375 words
        got = lcs_device(*(paddle.to_tensor(x) for x in (c, cl, r, rl))).numpy()
        np.testing.assert_array_equal(got, _host(c, cl, r, rl))
        # swapped sides: the longer side is the reference
        got = lcs_device(*(paddle.to_tensor(x) for x in (r, rl, c, cl))).numpy()
        np.testing.assert_array_equal(got, _host(r, rl, c, cl))
    # compare-and-pack takes the whole batch at once; the table fits in one group here
    assert calls == [(7, expected)] * 4


def test_masks_switch_rejects_unknown_source():
    x = paddle.to_tensor([[1, 2]])
    with pytest.raises(ValueError, match="masks"):
        lcs_device(x, paddle.to_tensor([2]), x, paddle.to_tensor([2]), masks="bogus")


def test_empty_batch_and_empty_rows():
    z = paddle.zeros([0, 4], dtype="int64")
    assert lcs_device(z, paddle.zeros([0], dtype="int64"), z, paddle.zeros([0], dtype="int64")).shape == [0]
    c = paddle.to_tensor([[1, 2], [3, 4]])
    assert lcs_device(c, paddle.to_tensor([0, 0]), c, paddle.to_tensor([2, 2])).numpy().tolist() == [0, 0]


# ------------------------------------------------------------------ conversion and metric

@pytest.fixture(params=["host", "device"])
def path(request, monkeypatch):
    """Run a metric test on both paths: numpy/CPU data normally takes the host path;
    "device" forces the Paddle-op path (what accelerator tensors take) on CPU."""
    if request.param == "device":
        import paddle_rougel.engine.convert as conv
        monkeypatch.setattr(conv, "on_host", lambda x: False)
    return request.param


def _reference_tokens(ids, mask, pad, eos):
    out = []
    for row, m in zip(ids, mask):
        toks = []
        for t, keep in zip(row.tolist(), m.tolist()):
            if not keep or (eos is not None and t == eos):
                break
            if pad is None or t != pad:
                toks.append(t)
        out.append(toks)
    return out


def _batch(rng, b=12, t=20, v=9):
    logits = rng.standard_normal((b, t, v)).astype("float32")
    label = rng.integers(0, v, (b, t))
    lens = rng.integers(0, t + 1, b)
    mask = (np.arange(t)[None, :] < lens[:, None]).astype("int64")
    return logits, label, mask


@pytest.mark.parametrize("pad,eos", [(None, None), (0, None), (None, 3), (0, 3)])
@pytest.mark.parametrize("form", ["logits", "ids"])
@pytest.mark.parametrize("label3d", [False, True])
@pytest.mark.usefixtures("path")
def test_all_forms_equal_host_path(pad, eos, form, label3d):
    rng = np.random.default_rng(11)
    logits, label, mask = _batch(rng)
    ids = np.argmax(logits, -1)
    out = logits if form == "logits" else ids
    lab = label[:, :, None] if label3d else label
    cands = _reference_tokens(ids, mask, pad, eos)
    refs = [[x] for x in _reference_tokens(label, mask, pad, eos)]
    host = RougeL()
    host.add_batch(cands, refs)
    # paddlenlp pattern (numpy straight into update)
    m1 = RougeL(pad_id=pad, eos_id=eos)
    m1.update(out, lab, mask)
    # hapi pattern (compute on tensors, numpy into update)
    m2 = RougeL(pad_id=pad, eos_id=eos)
    (packed,) = m2.compute(paddle.to_tensor(out), paddle.to_tensor(lab), paddle.to_tensor(mask))
    assert packed.dtype == paddle.int64 and packed.shape == [len(ids), 3]
    m2.update(packed.numpy())
    np.testing.assert_array_equal(m1.per_instance().fmeasure, host.per_instance().fmeasure)
    np.testing.assert_array_equal(m2.per_instance().fmeasure, host.per_instance().fmeasure)
    assert m1.accumulate() == m2.accumulate() == host.accumulate()


@pytest.mark.usefixtures("path")
def test_no_mask_and_mask_with_trailing_dim():
    rng = np.random.default_rng(2)
    logits, label, mask = _batch(rng)
    ids = np.argmax(logits, -1)
    a = RougeL(); a.update(logits, label)
    h = RougeL(); h.add_batch(list(ids), [[x] for x in label])
    assert a.accumulate() == h.accumulate()
    b = RougeL(); b.update(logits, label, mask[:, :, None].astype("float32"))
    c = RougeL(); c.update(logits, label, mask.astype(bool))
    d = RougeL(); d.update(logits, label, mask)
    assert b.accumulate() == c.accumulate() == d.accumulate()


@pytest.mark.usefixtures("path")
def test_mask_cuts_at_first_zero():
    out = np.array([[1, 2, 3, 4]]); lab = np.array([[1, 2, 3, 4]])
    m = RougeL(); m.update(out, lab, np.array([[1, 0, 1, 1]]))
    assert m.per_instance().fmeasure.tolist() == [1.0]
    (packed,) = RougeL().compute(paddle.to_tensor(out), paddle.to_tensor(lab), paddle.to_tensor([[1, 0, 1, 1]]))
    assert packed.numpy().tolist() == [[1, 1, 1]]


class DuckVocab:
    def __init__(self, toks):
        self._t = list(toks)

    def __len__(self):
        return len(self._t)

    def to_tokens(self, ids):
        return [self._t[i] for i in ids]


class IdxVocab:
    def __init__(self, toks):
        self.idx_to_token = dict(enumerate(toks))


@pytest.mark.parametrize("kind", ["dict", "list", "duck", "idx_to_token"])
@pytest.mark.usefixtures("path")
def test_vocab_duplicates_are_token_level(kind):
    toks = [f"w{i % 4}" for i in range(9)]  # 9 ids, 4 distinct tokens
    vocab = {"dict": dict(enumerate(toks)), "list": toks, "duck": DuckVocab(toks),
             "idx_to_token": IdxVocab(toks)}[kind]
    rng = np.random.default_rng(5)
    logits, label, mask = _batch(rng)
    ids = np.argmax(logits, -1)
    m = RougeL(vocab=vocab, pad_id=0)
    m.update(logits, label, mask)
    host = RougeL()
    host.add_batch([[toks[t] for t in row] for row in _reference_tokens(ids, mask, 0, None)],
                   [[[toks[t] for t in row]] for row in _reference_tokens(label, mask, 0, None)])
    np.testing.assert_array_equal(m.per_instance().fmeasure, host.per_instance().fmeasure)
    assert vocab_table(vocab).tolist() == [0, 1, 2, 3, 0, 1, 2, 3, 0]


@pytest.mark.usefixtures("path")
def test_vocab_missing_id_is_an_error_naming_id_and_row():
    m = RougeL(vocab={0: "a", 1: "b", 3: "c"})
    with pytest.raises(KeyError, match=r"token id 2 \(batch row 1"):
        m.update(np.array([[0, 1], [1, 3]]), np.array([[0, 1], [1, 2]]))
    with pytest.raises(KeyError, match=r"token id 7 \(batch row 0"):
        m.update(np.array([[7, 1]]), np.array([[0, 1]]))
    assert int(m.count) == 0
    # ids cut by the mask are never looked up (as paddlenlp)
    m.update(np.array([[0, 9]]), np.array([[0, 9]]), np.array([[1, 0]]))
    assert m.accumulate() == 1.0


@pytest.mark.usefixtures("path")
def test_paddlenlp_compat_equals_paddlenlp():
    from paddlenlp.metrics import RougeL as PaddleNLPRougeL  # import failure = test failure

    rng = np.random.default_rng(9)
    toks = [f"t{i % 13}" for i in range(40)]
    vocab = dict(enumerate(toks))
    for _ in range(4):
        b, t = int(rng.integers(1, 20)), int(rng.integers(1, 30))
        logits = rng.standard_normal((b, t, 40)).astype("float32")
        label = rng.integers(0, 40, (b, t, 1))
        mask = (np.arange(t)[None, :] < rng.integers(1, t + 1, b)[:, None]).astype("int64")
        ref = PaddleNLPRougeL(vocab=vocab)
        ref.update(logits, label, mask)
        for compat in (True, False):  # the default orientation gives the same numbers here
            ours = RougeL(vocab=vocab, paddlenlp_compat=compat)
            ours.update(logits, label, mask)
            np.testing.assert_array_equal(ours.per_instance().fmeasure, np.array(ref.inst_scores))
            np.testing.assert_allclose(ours.accumulate(), ref.accumulate(), rtol=1e-13)


@pytest.mark.usefixtures("path")
def test_orientation_output_is_candidate():
    m = RougeL(gamma=1.0, pad_id=0)
    m.update(np.array([[5, 6, 0, 0]]), np.array([[5, 6, 7, 8]]))
    s = m.per_instance()
    assert (s.precision[0], s.recall[0]) == (1.0, 0.5)


def test_trans_func_path_through_compute_and_update():
    def tf(output, label, seq_mask):
        return [list(map(str, r)) for r in np.asarray(output)], [[list(map(str, r))] for r in np.asarray(label)]

    out, lab = np.array([[1, 2, 3]]), np.array([[1, 3, 3]])
    a = RougeL(trans_func=tf); a.update(out, lab)
    b = RougeL(trans_func=tf)
    outs = b.compute(paddle.to_tensor(out), paddle.to_tensor(lab))
    b.update(*[o.numpy() for o in outs])
    assert a.accumulate() == b.accumulate() > 0


@pytest.mark.usefixtures("path")
def test_update_takes_computes_list():
    # m.update(m.compute(...)): compute returns a list (hapi unpacks it); both forms are taken
    rng = np.random.default_rng(5)
    logits, label, mask = _batch(rng)
    want = RougeL(); want.update(logits, label, mask)
    for conv in (lambda x: x, paddle.to_tensor):
        m = RougeL()
        m.update(m.compute(conv(logits), conv(label), conv(mask)))
        np.testing.assert_array_equal(m.per_instance().fmeasure, want.per_instance().fmeasure)
        m.update(tuple(m.compute(conv(logits), conv(label), conv(mask))))
        assert m.count == 2 * len(label)
    # a list of packed rows is still packed rows, not a list to unwrap
    m = RougeL(); m.update([[2, 3, 4]]); m.update([np.array([2, 3, 4])])
    assert m.count == 2 and m.per_instance().precision.tolist() == [2 / 3, 2 / 3]

    def tf(output, label, seq_mask):
        return [list(map(str, r)) for r in np.asarray(output)], [[list(map(str, r))] for r in np.asarray(label)]

    out, lab = np.array([[1, 2, 3]]), np.array([[1, 3, 3]])
    a = RougeL(trans_func=tf); a.update(out, lab)
    b = RougeL(trans_func=tf); b.update(b.compute(paddle.to_tensor(out), paddle.to_tensor(lab)))
    assert a.accumulate() == b.accumulate() > 0


@pytest.mark.parametrize("args,exc,msg", [
    ((np.zeros((2, 3), "int64"), np.zeros((3, 3), "int64")), ValueError, "batch sizes"),
    ((np.zeros((2, 3), "float32"), np.zeros((2, 3), "int64")), TypeError, "float token ids"),
    ((np.zeros((2, 3), "int64"), np.zeros((2, 3), "float32")), TypeError, "label"),
    ((np.zeros((2,), "int64"), np.zeros((2, 3), "int64")), ValueError, "output"),
    ((np.zeros((2, 3, 4, 5), "float32"), np.zeros((2, 3), "int64")), TypeError, "output"),
    ((np.zeros((2, 3), "int64"), np.zeros((2, 3), "int64"), np.ones((2, 4))), ValueError, "seq_mask"),
    ((np.zeros((2, 3), "int64"), np.zeros((2, 3), "int64"), np.ones((3, 3))), ValueError, "batch sizes"),
    ((np.zeros((2, 3)),), ValueError, "compute"),
    ((np.array([[6, 5, 5]]),), ValueError, "inconsistent"),
])
@pytest.mark.usefixtures("path")
def test_bad_inputs_raise_before_any_state_change(args, exc, msg):
    m = RougeL()
    m.update(np.array([[1, 2]]), np.array([[1, 2]]))
    before = m.state_dict()
    with pytest.raises(exc, match=msg):
        m.update(*args)
    assert m.state_dict() == before


def test_constructor_checks():
    with pytest.raises(ValueError, match="paddlenlp_compat"):
        RougeL(paddlenlp_compat=True, pad_id=0)
    with pytest.raises(TypeError, match="pad_id"):
        RougeL(pad_id=1.5)
    with pytest.raises(TypeError, match="compute"):
        RougeL().compute(paddle.zeros([1, 2], "int64"), paddle.zeros([1, 2], "int64"), None, "extra")


def test_prepare_keeps_the_inputs_place():
    x = paddle.to_tensor([[1, 2, 0]])
    for t in prepare(x, x, pad_id=0):
        assert str(t.place) == str(x.place)  # Place compares by identity before Paddle 3.1


def _product_argmax_rows(logits, mask):
    """Oracle: paddlenlp's full product and argmax, then the cut at each row's first zero."""
    ids = np.argmax(logits * mask.astype(logits.dtype)[:, :, None], axis=2)
    keep = np.cumsum(mask == 0, axis=1) == 0
    return [r[k] for r, k in zip(ids, keep)]


def test_masked_argmax_without_the_product_is_exact():
    from paddle_rougel.engine.convert import host_tokens

    rng = np.random.default_rng(3)
    for trial in range(40):
        b, t, v = int(rng.integers(1, 6)), int(rng.integers(1, 12)), int(rng.integers(1, 9))
        dtype = ("float32", "float64", "float16")[trial % 3]
        logits = rng.standard_normal((b, t, v)).astype(dtype)
        logits[0, 0, :] = 0.5  # ties
        kind = trial % 5
        if kind == 0:
            mask = (rng.random((b, t)) < 0.8).astype("int64")  # 0/1 with holes
        elif kind == 1:
            mask = rng.choice([1.0, 0.5, -1.0, 2.0, 1e-50, 0.0], size=(b, t))  # fractional, negative
        elif kind == 2:
            mask = rng.random((b, t)) < 0.9  # bool
        elif kind == 3:
            mask = rng.choice([1, 1, 1, -2, 3], size=(b, t)).astype("int32")
        else:
            mask = np.ones((b, t), dtype="float32")
        cand, _ = host_tokens(logits, np.zeros((b, t), dtype="int64"), mask, mask_logits=True)
        want = _product_argmax_rows(logits, mask)
        assert [c.tolist() for c in cand] == [w.tolist() for w in want], (trial, mask)


def test_masked_argmax_allocates_no_logits_sized_product():
    import tracemalloc

    from paddle_rougel.engine.convert import host_tokens

    rng = np.random.default_rng(0)
    logits = rng.standard_normal((16, 64, 1000)).astype("float32")
    mask = (np.arange(64)[None, :] < rng.integers(1, 65, 16)[:, None]).astype("int64")
    label = rng.integers(0, 1000, (16, 64))
    tracemalloc.start()
    try:
        host_tokens(logits, label, mask, mask_logits=True)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < logits.nbytes // 4, peak  # numpy reports its buffers to tracemalloc
