"""Property tests: every engine variant against the textbook DP (oracle.lcs_dp), and
the C n-gram counter against the dict counter (_python_matches).

Inputs mix, within one batch: strs of every PEP 393 kind (ASCII, Latin-1, BMP,
astral), lists of ints / strs / mixed hashables (1 == 1.0 == True, tuples, None,
a shared NaN object), numpy arrays of every integer dtype in both byte orders
(contiguous, strided, reversed), lengths around the 64-bit word boundaries,
empty sides and repeated tokens.  Fixed seeds (derandomize=True).
"""
from __future__ import annotations

import os
from contextlib import contextmanager

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import oracle
from paddle_rougel.engine import host as engine
from paddle_rougel.engine import fallbacks

SETTINGS = dict(deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])

BOUNDARY = [63, 64, 65, 127, 128, 129]
# one alphabet per string kind; each shares "a" with the others so kinds match across texts
ALPHABETS = ["ab", "a\xe9\xff", "a\u4e2d\u0101", "a\U0001F600\U00020000", "ab\xe9\u4e2d\U0001F600"]
WORDS = ["the", "cat", "", "\xe9", "\U0001F600", "a"]
NAN = float("nan")  # one object, reused: identity must not make it match
HASHABLES = [0, 1, 1.0, True, "1", "a", None, (1, "a"), 2 ** 70, -1, frozenset({1}), NAN, 2.5]
INT_DTYPES = [o + t for t in ("i2", "u2", "i4", "u4", "i8", "u8") for o in "<>"] + ["i1", "u1"]


@st.composite
def lengths(draw, short=12):
    return draw(st.one_of(st.integers(0, short), st.sampled_from(BOUNDARY)))


@st.composite
def texts(draw, short=12):
    """One text of a random kind and length."""
    n = draw(lengths(short))
    kind = draw(st.sampled_from(["str", "ints", "words", "mixed", "numpy"]))
    if kind == "str":
        alpha = draw(st.sampled_from(ALPHABETS))
        return "".join(draw(st.lists(st.sampled_from(alpha), min_size=n, max_size=n)))
    if kind == "ints":
        return draw(st.lists(st.integers(-2, 3), min_size=n, max_size=n))
    if kind == "words":
        return draw(st.lists(st.sampled_from(WORDS), min_size=n, max_size=n))
    if kind == "mixed":
        return draw(st.lists(st.sampled_from(HASHABLES), min_size=n, max_size=n))
    vals = draw(st.lists(st.integers(0, 4), min_size=n, max_size=n))
    dt = np.dtype(draw(st.sampled_from(INT_DTYPES)))
    layout = draw(st.sampled_from(["plain", "strided", "reversed"]))
    if layout == "strided":
        return np.repeat(np.array(vals, dtype=dt), 2)[::2]
    if layout == "reversed":
        return np.array(vals[::-1], dtype=dt)[::-1]
    return np.array(vals, dtype=dt)


def batches(short=12, max_refs=3, min_refs=1):
    inst = st.tuples(texts(short), st.lists(texts(short), min_size=min_refs, max_size=max_refs))
    return st.lists(inst, min_size=1, max_size=4)


# The C side runs small batches (estimated cost < 2e5, see csrc/partition.c) on one
# thread.  A first "ballast" instance with a known answer pushes a batch past that, so
# with threads=2 the ballast is one chunk and the instances under test are the other.
LCS_BALLAST = ("x" * 4000, ["x" * 4000])  # cost (4000/64 + 1) * 4001 > 2e5, LCS 4000


def _ngram_ballast(n_size):
    length = -(-125_000 // n_size)  # 2 * length * n_size tokens x orders > 2e5
    text = "x" * length
    return text, [text], [float(length - k) for k in range(n_size)]


def _check_lcs(batch):
    cands = [c for c, _ in batch]
    ref_lists = [rs for _, rs in batch]
    want = [oracle.lcs_dp(c, r) for c, rs in batch for r in rs]
    cand_len = [len(c) for c in cands]
    ref_len = [len(r) for _, rs in batch for r in rs]
    engine.set_backend("python")
    try:
        res = engine.lcs_batch(cands, ref_lists)
    finally:
        engine.set_backend("c")
    assert res.lcs.tolist() == want, "python"
    assert (res.cand_len.tolist(), res.ref_len.tolist()) == (cand_len, ref_len)
    res = engine.lcs_batch(cands, ref_lists, threads=1)
    assert res.lcs.tolist() == want, "c, 1 thread"
    assert (res.cand_len.tolist(), res.ref_len.tolist()) == (cand_len, ref_len)
    # ballast first, then the batch three times (at least 4 instances: 2 per thread)
    res = engine.lcs_batch([LCS_BALLAST[0]] + cands * 3, [LCS_BALLAST[1]] + ref_lists * 3, threads=2)
    assert res.lcs.tolist() == [4000] + want * 3, "c, 2 threads"


@settings(max_examples=300, **SETTINGS)
@given(batches())
def test_lcs_matches_the_dp_on_mixed_batches(batch):
    _check_lcs(batch)


@settings(max_examples=100, **SETTINGS)
@given(st.lists(st.tuples(st.sampled_from([0, 1] + BOUNDARY), st.sampled_from([0, 1] + BOUNDARY),
                          st.sampled_from(["ab", "a", "ints"])), min_size=1, max_size=3),
       st.randoms(use_true_random=False))
def test_lcs_at_word_boundaries(shapes, rnd):
    """Both sides at 0/1/63..129 tokens over tiny alphabets: long carry chains."""
    batch = []
    for n, m, kind in shapes:
        def seq(k):
            if kind == "ints":
                return [rnd.randrange(2) for _ in range(k)]
            return "".join(rnd.choice(kind) for _ in range(k))
        a = seq(n)
        batch.append((a, [seq(m), a, a[: m]]))
    _check_lcs(batch)


@contextmanager
def _threads(n):
    old = os.environ.get("PADDLE_ROUGEL_THREADS")
    os.environ["PADDLE_ROUGEL_THREADS"] = str(n)
    try:
        yield
    finally:
        if old is None:
            del os.environ["PADDLE_ROUGEL_THREADS"]
        else:
            os.environ["PADDLE_ROUGEL_THREADS"] = old


@settings(max_examples=250, **SETTINGS)
@given(batches(short=16, max_refs=3, min_refs=0), st.integers(1, 5), st.data())
def test_clipped_matches_equal_dict_counts(batch, n_size, data):
    cands = [c for c, _ in batch]
    srcs = [rs for _, rs in batch]
    prefix = [data.draw(st.integers(-1, len(rs) + 1)) for rs in srcs]
    want = [fallbacks.python_matches(c, s, n_size) for c, s in zip(cands, srcs)]
    want_pre = [fallbacks.python_matches(c, s[:max(0, k)], n_size) for c, s, k in zip(cands, srcs, prefix)]
    want = [[float(v) for v in w] for w in want]
    want_pre = [[float(v) for v in w] for w in want_pre]
    with _threads(1):
        got = engine.clipped_matches(cands, srcs, n_size)
        both = engine.clipped_matches(cands, srcs, n_size, prefix=prefix)
    assert got.tolist() == want and both[0].tolist() == want and both[1].tolist() == want_pre
    b_cand, b_srcs, b_want = _ngram_ballast(n_size)  # see LCS_BALLAST
    with _threads(2):
        both = engine.clipped_matches([b_cand] + cands * 3, [b_srcs] + srcs * 3, n_size,
                                      prefix=[1] + prefix * 3)
    assert both[0].tolist() == [b_want] + want * 3, "2 threads"
    assert both[1].tolist() == [b_want] + want_pre * 3, "2 threads, prefix"
    engine.set_backend("python")
    try:
        assert engine.clipped_matches(cands, srcs, n_size, prefix=prefix).tolist() == [want, want_pre]
    finally:
        engine.set_backend("c")
