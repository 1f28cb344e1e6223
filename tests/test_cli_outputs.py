"""The command line's outputs against real pipes, redirections, FIFOs, signals and closed
streams (hostile-testing issues 20 and 23), and the per-instance formats.

Where a finding is about a process boundary (a shell redirection, a pipe closed early, a
signal, a closed fd 2) the test runs a real process: ``python -m paddle_rougel`` under
``sh -c`` or ``subprocess.Popen``.  Every input is a copy in tmp_path.
"""
import csv
import io
import json
import os
import signal
import stat
import subprocess
import sys
import time

import pandas as pd
import pytest

from paddle_rougel.cli import fileio
from test_cli_hostile import one_error, run  # the CLI helpers, one home (tests/ is on sys.path)

ROW_KEYS = ["question_id", "question_type", "precision", "recall", "f", "bonus"]


@pytest.fixture
def lines(tmp_path):
    """Line-aligned hypotheses and references: (hyp, ref) paths, 3 lines."""
    h, r = tmp_path / "h.txt", tmp_path / "r.txt"
    h.write_text("今天天气很好\nthe cat sat\n北京欢迎你\n", encoding="utf-8")
    r.write_text("今天天气不错\nthe cat is on the mat\n欢迎你来北京\n", encoding="utf-8")
    return str(h), str(r)


def env(unbuffered=True):
    """The process environment (PYTHONPATH kept); with or without Python's own buffering."""
    e = {k: v for k, v in os.environ.items() if k not in ("PYTHONUNBUFFERED", "PYTHONWARNINGS")}
    e["PY"] = sys.executable
    if unbuffered:
        e["PYTHONUNBUFFERED"] = "1"
    return e


CLI = [sys.executable, "-m", "paddle_rougel"]


def sh(script, *args, cwd, unbuffered=False):
    """``sh -c script`` with $PY the interpreter and $1.. the args."""
    return subprocess.run(["sh", "-c", script, "sh", *map(str, args)], capture_output=True, text=True,
                          cwd=cwd, env=env(unbuffered), timeout=120)



def temps(d):
    return [p for p in os.listdir(d) if p.startswith(".tmp-")]


def score_lines(text):
    """The lines of ``text`` that are the score JSON (a dict with ROUGE-L)."""
    out = []
    for line in text.splitlines():
        try:
            obj = json.loads(line)
        except ValueError:
            continue
        if isinstance(obj, dict) and "ROUGE-L" in obj:
            out.append(obj)
    return out


def rows_of(text):
    rows = [json.loads(line) for line in text.splitlines()]
    assert rows and all(list(r) == ROW_KEYS for r in rows), text
    return rows


DUREADER = '"$PY" -m paddle_rougel dureader --pred_file "$1" --ref_file "$2" '


# ----------------------------------------------------------- item 20.1: /dev/stdout, /dev/stdin

def test_dev_stdout_redirected_to_a_file_keeps_rows_and_score(ex, tmp_path):
    p = sh(DUREADER + "--per-instance /dev/stdout > out.txt", *ex, cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    assert len(rows_of((tmp_path / "out.txt").read_text(encoding="utf-8"))) == 12
    assert len(score_lines(p.stderr)) == 1, p.stderr  # rows on stdout: the score on stderr
    assert temps(tmp_path) == []


def test_dev_stdout_appended_to_a_log_keeps_the_log(ex, tmp_path):
    log = tmp_path / "log"
    log.write_text("earlier run\n")
    p = sh(DUREADER + "--per-instance /dev/stdout >> log", *ex, cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    text = log.read_text(encoding="utf-8")
    assert text.startswith("earlier run\n")
    assert len(rows_of(text[len("earlier run\n"):])) == 12


def test_dev_fd_is_written_in_place(ex, tmp_path):
    side = tmp_path / "side.txt"
    side.write_text("kept\n")
    p = sh(DUREADER + "--save-state /dev/fd/3 3>>side.txt", *ex, cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    text = side.read_text(encoding="utf-8")
    assert text.startswith("kept\n") and json.loads(text[5:])["format"] == "paddle-rougel-state/1"
    assert len(score_lines(p.stdout)) == 1  # not stdout: the score stays there


@pytest.mark.parametrize("out", ["/dev/stdin", "/dev/fd/0", "h.txt", "./link"])
def test_output_onto_stdin_is_refused(lines, tmp_path, out):
    h, r = lines
    os.symlink(h, tmp_path / "link")
    before = open(h, "rb").read()
    p = sh('"$PY" -m paddle_rougel score --hyp - --ref "$1" --per-instance "$2" < h.txt', r, out, cwd=tmp_path)
    one_error(p.returncode, p.stdout, p.stderr, out)
    assert open(h, "rb").read() == before
    assert temps(tmp_path) == []


def test_file_that_stdout_is_redirected_to_is_refused(lines, tmp_path):
    h, r = lines
    p = sh('"$PY" -m paddle_rougel score --hyp "$1" --ref "$2" --per-instance o.txt > o.txt', h, r,
           cwd=tmp_path)
    assert p.returncode == 2 and "standard output" in p.stderr and "use -" in p.stderr, p.stderr


@pytest.mark.parametrize("flag, key", [("--per-instance", "rows"), ("--save-state", "state")])
def test_dash_is_stdout_and_the_score_goes_to_stderr(capsys, ex, tmp_path, monkeypatch, flag, key):
    monkeypatch.chdir(tmp_path)
    rc, out, err = run(capsys, "dureader", "--pred_file", ex[0], "--ref_file", ex[1], flag, "-")
    assert rc == 0, err
    assert not os.path.exists(tmp_path / "-")
    if key == "rows":
        assert len(rows_of(out)) == 12
    else:
        assert json.loads(out)["format"] == "paddle-rougel-state/1"
    assert len(score_lines(err)) == 1 and score_lines(out) == []


def test_two_outputs_on_stdout_are_refused(capsys, ex):
    one_error(*run(capsys, "dureader", "--pred_file", ex[0], "--ref_file", ex[1], "--per-instance", "-",
                   "--save-state", "/dev/stdout"), "--save-state", "--per-instance")


def test_symlink_to_dev_stdout_is_stdout(ex, tmp_path):
    os.symlink("/dev/stdout", tmp_path / "out")
    p = sh(DUREADER + "--per-instance out > got.txt", *ex, cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    assert os.path.islink(tmp_path / "out")
    assert len(rows_of((tmp_path / "got.txt").read_text(encoding="utf-8"))) == 12


# ----------------------------------------------------------- item 23.3: pipes

def _many_lines(tmp_path, n=20000):
    h, r = tmp_path / "big_h.txt", tmp_path / "big_r.txt"
    h.write_text("".join(f"a b c {i}\n" for i in range(n)))
    r.write_text("".join(f"a c d {i}\n" for i in range(n)))
    return h, r


@pytest.mark.parametrize("unbuffered", [False, True])
@pytest.mark.parametrize("out", ["/dev/stdout", "-"])
def test_rows_into_a_pipe_closed_early_end_quietly(tmp_path, out, unbuffered):
    """`| head -1`: 20,000 rows (more than a pipe holds) and the reader leaves after one."""
    h, r = _many_lines(tmp_path)
    p = subprocess.Popen(CLI + ["score", "--hyp", h, "--ref", r, "--per-instance", out],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=tmp_path, env=env(unbuffered))
    first = json.loads(p.stdout.readline())
    p.stdout.close()
    err = p.stderr.read().decode()
    assert p.wait(120) == 0, err
    assert first == {"line": 1, "precision": 0.75, "recall": 0.75, "f": 0.75}
    for word in ("Traceback", "Broken", "error", "Exception"):
        assert word not in err, err
    assert len(score_lines(err)) == 1  # the score went to stderr, and was printed
    assert not os.path.exists(tmp_path / "-")


@pytest.mark.parametrize("unbuffered", [False, True])
def test_score_into_a_pipe_closed_early_ends_quietly_with_status_0(ex, unbuffered):
    p = subprocess.Popen(CLI + ["dureader", "--pred_file", ex[0], "--ref_file", ex[1]],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env(unbuffered))
    p.stdout.close()  # `| head -c0`: gone before the score is printed
    err = p.stderr.read().decode()
    assert p.wait(120) == 0, err
    for word in ("Traceback", "Broken", "error", "Exception ignored"):
        assert word not in err, err


def test_state_into_a_pipe_closed_early_still_writes_the_other_output(ex, tmp_path):
    per = tmp_path / "per.jsonl"
    p = sh(DUREADER + '--save-state - --per-instance "$3" | head -c 10 > /dev/null', *ex, per, cwd=tmp_path)
    assert p.returncode == 0 and "Traceback" not in p.stderr, p.stderr
    assert len(rows_of(per.read_text(encoding="utf-8"))) == 12


# ----------------------------------------------------------- item 20.17: stderr closed

def test_stderr_closed_keeps_stdout_pure(ex, tmp_path):
    p = sh(DUREADER + "2>&-", *ex, cwd=tmp_path)
    assert p.returncode == 0
    assert list(json.loads(p.stdout)) == ["ROUGE-L", "BLEU-4"]  # the JSON line alone
    p = sh(DUREADER + "--format table 2>&-", *ex, cwd=tmp_path)
    assert p.returncode == 0 and "questions scored" not in p.stdout
    bad = tmp_path / "bad.jsonl"
    bad.write_text("{oops\n")
    p = sh('"$PY" -m paddle_rougel dureader --pred_file "$1" --ref_file "$2" 2>&-', bad, ex[1], cwd=tmp_path)
    assert p.returncode == 2 and p.stdout == ""


def test_stderr_closed_is_not_reused_by_an_output(ex, tmp_path):
    """fd 2 closed: the first file opened would get fd 2; /dev/null holds it instead."""
    p = sh(DUREADER + '--per-instance "$3" 2>&-', *ex, tmp_path / "per.jsonl", cwd=tmp_path)
    assert p.returncode == 0
    assert len(rows_of((tmp_path / "per.jsonl").read_text(encoding="utf-8"))) == 12


# ----------------------------------------------------------- item 20.15: signals and temp files

def _wait_for(cond, what, timeout=60):
    end = time.monotonic() + timeout
    while not cond():
        if time.monotonic() > end:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.02)


def _signals_by_default():
    """In the child: SIGINT and SIGHUP handled by default, as in a terminal (a suite started by
    nohup or from a script's `&` passes them on ignored, and the CLI keeps an ignored signal so)."""
    for s in (signal.SIGINT, signal.SIGHUP):
        signal.signal(s, signal.SIG_DFL)


@pytest.mark.parametrize("sig, status", [(signal.SIGTERM, 143), (signal.SIGINT, 130), (signal.SIGHUP, 129)])
def test_signal_while_outputs_are_written_removes_temp_files(ex, tmp_path, sig, status):
    """The state's temp file is written, then the run blocks opening a FIFO nobody reads."""
    fifo, state = tmp_path / "fifo", tmp_path / "state.json"
    os.mkfifo(fifo)
    p = subprocess.Popen(CLI + ["dureader", "--pred_file", ex[0], "--ref_file", ex[1],
                                "--per-instance", fifo, "--save-state", state],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env(), cwd=tmp_path,
                         preexec_fn=_signals_by_default)
    try:
        _wait_for(lambda: temps(tmp_path) or p.poll() is not None, "the temp file")
        p.send_signal(sig)
        out, err = p.communicate(timeout=60)
    finally:
        if p.poll() is None:
            p.kill()
    assert p.returncode == status, err
    assert temps(tmp_path) == [] and not state.exists()
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert out == b"" and b"Traceback" not in err and err.decode().startswith("paddle-rougel: error: interrupted")


def test_interrupt_while_a_temp_file_is_written_removes_it(capsys, ex, tmp_path, monkeypatch):
    def interrupted(*a):
        raise KeyboardInterrupt
    monkeypatch.setattr(fileio.os, "fchmod", interrupted)  # inside the temp file's write
    rc, out, err = run(capsys, "dureader", "--pred_file", ex[0], "--ref_file", ex[1],
                       "--save-state", tmp_path / "s.json")
    assert rc == 130 and out == "" and "interrupted" in err
    assert temps(tmp_path) == [] and not (tmp_path / "s.json").exists()


def test_signal_after_everything_is_done_keeps_status_0(ex, tmp_path):
    state = tmp_path / "state.json"
    p = subprocess.Popen(CLI + ["dureader", "--pred_file", ex[0], "--ref_file", ex[1], "--save-state", state],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env(unbuffered=False))
    score = json.loads(p.stdout.readline())  # printed: the state was committed before it
    p.send_signal(signal.SIGTERM)
    _, err = p.communicate(timeout=60)
    assert p.returncode == 0, err
    assert set(score) == {"ROUGE-L", "BLEU-4"} and json.loads(state.read_text())["metrics"]


def test_signal_ignored_at_start_stays_ignored(ex, tmp_path):
    """nohup / `&` in a script start a process with SIGHUP / SIGINT ignored: kept so."""
    p = sh('trap "" HUP; "$PY" -c "import signal, sys; from paddle_rougel.cli import procio; procio.install(); '
           'print(signal.getsignal(signal.SIGHUP) == signal.SIG_IGN)"', cwd=tmp_path)
    assert p.stdout.strip() == "True", p.stderr


# ----------------------------------------------------------- item 20.14: duplicate keys

@pytest.mark.parametrize("line, key", [
    ('{"question_id": 1001, "question_id": 1002, "answers": ["x"]}', "question_id"),
    ('{"question_id": 1001, "answers" : ["a:b"], "answers": []}', "answers"),  # spaces before ':'
    ('{"question_id": 1001, "answers": ["x"], "extra": {"k": 1, "k": 2}}', "k"),
])
def test_duplicate_key_is_refused_on_its_own_line(capsys, ex, tmp_path, line, key):
    p = tmp_path / "p.jsonl"
    p.write_text(line + '\n{"question_id": 1002, "answers": ["y"]}\n', encoding="utf-8")
    rc, out, err = run(capsys, "dureader", "--pred_file", p, "--ref_file", ex[1])
    one_error(rc, out, err, f"{p}:1:", f"duplicate key '{key}'")
    assert ":2:" not in err


def test_colons_in_texts_are_not_duplicates(capsys, ex, tmp_path):
    p = tmp_path / "p.jsonl"
    rows = [json.loads(x) for x in open(ex[0], encoding="utf-8")]
    for row in rows:
        row["answers"] = [a + ":" for a in row["answers"]]  # more ':' than keys on every line
    p.write_text("".join(json.dumps(r, ensure_ascii=False, indent=None, separators=(",", " : ")) + "\n"
                         for r in rows), encoding="utf-8")
    rc, out, err = run(capsys, "dureader", "--pred_file", p, "--ref_file", ex[1])
    assert rc == 0 and set(json.loads(out)) == {"ROUGE-L", "BLEU-4"}, err


# ----------------------------------------------------------- item 20.16: compare

class _Stdin:
    def __init__(self, data: bytes):
        self.buffer = io.BytesIO(data)


def test_compare_reads_stdin_once(capsys, lines, monkeypatch):
    h, r = lines
    rc, want, _ = run(capsys, "compare", "--ref", r, "--hyp", h, "--hyp", r)
    assert rc == 0
    monkeypatch.setattr(sys, "stdin", _Stdin(open(r, "rb").read()))
    rc, out, err = run(capsys, "compare", "--ref", "-", "--hyp", h, "--hyp", r)
    assert rc == 0 and out == want, err
    one_error(*run(capsys, "compare", "--ref", r, "--hyp", "-", "--hyp", "-"), "standard input")


def test_compare_on_empty_files_is_one_line_naming_them(capsys, ex, tmp_path):
    a, b, r = (tmp_path / n for n in ("a.txt", "b.txt", "r.txt"))
    for f in (a, b, r):
        f.write_text("")
    one_error(*run(capsys, "compare", "--ref", r, "--hyp", a, "--hyp", b), a, b, r, "nothing to compare")
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    one_error(*run(capsys, "compare", "--ref_file", empty, "--pred_file", ex[0], "--pred_file", ex[0]),
              empty, "nothing to compare")


# ----------------------------------------------------------- item 23.3: CSV rows

def _csv_rows(path):
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.reader(f))


def test_csv_rows_have_the_json_columns_and_round_trip_exactly(capsys, ex, tmp_path):
    j, c = tmp_path / "per.jsonl", tmp_path / "per.CSV"
    assert run(capsys, "dureader", "--pred_file", ex[0], "--ref_file", ex[1], "--per-instance", j)[0] == 0
    assert run(capsys, "dureader", "--pred_file", ex[0], "--ref_file", ex[1], "--per-instance", c)[0] == 0
    want = rows_of(j.read_text(encoding="utf-8"))
    header, *body = _csv_rows(c)
    assert header == ROW_KEYS and len(body) == len(want)
    for got, row in zip(body, want):
        assert int(got[0]) == row["question_id"] and got[1] == row["question_type"]
        assert [float(x) for x in got[2:]] == [row[k] for k in ROW_KEYS[2:]]  # exact: repr digits
    frame = pd.read_csv(c, float_precision="round_trip")  # the README's one-liners
    pd.testing.assert_frame_equal(frame, pd.read_json(j, lines=True, precise_float=True), check_dtype=False, check_exact=True)


def test_per_instance_format_flag_overrides_the_suffix(capsys, lines, tmp_path):
    h, r = lines
    t, c = tmp_path / "rows.txt", tmp_path / "rows.csv"
    assert run(capsys, "score", "--hyp", h, "--ref", r, "--per-instance", t, "--per-instance-format", "csv")[0] == 0
    assert _csv_rows(t)[0] == ["line", "precision", "recall", "f"] and len(_csv_rows(t)) == 4
    assert run(capsys, "score", "--hyp", h, "--ref", r, "--per-instance", c, "--per-instance-format", "jsonl")[0] == 0
    assert [json.loads(x)["line"] for x in c.read_text().splitlines()] == [1, 2, 3]
    one_error(*run(capsys, "score", "--hyp", h, "--ref", r, "--per-instance-format", "csv"), "--per-instance")


def test_csv_quotes_ids_with_commas_and_quotes(capsys, tmp_path):
    qid = 'q,1 "x"\n'
    ref = tmp_path / "r.jsonl"
    ref.write_text(json.dumps({"question_id": qid, "question_type": "DESCRIPTION", "answers": ["北京"]}) + "\n")
    pred = tmp_path / "p.jsonl"
    pred.write_text(json.dumps({"question_id": qid, "answers": ["北京"]}) + "\n")
    c = tmp_path / "per.csv"
    assert run(capsys, "dureader", "--pred_file", pred, "--ref_file", ref, "--per-instance", c)[0] == 0
    assert _csv_rows(c)[1] == [qid, "DESCRIPTION", "1.0", "1.0", "1.0", "0.0"]


def test_descriptor_not_open_is_refused_before_any_work(ex, tmp_path):
    state = tmp_path / "state.json"
    p = sh(DUREADER + '--save-state "$3" --per-instance /dev/fd/7', *ex, state, cwd=tmp_path)
    one_error(p.returncode, p.stdout, p.stderr, "/dev/fd/7", "not open")
    assert not state.exists() and temps(tmp_path) == []
