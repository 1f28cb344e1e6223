"""ROUGE-Lsum equals rouge-score 0.1.2's ``rougeLsum`` exactly, on every engine path.

Paths: the C token kernel (threads 1 and 2), the C text path (ASCII text with
rouge-score's own tokenization), and the pure-Python fallback.  rouge-score is
imported for real: if it cannot be imported these tests fail.

Published cases from google-research/rouge ``rouge_scorer_test.py`` (numbers
and, for the multi-sentence ROUGE-1.5.5 case, its small test files, Apache-2.0):
testLcsTable, testUnionLcs, testSummaryLevelLcs, testRougeLsum,
testRougeLSumAgainstRouge155WithStemming and the newline / single-sentence
cases of testRougeLSumSentenceSplitting.  testRougeLsumLarge's data files
are not shipped in the rouge-score wheel; a generated document of hundreds
of sentences is checked against rouge-score itself instead.
"""
from __future__ import annotations

import random
import re

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rouge_score import rouge_scorer as rs

from paddle_rougel import RougeLsum, compute, rouge_lsum
from paddle_rougel.engine import cext
from paddle_rougel.engine import fallbacks
from paddle_rougel.engine import host as engine, lsum
from paddle_rougel.metrics import ACCUMULATORS
from paddle_rougel.metrics.rouge_lsum import RougeLsumAccumulator
from paddle_rougel.metrics import from_state
from paddle_rougel.api.functional import compute as _compute


def compute_rouge_l(*a, **k):  # ROUGE-L only (the default rouge_types)
    return _compute(*a, **k)
from paddle_rougel.engine.inputs import FlatRefs
from paddle_rougel.engine.lsum import lcs_positions, make_lsum_batch, split_sentences
from paddle_rougel.metrics import SETTINGS
from paddle_rougel.metrics.rouge_lsum import RougeLsumSettings
from paddle_rougel.core.text import TextSettings

TOL = 1e-12
SCORER = rs.RougeScorer(["rougeLsum"])
STEM_SCORER = rs.RougeScorer(["rougeLsum"], use_stemmer=True)
RS = dict(tokenize="rouge_score")  # rouge-score's tokenizer: its numbers


@pytest.fixture(params=["c1", "c2", "python"])
def path(request, on_backend):
    """Run on one engine path; yields the thread count for the C kernel."""
    with on_backend("python" if request.param == "python" else "c"):
        yield 2 if request.param == "c2" else 1


def theirs_tokens(cand, ref):
    """rouge-score on token lists: its _summary_level_lcs (the reference first)."""
    s = rs._summary_level_lcs([list(x) for x in ref], [list(x) for x in cand])
    return s.precision, s.recall, s.fmeasure


def ours_tokens(cands, refs, threads):
    res = lsum._tokens_batch(*_as_batch(cands, refs), threads)
    n = res.cand_len.astype(float)
    m = res.ref_len.astype(float)
    p = np.where(n > 0, res.hits / np.maximum(n, 1), 0.0)
    r = np.where(m > 0, res.hits / np.maximum(m, 1), 0.0)
    return p, r


def _as_batch(cands, refs):
    b = make_lsum_batch(cands, [[r] for r in refs])
    return b.cands, b.ref_lists


def random_doc(rng, alphabet, max_len, max_sents=4):
    return [[rng.randrange(alphabet) for _ in range(rng.randint(0, max_len))]
            for _ in range(rng.randint(0, max_sents))]


# ------------------------------------------------------------- published cases

def test_lcs_table_case():
    ref = [1, 2, 3, 4, 5]
    assert lcs_positions(ref, [2, 5, 3, 4]) == [1, 2, 3]  # values 2, 3, 4
    assert lcs_positions(ref, [8, 9]) == []


def test_union_lcs_case(path):
    ref = [1, 2, 3, 4, 5]
    c1, c2 = [1, 2, 6, 7, 8], [1, 3, 8, 9, 5]
    assert lcs_positions(ref, c1) == [0, 1] and lcs_positions(ref, c2) == [0, 2, 4]
    res = lsum._tokens_batch(((tuple(c1), tuple(c2)),), (((tuple(ref),),),), path)
    assert res.hits.tolist() == [4]  # union [1, 2, 3, 5]


def test_summary_level_lcs_case(path):
    f, p, r = rouge_lsum([[[1, 2, 6, 7, 8], [1, 3, 8, 9, 5]]], [[[1, 2, 3, 4, 5]]])
    assert r.tolist() == [0.8] and p.tolist() == [0.4]
    assert f[0] == pytest.approx(0.5333, abs=1e-3) and abs(f[0] - 8 / 15) < TOL
    f, p, r = rouge_lsum([[[]]], [[["reference"]]])  # the tokenizer dropped every token
    assert (f[0], p[0], r[0]) == (0.0, 0.0, 0.0)


@pytest.mark.parametrize("target,prediction,want", [
    ("w1 w2 w3 w4 w5", "w1 w2 w6 w7 w8\nw1 w3 w8 w9 w5", (0.4, 0.8)),
    ("w1 w2 w3 w4 w5", "", (0.0, 0.0)),
    ("", "w1", (0.0, 0.0)),
    ("w1 w2 w3 w4 w5", "/", (0.0, 0.0)),  # a summary of non-word characters only
])
def test_rouge_lsum_cases(path, target, prediction, want):
    f, p, r = rouge_lsum([prediction], [target], **RS)
    assert (p[0], r[0]) == want
    if want[0]:
        assert f[0] == pytest.approx(0.5333, abs=1e-3)


# google-research/rouge testdata/pyrouge_files/{prediction,target}_multi.0.txt
MULTI_PREDICTION = (
    "rFDJCRtion Ht-LM EKtDXkME,yz'RBr q'wer wrojNbN wL,b .a-'XdQggyFl jB-RPP'iyOIcUxi\n"
    "n cw-WeFyu vC MoBL Xdn g wkvcEiGvKtion BDFhrpMer pstion sbKao Q m qier LMmed HqqLFXe,XPY,J "
    "XsurkMeo ,ed nB'wH'bWVHjWFEer tQ.saefZwJtKrTlixYpMMNJtion UCAPwNHeYVjD\n"
    "xfs VkJE QhgKiLHE -HidivzoM.dO anhing jbLQiSGDTCsuhREebUaKM dv J\n"
    "VjWH'BdyWjnfGU-OjTNaEMdFICyLWfQMing wEMfdOKijg AwkeKbO 'DxqNO\n")
MULTI_TARGET = (
    "ZfbCUIUuePaiLVUlCaUXxkpu XPeWing tUHfPMuZ',-Xd Y BrUgVJing M-HV.-DgdDaY.rFDJCRing Ht-LM "
    "EKBDXkME,yz'RBr q'wtion wIojNbN wL,b .a-'XdQggyFl jB-RPP'iyOIcUxer tKM L\n"
    "KsJdPByEtAor fE-Qg Dpdbring cw-WeFyu vC MoBL Xdn g wkvcEiGvKtion BDFhrpMtion psing sbKao Q m "
    "qiing LMmer HqqLFXe,XPY,J XsurkMer ,ed nB'wH'bWVHjWFEing tQ.saefZwJtKrTlixYpMMsJing "
    "UCAPwNHeYVjDing c T BUySKtion gMPfJpwGw p'NvxAoping eu pBwMBKV'I DNxqelhu,PHPxDEq,mtion SN\n"
    "NhETebUbBk'er WOvoHMTjSRizKgH'vHiing Xu,hWxfs VkNE QhgKiLHE -HidivzoM.dO anhtion "
    "jbLQiSGDTCsuhREebUaKM dv J dVN tmbOT\n"
    "vMR HDm,xOAetion D,tion HJtodT.mHl UIv-p VjWH'BdyWjnfGU-OjT aEMdFICyLWfQMtion wEMfdOKing "
    "AwkeKbO 'DxqNOHBH qKtVvm OYJl mM\n")


def test_rouge155_multi_sentence_with_stemming(path):
    f, p, r = rouge_lsum([MULTI_PREDICTION], [MULTI_TARGET], tokenize="rouge_score", stem=True)
    assert round(r[0], 5) == 0.36538 and round(p[0], 5) == 0.66667 and round(f[0], 5) == 0.47205
    want = STEM_SCORER.score(MULTI_TARGET, MULTI_PREDICTION)["rougeLsum"]
    assert abs(p[0] - want.precision) < TOL and abs(r[0] - want.recall) < TOL


def test_sentence_splitting_case(path):
    target, prediction = "First sentence.\nSecond Sentence.", "Second sentence.\nFirst Sentence."
    kw = dict(tokenize="rouge_score", stem=True)
    assert rouge_lsum([prediction], [target], **kw).f_measure.tolist() == [1.0]
    joined = rouge_lsum([prediction.replace("\n", " ")], [target.replace("\n", " ")], **kw)
    assert [joined.p_measure[0], joined.r_measure[0], joined.f_measure[0]] == [0.5, 0.5, 0.5]
    en = rouge_lsum([prediction.replace("\n", " ")], [target.replace("\n", " ")], split="en", **kw)
    assert en.f_measure.tolist() == [1.0]  # as rouge-score's nltk sentence split gives


@pytest.fixture(scope="module")
def large_case():
    """Documents of hundreds of sentences (rouge-score takes about 2 s): computed once."""
    rng = random.Random(11)
    words = [f"w{k}" for k in range(60)]

    def doc(n):
        return "\n".join(" ".join(rng.choice(words) for _ in range(rng.randint(1, 30)))
                         for _ in range(n))
    target, prediction = doc(250), doc(200)
    return target, prediction, SCORER.score(target, prediction)["rougeLsum"]


def test_large_document_against_rouge_score(path, large_case):
    target, prediction, want = large_case
    f, p, r = rouge_lsum([prediction], [target], **RS)
    assert abs(p[0] - want.precision) < TOL and abs(r[0] - want.recall) < TOL
    assert abs(f[0] - want.fmeasure) < TOL


# ---------------------------------------------------------- ties decide the union

@pytest.mark.parametrize("cand,ref,rouge_hits,other_hits", [
    # LCS(aba, a): rouge-score matches the last a (a match goes diagonal first)
    ([["a"], ["b", "a"]], [["a", "b", "a"]], 2, 3),
    # LCS(ab, ba) = a or b: on a tie rouge-score goes up, so it keeps the a
    ([["b", "a"], ["a"]], [["a", "b"]], 1, 2),
])
def test_ties_pick_rouge_scores_lcs(path, cand, ref, rouge_hits, other_hits):
    # other_hits: the union had the other LCS of the tied pair been taken
    assert rs._summary_level_lcs(ref, cand).precision == rouge_hits / sum(map(len, cand))
    res = lsum._tokens_batch(*_as_batch([cand], [ref]), path)
    assert res.hits.tolist() == [rouge_hits] != [other_hits]
    text = rouge_lsum(["\n".join(map(" ".join, cand))], ["\n".join(map(" ".join, ref))], **RS)
    assert text.p_measure.tolist() == [rouge_hits / sum(map(len, cand))]


# --------------------------------------------------------------- randomised

@pytest.mark.parametrize("max_len", [6, 40, 70, 150])
def test_random_token_documents(path, max_len):
    rng = random.Random(max_len)
    cands, refs = [], []
    for _ in range(150 if max_len < 100 else 40):
        alphabet = rng.choice([1, 2, 3, 5, 20])
        cands.append(random_doc(rng, alphabet, max_len))
        refs.append(random_doc(rng, alphabet, max_len))
    p, r = ours_tokens(cands, refs, path)
    for k, (c, ref) in enumerate(zip(cands, refs)):
        wp, wr, _ = theirs_tokens(c, ref)
        assert abs(p[k] - wp) < TOL and abs(r[k] - wr) < TOL, (c, ref)


def _random_text(rng, words, n_sents):
    seps = [" ", " ", " ", ", ", " - ", "'", " (", ") "]
    sents = []
    for _ in range(n_sents):
        toks = [rng.choice(words) for _ in range(rng.randint(0, 12))]
        sents.append("".join(t + rng.choice(seps) for t in toks).strip() + rng.choice([".", "!", "", "?"]))
        if rng.random() < 0.1:
            sents.append(rng.choice(["", "  ", "\r", "/", "..."]))
    return "\n".join(sents)


@pytest.mark.parametrize("unicode", [False, True])
def test_random_texts_against_rouge_score(path, unicode):
    rng = random.Random(3 + unicode)
    words = ["The", "cat", "CAT", "sat", "on", "mat", "a", "3", "dog's", "x1", "longerword" * 2]
    if unicode:  # non-ASCII text leaves the C text path for the Python tokenizer
        words += ["café", "naïve", "Straße", "\u212a", "日本"]
    preds = [_random_text(rng, words, rng.randint(0, 5)) for _ in range(200)]
    targets = [[_random_text(rng, words, rng.randint(0, 5)) for _ in range(rng.randint(1, 3))]
               for _ in range(200)]
    out = compute(preds, targets, rouge_types="rougeLsum", gamma=1.0, multi_ref="best",
                  per_instance=True, **RS)["per_instance"]
    for k, (pred, tgt) in enumerate(zip(preds, targets)):
        want = SCORER.score_multi(tgt, pred)["rougeLsum"]
        assert abs(out["rougeLsum_precision"][k] - want.precision) < TOL
        assert abs(out["rougeLsum_recall"][k] - want.recall) < TOL
        assert abs(out["rougeLsum"][k] - want.fmeasure) < TOL


def test_c_text_path_is_taken_for_ascii_and_agrees_with_tokens():
    preds, targets = ["A b.\nc A", "x"], [["a c\nb", "c"], ["y"]]
    raw = cext.lcs.lsum_text(preds, targets, None, 1)
    assert raw is not None and cext.lcs.lsum_text(["é"], [["e"]], None, 1) is None
    hits = np.frombuffer(raw[0], dtype=np.int64).tolist()
    acc = RougeLsumAccumulator(RougeLsumSettings(text=TextSettings(tokenize="rouge_score")))
    prepared = [acc._prepare(p) for p in preds], [[acc._prepare(t) for t in ts] for ts in targets]
    assert lsum._tokens_batch(*map(tuple, prepared)).hits.tolist() == hits == [2, 1, 0]
    # [a c] ties with [c a]: rouge-score keeps the a, so the c is no hit
    assert SCORER.score(targets[0][0], preds[0])["rougeLsum"].precision == 2 / 4


# characters of every str storage width: ASCII, Latin-1, CJK (2 bytes), astral (4 bytes)
_CHARS = list("abAB ,.\r\t") + ["é", "ß", "中", "文", "的", "。", "😀", "𝒳"]


def _char_text(rng):
    """Text for the char mode: runs of up to 150 characters (sentences over 64 take the
    long path), '\n' runs between them (empty sentences), or nothing at all."""
    parts = []
    for _ in range(rng.choice([0, 1, 2, 4])):
        alphabet = rng.sample(_CHARS, rng.randint(1, 6))
        parts.append("".join(rng.choice(alphabet) for _ in range(rng.choice([0, 1, 3, 20, 70, 150]))))
        parts.append(rng.choice(["\n", "\n", "\n\n", ""]))
    return "".join(parts)


def _char_prepared(text):  # the Python path: newline split, each sentence its characters
    return tuple(s for s in text.split("\n") if s)


@pytest.mark.parametrize("seed", range(3))
def test_c_char_path_against_the_python_paths(seed):
    """The default text settings (every character a token, newline split) in C, on any
    str, equal the token kernel and the pure-Python engine on the split sentences."""
    rng = random.Random(300 + seed)
    preds = [_char_text(rng) for _ in range(150)]
    targets = [[_char_text(rng) for _ in range(rng.randint(1, 3))] for _ in range(150)]
    raw = cext.lcs.lsum_text(preds, targets, None, 1 + seed % 2, True)
    assert raw is not None
    hits, cand_len, ref_len = (np.frombuffer(x, dtype=np.int64).tolist() for x in raw)
    cands = tuple(map(_char_prepared, preds))
    refs = tuple(tuple(map(_char_prepared, ts)) for ts in targets)
    ref_count = np.array([len(r) for r in refs])
    want = fallbacks.python_lsum_batch(cands, refs, ref_count)
    assert hits == want.hits.tolist() == lsum._tokens_batch(cands, refs).hits.tolist()
    assert cand_len == want.cand_len.tolist() and ref_len == want.ref_len.tolist()
    assert cext.lcs.lsum_text(preds, targets, None, 1) is None or all(
        t.isascii() for t in preds + [x for ts in targets for x in ts])  # rouge-score mode: ASCII only


def test_default_settings_take_the_char_path_with_the_same_scores(monkeypatch):
    rng = random.Random(9)
    preds = [_char_text(rng) for _ in range(60)]
    targets = [[_char_text(rng) for _ in range(rng.randint(1, 2))] for _ in range(60)]
    seen = []
    real = cext.lcs

    class Spy:
        def __getattr__(self, name):
            return getattr(real, name)

        def lsum_text(self, *a, **kw):
            out = real.lsum_text(*a, **kw)
            seen.append((a[-1], out is not None))
            return out

    monkeypatch.setattr(cext, "lcs", Spy())
    fast = RougeLsum(gamma=1.0)  # the defaults: char tokens, newline split
    fast.add_batch(preds, targets)
    assert seen == [(True, True)]  # one C call in char mode, and it computed
    slow = RougeLsum(gamma=1.0, tokenize=("chars", lambda s: tuple(s)))  # the same tokens, in Python
    slow.add_batch(preds, targets)
    assert seen == [(True, True)]  # a callable tokenizer: no C text path
    for a, b in zip(fast.per_instance(), slow.per_instance()):
        assert np.array_equal(a, b)
    assert fast.accumulate() == slow.accumulate()
    # a str subclass is not read in C: the Python path scores it, the same
    class S(str):
        pass
    sub = RougeLsum(gamma=1.0)
    sub.add_batch([S(p) for p in preds], targets)
    assert sub.accumulate() == fast.accumulate()


STEM = "aB0b" * 40


def _hostile_ascii(rng):
    """ASCII text built to stress the C tokenizer: words of 1 to 130 bytes that share
    everything but their last byte with every other word of their length, in mixed
    case (so they differ only past the first 8 or 16 bytes, only in case, or are
    prefixes of each other), runs of odd separators, sentences of up to 150 words."""
    lengths = list(range(1, 19)) + [23, 31, 32, 33, 63, 64, 65, 80, 130]
    seps = [" ", " ", " ", "\n", "\n\n", ", ", "\t", "\r\n", "--", "\x00", "\x7f", " \n ", "'"]
    out = []
    for _ in range(rng.choice([0, 1, 3, 8, 40, 150])):
        n = rng.choice(lengths)
        stem = "".join(c.upper() if rng.random() < 0.3 else c for c in STEM[:n - 1])
        out.append(stem + rng.choice("aAbB0z") if rng.random() < 0.8 else rng.choice(["the", "The", "a"]))
        out.append(rng.choice(seps))
    return rng.choice(["", "\n", "  "]) + "".join(out)


@pytest.mark.parametrize("seed", range(3))
def test_c_text_path_hostile_words_against_tokens_and_rouge_score(seed):
    rng = random.Random(100 + seed)
    preds = [_hostile_ascii(rng) for _ in range(120)]
    targets = [[_hostile_ascii(rng) for _ in range(rng.randint(1, 3))] for _ in range(120)]
    raw = cext.lcs.lsum_text(preds, targets, None, 1 + seed % 2)
    assert raw is not None
    hits, cand_len, ref_len = (np.frombuffer(x, dtype=np.int64).tolist() for x in raw)
    acc = RougeLsumAccumulator(RougeLsumSettings(text=TextSettings(tokenize="rouge_score")))
    cands = [acc._prepare(p) for p in preds]
    refs = [[acc._prepare(t) for t in ts] for ts in targets]
    assert hits == lsum._tokens_batch(tuple(cands), tuple(map(tuple, refs))).hits.tolist()
    assert cand_len == [sum(map(len, c)) for c in cands]
    assert ref_len == [sum(map(len, r)) for rs in refs for r in rs]
    pair = 0
    for i, (pred, tgt) in enumerate(zip(preds, targets)):
        for t in tgt:
            if i < 40:  # rouge-score itself, one pair at a time
                theirs = SCORER.score(t, pred)["rougeLsum"]
                n, m = cand_len[i], ref_len[pair]
                assert abs(theirs.precision - (hits[pair] / n if n else 0.0)) < TOL
                assert abs(theirs.recall - (hits[pair] / m if m else 0.0)) < TOL
            pair += 1


SETTINGS_HYP = dict(derandomize=True, deadline=None, suppress_health_check=[HealthCheck.too_slow])
sentences = st.lists(st.lists(st.integers(0, 3), max_size=12), max_size=4)


@settings(max_examples=300, **SETTINGS_HYP)
@given(cand=sentences, ref=sentences)
def test_property_equals_rouge_score(cand, ref):
    wp, wr, _ = theirs_tokens(cand, ref)
    for name in ("c", "python"):
        engine.set_backend(name)
        try:
            p, r = ours_tokens([cand], [ref], 1)
        finally:
            engine.set_backend("c")
        assert abs(p[0] - wp) < TOL and abs(r[0] - wr) < TOL


# ------------------------------------------------------------ multi_ref and API

def test_multi_ref_modes(path):
    rng = random.Random(5)
    cands = [random_doc(rng, 4, 10) for _ in range(60)]
    refs = [[random_doc(rng, 4, 10) for _ in range(rng.randint(1, 3))] for _ in range(60)]
    for mode in ("best", "max_pr", "avg", "best_recall"):
        acc = RougeLsumAccumulator(RougeLsumSettings(gamma=1.0, multi_ref=mode))
        got = acc.add_now(make_lsum_batch(cands, refs))[0]
        for k, (c, rl) in enumerate(zip(cands, refs)):
            per = [theirs_tokens(c, r) for r in rl]
            if mode == "best":  # rouge-score's score_multi: the first highest F
                want = per[int(np.argmax([x[2] for x in per]))]
            elif mode == "best_recall":  # ROUGE-1.5.5 -f B: the first highest R, its P (gamma 1)
                want = per[int(np.argmax([x[1] for x in per]))]
            elif mode == "max_pr":
                p, r = max(x[0] for x in per), max(x[1] for x in per)
                want = (p, r, 0.0 if p == 0 or r == 0 else 2 * p * r / (p + r))
            else:
                want = tuple(np.mean([x[q] for x in per]) for q in range(3))
            assert abs(got.precision[k] - want[0]) < TOL and abs(got.recall[k] - want[1]) < TOL
            assert abs(got.fmeasure[k] - want[2]) < TOL


def test_gamma_and_text_settings_apply_per_sentence():
    out = rouge_lsum(["北京 上海。天津"], [["北京上海。", "天 津"]], split="zh",
                     normalize="nows")  # spaces dropped inside each sentence; the 。 is a token
    assert out.f_measure.tolist() == [1.0]
    acc = RougeLsumAccumulator(RougeLsumSettings(gamma=2.0))
    s = acc.add_now(make_lsum_batch(["ab"], [["abcd"]]))[0]  # P 1, R 1/2
    assert abs(s.fmeasure[0] - 5 * 0.5 / (0.5 + 4)) < TOL


def test_splitters():
    assert split_sentences("a\n\n b\n", "newline") == ["a", " b"]  # rouge-score: empty lines dropped
    assert split_sentences("你好！“好的。”他说；嗯\n完", "zh") == ["你好！", "“好的。”", "他说；", "嗯", "完"]
    assert split_sentences("Hi. (Ok!) v1.2 is out?Yes", "en") == ["Hi.", "(Ok!)", "v1.2 is out?Yes"]
    with pytest.raises(ValueError, match="split must be one of newline, zh, en, nltk"):
        split_sentences("x", "spacy")


def test_compute_keys():
    preds, refs = ["the cat\nsat here"], [["a cat sat\nhere", "the cat"]]
    both = compute(preds, refs, rouge_types=["rougeL", "rougeLsum"], tokenize="whitespace")
    only_l = compute_rouge_l(preds, refs, tokenize="whitespace")
    assert {k: both[k] for k in only_l if k != "signature"} == {k: v for k, v in only_l.items()
                                                                 if k != "signature"}
    assert compute(preds, refs, tokenize="whitespace") == only_l  # the default: ROUGE-L, unchanged
    assert re.match(r"rougeL\+rougeLsum\|gamma:1.2\|multi_ref:max_pr\|tok:whitespace\|norm:none\|lc:no\|"
                    r"split:newline\|v:", both["signature"])  # every setting of every type, once
    assert set(both) >= {"rougeLsum", "rougeLsum_precision", "rougeLsum_recall"}
    with pytest.raises(ValueError, match="rouge_types"):
        compute(preds, refs, rouge_types=["rougeLSum"])


def test_state_merge_and_registry():
    assert ACCUMULATORS["RougeLsum"] is RougeLsumAccumulator and SETTINGS["RougeLsum"] is RougeLsumSettings
    st_ = RougeLsumSettings(gamma=1.0, split="en")
    a, b, whole = (RougeLsumAccumulator(st_) for _ in range(3))
    cands, refs = ["A b. C d.", "x y"], [["a c. b d."], ["y x", "x"]]
    a.add(make_lsum_batch(cands[:1], refs[:1], "en"))
    b.add(make_lsum_batch(cands[1:], refs[1:], "en"))
    whole.add(make_lsum_batch(cands, refs, "en"))
    merged = from_state(a.state_dict()).merge(b.state_dict())
    assert abs(merged.score() - whole.score()) < TOL and merged.count == 2
    with pytest.raises(ValueError, match="different settings"):
        RougeLsumAccumulator(RougeLsumSettings(gamma=1.0)).merge(a)
    with pytest.raises(TypeError, match="needs sentences"):
        a.add_lcs([1], [1], [1])


def test_metric_class():
    from paddle_rougel import RougeLsum

    m = RougeLsum(gamma=1.0, multi_ref="best", tokenize="rouge_score")
    m.add_inst("The cat.\nA dog.", ["the dog\nthe cat"])
    s = m.add_batch(["x y"], [["y x"]])
    assert m.per_instance().fmeasure.tolist()[1] == s.fmeasure[0] == 0.5
    other = RougeLsum(gamma=1.0, multi_ref="best", tokenize="rouge_score")
    other.load_state_dict(m.state_dict())
    assert other.accumulate() == m.accumulate() and m.name() == "rouge-lsum"
    assert m.signature().startswith("RougeLsum|gamma:1.0|multi_ref:best|split:newline|tok:rouge_score")
    with pytest.raises(TypeError, match="unexpected keyword argument 'splt'.*'split'"):
        RougeLsum(splt="zh")


def test_flat_references_read_as_tuples_and_score_as_lists(path):
    """The C snapshot keeps a batch's references flat (one tuple); every reader sees a
    tuple of tuples, and one_ref, lists, buffered add_inst and the Python engine agree."""
    from paddle_rougel import RougeLsum

    refs = FlatRefs(("a", "b", "c"), np.array([0, 2, 3]))
    assert (len(refs), refs[0], refs[-1], refs[0:1], list(refs)) == \
        (2, ("a", "b"), ("c",), (("a", "b"),), [("a", "b"), ("c",)])
    with pytest.raises(IndexError):
        refs[2]
    rng = random.Random(7)
    words = ["The", "cat", "sat", "on", "mat", "a", "dog"]
    preds = [_random_text(rng, words, rng.randint(0, 4)) for _ in range(60)]
    targets = [_random_text(rng, words, rng.randint(0, 4)) for _ in range(60)]
    one = make_lsum_batch(preds, targets, raw_text=True, one_ref=True)
    lists = make_lsum_batch(preds, [[t] for t in targets], raw_text=True)
    assert tuple(one.ref_lists) == tuple(lists.ref_lists) == tuple((t,) for t in targets)
    want = rouge_lsum(preds, targets, **RS)
    m = RougeLsum(gamma=1.0, multi_ref="best", tokenize="rouge_score")
    for p, t in zip(preds, targets):  # buffered one at a time: the batches are joined
        m.add_inst(p, [t])
    got = m.add_batch(preds, [(t,) for t in targets])
    assert m.per_instance().fmeasure[:60].tolist() == got.fmeasure.tolist() == want.f_measure.tolist()
    for p, t, w in zip(preds, targets, want.p_measure):
        assert abs(SCORER.score(t, p)["rougeLsum"].precision - w) < TOL
    with pytest.raises(TypeError, match="instance 1, reference 0: got None"):
        make_lsum_batch(["a", "b"], ["a", None], raw_text=True, one_ref=True)


@pytest.mark.parametrize("offsets,err", [
    (np.array([0, 1], dtype=np.int64), ValueError),        # N + 1 entries needed
    (np.array([1, 1, 2], dtype=np.int64), ValueError),     # from 0
    (np.array([0, 0, 2], dtype=np.int64), ValueError),     # every candidate has a reference
    (np.array([0, 1, 3], dtype=np.int64), ValueError),     # up to len(flat)
    (np.array([0, 1, 2], dtype=np.int32), ValueError),     # int64
    ([0, 1, 2], TypeError),                                # a buffer
])
def test_c_text_path_checks_offsets(offsets, err):
    with pytest.raises(err):
        cext.lcs.lsum_text(("a", "b"), ("a", "b"), offsets, 1)
    with pytest.raises(TypeError, match="tuples"):
        cext.lcs.lsum_text(["a", "b"], ("a", "b"), np.array([0, 1, 2]), 1)
    assert cext.lcs.lsum_text_snapshot(["a"], [[]]) is None  # not a non-empty list of str


# ------------------------------------------------------------------ bad input

@pytest.mark.parametrize("cand,refs,err,msg", [
    (None, ["a"], TypeError, "instance 0, candidate: got None"),
    ({"a"}, ["a"], TypeError, "instance 0, candidate: got set"),
    ("a", "a", TypeError, "instance 0: ref_list must be a list .*wrap a single reference"),
    ("a", [], ValueError, "instance 0: ref_list is empty"),
    ("a", [["ok", None]], TypeError, "instance 0, reference 0, sentence 1: got None"),
    ("a", [[["x", ["unhashable"]]]], TypeError, "instance 0, reference 0, sentence 0"),
])
def test_bad_input_names_instance_reference_sentence(cand, refs, err, msg):
    from paddle_rougel import RougeLsum

    m = RougeLsum()
    m.add_inst("ok", ["ok"])
    with pytest.raises(err, match=msg.replace("instance 0", "instance 1")):
        m.add_inst(cand, refs)
    assert m.count == 1  # a rejected call changes nothing


def test_c_reader_errors_name_the_sentence():
    msg = lsum.rename_flat("instance 2, reference 3: token 0 (list): unhashable",
                       ((), (), (("a",), ("b",))), ((), (), ((("c",),), (("d",), ("e",)))))
    assert msg == "instance 2, reference 1, sentence 0: token 0 (list): unhashable"


def test_long_sentences_and_threads():
    rng = random.Random(1)
    a = [rng.randrange(4) for _ in range(3000)]
    b = [rng.randrange(4) for _ in range(2500)]
    res = lsum.lsum_batch([[a]], [[[b]]], threads=2)  # one pair: the hits are its LCS
    assert res.hits.tolist() == [engine.lcs_length(b, a)]
    cands = [random_doc(rng, 3, 80) for _ in range(400)]
    refs = [[random_doc(rng, 3, 80)] for _ in range(400)]
    one, two = lsum.lsum_batch(cands, refs, threads=1), lsum.lsum_batch(cands, refs, threads=2)
    assert one.hits.tolist() == two.hits.tolist()


def test_threads_take_pieces_of_one_batch_and_agree():
    """Text and token paths on batches big enough to run in parallel, cut into many
    pieces: every thread count gives the same hits as one thread and as rouge-score."""
    rng = random.Random(5)
    words = ["the", "a", "cat", "Sat", "on", "mat", "x1", "dog"]
    preds = [_random_text(rng, words, rng.choice([0, 1, 4, 40])) for _ in range(3000)]
    targets = [[_random_text(rng, words, rng.randint(0, 8)) for _ in range(rng.randint(1, 2))]
               for _ in range(3000)]
    runs = {t: [np.frombuffer(x, dtype=np.int64).tolist()
                for x in cext.lcs.lsum_text(preds, targets, None, t)] for t in (1, 2, 3, 8)}
    assert runs[2] == runs[1] and runs[3] == runs[1] and runs[8] == runs[1]
    acc = RougeLsumAccumulator(RougeLsumSettings(text=TextSettings(tokenize="rouge_score")))
    cands = tuple(acc._prepare(p) for p in preds)
    refs = tuple(tuple(acc._prepare(t) for t in ts) for ts in targets)
    for t in (1, 3):
        assert lsum._tokens_batch(cands, refs, t).hits.tolist() == runs[1][0]
    out = compute(preds, targets, rouge_types="rougeLsum", gamma=1.0, multi_ref="best",
                  per_instance=True, **RS)["per_instance"]["rougeLsum"]
    for k in range(0, len(preds), 29):
        assert abs(out[k] - SCORER.score_multi(targets[k], preds[k])["rougeLsum"].fmeasure) < TOL


def test_bench_lsum_quick_checks_scores():
    import os
    import subprocess
    import sys

    bench = os.path.join(os.path.dirname(__file__), os.pardir, "benchmarks", "bench_lsum.py")
    proc = subprocess.run([sys.executable, bench, "--quick"], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.count(": ok") == 8 and "MISMATCH" not in proc.stdout
