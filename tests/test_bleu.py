"""BLEUForDuReader: parity with paddlenlp.metrics.BLEUForDuReader (imported for real)."""
import json
import random

import pytest
from paddlenlp.metrics import BLEUForDuReader as PaddleNLPBLEUForDuReader

from paddle_rougel import BLEUForDuReader
from paddle_rougel.engine.fallbacks import python_matches as _python_matches
from paddle_rougel.engine.host import clipped_matches

LABELS = ["Yes", "No", "Depends"]


def _text(rng, alphabet, lo=0, hi=16):
    return "".join(rng.choice(alphabet) for _ in range(rng.randint(lo, hi)))


def _instances(seed, n, alphabet="天气很好北京是的"):
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        cand = "" if rng.random() < 0.1 else _text(rng, alphabet)
        refs = [_text(rng, alphabet) for _ in range(rng.randint(1, 5))]
        if cand and rng.random() < 0.5:  # references sharing n-grams with the candidate
            i = rng.randrange(len(cand))
            refs[0] = cand[i:] + refs[0]
        kind = rng.randint(0, 2)
        kw = {}
        if kind == 0:
            kw = dict(yn_label=rng.choice(LABELS), yn_ref=[rng.choice(LABELS) for _ in refs])
        elif kind == 1:
            ents = [_text(rng, alphabet, 1, 5) for _ in range(rng.randint(0, 3))]
            if cand:
                ents.append(cand[: rng.randint(1, 4)])
            kw = dict(entity_ref=ents)
        out.append((cand, refs, kw))
    return out


def _paddlenlp_score(insts, **init):
    ref = PaddleNLPBLEUForDuReader(**init)
    for cand, refs, kw in insts:
        ref.add_inst(cand, refs, **kw)
    return ref, ref.score()


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_parity_with_paddlenlp(seed):
    insts = _instances(seed, 120)
    _, want = _paddlenlp_score(insts)
    ours = BLEUForDuReader()
    for cand, refs, kw in insts:
        ours.add_inst(cand, refs, **kw)
    assert abs(ours.score() - want) <= 1e-12
    batch = BLEUForDuReader()
    batch.add_batch([c for c, _, _ in insts], [r for _, r, _ in insts],
                    [kw.get("yn_label") for _, _, kw in insts], [kw.get("yn_ref") for _, _, kw in insts],
                    [kw.get("entity_ref") for _, _, kw in insts])
    assert abs(batch.score() - want) <= 1e-12


def test_parity_counts_and_weights():
    insts = _instances(4, 100, alphabet="ab")  # tiny alphabet: many repeated n-grams
    ref, want = _paddlenlp_score(insts, alpha=0.5, beta=2.0)
    ours = BLEUForDuReader(alpha=0.5, beta=2.0)
    for cand, refs, kw in insts:
        ours.add_inst(cand, refs, **kw)
    assert abs(ours.score() - want) <= 1e-12
    for k in range(4):
        assert abs(ours.match_ngram[k] - ref.match_ngram[k]) <= 1e-9
        assert abs(ours.candi_ngram[k] - ref.candi_ngram[k]) <= 1e-9
    assert ours.bp_c == ref.bp_c and ours.bp_r == ref.bp_r


def test_n_size_is_honoured():
    # paddlenlp passes n_size positionally into trans_func (always BLEU-4):
    # patch the attributes to get the reference numbers.
    insts = _instances(9, 60)
    ref = PaddleNLPBLEUForDuReader(n_size=2)
    assert ref.n_size == 4
    ref.n_size, ref.weights = 2, [0.5, 0.5]
    for cand, refs, kw in insts:
        ref.add_inst(cand, refs, **kw)
    ours = BLEUForDuReader(n_size=2)
    for cand, refs, kw in insts:
        ours.add_inst(cand, refs, **kw)
    assert abs(ours.score() - ref.score()) <= 1e-12


def test_token_lists_without_bonus():
    rng = random.Random(2)
    insts = [([rng.choice(["x", "y", "zz"]) for _ in range(rng.randint(0, 9))],
              [[rng.choice(["x", "y", "zz"]) for _ in range(rng.randint(1, 9))] for _ in range(3)], {})
             for _ in range(50)]
    insts[0] = (["x"], [["x"]], {})
    _, want = _paddlenlp_score(insts)
    ours = BLEUForDuReader()
    for cand, refs, _ in insts:
        ours.add_inst(cand, refs)
    assert abs(ours.score() - want) <= 1e-12


def test_kernel_counts_equal_dict_counts():
    from paddle_rougel.engine import host as engine

    assert engine.backend() == "c"  # the C kernel against the plain dict counts
    rng = random.Random(8)
    # large alphabets, long orders, NUL characters, empty sources
    big = "".join(chr(0x4E00 + i) for i in range(5000))
    for alphabet, n in (("ab\x00", 4), (big, 4), ("abc", 4), (big, 10), ("ab", 10)):
        cands = [_text(rng, alphabet, 0, 30) for _ in range(60)]
        srcs = [[_text(rng, alphabet, 0, 30) for _ in range(rng.randint(0, 3))] for _ in range(60)]
        got = clipped_matches(cands, srcs, n)
        want = [_python_matches(c, s, n) for c, s in zip(cands, srcs)]
        assert got.tolist() == [[float(v) for v in w] for w in want]
        pre = [rng.randint(0, len(s)) for s in srcs]  # the max over the first pre[i] sources
        both = clipped_matches(cands, srcs, n, prefix=pre)
        assert both[0].tolist() == got.tolist()
        want = [_python_matches(c, s[:k], n) for c, s, k in zip(cands, srcs, pre)]
        assert both[1].tolist() == [[float(v) for v in w] for w in want]


def test_empty_and_merge():
    assert BLEUForDuReader().score() == 0.0  # paddlenlp: ZeroDivisionError
    m = BLEUForDuReader()
    m.add_inst("", ["abc"])
    assert m.score() == 0.0
    insts = _instances(3, 80)
    whole, a, b = BLEUForDuReader(), BLEUForDuReader(), BLEUForDuReader()
    for i, (cand, refs, kw) in enumerate(insts):
        whole.add_inst(cand, refs, **kw)
        (a if i % 3 else b).add_inst(cand, refs, **kw)
    c = BLEUForDuReader()
    c.load_state_dict(json.loads(json.dumps(a.state_dict())))
    c.merge(b)
    assert c.score() == whole.score()
    with pytest.raises(ValueError, match="different settings"):
        c.merge(BLEUForDuReader(beta=0.5))


def test_bad_input_names_instance_and_leaves_state():
    m = BLEUForDuReader()
    m.add_inst("ab", ["ab"])
    with pytest.raises(ValueError, match="instance 1: yn_ref has 2 labels"):
        m.add_inst("ab", ["ab"], yn_label="Yes", yn_ref=["Yes", "No"])
    with pytest.raises(ValueError, match="instance 2"):
        m.add_batch(["ab", "cd"], [["ab"], []])
    st = m.state_dict()["states"]
    one = BLEUForDuReader()
    one.add_inst("ab", ["ab"])
    assert st["count"] == 1 and st["bp_c"] == 2.0 and m.score() == one.score()


def test_python_fallback_gives_the_same_bleu():
    from paddle_rougel.engine import host as engine

    insts = _instances(5, 60)
    scores = {}
    for backend in ("c", "python"):
        engine.set_backend(backend)
        try:
            m = BLEUForDuReader()
            for cand, refs, kw in insts:
                m.add_inst(cand, refs, **kw)
            scores[backend] = (m.score(), m.match_ngram.tolist(), m.candi_ngram.tolist())
        finally:
            engine.set_backend("c")
    assert scores["c"] == scores["python"]
