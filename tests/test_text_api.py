"""Text settings in the Python API and the one-shot compute() (issue 10)."""
from __future__ import annotations

import json
import random

import numpy as np
import pytest
from rouge_score import rouge_scorer  # the oracle: an import failure is a test failure

import oracle
import paddle_rougel
from paddle_rougel import BLEUForDuReader, RougeL, RougeLForDuReader, compute, rouge_l
from paddle_rougel.core.text import TextSettings

WORDS = ["The", "cat", "CAT", "sat", "on", "the", "mat", "running", "runs", "ran", "quickly",
         "Quick", "dogs", "dog's", "e-mail", "3.5", "42", "naïve", "café", "it's"]
PUNCT = ["", "", "", ",", ".", "!", "?", ";", " -", "'s", "(", ")"]


def _sentence(rng: random.Random) -> str:
    n = rng.choice([0, 1, 3, 8, 15])
    return " ".join(rng.choice(WORDS) + rng.choice(PUNCT) for _ in range(n))


@pytest.mark.parametrize("stem", [False, True])
def test_compute_equals_rouge_score(stem):
    rng = random.Random(7 + stem)
    preds = [_sentence(rng) for _ in range(300)]
    refs = [[_sentence(rng) for _ in range(rng.choice([1, 2, 3]))] for _ in preds]
    out = compute(preds, refs, tokenize="rouge_score", stem=stem, multi_ref="best", gamma=1,
                  per_instance=True)
    scorer = rouge_scorer.RougeScorer(["rougeL"], use_stemmer=stem)
    want = np.array([[s.precision, s.recall, s.fmeasure] for s in
                     (scorer.score_multi(r, p)["rougeL"] for p, r in zip(preds, refs))])
    got = np.c_[out["per_instance"]["rougeL_precision"], out["per_instance"]["rougeL_recall"],
                out["per_instance"]["rougeL"]]
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
    assert out["rougeL"] == pytest.approx(want[:, 2].mean(), rel=1e-12)
    assert out["count"] == len(preds)
    assert f"tok:rouge_score{'+stem' if stem else ''}|norm:none|lc:yes" in out["signature"]


def test_the_issue_numbers_cjk_and_english():
    # decoded CJK text with a space between characters: zh tokens ignore the spaces
    pred, ref = "今 天 天 气 很 好", "今天天气不错"
    assert compute([pred], [ref], tokenize="zh")["rougeL"] == compute(
        ["今天天气很好"], [ref])["rougeL"]
    assert compute([pred], [ref])["rougeL"] != compute([pred], [ref], tokenize="zh")["rougeL"]
    # English: per word, not per character
    words = compute(["the cat sat on the mat"], ["the cat is on the mat"], tokenize="whitespace",
                    gamma=1.0)
    assert words["rougeL"] == pytest.approx(5 / 6)


def test_zh_tokenizer_mixed_text():
    tok = TextSettings(tokenize="zh").tokenizer()
    assert tok("我用Python 3.11写代码。") == ("我", "用", "Python", "3", ".", "11", "写", "代", "码", "。")
    assert tok("今 天") == ("今", "天")
    assert TextSettings(tokenize="zh", lowercase=True).tokenizer()("iPhone手机") == ("iphone", "手", "机")


@pytest.mark.parametrize("kw,match", [
    (dict(tokenize="whitespace", normalize="nows"), "glued"),
    (dict(tokenize="jieba", normalize="nows"), "glued"),
    (dict(tokenize="zh", normalize="nows"), "glued"),
    (dict(tokenize="rouge_score", lowercase=False), "lowercases"),
    (dict(tokenize="char", stem=True), "rouge_score"),
    (dict(tokenize="words"), "tokenize must be one of"),
    (dict(normalize="strip"), "normalize must be one of"),
])
def test_impossible_combinations_are_errors(kw, match):
    with pytest.raises(ValueError, match=match):
        TextSettings(**kw)
    with pytest.raises(ValueError, match=match):
        RougeL(**kw)


def test_token_lists_pass_through_untouched():
    m = RougeL(tokenize="rouge_score", gamma=1.0)
    m.add_inst(["The", "Cat"], [["the", "cat"]])  # tokens as given: case differs, no match
    m.add_inst("The Cat", ["the cat"])             # text: lowercased and split
    assert m.per_instance().fmeasure.tolist() == [0.0, 1.0]


def test_lowercase_and_nows_on_characters():
    assert compute(["A B"], ["ab"], normalize="nows", lowercase=True)["rougeL"] == 1.0
    assert compute(["A B"], ["ab"])["rougeL"] == 0.0


def test_text_settings_are_part_of_the_state_and_the_signature():
    a, b = RougeL(tokenize="whitespace"), RougeL()
    a.add_inst("a b", ["a b"])
    with pytest.raises(ValueError, match="different settings"):
        b.merge(a)
    st = json.loads(json.dumps(a.state_dict()))
    c = RougeL(tokenize="whitespace")
    c.load_state_dict(st)
    assert c.score() == a.score() == 1.0
    assert "tok:whitespace" in a.signature() and "tok:char" in b.signature()


def split_on_bar(t):  # module level: known by its qualified name
    return t.split("|")


def test_custom_tokenizer_is_named_and_refuses_other_callables():
    a = RougeL(tokenize=split_on_bar, gamma=1.0)
    a.add_inst("x|y", ["x|z"])
    assert a.score() == 0.5
    assert "|tok:custom:split_on_bar|" in a.signature()
    named = RougeL(tokenize=("bars", lambda t: t.split("|")), gamma=1.0)  # anything else is named
    assert "|tok:custom:bars|" in named.signature()
    with pytest.raises(ValueError, match="different settings"):
        RougeL(tokenize=str.split).merge(a)


def test_rouge_l_and_dureader_metrics_take_text_settings():
    f, p, r = rouge_l(["The cat"], ["the cat sat"], tokenize="whitespace", lowercase=True, alpha=0.5)
    assert (p[0], r[0]) == (1.0, pytest.approx(2 / 3))
    d = RougeLForDuReader(tokenize="zh")
    d.add_inst("我 在 北京 and Shanghai", ["在北京 and"], entity_ref=["北 京", "Shanghai"])
    # entities are tokenized too: both are runs of the candidate's tokens (2 + 1 tokens)
    assert d.per_instance_bonus().tolist() == [3.0]
    b = BLEUForDuReader(tokenize="whitespace", n_size=2)
    b.add_inst("a b c", ["a b c"])
    assert b.score() == pytest.approx(1.0)


def test_compute_reference_forms_and_errors():
    one = compute(["ab"], ["ab"])
    many = compute(["ab"], [["ab", "cd"]])
    toks = compute([["a", "b"]], [["a", "b"]])
    toks_many = compute([["a", "b"]], [[["a"], ["a", "b"]]])
    assert one["rougeL"] == many["rougeL"] == toks["rougeL"] == toks_many["rougeL"] == 1.0
    assert compute([], [])["rougeL"] == 0.0
    with pytest.raises(ValueError, match="2 predictions but 1"):
        compute(["a", "b"], ["a"])
    with pytest.raises(ValueError, match="gamma or alpha"):
        compute(["a"], ["a"], gamma=1, alpha=0.5)
    with pytest.raises(TypeError, match="instance 1"):
        compute(["a", "b"], ["a", None])


def test_compute_matches_the_metric_and_the_oracle():
    cands, refs = oracle.random_instances(5, 200, ["cjk", "ab", "words"], [0, 1, 5, 20], [0, 2, 9])
    out = compute(cands, refs, gamma=1.2, per_instance=True)
    want = np.array([oracle.score_instance(c, r, 1.2, "max_pr") for c, r in zip(cands, refs)])
    np.testing.assert_allclose(out["per_instance"]["rougeL"], want[:, 2], rtol=1e-12, atol=1e-15)
    m = RougeL()
    m.add_batch(cands, refs)
    assert out["rougeL"] == pytest.approx(m.score(), rel=1e-12)
    assert paddle_rougel.compute is compute
