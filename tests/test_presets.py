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
