"""similarity_join and the bounded-memory deduplicate against brute force.

Brute force: the textbook DP of tests/oracle.py with its own F (an independent oracle: every
pair decided by it, except pairs within 1e-12 of the threshold, which the exact float64 grid
decides), and the all-pairs kernel's float64 grid (tests/scale_data.py: the previous
deduplicate, bit for bit).  Data: near-duplicates (one to six edits), so many pairs sit within
0.05 of each threshold.

Under scripts/sanitize.sh (PADDLE_ROUGEL_SANITIZE set: an ASan build, about 10x slower) every
test still runs, on the C back end only and with fewer alphas and generated examples.
"""
from __future__ import annotations

import math
import os
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import oracle
import paddle_rougel.api.dedup as dedup_mod
from paddle_rougel import TokenizationHint, deduplicate, rouge_l_matrix, similarity_join
from paddle_rougel.engine import host as engine
from scale_data import brute_dedup, brute_join, f64_grid, near_dups

SANITIZED = bool(os.environ.get("PADDLE_ROUGEL_SANITIZE"))
# alpha 0.5 (symmetric), 0.8 (asymmetric), tensor2tensor's F; and the rest unless sanitized
ALPHAS = [None, 0.8, -1.0] + ([] if SANITIZED else [0.3, 0.0, 1.0])
THRESHOLDS = [0.5, 0.7, 0.9]


def _a(alpha):
    return 0.5 if alpha is None else alpha


def _oracle_f_of(lcs, m, n, alpha):
    p, r = oracle.pr(lcs, m, n)
    if alpha < 0:
        return oracle.f_t2t(p, r)
    return oracle.f_alpha(p, r, alpha)


@pytest.fixture(params=["c"] if SANITIZED else ["c", "python"])
def backend(request):
    engine.set_backend(request.param)
    yield request.param
    engine.set_backend("c")


@pytest.fixture(scope="module")
def oracle_grid():
    """Near-duplicate token lists and the DP oracle's LCS of every pair."""
    texts = near_dups(1, 24, 6, hi=14)
    return texts, np.array([[oracle.lcs_dp(x, y) for y in texts] for x in texts])


@pytest.mark.parametrize("alpha", ALPHAS)
def test_join_equals_the_dp_oracle_near_the_threshold(alpha, oracle_grid):
    a = _a(alpha)
    texts, lcs = oracle_grid
    f_or = np.array([[_oracle_f_of(int(lcs[i, j]), len(x), len(y), a) for j, y in enumerate(texts)]
                     for i, x in enumerate(texts)])
    grid = f64_grid(texts, texts, a)
    for t in THRESHOLDS:
        near = np.abs(f_or - t) < 0.05
        assert near.sum() >= 30, (t, near.sum())  # the data puts many pairs near t
        sure = np.abs(f_or - t) > 1e-12
        want = (f_or >= t) & sure | (grid >= t) & ~sure
        for right in (texts, None):
            got = similarity_join(texts, right, t, alpha=alpha)
            i, j = np.nonzero(want if right is not None else want & np.triu(np.ones_like(want), 1).astype(bool))
            assert got.left.tolist() == i.tolist() and got.right.tolist() == j.tolist(), t
            np.testing.assert_allclose(got.f, f_or[i, j], rtol=1e-12, atol=0)


@pytest.mark.parametrize("alpha", ALPHAS)
@pytest.mark.parametrize("chars", [False, True])
def test_join_is_the_grid_bit_for_bit(backend, alpha, chars):
    a = _a(alpha)
    texts = near_dups(3, 35, 3, chars=chars)
    pool = near_dups(4, 8, 2, chars=chars)
    for t in THRESHOLDS + [0.0, -0.5, 1.0, 0.2]:
        for right in (None, pool):
            bi, bj, bf = brute_join(texts, right, t, a)
            got = similarity_join(texts, right, t, alpha=alpha, block=40)
            assert got.left.tolist() == bi.tolist() and got.right.tolist() == bj.tolist(), (t, right is None)
            assert np.array_equal(got.f, bf)
    m = rouge_l_matrix(texts, pool, alpha)
    got = similarity_join(texts, pool, 0.5, alpha=alpha)
    assert np.array_equal(got.f.astype(np.float32), m[got.left, got.right])


@pytest.mark.parametrize("alpha", ALPHAS)
def test_dedup_is_the_previous_full_grid_bit_for_bit(backend, alpha, monkeypatch):
    a = _a(alpha)
    items, pool = near_dups(5, 40, 3), near_dups(6, 8, 2)
    for small in (False, True):
        if small:  # many blocks, kept-index segments, candidate chunks and exact-pass blocks
            monkeypatch.setattr(dedup_mod, "ITEMS_PER_BLOCK", 9)
            monkeypatch.setattr(dedup_mod, "BLOCK", 60)
            monkeypatch.setattr(dedup_mod, "_EXACT_BYTES", 4000)
        for t in THRESHOLDS + [0.0, -0.1, 1.0]:
            kept, best = brute_dedup(items, pool, t, a)
            got = deduplicate(items, pool, t, alpha, best="exact")
            assert got.kept.tolist() == kept.tolist(), t
            assert np.array_equal(got.best, best), t
            fast = deduplicate(items, pool, t, alpha, best="dropped")
            assert fast.kept.tolist() == kept.tolist()
            dropped = np.ones(len(items), dtype=bool)
            dropped[kept] = False
            assert np.array_equal(fast.best[dropped], best[dropped]) and np.isnan(fast.best[kept]).all()
    assert 0 < len(deduplicate(items, pool, 0.7, alpha).kept) < len(items)


@settings(deadline=None, derandomize=True, max_examples=15 if SANITIZED else 60,
          suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.lists(st.sampled_from("abcde"), max_size=12), max_size=14),
       st.lists(st.lists(st.sampled_from("abcdef"), max_size=12), max_size=6),
       st.sampled_from([0.5, 0.7, 0.9, 0.34, 2 / 3, 0.0]), st.sampled_from(ALPHAS))
def test_join_and_dedup_hypothesis(left, right, t, alpha):
    a = _a(alpha)
    for r in (None, right):
        bi, bj, bf = brute_join(left, r, t, a)
        got = similarity_join(left, r, t, alpha=alpha)
        assert got.left.tolist() == bi.tolist() and got.right.tolist() == bj.tolist()
        assert np.array_equal(got.f, bf)
    kept, best = brute_dedup(left, right, t, a)
    got = deduplicate(left, right, t, alpha, best="exact")
    assert got.kept.tolist() == kept.tolist() and np.array_equal(got.best, best)


def test_threaded_probe_in_pieces_and_cut_by_the_budget():
    """The C probe's rows in pieces over threads (results in row order), each piece stopped by
    its share of the budget: the same pairs as one thread, and as the brute force."""
    texts = near_dups(7, 120, 3, chars=True)
    bi, bj, bf = brute_join(texts, None, 0.5, 0.5)
    for threads, block in ((1, 2_000_000), (8, 2_000_000), (8, 7), (3, 1)):
        got = similarity_join(texts, threshold=0.5, threads=threads, block=block)
        assert got.left.tolist() == bi.tolist() and got.right.tolist() == bj.tolist(), (threads, block)
        assert np.array_equal(got.f, bf)
    kept, best = brute_dedup(texts, texts[:40], 0.5, 0.5)
    got = deduplicate(texts, texts[:40], 0.5, threads=8, best="dropped")
    assert got.kept.tolist() == kept.tolist()


def test_text_settings_and_tokens_that_match_nothing():
    texts = ["The cat sat on the mat.", "the cat sat on a mat", "A dog barked loudly today", "a dog barked"]
    got = similarity_join(texts, threshold=0.5, tokenize="rouge_score")
    assert list(zip(got.left.tolist(), got.right.tolist())) == [(0, 1), (2, 3)]
    nan = float("nan")
    toks = [[nan, 1, 2], [nan, 1, 2]]  # nan matches nothing, not even itself
    got = similarity_join(toks, threshold=0.6)
    assert got.f.tolist() == [pytest.approx(2 / 3)]
    assert deduplicate(toks, (), 0.6).kept.tolist() == [0]


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), -float("inf")])
def test_non_finite_thresholds_are_refused(bad):
    with pytest.raises(ValueError, match="threshold must be finite"):
        deduplicate(["a b"], (), bad)
    with pytest.raises(ValueError, match="threshold must be finite"):
        similarity_join(["a b"], None, bad)


@pytest.mark.parametrize("bad", ["0.5", b"0.5", None, [0.5], True])
def test_non_numeric_thresholds_are_refused(bad):
    with pytest.raises(TypeError, match="threshold must be a real number"):
        deduplicate(["a b"], (), bad)
    with pytest.raises(TypeError, match="threshold must be a real number"):
        similarity_join(["a b"], threshold=bad)


@pytest.mark.parametrize("kw", [{"alpha": "0.5"}, {"gamma": "1.2"}, {"alpha": b"0.5"}])
def test_weights_given_as_strings_are_refused(kw):
    with pytest.raises(TypeError, match="must be a number"):
        deduplicate(["a b"], (), 0.5, **kw)
    with pytest.raises(TypeError, match="must be a number"):
        rouge_l_matrix(["a b"], ["a"], **kw)
    with pytest.raises(TypeError, match="must be a number"):
        similarity_join(["a b"], **kw)


def test_matrix_too_big_names_shape_and_bytes():
    q = ["a"] * 100_000
    shape = r"rouge_l_matrix: \[100,000 x 100,000\] needs about .*GiB \(80,000,000,000 bytes\)"
    with pytest.raises(MemoryError, match=shape):
        rouge_l_matrix(q, q)


def test_english_with_characters_gets_the_hint():
    texts = ["Write a poem about the sea", "Explain how to cook rice", "List three reasons why cats sleep"]
    for call in (lambda: deduplicate(texts), lambda: rouge_l_matrix(texts, texts),
                 lambda: similarity_join(texts)):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            call()
        assert [type(x.message) for x in w] == [TokenizationHint], w
        assert "tokenize='rouge_score'" in str(w[0].message)
        assert w[0].filename == __file__  # points at the user's call
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        deduplicate(texts, tokenize="rouge_score")
        deduplicate(["今天天气很好", "今天天气不错"])


def test_named_errors_and_empty_sides():
    with pytest.raises(TypeError, match="item 1"):
        deduplicate(["a", None])
    with pytest.raises(TypeError, match="pool item 0"):
        deduplicate(["a"], [{"x"}])
    with pytest.raises(TypeError, match="right item 1"):
        similarity_join(["a"], ["b", 3])
    with pytest.raises(TypeError, match="left item 0"):
        similarity_join([b"abc"])
    with pytest.raises(ValueError, match="best must be"):
        deduplicate(["a"], best="all")
    assert similarity_join([], threshold=0.5).left.tolist() == []
    assert similarity_join(["ab"], [], threshold=0.5).f.dtype == np.float64
    d = deduplicate([], ["a"])
    assert d.kept.tolist() == [] and d.best.tolist() == []
    d = deduplicate(["", "", "ab"], (), 0.0, best="exact")
    assert d.kept.tolist() == [0, 1, 2] and d.best.tolist() == [0.0, 0.0, 0.0]
    assert math.isnan(deduplicate(["ab"], best="dropped").best[0])
    d = deduplicate(["ab", "ab"], ["x"])  # the default: the dropped item's exact best, NaN for the kept
    assert math.isnan(d.best[0]) and d.best[1] == 1.0 and d.kept.tolist() == [0]


@settings(deadline=None, derandomize=True, max_examples=30 if SANITIZED else 300)
@given(st.lists(st.text(alphabet=st.sampled_from(list("aZ9 \t\r\x0b\u2028\u00a0\u03a3\u0130\u212a-.")) |
                        st.characters(), max_size=12), max_size=8),
       st.sampled_from([("whitespace", None), ("whitespace", True), ("rouge_score", None)]))
def test_batch_words_are_the_tokenizers(texts, how):
    from paddle_rougel.api.join import batch_words
    from paddle_rougel.core.text import TextSettings

    tok = TextSettings(how[0], lowercase=how[1]).tokenizer()
    got = batch_words(texts, tok.c_words)
    if any("\n" in x for x in texts):
        assert got is None
    else:
        assert got == [tuple(tok(x)) for x in texts]


def test_kernels_refuse_inconsistent_buffers():
    from paddle_rougel import _lcs

    z = np.zeros(1, dtype=np.int64)
    one = np.array([0, 1], dtype=np.int64)
    # one left text [e0], an index of element 0 -> right text 0 at position 0, right text 0 = [e0]
    n1 = np.array([1], dtype=np.int64)
    ok = (np.array([0], dtype=np.int64), one, n1, n1, one, z, z, n1, n1, z, one)
    xs, ys, nxt = _lcs.join_candidates(*ok, 0, 1, 0.5, 0.5, 0, 0, 100)
    assert nxt == 1 and np.frombuffer(xs, dtype=np.int64).tolist() == [0]
    bad_elem = (np.array([5], dtype=np.int64),) + ok[1:]   # an element past the index
    bad_rec = ok[:5] + (np.array([3], dtype=np.int64),) + ok[6:]  # a right id past rlen
    bad_pos = ok[:6] + (n1,) + ok[7:]  # a position past the right text
    bad_len = ok[:7] + (np.array([2], dtype=np.int64),) + ok[8:]  # a posting's length not its text's
    bad_rptr = ok[:10] + (np.array([0, 2], dtype=np.int64),)  # right text 0's elements past relems
    bad_ptr = (ok[0], np.array([0, 2], dtype=np.int64)) + ok[2:]  # left text 0's elements past elems
    short_rptr = ok[:10] + (z,)  # rptr must hold nr + 1 offsets
    for args, lo, hi in ((bad_elem, 0, 1), (bad_rec, 0, 1), (bad_pos, 0, 1), (bad_len, 0, 1), (bad_rptr, 0, 1),
                         (bad_ptr, 0, 1), (short_rptr, 0, 1), (ok, 0, 2), (ok, -1, 1)):
        for threads in (1, 4):
            with pytest.raises(ValueError, match="inconsistent"):
                _lcs.join_candidates(*args, lo, hi, 0.5, 0.5, 0, 0, 100, threads)
    with pytest.raises(ValueError, match="inconsistent"):
        _lcs.join_candidates(*ok, 0, 1, float("nan"), 0.5, 0, 0, 100)
    with pytest.raises(ValueError, match="out of range"):
        _lcs.lcs_index_pairs(["ab"], ["b"], np.array([1]), np.array([0]))
    assert _lcs.lcs_index_pairs(["ab", ("a",)], ["b"], np.array([1]), np.array([0])) is None
    got = _lcs.lcs_index_pairs(["ab", ("a",)], ["b"], np.array([0]), np.array([0]))  # the texts read only
    assert np.frombuffer(got, dtype=np.int64).tolist() == [1]
    got = _lcs.lcs_index_pairs(["ab", "ba"], ["b", "xab"], np.array([0, 1, 0]), np.array([1, 1, 0]))
    assert np.frombuffer(got, dtype=np.int64).tolist() == [2, 1, 1]


def _encoded_oracle(token_lists):
    """Plain Python: token ids by first occurrence; each text's elements (token, k-th occurrence)
    ranked by (the number of texts holding it, token id, k), listed ascending per text."""
    vocab, seqs = {}, []
    for toks in token_lists:
        seqs.append([vocab.setdefault(t, len(vocab)) for t in toks])
    width = max(map(len, seqs), default=0) + 1
    elems, df = [], {}
    for s in seqs:
        seen, mine = {}, []
        for tid in s:
            mine.append(tid * width + seen.get(tid, 0))
            seen[tid] = seen.get(tid, 0) + 1
        elems.append(mine)
        for e in mine:
            df[e] = df.get(e, 0) + 1
    rank = {e: r for r, e in enumerate(sorted(df, key=lambda e: (df[e], e)))}
    return [len(s) for s in seqs], [sorted(rank[e] for e in mine) for mine in elems]


@pytest.mark.parametrize("counted", [True, False])
@pytest.mark.parametrize("chunk", [1, 3, 1 << 16])
@settings(deadline=None, derandomize=True, max_examples=20 if SANITIZED else 150,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(texts=st.lists(st.text(alphabet=st.sampled_from(list("ab c\u00e9\u212a.-")), max_size=14), max_size=9),
       how=st.sampled_from(["whitespace", "rouge_score"]))
def test_words_read_in_chunks_encode_as_the_oracle(counted, chunk, texts, how, monkeypatch, backend):
    """encode_texts' words path (str items split chunk by chunk, one vocabulary; the C reader or
    the Python one) gives the element ranks of the plain-Python oracle, and exactly what the
    token-list path gives; the element keys counted (bincount) or sorted (np.unique) alike."""
    from paddle_rougel.api import join as join_mod
    from paddle_rougel.core.text import TextSettings
    from paddle_rougel.engine import candidates as cand

    if not counted:
        monkeypatch.setattr(cand, "_KEY_SPAN", 0)
        monkeypatch.setattr(cand, "_KEYS_PER_TOKEN", 0)
    monkeypatch.setattr(join_mod, "WORDS_CHUNK", chunk)
    tok = TextSettings(how).tokenizer()
    half = len(texts) // 2
    left, right = join_mod.encode_texts([(texts[:half], "a"), (texts[half:], "b")], tok, "t")
    lists = [tuple(tok(x)) for x in texts]
    want_lens, want_elems = _encoded_oracle(lists)
    got_elems = [left.elems[left.ptr[i]:left.ptr[i + 1]].tolist() for i in range(half)]
    got_elems += [right.elems[right.ptr[i]:right.ptr[i + 1]].tolist() for i in range(len(texts) - half)]
    assert left.lens.tolist() + right.lens.tolist() == want_lens
    assert got_elems == want_elems
    ref = cand.encode(lists)  # the token-list path
    assert list(left.texts) + list(right.texts) == ref.texts
    assert np.array_equal(np.concatenate([left.elems, right.elems]), ref.elems)


_SPACES = [chr(c) for c in range(0x110000) if chr(c).isspace()]


@pytest.mark.parametrize("mode", [0, 1])
@settings(deadline=None, derandomize=True, max_examples=40 if SANITIZED else 400,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=st.text(alphabet=st.sampled_from(_SPACES + list("aZz09_.-\u00e9\u0130\u212a\u4e2d\U0001f600")) |
                    st.characters(), max_size=40))
def test_line_word_ids_are_str_split_and_rouge_score_words(mode, text, backend):
    """line_word_ids (C and Python): per line (split at "\\n"), mode 0 the words of str.split()
    (every Unicode whitespace, \\x1c-\\x1f and \\x85 included), mode 1 the runs of [a-z0-9];
    ids in order of first occurrence, words[id] the word."""
    import re

    from paddle_rougel.engine import candidates as cand

    ids, lens, words = cand.line_word_ids(text, mode)
    lines = [s.split() if mode == 0 else re.findall("[a-z0-9]+", s) for s in text.split("\n")]
    flat = [w for line in lines for w in line]
    assert lens.tolist() == [len(line) for line in lines]
    assert [words[i] for i in ids.tolist()] == flat
    assert words == list(dict.fromkeys(flat))
    assert all(type(w) is str for w in words)
