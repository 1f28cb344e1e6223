"""The presets that claim another package's numbers, against that package itself (issue 32, items
1 and 7): ``preset="rouge_chinese"`` against rouge-chinese 1.0.3 called as LLaMA-Factory calls it,
on multi-line answers; ``preset="rouge_score"`` against rouge-score 0.1.2's ``RougeScorer``.

The oracles are the real packages (test extra): an import failure is a test failure.
"""
from __future__ import annotations

import random

import jieba
import numpy as np
import pytest
from rouge_chinese import Rouge

from paddle_rougel import compute

ZH = ["我们", "今天", "天气", "很好", "模型", "训练", "数据", "评估", "结果", "的", "了", "是", "在",
      "一个", "问题", "回答", "北京", "上海", "学习", "中文", "大", "小", "说", "你", "他"]
OTHER = ["GPU", "LLaMA", "v2", "3.5", "100", "ok", "token", "1.", "2.", "-", "*", "......", "......."]
END = ["。", "！", "？", "?", "…", "……", "。”", "？’", "", ""]
BREAK = ["\n", "\n\n", "\n \n", " \n", "\n\n\n", "\r\n", "\t\n", " ", "", "\u3000"]


def llm_answer(rng: random.Random) -> str:
    """A multi-line answer as an LLM writes one: sentences ending in 。！？ (or not), line breaks
    after them, blank lines, list markers, spaces, ellipses and runs of dots."""
    out = []
    for _ in range(rng.randrange(0, 6)):
        words = [rng.choice(ZH) if rng.random() < 0.8 else rng.choice(OTHER) + rng.choice(["", " "])
                 for _ in range(rng.randrange(0, 9))]
        out.append("".join(words) + rng.choice(END) + rng.choice(BREAK))
    return "".join(out)


def llama_factory(pred: str, label: str) -> dict:
    """LLaMA-Factory's ComputeSimilarity on one pair: {'rouge-1' | 'rouge-2' | 'rouge-l': {f, p, r}}."""
    hypothesis, reference = list(jieba.cut(pred)), list(jieba.cut(label))
    if len(" ".join(hypothesis).split()) == 0 or len(" ".join(reference).split()) == 0:
        return {k: {"f": 0.0, "p": 0.0, "r": 0.0} for k in ("rouge-1", "rouge-2", "rouge-l")}
    return Rouge().get_scores(" ".join(hypothesis), " ".join(reference))[0]


TYPES = (("rouge1", "rouge-1"), ("rouge2", "rouge-2"), ("rougeL", "rouge-l"))


@pytest.fixture(scope="module")
def multiline():
    rng = random.Random(32)
    preds, labels = [], []
    for _ in range(600):
        label = llm_answer(rng)
        pred = label[: rng.randrange(0, len(label) + 1)] + llm_answer(rng) if rng.random() < 0.7 \
            else llm_answer(rng)
        preds.append(pred)
        labels.append(label)
    return preds, labels, [llama_factory(p, l) for p, l in zip(preds, labels)]


def _check_equal(per: dict, theirs: list, preds: list, labels: list) -> float:
    """P and R bit for bit, F within rouge-chinese's 1e-8 in P + R; returns the largest F gap."""
    worst = 0.0
    for ours, key in TYPES:
        for i, t in enumerate(theirs):
            x = t[key]
            assert (per[f"{ours}_precision"][i], per[f"{ours}_recall"][i]) == (x["p"], x["r"]), \
                (ours, i, preds[i], labels[i])
            assert abs(per[ours][i] - x["f"]) <= 5e-9 + 1e-15, (ours, i, preds[i], labels[i])
            worst = max(worst, abs(per[ours][i] - x["f"]))
    return worst


def test_rouge_chinese_preset_equals_rouge_chinese_on_multi_line_answers(multiline):
    preds, labels, theirs = multiline
    # the generated answers hold what changes rouge-chinese's words: blank lines, "。\n"
    blank = sum("\n\n" in p or "。\n" in p or "\n \n" in p for p in preds + labels)
    assert blank > 500, blank
    out = compute(preds, labels, rouge_types=["rouge1", "rouge2", "rougeL"], preset="rouge_chinese",
                  per_instance=True)
    assert "tok:rouge_chinese" in out["signature"]
    assert sum(0 < t["rouge-2"]["f"] < 1 for t in theirs) > 300
    _check_equal(out["per_instance"], theirs, preds, labels)
    for ours, key in TYPES:  # LLaMA-Factory's report: the mean of round(f * 100, 4)
        reported = float(np.mean([round(t[key]["f"] * 100, 4) for t in theirs]))
        assert abs(out[ours] * 100 - reported) <= 5e-5, ours


def test_the_corrected_reading_is_tokenize_jieba(multiline):
    """The documented switch: tokenize="jieba" over the preset drops the empty-string tokens (and
    keeps a jieba word of seven dots whole); it differs from rouge-chinese on these answers."""
    preds, labels, theirs = multiline
    fixed = compute(preds, labels, rouge_types=["rouge1", "rouge2", "rougeL"], preset="rouge_chinese",
                    tokenize="jieba", per_instance=True)
    assert "tok:jieba" in fixed["signature"]
    differ = sum(fixed["per_instance"]["rouge2_recall"][i] != t["rouge-2"]["r"] for i, t in enumerate(theirs))
    assert differ > 100, differ


@pytest.mark.parametrize("pred,label", [
    ("好。\n\n你好吗？\n坏.......了", "好。你好吗？坏了"),
    ("第一点。\n第二点。\n", "第一点。第二点。"),
    ("\n\n\n", "好"),
    ("好\n\n", "好"),
    ("“你好。”\n他说……\n\n", "你好。他说……"),
    ("a\r\n\r\nb", "a b"),
    (" \n ", " "),
])
def test_rouge_chinese_hand_cases(pred, label):
    theirs = llama_factory(pred, label)
    out = compute([pred], [label], rouge_types=["rouge1", "rouge2", "rougeL"], preset="rouge_chinese",
                  per_instance=True)
    _check_equal(out["per_instance"], [theirs], [pred], [label])


# ------------------------------------------------------------------ preset="rouge_score" (item 7)

from rouge_score import rouge_scorer, scoring, tokenizers  # noqa: E402  (the oracle: no skip)

import paddle_rougel as pr  # noqa: E402

EN = ["The", "cat", "CAT", "sat", "on", "the", "mat", "running", "runs", "ran", "quickly", "Quick",
      "dogs", "dog's", "e-mail", "3.5", "42", "naïve", "café", "it's", "ran."]
EN_PUNCT = ["", "", "", ",", ".", "!", "?", ";", " -", "'s", "(", ")", "\n", "\n\n"]
ALL = ["rouge1", "rouge2", "rougeL", "rougeLsum"]


def _english(rng: random.Random) -> str:
    return " ".join(rng.choice(EN) + rng.choice(EN_PUNCT) for _ in range(rng.choice([0, 1, 3, 8, 15, 30])))


@pytest.fixture(scope="module")
def english():
    rng = random.Random(3207)
    preds = [_english(rng) for _ in range(300)]
    refs = [[_english(rng) for _ in range(rng.choice([1, 1, 2, 3, 4]))] for _ in preds]
    return preds, refs


def _theirs(scorer, preds, refs) -> dict:
    out = {t: [] for t in ALL}
    for p, r in zip(preds, refs):
        s = scorer.score_multi(r, p)
        for t in ALL:
            out[t].append(s[t])
    return out


def _assert_same(out: dict, theirs: dict) -> None:
    per = out["per_instance"]
    for t in ALL:
        want = np.array([[s.precision, s.recall, s.fmeasure] for s in theirs[t]])
        got = np.c_[per[f"{t}_precision"], per[f"{t}_recall"], per[t]]
        assert np.array_equal(got, want), (t, np.argwhere(got != want)[:5])
        assert out[t] == pytest.approx(want[:, 2].mean(), rel=1e-15, abs=1e-15)


@pytest.mark.parametrize("how", ["preset", "use_stemmer", "stem", "tokenizer_object"])
def test_rouge_score_preset_equals_rouge_scorer(english, how):
    preds, refs = english
    stem = how != "preset"
    scorer = rouge_scorer.RougeScorer(ALL, use_stemmer=stem)
    kw = {"preset": {}, "use_stemmer": {"use_stemmer": True}, "stem": {"stem": True},
          "tokenizer_object": {"tokenizer": tokenizers.DefaultTokenizer(use_stemmer=True)}}[how]
    out = compute(preds, refs, rouge_types=ALL, preset="rouge_score", per_instance=True, **kw)
    assert f"gamma:1.0|multi_ref:best|tok:rouge_score{'+stem' if stem else ''}|norm:none" in out["signature"]
    _assert_same(out, _theirs(scorer, preds, refs))


def test_the_two_reference_case_of_the_issue():
    """The English hint alone (tokenize="rouge_score") keeps gamma 1.2 and max_pr: another number;
    the preset is rouge-score's."""
    pred = "the cat sat on the mat"
    refs = ["the cat", "a small cat sat quietly on the old mat by the door"]
    theirs = rouge_scorer.RougeScorer(["rougeL"]).score_multi(refs, pred)["rougeL"].fmeasure
    assert round(theirs, 4) == 0.5556   # the second reference: P 5/6, R 5/12
    assert compute([pred], [refs], preset="rouge_score")["rougeL"] == theirs
    # max P (5/6, the second) and max R (1, the first) of different references, gamma 1.2
    assert round(compute([pred], [refs], tokenize="rouge_score")["rougeL"], 4) == 0.9242


class CharTokenizer(tokenizers.Tokenizer):
    """A migrating Chinese user's rouge-score tokenizer: no state of its own."""

    def tokenize(self, text):
        return [c for c in text if not c.isspace()]


class PrefixTokenizer:
    def __init__(self, k):
        self.k = k

    def tokenize(self, text):
        return [w[: self.k] for w in text.split()]


def test_a_custom_tokenizer_object_as_rouge_score_takes_it():
    preds = ["今天天气很好", "模型 在 测试集 上", "", "好"]
    refs = [["今天天气不错", "天气很好"], ["模型的测试"], ["x"], ["好好"]]
    scorer = rouge_scorer.RougeScorer(["rouge1", "rouge2", "rougeL"], tokenizer=CharTokenizer())
    out = compute(preds, refs, rouge_types=["rouge1", "rouge2", "rougeL"], preset="rouge_score",
                  tokenizer=CharTokenizer(), per_instance=True)
    assert "tok:custom:CharTokenizer.tokenize" in out["signature"]
    for t in ("rouge1", "rouge2", "rougeL"):
        want = [scorer.score_multi(r, p)[t].fmeasure for p, r in zip(preds, refs)]
        assert out["per_instance"][t].tolist() == want, t
    # an object with state of its own cannot be known by its class: name it
    with pytest.raises(ValueError, match=r"PrefixTokenizer object with state of its own.*tokenize=\(\"my_tokenizer\""):
        compute(preds, refs, preset="rouge_score", tokenizer=PrefixTokenizer(2))
    named = compute(["abcd efgh"], ["abxx efyy"], preset="rouge_score", tokenizer=("prefix2", PrefixTokenizer(2)))
    assert named["rougeL"] == 1.0 and "tok:custom:prefix2" in named["signature"]
    # rouge-score ignores use_stemmer next to a tokenizer; here that contradiction is an error
    with pytest.raises(ValueError, match="ignores use_stemmer"):
        compute(preds, refs, preset="rouge_score", tokenizer=tokenizers.DefaultTokenizer(), use_stemmer=True)
    with pytest.raises(ValueError, match="not both"):
        compute(preds, refs, preset="rouge_score", tokenize="whitespace", tokenizer=CharTokenizer())
    assert pr.RougeL(tokenize=CharTokenizer()).signature().count("tok:custom:CharTokenizer.tokenize") == 1


def test_split_summaries_is_nltk_sentences_or_a_clear_error(english):
    """rouge-score's split_summaries=True is nltk.sent_tokenize, which needs nltk's punkt model:
    where it is installed the figures are rouge-score's, where it is not both fail (we say how to
    install it)."""
    import nltk

    preds, refs = english
    try:
        nltk.sent_tokenize("A b. C d.")
        have_punkt = True
    except LookupError:
        have_punkt = False
    if not have_punkt:
        for kw in ({"split_summaries": True}, {"split": "nltk"}):
            with pytest.raises(ValueError, match="punkt sentence model, which is not installed here: "
                                                 "python -m nltk.downloader punkt_tab"):
                compute(preds, refs, rouge_types=["rougeLsum"], preset="rouge_score", **kw)
        with pytest.raises(LookupError):  # the oracle cannot run either
            rouge_scorer.RougeScorer(["rougeLsum"], split_summaries=True).score("A b. C d.", "A b.")
    else:
        scorer = rouge_scorer.RougeScorer(ALL, split_summaries=True)
        out = compute(preds, refs, rouge_types=ALL, preset="rouge_score", split_summaries=True, per_instance=True)
        _assert_same(out, _theirs(scorer, preds, refs))
    # without ROUGE-Lsum the setting is unused (item 19): no model needed
    assert compute(["a b"], ["a b"], preset="rouge_score", split_summaries=True)["rougeL"] == 1.0


# ------------------------------------------------------------------ evaluate's default figure (item 17)

def _aggregator(scorer, preds, refs, types):
    agg = scoring.BootstrapAggregator()
    for p, r in zip(preds, refs):
        agg.add_scores(scorer.score_multi(r, p))
    return agg.aggregate()


def test_bootstrap_mid_is_rouge_scores_bootstrap_aggregator(english):
    """evaluate's rouge with use_aggregator=True (its default) reports BootstrapAggregator's mid.
    seed=S reproduces it bit for bit after np.random.seed(S); seed=None draws from numpy's global
    state as the aggregator does (and leaves it where the aggregator would)."""
    preds, refs = english
    types = ["rouge1", "rouge2", "rougeL", "rougeLsum"]
    scorer = rouge_scorer.RougeScorer(types)
    np.random.seed(1234)
    theirs = _aggregator(scorer, preds, refs, types)
    after_theirs = np.random.get_state()[1].copy()
    ours = compute(preds, refs, rouge_types=types, preset="rouge_score", aggregate="bootstrap_mid", seed=1234)
    mean = compute(preds, refs, rouge_types=types, preset="rouge_score")
    assert ours["signature"].endswith("|agg:bootstrap_mid:seed:1234")
    for t in types:
        mid = theirs[t].mid
        assert (ours[t], ours[f"{t}_precision"], ours[f"{t}_recall"]) == (mid.fmeasure, mid.precision, mid.recall), t
        assert ours[t] != mean[t] and abs(ours[t] - mean[t]) < 0.01    # not the mean, close to it
    # seed=None: the global state, as the aggregator (same draws, same state afterwards)
    np.random.seed(99)
    theirs = _aggregator(scorer, preds, refs, types)
    after_theirs = np.random.get_state()[1].copy()
    np.random.seed(99)
    ours = compute(preds, refs, rouge_types=types, preset="rouge_score", aggregate="bootstrap_mid")
    assert np.array_equal(np.random.get_state()[1], after_theirs)
    assert [ours[t] for t in types] == [theirs[t].mid.fmeasure for t in types]
    assert ours["signature"].endswith("|agg:bootstrap_mid:seed:global")
    # seed=S leaves the global state alone
    before = np.random.get_state()[1].copy()
    compute(preds[:5], refs[:5], preset="rouge_score", aggregate="bootstrap_mid", seed=3)
    assert np.array_equal(np.random.get_state()[1], before)


def test_bootstrap_mid_settings_are_checked():
    with pytest.raises(ValueError, match=r"aggregate must be one of mean, bootstrap_mid.*did you mean 'bootstrap_mid'"):
        compute(["a"], ["a"], aggregate="bootstrap_mean")
    with pytest.raises(ValueError, match="seed= is for aggregate='bootstrap_mid'"):
        compute(["a"], ["a"], seed=1)
    with pytest.raises(TypeError, match="seed must be an int"):
        compute(["a"], ["a"], aggregate="bootstrap_mid", seed=1.5)
    empty = compute([], [], aggregate="bootstrap_mid", seed=0)
    assert empty["rougeL"] == 0.0 and empty["count"] == 0


# property test: any mix of the characters rouge-chinese's sentence cut looks at
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

PIECES = st.sampled_from(ZH + ["a", "ok", "3.5", ".", "..", "......", "。", "！", "？", "?", "…", "”", "’",
                               "，", "\n", "\n\n", " ", "  ", "\t", "\r\n", "\u3000", "\u00a0", "“"])


@settings(max_examples=400, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(PIECES, max_size=25).map("".join), st.lists(PIECES, max_size=25).map("".join))
def test_rouge_chinese_preset_property(pred, label):
    theirs = llama_factory(pred, label)
    out = compute([pred], [label], rouge_types=["rouge1", "rouge2", "rougeL"], preset="rouge_chinese",
                  per_instance=True)
    _check_equal(out["per_instance"], [theirs], [pred], [label])


def test_score_config_rouge_score_prints_rouge_scores_means(english, tmp_path, capsys):
    """The command line: --config rouge_score (one reference per line) is rouge-score's mean x100."""
    from paddle_rougel.cli import main

    preds, refs = english
    preds = [p.replace("\n", " ") for p in preds]
    labels = [r[0].replace("\n", " ") for r in refs]
    (tmp_path / "h.txt").write_text("".join(p + "\n" for p in preds), encoding="utf-8")
    (tmp_path / "r.txt").write_text("".join(l + "\n" for l in labels), encoding="utf-8")
    scorer = rouge_scorer.RougeScorer(["rouge1", "rouge2", "rougeL"])
    assert main(["score", "--hyp", str(tmp_path / "h.txt"), "--ref", str(tmp_path / "r.txt"), "--config",
                 "rouge_score", "--rouge-types", "rouge1,rouge2,rougeL", "--format", "json"]) == 0
    out = capsys.readouterr().out
    for t, label in (("rouge1", "ROUGE-1"), ("rouge2", "ROUGE-2"), ("rougeL", "ROUGE-L")):
        mean = float(np.mean([scorer.score(l, p)[t].fmeasure for p, l in zip(preds, labels)]))
        assert '"%s": %s' % (label, round(mean * 100, 2)) in out, (label, mean, out)
