"""--confidence and the compare command (issue 12) on the command line."""
from __future__ import annotations

import json
import os

import pytest

from test_cli_hostile import run  # the CLI helpers, one home (tests/ is on sys.path)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EX = os.path.join(ROOT, "examples", "dureader")
PRED, PRED_B, REF = (os.path.join(EX, f) for f in ("pred.jsonl", "pred_b.jsonl", "ref.jsonl"))


def test_dureader_confidence_json(capsys):
    rc, out, err = run(capsys, "dureader", "--pred_file", PRED, "--ref_file", REF, "--confidence")
    assert rc == 0
    got = json.loads(out)
    plain = json.loads(run(capsys, "dureader", "--pred_file", PRED, "--ref_file", REF)[1])
    for name in ("ROUGE-L", "BLEU-4"):
        r = got[name]
        assert r["score"] == plain[name]  # the point estimate does not move
        assert r["low"] <= r["score"] <= r["high"]
        assert r["pm"] == round((r["high"] - r["low"]) / 2, 2)
    assert "|ci:bootstrap,n:1000,level:95%,seed:0|v:" in err
    again = run(capsys, "dureader", "--pred_file", PRED, "--ref_file", REF, "--confidence")[1]
    other = run(capsys, "dureader", "--pred_file", PRED, "--ref_file", REF, "--confidence", "--seed", "7")[1]
    assert again == out and other != out  # the seed decides the resamples


def test_score_confidence_table(capsys, tmp_path):
    hyp, ref = tmp_path / "h.txt", tmp_path / "r.txt"
    hyp.write_text("abcd\nxyz\nhello\n", encoding="utf-8")
    ref.write_text("abce\nxyzw\nhallo\n", encoding="utf-8")
    rc, out, err = run(capsys, "score", "--hyp", hyp, "--ref", ref, "--confidence", "200", "--format", "table")
    assert rc == 0
    line = out.splitlines()[1]
    assert line.startswith("ROUGE-L") and "±" in line and "[" in line
    assert "ci:bootstrap,n:200" in out.splitlines()[-1]


def test_compare_dureader_files(capsys):
    rc, out, err = run(capsys, "compare", "--ref_file", REF, "--pred_file", PRED, "--pred_file", PRED_B)
    assert rc == 0
    got = json.loads(out)
    a = json.loads(run(capsys, "dureader", "--pred_file", PRED, "--ref_file", REF)[1])
    b = json.loads(run(capsys, "dureader", "--pred_file", PRED_B, "--ref_file", REF)[1])
    for name in ("ROUGE-L", "BLEU-4"):
        r = got[name]
        assert (r["A"], r["B"]) == (a[name], b[name])
        assert r["difference"] == pytest.approx(b[name] - a[name], abs=0.011)
        assert r["low"] <= r["difference"] <= r["high"] and 0 < r["p_value"] <= 1
    assert "test:paired_bootstrap,n:1000,seed:0" in err
    same = json.loads(run(capsys, "compare", "--ref_file", REF, "--pred_file", PRED, "--pred_file", PRED)[1])
    assert same["ROUGE-L"]["difference"] == 0 and same["ROUGE-L"]["p_value"] == 1.0


def test_compare_text_files_with_randomization(capsys, tmp_path):
    ref, a, b = tmp_path / "r.txt", tmp_path / "a.txt", tmp_path / "b.txt"
    ref.write_text("".join(f"the cat sat on mat {i}\n" for i in range(30)), encoding="utf-8")
    a.write_text("".join(f"a dog {i}\n" for i in range(30)), encoding="utf-8")
    b.write_text("".join(f"the cat sat {i}\n" for i in range(30)), encoding="utf-8")
    rc, out, err = run(capsys, "compare", "--ref", ref, "--hyp", a, "--hyp", b, "--tokenize", "whitespace",
                       "--method", "approximate_randomization", "--resamples", "999")
    assert rc == 0
    r = json.loads(out)["ROUGE-L"]
    assert r["difference"] > 0 and r["p_value"] == round(1 / 1000, 4)
    assert "test:approximate_randomization,n:999" in err


@pytest.mark.parametrize("argv, words", [
    (["compare", "--ref_file", REF, "--pred_file", PRED], "--pred_file A --pred_file B"),
    (["compare", "--hyp", PRED], "--hyp A --hyp B"),
    (["compare", "--ref_file", REF, "--pred_file", PRED, "--pred_file", PRED_B, "--resamples", "0"],
     "positive"),
    (["dureader", "--pred_file", PRED, "--ref_file", REF, "--confidence", "--seed", "-1"], "seed"),
])
def test_compare_usage_errors_are_one_line(capsys, argv, words):
    rc, out, err = run(capsys, *argv)
    assert rc == 2 and out == "" and words in err and "Traceback" not in err


def test_compare_refuses_unaligned_text_files(capsys, tmp_path):
    ref, a, b = tmp_path / "r.txt", tmp_path / "a.txt", tmp_path / "b.txt"
    ref.write_text("x\ny\n")
    a.write_text("x\ny\n")
    b.write_text("x\n")
    rc, out, err = run(capsys, "compare", "--ref", ref, "--hyp", a, "--hyp", b)
    assert rc == 2 and "line-aligned" in err and err.count("\n") == 1


def _one_line_error(rc, out, err, *words):
    assert rc == 2 and out == "" and err.count("\n") == 1 and "Traceback" not in err, err
    for w in words:
        assert w in err, (w, err)


@pytest.mark.parametrize("lines", [0, 1])
def test_too_few_instances_are_one_line(capsys, tmp_path, lines):
    """Issue 20.7: a one-line file printed "p_value": 0.001; an empty one 'shape (0, 3)'."""
    h, r = tmp_path / "h.txt", tmp_path / "r.txt"
    h.write_text("abc\n" * lines, encoding="utf-8")
    r.write_text("abd\n" * lines, encoding="utf-8")
    _one_line_error(*run(capsys, "score", "--hyp", h, "--ref", r, "--confidence"), "--confidence", "at least 2")
    why = "at least 2" if lines else "no lines"  # compare names empty files first
    _one_line_error(*run(capsys, "compare", "--hyp", h, "--hyp", r, "--ref", r), why)
    _one_line_error(*run(capsys, "compare", "--hyp", h, "--hyp", r, "--ref", r, "--method",
                         "approximate_randomization"), why)


@pytest.mark.parametrize("argv, words", [
    (["score", "--confidence", "--resamples", "39"], ["--resamples", "at least 40"]),
    (["score", "--confidence", "0.99", "--resamples", "199"], ["--resamples", "at least 200", "99%"]),
    (["score", "--confidence", "--resamples", str(2 ** 31)], ["--resamples", f"resamples={2 ** 31}", "GiB"]),
    (["score", "--confidence", "39"], ["--confidence", "at least 40"]),  # the old spelling: a count
    (["score", "--confidence", "1"], ["--confidence", "at least 40"]),
    (["score", "--confidence", str(2 ** 63)], ["--confidence", "GiB"]),
    (["compare", "--resamples", "5"], ["--resamples", "at least 40"]),
    (["compare", "--resamples", str(10 ** 9)], ["resamples=1000000000", "GiB"]),
    (["compare", "--resamples", str(2 ** 63), "--method", "approximate_randomization"], ["trials=", "GiB"]),
])
def test_resample_counts_out_of_range_are_one_line(capsys, tmp_path, argv, words):
    """Issue 20.7 / 20.10: too few for the level, or more than memory holds (MemoryError, SystemError)."""
    h = tmp_path / "h.txt"
    h.write_text("abc\nxyz\nabd\n", encoding="utf-8")
    files = ["--hyp", h, "--ref", h] + (["--hyp", h] if argv[0] == "compare" else [])
    rc, out, err = run(capsys, argv[0], *files, *argv[1:])
    if argv[1:] == ["--confidence", argv[2]] and float(argv[2]) >= 1:  # the old spelling: warned first
        warning, err = err.split("\n", 1)
        assert warning.startswith(f"paddle-rougel: warning: --confidence {argv[2]} as a resample count is "
                                  "deprecated"), warning
    _one_line_error(rc, out, err, *words)
