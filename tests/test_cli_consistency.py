"""The commands agree with each other:

* ``merge`` prints what the command that wrote the states prints on all the data: ``score``'s P, R
  and F of every type (``ROUGE-1``, ``ROUGE-1-P``, ``ROUGE-1-R``, ...) in its order, ``dureader``'s
  two contest scores; JSON and table, byte for byte;
* a command's ``--help`` lists only options it can use (``explain`` scores ROUGE-L or ROUGE-Lsum:
  no ``--distinct``, which is ROUGE-N's; ``report`` takes ``--rouge-types``, so it has it);
* the config key ``bonus: {alpha, beta}`` warns as ``dureader --alpha/--beta`` and ``alpha=`` do,
  and with the new spelling of the same weight in one file is an error naming both;
* ``report`` takes ``score``'s ``--confidence [LEVEL]`` and ``--resamples N`` (same defaults, same
  checks) and draws the numbers ``score --confidence`` prints.

Oracles: the other command on the same data; plain Counter n-grams and the LCS table of
tests/oracle.py for P and R (whitespace tokens, one reference per line).
"""
import json
import os
import random
import re
import warnings

import pytest

from oracle import lcs_dp, ngram_counts  # noqa: E402  (tests/ is on sys.path; imports nothing of the package)
from test_cli_hostile import one_error, run, write_file  # the CLI helpers, one home (tests/ is on sys.path)
from paddle_rougel.api.config import preset, read_config

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EX = os.path.join(ROOT, "examples", "dureader")
PRED, REF = os.path.join(EX, "pred.jsonl"), os.path.join(EX, "ref.jsonl")
WORDS = "the a cat dog sat on mat is was here".split()


def warned(err):
    return [x for x in err.splitlines() if x.startswith("paddle-rougel: warning: ")]


def text_files(tmp_path, n=14, seed=3, sentences=True):
    """Line-aligned hypotheses and references (with ``sentences``, some of several ``<n>``-separated
    sentences), the whole and two halves."""
    rng = random.Random(seed)

    def line():
        return " ".join(rng.choice(WORDS) for _ in range(rng.randint(2, 9)))

    hyps = [line() + (" <n> " + line() if sentences and i % 3 == 0 else "") for i in range(n)]
    refs = [line() + (" <n> " + line() if sentences and i % 2 == 0 else "") for i in range(n)]
    paths = {}
    for name, rows in (("h", hyps), ("r", refs), ("h1", hyps[:n // 2]), ("r1", refs[:n // 2]),
                       ("h2", hyps[n // 2:]), ("r2", refs[n // 2:])):
        paths[name] = tmp_path / f"{name}.txt"
        paths[name].write_text("".join(x + "\n" for x in rows), encoding="utf-8")
    return paths, hyps, refs


# ----------------------------------------------------------------------------- merge = score / dureader

@pytest.mark.parametrize("fmt", ["json", "table"])
@pytest.mark.parametrize("types", ["rouge1,rouge2,rougeL,rougeLsum", "rougeLsum,rouge3,rougeL"])
def test_merge_of_halves_prints_what_score_prints_on_the_whole(capsys, tmp_path, fmt, types):
    p, _, _ = text_files(tmp_path)
    base = ["--tokenize", "whitespace", "--rouge-types", types, "--format", fmt]
    states = []
    for k in ("1", "2"):
        st = tmp_path / f"s{k}.json"
        rc, _, err = run(capsys, "score", "--hyp", p["h" + k], "--ref", p["r" + k], *base, "--save-state", st)
        assert rc == 0, err
        states.append(st)
    rc, whole, err = run(capsys, "score", "--hyp", p["h"], "--ref", p["r"], *base)
    assert rc == 0, err
    rc, merged, err = run(capsys, "merge", *states, "--format", fmt)
    assert rc == 0, err
    assert merged == whole  # every type's F, P and R, in score's order, the signature (table)
    labels = ["ROUGE-" + t[len("rouge"):] for t in types.split(",")]
    keys = [k for lab in labels for k in (lab, lab + "-P", lab + "-R")]
    if fmt == "json":
        assert list(json.loads(merged)) == keys
    else:
        assert [ln.split()[0] for ln in merged.splitlines()[1:-1]] == keys


def test_merged_precision_and_recall_are_the_oracles(capsys, tmp_path):
    p, hyps, refs = text_files(tmp_path, n=10, seed=8, sentences=False)
    states = []
    for k in ("1", "2"):
        st = tmp_path / f"s{k}.json"
        assert run(capsys, "score", "--hyp", p["h" + k], "--ref", p["r" + k], "--tokenize", "whitespace",
                   "--rouge-types", "rouge2,rougeL", "--save-state", st)[0] == 0
        states.append(st)
    rc, out, err = run(capsys, "merge", *states)
    assert rc == 0, err
    got = json.loads(out)
    sums = {k: 0.0 for k in ("ROUGE-2-P", "ROUGE-2-R", "ROUGE-L-P", "ROUGE-L-R")}
    for h, r in zip(hyps, refs):
        h, r = h.split(), r.split()
        gh, gr = ngram_counts(h, 2), ngram_counts(r, 2)
        hits = sum(min(c, gr[g]) for g, c in gh.items())
        sums["ROUGE-2-P"] += hits / max(sum(gh.values()), 1) if gh else 0.0
        sums["ROUGE-2-R"] += hits / max(sum(gr.values()), 1) if gr else 0.0
        lcs = lcs_dp(h, r)
        sums["ROUGE-L-P"] += lcs / len(h)
        sums["ROUGE-L-R"] += lcs / len(r)
    for k, v in sums.items():
        assert abs(got[k] - v / len(hyps) * 100) <= 0.005 + 1e-9, (k, got[k], v / len(hyps) * 100)


@pytest.mark.parametrize("fmt", ["json", "table"])
def test_merge_confidence_of_halves_is_score_confidence_on_the_whole(capsys, tmp_path, fmt):
    """merge --confidence draws the interval score --confidence draws on all the data (the same
    instances in the same order, the same resamples and seed), byte for byte; the halves' own
    ci: signature parts do not stop the merge; states without instances are refused by name."""
    p, _, _ = text_files(tmp_path, n=30)
    base = ["--tokenize", "whitespace", "--rouge-types", "rouge2,rougeL", "--format", fmt]
    ci = ["--confidence", "0.9", "--resamples", "300", "--seed", "4"]
    states = []
    for k, ci_k in (("1", ["--confidence"]), ("2", ["--confidence", "0.99", "--resamples", "250"])):
        st = tmp_path / f"s{k}.json"
        rc, _, err = run(capsys, "score", "--hyp", p["h" + k], "--ref", p["r" + k], *base, *ci_k, "--save-state", st)
        assert rc == 0, err
        states.append(st)
    rc, whole, err = run(capsys, "score", "--hyp", p["h"], "--ref", p["r"], *base, *ci)
    assert rc == 0, err
    rc, merged, err = run(capsys, "merge", *states, "--format", fmt, *ci)
    assert rc == 0, err
    assert merged == whole
    if fmt == "json":
        got = json.loads(merged)
        assert list(got) == ["ROUGE-2", "ROUGE-L"] and all(v["low"] <= v["score"] <= v["high"] for v in got.values())
    rc, plain, err = run(capsys, "merge", *states, "--format", fmt)  # no interval: score's P, R, F
    assert rc == 0, err
    assert plain == run(capsys, "score", "--hyp", p["h"], "--ref", p["r"], *base)[1]
    bare = []
    for k in ("1", "2"):
        st = tmp_path / f"bare{k}.json"
        assert run(capsys, "score", "--hyp", p["h" + k], "--ref", p["r" + k], *base, "--save-state", st)[0] == 0
        bare.append(st)
    rc, out, err = run(capsys, "merge", *bare, "--confidence")
    assert rc == 2 and out == "" and "--confidence" in err and "ROUGE-2" in err, err


@pytest.mark.parametrize("fmt", ["json", "table"])
def test_merge_of_dureader_states_prints_what_dureader_prints(capsys, tmp_path, fmt):
    lines = open(REF, encoding="utf-8").read().splitlines(True)
    states = []
    for i, part in enumerate((lines[:6], lines[6:])):
        ref, st = tmp_path / f"ref{i}.jsonl", tmp_path / f"s{i}.json"
        ref.write_text("".join(part), encoding="utf-8")
        assert run(capsys, "dureader", "--pred_file", PRED, "--ref_file", ref, "--save-state", st)[0] == 0
        states.append(st)
    rc, whole, _ = run(capsys, "dureader", "--pred_file", PRED, "--ref_file", REF, "--format", fmt)
    rc2, merged, err = run(capsys, "merge", *states, "--format", fmt)
    assert rc == rc2 == 0, err
    assert merged == whole
    assert "ROUGE-L-P" not in merged and "BLEU-4" in merged  # the contest's two scores


# ----------------------------------------------------------------------------- help: usable options only

@pytest.mark.parametrize("command", ["explain"])
def test_rouge_l_commands_do_not_offer_rouge_n_options(capsys, tmp_path, command):
    rc, out, _ = run(capsys, command, "--help")
    assert rc == 0 and "--split" in out and "--summary-level" in out
    assert "--distinct" not in out
    p, _, _ = text_files(tmp_path)
    extra = ["--line", "1"] if command == "explain" else ["-o", tmp_path / "r.html"]
    rc, out, err = run(capsys, command, "--hyp", p["h"], "--ref", p["r"], *extra, "--distinct")
    assert rc == 2 and out == "" and "--distinct" in err  # a usage error, as any unknown flag


@pytest.mark.parametrize("command", ["score", "compare", "report"])
def test_commands_with_rouge_types_still_offer_distinct(capsys, command):
    rc, out, _ = run(capsys, command, "--help")
    assert rc == 0 and "--distinct" in out and "--rouge-types" in out


# ----------------------------------------------------------------------------- config: bonus spelling

def test_config_bonus_spelling_warns_naming_file_key_and_new_name(capsys, tmp_path):
    old = write_file(tmp_path, "old.yaml", "gamma: 1.2\nbonus:\n  alpha: 0.5\n  beta: 2\n")
    new = write_file(tmp_path, "new.yaml", "gamma: 1.2\nyesno_weight: 0.5\nentity_weight: 2\n")
    base = ["dureader", "--pred_file", PRED, "--ref_file", REF]
    rc0, out0, err0 = run(capsys, *base, "--config", new)
    rc1, out1, err1 = run(capsys, *base, "--config", old)
    assert rc0 == rc1 == 0, err1
    assert out1 == out0 and "bonus:yn0.5,ent2.0" in err1  # the weights count, under either spelling
    assert warned(err0) == []
    w = warned(err1)
    assert len(w) == 2, err1
    assert str(old) in w[0] and "'bonus.alpha'" in w[0] and "'yesno_weight'" in w[0] and "deprecated" in w[0]
    assert str(old) in w[1] and "'bonus.beta'" in w[1] and "'entity_weight'" in w[1] and "deprecated" in w[1]
    assert [x for x in err1.splitlines() if x not in w] == err0.splitlines()  # nothing else changed


def test_config_bonus_spelling_warns_once_per_key_in_merge(capsys, tmp_path):
    old = write_file(tmp_path, "old.yaml", "bonus:\n  alpha: 1.0\n")
    st = tmp_path / "s.json"
    assert run(capsys, "dureader", "--pred_file", PRED, "--ref_file", REF, "--save-state", st)[0] == 0
    rc, _, err = run(capsys, "merge", st, "--config", old)
    assert rc == 0, err
    assert len(warned(err)) == 1 and "'bonus.alpha'" in err


@pytest.mark.parametrize("text,old,new", [
    ("bonus:\n  alpha: 0.5\nyesno_weight: 2\n", "bonus.alpha", "yesno_weight"),
    ("entity_weight: 2\nbonus:\n  beta: 0.5\n", "bonus.beta", "entity_weight"),
])
def test_config_old_and_new_bonus_spelling_together_are_refused(capsys, tmp_path, text, old, new):
    path = write_file(tmp_path, "both.yaml", text)
    one_error(*run(capsys, "dureader", "--pred_file", PRED, "--ref_file", REF, "--config", path),
              str(path), old, new, "not both")
    with pytest.raises(ValueError, match=re.escape(old)):
        read_config(str(path))


def test_config_bonus_spelling_is_a_deprecation_warning_in_python(tmp_path):
    old = write_file(tmp_path, "old.yaml", "bonus:\n  beta: 3\n")
    with pytest.warns(DeprecationWarning, match=r"old\.yaml: 'bonus\.beta' is deprecated: use 'entity_weight'"):
        got = read_config(str(old))
    assert got["entity_weight"][0] == 3.0
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the new spelling and the shipped presets: no warning
        new = write_file(tmp_path, "new.yaml", "entity_weight: 3\n")
        assert read_config(str(new))["entity_weight"][0] == 3.0
        for name in ("dureader", "paddlenlp"):
            values = read_config(name)
            assert values["yesno_weight"][0] == values["entity_weight"][0] == 1.0
            preset(name)


# ----------------------------------------------------------------------------- report: score's interval

def _headline(page: str):
    """The (all) cell of system A: score, low, high."""
    m = re.search(r'data-system="A" data-metric="([^"]+)" data-group="\(all\)"><b class="score">([0-9.]+)</b> '
                  r'<span class="ci">\[([0-9.]+), ([0-9.]+)\]</span>', page)
    assert m, page[:2000]
    return m.group(1), float(m.group(2)), float(m.group(3)), float(m.group(4))


@pytest.mark.parametrize("flags", [[], ["--confidence"], ["--confidence", "0.9", "--resamples", "300", "--seed", "7"]])
def test_report_interval_is_score_confidence(capsys, tmp_path, flags):
    p, _, _ = text_files(tmp_path, n=20)
    common = ["--hyp", p["h"], "--ref", p["r"], "--tokenize", "whitespace"]
    page = tmp_path / "report.html"
    rc, out, rerr = run(capsys, "report", *common, "-o", page, *flags)
    assert rc == 0, rerr
    sflags = flags if flags else ["--confidence"]  # report draws intervals by default, at score's defaults
    rc, sout, serr = run(capsys, "score", *common, *sflags)
    assert rc == 0, serr
    want = json.loads(sout)["ROUGE-L"]
    name, score, low, high = _headline(page.read_text(encoding="utf-8"))
    assert name == "ROUGE-L" and (score, low, high) == (want["score"], want["low"], want["high"])
    ci = lambda err: re.search(r"\|(ci:[^|]*)\|", err).group(1)  # noqa: E731
    assert ci(rerr) == ci(serr)
    level = "90%" if "0.9" in flags else "95%"
    assert f"x100; {level} percentile bootstrap intervals" in page.read_text(encoding="utf-8")


def test_report_resamples_are_checked_as_score_checks_them(capsys, tmp_path):
    p, _, _ = text_files(tmp_path)
    common = ["--hyp", p["h"], "--ref", p["r"], "--tokenize", "whitespace"]
    rc, out, err = run(capsys, "report", *common, "-o", tmp_path / "r.html", "--resamples", "100",
                       "--confidence", "0.99")
    _, _, serr = run(capsys, "score", *common, "--resamples", "100", "--confidence", "0.99")
    one_error(rc, out, err, "--resamples", "200")
    assert err == serr
    assert not (tmp_path / "r.html").exists()
    rc, out, _ = run(capsys, "report", "--help")
    assert "--confidence [LEVEL]" in out and "--resamples N" in out
