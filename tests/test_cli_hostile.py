"""The command line against hostile or careless use: outputs that are inputs, odd output
targets, corrupt zips, tampered state files, overflowing settings, closed pipes.

The rule under test: nothing the user owns is lost, no number is silently wrong, and every
bad input is ONE line on stderr naming the file / member / line / field, exit status 2.
Every input here is a copy in tmp_path (a regression must not clobber the examples).
"""
import errno
import json
import os
import shutil
import stat
import struct
import subprocess
import sys
import threading
import tracemalloc
import zipfile

import pytest

from paddle_rougel import __version__
from paddle_rougel.cli import dureader_io
from paddle_rougel.engine import cext, registry
from paddle_rougel.engine import host as engine
from paddle_rougel.cli import main

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EX = os.path.join(ROOT, "examples", "dureader")
SCRIPT = shutil.which("paddle-rougel", path=os.path.dirname(sys.executable))


def run(capsys, *argv):
    rc = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return rc, out, err


def one_error(rc, out, err, *words):
    """Exit 2, nothing on stdout, exactly one 'paddle-rougel: error:' line naming ``words``."""
    assert rc == 2, (rc, err)
    assert out == ""
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("paddle-rougel: error: "), err
    assert "Traceback" not in err and ".tmp-" not in err
    for w in words:
        assert str(w) in err, (w, err)


def snapshot(*paths):
    return {p: open(p, "rb").read() for p in paths}


def no_temp_files(d):
    return [p for p in os.listdir(d) if p.startswith(".tmp-")] == []


# ---------------------------------------------------------------- 1. outputs vs inputs

@pytest.mark.parametrize("flag, victim", [("--per-instance", 0), ("--save-state", 1),
                                          ("--per-instance", 1), ("--save-state", 0)])
def test_output_that_is_an_input_is_refused(capsys, ex, flag, victim):
    before = snapshot(*ex)
    one_error(*run(capsys, "dureader", "--pred_file", ex[0], "--ref_file", ex[1], flag, ex[victim]),
              flag, ex[victim])
    assert snapshot(*ex) == before


def test_output_via_symlink_hard_link_or_relative_path_is_refused(capsys, ex, tmp_path, monkeypatch):
    before = snapshot(*ex)
    os.symlink(ex[0], tmp_path / "link.jsonl")
    os.link(ex[1], tmp_path / "hard.jsonl")
    monkeypatch.chdir(tmp_path)
    for out in ("link.jsonl", "hard.jsonl", "./sub/../pred.jsonl"):
        os.makedirs("sub", exist_ok=True)
        one_error(*run(capsys, "dureader", "--pred_file", ex[0], "--ref_file", ex[1], "--save-state", out),
                  out, "same file")
    assert snapshot(*ex) == before


def test_two_outputs_on_one_file_are_refused(capsys, ex, tmp_path):
    out = tmp_path / "out.json"
    one_error(*run(capsys, "dureader", "--pred_file", ex[0], "--ref_file", ex[1],
                   "--per-instance", out, "--save-state", out), "--save-state", "--per-instance")
    assert not out.exists()


def test_config_file_is_an_input_too(capsys, ex, tmp_path):
    cfg = tmp_path / "c.yaml"
    cfg.write_text("gamma: 1.2\n")
    one_error(*run(capsys, "dureader", "--pred_file", ex[0], "--ref_file", ex[1], "--config", cfg,
                   "--per-instance", cfg), "--config")
    assert cfg.read_text() == "gamma: 1.2\n"


def _states(tmp_path, ex, n=2):
    paths = []
    for i in range(n):
        p = tmp_path / f"s{i}.json"
        assert main(["dureader", "--pred_file", ex[0], "--ref_file", ex[1], "--save-state", str(p)]) == 0
        paths.append(p)
    return paths


def test_merge_refuses_the_same_state_twice(capsys, ex, tmp_path):
    a, = _states(tmp_path, ex, 1)
    os.link(a, tmp_path / "again.json")
    capsys.readouterr()
    for second in (a, tmp_path / "again.json"):
        one_error(*run(capsys, "merge", a, second), "counted twice")


# ---------------------------------------------------------------- 2. how outputs are written

def test_fifo_output_is_written_not_replaced(capsys, ex, tmp_path):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    got = []
    reader = threading.Thread(target=lambda: got.append(open(fifo, "rb").read()), daemon=True)
    reader.start()
    rc, out, err = run(capsys, "dureader", "--pred_file", ex[0], "--ref_file", ex[1], "--save-state", fifo)
    reader.join(10)
    assert rc == 0 and stat.S_ISFIFO(os.lstat(fifo).st_mode) and got, err
    assert json.loads(got[0])["format"] == "paddle-rougel-state/1"


@pytest.mark.skipif(os.geteuid() != 0, reason="mknod of a character device needs root")
def test_device_node_output_is_written_not_replaced(capsys, ex, tmp_path):
    null = tmp_path / "null"  # a private /dev/null: a regression cannot hurt the real one
    os.mknod(null, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
    for flag in ("--per-instance", "--save-state"):
        rc, _, err = run(capsys, "dureader", "--pred_file", ex[0], "--ref_file", ex[1], flag, null)
        assert rc == 0, err
        assert stat.S_ISCHR(os.lstat(null).st_mode)


def test_symlink_output_replaces_its_target(capsys, ex, tmp_path):
    (tmp_path / "real").mkdir()
    target = tmp_path / "real" / "state.json"
    target.write_text("old")
    link = tmp_path / "state.json"
    os.symlink(target, link)
    assert run(capsys, "dureader", "--pred_file", ex[0], "--ref_file", ex[1], "--save-state", link)[0] == 0
    assert os.path.islink(link) and json.loads(target.read_text())["metrics"]
    assert no_temp_files(tmp_path) and no_temp_files(tmp_path / "real")


def test_new_file_mode_follows_umask_and_existing_mode_is_kept(capsys, ex, tmp_path):
    old = os.umask(0o027)
    try:
        new = tmp_path / "new.jsonl"
        assert run(capsys, "dureader", "--pred_file", ex[0], "--ref_file", ex[1], "--per-instance", new)[0] == 0
        assert stat.S_IMODE(os.stat(new).st_mode) == 0o640
        kept = tmp_path / "kept.json"
        kept.write_text("x")
        os.chmod(kept, 0o604)
        assert run(capsys, "dureader", "--pred_file", ex[0], "--ref_file", ex[1], "--save-state", kept)[0] == 0
        assert stat.S_IMODE(os.stat(kept).st_mode) == 0o604
    finally:
        os.umask(old)


def test_outputs_are_all_or_nothing(capsys, ex, tmp_path):
    per = tmp_path / "per.jsonl"
    per.write_text("previous run\n")
    (tmp_path / "adir").mkdir()
    one_error(*run(capsys, "dureader", "--pred_file", ex[0], "--ref_file", ex[1], "--per-instance", per,
                   "--save-state", tmp_path / "adir"), "adir", "is a directory")
    assert per.read_text() == "previous run\n"  # the first output was not replaced either
    assert no_temp_files(tmp_path)


def test_unwritable_directory_names_the_users_path(capsys, ex, tmp_path):
    one_error(*run(capsys, "dureader", "--pred_file", ex[0], "--ref_file", ex[1], "--per-instance",
                   tmp_path / "no" / "x.jsonl"), "x.jsonl", "does not exist")


# ---------------------------------------------------------------- 3. corrupt zips

def _zip(tmp_path, text, method=zipfile.ZIP_STORED, name="p.zip"):
    path = tmp_path / name
    with zipfile.ZipFile(path, "w", compression=method) as z:
        z.writestr("pred.jsonl", text)
    return path


def _patch(path, sig, offset, fmt, value):
    data = bytearray(path.read_bytes())
    pos = data.find(sig)
    struct.pack_into(fmt, data, pos + offset, value)
    path.write_bytes(bytes(data))


def _zip_cases(tmp_path):
    text = open(os.path.join(EX, "pred.jsonl"), encoding="utf-8").read()
    crc = _zip(tmp_path, text, name="crc.zip")  # stored: flip one byte of the data
    data = bytearray(crc.read_bytes())
    data[60] ^= 0x01
    crc.write_bytes(bytes(data))
    deflate = _zip(tmp_path, text * 4, zipfile.ZIP_DEFLATED, "deflate.zip")
    data = bytearray(deflate.read_bytes())
    for i in range(60, 90):
        data[i] = 0xFF
    deflate.write_bytes(bytes(data))
    enc = _zip(tmp_path, text, name="enc.zip")
    _patch(enc, b"PK\x01\x02", 8, "<H", 1)  # the encrypted flag, central directory
    _patch(enc, b"PK\x03\x04", 6, "<H", 1)
    method = _zip(tmp_path, text, name="method.zip")
    _patch(method, b"PK\x01\x02", 10, "<H", 77)  # an unknown compression method
    _patch(method, b"PK\x03\x04", 8, "<H", 77)
    return {"crc": crc, "deflate": deflate, "encrypted": enc, "method": method}


@pytest.mark.parametrize("case", ["crc", "deflate", "encrypted", "method"])
def test_corrupt_zip_members_are_one_line(capsys, ex, tmp_path, case):
    z = _zip_cases(tmp_path)[case]
    one_error(*run(capsys, "dureader", "--pred_file", z, "--ref_file", ex[1]), f"{z}[pred.jsonl]")


def test_zip_bomb_is_streamed(tmp_path):
    """64 MiB of blank lines in a 64 KiB zip: memory stays far below the member's size."""
    path = tmp_path / "bomb.zip"
    block = (b" " * 1023 + b"\n") * 1024
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as z:
        with z.open("pred.jsonl", "w") as f:
            for _ in range(64):
                f.write(block)
    assert path.stat().st_size < 1 << 20
    tracemalloc.start()
    try:
        rows = dureader_io.read_rows(str(path), is_ref=False)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert rows == {} and peak < 16 << 20, peak


def test_overlong_line_is_an_error_naming_the_line(capsys, ex, tmp_path, monkeypatch):
    monkeypatch.setattr(dureader_io, "MAX_LINE", 1 << 20)
    p = tmp_path / "long.jsonl"
    p.write_bytes(open(ex[0], "rb").readline() + b"[" * (3 << 20) + b"\n")
    one_error(*run(capsys, "dureader", "--pred_file", p, "--ref_file", ex[1]), f"{p}:2:", "longer than 1 MiB")


# ---------------------------------------------------------------- 3. overflowing settings

def write_file(tmp_path, name, text):
    """tmp_path / name holding text (UTF-8); its path."""
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return p


def test_huge_gamma_scores_right_or_is_one_line(capsys, tmp_path):
    h = write_file(tmp_path, "h.txt", "abcd\nxyz\n")
    r = write_file(tmp_path, "r.txt", "abce\nxyzw\n")
    rc, out, err = run(capsys, "score", "--hyp", h, "--ref", r, "--gamma", "1e200", "--format", "json")
    if rc == 0:  # F tends to R as gamma grows
        got = json.loads(out)
        assert got["ROUGE-L"] == got["ROUGE-L-R"] and "Traceback" not in err
    else:
        one_error(rc, out, err, "--gamma")


def test_huge_config_gamma_scores_right_or_is_one_line(capsys, ex, tmp_path):
    cfg = write_file(tmp_path, "g.yaml", "gamma: 1.0e+200\n")
    rc, out, err = run(capsys, "dureader", "--pred_file", ex[0], "--ref_file", ex[1], "--config", cfg)
    if rc == 0:
        assert set(json.loads(out)) == {"ROUGE-L", "BLEU-4"} and "Traceback" not in err
    else:
        one_error(rc, out, err, str(cfg), "gamma")
    cfg = write_file(tmp_path, "a.yaml", "alpha: 1.0e-320\n")  # gamma = sqrt(1/alpha) = inf
    one_error(*run(capsys, "dureader", "--pred_file", ex[0], "--ref_file", ex[1], "--config", cfg), cfg, "alpha")
    cfg = write_file(tmp_path, "i.yaml", "gamma: " + "9" * 400 + "\n")  # an int too big for a float
    one_error(*run(capsys, "dureader", "--pred_file", ex[0], "--ref_file", ex[1], "--config", cfg), cfg, "gamma")


@pytest.mark.parametrize("argv, flag", [
    (["score", "--gamma", "nan"], "--gamma"),
    (["score", "--gamma", "-1"], "--gamma"),
    (["score", "--alpha", "inf"], "--alpha"),
    (["dureader", "--alpha", "nan"], "--alpha"),
    (["dureader", "--beta", "inf"], "--beta"),
])
def test_non_finite_flags_name_the_flag(capsys, ex, tmp_path, argv, flag):
    files = (["--hyp", ex[0], "--ref", ex[0]] if argv[0] == "score"
             else ["--pred_file", ex[0], "--ref_file", ex[1]])
    rc, out, err = run(capsys, *argv, *files)
    if argv[0] == "dureader":  # --alpha / --beta: the bonus weights' old names, warned first
        err = _deprecated(err, flag)
    one_error(rc, out, err, flag)


def _deprecated(err, *flags):
    """stderr without its deprecation warnings, one per flag (``dureader --alpha/--beta``)."""
    lines = err.splitlines(keepends=True)
    for flag, line in zip(flags, lines):
        assert line.startswith(f"paddle-rougel: warning: {flag} for the DuReader bonus weight is deprecated"), err
    return "".join(lines[len(flags):])


def test_bonus_weight_that_overflows_prints_no_number(capsys, ex):
    rc, out, err = run(capsys, "dureader", "--pred_file", ex[0], "--ref_file", ex[1], "--alpha", "1e308",
                       "--beta", "1e308")
    one_error(rc, out, _deprecated(err, "--alpha", "--beta"), "--alpha", "--beta")  # names where the weights came from


# ---------------------------------------------------------------- 3. tampered state files

def _tamper(path, edit):
    text = path.read_text()
    obj = json.loads(text)
    out = edit(obj)
    path.write_text(out if isinstance(out, str) else json.dumps(obj))


TAMPER = {
    "count 2**63": (lambda o: o["metrics"]["rouge_l"]["states"].update(count=2 ** 63), ["count"]),
    "count 1e400": (lambda o: json.dumps(o).replace('"count": 12', '"count": 1e400'), ["count"]),
    "NaN sum": (lambda o: json.dumps(o).replace('"f_sum": ', '"f_sum": NaN, "x": '), ["NaN"]),
    "Infinity": (lambda o: json.dumps(o).replace('"bp_c": ', '"bp_c": Infinity, "y": '), ["Infinity"]),
    "metric is 5": (lambda o: o["metrics"].update(bleu=5), ["metrics.bleu"]),
    "metric is []": (lambda o: o["metrics"].update(bleu=[]), ["metrics.bleu"]),
    "metrics {}": (lambda o: o.update(metrics={}), ["metrics"]),
    "n_size 10**8": (lambda o: o["metrics"]["bleu"]["config"].update(n_size=10 ** 8), ["n_size"]),
    "n_size true": (lambda o: o["metrics"]["bleu"]["config"].update(n_size=True), ["n_size"]),
    "gamma 1e200": (lambda o: o["metrics"]["rouge_l"]["config"].update(gamma=1e200), []),
    "signature 5": (lambda o: o.update(signature=5), ["signature"]),
    "format 2": (lambda o: o.update(format="paddle-rougel-state/2"), ["format"]),
    "not utf-8": (lambda o: None, []),
}


@pytest.mark.parametrize("case", sorted(TAMPER))
def test_tampered_state_is_one_line(capsys, ex, tmp_path, case):
    good, bad = _states(tmp_path, ex)
    edit, words = TAMPER[case]
    if case == "not utf-8":
        bad.write_bytes(b'{"a": "\xff"}')
    else:
        _tamper(bad, edit)
    capsys.readouterr()
    for argv in ([bad], [good, bad], [bad, good]):  # alone, and on either side of a merge
        rc, out, err = run(capsys, "merge", *argv)
        if case == "gamma 1e200" and rc == 0:  # once F is overflow-proof: a number, and no traceback
            assert "Traceback" not in err and len(argv) == 1
            continue
        one_error(rc, out, err, str(bad), *words)


# ---------------------------------------------------------------- 4. messages naming the right thing

def test_bad_utf8_after_a_bom_names_the_right_line(capsys, ex, tmp_path):
    first = open(ex[0], "rb").readline()
    p = tmp_path / "bom.jsonl"
    p.write_bytes(b"\xef\xbb\xbf" + first + b'{"question_id": "\xff"}\n')
    one_error(*run(capsys, "dureader", "--pred_file", p, "--ref_file", ex[1]), f"{p}:2: not UTF-8")
    h = tmp_path / "h.txt"
    h.write_bytes(b"\xef\xbb\xbfok\n\xff\n")
    one_error(*run(capsys, "score", "--hyp", h, "--ref", h), f"{h}:2: not UTF-8")


def test_binary_config_is_named(capsys, ex, tmp_path):
    cfg = tmp_path / "bin.yaml"
    cfg.write_bytes(b"gamma: 1\n\xd0\xff\xfe\x00\x01")
    one_error(*run(capsys, "dureader", "--pred_file", ex[0], "--ref_file", ex[1], "--config", cfg), cfg)


def test_directory_inputs_say_directory(capsys, ex, tmp_path):
    one_error(*run(capsys, "score", "--hyp", tmp_path, "--ref", ex[0]), tmp_path, "is a directory")
    one_error(*run(capsys, "score", "--hyp", ex[0], "--ref", tmp_path), tmp_path, "is a directory")
    one_error(*run(capsys, "merge", tmp_path), tmp_path, "is a directory")


def test_zip_is_detected_by_case_insensitive_extension_and_magic(capsys, ex, tmp_path):
    rc, want, _ = run(capsys, "dureader", "--pred_file", ex[0], "--ref_file", ex[1])
    for name in ("PRED.ZIP", "pred-zipped.jsonl"):
        z = tmp_path / name
        with zipfile.ZipFile(z, "w", compression=zipfile.ZIP_DEFLATED) as zf:
            zf.write(ex[0], "pred.jsonl")
        rc, out, err = run(capsys, "dureader", "--pred_file", z, "--ref_file", ex[1])
        assert rc == 0 and out == want, err


def test_os_error_without_a_file_name_has_no_empty_prefix(capsys, ex, monkeypatch):
    def boom(args):
        raise OSError(errno.EIO, "Input/output error")
    from paddle_rougel.cli import dureader as cli_dureader

    monkeypatch.setattr(cli_dureader, "cmd_dureader", boom)
    rc, out, err = run(capsys, "dureader", "--pred_file", ex[0], "--ref_file", ex[1])
    one_error(rc, out, err, "Input/output error")
    assert "error: :" not in err


def test_message_with_a_newline_in_a_member_name_stays_one_line(capsys, ex, tmp_path):
    z = tmp_path / "nl.zip"
    with zipfile.ZipFile(z, "w") as zf:
        zf.writestr("a\nb.jsonl", "{oops\n")
    one_error(*run(capsys, "dureader", "--pred_file", z, "--ref_file", ex[1]), "invalid JSON")


@pytest.mark.skipif(SCRIPT is None, reason="console script not installed")
def test_stdout_closed_by_its_reader_is_quiet(ex):
    p = subprocess.Popen([SCRIPT, "dureader", "--pred_file", ex[0], "--ref_file", ex[1], "--format", "table"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    p.stdout.close()  # as `| head -c0`: the reader is gone before the score is printed
    err = p.stderr.read().decode()
    rc = p.wait(120)
    assert rc == 0, err  # quiet: what the reader took is what it wanted
    for word in ("Traceback", "Broken", "error", "Exception"):
        assert word not in err, err


@pytest.mark.skipif(SCRIPT is None, reason="console script not installed")
def test_closed_stdout_is_an_error_not_silence(ex):
    p = subprocess.run(["sh", "-c", '"$0" dureader --pred_file "$1" --ref_file "$2" >&-', SCRIPT, *ex],
                       capture_output=True, text=True, timeout=120)
    one_error(p.returncode, "", p.stderr, "standard output is closed")


# ---------------------------------------------------------------- 5. engine

def test_fallback_warning_is_one_plain_line(capsys, tmp_path, monkeypatch):
    monkeypatch.setattr(cext, "lcs", None)
    monkeypatch.setattr(registry, "_BACKEND", "python")
    monkeypatch.setattr(registry, "_WARNED", False)
    h = write_file(tmp_path, "h.txt", "abc\n")
    rc, out, err = run(capsys, "score", "--hyp", h, "--ref", h, "--format", "json")
    assert rc == 0
    warn = [ln for ln in err.splitlines() if "warning" in ln]
    assert len(warn) == 1 and warn[0].startswith("paddle-rougel: warning: the C LCS kernel is not built"), err
    assert "warnings.warn" not in err and "RuntimeWarning" not in err
    assert err.splitlines()[-1].endswith("|engine:python")


def test_fallback_warning_in_a_real_process(tmp_path):
    h = write_file(tmp_path, "h.txt", "abc\n")
    code = ("import sys; import paddle_rougel.engine.cext as c, paddle_rougel.engine.registry as r; c.lcs = None; r._BACKEND = 'python'; "
            "from paddle_rougel.__main__ import run; "
            f"sys.argv = ['paddle-rougel', 'score', '--hyp', {str(h)!r}, '--ref', {str(h)!r}]; sys.exit(run())")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONWARNINGS"}
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=env)
    assert p.returncode == 0, p.stderr
    warned = [ln for ln in p.stderr.splitlines() if "warn" in ln.lower()]
    assert len(warned) == 1 and warned[0].startswith("paddle-rougel: warning: the C LCS kernel is not built"), \
        p.stderr  # one plain line: no Python warning header, no source line
    assert "engine:python" in p.stderr and "Traceback" not in p.stderr


def test_version_names_the_engine(capsys):
    assert main(["--version"]) == 0
    assert capsys.readouterr().out.strip() == f"paddle-rougel {__version__} (engine: {engine.backend()})"


def test_merge_ignores_the_engine_when_comparing_signatures(capsys, ex, tmp_path):
    a, b = _states(tmp_path, ex)
    _tamper(b, lambda o: o.update(signature=o["signature"].replace("engine:c", "engine:python")))
    capsys.readouterr()
    rc, out, err = run(capsys, "merge", a, b)
    assert rc == 0, err
    assert err.splitlines()[-1].endswith("|engine:c+python")


# ---------------------------------------------------------------- YAML aliases (issue 20.11)

def _laughs(key: str) -> str:
    """A 'billion laughs' config: 9 levels of 9 aliases under ``key`` (a few hundred bytes, 9**9 leaves)."""
    lines = [f"{key}:", "  - &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    for prev, cur in zip("abcdefgh", "bcdefghi"):
        lines.append(f"  - &{cur} [" + ", ".join([f"*{prev}"] * 9) + "]")
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("key", ["gamma", "multi_ref", "lowercase"])
def test_billion_laughs_config_is_one_line_at_once(tmp_path, key):
    """The rejected value was formatted with repr() before truncation: 3 GB and 37 s, then
    "out of memory".  Run under a 1 GiB address-space limit; the error names the file and aliases."""
    cfg = write_file(tmp_path, "bomb.yaml", _laughs(key))
    assert len(cfg.read_bytes()) < 600
    h = write_file(tmp_path, "h.txt", "abc\n")
    code = ("import resource, sys; resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30)); "
            "from paddle_rougel.cli import main; "
            f"sys.exit(main(['score', '--hyp', {str(h)!r}, '--ref', {str(h)!r}, '--config', {str(cfg)!r}]))")
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=env)
    one_error(p.returncode, p.stdout, p.stderr, str(cfg), "line 3", "alias")
    assert len(p.stderr) < 300


def test_rejected_config_values_are_shown_briefly(capsys, ex, tmp_path):
    big = "[" + ", ".join(["[1, 2, 3, 4, 5, 6, 7, 8, 9]"] * 2000) + "]"
    for text in (f"gamma: {big}\n", f"multi_ref: {big}\n", "lowercase: " + "x" * 5000 + "\n",
                 "gamma: " + ":".join(["59"] * 3000) + "\n"):  # a base-60 integer of 17,700 digits
        cfg = write_file(tmp_path, "big.yaml", text)
        rc, out, err = run(capsys, "dureader", "--pred_file", ex[0], "--ref_file", ex[1], "--config", cfg)
        one_error(rc, out, err, cfg)
        assert len(err) < 300, err
