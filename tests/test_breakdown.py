"""Scores per group: --by on dureader / score / compare, and paddle_rougel.breakdown.

A group's score equals scoring the group's instances alone (checked through the command line
on filtered files, and bit for bit in Python); the example files' breakdowns are pinned."""
from __future__ import annotations

import json
import os
import random

import numpy as np
import pytest

from paddle_rougel import breakdown, compare_breakdown
from paddle_rougel.metrics.bleu import BleuAccumulator
from paddle_rougel.metrics.dureader_rouge_l import DuReaderRougeLAccumulator
from paddle_rougel.metrics.rouge_l import RougeLAccumulator
from paddle_rougel.cli import main
from paddle_rougel.api.groups import holm, length_bucket
from paddle_rougel.engine.inputs import make_batch
from paddle_rougel.metrics.bleu import BleuSettings
from paddle_rougel.metrics.dureader_rouge_l import DuReaderRougeLSettings
from paddle_rougel.metrics.rouge_l import RougeLSettings

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EX = os.path.join(ROOT, "examples", "dureader")
PRED, PRED_B, REF = (os.path.join(EX, f) for f in ("pred.jsonl", "pred_b.jsonl", "ref.jsonl"))


def run(capsys, *argv):
    rc = main(list(argv))
    out = capsys.readouterr()
    return rc, out.out, out.err


def run_json(capsys, *argv):
    rc, out, err = run(capsys, *argv)
    assert rc == 0, err
    return json.loads(out)


# ------------------------------------------------------------------ pinned example breakdowns

PINNED = {
    "question_type": {"DESCRIPTION": {"count": 4, "ROUGE-L": 35.18, "BLEU-4": 15.14},
                      "ENTITY": {"count": 4, "ROUGE-L": 50.84, "BLEU-4": 17.65},
                      "YES_NO": {"count": 4, "ROUGE-L": 83.12, "BLEU-4": 75.83}},
    "source": {"search": {"count": 6, "ROUGE-L": 68.89, "BLEU-4": 54.65},
               "zhidao": {"count": 6, "ROUGE-L": 43.87, "BLEU-4": 23.52}},
    "length": {"<=10": {"count": 1, "ROUGE-L": 87.14, "BLEU-4": 100.0},
               "11-20": {"count": 5, "ROUGE-L": 54.75, "BLEU-4": 29.01},
               "21-50": {"count": 6, "ROUGE-L": 52.62, "BLEU-4": 36.57}},
}


@pytest.mark.parametrize("by", sorted(PINNED))
def test_example_breakdowns_are_pinned(capsys, by):
    got = run_json(capsys, "dureader", "--pred_file", PRED, "--ref_file", REF, "--by", by)
    assert got == {"ROUGE-L": 56.38, "BLEU-4": 36.44, "by": by, "groups": PINNED[by]}
    assert list(got["groups"]) == list(PINNED[by])  # order: sorted keys, length buckets by length


def test_example_breakdown_with_intervals_is_pinned(capsys):
    got = run_json(capsys, "dureader", "--pred_file", PRED, "--ref_file", REF, "--by", "question_type",
                   "--confidence")
    assert got["ROUGE-L"] == {"score": 56.38, "pm": 17.16, "low": 38.94, "high": 73.27}  # README's
    assert got["groups"]["YES_NO"] == {"count": 4,
                                       "ROUGE-L": {"score": 83.12, "pm": 8.57, "low": 74.71, "high": 91.85},
                                       "BLEU-4": {"score": 75.83, "pm": 18.84, "low": 52.56, "high": 90.24}}
    assert got["groups"]["DESCRIPTION"]["ROUGE-L"] == {"score": 35.18, "pm": 35.18, "low": 0.0, "high": 70.36}


def test_a_group_of_one_instance_has_no_interval_and_no_test(capsys):
    got = run_json(capsys, "dureader", "--pred_file", PRED, "--ref_file", REF, "--by", "length", "--confidence")
    assert got["groups"]["<=10"] == {"count": 1, "ROUGE-L": {"score": 87.14, "pm": None, "low": None, "high": None},
                                     "BLEU-4": {"score": 100.0, "pm": None, "low": None, "high": None}}
    assert got["groups"]["11-20"]["ROUGE-L"]["low"] is not None
    cmp = run_json(capsys, "compare", "--ref_file", REF, "--pred_file", PRED, "--pred_file", PRED_B, "--by", "length")
    assert cmp["groups"]["<=10"] == {"count": 1, "ROUGE-L": None, "BLEU-4": None}
    # Holm counts the two tested groups only
    for key in ("11-20", "21-50"):
        r = cmp["groups"][key]["ROUGE-L"]
        assert r["p_holm"] >= r["p_value"] and r["p_holm"] <= min(1.0, round(2 * r["p_value"], 4))
    rc, out, err = run(capsys, "compare", "--ref_file", REF, "--pred_file", PRED, "--pred_file", PRED_B,
                       "--by", "length", "--format", "table")
    assert rc == 0 and "(1 instance: no test)" in out and "adjusted for 2 tested groups" in out


def _rows(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


@pytest.mark.parametrize("by,field", [("question_type", "question_type"), ("source", "source")])
def test_each_group_equals_scoring_its_questions_alone(capsys, tmp_path, by, field):
    groups = run_json(capsys, "dureader", "--pred_file", PRED, "--ref_file", REF, "--by", by)["groups"]
    refs, preds = _rows(REF), _rows(PRED)
    scored = [r for r in refs if r["answers"]]
    assert sum(g["count"] for g in groups.values()) == len(scored)
    for key, g in groups.items():
        mine = [r for r in refs if r.get(field) == key]
        ids = {r["question_id"] for r in mine}
        (tmp_path / "r.jsonl").write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in mine),
                                          encoding="utf-8")
        (tmp_path / "p.jsonl").write_text("".join(json.dumps(p, ensure_ascii=False) + "\n" for p in preds
                                                  if p["question_id"] in ids), encoding="utf-8")
        alone = run_json(capsys, "dureader", "--pred_file", str(tmp_path / "p.jsonl"),
                         "--ref_file", str(tmp_path / "r.jsonl"))
        assert alone == {"ROUGE-L": g["ROUGE-L"], "BLEU-4": g["BLEU-4"]}, key


def _random_contest(rng, n):
    alpha = "abcdefgh"
    word = lambda: "".join(rng.choice(alpha) for _ in range(rng.randint(0, 30)))  # noqa: E731
    cands = [word() for _ in range(n)]
    refs = [[word() or "a" for _ in range(rng.randint(1, 3))] for _ in range(n)]
    return cands, refs


def test_python_group_scores_equal_a_metric_of_the_group_bit_for_bit():
    rng = random.Random(7)
    cands, refs = _random_contest(rng, 300)
    yn_labels = [rng.choice([None, "Yes", "No"]) for _ in cands]
    yn_refs = [[rng.choice(["Yes", "No"]) for _ in r] if y else None for y, r in zip(yn_labels, refs)]
    keys = [rng.choice(["x", "y", "z", 3]) for _ in cands]
    rs, bs = DuReaderRougeLSettings(), BleuSettings()
    rouge, bleu = DuReaderRougeLAccumulator(rs), BleuAccumulator(bs, keep_instances=True)
    for acc in (rouge, bleu):
        acc.add(make_batch(cands, refs, yn_labels, yn_refs))
    got = {"r": breakdown(rouge, keys), "b": breakdown(bleu, keys, confidence=0.9, resamples=200, seed=3)}
    assert list(got["r"]) == list(dict.fromkeys(keys))  # mixed key types: first appearance
    for k in got["r"]:
        idx = [i for i, key in enumerate(keys) if key == k]
        sub = lambda xs: [xs[i] for i in idx]  # noqa: E731
        r1, b1 = DuReaderRougeLAccumulator(rs), BleuAccumulator(bs)
        for acc in (r1, b1):
            acc.add(make_batch(sub(cands), sub(refs), sub(yn_labels), sub(yn_refs)))
        assert got["r"][k].count == len(idx)
        assert got["r"][k].score == r1.score()          # exact: the same sum of the same values
        assert got["b"][k].score == b1.score()          # corpus BLEU of the group, not a mean
        iv = got["b"][k].interval
        assert iv.low <= iv.high and iv.resamples == 200 and iv.confidence == 0.9


def test_breakdown_needs_one_key_per_instance_and_bleu_rows():
    acc = RougeLAccumulator(RougeLSettings())
    acc.add(make_batch(["ab", "cd"], [["ab"], ["ce"]]))
    with pytest.raises(ValueError, match="got 1 keys for 2 instances"):
        breakdown(acc, ["a"])
    with pytest.raises(TypeError, match="key 1"):
        breakdown(acc, ["a", ["unhashable"]])
    bleu = BleuAccumulator(BleuSettings())
    bleu.add(make_batch(["ab"], [["ab"]]))
    with pytest.raises(ValueError, match="keep_instances=True"):
        breakdown(bleu, ["a"])


def test_holm():
    assert holm([0.01, 0.04, 0.03]) == [0.03, 0.06, 0.06]
    assert holm([0.5, 0.6]) == [1.0, 1.0]
    assert holm([]) == []
    # never below the raw p, never above Bonferroni
    rng = np.random.default_rng(0)
    p = rng.random(12).tolist()
    adj = holm(p)
    assert all(a >= x and a <= min(1.0, 12 * x) for a, x in zip(adj, p))


def test_compare_breakdown_json_and_holm(capsys):
    got = run_json(capsys, "compare", "--ref_file", REF, "--pred_file", PRED, "--pred_file", PRED_B,
                   "--by", "question_type")
    assert got["correction"] == "holm" and got["by"] == "question_type"
    assert got["ROUGE-L"]["A"] == 56.38 and got["ROUGE-L"]["B"] == 84.59
    for key, g in got["groups"].items():
        for m in ("ROUGE-L", "BLEU-4"):
            assert g[m]["p_holm"] >= g[m]["p_value"]
    assert got["groups"]["ENTITY"]["BLEU-4"]["p_value"] == got["groups"]["ENTITY"]["BLEU-4"]["p_holm"] == 0.0789
    assert got["groups"]["YES_NO"]["BLEU-4"] == {"A": 75.83, "B": 83.24, "difference": 7.41, "low": 3.6,
                                                 "high": 17.39, "p_value": 0.034, "p_holm": 0.0679}
    # the group's A and B are the per-group scores of `dureader --by`
    for pred, side in ((PRED, "A"), (PRED_B, "B")):
        groups = run_json(capsys, "dureader", "--pred_file", pred, "--ref_file", REF, "--by", "question_type")
        for key, g in groups["groups"].items():
            assert got["groups"][key]["ROUGE-L"][side] == g["ROUGE-L"]


def test_score_by_keyfile_and_length(capsys, tmp_path):
    hyp, ref, keys = tmp_path / "h.txt", tmp_path / "r.txt", tmp_path / "k.txt"
    hyp.write_text("abcd\nxyz\nabc\nq\n", encoding="utf-8")
    ref.write_text("abce\nxyw\nabc\nrr\n", encoding="utf-8")
    keys.write_text("news\nchat\nnews\nchat\n", encoding="utf-8")
    got = run_json(capsys, "score", "--hyp", str(hyp), "--ref", str(ref), "--by", str(keys))
    assert got["groups"] == {"chat": {"count": 2, "ROUGE-L": 33.33}, "news": {"count": 2, "ROUGE-L": 87.5}}
    alone = run_json(capsys, "score", "--hyp", str(hyp), "--ref", str(ref))
    assert got["ROUGE-L"] == alone["ROUGE-L"]
    got = run_json(capsys, "score", "--hyp", str(hyp), "--ref", str(ref), "--by", "length", "--confidence", "50")
    assert list(got["groups"]) == ["<=10"] and got["groups"]["<=10"]["count"] == 4
    rc, out, err = run(capsys, "score", "--hyp", str(hyp), "--ref", str(ref), "--by", str(keys), "--format", "table")
    assert rc == 0 and out.splitlines()[0].split() == [str(keys), "count", "ROUGE-L"]
    assert out.splitlines()[1].split() == ["(all)", "4", "60.42"]


def test_bad_by_is_a_clear_error(capsys, tmp_path):
    rc, out, err = run(capsys, "dureader", "--pred_file", PRED, "--ref_file", REF, "--by", "colour")
    assert rc == 2 and "--by" in err and "colour" in err and "question_type" in err and out == ""
    rc, out, err = run(capsys, "compare", "--ref_file", REF, "--pred_file", PRED, "--pred_file", PRED_B,
                       "--by", "colour")
    assert rc == 2 and "--by colour" in err and "question_type" in err and out == ""
    hyp, keys = tmp_path / "h.txt", tmp_path / "k.txt"
    hyp.write_text("a\nb\n", encoding="utf-8")
    keys.write_text("x\n", encoding="utf-8")
    rc, out, err = run(capsys, "score", "--hyp", str(hyp), "--ref", str(hyp), "--by", str(keys))
    assert rc == 2 and f"--by {keys}: has 1 lines but there are 2" in err
    rc, out, err = run(capsys, "score", "--hyp", str(hyp), "--ref", str(hyp), "--by", str(tmp_path / "nope"))
    assert rc == 2 and "no such file" in err


def test_length_buckets():
    assert [length_bucket(n) for n in (0, 10, 11, 20, 21, 50, 51, 100, 101, 200, 201)] == \
        ["<=10", "<=10", "11-20", "11-20", "21-50", "21-50", "51-100", "51-100", "101-200", "101-200", ">200"]


def test_compare_breakdown_python_matches_compare():
    from paddle_rougel.metrics.accumulators import compare
    rng = random.Random(1)
    cands, refs = _random_contest(rng, 80)
    cands_b = [c[::-1] for c in cands]
    a, b = RougeLAccumulator(RougeLSettings()), RougeLAccumulator(RougeLSettings())
    a.add(make_batch(cands, refs))
    b.add(make_batch(cands_b, refs))
    res = compare_breakdown(a, b, ["g"] * 80, resamples=300, seed=5)
    whole = compare(a, b, resamples=300, seed=5)
    assert res["g"].comparison == whole and res["g"].p_adjusted == whole.p_value  # one group: no correction
