"""The LCS engines (C with 1 and 2 threads, pure Python) against the O(n*m) DP oracle."""
from __future__ import annotations

import json
import random
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import oracle
from paddle_rougel.engine import cext, registry
from paddle_rougel.engine import host as engine
from paddle_rougel.engine import fallbacks


# ------------------------------------------------------------------ the oracle itself

def test_oracle_textbook_cases():
    assert oracle.lcs_dp("ABCBDAB", "BDCABA") == 4
    assert oracle.lcs_dp("", "abc") == 0
    assert oracle.lcs_dp("abc", "abc") == 3
    assert oracle.lcs_dp("abc", "cba") == 1
    assert oracle.lcs_dp(["the", "cat"], ["cat", "the", "cat"]) == 2


def test_oracle_row_dp_agrees_with_plain_dp():
    rng = random.Random(11)
    for _ in range(300):
        kind = rng.choice(oracle.KINDS)
        a = oracle.random_seq(rng, rng.randrange(0, 50), kind)
        b = oracle.random_seq(rng, rng.randrange(0, 50), rng.choice(oracle.COMPATIBLE[kind]))
        assert oracle.lcs_dp_rows(a, b) == oracle.lcs_dp(a, b)


# ------------------------------------------------------------------ random batches

def _random_batch(seed: int, n: int, str_only: bool):
    rng = random.Random(seed)
    kinds = ["ab", "acgt", "same", "cjk", "astral"] if str_only else oracle.KINDS
    cands, ref_lists = [], []
    for _ in range(n):
        kind = rng.choice(kinds)
        cand = oracle.random_seq(rng, oracle.random_length(rng), kind)
        refs = []
        for _ in range(rng.choice([1, 1, 2, 3, 5])):
            rkind = kind if str_only else rng.choice(oracle.COMPATIBLE[kind])
            ref = oracle.random_seq(rng, oracle.random_length(rng), rkind)
            if rng.random() < 0.3:  # a near copy of the candidate: long LCS
                ref = cand[: len(ref)] if len(ref) <= len(cand) else ref
            if not str_only and isinstance(ref, str) and rng.random() < 0.5:
                ref = oracle.as_char_list(ref)  # str candidate vs list-of-chars reference
            refs.append(ref)
        if not str_only and isinstance(cand, str) and rng.random() < 0.25:
            cand = oracle.as_char_list(cand)
        cands.append(cand)
        ref_lists.append(refs)
    return cands, ref_lists


def _expected(cands, ref_lists):
    lcs, ref_len = [], []
    for c, refs in zip(cands, ref_lists):
        for r in refs:
            lcs.append(oracle.lcs(c, r))
            ref_len.append(len(r))
    return lcs, [len(c) for c in cands], ref_len, [len(r) for r in ref_lists]


_BATCHES = {
    # code-point mode: every item is a str (ASCII, CJK, astral, NUL)
    "str": _random_batch(1, 1500, str_only=True),
    # token mode: str, lists of str/int, numpy int64/int32 arrays, mixed containers
    "mixed": _random_batch(2, 1500, str_only=False),
}
_EXPECTED = {}


@pytest.mark.parametrize("batch", ["str", "mixed"])
def test_random_batch_matches_oracle(lcs_engine, batch):
    cands, ref_lists = _BATCHES[batch]
    if batch not in _EXPECTED:
        _EXPECTED[batch] = _expected(cands, ref_lists)
    lcs, cand_len, ref_len, ref_count = _EXPECTED[batch]
    res = lcs_engine(cands, ref_lists)
    bad = np.flatnonzero(res.lcs != np.array(lcs))
    assert bad.size == 0, f"{bad.size} pairs differ, first at flat index {bad[:5]}"
    assert res.cand_len.tolist() == cand_len
    assert res.ref_len.tolist() == ref_len
    assert res.ref_count.tolist() == ref_count
    assert res.offsets.tolist() == np.concatenate([[0], np.cumsum(ref_count)]).tolist()
    assert all(a.dtype == np.int64 for a in res)


def test_boundary_lengths_every_combination(lcs_engine):
    """Candidate/reference lengths around the 64-bit word boundaries, all pairs."""
    rng = random.Random(3)
    lengths = oracle.BOUNDARY_LENGTHS + [255, 256, 257]
    cands, refs, want = [], [], []
    for n in lengths:
        for m in lengths:
            for kind in ("ab", "same", "ints"):
                a = oracle.random_seq(rng, n, kind)
                b = oracle.random_seq(rng, m, kind)
                cands.append(a)
                refs.append([b, a])  # also the candidate itself: LCS = n
                want += [oracle.lcs(a, b), n]
    res = lcs_engine(cands, refs)
    assert res.lcs.tolist() == want


def test_long_pairs(lcs_engine):
    """A few thousand tokens per side: many words, long carry chains."""
    rng = random.Random(4)
    cases = []
    for n, m, kind in [(3000, 2500, "ab"), (2049, 4000, "acgt"), (4000, 4000, "same"),
                       (1000, 3001, "ints"), (2500, 1200, "cjk"), (1, 4000, "ab")]:
        a = oracle.random_seq(rng, n, kind)
        b = oracle.random_seq(rng, m, kind)
        cases.append((a, b))
    # a mutated copy: LCS close to the length, carries across all words
    a = oracle.random_seq(rng, 3500, "acgt")
    b = "".join(ch for ch in a if rng.random() > 0.05)
    cases.append((a, b))
    res = lcs_engine([a for a, _ in cases], [[b] for _, b in cases])
    assert res.lcs.tolist() == [oracle.lcs_dp_rows(a, b) for a, b in cases]


def test_single_pairs_lcs_length(lcs_engine):
    """lcs_length on one pair agrees with the oracle (single-instance batches)."""
    rng = random.Random(5)
    for _ in range(200):
        kind = rng.choice(oracle.KINDS)
        a = oracle.random_seq(rng, rng.choice([0, 1, 5, 64, 65, 100]), kind)
        b = oracle.random_seq(rng, rng.choice([0, 1, 7, 63, 64, 128]), rng.choice(oracle.COMPATIBLE[kind]))
        got = lcs_engine([a], [[b]]).lcs[0]
        assert got == oracle.lcs(a, b) == engine.lcs_length(a, b)


def test_token_equality_is_python_eq(lcs_engine):
    # 1 == 1.0 == True; numpy ints equal Python ints; a str is its characters, so "abc"
    # equals ["a", "b", "c"] but the token "ab" matches neither "a" nor "b"
    cands = [[1, 2, 3], np.array([1, 2, 3]), "abc", ["ab", "c"], [("t", 1), ("t", 2)], ["1", 1]]
    refs = [[[1.0, True, 3]], [[1, 2, 3]], [["a", "b", "c"]], [["a", "b", "c"]],
            [[("t", 2)]], [[1]]]
    res = lcs_engine(cands, refs)
    assert res.lcs.tolist() == [oracle.lcs(c, r[0]) for c, r in zip(cands, refs)] == [2, 3, 3, 1, 1, 1]


def test_empty_batch_and_empty_sides(lcs_engine):
    res = lcs_engine([], [])
    assert [a.size for a in res] == [0, 0, 0, 0]
    res = lcs_engine(["", "abc", [], "x"], [["abc", ""], [""], [[]], ["", "x", "xx"]])
    assert res.lcs.tolist() == [0, 0, 0, 0, 0, 1, 1]
    assert res.cand_len.tolist() == [0, 3, 0, 1]
    assert res.ref_len.tolist() == [3, 0, 0, 0, 0, 1, 2]


def test_tuple_and_generic_sequences(lcs_engine):
    res = lcs_engine([("a", "b", "c"), range(5)], [(("a", "c"), "abc"), ([4, 3, 2, 1, 0], range(2, 9))])
    assert res.lcs.tolist() == [2, 3, 1, 3]


# ------------------------------------------------------------------ 100k x 100k

_BIG = textwrap.dedent(
    r"""
    import json, random, resource, sys
    from paddle_rougel import engine
    engine.set_backend(sys.argv[1])
    rng = random.Random(7)
    n = 100_000
    # case 1: b = a with d deletions and fresh-symbol insertions: LCS = n - d exactly
    alpha = [chr(c) for c in range(0x4E00, 0x4E00 + 50)]
    a = "".join(rng.choice(alpha) for _ in range(n))
    keep = [rng.random() > 0.1 for _ in range(n)]
    d = keep.count(False)
    fresh = [chr(0x1F600 + k) for k in range(40)]            # astral, not in a
    out = []
    for ch, k in zip(a, keep):
        if k:
            out.append(ch)
        else:
            out.append(rng.choice(fresh))                     # substitution = del + ins
    b = "".join(out)
    # case 2: disjoint noise alphabets around a planted common subsequence x
    x = "".join(rng.choice("abcdefgh") for _ in range(30_000))
    def weave(x, noise, total):
        pos = sorted(rng.sample(range(total), len(x)))
        s = [rng.choice(noise) for _ in range(total)]
        for p, ch in zip(pos, x):
            s[p] = ch
        return "".join(s)
    c = weave(x, "0123456789", n)
    e = weave(x, "QRSTUVWXYZ", n)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    r1 = engine.lcs_length(a, b)
    r2 = engine.lcs_batch([c, c[:99_999]], [[e, e[1:]], [e]], threads=2).lcs.tolist()
    after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(json.dumps({"len": [len(a), len(b), len(c), len(e)], "lcs1": r1, "want1": n - d,
                      "lcs2": r2, "x": len(x), "x_first_in_e": e[0] in x,
                      "x_last_in_c": c[-1] in x, "rss_kb": after - before}))
    """
)


def test_100k_by_100k_exact_with_linear_memory():
    """The LCS of two 100,000-token strings, known analytically, in a fresh process
    whose peak RSS grows by < 64 MB while the kernel runs (an n*m table would be 10^10 cells)."""
    proc = subprocess.run([sys.executable, "-c", _BIG, "c"], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert out["len"] == [100_000] * 4
    assert out["lcs1"] == out["want1"]
    x = out["x"]
    # dropping e's first / c's last char removes one planted symbol only if it was planted there
    want2 = [x, x - int(out["x_first_in_e"]), x - int(out["x_last_in_c"])]
    assert out["lcs2"] == want2
    assert out["rss_kb"] < 64 * 1024, f"peak RSS grew by {out['rss_kb'] / 1024:.1f} MB"


def test_unhashable_reference_token_rejected_even_for_empty_candidate(lcs_engine):
    """Both engines reject an unhashable token wherever it is (same error on every backend)."""
    with pytest.raises(TypeError, match="instance 1, reference 0"):
        lcs_engine(["ab", ""], [["ab"], [[["x"]]]])
    with pytest.raises(TypeError, match="instance 0, reference 1"):
        lcs_engine([[]], [[["a"], [{}]]])


def test_missing_extension_falls_back_with_one_warning(monkeypatch):
    """Without the compiled kernel the engine still answers exactly, with one RuntimeWarning."""
    import warnings

    from paddle_rougel.engine import host as engine

    monkeypatch.setattr(cext, "lcs", None)
    monkeypatch.setattr(registry, "_BACKEND", "python")
    monkeypatch.setattr(registry, "_WARNED", False)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert engine.lcs_length("ABCBDAB", "BDCABA") == 4
        assert engine.lcs_batch(["abc"], [["abd", "c"]]).lcs.tolist() == [2, 1]
    msgs = [w for w in caught if issubclass(w.category, RuntimeWarning)]
    assert len(msgs) == 1 and "C LCS kernel is not built" in str(msgs[0].message)
    with pytest.raises(RuntimeError, match="not built"):
        engine.set_backend("c")


# ------------------------------------------------------------------ numpy layouts

_INT_DTYPES = ["i1", "u1", "i2", "u2", "i4", "u4", "i8", "u8"]


@pytest.mark.parametrize("order", ["<", ">"])
@pytest.mark.parametrize("dtype", _INT_DTYPES)
def test_numpy_byte_order_and_strides(lcs_engine, dtype, order):
    """Any integer dtype in either byte order, contiguous or strided, reads as its values."""
    dt = np.dtype(order + dtype) if dtype[1] != "1" else np.dtype(dtype)
    vals = [1, 2, 3, 0, 2, 1, 3, 100, 2, 1]  # 100: a byte order mix-up changes it
    a = np.array(vals, dtype=dt)
    wide = np.array([v for v in vals for _ in (0, 1)], dtype=dt)  # every value twice
    cands = [a, wide[::2], a[::-1], [1, 2, 3], a]
    refs = [[[1, 2, 3]], [vals], [a], [a[::-1].copy()], [np.array([3, 100], dtype=dt)]]
    res = lcs_engine(cands, refs)
    assert res.lcs.tolist() == [3, 10, oracle.lcs_dp(vals[::-1], vals), 3, 2]


def test_numpy_2d_and_float_arrays(lcs_engine):
    """A 2-D array's rows are unhashable tokens; float arrays compare by value."""
    with pytest.raises(TypeError, match="instance 0, candidate"):
        lcs_engine([np.zeros((2, 2), dtype=np.int64)], [[[0]]])
    with pytest.raises(TypeError, match=r"instance 1, reference 0: got ndarray, expected .*0-d"):
        lcs_engine(["a", "b"], [["a"], [np.array(3)]])
    res = lcs_engine([np.array([1.0, 2.5, 3.0])], [[[1, 2.5, 3]]])
    assert res.lcs.tolist() == [3]


@pytest.mark.parametrize("order", ["<", ">"])
def test_clipped_matches_byte_order_and_strides(order):
    cand = np.array([5, 6, 5, 6, 7], dtype=order + "i4")
    srcs = [np.array([9, 5, 6, 9, 5, 6, 7, 9], dtype=order + "i8")[::1],
            np.array([7, 7, 5, 5, 6, 6], dtype=order + "u2")[::-1]]
    want = fallbacks.python_matches(cand.tolist(), [s.tolist() for s in srcs], 3)
    assert want == [5, 4, 1]
    for backend in ("c", "python"):
        engine.set_backend(backend)
        try:
            got = engine.clipped_matches([cand, cand[::2]], [srcs, srcs], 3)
        finally:
            engine.set_backend("c")
        assert got[0].tolist() == want, backend
        assert got[1].tolist() == fallbacks.python_matches([5, 5, 7], [s.tolist() for s in srcs], 3)


# ------------------------------------------------------------------ self-unequal tokens

class _NeverEqual:
    """Hashable, but equal to nothing, not even itself (like NaN)."""

    def __eq__(self, other):
        return False

    __hash__ = object.__hash__


def test_self_unequal_tokens_never_match(lcs_engine):
    nan, npnan, never = float("nan"), np.float64("nan"), _NeverEqual()
    cnan = complex(0, float("nan"))
    cands = [[nan], [nan, 1, nan], [npnan, npnan], [never, "a", never], [cnan], [nan, 2.0],
             np.array([np.nan, 1.0, np.nan])]
    refs = [[[nan]], [[nan, 1, nan], [1]], [[npnan]], [[never, "a", never]], [[cnan]], [[2]],
            [[np.nan, 1.0], [float("nan")]]]
    res = lcs_engine(cands, refs)
    want = [oracle.lcs_dp(c, r) for c, rs in zip(cands, refs) for r in rs]
    assert want == [0, 1, 1, 0, 1, 0, 1, 1, 0]
    assert res.lcs.tolist() == want
    assert res.cand_len.tolist() == [1, 3, 2, 3, 1, 2, 3]
    assert engine.lcs_length([nan], [nan]) == 0


def test_self_unequal_tokens_in_ngrams():
    """An n-gram holding a NaN (or any token unequal to itself) matches nothing."""
    nan, never = float("nan"), _NeverEqual()
    cands = [[1, nan, 2, 1, nan, 2], [never, never], ["a", "b", nan, "a", "b"]]
    srcs = [[[1, nan, 2, 1, nan, 2]], [[never, never]], [["a", "b", "a", "b"]]]
    want = [[4, 1, 0], [0, 0, 0], [4, 2, 0]]  # (2, 1) is the only common bigram of the first
    assert [fallbacks.python_matches(c, s, 3) for c, s in zip(cands, srcs)] == want
    for backend in ("c", "python"):
        engine.set_backend(backend)
        try:
            assert engine.clipped_matches(cands, srcs, 3).tolist() == want, backend
        finally:
            engine.set_backend("c")


# ------------------------------------------------------------------ results and settings

def test_results_are_writable_numpy_arrays(lcs_engine):
    res = lcs_engine(["abc", "x"], [["abd", "c"], ["x"]])
    for arr in res:
        assert arr.flags.writeable and arr.dtype == np.int64
        arr[0] = 7  # no "assignment destination is read-only"
    out = engine.clipped_matches(["ab"], [["ab"]], 2)
    assert out.flags.writeable and out.tolist() == [[2.0, 1.0]]


@pytest.mark.parametrize("value", ["abc", "0", "-3", "1.5", "2x"])
def test_bad_threads_env_is_a_clear_error(monkeypatch, value):
    monkeypatch.setenv("PADDLE_ROUGEL_THREADS", value)
    with pytest.raises(ValueError, match=r"PADDLE_ROUGEL_THREADS=.*" + __import__("re").escape(value)):
        engine.default_threads()
    with pytest.raises(ValueError, match="PADDLE_ROUGEL_THREADS"):
        engine.lcs_batch(["ab"], [["ab"]])
    with pytest.raises(ValueError, match="PADDLE_ROUGEL_THREADS"):
        engine.clipped_matches(["ab"], [["ab"]], 2)


@pytest.mark.parametrize("value,want", [("", None), ("  ", None), ("3", 3), (" 2 ", 2), ("64", 64), ("100", 64)])
def test_threads_env_values(monkeypatch, value, want):
    monkeypatch.setenv("PADDLE_ROUGEL_THREADS", value)
    default = max(1, min(8, __import__("os").cpu_count() or 1))
    assert engine.default_threads() == (default if want is None else want)
    assert engine.lcs_length("abc", "abd") == 2


@pytest.mark.parametrize("value", ["2147483648", "9223372036854775808", "9" * 100])
def test_huge_threads_env_is_capped_to_the_kernel_maximum(monkeypatch, value):
    """Issue 20.12: a count past C int ended in "signed integer is greater than maximum"."""
    monkeypatch.setenv("PADDLE_ROUGEL_THREADS", value)
    assert engine.default_threads() == engine.MAX_THREADS == 64
    assert engine.lcs_batch(["abc"], [["abd"]]).lcs.tolist() == [2]
    assert engine.clipped_matches(["ab"], [["ab"]], 2).tolist() == [[2.0, 1.0]]
    from paddle_rougel.stats import intervals as stats
    assert stats.resample_sums([1.0, 2.0], 3, seed=1).shape == (3, 1)


@pytest.mark.parametrize("value", ["1e20", "-1", "abc", "9" * 5000])
def test_unreadable_threads_env_names_the_variable_briefly(monkeypatch, value):
    monkeypatch.setenv("PADDLE_ROUGEL_THREADS", value)
    with pytest.raises(ValueError, match="PADDLE_ROUGEL_THREADS") as e:
        engine.lcs_batch(["ab"], [["ab"]])
    assert len(str(e.value)) < 200  # a 5000-digit value is not echoed in full


def test_threads_take_pieces_of_one_batch_and_agree():
    """Batches big enough to run in parallel (cost >> the one-thread threshold), cut
    into many pieces of uneven size: every thread count gives the same LCS, the DP's."""
    rng = random.Random(7)
    cands, refs = [], []
    for i in range(3000):
        n = rng.choice([0, 1, 5, 40, 70, 300]) if i % 97 else 2000  # a few instances dominate
        cands.append([rng.randrange(6) for _ in range(n)])
        refs.append([[rng.randrange(6) for _ in range(rng.choice([0, 3, 60, 200]))]
                     for _ in range(rng.randint(1, 3))])
    runs = {t: engine.lcs_batch(cands, refs, threads=t).lcs.tolist() for t in (1, 2, 3, 8)}
    assert runs[2] == runs[1] and runs[3] == runs[1] and runs[8] == runs[1]
    flat = [(c, r) for c, rs in zip(cands, refs) for r in rs]
    for k in range(0, len(flat), 37):  # the DP on a sample (it is slow)
        assert runs[1][k] == oracle.lcs_dp(*flat[k])
