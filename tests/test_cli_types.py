"""The command line with several ROUGE types (issue 22): ``score --rouge-types``, its JSON,
table, per-instance rows, state files, ``merge``, ``--confidence``, ``--by``, ``compare``;
``--distinct``; the one-line errors; the deprecated spellings (``dureader --alpha/--beta``,
``--confidence N``) as users see them, in a real process.

Oracle: plain Counter n-grams and the textbook LCS table of tests/oracle.py (whitespace tokens, one
reference per line), F = (1+g^2)PR / (R+g^2 P) with the default gamma 1.2.
"""
import csv
import io
import json
import os
import random
import shutil
import subprocess
import sys

import pytest

from test_cli_hostile import one_error, run  # the CLI helpers, one home (tests/ is on sys.path)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EX = os.path.join(ROOT, "examples", "dureader")
TYPES = ["rouge1", "rouge2", "rougeL", "rougeLsum"]
LABELS = {"rouge1": "ROUGE-1", "rouge2": "ROUGE-2", "rougeL": "ROUGE-L", "rougeLsum": "ROUGE-Lsum",
          "rouge3": "ROUGE-3"}
WORDS = "the a cat dog sat on mat is was here".split()


# ----------------------------------------------------------------------------- the oracle

from oracle import lcs_dp as lcs, ngram_counts as grams  # noqa: E402  (tests/ is on sys.path)


def f_of(p, r, gamma=1.2):
    return 0.0 if p == 0 or r == 0 else (1 + gamma ** 2) * p * r / (r + gamma ** 2 * p)


def prf(t, hyp, ref, distinct=False, gamma=1.2):
    """(P, R, F) of one line pair for a type, one reference, whitespace tokens."""
    h, r = hyp.split(), ref.split()
    if t in ("rougeL", "rougeLsum"):  # a line is one sentence: ROUGE-Lsum = ROUGE-L
        hits, nc, nr = lcs(h, r), len(h), len(r)
    else:
        n = int(t[5:])
        gh, gr = grams(h, n, distinct), grams(r, n, distinct)
        hits, nc, nr = sum((gh & gr).values()), sum(gh.values()), sum(gr.values())
    p = hits / nc if nc else 0.0
    rr = hits / nr if nr else 0.0
    return p, rr, f_of(p, rr, gamma)


def mean_pct(rows):
    return [100 * sum(col) / len(rows) for col in zip(*rows)] if rows else [0.0, 0.0, 0.0]


def lines(seed, n):
    rnd = random.Random(seed)
    return [" ".join(rnd.choice(WORDS) for _ in range(rnd.randint(1, 9))) for _ in range(n)]


@pytest.fixture
def files(tmp_path):
    """Hypotheses A and B and references, 24 lines each (with repeats: clipping matters)."""
    ref, a, b = lines(1, 24), lines(2, 24), lines(3, 24)
    a[0], ref[0] = "the the the cat", "the cat the mat"  # clipped counts, distinct differs
    paths = []
    for name, content in (("ref", ref), ("a", a), ("b", b)):
        p = tmp_path / f"{name}.txt"
        p.write_text("".join(x + "\n" for x in content), encoding="utf-8")
        paths.append(str(p))
    return dict(zip(("ref", "a", "b"), paths)), dict(ref=ref, a=a, b=b)


def _score(capsys, *argv):
    rc, out, err = run(capsys, "score", "--tokenize", "whitespace", *argv)
    assert rc == 0, err
    return out, err


def _close(got, want):
    assert abs(got - round(want, 2)) < 1e-9, (got, want)


# ----------------------------------------------------------------------------- score

def test_json_holds_every_type_with_p_and_r(capsys, files):
    paths, text = files
    out, err = _score(capsys, "--hyp", paths["a"], "--ref", paths["ref"], "--rouge-types", ",".join(TYPES))
    got = json.loads(out)
    keys = [f"{LABELS[t]}{s}" for t in TYPES for s in ("", "-P", "-R")]
    assert list(got) == keys
    for t in TYPES:
        p, r, f = mean_pct([prf(t, h, ref) for h, ref in zip(text["a"], text["ref"])])
        _close(got[LABELS[t]], f)
        _close(got[LABELS[t] + "-P"], p)
        _close(got[LABELS[t] + "-R"], r)
    assert got["ROUGE-1"] != got["ROUGE-2"] != got["ROUGE-L"]
    assert "rouge1+rouge2+rougeL+rougeLsum|" in err


def test_table_has_one_row_per_figure(capsys, files):
    paths, text = files
    out, _ = _score(capsys, "--hyp", paths["a"], "--ref", paths["ref"], "--rouge-types", "rouge2,rougeL",
                    "--format", "table")
    *body, sig = out.splitlines()  # the table, then the signature
    assert sig.startswith("rouge2+rougeL|")
    rows = dict(line.split() for line in body[1:])
    assert list(rows) == ["ROUGE-2", "ROUGE-2-P", "ROUGE-2-R", "ROUGE-L", "ROUGE-L-P", "ROUGE-L-R"]
    for t in ("rouge2", "rougeL"):
        _close(float(rows[LABELS[t]]), mean_pct([prf(t, h, r) for h, r in zip(text["a"], text["ref"])])[2])


def test_summary_level_is_rouge_types_rougelsum(capsys, files):
    paths, _ = files
    a = _score(capsys, "--hyp", paths["a"], "--ref", paths["ref"], "--summary-level")
    b = _score(capsys, "--hyp", paths["a"], "--ref", paths["ref"], "--rouge-types", "rougeLsum")
    assert a == b and "ROUGE-Lsum" in a[0]


@pytest.mark.parametrize("fmt", ["csv", "jsonl"])
def test_per_instance_rows_have_each_types_columns(capsys, files, tmp_path, fmt):
    paths, text = files
    pi = tmp_path / f"rows.{fmt}"
    _score(capsys, "--hyp", paths["a"], "--ref", paths["ref"], "--rouge-types", "rouge1,rouge2,rougeL",
           "--per-instance", pi)
    raw = pi.read_text(encoding="utf-8")
    rows = list(csv.DictReader(io.StringIO(raw))) if fmt == "csv" else [json.loads(x) for x in raw.splitlines()]
    cols = ["line"] + [f"{LABELS[t]}{s}" for t in ("rouge1", "rouge2", "rougeL") for s in ("-P", "-R", "")]
    assert list(rows[0]) == cols and len(rows) == 24
    for i, row in enumerate(rows):
        assert int(row["line"]) == i + 1
        for t in ("rouge1", "rouge2", "rougeL"):
            want = prf(t, text["a"][i], text["ref"][i])
            got = [float(row[LABELS[t] + s]) for s in ("-P", "-R", "")]
            assert got == pytest.approx(want, abs=1e-12), (i, t)


def test_distinct_counts_each_ngram_once(capsys, files):
    paths, text = files
    out, err = _score(capsys, "--hyp", paths["a"], "--ref", paths["ref"], "--rouge-types", "rouge1,rouge2",
                      "--distinct", "yes")
    got = json.loads(out)
    plain = json.loads(_score(capsys, "--hyp", paths["a"], "--ref", paths["ref"], "--rouge-types", "rouge1")[0])
    for t in ("rouge1", "rouge2"):
        _close(got[LABELS[t]], mean_pct([prf(t, h, r, True) for h, r in zip(text["a"], text["ref"])])[2])
    assert got["ROUGE-1"] != plain["ROUGE-1"]  # the repeats in line 1 count
    assert "grams:distinct" in err


# ----------------------------------------------------------------------------- state files and merge

def _halves(tmp_path, paths, text, types, extra=()):
    """The first 10 lines and the rest, as files; their state files (score --save-state)."""
    out = []
    for k, sl in (("1", slice(0, 10)), ("2", slice(10, None))):
        h, r = tmp_path / f"h{k}.txt", tmp_path / f"r{k}.txt"
        h.write_text("".join(x + "\n" for x in text["a"][sl]), encoding="utf-8")
        r.write_text("".join(x + "\n" for x in text["ref"][sl]), encoding="utf-8")
        out.append((str(h), str(r), str(tmp_path / f"state{k}.json")))
    return out


def test_save_state_holds_one_entry_per_type_and_merge_prints_every_type(capsys, files, tmp_path):
    paths, text = files
    types = "rouge1,rouge2,rougeL,rougeLsum"
    halves = _halves(tmp_path, paths, text, types)
    for h, r, s in halves:
        _score(capsys, "--hyp", h, "--ref", r, "--rouge-types", types, "--save-state", s)
    state = json.loads(open(halves[0][2], encoding="utf-8").read())
    assert list(state["metrics"]) == ["rouge_1", "rouge_2", "rouge_l", "rouge_lsum"]
    assert [v["metric"] for v in state["metrics"].values()] == ["RougeN", "RougeN", "RougeL", "RougeLsum"]
    assert [v["config"].get("n") for v in state["metrics"].values()] == [1, 2, None, None]
    rc, out, err = run(capsys, "merge", halves[0][2], halves[1][2])
    assert rc == 0, err
    merged = json.loads(out)
    whole = json.loads(_score(capsys, "--hyp", paths["a"], "--ref", paths["ref"], "--rouge-types", types)[0])
    assert list(merged) == [k for t in TYPES for k in (LABELS[t], LABELS[t] + "-P", LABELS[t] + "-R")]
    for k, v in merged.items():
        assert v == whole[k], k  # the same means (F, P, R) as scoring all the lines at once
    for t in TYPES:
        _close(merged[LABELS[t]], mean_pct([prf(t, h, r) for h, r in zip(text["a"], text["ref"])])[2])
    assert "rouge1+rouge2+rougeL+rougeLsum|" in err


def test_merge_refuses_files_with_other_types_or_settings(capsys, files, tmp_path):
    paths, _ = files
    s1, s2, s1g = (str(tmp_path / f"{k}.json") for k in ("s1", "s2", "s1g"))
    _score(capsys, "--hyp", paths["a"], "--ref", paths["ref"], "--rouge-types", "rouge1", "--save-state", s1)
    _score(capsys, "--hyp", paths["a"], "--ref", paths["ref"], "--rouge-types", "rouge2", "--save-state", s2)
    _score(capsys, "--hyp", paths["a"], "--ref", paths["ref"], "--rouge-types", "rouge1", "--gamma", "1",
           "--save-state", s1g)
    one_error(*run(capsys, "merge", s1, s2), "rouge_2", "rouge_1", s2)
    one_error(*run(capsys, "merge", s1, s1g), "rouge_1", "gamma", s1g)


# ----------------------------------------------------------------------------- intervals, groups, compare

def test_confidence_gives_an_interval_per_type(capsys, files):
    paths, text = files
    argv = ["--hyp", paths["a"], "--ref", paths["ref"], "--rouge-types", "rouge1,rouge2,rougeL"]
    out, err = _score(capsys, *argv, "--confidence", "0.9", "--resamples", "200")
    got = json.loads(out)
    assert list(got) == ["ROUGE-1", "ROUGE-2", "ROUGE-L"]
    for t in ("rouge1", "rouge2", "rougeL"):
        iv = got[LABELS[t]]
        _close(iv["score"], mean_pct([prf(t, h, r) for h, r in zip(text["a"], text["ref"])])[2])
        assert iv["low"] < iv["score"] < iv["high"], (t, iv)
    assert got["ROUGE-1"]["low"] != got["ROUGE-2"]["low"]
    assert "ci:bootstrap,n:200,level:90%,seed:0" in err
    assert json.loads(_score(capsys, *argv, "--confidence", "0.9", "--resamples", "200")[0]) == got
    table, _ = _score(capsys, *argv, "--confidence", "--resamples", "200", "--format", "table")
    assert [line.split()[0] for line in table.splitlines()[1:-1]] == ["ROUGE-1", "ROUGE-2", "ROUGE-L"]


def test_by_groups_every_type(capsys, files, tmp_path):
    paths, text = files
    keys = ["x" if i % 3 else "y" for i in range(24)]
    kf = tmp_path / "keys.txt"
    kf.write_text("".join(k + "\n" for k in keys), encoding="utf-8")
    out, _ = _score(capsys, "--hyp", paths["a"], "--ref", paths["ref"], "--rouge-types", "rouge1,rouge2,rougeL",
                    "--by", kf)
    got = json.loads(out)
    assert set(got["groups"]) == {"x", "y"}
    for g in ("x", "y"):
        idx = [i for i, k in enumerate(keys) if k == g]
        assert got["groups"][g]["count"] == len(idx)
        for t in ("rouge1", "rouge2", "rougeL"):
            want = mean_pct([prf(t, text["a"][i], text["ref"][i]) for i in idx])[2]
            _close(got["groups"][g][LABELS[t]], want)


def test_compare_has_one_row_per_type(capsys, files):
    paths, text = files
    rc, out, err = run(capsys, "compare", "--hyp", paths["a"], "--hyp", paths["b"], "--ref", paths["ref"],
                       "--tokenize", "whitespace", "--rouge-types", "rouge1,rouge2,rougeLsum",
                       "--resamples", "100", "--confidence", "0.9")
    assert rc == 0, err
    got = json.loads(out)
    assert list(got) == ["ROUGE-1", "ROUGE-2", "ROUGE-Lsum"]
    for t in ("rouge1", "rouge2", "rougeLsum"):
        a = mean_pct([prf(t, h, r) for h, r in zip(text["a"], text["ref"])])[2]
        b = mean_pct([prf(t, h, r) for h, r in zip(text["b"], text["ref"])])[2]
        row = got[LABELS[t]]
        _close(row["A"], a)
        _close(row["B"], b)
        assert abs(row["difference"] - (b - a)) < 0.011
        assert row["low"] <= row["difference"] <= row["high"] and 0 <= row["p_value"] <= 1
    assert "level:90%" in err and "rouge1+rouge2+rougeLsum|" in err
    rc, table, _ = run(capsys, "compare", "--hyp", paths["a"], "--hyp", paths["b"], "--ref", paths["ref"],
                       "--tokenize", "whitespace", "--rouge-types", "rouge1,rouge2,rougeLsum",
                       "--resamples", "100", "--format", "table")
    assert rc == 0 and [x.split()[0] for x in table.splitlines()[1:-1]] == ["ROUGE-1", "ROUGE-2", "ROUGE-Lsum"]


# ----------------------------------------------------------------------------- errors

def test_unknown_type_names_the_flag_with_a_suggestion(capsys, files):
    paths, _ = files
    rc, out, err = run(capsys, "score", "--hyp", paths["a"], "--ref", paths["ref"], "--rouge-types", "rouge1,rougel")
    assert rc == 2 and out == "" and "Traceback" not in err
    last = err.splitlines()[-1]
    assert "--rouge-types" in last and "'rougel'" in last and "did you mean 'rougeL'" in last


@pytest.mark.parametrize("argv, words", [
    (["--rouge-types", "rougeL,rougeLsum", "--distinct", "yes"], ["--distinct", "ROUGE-N"]),
    (["--rouge-types", "rouge1", "--summary-level"], ["--summary-level", "--rouge-types"]),
    (["--rouge-types", "rouge1,rougeL", "--split", "zh"], ["--split", "rougeLsum"]),
    (["--rouge-types", "rouge70"], ["n must be an int from 1 to 64", "70"]),
])
@pytest.mark.parametrize("cmd", ["score", "compare"])
def test_option_errors_are_one_line(capsys, files, cmd, argv, words):
    paths, _ = files
    hyps = ["--hyp", paths["a"]] + (["--hyp", paths["b"]] if cmd == "compare" else [])
    one_error(*run(capsys, cmd, *hyps, "--ref", paths["ref"], *argv), *words)


# ----------------------------------------------------------------------------- deprecated spellings

def _proc(*argv, cwd):
    """A real ``python -m paddle_rougel`` (Python's default warning filters, as a user's shell)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONWARNINGS"}
    p = subprocess.run([sys.executable, "-m", "paddle_rougel", *map(str, argv)], capture_output=True,
                       text=True, env=env, cwd=cwd, timeout=300)
    return p.returncode, p.stdout, p.stderr


def _warnings(err):
    return [x for x in err.splitlines() if x.startswith("paddle-rougel: warning: ")]


def test_dureader_alpha_beta_warn_once_each_and_score_as_the_new_names(tmp_path):
    pred, ref = tmp_path / "pred.jsonl", tmp_path / "ref.jsonl"
    shutil.copy(os.path.join(EX, "pred.jsonl"), pred)
    shutil.copy(os.path.join(EX, "ref.jsonl"), ref)
    base = ["dureader", "--pred_file", pred, "--ref_file", ref]
    rc0, new, err0 = _proc(*base, "--yesno-weight", "0.5", "--entity-weight", "2", cwd=tmp_path)
    rc1, old, err1 = _proc(*base, "--alpha", "0.5", "--beta", "2", cwd=tmp_path)
    rc2, dflt, _ = _proc(*base, cwd=tmp_path)
    assert rc0 == rc1 == rc2 == 0, err1
    assert old == new and new != dflt  # the weights count, under either spelling
    assert _warnings(err0) == []
    warned = _warnings(err1)
    assert len(warned) == 2, err1
    assert "--alpha" in warned[0] and "--yesno-weight" in warned[0]
    assert "--beta" in warned[1] and "--entity-weight" in warned[1]
    assert [x for x in err1.splitlines() if x not in warned] == err0.splitlines()  # nothing else changed


@pytest.mark.parametrize("flags", [["--alpha", "0", "--yesno-weight", "2"], ["--yesno-weight", "2", "--alpha", "0"],
                                   ["--beta", "1", "--entity_weight", "2"]])
def test_dureader_old_and_new_weight_spellings_together_are_refused(tmp_path, flags):
    """Not the last one silently winning: one line naming both spellings."""
    base = ["dureader", "--pred_file", os.path.join(EX, "pred.jsonl"), "--ref_file", os.path.join(EX, "ref.jsonl")]
    rc, out, err = _proc(*base, *flags, cwd=tmp_path)
    assert rc == 2 and out == "" and "not both" in err and flags[0].split("_")[0] in err, err


def test_confidence_count_is_resamples_with_a_warning(tmp_path):
    h, r = tmp_path / "h.txt", tmp_path / "r.txt"
    h.write_text("".join(x + "\n" for x in lines(5, 30)), encoding="utf-8")
    r.write_text("".join(x + "\n" for x in lines(6, 30)), encoding="utf-8")
    base = ["score", "--hyp", h, "--ref", r, "--tokenize", "whitespace", "--rouge-types", "rouge1,rougeL"]
    rc0, new, err0 = _proc(*base, "--confidence", "--resamples", "60", cwd=tmp_path)
    rc1, old, err1 = _proc(*base, "--confidence", "60", cwd=tmp_path)
    assert rc0 == rc1 == 0, err1
    assert old == new and "low" in new
    warned = _warnings(err1)
    assert len(warned) == 1 and "--confidence 60" in warned[0] and "--resamples 60" in warned[0], err1
    assert _warnings(err0) == []
    assert "n:60,level:95%" in err1


def test_compare_confidence_count_warns_with_a_spelling_compare_takes(tmp_path):
    """compare's --confidence needs a level: the warning must not suggest a bare --confidence."""
    h, h2, r = tmp_path / "h.txt", tmp_path / "h2.txt", tmp_path / "r.txt"
    for p, seed in ((h, 7), (h2, 8), (r, 9)):
        p.write_text("".join(x + "\n" for x in lines(seed, 30)), encoding="utf-8")
    base = ["compare", "--hyp", h, "--hyp", h2, "--ref", r, "--tokenize", "whitespace",
            "--rouge-types", "rouge1,rouge2"]
    rc0, new, err0 = _proc(*base, "--resamples", "60", cwd=tmp_path)
    rc1, old, err1 = _proc(*base, "--confidence", "60", cwd=tmp_path)
    assert rc0 == rc1 == 0, err1
    assert old == new and list(json.loads(new)) == ["ROUGE-1", "ROUGE-2"]
    warned = _warnings(err1)
    assert len(warned) == 1 and warned[0].endswith("use --resamples 60"), err1
    rc, _, err = _proc(*base, "--confidence", "--resamples", "60", cwd=tmp_path)
    assert rc == 2 and "--confidence" in err  # what a "--confidence [LEVEL]" hint would lead to
