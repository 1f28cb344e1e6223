"""The HTML report as a person sees it: rendered by a real headless browser (Debian's chromium),
its numbers read back from the browser's DOM and checked against the command line's JSON, no
external reference, no script error; plus the `explain` command.

Chromium is required: without it these tests fail (install it with
``apt-get install chromium``; ``.ci/run`` does)."""
from __future__ import annotations

import html.parser
import json
import os
import re
import shutil
import struct
import subprocess

import pytest

from paddle_rougel.cli import main

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EX = os.path.join(ROOT, "examples", "dureader")
PRED, PRED_B, REF = (os.path.join(EX, f) for f in ("pred.jsonl", "pred_b.jsonl", "ref.jsonl"))
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--enable-logging=stderr", "--v=0"]


def chromium() -> str:
    path = shutil.which("chromium") or shutil.which("chromium-browser")
    if path is None:
        pytest.fail("chromium is not installed: the report is tested in a real browser "
                    "(apt-get install chromium; .ci/run installs it)")
    return path


def browse(page: str, tmp_path, *args: str) -> subprocess.CompletedProcess:
    profile = tmp_path / f"profile{len(os.listdir(tmp_path))}"
    cmd = [chromium(), *FLAGS, f"--user-data-dir={profile}", *args, "file://" + os.path.abspath(page)]
    res = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stderr[-2000:]
    assert not re.search(r"CONSOLE.*(Uncaught|Error)", res.stderr), res.stderr[-2000:]
    return res


class Cells(html.parser.HTMLParser):
    """The text of every element carrying data-metric (and the #status element), by attributes."""

    def __init__(self):
        super().__init__()
        self.cells, self.stack, self.status = [], [], None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if "data-metric" in a or a.get("id") == "status":
            self.stack.append([tag, a, ""])
        elif self.stack:
            self.stack.append([tag, None, ""])

    def handle_endtag(self, tag):
        if not self.stack:
            return
        t, a, text = self.stack.pop()
        if self.stack:
            self.stack[-1][2] += text
        if a is not None:
            if a.get("id") == "status":
                self.status = (a.get("data-errors"), text)
            else:
                self.cells.append((a, " ".join(text.split())))

    def handle_data(self, data):
        if self.stack:
            self.stack[-1][2] += data


def cli_json(capsys, *argv):
    rc = main(list(argv))
    out = capsys.readouterr()
    assert rc == 0, out.err
    return json.loads(out.out)


def interval_text(v):
    if v["low"] is None:  # a group of one instance
        return f"{v['score']:.2f} (1 instance: no interval)"
    return f"{v['score']:.2f} [{v['low']:.2f}, {v['high']:.2f}]"


def dom_of(page, tmp_path):
    dom = browse(page, tmp_path, "--dump-dom").stdout
    p = Cells()
    p.feed(dom)
    assert p.status == ("0", "rendered, errors: 0"), p.status  # the page's own script ran, no error event
    return dom, p.cells


def no_external_references(text: str) -> None:
    assert not re.search(r"""(src|href|xlink:href|action)\s*=\s*["']?\s*(https?:|//|ftp:)""", text, re.I)
    assert not re.search(r"<(link|img|iframe|object|embed|base)\b", text, re.I)
    assert not re.search(r"@import|url\(", text, re.I)


def png_size(path):
    with open(path, "rb") as f:
        head = f.read(24)
    assert head[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", head[16:24])


def test_dureader_report_in_a_browser_shows_the_command_lines_numbers(capsys, tmp_path):
    page = str(tmp_path / "report.html")
    out = cli_json(capsys, "report", "--ref_file", REF, "--pred_file", PRED, "--pred_file", PRED_B, "-o", page)
    assert out == {"report": page, "systems": 2, "instances": 12}
    with open(page, encoding="utf-8") as f:
        source = f.read()
    no_external_references(source)
    dom, cells = dom_of(page, tmp_path)
    no_external_references(dom)
    shown = {}
    for a, text in cells:
        key = (a.get("data-system"), a["data-metric"], a["data-group"], a.get("class", ""))
        assert key not in shown
        shown[key] = text
    # headline: `dureader --confidence` of each system
    for side, pred in (("A", PRED), ("B", PRED_B)):
        want = cli_json(capsys, "dureader", "--pred_file", pred, "--ref_file", REF, "--confidence")
        for m in ("ROUGE-L", "BLEU-4"):
            assert shown[side, m, "(all)", "num"] == interval_text(want[m])
        # every group of every grouping: `dureader --by X --confidence`
        for by in ("question_type", "source", "length"):
            groups = cli_json(capsys, "dureader", "--pred_file", pred, "--ref_file", REF, "--by", by,
                              "--confidence")["groups"]
            for key, g in groups.items():
                for m in ("ROUGE-L", "BLEU-4"):
                    assert shown[side, m, key, "num"] == interval_text(g[m]), (side, by, key, m)
    # per-group differences: `compare --by X`
    for by in ("question_type", "source", "length"):
        cmp = cli_json(capsys, "compare", "--ref_file", REF, "--pred_file", PRED, "--pred_file", PRED_B,
                       "--by", by)["groups"]
        for key, g in cmp.items():
            for m in ("ROUGE-L", "BLEU-4"):
                r = g[m]
                if r is None:  # one instance: not tested
                    assert shown[None, m, key, "num diff"] == "(1 instance: no test)"
                    continue
                assert shown[None, m, key, "num diff"] == f"{r['difference']:+.2f} [{r['low']:.2f}, {r['high']:.2f}]"
                assert shown[None, m, key, "num p"] == f"{r['p_value']:.4f}"
                assert shown[None, m, key, "num holm"] == f"{r['p_holm']:.4f}"
    # the alignments are there: the worst question of A (1009, no prediction) and a marked match
    assert "<mark>首都是北京。</mark>" in dom
    assert dom.count('class="inst"') == 12 + 2 * 10  # 12 worst (all), 10 side-by-side pairs
    # and the page is drawn: a screenshot of the first screen
    shot = tmp_path / "shot.png"
    browse(page, tmp_path, "--window-size=1100,900", f"--screenshot={shot}")
    assert png_size(shot) == (1100, 900) and shot.stat().st_size > 20000


@pytest.mark.parametrize("summary", [False, True])
def test_text_report_rouge_l_and_lsum(capsys, tmp_path, summary):
    hyp, ref, keys = tmp_path / "h.txt", tmp_path / "r.txt", tmp_path / "k.txt"
    hyp.write_text("the cat sat on the mat<n>it was happy\na dog barked\n<b>&\"quotes'\n", encoding="utf-8")
    ref.write_text("a cat sat on a mat<n>the cat was very happy\nthe dog barked loudly\nquotes\n",
                   encoding="utf-8")
    keys.write_text("news\n<b>&chat\nnews\n", encoding="utf-8")
    flags = ["--tokenize", "rouge_score"] + (["--summary-level"] if summary else [])
    page = str(tmp_path / "t.html")
    cli_json(capsys, "report", "--hyp", str(hyp), "--ref", str(ref), "--by", str(keys), "-o", page, *flags)
    dom, cells = dom_of(page, tmp_path)
    no_external_references(dom)
    name = "ROUGE-Lsum" if summary else "ROUGE-L"
    want = cli_json(capsys, "score", "--hyp", str(hyp), "--ref", str(ref), "--confidence", *flags)
    shown = {(a.get("data-system"), a["data-group"]): t for a, t in cells if a["data-metric"] == name}
    assert shown["A", "(all)"] == interval_text(want[name])
    groups = cli_json(capsys, "score", "--hyp", str(hyp), "--ref", str(ref), "--by", str(keys),
                      "--confidence", *flags)["groups"]
    assert shown["A", "news"] == interval_text(groups["news"][name])
    assert "<mark>cat sat on" in dom and "&lt;b&gt;&amp;chat" in dom  # marked, and text escaped
    assert shown["A", "<b>&chat"] == interval_text(groups["<b>&chat"][name])


def test_report_refuses_bad_usage(capsys, tmp_path):
    rc = main(["report", "--ref_file", REF, "--pred_file", PRED, "-o", REF])
    err = capsys.readouterr().err
    assert rc == 2 and "ref" in err.lower()  # the output may not be an input
    rc = main(["report", "--ref_file", REF, "-o", str(tmp_path / "x.html")])
    assert rc == 2 and "--pred_file" in capsys.readouterr().err
    assert not (tmp_path / "x.html").exists()


# ------------------------------------------------------------------ explain

def test_explain_dureader_question(capsys):
    rc = main(["explain", "--pred_file", PRED, "--ref_file", REF, "--question_id", "1004"])
    out = capsys.readouterr().out.splitlines()
    assert rc == 0
    assert out[0] == "question 1004 (ENTITY): ROUGE-L (with the contest bonus) F 0.8714"
    assert out[2:4] == ["candidate: [首都是北京。]", "reference: 中国的[首都是北京。]"]
    assert out[4] == "F per reference: 0.7722, 0.4729"


def test_explain_text_line_and_colour(capsys, tmp_path):
    hyp, ref = tmp_path / "h.txt", tmp_path / "r.txt"
    hyp.write_text("x\nthe cat sat\n", encoding="utf-8")
    ref.write_text("y\na cat sat down\n", encoding="utf-8")
    rc = main(["explain", "--hyp", str(hyp), "--ref", str(ref), "--line", "2", "--tokenize", "whitespace"])
    out = capsys.readouterr().out.splitlines()
    assert rc == 0 and out[2:] == ["candidate: the [cat sat]", "reference: a [cat sat] down"]
    rc = main(["explain", "--hyp", str(hyp), "--ref", str(ref), "--line", "2", "--tokenize", "whitespace",
               "--color", "always"])
    assert "\x1b[1;32mcat sat\x1b[0m" in capsys.readouterr().out
    rc = main(["explain", "--hyp", str(hyp), "--ref", str(ref), "--line", "3"])
    assert rc == 2 and "--line 3" in capsys.readouterr().err
    rc = main(["report", "--hyp", str(hyp), "--ref", str(ref), "-o", str(tmp_path / "r.html"), "--yesno-weight", "2"])
    assert rc == 2 and "--yesno-weight: the DuReader bonus" in capsys.readouterr().err
    rc = main(["explain", "--pred_file", PRED, "--ref_file", REF, "--question_id", "9999"])
    assert rc == 2 and "--question_id 9999" in capsys.readouterr().err


def test_text_report_two_systems_matches_compare(capsys, tmp_path):
    a, b, ref, keys = (tmp_path / n for n in ("a.txt", "b.txt", "r.txt", "k.txt"))
    a.write_text("the cat sat<n>on the mat\na dog\nbirds sing\nrain falls\n", encoding="utf-8")
    b.write_text("a cat sat on<n>a mat\nthe dog barked\nbirds\nthe rain falls hard\n", encoding="utf-8")
    ref.write_text("a cat sat on a mat\nthe dog barked loudly\nbirds sing at dawn\nrain falls hard\n",
                   encoding="utf-8")
    keys.write_text("x\ny\nx\ny\n", encoding="utf-8")
    flags = ["--tokenize", "whitespace", "--summary-level", "--ref", str(ref), "--hyp", str(a), "--hyp", str(b)]
    page = str(tmp_path / "t.html")
    assert cli_json(capsys, "report", *flags, "--by", str(keys), "-o", page)["systems"] == 2
    dom, cells = dom_of(page, tmp_path)
    cmp = cli_json(capsys, "compare", *flags, "--by", str(keys))["groups"]
    shown = {(a_.get("class"), a_["data-group"]): t for a_, t in cells if a_["data-metric"] == "ROUGE-Lsum"}
    for key in ("x", "y"):
        r = cmp[key]["ROUGE-Lsum"]
        assert shown["num diff", key] == f"{r['difference']:+.2f} [{r['low']:.2f}, {r['high']:.2f}]"
        assert shown["num holm", key] == f"{r['p_holm']:.4f}"
    assert dom.count('class="inst"') == 4 + 2 * 4


def test_by_keeps_the_other_outputs(capsys, tmp_path):
    per, state = tmp_path / "per.jsonl", tmp_path / "state.json"
    got = cli_json(capsys, "dureader", "--pred_file", PRED, "--ref_file", REF, "--by", "source",
                   "--per-instance", str(per), "--save-state", str(state))
    assert got["groups"]["search"]["count"] == 6
    assert len(per.read_text(encoding="utf-8").splitlines()) == 12
    assert cli_json(capsys, "merge", str(state)) == {"ROUGE-L": 56.38, "BLEU-4": 36.44}
