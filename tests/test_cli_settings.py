"""Command-line settings come from the metrics' own settings; `score` has the outputs of `dureader`."""
from __future__ import annotations

import io
import json
import os
import sys

import pytest

from paddle_rougel import RougeL, compute
from paddle_rougel.metrics import OPTIONS
from test_cli_hostile import run  # the CLI helpers, one home (tests/ is on sys.path)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PRED = os.path.join(ROOT, "examples", "dureader", "pred.jsonl")
REF = os.path.join(ROOT, "examples", "dureader", "ref.jsonl")


@pytest.fixture
def files(tmp_path):
    hyp, ref = tmp_path / "hyp.txt", tmp_path / "ref.txt"
    hyp.write_text("the cat sat on the mat\n今天 天气 很好\n", encoding="utf-8")
    ref.write_text("the cat is on the mat\n今天天气不错\n", encoding="utf-8")
    return str(hyp), str(ref)


def test_jieba_default_keeps_english_words_apart(capsys, files):
    """jieba under the default normalisation used to glue English words (issue 10)."""
    with pytest.raises(ValueError, match="glued"):
        RougeL(tokenize="jieba", normalize="nows")
    rc, out, err = run(capsys, "score", "--hyp", files[0], "--ref", files[1], "--tokenize",
                       "whitespace", "--normalize", "nows")
    assert rc == 2 and "--normalize" in err and "glued" in err and err.count("\n") == 1


def test_word_tokenizers_default_to_no_whitespace_removal(capsys, files):
    rc, out, err = run(capsys, "score", "--hyp", files[0], "--ref", files[1], "--tokenize", "zh",
                       "--gamma", "1")
    assert rc == 0 and "tok:zh|norm:none|lc:no" in err
    want = compute(["the cat sat on the mat", "今天 天气 很好"],
                   ["the cat is on the mat", "今天天气不错"], tokenize="zh", gamma=1.0)
    assert json.loads(out)["ROUGE-L"] == round(want["rougeL"] * 100, 2)


def test_score_outputs_per_instance_state_and_merge(capsys, files, tmp_path):
    pi, st = tmp_path / "pi.jsonl", tmp_path / "st.json"
    rc, out, err = run(capsys, "score", "--hyp", files[0], "--ref", files[1], "--tokenize",
                       "whitespace", "--per-instance", pi, "--save-state", st)
    assert rc == 0
    rows = [json.loads(line) for line in pi.read_text().splitlines()]
    assert [r["line"] for r in rows] == [1, 2] and set(rows[0]) == {"line", "precision", "recall", "f"}
    m = RougeL(tokenize="whitespace")
    m.add_batch(["the cat sat on the mat", "今天 天气 很好"], [["the cat is on the mat"], ["今天天气不错"]])
    assert [r["f"] for r in rows] == m.per_instance().fmeasure.tolist()
    rc, merged, _ = run(capsys, "merge", st)
    assert rc == 0 and json.loads(merged)["ROUGE-L"] == json.loads(out)["ROUGE-L"]


def test_score_reads_standard_input(capsys, files, monkeypatch):
    with open(files[0], "rb") as f:
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(f.read())))
    rc, out, _ = run(capsys, "score", "--hyp", "-", "--ref", files[1])
    rc2, out2, _ = run(capsys, "score", "--hyp", files[0], "--ref", files[1])
    assert rc == rc2 == 0 and out == out2
    rc, _, err = run(capsys, "score", "--hyp", "-", "--ref", "-")
    assert rc == 2 and "standard input" in err


def test_score_table_format(capsys, files):
    rc, out, err = run(capsys, "score", "--hyp", files[0], "--ref", files[1], "--format", "table")
    lines = out.splitlines()
    assert rc == 0 and lines[0].split() == ["metric", "score"]
    assert [ln.split()[0] for ln in lines[1:4]] == ["ROUGE-L", "ROUGE-L-P", "ROUGE-L-R"]
    assert lines[-1].startswith("rougeL|gamma:1.2|")


def test_bonus_weights_new_names_and_old_aliases(capsys, tmp_path):
    new = run(capsys, "dureader", "--pred_file", PRED, "--ref_file", REF, "--yesno-weight", "0.5",
              "--entity-weight", "2")
    old = run(capsys, "dureader", "--pred_file", PRED, "--ref_file", REF, "--alpha", "0.5", "--beta", "2")
    cfg = tmp_path / "c.yaml"
    cfg.write_text("yesno_weight: 0.5\nentity_weight: 2\n")
    conf = run(capsys, "dureader", "--pred_file", PRED, "--ref_file", REF, "--config", cfg)
    assert new[0] == old[0] == conf[0] == 0
    assert new[1] == old[1] == conf[1]
    assert "bonus:yn0.5,ent2.0" in new[2]


def test_config_keys_are_the_option_table(tmp_path, capsys):
    cfg = tmp_path / "c.yaml"
    cfg.write_text("gama: 1.0\n")
    rc, _, err = run(capsys, "score", "--hyp", PRED, "--ref", PRED, "--config", cfg)
    assert rc == 2 and "unknown key 'gama'" in err and "did you mean 'gamma'" in err
    assert set(OPTIONS) == {"gamma", "alpha", "multi_ref", "tokenize", "normalize", "lowercase",
                            "stem", "yesno_weight", "entity_weight", "split", "distinct"}


def test_dureader_with_word_tokens_and_lowercase(capsys):
    rc, out, err = run(capsys, "dureader", "--pred_file", PRED, "--ref_file", REF, "--tokenize", "zh",
                       "--lowercase", "yes")
    assert rc == 0 and "tok:zh|norm:none|lc:yes" in err
    assert set(json.loads(out)) == {"ROUGE-L", "BLEU-4"}


def test_score_summary_level_equals_rouge_score(capsys, tmp_path):
    """`score --summary-level`: ROUGE-Lsum of line files, <n> between a line's sentences (issue 11)."""
    from rouge_score import rouge_scorer

    hyp, ref, st = tmp_path / "h.txt", tmp_path / "r.txt", tmp_path / "s.json"
    hyp.write_text("the cat sat on the mat<n>it was happy\nhello world\n", encoding="utf-8")
    ref.write_text("a cat sat on a mat<n>the cat was very happy\nhello there world\n", encoding="utf-8")
    rc, out, err = run(capsys, "score", "--hyp", hyp, "--ref", ref, "--summary-level", "--tokenize",
                       "rouge_score", "--gamma", "1", "--multi-ref", "best", "--save-state", st)
    assert rc == 0 and err.splitlines()[-1].startswith("rougeLsum|gamma:1.0|multi_ref:best|split:newline|")
    scorer = rouge_scorer.RougeScorer(["rougeLsum"])
    want = [scorer.score(r.replace("<n>", "\n"), h.replace("<n>", "\n"))["rougeLsum"] for h, r in
            zip(hyp.read_text().splitlines(), ref.read_text().splitlines())]
    got = json.loads(out)
    assert got["ROUGE-Lsum"] == round(sum(s.fmeasure for s in want) / 2 * 100, 2)
    assert got["ROUGE-Lsum-P"] == round(sum(s.precision for s in want) / 2 * 100, 2)
    rc, merged, _ = run(capsys, "merge", st)
    assert rc == 0 and json.loads(merged) == got  # F, P and R, as score printed them
    rc, _, err = run(capsys, "score", "--hyp", hyp, "--ref", ref, "--split", "zh")
    assert rc == 2 and "--summary-level" in err


def test_rouge155_preset_is_rouge155_default_and_best_recall(capsys, tmp_path):
    """Issue 19: ROUGE-1.5.5 -f A (its default) pools hits and lengths; -f B takes the reference
    with the highest recall (the preset printed 88.89, rouge-score's best-F reference)."""
    hyp, r1, r2 = tmp_path / "h.txt", tmp_path / "r1.txt", tmp_path / "r2.txt"
    hyp.write_text("A b, c d\n", encoding="utf-8")
    r1.write_text("a\n", encoding="utf-8")
    r2.write_text("a b c d e\n", encoding="utf-8")
    args = ["score", "--hyp", hyp, "--ref", r1, "--ref", r2, "--config", "rouge155"]
    rc, out, err = run(capsys, *args)  # R = 5/6, P = 5/8, F = 5/7
    assert rc == 0 and json.loads(out)["ROUGE-L"] == 71.43 and "multi_ref:pooled|tok:rouge_score" in err
    rc, out, err = run(capsys, *args, "--multi-ref", "best_recall")  # R = 1, P = 1/4, F = 0.4
    assert rc == 0 and json.loads(out)["ROUGE-L"] == 40.0
    rc, out, err = run(capsys, *args, "--summary-level")
    assert rc == 0 and json.loads(out)["ROUGE-Lsum"] == 71.43
