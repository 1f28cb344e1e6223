"""The C word reader (``_lcs.lcs_words``: sentence-level ROUGE-L under ``tokenize="whitespace"``
and ``"rouge_score"``) against independent oracles: Python's own ``str.split()`` /
``str.lower()``, rouge-score's tokenizer and the textbook DP (``oracle.lcs_dp``).

Texts mix every PEP 393 kind in one instance (a word of a Latin-1 text must equal the
same word of a UCS-2 text), Unicode whitespace (str.isspace: \\x1c-\\x1f, \\x85, \\xa0,
\\u3000, \\u2028 ...), characters whose lowercase is ASCII (the Kelvin sign, dotted I),
words around the 8- and 16-byte key boundaries (and NUL characters, word characters of
str.split()) and texts around the 64-byte block boundary.
"""
from __future__ import annotations


import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rouge_score import tokenize as rs_tokenize

import oracle
from paddle_rougel import compute, rouge_l
from paddle_rougel.engine import host as engine
from paddle_rougel import _lcs

SETTINGS = dict(deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow],
                max_examples=300)

SPACES = [" ", "  ", "\t", "\n", "\x0b", "\x0c", "\r", "\x1c", "\x1f", "\x85", "\xa0", "\u1680",
          "\u2000", "\u2028", "\u3000", "\u200b"]  # \u200b is not whitespace: part of a word
PIECES = ["the", "The", "THE", "cat", "Cat-sat", "on", "mat!", "a", "b", "12", "x1", "caf\xe9",
          "CAF\xc9", "stra\xdfe", "\u212aelvin", "kelvin", "\u0130stanbul", "i\u0307stanbul",
          "\u4e2d\u6587", "\U0001F600", "\xff\xff\xff\xff\xff\xff\xff\xff", "abcdefgh", "abcdefghi",
          "ABCDEFGHIJKLMNOPQ", "abcdefghijklmnopq", "\u0101bc", "don't", "e.g.", "\xaa", "\xb5",
          # around the 16-byte exact key (key + key2 + length): equal first 8 / 16 bytes
          "abcdefghijklmnop", "abcdefghijklmnoq", "ABCDEFGHIJKLMNOP", "abcdefghijklmno\xe9",
          "abcdefghijklmnopqrstuvwx", "abcdefghijklmnopqrstuvwy", "abcdefghIJKLMNOPqrstuvwxyz",
          # NUL is a word character of str.split(): "a\0" is not "a"
          "a\x00", "a\x00b", "\x00", "abcdefgh\x00", "abcdefghijklmnop\x00"]


def py_split(text: str, fold: bool) -> list:
    return (text.lower() if fold else text).split()


def py_rouge_score(text: str) -> list:
    return rs_tokenize.tokenize(text, None)  # rouge-score 0.1.2's own tokenizer


@st.composite
def text(draw):
    n = draw(st.integers(0, 30))
    parts = []
    for _ in range(n):
        parts.append(draw(st.sampled_from(PIECES)))
        parts.append(draw(st.sampled_from(SPACES)))
    return "".join(parts[:-1] if parts and draw(st.booleans()) else parts)


@st.composite
def batch(draw):
    n = draw(st.integers(1, 6))
    cands = [draw(text()) for _ in range(n)]
    refs = [[draw(text()) for _ in range(draw(st.integers(1, 3)))] for _ in range(n)]
    return cands, refs


def _check(cands, refs, mode, fold, threads):
    raw = _lcs.lcs_words(cands, refs, mode, fold, threads)
    lcs, cl, rl, rc = (np.frombuffer(b, dtype=np.int64).tolist() for b in raw)
    tok = py_rouge_score if mode == 1 else (lambda t: py_split(t, fold))
    m = 0
    for i, (c, rs) in enumerate(zip(cands, refs)):
        ct = tok(c)
        assert cl[i] == len(ct), (i, c)
        assert rc[i] == len(rs)
        for r in rs:
            rt = tok(r)
            assert rl[m] == len(rt), (i, r)
            assert lcs[m] == oracle.lcs_dp(ct, rt), (i, c, r, ct, rt)
            m += 1
    assert m == len(lcs)


@settings(**SETTINGS)
@given(batch(), st.sampled_from([(0, False), (0, True), (1, True)]), st.sampled_from([1, 2]))
def test_lcs_words_equals_python_tokens_and_dp(b, mode_fold, threads):
    _check(*b, *mode_fold, threads)


def test_words_around_key_and_block_boundaries():
    rng = np.random.default_rng(0)
    for length in (7, 8, 9, 15, 16, 17, 24, 25, 32, 33, 63, 64, 65):
        word = "x" * length
        for pad in range(0, 70, 7):  # the word at every position around a 64-byte block
            cand = " " * pad + word + " q"
            refs = [[word.upper() + " q " + "y" * pad, "q " + word[:-1] + "z"]]
            for mode, fold in ((0, False), (0, True), (1, True)):
                _check([cand], refs, mode, fold, 1)
    # long texts, many words, candidates beyond one 64-bit word of positions
    vocab = PIECES + ["w%d" % k for k in range(50)]
    cands = [" ".join(rng.choice(vocab, size=int(rng.integers(0, 200)))) for _ in range(20)]
    refs = [[" ".join(rng.choice(vocab, size=int(rng.integers(0, 200)))) for _ in range(2)] for _ in range(20)]
    for mode, fold in ((0, False), (0, True), (1, True)):
        _check(cands, refs, mode, fold, 2)


def test_lowercase_that_is_ascii_gives_pythons_tokens():
    # str.lower() before the [a-z0-9] filter: the Kelvin sign is 'k', dotted I is 'i' + U+0307
    f = compute(["\u212aelvin \u0130stanbul"], ["kelvin i stanbul"], tokenize="rouge_score",
                gamma=1, per_instance=True)["per_instance"]
    assert py_rouge_score("\u212aelvin \u0130stanbul") == ["kelvin", "i", "stanbul"]
    assert f["rougeL"].tolist() == [1.0]
    # whitespace + lowercase: the same words as text.lower().split()
    out = rouge_l(["\u212a \xc9T\xc9 Stra\xdfe"], ["k \xe9t\xe9 strasse"], tokenize="whitespace",
                  lowercase=True)
    assert out.p_measure.tolist() == [2 / 3] and out.r_measure.tolist() == [2 / 3]
    # without lowercase the Kelvin sign is its own word
    assert rouge_l(["\u212a"], ["k"], tokenize="whitespace").f_measure.tolist() == [0.0]


def test_unicode_whitespace_is_str_split():
    for sp in SPACES:
        cand = f"a{sp}b"
        assert _lcs.lcs_words([cand], [["a b"]], 0) is not None
        _check([cand], [["a b", "ab", cand]], 0, False, 1)


def test_not_all_str_gives_none():
    assert _lcs.lcs_words(["a"], [[["a"]]], 0) is None
    assert _lcs.lcs_words(["a"], [[]], 0) is None
    assert _lcs.lcs_words([b"a"], [["a"]], 0) is None
    with pytest.raises(ValueError, match="mode"):
        _lcs.lcs_words(["a"], [["a"]], 2)


def test_python_backend_and_fallback_agree_with_c():
    cands = ["The cat sat on the mat.", "\u212a x", "", "a b c d"]
    refs = [["the cat is on the mat", "a cat"], ["k"], ["x"], ["d c b a", ""]]
    for words in ((0, False), (0, True), (1, True)):
        c = engine.lcs_batch(cands, refs, words=words)
        # token lists in the batch: the Python tokenizer of the same settings splits the strs
        mixed = engine.lcs_batch(cands, [list(r) for r in refs], words=words)
        engine.set_backend("python")
        try:
            p = engine.lcs_batch(cands, refs, words=words)
        finally:
            engine.set_backend("c")
        for a, b in ((c, p), (c, mixed)):
            for x, y in zip(a, b):
                assert x.tolist() == y.tolist()


def test_metric_mixes_texts_and_token_lists():
    """RougeL(tokenize=...) buffers str instances for the C reader next to token lists."""
    from paddle_rougel import RougeL  # needs paddle (a test dependency)

    m = RougeL(tokenize="rouge_score", gamma=1.0)
    m.add_inst("The cat sat", ["the cat"])
    m.add_inst(["the", "cat"], [["the", "cat", "sat"]])
    m.add_batch(["A b", "c d"], [["a B"], ["x"]])
    got = m.per_instance().fmeasure.tolist()
    assert got == pytest.approx([0.8, 0.8, 1.0, 0.0], abs=1e-15)


def test_compute_one_str_reference_each_names_bad_items():
    with pytest.raises(TypeError, match="instance 1"):
        compute(["a", "b"], ["a", None], tokenize="whitespace")
    with pytest.raises(TypeError, match="instance 1"):
        compute(["a", None], ["a", "b"], tokenize="rouge_score")


# ------------------------------------------------------------ token lists (no per-instance checks)

def test_equal_distinct_token_objects_get_one_id():
    """Tokens are cached by address in front of the dict: equal objects at other addresses
    must still get the same id, and a NaN still matches nothing."""
    a = ["ab", 10 ** 30, "ab", float("nan")]
    b = ["".join(["a", "b"]), int("1" + "0" * 30), a[0], a[3]]
    assert a[0] is not b[0] and a[1] is not b[1]
    assert engine.lcs_length(a, b) == 3 == oracle.lcs_dp(a, b)  # the NaN matches nothing
    # many distinct addresses (the address cache grows) against the same words rebuilt
    words = ["w%d" % k for k in range(20000)]
    again = ["".join(["w", str(k)]) for k in range(20000)]
    assert engine.lcs_length(words, again[::-1] + again) == 20000


def test_token_list_batch_snapshot_and_named_errors():
    from paddle_rougel.engine.inputs import make_batch

    cand, ref = ["a", "b"], ["b"]
    b = make_batch([cand, ("x",)], [[ref], (("x",), ["y"])])
    assert b.cands == (("a", "b"), ("x",)) and b.ref_lists == ((("b",),), (("x",), ("y",)))
    cand.append("c"), ref.clear()  # the batch holds its own copies
    assert b.cands[0] == ("a", "b") and b.ref_lists[0] == (("b",),)
    with pytest.raises(TypeError, match=r"instance 7, reference 1"):
        make_batch([["a"], ["b"]], [[["a"]], [["b"], [["x"]]]], base=6)
    # compute / rouge_l take token lists without copying them here: the C reader names the token
    with pytest.raises(TypeError, match=r"instance 1, candidate: token 1 \(list\)"):
        rouge_l([["a"], ["b", ["x"]]], [["a"], ["b"]])
    with pytest.raises(TypeError, match=r"instance 1, reference 0: token 0 \(set\)"):
        compute([["a"], ["b"]], [["a"], [{1}]])
    out = compute([["a", "b"], ("c",)], [["b"], [("c",), ["d"]]], gamma=1, per_instance=True)
    assert out["per_instance"]["rougeL"].tolist() == [2 / 3, 1.0]


def test_compute_one_str_reference_each_equals_reference_lists():
    """compute with one str reference per prediction (kept flat: inputs.OneRef, read by
    lcs_pairs / lcs_words(one_ref=True)) gives what reference lists give, on both engines."""
    preds = ["The cat sat on the mat.", "\u212a x \u4e2d\u6587", "", "a b c d", "\xe9t\xe9  x"]
    refs = ["the cat is on the mat", "k \u4e2d", "x", "", "\xc9T\xc9 x"]
    for backend in ("c", "python"):
        engine.set_backend(backend)
        try:
            for kw in (dict(), dict(tokenize="whitespace"), dict(tokenize="whitespace", lowercase=True),
                       dict(tokenize="rouge_score")):
                flat = compute(preds, refs, per_instance=True, **kw)
                lists = compute(preds, [[r] for r in refs], per_instance=True, **kw)
                for key in ("rougeL", "rougeL_precision", "rougeL_recall"):
                    assert flat["per_instance"][key].tolist() == lists["per_instance"][key].tolist()
                assert flat["signature"] == lists["signature"]
        finally:
            engine.set_backend("c")


def test_integer_buffers_compare_as_python_ints():
    """A batch of integer arrays only gets its ids from a C table: values equal as Python ints
    share an id whatever the dtype or byte order, and -1 is not 2**64 - 1."""
    a = np.array([-1, 1, 2 ** 40, 7], dtype=np.int64)
    b = np.array([2 ** 64 - 1, 1, 2 ** 40, 7], dtype=np.uint64)
    assert engine.lcs_length(a, b) == 3 == oracle.lcs_dp(a.tolist(), b.tolist())
    rng = np.random.default_rng(5)
    dtypes = ["i1", "u1", "<i2", ">u2", "<i4", ">i4", "<u8", ">i8"]
    cands = [rng.integers(0, 100, rng.integers(0, 90)).astype(rng.choice(dtypes)) for _ in range(30)]
    refs = [[rng.integers(0, 100, rng.integers(0, 90)).astype(rng.choice(dtypes))[::-1]] for _ in range(30)]
    got = engine.lcs_batch(cands, refs).lcs.tolist()
    assert got == [oracle.lcs_dp(c.tolist(), r[0].tolist()) for c, r in zip(cands, refs)]
    # the same values as Python int lists (the dict path) give the same numbers
    assert engine.lcs_batch([c.tolist() for c in cands], [[r[0].tolist()] for r in refs]).lcs.tolist() == got


@pytest.mark.parametrize("one_ref", [False, True])
@pytest.mark.parametrize("container", [tuple, list])
def test_tuples_are_read_without_a_reference_each_and_nothing_leaks(container, one_ref):
    """Texts held by tuples all the way down are read without owning each str (the tuples keep
    them alive); lists are owned str by str.  Either way every reference count is as before the
    call (no leak, no extra release), also when a non-ASCII text is lowercased in C (which
    makes the reader own them all), and the numbers are the lists' numbers."""
    import sys

    rng = np.random.default_rng(3)
    words = ["Alpha", "beta", "GAMMA", "\xc9t\xe9", "\u0130stanbul", "delta", "\u4e2d\u6587"]
    for mode in (0, 1):
        for ascii_only in (True, False):
            pool = words[:3] + words[5:6] if ascii_only else words
            cands = ["".join(" " + pool[k] for k in rng.integers(0, len(pool), 9)) + str(i) for i in range(40)]
            refs = ["".join(" " + pool[k] for k in rng.integers(0, len(pool), 7)) + str(i) for i in range(40)]
            ref_arg = container(refs) if one_ref else container(container([r]) for r in refs)
            cand_arg = container(cands)
            before = [sys.getrefcount(s) for s in cands + refs]
            got = _lcs.lcs_words(cand_arg, ref_arg, mode, True, 2, one_ref=one_ref)
            assert [sys.getrefcount(s) for s in cands + refs] == before
            want = _lcs.lcs_words(list(cands), [[r] for r in refs], mode, True, 1)
            assert [bytes(x) for x in got] == [bytes(x) for x in want]
            oracle_lcs = [oracle.lcs_dp(py_split(c, True) if mode == 0 else py_rouge_score(c),
                                        py_split(r, True) if mode == 0 else py_rouge_score(r))
                          for c, r in zip(cands, refs)]
            assert np.frombuffer(got[0], dtype=np.int64).tolist() == oracle_lcs


def test_str_tuple_in_c_and_in_python_agree():
    """inputs.str_tuple (the batch type check): the C helper and the Python fallback give the
    same answers; a tuple comes back as itself; a str subclass is not a str here."""
    from paddle_rougel.engine import inputs

    class Sub(str):
        pass

    assert inputs._c_str_tuple is _lcs.str_tuple  # the C helper is in use where the extension is
    cases = [[], (), ["a"], ("a", "b"), ["a", 1], [Sub("a")], ("x", None), ["\xe9", "\u5b57", ""], "ab"]
    for c in cases:
        t = tuple(c)
        want = t if all(type(x) is str for x in t) else None
        assert _lcs.str_tuple(c) == want
        saved = inputs._c_str_tuple
        inputs._c_str_tuple = None
        try:
            assert inputs.str_tuple(c) == want
        finally:
            inputs._c_str_tuple = saved
    t = ("a", "b")
    assert _lcs.str_tuple(t) is t
    with pytest.raises(TypeError):
        _lcs.str_tuple(3)


def test_two_tuples_are_read_on_every_thread():
    """Two tuples of str, one reference each (what compute() and the metrics pass), are read
    on every thread (module_words.c pair_read_range: at least 4,096 pairs a thread) while the GIL is
    held; texts that need Python (non-ASCII to lowercase) are finished after, by the calling
    thread.  Every pair equals Python's tokens and the DP whatever the thread count (0 and
    negative counts mean one), non-ASCII texts in both halves; an item that is not an exact
    str anywhere (either half, either side; a str subclass too) gives None, as a list does."""
    rng = np.random.default_rng(11)
    n = 10_000  # two ranges of 5,000
    pick = lambda: " ".join(rng.choice(PIECES, size=int(rng.integers(0, 12))))  # noqa: E731
    cands = tuple(pick() for _ in range(n))
    refs = tuple(pick() for _ in range(n))
    assert sum(not c.isascii() for c in cands[:5000]) > 100 and sum(not r.isascii() for r in refs[5000:]) > 100
    for mode, fold in ((0, False), (0, True), (1, True)):
        tok = py_rouge_score if mode == 1 else (lambda t, f=fold: py_split(t, f))
        for threads in (2, 1, 0, -3):
            raw = _lcs.lcs_words(cands, refs, mode, fold, threads, one_ref=True)
            lcs, cl, rl, rc = (np.frombuffer(b, dtype=np.int64) for b in raw)
            if threads == 2:
                want = np.array([oracle.lcs_dp(tok(c), tok(r)) for c, r in zip(cands, refs)])
                assert cl.tolist() == [len(tok(c)) for c in cands]
                assert rl.tolist() == [len(tok(r)) for r in refs]
            assert lcs.tolist() == want.tolist() and rc.tolist() == [1] * n, (mode, fold, threads)

    class Sub(str):
        pass

    for at in (0, 4999, 5000, n - 1):
        for side in (0, 1):
            for bad in (None, b"x", Sub("the cat")):
                sides = [list(cands), list(refs)]
                sides[side][at] = bad
                assert _lcs.lcs_words(tuple(sides[0]), tuple(sides[1]), 1, True, 2, one_ref=True) is None
                assert _lcs.lcs_words(sides[0], sides[1], 1, True, 2, one_ref=True) is None
