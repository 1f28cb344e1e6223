"""The ``rouge_chinese`` preset against the real rouge-chinese package, called as Chinese LLM
fine-tuning scripts call it (LLaMA-Factory, ChatGLM): jieba words joined by spaces, one
``Rouge().get_scores(hyp, ref)`` per pair, its ``rouge-l`` F; an empty side scores 0; the
reported figure is the mean of ``round(f * 100, 4)``.

The oracle is rouge-chinese itself (test extra); the texts are generated here: Chinese words,
English words, digits, punctuation and spaces (multi-line answers: tests/test_presets.py).
"""
from __future__ import annotations

import random

import jieba
import numpy as np
import pytest
from rouge_chinese import Rouge

from paddle_rougel import compute
from paddle_rougel.cli import main

ZH = ["我们", "今天", "天气", "很好", "模型", "训练", "数据", "评估", "结果", "的", "了", "是", "在",
      "一个", "问题", "回答", "北京", "上海", "学习", "中文", "大", "小", "说", "你", "他"]
OTHER = ["GPU", "LLaMA", "v2", "3.5", "100", "ok", "token"]
PUNCT = ["，", "。", "！", "？", "；", "、", "“", "”", "?", "!", ",", "…"]


def _text(rng: random.Random) -> str:
    out = []
    for _ in range(rng.randrange(0, 30)):
        r = rng.random()
        out.append(rng.choice(ZH) if r < 0.75 else rng.choice(OTHER) if r < 0.85 else
                   rng.choice(PUNCT) if r < 0.97 else " ")
    return "".join(out)


def llama_factory_scores(pred: str, label: str) -> dict:
    """LLaMA-Factory's ComputeSimilarity: {'rouge-1' | 'rouge-2' | 'rouge-l': {'f', 'p', 'r'}}
    (rouge-chinese's default metrics, exclusive=True)."""
    hypothesis, reference = list(jieba.cut(pred)), list(jieba.cut(label))
    if len(" ".join(hypothesis).split()) == 0 or len(" ".join(reference).split()) == 0:
        return {k: {"f": 0.0, "p": 0.0, "r": 0.0} for k in ("rouge-1", "rouge-2", "rouge-l")}
    return Rouge().get_scores(" ".join(hypothesis), " ".join(reference))[0]


def llama_factory_rouge_l(pred: str, label: str) -> dict:
    """LLaMA-Factory's ComputeSimilarity, rouge-l part: {'f', 'p', 'r'}."""
    return llama_factory_scores(pred, label)["rouge-l"]


@pytest.fixture(scope="module")
def pairs():
    rng = random.Random(2019)
    preds, labels = [], []
    for _ in range(400):
        label = _text(rng)
        # predictions that share words with their labels, and some unrelated ones
        pred = label[: rng.randrange(0, len(label) + 1)] + _text(rng) if rng.random() < 0.7 else _text(rng)
        preds.append(pred)
        labels.append(label)
    theirs = [llama_factory_rouge_l(p, l) for p, l in zip(preds, labels)]
    return preds, labels, theirs


@pytest.fixture(scope="module")
def theirs_n(pairs):
    """rouge-chinese's rouge-1 and rouge-2 of the same pairs: {type: [{'f', 'p', 'r'}, ...]}."""
    preds, labels, _ = pairs
    scores = [llama_factory_scores(p, l) for p, l in zip(preds, labels)]
    return {t: [s[k] for s in scores] for t, k in (("rouge1", "rouge-1"), ("rouge2", "rouge-2"))}


def test_preset_equals_rouge_chinese_per_pair(pairs):
    preds, labels, theirs = pairs
    out = compute(preds, labels, preset="rouge_chinese", per_instance=True)["per_instance"]
    assert sum(t["f"] > 0 for t in theirs) > 250
    for i, t in enumerate(theirs):
        # P and R: the same divisions; F: theirs adds 1e-8 to P + R (at most 5e-9 apart)
        assert (out["rougeL_precision"][i], out["rougeL_recall"][i]) == (t["p"], t["r"]), (i, preds[i])
        assert abs(out["rougeL"][i] - t["f"]) <= 5e-9 + 1e-15, (i, preds[i], labels[i])


def test_preset_equals_the_llama_factory_mean(pairs, capsys, tmp_path):
    preds, labels, theirs = pairs
    reported = float(np.mean([round(t["f"] * 100, 4) for t in theirs]))  # its rounding per pair
    ours = compute(preds, labels, preset="rouge_chinese")["rougeL"] * 100
    assert abs(ours - reported) <= 5e-5
    # the default gamma 1.2 is another number (0.89 points higher here)
    assert abs(compute(preds, labels, tokenize="jieba")["rougeL"] * 100 - reported) > 0.1
    # the command line: --config rouge_chinese (x100, 2 decimals)
    hyp, ref = tmp_path / "pred.txt", tmp_path / "label.txt"
    hyp.write_text("".join(p + "\n" for p in preds), encoding="utf-8")
    ref.write_text("".join(l + "\n" for l in labels), encoding="utf-8")
    assert main(["score", "--hyp", str(hyp), "--ref", str(ref), "--config", "rouge_chinese"]) == 0
    out, err = capsys.readouterr()
    assert '"ROUGE-L": %s' % round(ours, 2) in out and "gamma:1.0|multi_ref:max_pr|tok:rouge_chinese|norm:none" in err


def test_rouge_n_equals_rouge_chinese_per_pair(pairs, theirs_n):
    """rouge-1 / rouge-2: n-grams of jieba's words (whitespace dropped) counted as a set (its
    exclusive=True): P and R the same divisions, F within its 1e-8 in P + R."""
    preds, labels, _ = pairs
    out = compute(preds, labels, rouge_types=["rouge1", "rouge2", "rougeL"], preset="rouge_chinese",
                  per_instance=True)
    assert "grams:distinct" in out["signature"]
    per = out["per_instance"]
    worst = 0.0
    for t, theirs in theirs_n.items():
        assert sum(0 < x["f"] < 0.99 for x in theirs) > 200
        for i, x in enumerate(theirs):
            assert (per[f"{t}_precision"][i], per[f"{t}_recall"][i]) == (x["p"], x["r"]), (t, i, preds[i], labels[i])
            assert abs(per[t][i] - x["f"]) <= 5e-9 + 1e-15, (t, i, preds[i], labels[i])
            worst = max(worst, abs(per[t][i] - x["f"]))
        # LLaMA-Factory's report: the mean of round(f * 100, 4)
        reported = float(np.mean([round(x["f"] * 100, 4) for x in theirs]))
        assert abs(out[t] * 100 - reported) <= 5e-5, t
    assert worst > 0                                    # its 1e-8 shows: F is not copied bit for bit
    # counting repeats (distinct=False) is another number on these texts
    rep = compute(preds, labels, rouge_types=["rouge1", "rouge2"], preset="rouge_chinese", distinct=False,
                  per_instance=True)["per_instance"]
    assert sum(rep["rouge1_recall"][i] != x["r"] for i, x in enumerate(theirs_n["rouge1"])) > 30


def test_rouge_n_repeats_count_once_like_rouge_chinese():
    """Hand-checked: '的' three times in the prediction, once in the label."""
    pred, label = "的的的我们", "的我们今天"
    x = llama_factory_scores(pred, label)["rouge-1"]
    ours = compute([pred], [label], rouge_types=["rouge1"], preset="rouge_chinese")
    assert list(jieba.cut(pred)) == ["的", "的", "的", "我们"] and list(jieba.cut(label)) == ["的", "我们", "今天"]
    assert (x["p"], x["r"]) == (1.0, 2 / 3)               # {的, 我们} of {的, 我们} and of {的, 我们, 今天}
    assert (ours["rouge1_precision"], ours["rouge1_recall"]) == (1.0, 2 / 3)


def test_command_line_rouge_types_with_the_preset(pairs, theirs_n, capsys, tmp_path):
    preds, labels, theirs = pairs
    hyp, ref = tmp_path / "pred.txt", tmp_path / "label.txt"
    hyp.write_text("".join(p + "\n" for p in preds), encoding="utf-8")
    ref.write_text("".join(l + "\n" for l in labels), encoding="utf-8")
    assert main(["score", "--hyp", str(hyp), "--ref", str(ref), "--config", "rouge_chinese",
                 "--rouge-types", "rouge1,rouge2,rougeL", "--format", "json"]) == 0
    out = capsys.readouterr().out
    for label, xs in (("ROUGE-1", theirs_n["rouge1"]), ("ROUGE-2", theirs_n["rouge2"]), ("ROUGE-L", theirs)):
        reported = float(np.mean([round(x["f"] * 100, 4) for x in xs]))
        assert '"%s": %s' % (label, round(reported, 2)) in out, (label, reported, out)


def test_six_dots_are_cut_as_rouge_chinese_cuts_them():
    """rouge-chinese cuts sentences after six dots, also inside a jieba word: '.......' (one jieba
    word) becomes '......' and '.'.  The preset copies it (issue 32: its numbers, exactly);
    tokenize="jieba" over the preset keeps jieba's words."""
    pred, label = "好的.......我们走", "好的.......我们"
    assert "......." in list(jieba.cut(pred))
    theirs = llama_factory_rouge_l(pred, label)
    ours = compute([pred], [label], preset="rouge_chinese")
    # theirs: '.......' -> '......' '.' on both sides: 好 的 ...... . 我们 走 / 好 的 ...... . 我们
    assert (ours["rougeL_precision"], ours["rougeL_recall"]) == (theirs["p"], theirs["r"]) == (5 / 6, 1.0)
    jieba_words = compute([pred], [label], preset="rouge_chinese", tokenize="jieba")
    assert (jieba_words["rougeL_precision"], jieba_words["rougeL_recall"]) == (4 / 5, 1.0)


def test_readme_example_numbers():
    """docs/official-scorers.md ("Checked against the official scorers"): the printed figures and rouge-chinese's."""
    preds = ["今天天气很好，我们去公园散步。", "模型在测试集上的准确率是95%。"]
    labels = ["今天天气不错，我们去公园走走。", "模型的测试准确率为95%。"]
    theirs = [llama_factory_rouge_l(p, l)["f"] for p, l in zip(preds, labels)]
    assert [round(f, 6) for f in theirs] == [0.705882, 0.625]
    out = compute(preds, labels, preset="rouge_chinese", per_instance=True)
    assert np.abs(out["per_instance"]["rougeL"] - theirs).max() <= 5e-9
    assert round(out["rougeL"], 6) == 0.665441
    assert round(compute(preds, labels, tokenize="jieba")["rougeL"], 6) == 0.676432
