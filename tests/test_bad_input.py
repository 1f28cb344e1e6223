"""Bad input: clear errors naming the instance (and reference), and no state change."""
from __future__ import annotations

import pytest

from paddle_rougel import RougeL, rouge_l

GOOD_C = ["abc", "xyz", ["a", "b"]]
GOOD_R = [["abd"], ["xy", "z"], [["a"], ["b", "a"]]]

# (description, bad instance placed at index 2, exception, words the message must contain)
BAD = [
    ("empty ref_list", ("abc", []), ValueError, ["instance 2", "empty"]),
    ("bare str ref_list", ("abc", "abc"), TypeError, ["instance 2", "str"]),
    ("None ref_list", ("abc", None), TypeError, ["instance 2", "None"]),
    ("None candidate", (None, ["abc"]), TypeError, ["instance 2"]),
    ("None reference", ("abc", ["ab", None]), TypeError, ["instance 2", "reference 1"]),
    ("unhashable cand token", ([["a"], "b"], ["ab"]), TypeError, ["instance 2", "candidate"]),
    ("unhashable ref token", (["a", "b"], [["a"], ["b", {"x": 1}]]), TypeError, ["instance 2", "reference 1"]),
    ("non-sequence candidate", (12, ["ab"]), TypeError, ["instance 2"]),
]


def _snapshot(m):
    return m.score(), int(m.count), m.per_instance().fmeasure.tolist()


def _metric_with_data():
    m = RougeL()
    m.add_batch(GOOD_C[:2], GOOD_R[:2])
    return m


@pytest.mark.parametrize("desc,inst,exc,words", BAD, ids=[b[0] for b in BAD])
def test_add_inst_rejects_and_keeps_state(desc, inst, exc, words):
    m = _metric_with_data()  # two instances seen, so the bad one is instance 2
    before = _snapshot(m)
    with pytest.raises(exc) as ei:
        m.add_inst(*inst)
    for w in words:
        assert w in str(ei.value), (w, str(ei.value))
    assert _snapshot(m) == before
    m.add_inst("abc", ["abc"])  # still usable, and the bad call left nothing behind
    assert _snapshot(m)[1] == 3


@pytest.mark.parametrize("desc,inst,exc,words", BAD, ids=[b[0] for b in BAD])
def test_add_batch_rejects_and_keeps_state(desc, inst, exc, words):
    m = _metric_with_data()
    m.add_inst("q", ["q"])  # a buffered instance too
    before = _snapshot(m)
    cands, refs = list(GOOD_C[:2]), list(GOOD_R[:2])
    cands.append(inst[0])
    refs.append(inst[1])
    with pytest.raises(exc) as ei:
        m.add_batch(cands, refs)
    for w in words:  # indexes count every instance added: 3 before this batch
        w = w.replace("instance 2", "instance 5")
        assert w in str(ei.value), (w, str(ei.value))
    assert _snapshot(m) == before


@pytest.mark.parametrize("desc,inst,exc,words", BAD, ids=[b[0] for b in BAD])
def test_add_batch_rejects_on_python_backend(python_backend, desc, inst, exc, words):
    m = _metric_with_data()
    before = _snapshot(m)
    with pytest.raises(exc) as ei:
        m.add_batch(GOOD_C[:2] + [inst[0]], GOOD_R[:2] + [inst[1]])
    for w in words:  # 2 instances before this batch
        w = w.replace("instance 2", "instance 4")
        assert w in str(ei.value), (w, str(ei.value))
    assert _snapshot(m) == before


def test_add_batch_length_mismatch():
    m = _metric_with_data()
    before = _snapshot(m)
    with pytest.raises(ValueError, match="3 candidates but 2"):
        m.add_batch(GOOD_C, GOOD_R[:2])
    assert _snapshot(m) == before


@pytest.mark.parametrize("gamma", [-1, -1e-9, float("nan"), float("inf"), -float("inf")])
def test_bad_gamma(gamma):
    with pytest.raises(ValueError):
        RougeL(gamma=gamma)


def test_non_numeric_gamma_and_unknown_mode():
    with pytest.raises(TypeError):
        RougeL(gamma="high")
    with pytest.raises(ValueError, match="multi_ref"):
        RougeL(multi_ref="mean")


def test_rouge_l_bad_input():
    with pytest.raises(ValueError, match="2 hypotheses but 1"):
        rouge_l([["a"], ["b"]], [["a"]])
    with pytest.raises(TypeError, match="instance 1"):
        rouge_l([["a"], ["b"]], [["a"], None])
    with pytest.raises(TypeError, match="instance 1"):
        rouge_l([["a"], None], [["a"], ["b"]])
    with pytest.raises(TypeError, match="instance 0"):
        rouge_l([[["x"]]], [["a"]])
    with pytest.raises(TypeError):
        rouge_l("abc", "abd")  # bare strings, not lists of sequences


def test_add_inst_index_counts_buffered_and_folded_instances():
    m = RougeL()
    m.add_batch(["a"] * 3, [["a"]] * 3)
    for _ in range(4):
        m.add_inst("a", ["a"])
    with pytest.raises(ValueError, match="instance 7"):
        m.add_inst("a", [])


# --- one-shot iterables: accepted, but they must not be consumed by validation

def test_add_inst_accepts_generator_ref_list():
    """A generator as ref_list is validated eagerly (add_inst turns it into a list
    to check it) and must still be scored: the validation must not consume the
    caller's only copy."""
    m = RougeL(gamma=1.0)
    m.add_inst("abc", (r for r in ["abc"]))
    assert m.score() == 1.0


def test_add_inst_accepts_iterator_candidate():
    """An iterator as candidate is hashed token by token in validation; the
    instance must still be scored on its tokens, not on an exhausted iterator."""
    m = RougeL(gamma=1.0)
    m.add_inst(iter(["a", "b"]), [["a", "b"]])
    assert m.score() == 1.0
