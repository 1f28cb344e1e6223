"""Fuzzing the command line with malformed contest, text and state files.

For every generated input: exit 0 (the input was valid) or 2; on 2 exactly one
``paddle-rougel: error:`` line on stderr and nothing on stdout; never a
traceback; the inputs byte-for-byte untouched; no output file on failure and no
stray temp file ever.  Runs ``cli.main`` in-process for speed, plus a few runs
of the real console script.
"""
import contextlib
import io
import json
import math
import re
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from paddle_rougel.cli import main

FUZZ = settings(deadline=None, derandomize=True, max_examples=120,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
SCRIPT = shutil.which("paddle-rougel", path=os.path.dirname(sys.executable))
TYPES = ["YES_NO", "ENTITY", "DESCRIPTION"]

text = st.text(alphabet="天气很好是的 \t\u3000ab", max_size=8)
junk = st.one_of(st.none(), st.booleans(), st.integers(-2, 2), st.floats(allow_nan=False), text,
                 st.lists(st.integers(0, 3), max_size=2), st.dictionaries(text, st.integers(), max_size=2))
valid_ref = st.fixed_dictionaries({
    "question_type": st.sampled_from(TYPES), "answers": st.lists(text, max_size=3),
    "entity_answers": st.lists(st.lists(text, max_size=2), max_size=2)})
valid_pred = st.fixed_dictionaries({"answers": st.lists(text, max_size=2),
                                    "yesno_answers": st.lists(st.sampled_from(["Yes", "No"]), max_size=1)})


def _fix_yes_no(row):
    if row.get("question_type") == "YES_NO" and isinstance(row.get("answers"), list):
        row["yesno_answers"] = ["Yes"] * len(row["answers"])
    return row


@st.composite
def bad_row(draw, base):
    """A row with one field replaced by junk, removed, or an extra field."""
    row = dict(draw(base))
    key = draw(st.sampled_from(sorted(row) + ["question_id"]))
    action = draw(st.sampled_from(["junk", "drop", "keep"]))
    if action == "junk":
        row[key] = draw(junk)
    elif action == "drop":
        row.pop(key, None)
    return row


@st.composite
def contest_file(draw, is_ref):
    """(bytes, valid?) of a JSON-lines file, maybe broken at the byte level, maybe zipped."""
    base = valid_ref if is_ref else valid_pred
    n = draw(st.integers(0, 4))
    valid = draw(st.booleans())
    rows = [draw(base) if valid else draw(st.one_of(base, bad_row(base))) for _ in range(n)]
    lines = []
    for i, row in enumerate(rows):
        if "question_id" not in row or valid:
            row["question_id"] = draw(st.sampled_from([i, str(i), f"q{i}"])) if valid else i
        lines.append(json.dumps(_fix_yes_no(row) if is_ref and valid else row, ensure_ascii=False))
    data = ("\n".join(lines) + draw(st.sampled_from(["", "\n", "\r\n"]))).encode("utf-8")
    if draw(st.booleans()):
        data = b"\xef\xbb\xbf" + data
    if not valid:
        cut = draw(st.sampled_from(["none", "truncate", "bytes", "random"]))
        if cut == "truncate" and data:
            data = data[:draw(st.integers(0, len(data) - 1))]
        elif cut == "bytes":
            pos = draw(st.integers(0, len(data)))
            data = data[:pos] + draw(st.sampled_from([b"\xff", b"\xc3", b"\xed\xa0\x80", b"\x00", b"\"\\ud800\""])) + data[pos:]
        elif cut == "random":
            data = draw(st.binary(max_size=64))
    return data, valid


def _zipped(data, corrupt_at=None, method=zipfile.ZIP_DEFLATED):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression=method) as z:
        z.writestr("part.jsonl", data)
    out = bytearray(buf.getvalue())
    if corrupt_at is not None and out:
        i = corrupt_at % len(out)
        out[i] ^= 0x5A
    return bytes(out)


def _run(argv):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = main(argv)
    return rc, out.getvalue(), err.getvalue()


def _check_result(rc, out, err, d, outputs, inputs_before):
    assert rc in (0, 2), (rc, err)
    event(f"exit {rc}: " + (re.sub(r"\S*/(?=[^/ ]+)|\d+|'[^']*'", "", err)[22:70] if rc else "ok"))
    assert "Traceback" not in err and ".tmp-" not in err
    if rc == 2:
        lines = err.splitlines()
        assert out == "" and len(lines) == 1 and lines[0].startswith("paddle-rougel: error: "), err
        assert not any(os.path.exists(p) for p in outputs)
    for p, data in inputs_before.items():
        assert open(p, "rb").read() == data, f"{p} was modified"
    assert [f for f in os.listdir(d) if f.startswith(".tmp-")] == []


def _write(d, name, data):
    p = os.path.join(d, name)
    with open(p, "wb") as f:
        f.write(data)
    return p


@FUZZ
@given(pred=contest_file(False), ref=contest_file(True), zip_pred=st.sampled_from([None, "ok", "corrupt"]),
       corrupt_at=st.integers(0, 10 ** 6))
def test_dureader_fuzz(pred, ref, zip_pred, corrupt_at):
    (pdata, pvalid), (rdata, rvalid) = pred, ref
    if zip_pred:
        pdata = _zipped(pdata, corrupt_at if zip_pred == "corrupt" else None)
    with tempfile.TemporaryDirectory() as d:
        p = _write(d, "pred.zip" if zip_pred else "pred.jsonl", pdata)
        r = _write(d, "ref.jsonl", rdata)
        outputs = [os.path.join(d, "per.jsonl"), os.path.join(d, "state.json")]
        before = {p: pdata, r: rdata}
        rc, out, err = _run(["dureader", "--pred_file", p, "--ref_file", r,
                             "--per-instance", outputs[0], "--save-state", outputs[1]])
        _check_result(rc, out, err, d, outputs, before)
        if pvalid and rvalid and zip_pred != "corrupt":
            assert rc == 0, err
        if rc == 0:
            got = json.loads(out)
            assert set(got) == {"ROUGE-L", "BLEU-4"} and all(math.isfinite(v) for v in got.values())
            assert all(os.path.isfile(o) for o in outputs)


def _mutate(obj, path, value):
    """Replace (or, for value None and a dict, delete) the item at ``path``."""
    *head, last = path
    for k in head:
        obj = obj[k]
    if value is _DELETE and isinstance(obj, dict):
        del obj[last]
    else:
        obj[last] = None if value is _DELETE else value


_DELETE = object()


def _paths(obj, prefix=()):
    yield prefix
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield from _paths(v, prefix + (k,))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            yield from _paths(v, prefix + (i,))


def _good_state(d):
    p, r = _write(d, "p.jsonl", b'{"question_id": 1, "answers": ["ab"], "yesno_answers": ["Yes"]}\n'), _write(
        d, "r.jsonl", b'{"question_id": 1, "question_type": "YES_NO", "answers": ["abc"], '
                      b'"yesno_answers": ["Yes"], "entity_answers": [[]]}\n')
    s = os.path.join(d, "good.json")
    assert _run(["dureader", "--pred_file", p, "--ref_file", r, "--save-state", s])[0] == 0
    return s


STATE_VALUES = st.one_of(junk, st.just(_DELETE), st.sampled_from([
    2 ** 63, -1, 1.5, 10 ** 8, 0, [], {}, [1.0] * 3, "NaN", 1e308]))


@FUZZ
@given(which=st.integers(0, 10 ** 6), value=STATE_VALUES, raw=st.sampled_from([None, "NaN", "Infinity", "1e400"]))
def test_merge_fuzz(which, value, raw):
    with tempfile.TemporaryDirectory() as d:
        good = _good_state(d)
        obj = json.load(open(good))
        paths = [p for p in _paths(obj) if p]
        _mutate(obj, paths[which % len(paths)], value)
        text = json.dumps(obj)
        if raw:  # JSON constants Python's json would accept
            text = text.replace('"count": 1', f'"count": {raw}', 1)
        bad = _write(d, "bad.json", text.encode())
        before = {good: open(good, "rb").read(), bad: text.encode()}
        for argv in (["merge", bad], ["merge", good, bad]):
            _check_result(*_run(argv), d, [], before)


lines_bytes = st.one_of(st.binary(max_size=40), st.text(max_size=40).map(lambda t: t.encode("utf-8", "surrogatepass")))


@FUZZ
@given(hyp=lines_bytes, ref=lines_bytes, bom=st.booleans(),
       extra=st.sampled_from([[], ["--gamma", "1e200"], ["--alpha", "1e-320"], ["--tokenize", "whitespace"]]))
def test_score_fuzz(hyp, ref, bom, extra):
    with tempfile.TemporaryDirectory() as d:
        h = _write(d, "h.txt", (b"\xef\xbb\xbf" if bom else b"") + hyp)
        r = _write(d, "r.txt", ref)
        rc, out, err = _run(["score", "--hyp", h, "--ref", r, "--format", "json", *extra])
        _check_result(rc, out, err, d, [], {h: open(h, "rb").read(), r: ref})


CONFIG_KEYS = ["gamma", "alpha", "multi_ref", "tokenize", "normalize", "bonus", "gama"]
config_bytes = st.one_of(
    st.binary(max_size=100),
    st.text(alphabet=": -\n\t[]{}!&*#|>'\"%@`0123456789.eE+abgmt", max_size=60).map(str.encode),
    st.dictionaries(st.sampled_from(CONFIG_KEYS), st.one_of(junk, st.sampled_from(
        [1e308, 1e-320, 10 ** 400, "max_pr", "char", "nows", {"alpha": 2.0}, {"beta": "x"}])), max_size=3)
    .map(lambda d: json.dumps(d, default=str).encode()))  # JSON is YAML


@FUZZ
@given(data=config_bytes, name=st.sampled_from(["c.yaml", "c.yml"]))
def test_config_fuzz(data, name):
    with tempfile.TemporaryDirectory() as d:
        c = _write(d, name, data)
        h = _write(d, "h.txt", b"abc\n")
        rc, out, err = _run(["score", "--hyp", h, "--ref", h, "--config", c])
        _check_result(rc, out, err, d, [], {c: data, h: b"abc\n"})


def test_real_console_script_on_hostile_files(tmp_path):
    """A few runs of the installed script itself: the process boundary (exit status, stderr)."""
    assert SCRIPT, "the paddle-rougel console script is not installed next to this python"
    ref = _write(str(tmp_path), "r.jsonl", b'{"question_id": 1, "question_type": "DESCRIPTION", "answers": ["a"]}\n')
    cases = {"random.jsonl": bytes(range(256)) * 4,
             "corrupt.zip": _zipped(b'{"question_id": 1, "answers": ["a"]}\n' * 50, corrupt_at=45),
             "trunc.jsonl": b'{"question_id": 1, "answers": ["a"'}
    for name, data in cases.items():
        p = _write(str(tmp_path), name, data)
        proc = subprocess.run([SCRIPT, "dureader", "--pred_file", p, "--ref_file", ref, "--save-state",
                               str(tmp_path / "s.json")], capture_output=True, text=True, timeout=120)
        lines = proc.stderr.splitlines()
        assert proc.returncode == 2 and proc.stdout == "", proc.stderr
        assert len(lines) == 1 and lines[0].startswith("paddle-rougel: error: ") and name in lines[0], proc.stderr
        assert open(p, "rb").read() == data and not (tmp_path / "s.json").exists()
