"""Character-level (str, str) pairs without per-pair overhead (``_lcs.lcs_pairs``, the path of
``rouge_l`` on strs) against the textbook DP: every PEP 393 kind on either side, code points
that collide in the kernel's small table, candidates around 64 characters, empty sides."""
from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import oracle
from paddle_rougel import _lcs, rouge_l
from paddle_rougel.engine import host as engine

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


# ---------------------------------------------------------------- the lanes (pairs_simd.c)
# Short pairs go 8 at a time; their masks come from vector compares (AVX-512BW, AVX2) or a
# keyed table (portable).  Every level this CPU runs is checked against a DP written here.

LEVELS = list(range(_lcs.pairs_simd_level() + 1))
LANE_LENGTHS = [0, 1, 7, 8, 15, 16, 31, 32, 33, 63, 64, 65, 128]
# kind 1 with NUL (the vector paths pad the candidate with zeros) and bytes >= 128; kind 2
# with code points that share a low byte with ASCII ones (0x161 / 0x61) or a keyed-table slot
# (c mod 4096); CJK; kind 4 (non-BMP: the table path)
LANE_ALPHABETS = ["ab", "a\x00b", "a\xe9\xff\x00", "a\u0161\u0261b", "".join(chr(0x61 + 4096 * k) for k in range(6)),
                  "\u4e2d\u6587\u5b57\u4e00", "a\U0001F600\u4e2d", "ab\u4e2d\U00020000\x00"]


def dp_lcs(a, b) -> int:
    """The textbook O(len(a) * len(b)) table, one row at a time (independent of the package)."""
    prev = [0] * (len(b) + 1)
    for x in a:
        cur = [0]
        for j, y in enumerate(b):
            cur.append(prev[j] + 1 if x == y else max(prev[j + 1], cur[j]))
        prev = cur
    return prev[-1]


@st.composite
def lane_text(draw):
    alphabet = draw(st.sampled_from(LANE_ALPHABETS))
    n = draw(st.one_of(st.sampled_from(LANE_LENGTHS), st.integers(0, 70)))
    return "".join(draw(st.lists(st.sampled_from(alphabet), min_size=n, max_size=n)))


def run_levels(cands, refs, threads):
    want = [dp_lcs(c, r) for c, r in zip(cands, refs)]
    for level in LEVELS:
        lcs, cl, rl = (np.frombuffer(b, dtype=np.int64).tolist()
                       for b in _lcs.lcs_pairs(cands, refs, threads, level))
        assert lcs == want, level
        assert cl == [len(c) for c in cands] and rl == [len(r) for r in refs]


def test_this_machine_runs_vector_lanes():
    """Not a skip: a CPU without AVX2 would run the portable level only, and say so here."""
    assert _lcs.pairs_simd_level() in (0, 1, 2)
    assert LEVELS == list(range(_lcs.pairs_simd_level() + 1))


@settings(**{**SETTINGS, "max_examples": 150})
@given(st.lists(st.tuples(lane_text(), lane_text()), min_size=1, max_size=21), st.sampled_from([1, 4]))
def test_lanes_equal_dp_at_every_level(pairs, threads):
    """Mixed lengths and kinds in one batch, batch sizes that are not multiples of the 8 lanes."""
    run_levels([p[0] for p in pairs], [p[1] for p in pairs], threads)


@pytest.mark.parametrize("threads", [1, 4])
def test_lane_boundaries_every_length_pair(threads):
    rng = random.Random(7)
    cands, refs = [], []
    for alphabet in LANE_ALPHABETS:
        for n in LANE_LENGTHS:
            for m in LANE_LENGTHS + [255, 256, 257, 300]:  # references past a lane's 256 steps
                cands.append("".join(rng.choice(alphabet) for _ in range(n)))
                refs.append("".join(rng.choice(alphabet) for _ in range(m)))
    run_levels(cands, refs, threads)


def test_padding_never_matches():
    """A reference NUL against a short candidate: the zero padding past it must not count."""
    cands = ["a", "\u4e2d", "a\x00", "x" * 33, "\x00" * 64]
    refs = ["\x00" * 5, "\x00\u4e2d", "\x00\x00\x00", "\x00" * 40, "\x00" * 100]
    run_levels(cands, refs, 1)


def test_a_batch_over_the_gil_limit_owns_its_texts():
    """A batch of more work than lcs_pairs holds the GIL for takes references and releases it;
    the same numbers (the long pair's LCS: 'ab' * k against 'ba' * k is 2k - 1)."""
    k = 10_000
    cands = ["ab" * k, "abc", "\u4e2d\u6587" * 20] * 3
    refs = ["ba" * k, "cab", "\u6587" * 50] * 3
    for level in LEVELS:
        got = np.frombuffer(_lcs.lcs_pairs(cands, refs, 2, level)[0], dtype=np.int64).tolist()
        assert got == [2 * k - 1, 2, 20] * 3


def test_simd_level_out_of_range_is_an_error():
    with pytest.raises(ValueError, match="simd=9"):
        _lcs.lcs_pairs(["a"], ["a"], 1, 9)
    with pytest.raises(ValueError, match="simd=-2"):
        _lcs.lcs_pairs(["a"], ["a"], 1, -2)


# ---------------------------------------------------------------- token ids: lcs_batch
# Lists of exact ints and integer buffers get their ids from a C table keyed by value (other
# tokens: the dict, Python's ==); an instance with a candidate of <= 64 tokens takes the lanes
# when every id of the batch is below 0x10000.

@st.composite
def id_instance(draw):
    vocab = draw(st.sampled_from([[1, 2], [0, 3, -1, 7], [5, 65535, 65536, 70000], list(range(100, 140)),
                                  [2**62, -2**62, 1, 2**63 - 1]]))
    def text():
        n = draw(st.one_of(st.sampled_from(LANE_LENGTHS), st.integers(0, 70)))
        return draw(st.lists(st.sampled_from(vocab), min_size=n, max_size=n))
    return text(), [text() for _ in range(draw(st.integers(1, 3)))]


def run_batch_levels(cands, ref_lists, threads, want=None):
    if want is None:
        want = [dp_lcs(c, r) for c, refs in zip(cands, ref_lists) for r in refs]
    for level in LEVELS:
        lcs = np.frombuffer(_lcs.lcs_batch(cands, ref_lists, threads, level)[0], dtype=np.int64).tolist()
        assert lcs == want, level


@settings(**{**SETTINGS, "max_examples": 120})
@given(st.lists(id_instance(), min_size=1, max_size=19), st.sampled_from([1, 4]),
       st.sampled_from(["list", "tuple", "int64", "uint16", "mixed"]))
def test_id_batches_equal_dp_at_every_level(instances, threads, form):
    cands, ref_lists = [i[0] for i in instances], [i[1] for i in instances]
    want = [dp_lcs(c, r) for c, refs in zip(cands, ref_lists) for r in refs]

    def conv(x, k):
        if form == "tuple":
            return tuple(x)
        if form in ("int64", "uint16") or (form == "mixed" and k % 2):
            dt = np.int64 if form != "uint16" else np.uint16
            if dt is np.uint16 and any(not 0 <= v < 2**16 for v in x):
                return x
            return np.array(x, dtype=dt)
        return x
    run_batch_levels([conv(c, i) for i, c in enumerate(cands)],
                     [[conv(r, i + j) for j, r in enumerate(refs)] for i, refs in enumerate(ref_lists)],
                     threads, want)


@pytest.mark.parametrize("threads", [1, 4])
def test_id_lane_boundaries(threads):
    rng = random.Random(11)
    cands, ref_lists = [], []
    for n in LANE_LENGTHS:
        for m in LANE_LENGTHS + [255, 256, 257]:
            cands.append([rng.randrange(5) for _ in range(n)])
            ref_lists.append([[rng.randrange(5) for _ in range(m)], [rng.randrange(5) for _ in range(m // 2)]])
    run_batch_levels(cands, ref_lists, threads)


def test_ints_equal_as_python_ints():
    """The C table keeps Python's ==: a bool, a float or an int too big for 64 bits sends the
    batch to the dict (1 == 1.0 == True), NaN matches nothing, and an int64 -1 differs from a
    uint64 2**64 - 1 with the same bits."""
    nan = float("nan")
    cands = [[1, 2, 3], [1, 2, 3], [2**64 - 1, 5], [nan, 1], np.array([-1, 4], dtype=np.int64), [2**70, 3]]
    refs = [[[True, 2.0, 3]], [[1, 2, 3]], [np.array([2**64 - 1, 5], dtype=np.uint64)], [[nan, 1.0]],
            [np.array([2**64 - 1, 4], dtype=np.uint64)], [[2**70, 3]]]
    run_batch_levels(cands, refs, 1, [3, 3, 2, 1, 1, 2])
    run_batch_levels([[nan] * 3 + [1]], [[[nan, 1, nan]]], 1, [1])
    # a list that starts with ints and then holds something else: read as tokens after all
    run_batch_levels([[1, 2.0, 3], (5, True), [7, 2**64]], [[[1, 2, 3]], [[5, 1]], [[2**64, 7]]], 1, [3, 2, 1])
    # empty texts among int lists
    run_batch_levels([[], [1, 2]], [[[1], []], [[], [2, 1], (2,)]], 1, [0, 0, 0, 1, 1])
    # every token an int: the C table (an int64 buffer and a list of ints agree)
    run_batch_levels([[-1, 0, 7], np.array([7, -1], dtype=np.int64)], [[[7, -1]], [[-1, 0, 7]]], 4, [1, 1])


def test_ids_over_16_bits_skip_the_lanes():
    """Ids of 0x10000 and over (many distinct tokens, or code points past the BMP) would alias
    in the 16-bit compares: such a batch keeps the scalar path."""
    many = list(range(70_000))  # ids in order of first sight: 69999 gets 69999, 4463 = 69999 - 0x10000
    cands = [many[:40], [69999], [4463, 69999], ["x"] * 3]
    refs = [[many], [[4463]], [[69999, 4463]], [["x", 69999]]]
    run_batch_levels(cands, refs, 1, [40, 0, 1, 1])
    for c, r in (("\U0001F600a", "a\U0001F600"), ("\U0001F600", "\uF600")):  # str code points
        run_batch_levels([list(c)], [[list(r)]], 1)
