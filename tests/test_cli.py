"""The paddle-rougel command line: DuReader scoring, score, merge, configs and bad input."""
import itertools
import json
import os
import shutil
import subprocess
import sys
import zipfile

import pytest
from paddlenlp.metrics import BLEUForDuReader as PaddleNLPBLEUForDuReader
from paddlenlp.metrics import RougeLForDuReader as PaddleNLPRougeLForDuReader

import paddle_rougel
from paddle_rougel import RougeL
from paddle_rougel.engine import host as engine
from paddle_rougel.cli import main

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EX = os.path.join(ROOT, "examples", "dureader")
PRED, REF = os.path.join(EX, "pred.jsonl"), os.path.join(EX, "ref.jsonl")


def official_scores(pred_file, ref_file, alpha=1.0, beta=1.0):
    """The contest's mrc_eval.py logic, written out, on paddlenlp's metrics."""
    def normalize(s):
        return ["".join(c for c in ss if len(c.strip()) != 0) for ss in s]

    def read(path, is_ref):
        out = {}
        with open(path, encoding="utf-8") as f:
            for line in f:
                obj = json.loads(line)
                obj.setdefault("yesno_answers", [])
                obj.setdefault("entity_answers", [])
                row = {"answers": normalize(obj["answers"]), "yesno_answers": obj["yesno_answers"]}
                if is_ref:
                    row["question_type"] = obj["question_type"]
                    row["entity_answers"] = [normalize(e) for e in obj["entity_answers"]]
                out[obj["question_id"]] = row
        return out

    preds, refs = read(pred_file, False), read(ref_file, True)
    bleu = PaddleNLPBLEUForDuReader(alpha=alpha, beta=beta)
    rouge = PaddleNLPRougeLForDuReader(alpha=alpha, beta=beta)
    for qid, results in refs.items():
        cand_result = preds.get(qid, {})
        pred_answers = cand_result.get("answers", [])
        pred_answers = "" if not pred_answers else pred_answers[0]
        pred_yn_label, ref_entities = None, None
        ref_answers = results.get("answers", [])
        if not ref_answers:
            continue
        if results["question_type"] == "ENTITY":
            ref_entities = set(itertools.chain(*results.get("entity_answers", [[]]))) or None
        if results["question_type"] == "YES_NO":
            cand_yesno = cand_result.get("yesno_answers", [])
            pred_yn_label = None if len(cand_yesno) == 0 else cand_yesno[0]
        for m in (bleu, rouge):
            m.add_inst(pred_answers, ref_answers, yn_label=pred_yn_label,
                       yn_ref=results["yesno_answers"], entity_ref=ref_entities)
    return {"ROUGE-L": round(rouge.score() * 100, 2), "BLEU-4": round(bleu.score() * 100, 2)}


def run(capsys, *argv):
    rc = main(list(argv))
    out, err = capsys.readouterr()
    return rc, out, err


def test_examples_match_official_logic(capsys):
    rc, out, err = run(capsys, "dureader", "--pred_file", PRED, "--ref_file", REF)
    assert rc == 0
    assert json.loads(out) == official_scores(PRED, REF)
    assert out.count("\n") == 1  # stdout is the JSON alone
    assert "missing predictions: 1; unexpected predictions: 1; skipped (no reference answers): 1" in err
    sig = ("rougeL+bleu4|gamma:1.2|multi_ref:max_pr|tok:char|norm:nows|lc:no|bonus:yn1.0,ent1.0|"
           f"v:{paddle_rougel.__version__}")
    assert sig + f"|engine:{engine.backend()}" in err.splitlines()  # the engine: informational, last


def test_bonus_weights_and_zip(capsys, tmp_path):
    rc, out, _ = run(capsys, "dureader", "--pred_file", PRED, "--ref_file", REF, "--alpha", "0.5", "--beta", "2")
    assert rc == 0 and json.loads(out) == official_scores(PRED, REF, alpha=0.5, beta=2.0)
    zp, zr = tmp_path / "pred.zip", tmp_path / "ref.zip"
    with zipfile.ZipFile(zp, "w") as z:
        z.write(PRED, "pred.jsonl")
    with zipfile.ZipFile(zr, "w") as z:  # references split over two members
        lines = open(REF, encoding="utf-8").read().splitlines(True)
        z.writestr("a.jsonl", "".join(lines[:5]))
        z.writestr("b.jsonl", "".join(lines[5:]))
    rc, out2, _ = run(capsys, "dureader", "--pred_file", str(zp), "--ref_file", str(zr))
    assert rc == 0 and json.loads(out2) == official_scores(PRED, REF)


def test_per_instance_table_and_config(capsys, tmp_path):
    per = tmp_path / "per.jsonl"
    rc, out, err = run(capsys, "dureader", "--pred_file", PRED, "--ref_file", REF, "--per-instance",
                       str(per), "--format", "table", "--config", "dureader")
    assert rc == 0
    assert out.splitlines()[0].split() == ["metric", "score"]
    assert out.splitlines()[-1].startswith("rougeL+bleu4|gamma:1.2|")  # table: signature on stdout
    rows = [json.loads(line) for line in per.read_text(encoding="utf-8").splitlines()]
    assert len(rows) == 12 and set(rows[0]) == {"question_id", "question_type", "precision", "recall", "f", "bonus"}
    f_mean = sum(r["f"] for r in rows) / len(rows)
    assert round(f_mean * 100, 2) == official_scores(PRED, REF)["ROUGE-L"]
    yn = {r["question_id"]: r for r in rows}
    assert yn[1001]["bonus"] > 0 and yn[1002]["bonus"] == 0  # label matches / differs
    # flags override the file; the signature says so
    rc, out, err = run(capsys, "dureader", "--pred_file", PRED, "--ref_file", REF, "--config", "paddlenlp",
                       "--alpha", "0.5")
    assert rc == 0 and "norm:none|lc:no|bonus:yn0.5,ent1.0" in err


def test_config_errors(capsys, tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("gamma: 1.2\ngama: 2\n")
    rc, out, err = run(capsys, "dureader", "--pred_file", PRED, "--ref_file", REF, "--config", str(bad))
    assert rc == 2 and out == "" and "unknown key 'gama'" in err and str(bad) in err
    rc, _, err = run(capsys, "score", "--hyp", PRED, "--ref", PRED, "--config", "nosuchpreset")
    assert rc == 2 and "no such file or preset" in err and "dureader" in err
    for name in ("dureader", "paddlenlp", "rouge155", "rouge_chinese", "rouge_score", "t2t"):
        assert os.path.isfile(os.path.join(ROOT, "configs", name + ".yaml"))


def test_merge_equals_whole_run(capsys, tmp_path):
    lines = open(REF, encoding="utf-8").read().splitlines(True)
    halves = [tmp_path / "ref1.jsonl", tmp_path / "ref2.jsonl"]
    halves[0].write_text("".join(lines[:6]), encoding="utf-8")
    halves[1].write_text("".join(lines[6:]), encoding="utf-8")
    states = []
    for i, h in enumerate(halves):
        st = tmp_path / f"state{i}.json"
        assert main(["dureader", "--pred_file", PRED, "--ref_file", str(h), "--save-state", str(st)]) == 0
        states.append(str(st))
    capsys.readouterr()
    rc, whole, _ = run(capsys, "dureader", "--pred_file", PRED, "--ref_file", REF)
    rc, merged, err = run(capsys, "merge", *states)
    assert rc == 0 and json.loads(merged) == json.loads(whole)
    assert "rougeL+bleu4|gamma:1.2" in err
    # a state with other bonus weights is rejected
    other = tmp_path / "other.json"
    assert main(["dureader", "--pred_file", PRED, "--ref_file", str(halves[1]), "--alpha", "0.5",
                 "--save-state", str(other)]) == 0
    capsys.readouterr()
    rc, out, err = run(capsys, "merge", states[0], str(other))
    assert rc == 2 and out == "" and "different settings" in err and len(err.strip().splitlines()) == 1


def test_merge_python_api_state_files(capsys, tmp_path):
    a, b, whole = RougeL(), RougeL(), RougeL()
    pairs = [("abcd", ["abce"]), ("xy", ["xy", "yx"]), ("hello", ["help"])]
    for i, (c, r) in enumerate(pairs):
        (a if i < 2 else b).add_inst(c, r)
        whole.add_inst(c, r)
    paths = []
    for i, m in enumerate((a, b)):
        p = tmp_path / f"m{i}.json"
        p.write_text(json.dumps(m.state_dict()))
        paths.append(str(p))
    rc, out, err = run(capsys, "merge", *paths)
    s = whole.scores()  # F, P and R, as `score` prints them
    assert rc == 0 and json.loads(out) == {"ROUGE-L": round(whole.score() * 100, 2),
                                           "ROUGE-L-P": round(s.precision * 100, 2),
                                           "ROUGE-L-R": round(s.recall * 100, 2)}


def test_score_command(capsys, tmp_path):
    hyp, r1, r2 = tmp_path / "hyp.txt", tmp_path / "r1.txt", tmp_path / "r2.txt"
    hyp.write_text("今天 天气很好\nthe cat sat\n", encoding="utf-8")
    r1.write_text("今天天气不错\nthe cat sat on the mat\n", encoding="utf-8")
    r2.write_text("天气很好\na cat\n", encoding="utf-8")
    rc, out, err = run(capsys, "score", "--hyp", str(hyp), "--ref", str(r1), "--ref", str(r2), "--format", "json")
    assert rc == 0
    m = RougeL()
    m.add_inst("今天天气很好", ["今天天气不错", "天气很好"])
    m.add_inst("thecatsat", ["thecatsatonthemat", "acat"])
    got = json.loads(out)  # the dureader convention: x100, 2 decimals
    assert got["ROUGE-L"] == round(m.score() * 100, 2) and "lines scored: 2" in err
    assert f"rougeL|gamma:1.2|multi_ref:max_pr|tok:char|norm:nows|lc:no|v:{paddle_rougel.__version__}" in err
    rc, out, err = run(capsys, "score", "--hyp", str(hyp), "--ref", str(r1), "--tokenize", "whitespace",
                       "--config", "rouge155", "--format", "table")
    assert rc == 0 and "ROUGE-L" in out and "rougeL|alpha:0.5|multi_ref:pooled|tok:whitespace|norm:none" in out


def test_jieba_is_optional(capsys, tmp_path, monkeypatch):
    hyp = tmp_path / "h.txt"
    hyp.write_text("今天天气很好\n", encoding="utf-8")
    monkeypatch.setitem(sys.modules, "jieba", None)  # import jieba -> ImportError
    rc, out, err = run(capsys, "score", "--hyp", str(hyp), "--ref", str(hyp), "--tokenize", "jieba")
    assert rc == 2 and "optional 'jieba' package" in err and "Traceback" not in err


def _bad(tmp_path, name, text):
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return str(p)


REF_OK = '{"question_id": 1, "question_type": "DESCRIPTION", "answers": ["好"], "yesno_answers": [], "entity_answers": [[]]}\n'


@pytest.mark.parametrize("ref_text, expect", [
    (REF_OK + "{not json\n", ":2: invalid JSON"),
    ('{"question_type": "DESCRIPTION", "answers": ["好"]}\n', ":1: row has no 'question_id'"),
    (REF_OK + REF_OK, ":2: duplicate question_id 1 (first at"),
    ('{"question_id": 1, "question_type": "DESCRIPTION", "answers": "好"}\n', "'answers' must be a list of strings"),
    ('{"question_id": 1, "question_type": "DESCRIPTION", "answers": [1]}\n', "'answers' must be a list of strings"),
    ('{"question_id": 1, "question_type": "ENTITY", "answers": ["好"], "entity_answers": ["好"]}\n',
     "'entity_answers' must be a list of lists of strings"),
    ('{"question_id": 1, "question_type": "OPINION", "answers": ["好"]}\n', "unknown question_type 'OPINION'"),
    ('{"question_id": 1, "question_type": "YES_NO", "answers": ["好", "是"], "yesno_answers": ["Yes"]}\n',
     "YES_NO question has 2 answers but 1 yesno_answers"),
])
def test_bad_reference_files(capsys, tmp_path, ref_text, expect):
    ref = _bad(tmp_path, "ref.jsonl", ref_text)
    state = tmp_path / "state.json"
    rc, out, err = run(capsys, "dureader", "--pred_file", PRED, "--ref_file", ref, "--save-state", str(state))
    assert rc == 2 and out == "" and not state.exists()
    assert expect in err and ref in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1, err


def test_other_bad_inputs(capsys, tmp_path):
    rc, out, err = run(capsys, "dureader", "--pred_file", str(tmp_path / "nope.jsonl"), "--ref_file", REF)
    assert rc == 2 and "nope.jsonl: no such file" in err
    empty_zip = tmp_path / "empty.zip"
    zipfile.ZipFile(empty_zip, "w").close()
    rc, out, err = run(capsys, "dureader", "--pred_file", str(empty_zip), "--ref_file", REF)
    assert rc == 2 and "empty.zip: the zip archive holds no files" in err
    bad_zip = tmp_path / "bad.zip"
    with zipfile.ZipFile(bad_zip, "w") as z:
        z.writestr("part1.jsonl", '{"question_id": 1, "answers": []}\n')
        z.writestr("part2.jsonl", '{"question_id": 2, "answers": []}\n{oops\n')
    rc, out, err = run(capsys, "dureader", "--pred_file", str(bad_zip), "--ref_file", REF)
    assert rc == 2 and "bad.zip[part2.jsonl]:2: invalid JSON" in err
    hyp = _bad(tmp_path, "h.txt", "a\nb\nc\n")
    ref = _bad(tmp_path, "r.txt", "a\nb\n")
    rc, out, err = run(capsys, "score", "--hyp", hyp, "--ref", ref)
    assert rc == 2 and out == "" and "r.txt has 2 lines but" in err and "h.txt has 3" in err
    rc, out, err = run(capsys, "dureader", "--pred_file", PRED, "--ref_file", REF, "--per-instance",
                       str(tmp_path / "no" / "dir" / "x.jsonl"))
    assert rc == 2 and "does not exist" in err
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".tmp-")] == []


def test_real_console_script_and_module():
    env = dict(os.environ, PYTHONWARNINGS="ignore")
    cmds = [[sys.executable, "-m", "paddle_rougel"]]
    script = shutil.which("paddle-rougel", path=os.path.dirname(sys.executable))
    assert script, "the paddle-rougel console script is not installed next to this python"
    cmds.append([script])
    for cmd in cmds:
        p = subprocess.run(cmd + ["dureader", "--pred_file", PRED, "--ref_file", REF],
                           capture_output=True, text=True, cwd=ROOT, env=env, timeout=120)
        assert p.returncode == 0, p.stderr
        assert json.loads(p.stdout) == official_scores(PRED, REF)
    p = subprocess.run(cmds[0] + ["dureader", "--pred_file", "missing.jsonl", "--ref_file", REF],
                       capture_output=True, text=True, cwd=ROOT, env=env, timeout=120)
    assert p.returncode == 2 and "Traceback" not in p.stderr and "missing.jsonl: no such file" in p.stderr


def test_command_line_process_never_imports_paddle(tmp_path):
    """The CLI process builds its metrics without paddle (1 s of start-up); its
    state files still load into the usual paddle.metric.Metric classes."""
    state = tmp_path / "s.json"
    code = ("import sys; from paddle_rougel.__main__ import run; "
            f"sys.argv = ['paddle-rougel', 'dureader', '--pred_file', {PRED!r}, '--ref_file', {REF!r}, "
            f"'--save-state', {str(state)!r}]; rc = run(); "
            "print('paddle imported:', 'paddle' in sys.modules, rc)")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip().splitlines()[-1] == "paddle imported: False 0"
    import paddle

    from paddle_rougel import BLEUForDuReader, RougeLForDuReader

    saved = json.loads(state.read_text())["metrics"]
    # the contest's text settings (whitespace removed) are part of the state's identity
    rouge, bleu = RougeLForDuReader(normalize="nows"), BLEUForDuReader(normalize="nows")
    assert isinstance(rouge, paddle.metric.Metric) and isinstance(bleu, paddle.metric.Metric)
    rouge.load_state_dict(saved["rouge_l"])
    bleu.load_state_dict(saved["bleu"])
    want = official_scores(PRED, REF)
    assert round(rouge.score() * 100, 2) == want["ROUGE-L"]
    assert round(bleu.score() * 100, 2) == want["BLEU-4"]


def test_importing_the_package_is_light():
    code = "import sys, paddle_rougel; print('paddle' in sys.modules)"
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert p.stdout.strip() == "False", p.stderr


def test_merge_takes_a_summary_level_state_file_with_a_rougelsum_state_dict(tmp_path, capsys):
    """`score --summary-level --save-state` files a ROUGE-Lsum state under its own key, and a
    json.dump(RougeLsum().state_dict()) file is filed under the same key (it was "rouge_l")."""
    from paddle_rougel import RougeLsum

    hyp, ref = tmp_path / "h.txt", tmp_path / "r.txt"
    hyp.write_text("a b c<n>d e\nx y\n", encoding="utf-8")
    ref.write_text("a b d<n>d e f\nx z\n", encoding="utf-8")
    saved = tmp_path / "s.json"
    assert main(["score", "--hyp", str(hyp), "--ref", str(ref), "--summary-level",
                 "--save-state", str(saved)]) == 0
    m = RougeLsum(normalize="nows")
    m.add_batch(["abc\nde"], [["abd\ndef"]])
    sd = tmp_path / "sd.json"
    sd.write_text(json.dumps(m.state_dict()), encoding="utf-8")
    capsys.readouterr()
    assert main(["merge", str(saved), str(sd)]) == 0
    got = json.loads(capsys.readouterr().out)["ROUGE-Lsum"]
    whole = RougeLsum(normalize="nows")
    whole.load_state_dict(json.loads(saved.read_text(encoding="utf-8")))
    whole.merge(m)
    assert got == round(whole.score() * 100, 2)
