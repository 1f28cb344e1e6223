"""RougeLForDuReader: parity with paddlenlp.metrics.RougeLForDuReader (imported for real)."""
import json
import random

import numpy as np
import pytest
from paddlenlp.metrics import RougeLForDuReader as PaddleNLPRougeLForDuReader

from paddle_rougel import RougeLForDuReader

ALPHABET = "天气很好北京上海是的不"
LABELS = ["Yes", "No", "Depends"]


def _text(rng, lo=0, hi=14):
    return "".join(rng.choice(ALPHABET) for _ in range(rng.randint(lo, hi)))


def _instances(seed, n):
    """Random instances covering yes/no, entity (some occurring), plain, empty candidates."""
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        cand = "" if rng.random() < 0.1 else _text(rng)
        refs = [_text(rng) for _ in range(rng.randint(1, 4))]
        kw = {}
        kind = rng.randint(0, 3)
        if kind == 0:
            kw = dict(yn_label=rng.choice(LABELS), yn_ref=[rng.choice(LABELS) for _ in refs])
        elif kind == 1:  # entities: some substrings of the candidate, some not
            ents = [_text(rng, 1, 4) for _ in range(rng.randint(0, 3))]
            if cand and rng.random() < 0.7:
                i = rng.randrange(len(cand))
                ents.append(cand[i:i + rng.randint(1, 3)])
            kw = dict(entity_ref=ents)
        elif kind == 2:  # yes/no label without yn_ref, entity given: entity bonus applies
            kw = dict(yn_label=rng.choice(LABELS), entity_ref=[cand[:2] or "天"])
        out.append((cand, refs, kw))
    return out


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_parity_with_paddlenlp_add_inst(seed):
    ref, ours = PaddleNLPRougeLForDuReader(), RougeLForDuReader()
    for cand, refs, kw in _instances(seed, 120):
        ref.add_inst(cand, refs, **kw)
        ours.add_inst(cand, refs, **kw)
    assert abs(ref.score() - ours.score()) <= 1e-12
    np.testing.assert_allclose(ours.per_instance().fmeasure, ref.inst_scores, rtol=0, atol=1e-12)


def test_parity_add_batch_and_weights():
    insts = _instances(7, 150)
    for alpha, beta in [(1.0, 1.0), (0.5, 2.0), (0.0, 0.3)]:
        ref = PaddleNLPRougeLForDuReader(alpha=alpha, beta=beta)
        ours = RougeLForDuReader(alpha=alpha, beta=beta)
        for cand, refs, kw in insts:
            ref.add_inst(cand, refs, **kw)
        s = ours.add_batch([c for c, _, _ in insts], [r for _, r, _ in insts],
                           [kw.get("yn_label") for _, _, kw in insts],
                           [kw.get("yn_ref") for _, _, kw in insts],
                           [kw.get("entity_ref") for _, _, kw in insts])
        np.testing.assert_allclose(s.fmeasure, ref.inst_scores, rtol=0, atol=1e-12)
        assert abs(ref.score() - ours.score()) <= 1e-12


@pytest.mark.parametrize("gamma", [0.5, 1.0, 2.0])
def test_gamma_is_honoured(gamma):
    # paddlenlp passes gamma positionally into trans_func (its gamma stays 1.2):
    # patch the attribute to get the reference numbers.
    assert PaddleNLPRougeLForDuReader(gamma=gamma).gamma == 1.2
    ref = PaddleNLPRougeLForDuReader()
    ref.gamma = gamma
    ours = RougeLForDuReader(gamma=gamma)
    for cand, refs, kw in _instances(11, 80):
        ref.add_inst(cand, refs, **kw)
        ours.add_inst(cand, refs, **kw)
    assert abs(ref.score() - ours.score()) <= 1e-12


def test_token_lists_match_paddlenlp():
    rng = random.Random(3)
    ref, ours = PaddleNLPRougeLForDuReader(), RougeLForDuReader()
    for _ in range(40):
        cand = [rng.choice(["a", "b", "c", "d"]) for _ in range(rng.randint(1, 8))]
        refs = [[rng.choice(["a", "b", "c", "d"]) for _ in range(rng.randint(1, 8))] for _ in range(2)]
        kw = dict(entity_ref=["a", "x"]) if rng.random() < 0.5 else dict(yn_label="Yes", yn_ref=["Yes", "No"])
        ref.add_inst(cand, refs, **kw)
        ours.add_inst(cand, refs, **kw)
    assert abs(ref.score() - ours.score()) <= 1e-12


def test_yn_ref_length_is_checked_and_state_unchanged():
    m = RougeLForDuReader()
    m.add_inst("是的", ["是的"], yn_label="Yes", yn_ref=["Yes"])
    with pytest.raises(ValueError, match=r"instance 1: yn_ref has 1 labels but ref_list has 2"):
        m.add_inst("是的", ["是的", "不是"], yn_label="Yes", yn_ref=["Yes"])
    with pytest.raises(TypeError, match="instance 1"):
        m.add_inst("是的", ["是的"], entity_ref="北京")
    assert m.score() == 1.0 and int(m.count) == 1


def test_merge_and_state_dict_round_trip():
    insts = _instances(5, 60)
    whole, a, b = RougeLForDuReader(), RougeLForDuReader(), RougeLForDuReader()
    for i, (cand, refs, kw) in enumerate(insts):
        whole.add_inst(cand, refs, **kw)
        (a if i % 2 else b).add_inst(cand, refs, **kw)
    c = RougeLForDuReader()
    c.load_state_dict(json.loads(json.dumps(a.state_dict())))
    c.merge(b.state_dict())
    assert abs(c.score() - whole.score()) <= 1e-12
    with pytest.raises(ValueError, match="different settings"):
        RougeLForDuReader(alpha=0.5).merge(a)
