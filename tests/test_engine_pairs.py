"""Character-level (str, str) pairs without per-pair overhead (``_lcs.lcs_pairs``, the path of
``rouge_l`` on strs) against the textbook DP: every PEP 393 kind on either side, code points
that collide in the kernel's small table, candidates around 64 characters, empty sides."""
from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import oracle
from paddle_rougel import _lcs, engine, rouge_l

SETTINGS = dict(deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow],
                max_examples=300)
# 0x100 + 256 k: the same slot of a 256-slot table keyed by (c * odd) >> 24 for many k
ALPHABETS = ["ab", "a\xe9\xff\x00", "a\u4e2d\u0101\u6587", "a\U0001F600\U00020000",
             "".join(chr(0x100 + 256 * k) for k in range(40)) + "a",
             "ab\xe9\u4e2d\U0001F600"]


@st.composite
def text(draw):
    alphabet = draw(st.sampled_from(ALPHABETS))
    n = draw(st.one_of(st.integers(0, 20), st.sampled_from([63, 64, 65, 130])))
    return "".join(draw(st.lists(st.sampled_from(alphabet), min_size=n, max_size=n)))


@settings(**SETTINGS)
@given(st.lists(st.tuples(text(), text()), min_size=1, max_size=8), st.sampled_from([1, 2]))
def test_lcs_pairs_equals_dp(pairs, threads):
    cands, refs = [p[0] for p in pairs], [p[1] for p in pairs]
    lcs, cl, rl = (np.frombuffer(b, dtype=np.int64).tolist() for b in _lcs.lcs_pairs(cands, refs, threads))
    assert cl == [len(c) for c in cands] and rl == [len(r) for r in refs]
    assert lcs == [oracle.lcs_dp(c, r) for c, r in pairs]


def test_many_pairs_reuse_the_tables():
    """Tables are cleared by each candidate's own characters: a pair never sees the last one's."""
    cands = ["\u4e2d\u6587" * 10, "x", "\u4e2d", "", "\u6587\u4e2d" * 40] * 50
    refs = ["\u6587", "\u4e2d\u6587", "\u4e2d", "a", "\u4e2d" * 3] * 50
    got = engine.lcs_pairs(cands, refs, threads=2)
    assert got.lcs.tolist() == [oracle.lcs_dp(c, r) for c, r in zip(cands, refs)]
    assert got.ref_count.tolist() == [1] * len(cands)


def test_not_all_str_takes_the_general_path():
    assert _lcs.lcs_pairs(["a", ["a"]], ["a", "a"]) is None
    assert _lcs.lcs_pairs(["a"], ["a", "b"]) is None
    f = rouge_l(["ab", ["a", "b"]], ["b", ["b"]]).f_measure.tolist()  # mixed: make_batch's path
    assert f == rouge_l(["ab", "ab"], ["b", "b"]).f_measure.tolist()
