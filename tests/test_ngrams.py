"""The ROUGE-N counting engine (``ngrams.ngram_overlap``: C kernel and Python fallback)
against an independent oracle written here (pairwise == comparisons of n-gram tuples, no
hashing, nothing shared with the package), and against rouge-score 0.1.2 itself.

The oracle groups n-grams by ``==`` token by token, so a token unequal to itself (NaN)
makes an n-gram equal to nothing, itself included: it matches nothing and, counted as a
set, is distinct from every other.
"""
from __future__ import annotations

import random
from collections import Counter

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from nltk.stem import porter
from rouge_score import rouge_scorer
from rouge_score import tokenize as rs_tokenize

from paddle_rougel import _lcs
from paddle_rougel.engine import host as engine
from paddle_rougel.engine.inputs import OneRef
from paddle_rougel.engine.ngrams import NgramResult, ngram_overlap
from oracle import ngram_pair_counts

SETTINGS = dict(deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
                max_examples=200)
NAN = float("nan")


# ------------------------------------------------------------------ the oracle

oracle_pair = ngram_pair_counts  # (hits, cand_grams, ref_grams) of one pair at order n


def oracle(cands, ref_lists, orders, distinct, split=list):
    hits, cgs, rgs, counts = [], [], [], []
    for cand, refs in zip(cands, ref_lists):
        cand = split(cand)
        counts.append(len(refs))
        cgs.append([oracle_pair(cand, [], n, distinct)[1] for n in orders])
        for ref in refs:
            ref = split(ref)
            rows = [oracle_pair(cand, ref, n, distinct) for n in orders]
            hits.append([r[0] for r in rows])
            rgs.append([r[2] for r in rows])
    return hits, cgs, rgs, counts


def check(res, want):
    assert isinstance(res, NgramResult)
    K = len(want[1][0]) if want[1] else res.cand_grams.shape[1]
    for got, exp in zip(res, want):
        assert got.dtype == np.int64
    assert res.hits.tolist() == (want[0] or np.zeros((0, K), np.int64).tolist())
    assert res.cand_grams.tolist() == want[1]
    assert res.ref_grams.tolist() == (want[2] or np.zeros((0, K), np.int64).tolist())
    assert res.ref_count.tolist() == want[3]
    assert res.offsets.tolist() == [0] + np.cumsum(want[3]).tolist()


# ------------------------------------------------------------------ strategies

TOKENS = st.sampled_from([0, 1, 2, 3, "a", "b", 1.0, True, NAN, ("t", 1), None])
orders_st = st.lists(st.integers(1, 6), min_size=1, max_size=4, unique=True).map(tuple)


@st.composite
def text(draw):
    if draw(st.booleans()):
        return draw(st.text(alphabet="abcd", max_size=14))
    return draw(st.lists(TOKENS, max_size=14))


@st.composite
def batch(draw):
    n = draw(st.integers(0, 5))
    return ([draw(text()) for _ in range(n)],
            [[draw(text()) for _ in range(draw(st.integers(1, 3)))] for _ in range(n)])


@pytest.fixture(params=[("c", 1), ("c", 4), ("python", None)], ids=["c-threads1", "c-threads4", "python"])
def variant(request, on_backend):
    name, threads = request.param
    with on_backend(name):
        yield threads


# ------------------------------------------------------------------ counts vs the oracle

@settings(**SETTINGS)
@given(b=batch(), orders=orders_st, distinct=st.booleans())
def test_tokens_match_the_oracle(variant, b, orders, distinct):
    cands, refs = b
    check(ngram_overlap(cands, refs, orders, distinct=distinct, threads=variant),
          oracle(cands, refs, orders, distinct))


def test_worked_examples(variant):
    res = ngram_overlap(["abcab", "xy", [1, NAN, 2, NAN]], [["abab", "c"], [""], [[1, NAN, 2, NAN, 1]]],
                        orders=(3, 1, 2), threads=variant)
    assert res.hits.tolist() == [[0, 4, 2], [0, 1, 0], [0, 0, 0], [0, 2, 0]]
    assert res.cand_grams.tolist() == [[3, 5, 4], [0, 2, 1], [2, 4, 3]]
    assert res.ref_grams.tolist() == [[2, 4, 3], [0, 1, 0], [0, 0, 0], [3, 5, 4]]
    res = ngram_overlap(["abcab", "xy", [1, NAN, 2, NAN]], [["abab", "c"], [""], [[1, NAN, 2, NAN, 1]]],
                        orders=(3, 1, 2), distinct=True, threads=variant)
    assert res.hits.tolist() == [[0, 2, 1], [0, 1, 0], [0, 0, 0], [0, 2, 0]]
    assert res.cand_grams.tolist() == [[3, 3, 3], [0, 2, 1], [2, 4, 3]]  # each NaN n-gram its own
    assert res.ref_grams.tolist() == [[2, 2, 2], [0, 1, 0], [0, 0, 0], [3, 4, 4]]


def test_the_same_nan_object_matches_nothing(variant):
    tok = NAN  # one object, everywhere
    res = ngram_overlap([[tok, tok, "a"]], [[[tok, tok, "a"]]], orders=(1, 2, 3), distinct=True, threads=variant)
    assert res.hits.tolist() == [[1, 0, 0]]
    assert res.cand_grams.tolist() == [[3, 2, 1]] and res.ref_grams.tolist() == [[3, 2, 1]]


def test_orders_beyond_every_text_and_huge_orders(variant):
    res = ngram_overlap(["ab", ""], [["abc"], ["", "a"]], orders=(1, 3, 10 ** 30), threads=variant)
    assert res.hits.tolist() == [[2, 0, 0], [0, 0, 0], [0, 0, 0]]
    assert res.cand_grams.tolist() == [[2, 0, 0], [0, 0, 0]]
    assert res.ref_grams.tolist() == [[3, 1, 0], [0, 0, 0], [1, 0, 0]]


@pytest.mark.parametrize("vocab", [3, 2000])
def test_long_texts_many_distinct_tokens(variant, vocab):
    """Candidates of over 255 distinct tokens (the kernel's hash table rather than its direct
    (n-gram, token) table) and of a few repeated ones."""
    if vocab not in _LONG:  # the oracle is quadratic: once for the three variants
        rng = random.Random(vocab)
        cands = [[rng.randrange(vocab) for _ in range(rng.randint(300, 400))] for _ in range(3)]
        refs = [[c[rng.randrange(50):][:300] + [rng.randrange(vocab) for _ in range(50)], c[::-1]] for c in cands]
        _LONG[vocab] = cands, refs, {d: oracle(cands, refs, (1, 2, 3, 5), d) for d in (False, True)}
    cands, refs, want = _LONG[vocab]
    for distinct in (False, True):
        check(ngram_overlap(cands, refs, (1, 2, 3, 5), distinct=distinct, threads=variant), want[distinct])


_LONG: dict = {}


def _counter_counts(cand, ref, n, distinct):
    """(hits, cand_grams, ref_grams) at order n from collections.Counter (this test's own
    oracle): clipped, or as sets (distinct)."""
    c = Counter(tuple(cand[i:i + n]) for i in range(len(cand) - n + 1))
    r = Counter(tuple(ref[i:i + n]) for i in range(len(ref) - n + 1))
    if distinct:
        return len(c.keys() & r.keys()), len(c), len(r)
    return sum(min(v, r[g]) for g, v in c.items()), max(len(cand) - n + 1, 0), max(len(ref) - n + 1, 0)


def _fast_table_cases():
    """Candidates of k distinct words around the kernel's limits for orders 1 and 2 (its
    one-pass tables: clipped k <= 247, distinct: at most 255 distinct words in the instance;
    widths 7..17), references with long runs of words the candidate lacks (more than the 8
    spread slots for them, in a row), words repeated beyond the candidate's count, several
    references (the candidate's counts restored for each; bigrams shared between
    references but not the candidate), empty and one-word texts."""
    rng = random.Random(2024)
    cands, refs = [], []
    for k in [0, 1, 2, 7, 8, 9, 15, 16, 17, 100, 240, 243, 244, 245, 246, 247, 248, 249, 300]:
        for _ in range(2):
            words = [f"w{j}" for j in range(k)]
            cand = words + [rng.choice(words) for _ in range(rng.randint(0, 30))] if k else []
            rng.shuffle(cand)
            rl = []
            for _ in range(rng.randint(1, 4)):
                ref = []
                while len(ref) < rng.randint(0, 60):
                    u = rng.random()
                    if u < 0.3 and cand:
                        i = rng.randrange(len(cand))
                        ref += cand[i:i + rng.randint(1, 6)]          # shared bigrams
                    elif u < 0.5:
                        ref += [f"x{rng.randrange(12)}" for _ in range(rng.randint(1, 25))]  # missing runs
                    elif u < 0.6 and rl:
                        ref += rng.choice(rl)[:rng.randint(1, 8)]      # an earlier reference's bigrams
                    elif u < 0.75 and cand:
                        ref += [rng.choice(cand)] * rng.randint(1, 5)  # beyond the candidate's count
                    else:
                        ref.append(rng.choice(cand + ["y"]) if cand else "y")
                rl.append(ref)
            cands.append(cand)
            refs.append(rl)
    cands += [[], ["a"], ["a"], ["a", "a"], ["a", "b", "a", "b"]]
    refs += [[["a", "b"]], [[]], [["a"], ["a", "a"], ["b"]], [["a", "a", "a"], ["a"]],
             [["a", "b", "a", "b", "a", "b"], ["a", "b", "a", "b"], ["b", "a"]]]
    distinct_words = [len(set(c).union(*rl)) for c, rl in zip(cands, refs)]
    assert any(250 <= v <= 255 for v in distinct_words) and any(256 <= v <= 262 for v in distinct_words)
    return cands, refs


@pytest.mark.parametrize("distinct", [False, True])
@pytest.mark.parametrize("orders", [(1, 2), (2, 1), (1,), (2,), (1, 2, 3)])
def test_low_orders_match_a_counter(variant, orders, distinct):
    cands, refs = _fast_table_cases()
    hits, rgs = [], []
    for cand, rl in zip(cands, refs):
        for ref in rl:
            rows = [_counter_counts(cand, ref, n, distinct) for n in orders]
            hits.append([r[0] for r in rows])
            rgs.append([r[2] for r in rows])
    cgs = [[_counter_counts(c, [], n, distinct)[1] for n in orders] for c in cands]
    for texts in (False, True):  # token lists (rougen_range) and str read in C (the word reader)
        c, r = (cands, refs) if not texts else ([" ".join(x) for x in cands], [[" ".join(x) for x in rl] for rl in refs])
        res = ngram_overlap(c, r, orders, distinct=distinct, words=(0, False) if texts else None, threads=variant)
        assert res.hits.tolist() == hits
        assert res.cand_grams.tolist() == cgs
        assert res.ref_grams.tolist() == rgs


def test_empty_batch_has_k_columns(variant):
    res = ngram_overlap([], [], orders=(1, 2, 4), threads=variant)
    assert res.hits.shape == (0, 3) and res.cand_grams.shape == (0, 3) and res.ref_count.shape == (0,)


def test_one_ref_without_words_reads_characters(variant):
    res = ngram_overlap(["abcab", "xy"], OneRef(("abab", "")), orders=(2, 1), threads=variant)
    assert res.hits.tolist() == [[2, 4], [0, 0]] and res.ref_count.tolist() == [1, 1]
    assert res.ref_grams.tolist() == [[3, 4], [0, 0]]


def test_numpy_and_generators_read_as_lcs_batch(variant):
    cands = (c for c in [np.array([1, 2, 1], dtype=">i2"), range(3)])
    res = ngram_overlap(cands, [[[1, 2, 1, 1.0]], iter([(0, 1, 2)])], orders=(1, 2), threads=variant)
    assert res.hits.tolist() == [[3, 2], [3, 2]]


# ------------------------------------------------------------------ words

SPACES = [" ", "  ", "\t", "\n", "\x85", "\xa0", "\u3000", "\u200b"]
PIECES = ["the", "The", "THE", "cat", "Cat-sat", "on", "mat!", "a", "12", "x1", "caf\xe9", "CAF\xc9",
          "\u212aelvin", "kelvin", "\u4e2d\u6587", "\U0001F600", "abcdefghi", "ABCDEFGHI", "don't"]


@st.composite
def words_text(draw):
    parts = []
    for _ in range(draw(st.integers(0, 14))):
        parts += [draw(st.sampled_from(PIECES)), draw(st.sampled_from(SPACES))]
    return "".join(parts)


@st.composite
def words_batch(draw):
    n = draw(st.integers(1, 4))
    return ([draw(words_text()) for _ in range(n)],
            [[draw(words_text()) for _ in range(draw(st.integers(1, 3)))] for _ in range(n)])


SPLITS = {(0, False): str.split, (0, True): lambda t: t.lower().split(),
          (1, True): lambda t: rs_tokenize.tokenize(t, None)}


@settings(**SETTINGS)
@given(b=words_batch(), orders=orders_st, distinct=st.booleans(), words=st.sampled_from(sorted(SPLITS)))
def test_words_match_the_oracle(variant, b, orders, distinct, words):
    cands, refs = b
    want = oracle(cands, refs, orders, distinct, split=SPLITS[words])
    check(ngram_overlap(cands, refs, orders, distinct=distinct, words=words, threads=variant), want)
    if all(len(r) == 1 for r in refs):  # one str reference each, without 1-tuples
        one = OneRef(tuple(r[0] for r in refs))
        check(ngram_overlap(cands, one, orders, distinct=distinct, words=words, threads=variant), want)


def test_str_batches_of_any_reference_container_are_read_in_c(monkeypatch):
    """FlatRefs (a validated str batch's references), OneRef, tuples: the words are read in C,
    never by the Python tokenizer."""
    from paddle_rougel.engine import inputs

    def no(*a, **k):
        raise AssertionError("split by the Python tokenizer")

    monkeypatch.setattr(inputs, "split_words", no)
    cands = ["the cat sat", "a b a"]
    want = oracle(cands, [["the cat", "cat sat on"], ["a b"]], (1, 2), False, split=str.split)
    flat = inputs.FlatRefs(("the cat", "cat sat on", "a b"), np.array([0, 2, 3]))
    for refs in (flat, (("the cat", "cat sat on"), ("a b",))):
        check(ngram_overlap(cands, refs, (1, 2), words=(0, False)), want)
    check(ngram_overlap(cands, OneRef(("the cat", "a b")), (1, 2), words=(0, False)),
          oracle(cands, [["the cat"], ["a b"]], (1, 2), False, split=str.split))


def test_words_with_token_lists_use_the_python_tokenizer(variant):
    res = ngram_overlap(["The cat sat", ["the", "cat"]], [["the CAT"], ["the cat sat"]], orders=(1, 2),
                        words=(0, True), threads=variant)
    assert res.hits.tolist() == [[2, 1], [2, 1]]


def test_fused_counts_leave_the_lcs_unchanged():
    """lcs_words with n-gram counts (distinct: every reference word gets an id) gives the LCS
    it gives alone."""
    rng = random.Random(3)
    vocab = PIECES + ["dog", "sat", "mat"]

    def t():
        return " ".join(rng.choice(vocab) for _ in range(rng.randint(0, 90)))

    cands = [t() for _ in range(300)]
    refs = [[t() for _ in range(rng.randint(1, 3))] for _ in cands]
    for mode, fold in SPLITS:
        alone = [np.frombuffer(x, dtype=np.int64) for x in _lcs.lcs_words(cands, refs, mode, fold)]
        for distinct in (False, True):
            fused = _lcs.lcs_words(cands, refs, mode, fold, orders=(1, 2), distinct=distinct)
            for a, f in zip(alone, fused[:4]):
                assert np.array_equal(a, np.frombuffer(f, dtype=np.int64))


def test_threads_agree_on_a_batch_large_enough_to_split():
    rng = random.Random(7)
    vocab = [f"w{k}" for k in range(300)]

    def t():
        return " ".join(rng.choice(vocab[:rng.choice([20, 300])]) for _ in range(rng.randint(0, 80)))

    cands = [t() for _ in range(3000)]
    refs = [[t() for _ in range(rng.randint(1, 3))] for _ in cands]
    toks_c, toks_r = [c.split() for c in cands], [[r.split() for r in rs] for rs in refs]
    for distinct in (False, True):
        runs = [ngram_overlap(cands, refs, (1, 2, 3), distinct=distinct, words=(0, False), threads=th)
                for th in (1, 4)]
        runs += [ngram_overlap(toks_c, toks_r, (1, 2, 3), distinct=distinct, threads=th) for th in (1, 4)]
        engine.set_backend("python")
        try:
            runs.append(ngram_overlap(toks_c[:300], toks_r[:300], (1, 2, 3), distinct=distinct))
        finally:
            engine.set_backend("c")
        for r in runs[1:4]:
            for a, b in zip(runs[0], r):
                assert np.array_equal(a, b)
        m = int(runs[0].ref_count[:300].sum())
        assert runs[0].hits[:m].tolist() == runs[4].hits.tolist()
        assert runs[0].ref_grams[:m].tolist() == runs[4].ref_grams.tolist()
        assert runs[0].cand_grams[:300].tolist() == runs[4].cand_grams.tolist()


# ------------------------------------------------------------------ bad input

@pytest.mark.parametrize("orders", [(), (0,), (1, 1), (2, -1), ("a",), (1.5,), (True,), [2, 2]])
def test_bad_orders_raise_value_error(variant, orders):
    with pytest.raises(ValueError, match="order"):
        ngram_overlap(["ab"], [["ab"]], orders=orders)


@pytest.mark.parametrize("orders", ["12", 2, None, {1, 2}])
def test_orders_not_a_sequence_raise_type_error(variant, orders):
    with pytest.raises(TypeError, match="orders must be a tuple"):
        ngram_overlap(["ab"], [["ab"]], orders=orders)


@pytest.mark.parametrize("cands, refs, exc, msg", [
    (["ab", None], [["a"], ["b"]], TypeError, "instance 1, candidate: got None"),
    (["ab", "c"], [["a"], ["b", None]], TypeError, "instance 1, reference 1: got None"),
    (["ab"], [[{"a", "b"}]], TypeError, "instance 0, reference 0: a set has no order"),
    ([[1, [2]]], [["ab"]], TypeError, r"instance 0, candidate: token 1 \(list\)"),
    (["ab"], [["a", [0, 1, {}]]], TypeError, r"instance 0, reference 1: token 2 \(dict\)"),
    (["ab"], ["ab"], TypeError, "instance 0: ref_list must be a list of references"),
    (["ab"], [[]], ValueError, "instance 0: ref_list is empty"),
    (["ab", "c"], [["a"]], ValueError, "got 2 candidates but 1 reference lists"),
    ("ab", [["a"]], TypeError, "list of candidates"),
    ({"ab"}, [["a"]], TypeError, "cands is a set"),
])
@pytest.mark.parametrize("words", [None, (0, False)])
def test_bad_input_names_the_item(variant, cands, refs, exc, msg, words):
    """As lcs_batch: the same exception and message (words: the text settings' own words)."""
    with pytest.raises(exc) as lcs_err:
        engine.lcs_batch(cands, refs, words=words)
    with pytest.raises(exc) as err:
        ngram_overlap(cands, refs, (1, 2), words=words)
    assert str(err.value) == str(lcs_err.value).replace("lcs_batch", "ngram_overlap")
    if words is None:
        assert err.match(msg)


def test_inputs_are_not_modified(variant):
    cands, refs = [[1, NAN, 2]], [[[NAN, 1, 2]]]
    ngram_overlap(cands, refs, (1, 2))
    assert cands[0][0] == 1 and cands[0][1] is NAN and refs[0][0][0] is NAN


# ------------------------------------------------------------------ rouge-score 0.1.2

WORDS = ("the a of to and in is was for on that with as by it at from his her this an be are has had "
         "summary report government said year people new first time police city two court state "
         "running runs ran easily studies studied caring cared 2019 3rd U.S. don't").split()


def english(rng):
    words = [rng.choice(WORDS) for _ in range(rng.randint(0, 40))]
    text = " ".join(w.capitalize() if rng.random() < 0.1 else w for w in words)
    return text + rng.choice(["", ".", "!", " ,", "  "])


def prf(hits, cand_grams, ref_grams):
    """rouge-score 0.1.2's _score_ngrams arithmetic from the counts."""
    p = hits / max(cand_grams, 1)
    r = hits / max(ref_grams, 1)
    return p, r, (2 * p * r / (p + r) if p + r > 0 else 0.0)


@pytest.mark.parametrize("stem", [False, True])
def test_p_r_f_equal_rouge_score(variant, stem):
    rng = random.Random(11 + stem)
    cands = [english(rng) for _ in range(400)]
    refs = [english(rng) if rng.random() < 0.7 else cands[i][::-1] for i in range(len(cands))]
    scorer = rouge_scorer.RougeScorer(["rouge1", "rouge2", "rouge3"], use_stemmer=stem)
    if stem:  # rouge-score's tokenizer and stemmer in Python; token lists to the engine
        stemmer = porter.PorterStemmer()
        tok = lambda t: rs_tokenize.tokenize(t, stemmer)  # noqa: E731
        res = ngram_overlap([tok(c) for c in cands], [[tok(r)] for r in refs], (1, 2, 3), threads=variant)
    else:
        res = ngram_overlap(cands, [[r] for r in refs], (1, 2, 3), words=(1, True), threads=variant)
    for i, (c, r) in enumerate(zip(cands, refs)):
        want = scorer.score(r, c)
        for k, name in enumerate(["rouge1", "rouge2", "rouge3"]):
            got = prf(res.hits[i, k], res.cand_grams[i, k], res.ref_grams[i, k])
            exp = want[name]
            assert got == pytest.approx((exp.precision, exp.recall, exp.fmeasure), abs=1e-12, rel=0), (i, name)
