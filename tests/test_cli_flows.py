"""The command line on the flows users run (issue 32): one reading of ``<n>`` for every type, JSON
lines with field selection (LLaMA-Factory's ``generated_predictions.jsonl``), DuReader ids that
match only as text, ``--by`` names against files, control characters in human-readable output,
``merge`` signatures derived from the states, and clear flag errors.

Oracles: rouge-score 0.1.2 (the real package) for the text scores, tests/dureader_official.py for
the contest's keying of question ids.
"""
from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys

import pytest
from rouge_score import rouge_scorer

from dureader_official import evaluate as official_evaluate
from paddle_rougel.cli import main

ROOT = pathlib.Path(__file__).resolve().parents[1]
HYP, REF = ROOT / "examples" / "text" / "hyp.txt", ROOT / "examples" / "text" / "ref.txt"
EX = ROOT / "examples" / "dureader"
LABEL = {"rouge1": "ROUGE-1", "rouge2": "ROUGE-2", "rougeL": "ROUGE-L", "rougeLsum": "ROUGE-Lsum"}


def run(capsys, *argv):
    rc = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return rc, out, err


def one_error(rc, out, err, *words):
    assert rc == 2, (rc, out, err)
    assert out == ""
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("paddle-rougel: error: "), err
    for w in words:
        assert str(w) in err, (w, err)


def _lines(p):
    return [ln.replace("<n>", "\n") for ln in pathlib.Path(p).read_text(encoding="utf-8").splitlines()]


# ---------------------------------------------------------------- item 2: one reading of <n>

def test_n_marker_reads_the_same_for_every_type_of_any_run(capsys, tmp_path):
    """ROUGE-1/2/L of the shipped summaries are the same with or without rougeLsum in the run
    (they were 74.10 vs 73.69 for ROUGE-1), and equal rouge-score's with ``<n>`` a newline, per line."""
    base = ["score", "--hyp", HYP, "--ref", REF, "--tokenize", "rouge_score", "--gamma", "1"]
    rows = tmp_path / "rows.jsonl"
    rc, out, err = run(capsys, *base, "--rouge-types", "rouge1,rouge2,rougeL", "--per-instance", rows)
    assert rc == 0, err
    alone = json.loads(out)
    rc, out, _ = run(capsys, *base, "--rouge-types", "rouge1,rouge2,rougeL,rougeLsum")
    with_lsum = json.loads(out)
    assert {k: with_lsum[k] for k in alone} == alone
    assert alone["ROUGE-1"] == 73.69
    scorer = rouge_scorer.RougeScorer(["rouge1", "rouge2", "rougeL"])
    want = [scorer.score(r, h) for h, r in zip(_lines(HYP), _lines(REF))]
    got = [json.loads(x) for x in rows.read_text().splitlines()]
    for t in ("rouge1", "rouge2", "rougeL"):
        for g, w in zip(got, want):
            assert abs(g[LABEL[t]] - w[t].fmeasure) < 1e-12, (t, g, w[t])
    for t in ("rouge1", "rougeL"):  # one type alone: the same reading
        rc, out, _ = run(capsys, *base, "--rouge-types", t)
        assert json.loads(out)[LABEL[t]] == alone[LABEL[t]]


def test_compare_and_explain_read_n_markers_as_score_does(capsys):
    base = ["--tokenize", "rouge_score", "--gamma", "1"]
    rc, out, _ = run(capsys, "score", "--hyp", HYP, "--ref", REF, *base, "--per-instance", "-")
    first = json.loads(out.splitlines()[0])
    want = rouge_scorer.RougeScorer(["rougeL"]).score(_lines(REF)[0], _lines(HYP)[0])["rougeL"].fmeasure
    assert abs(first["f"] - want) < 1e-12
    rc, out, err = run(capsys, "explain", "--hyp", HYP, "--ref", REF, "--line", 1, *base, "--color", "never")
    assert rc == 0, err
    assert f"ROUGE-L F {first['f']:.4f}" in out.splitlines()[0]
    assert "<n>" not in out and "[n]" not in out  # the marker is not a token of the alignment
    rc, out, _ = run(capsys, "compare", "--ref", REF, "--hyp", HYP, "--hyp", HYP, *base, "--resamples", 40)
    rc2, out2, _ = run(capsys, "score", "--hyp", HYP, "--ref", REF, *base)
    assert json.loads(out)["ROUGE-L"]["A"] == json.loads(out2)["ROUGE-L"]


# ---------------------------------------------------------------- item 4: JSON lines

def _llama_factory(path):
    """generated_predictions.jsonl as LLaMA-Factory writes it: prompt, predict, label; multi-line."""
    rows = [{"prompt": "Summarise.", "predict": "The cat sat on the mat.\nIt was happy there.",
             "label": "A cat sat on the mat.\nThe cat was very happy."},
            {"prompt": "Q", "predict": "Police arrested two men\n\nafter the robbery.",
             "label": "Two men were arrested by police following a robbery."},
            {"prompt": "Q", "predict": "", "label": "Stocks fell."}]
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return rows


def test_llama_factory_predictions_scored_by_field(capsys, tmp_path):
    f = tmp_path / "generated_predictions.jsonl"
    rows = _llama_factory(f)
    per = tmp_path / "rows.jsonl"
    types = ["rouge1", "rouge2", "rougeL", "rougeLsum"]
    rc, out, err = run(capsys, "score", "--hyp", f, "--ref", f, "--hyp-field", "predict", "--ref-field", "label",
                       "--tokenize", "rouge_score", "--gamma", "1", "--rouge-types", ",".join(types),
                       "--per-instance", per)
    assert rc == 0, err
    assert "lines scored: 3" in err
    scorer = rouge_scorer.RougeScorer(types)
    want = [scorer.score(r["label"], r["predict"]) for r in rows]
    got = [json.loads(x) for x in per.read_text().splitlines()]
    for t in types:
        for g, w in zip(got, want):
            assert abs(g[LABEL[t]] - w[t].fmeasure) < 1e-12, (t, g, w[t])
        assert json.loads(out)[LABEL[t]] == round(sum(w[t].fmeasure for w in want) / 3 * 100, 2)


def test_field_names_one_key_of_two_files(capsys, tmp_path):
    h, r = tmp_path / "h.jsonl", tmp_path / "r.jsonl"
    h.write_text('{"text": "a b c", "id": 1}\n{"text": "x y", "id": 2}\n', encoding="utf-8")
    r.write_text('{"text": "a b d"}\n{"text": "x y"}\n', encoding="utf-8")
    rc, out, err = run(capsys, "score", "--hyp", h, "--ref", r, "--field", "text", "--tokenize", "whitespace",
                       "--gamma", "1", "--rouge-types", "rouge1")
    assert rc == 0, err
    assert json.loads(out)["ROUGE-1"] == round((2 / 3 + 1) / 2 * 100, 2)


def test_json_lines_without_a_field_is_an_error_listing_the_keys(capsys, tmp_path):
    f = tmp_path / "generated_predictions.jsonl"
    _llama_factory(f)
    rc, out, err = run(capsys, "score", "--hyp", f, "--ref", f)
    one_error(rc, out, err, str(f), "JSON lines", "'prompt'", "'predict'", "'label'", "--hyp-field")


@pytest.mark.parametrize("content, where, words", [
    ('{"predict": "a", "label": "b"}\n{"predict": "a", "label": \n', ":2", ["invalid JSON"]),
    ('{"predict": "a", "label": "b"}\n{"label": "b"}\n', ":2", ["'predict'", "'label'"]),
    ('{"predict": 3, "label": "b"}\n', ":1", ["'predict'", "a number", "string"]),
    ('{"predict": null, "label": "b"}\n', ":1", ["'predict'", "null", "string"]),
    ('["a", "b"]\n', ":1", ["JSON object"]),
])
def test_bad_json_lines_name_file_line_and_field(capsys, tmp_path, content, where, words):
    f = tmp_path / "p.jsonl"
    f.write_text(content, encoding="utf-8")
    rc, out, err = run(capsys, "score", "--hyp", f, "--ref", f, "--hyp-field", "predict", "--ref-field", "label")
    one_error(rc, out, err, f"{f}{where}", *words)


def test_field_on_a_text_file_is_an_error_and_text_format_scores_lines_as_written(capsys, tmp_path):
    rc, out, err = run(capsys, "score", "--hyp", HYP, "--ref", REF, "--field", "text")
    one_error(rc, out, err, f"{HYP}:1", "JSON")
    f = tmp_path / "j.txt"
    f.write_text('{"a": "x"}\n', encoding="utf-8")
    rc, out, err = run(capsys, "score", "--hyp", f, "--ref", f, "--input-format", "text")
    assert rc == 0 and json.loads(out)["ROUGE-L"] == 100.0, err


# ---------------------------------------------------------------- item 5: DuReader ids

def test_dureader_ids_matching_only_as_text_are_said(capsys, tmp_path):
    pred, ref = tmp_path / "pred.jsonl", tmp_path / "ref.jsonl"
    ref.write_text('{"question_id": 1001, "question_type": "DESCRIPTION", "answers": ["今天天气不错"], "source": "s"}\n'
                   '{"question_id": 1002, "question_type": "DESCRIPTION", "answers": ["北京"], "source": "s"}\n',
                   encoding="utf-8")
    pred.write_text('{"question_id": "1001", "answers": ["今天天气不错"]}\n'
                    '{"question_id": 1002, "answers": ["北京"]}\n', encoding="utf-8")
    rc, out, err = run(capsys, "dureader", "--pred_file", pred, "--ref_file", ref)
    assert rc == 0, err
    want, _ = official_evaluate(str(pred), str(ref))  # the official script keys ids as given
    assert json.loads(out) == want == {"ROUGE-L": 50.0, "BLEU-4": want["BLEU-4"]}
    warn = [ln for ln in err.splitlines() if ln.startswith("paddle-rougel: warning:")]
    assert len(warn) == 1 and "1001" in warn[0] and "as text" in warn[0], err


@pytest.mark.parametrize("flags", [["--field", "answer"], ["--hyp-field", "predict", "--ref-field", "label"],
                                   ["--input-format", "jsonl"]])
def test_field_flags_with_dureader_files_are_refused_not_ignored(capsys, tmp_path, flags):
    """compare, explain and report read DuReader files by the contest's fields: a JSON-lines
    field flag there would change nothing, so it is an error naming the flag."""
    pred, ref = EX / "pred.jsonl", EX / "ref.jsonl"
    qid = json.loads(pred.read_text(encoding="utf-8").splitlines()[0])["question_id"]
    for argv in (["compare", "--ref_file", ref, "--pred_file", pred, "--pred_file", pred],
                 ["explain", "--ref_file", ref, "--pred_file", pred, "--question_id", qid],
                 ["report", "--ref_file", ref, "--pred_file", pred, "-o", tmp_path / "r.html"]):
        rc, out, err = run(capsys, *argv, *flags)
        one_error(rc, out, err, flags[0], "DuReader files")
    assert not (tmp_path / "r.html").exists()


def test_dureader_swapped_files_suggest_the_swap(capsys):
    rc, out, err = run(capsys, "dureader", "--pred_file", EX / "ref.jsonl", "--ref_file", EX / "pred.jsonl")
    one_error(rc, out, err, "swapped", "--pred_file", "--ref_file")
    assert "None" not in err


# ---------------------------------------------------------------- item 8: --by names

def test_by_length_is_the_built_in_even_with_a_file_named_length(capsys, tmp_path, monkeypatch):
    rc, out, _ = run(capsys, "score", "--hyp", HYP, "--ref", REF, "--by", "length")
    builtin = json.loads(out)
    assert builtin["groups"]
    monkeypatch.chdir(tmp_path)
    (tmp_path / "length").write_text("a\nb\na\nb\na\n", encoding="utf-8")
    rc, out, err = run(capsys, "score", "--hyp", HYP, "--ref", REF, "--by", "length")
    assert rc == 0 and json.loads(out) == builtin
    assert "warning" in err and "./length" in err
    rc, out, err = run(capsys, "score", "--hyp", HYP, "--ref", REF, "--by", "./length")
    assert rc == 0 and sorted(json.loads(out)["groups"]) == ["a", "b"], err
    rc, out, err = run(capsys, "report", "--hyp", HYP, "--ref", REF, "--by", "length", "-o", tmp_path / "r.html")
    assert rc == 0, err


def test_an_empty_breakdown_is_an_error(capsys, tmp_path):
    h, k = tmp_path / "h.txt", tmp_path / "keys.txt"
    h.write_text("", encoding="utf-8")
    k.write_text("", encoding="utf-8")
    rc, out, err = run(capsys, "score", "--hyp", h, "--ref", h, "--by", k)
    one_error(rc, out, err, "--by", "no group")


# ---------------------------------------------------------------- item 11: control characters

EVIL = "ok\x1b]0;pwned\x07\x1b[2J text"


def test_explain_escapes_control_characters(capsys, tmp_path):
    h, r = tmp_path / "h.txt", tmp_path / "r.txt"
    h.write_text(EVIL + "\n", encoding="utf-8")
    r.write_text("ok text\n", encoding="utf-8")
    for colour in ("never", "always"):
        rc, out, err = run(capsys, "explain", "--hyp", h, "--ref", r, "--line", 1, "--color", colour,
                           "--tokenize", "whitespace")
        assert rc == 0, err
        assert "\x07" not in out and "\\x1b" in out and "\\x07" in out
        if colour == "never":
            assert "\x1b" not in out
        else:  # only the colour codes explain writes itself
            assert out.replace("\x1b[1;32m", "").replace("\x1b[0m", "").count("\x1b") == 0


def test_explain_escapes_a_question_id(capsys, tmp_path):
    pred, ref = tmp_path / "p.jsonl", tmp_path / "r.jsonl"
    qid = "q\x1b[31m1"
    ref.write_text(json.dumps({"question_id": qid, "question_type": "DESCRIPTION", "answers": ["好"],
                               "source": "s"}) + "\n", encoding="utf-8")
    pred.write_text(json.dumps({"question_id": qid, "answers": ["好"]}) + "\n", encoding="utf-8")
    rc, out, err = run(capsys, "explain", "--pred_file", pred, "--ref_file", ref, "--question_id", qid,
                       "--color", "never")
    assert rc == 0 and "\x1b" not in out and "\\x1b" in out, err


def test_breakdown_tables_escape_keys(capsys, tmp_path):
    keys = tmp_path / "keys.txt"
    keys.write_text("a\x1b[2J\nb\x07\na\x1b[2J\nb\x07\nc\n", encoding="utf-8")
    rc, out, err = run(capsys, "score", "--hyp", HYP, "--ref", REF, "--by", keys, "--format", "table")
    assert rc == 0 and "\x1b" not in out and "\x07" not in out and "\\x1b" in out, err
    rc, out, err = run(capsys, "compare", "--ref", REF, "--hyp", HYP, "--hyp", REF, "--by", keys,
                       "--format", "table", "--resamples", 40)
    assert rc == 0 and "\x1b" not in out and "\x07" not in out, err
    ref = tmp_path / "r.jsonl"
    rows = [json.loads(x) for x in (EX / "ref.jsonl").read_text(encoding="utf-8").splitlines()]
    for r in rows:
        r["source"] = "src\x1b[2J"
    ref.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    rc, out, err = run(capsys, "dureader", "--pred_file", EX / "pred.jsonl", "--ref_file", ref, "--by", "source",
                       "--format", "table")
    assert rc == 0 and "\x1b" not in out and "\\x1b" in out, err


# ---------------------------------------------------------------- item 12: merge signatures

def _score_state(capsys, tmp_path, name, *extra):
    p = tmp_path / name
    rc, _, err = run(capsys, "score", "--hyp", HYP, "--ref", REF, "--tokenize", "rouge_score",
                     "--rouge-types", "rouge1,rougeL", "--save-state", p, *extra)
    assert rc == 0, err
    return p


def test_merge_prints_the_signature_of_the_states_settings(capsys, tmp_path):
    a = _score_state(capsys, tmp_path, "a.json")
    rc, _, err = run(capsys, "score", "--hyp", HYP, "--ref", REF, "--tokenize", "rouge_score",
                     "--rouge-types", "rouge1,rougeL", "--format", "table")
    score_sig = err.splitlines()[-1] if "|" in err.splitlines()[-1] else None
    rc, out, err = run(capsys, "merge", a)
    assert rc == 0, err
    sig = err.splitlines()[-1]
    assert sig.startswith("rouge1+rougeL|") and "tok:rouge_score" in sig
    bare = tmp_path / "bare.json"  # a state_dict file has no signature: it is derived all the same
    obj = json.loads(a.read_text())
    bare.write_text(json.dumps(obj["metrics"]["rouge_l"]), encoding="utf-8")
    rc, out, err = run(capsys, "merge", bare)
    assert rc == 0 and err.splitlines()[-1].startswith("rougeL|gamma:1.2|multi_ref:max_pr|tok:rouge_score"), err
    del score_sig


@pytest.mark.parametrize("lie", [("tok:rouge_score", "tok:char"), ("rouge1+rougeL", "rouge2+rougeL"),
                                 ("gamma:1.2", "gamma:1.0")])
def test_merge_refuses_a_signature_that_contradicts_its_states(capsys, tmp_path, lie):
    a = _score_state(capsys, tmp_path, "a.json")
    obj = json.loads(a.read_text())
    obj["signature"] = obj["signature"].replace(*lie)
    a.write_text(json.dumps(obj), encoding="utf-8")
    rc, out, err = run(capsys, "merge", a)
    one_error(rc, out, err, str(a), "signature", lie[1])


# ---------------------------------------------------------------- item 21: flag errors

@pytest.mark.parametrize("argv, flag", [
    (["report", "--hyp", HYP, "--ref", REF, "-o", "x.html", "--worst", "abc"], "--worst"),
    (["score", "--hyp", HYP, "--ref", REF, "--seed", "x"], "--seed"),
    (["score", "--hyp", HYP, "--ref", REF, "--confidence", "--resamples", "1.5"], "--resamples"),
    (["score", "--hyp", HYP, "--ref", REF, "--lowercase", "maybe"], "--lowercase"),
    (["score", "--hyp", HYP, "--ref", REF, "--gamma", "abc"], "--gamma"),
])
def test_flag_values_that_do_not_parse_say_what_was_expected(argv, flag):
    p = subprocess.run([sys.executable, "-m", "paddle_rougel", *map(str, argv)], capture_output=True, text=True,
                       timeout=120, cwd=ROOT, env={**os.environ})
    assert p.returncode == 2 and p.stdout == ""
    last = p.stderr.splitlines()[-1]
    assert flag in last and "expected" in last and "_count" not in last and "_seed" not in last \
        and "_bool" not in last and "invalid" not in last, p.stderr
