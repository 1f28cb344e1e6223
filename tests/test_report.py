"""The HTML report as a person sees it: rendered by a real headless browser (Debian's chromium),
its numbers read back from the browser's DOM and checked against the command line's JSON, no
external reference, no script error; plus the `explain` command.

Chromium is required: without it these tests fail (install it with
``apt-get install chromium``; ``.ci/run`` does)."""
from __future__ import annotations

import html
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
    """The text of every element carrying data-metric (and the probe's #probe element), by attributes."""

    def __init__(self):
        super().__init__()
        self.cells, self.stack, self.status = [], [], None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if "data-metric" in a or a.get("id") == "probe":
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
            if a.get("id") == "probe":
                self.status = (a.get("data-errors"), a.get("data-layout"))
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


# The page has no script of its own; the test adds two to a copy: an error watcher (first in
# <head>: a failed load or a script error counts) and, at the end, a probe that reads the layout
# Chromium made: the characters of the page's own text (outside <bdi> and outside FSI..PDI in
# SVG, where user strings live) must run left to right, line by line; no Latin word of a
# candidate or reference may be cut across lines unless it is wider than its box; no text box
# may overflow.
WATCH = ("<script>window.__errors=0;addEventListener('error',function(){window.__errors++},true);"
         "</script>")
PROBE = r"""<p id="probe" data-errors="-1"></p><script>(function(){
var ISO=/[\u2066\u2067\u2068]/, PDI='\u2069', order=[], broken=[], overflow=[], checked=0, wrapped=0;
function chars(el){var out=[],depth=0,w=document.createTreeWalker(el,NodeFilter.SHOW_TEXT),n;
 while((n=w.nextNode())){var b=n.parentElement.closest('bdi');if(b&&el.contains(b))continue;
  for(var i=0;i<n.length;i++){var c=n.data[i];if(ISO.test(c)){depth++;continue}
   if(c===PDI){if(depth>0)depth--;continue}if(depth>0||/\s/.test(c))continue;
   var r=document.createRange();r.setStart(n,i);r.setEnd(n,i+1);var q=r.getBoundingClientRect();
   if(q.width>0)out.push([c,q.left,q.top,q.height]);}}return out;}
document.querySelectorAll('h1,h2,h3,p,th,td,.ih,.row,svg text').forEach(function(el){
 var cs=chars(el);if(cs.length>1)checked++;
 for(var i=1;i<cs.length;i++){var a=cs[i-1],b=cs[i];
  if(b[2]<a[2]+a[3]/2&&b[1]<a[1]-0.5){order.push(el.tagName+'.'+(el.getAttribute('class')||'')+': '+
   cs.map(function(x){return x[0]}).join('').slice(0,80));break;}}});
document.querySelectorAll('.txt').forEach(function(el){
 if(el.scrollWidth>el.clientWidth+1)overflow.push(el.textContent.slice(0,60));
 var w=document.createTreeWalker(el,NodeFilter.SHOW_TEXT),n;
 while((n=w.nextNode())){var re=/[A-Za-z0-9]+/g,m;while((m=re.exec(n.data))){
  var r=document.createRange();r.setStart(n,m.index);r.setEnd(n,m.index+m[0].length);
  var rs=r.getClientRects(),tw=0;for(var j=0;j<rs.length;j++)tw+=rs[j].width;
  if(rs.length>1){if(tw<el.clientWidth)broken.push(m[0]);else wrapped++;}}}
 if(el.getClientRects().length>1||el.getBoundingClientRect().height>30)wrapped++;});
var s=document.getElementById("probe");s.setAttribute('data-errors',String(window.__errors));
s.setAttribute('data-layout',JSON.stringify({order:order,broken:broken,overflow:overflow,checked:checked,
 wrapped:wrapped}));s.textContent='probed';})();</script>"""


def instrumented(page, tmp_path) -> str:
    """A copy of the page with the test's error watcher and layout probe (the page has no script)."""
    with open(page, encoding="utf-8") as f:
        source = f.read()
    assert "<script" not in source.lower()  # the report itself runs nothing
    assert source.count("<head>") == 1 and source.count("</body>") == 1
    copy = str(tmp_path / ("probed-" + os.path.basename(page)))
    with open(copy, "w", encoding="utf-8") as f:
        f.write(source.replace("<head>", "<head>" + WATCH).replace("</body>", PROBE + "</body>"))
    return copy


def dom_of(page, tmp_path, *flags):
    """(DOM as Chromium laid it out, data-metric cells, the probe's layout findings)."""
    dom = browse(instrumented(page, tmp_path), tmp_path, *flags, "--dump-dom").stdout
    p = Cells()
    p.feed(dom)
    assert p.status is not None and p.status[0] == "0", p.status  # the probe ran, no error event
    layout = json.loads(html.unescape(re.search(r'data-layout="([^"]*)"', dom).group(1)))
    assert layout["checked"] > 10, layout
    assert layout["order"] == [] and layout["broken"] == [] and layout["overflow"] == [], layout
    return dom, p.cells, layout


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
    dom, cells, _ = dom_of(page, tmp_path)
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
    dom, cells, _ = dom_of(page, tmp_path)
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
    rc = main(["report", "--ref_file", REF, "--pred_file", PRED, "--rouge-types", "rouge1", "-o", str(tmp_path / "x.html")])
    assert rc == 2 and "--rouge-types" in capsys.readouterr().err  # the contest has its own two metrics
    assert not (tmp_path / "x.html").exists()


# ------------------------------------------------------------------ issue 32: user strings, headline, text

def texts_of(dom: str, cls: str):
    """The text content of every element whose class is ``cls`` (no nesting of that class)."""
    out = []
    for m in re.finditer(rf'<(\w+) class="{cls}"[^>]*>', dom):
        depth, i, tag = 1, m.end(), m.group(1)
        while depth:
            nxt = re.compile(rf"<(/?){tag}\b[^>]*>").search(dom, i)
            depth += -1 if nxt.group(1) else 1
            i = nxt.end()
        out.append(html.unescape(re.sub(r"<[^>]+>", "", dom[m.end():nxt.start()])))
    return out


def write_jsonl(path, rows):
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")


def test_user_strings_are_isolated_in_the_layout(capsys, tmp_path):
    """A U+202E (right-to-left override) in a question id, a source, a key or a file name may
    reorder that string only: Chromium's layout keeps the page's own text left to right (the
    probe of dom_of), "F 83.56" stays "F 83.56"; a stray PDI or paragraph separator in the string
    cannot end the isolation early."""
    rename = {1004: "q\u202e1004", 1005: "q\u2069\u202e1005", 1006: "q\u2029\u202e1006", 1007: "\u202e1007"}

    def moved(path, out):
        rows = [json.loads(x) for x in open(path, encoding="utf-8")]
        for r in rows:
            r["question_id"] = rename.get(r["question_id"], r["question_id"])
            if r.get("source") == "zhidao":
                r["source"] = "zhi\u202edao"
        write_jsonl(out, rows)
        return str(out)

    ref = moved(REF, tmp_path / "ref.jsonl")
    a, b = moved(PRED, tmp_path / "pred\u202e.jsonl"), moved(PRED_B, tmp_path / "b.jsonl")
    page = str(tmp_path / "report.html")
    cli_json(capsys, "report", "--ref_file", ref, "--pred_file", a, "--pred_file", b, "-o", page)
    dom, cells, layout = dom_of(page, tmp_path)  # asserts the reading order of the page's own text
    text = html.unescape(dom)
    assert "q\u202e1004" in text and "zhi\u202edao" in text and "pred\u202e.jsonl" in text
    # the text report: keys and a key file's name
    hyp, ref_t, keys = tmp_path / "h\u202e.txt", tmp_path / "r.txt", tmp_path / "k\u202e.txt"
    hyp.write_text("the cat sat\nthe dog ran\n\u202eabc 12\n", encoding="utf-8")
    ref_t.write_text("a cat sat\nthe dog ran far\nabc 12 34\n", encoding="utf-8")
    keys.write_text("x\u202e1\ny\u2069\u202e2\nx\u202e1\n", encoding="utf-8")
    page = str(tmp_path / "t.html")
    cli_json(capsys, "report", "--hyp", str(hyp), "--ref", str(ref_t), "--by", str(keys), "-o", page,
             "--tokenize", "whitespace")
    dom, cells, _ = dom_of(page, tmp_path)
    assert {a_["data-group"] for a_, _ in cells} >= {"x\u202e1", "y\u2069\u202e2"}


def test_headline_gives_b_minus_a_as_compare_does(capsys, tmp_path):
    """Two systems: the headline has B - A over all instances with its interval and p-value,
    the numbers `compare` prints for the same files and options (+28.21, p 0.0010 shipped)."""
    for extra in ([], ["--resamples", "300", "--seed", "5", "--confidence", "0.9"]):
        page = str(tmp_path / f"r{len(extra)}.html")
        cli_json(capsys, "report", "--ref_file", REF, "--pred_file", PRED, "--pred_file", PRED_B, "-o", page,
                 *extra)
        dom, cells, _ = dom_of(page, tmp_path)
        shown = {(a["data-metric"], a["class"]): t for a, t in cells if a["data-group"] == "(all)"
                 and "data-system" not in a}
        want = cli_json(capsys, "compare", "--ref_file", REF, "--pred_file", PRED, "--pred_file", PRED_B, *extra)
        for m in ("ROUGE-L", "BLEU-4"):
            r = want[m]
            assert shown[m, "num diff"] == f"{r['difference']:+.2f} [{r['low']:.2f}, {r['high']:.2f}]"
            assert shown[m, "num p"] == f"{r['p_value']:.4f}"
        if not extra:
            assert shown["ROUGE-L", "num diff"].startswith("+28.21") and shown["ROUGE-L", "num p"] == "0.0010"
    # text files, every type asked for
    a, b, ref = (tmp_path / n for n in ("a.txt", "b.txt", "r.txt"))
    a.write_text("the cat sat\na dog\nbirds sing\nrain falls\nit is late\n", encoding="utf-8")
    b.write_text("a cat sat on\nthe dog barked\nbirds\nthe rain falls hard\nit is very late\n", encoding="utf-8")
    ref.write_text("a cat sat on a mat\nthe dog barked\nbirds sing at dawn\nrain falls hard\nit is late\n",
                   encoding="utf-8")
    flags = ["--ref", str(ref), "--hyp", str(a), "--hyp", str(b), "--tokenize", "whitespace",
             "--rouge-types", "rouge1,rouge2,rougeL"]
    page = str(tmp_path / "t.html")
    cli_json(capsys, "report", *flags, "-o", page)
    dom, cells, _ = dom_of(page, tmp_path)
    shown = {(a_["data-metric"], a_["class"]): t for a_, t in cells if a_["data-group"] == "(all)"
             and "data-system" not in a_}
    want = cli_json(capsys, "compare", *flags)
    assert list(want) == ["ROUGE-1", "ROUGE-2", "ROUGE-L"]
    for m, r in want.items():
        assert shown[m, "num diff"] == f"{r['difference']:+.2f} [{r['low']:.2f}, {r['high']:.2f}]"
        assert shown[m, "num p"] == f"{r['p_value']:.4f}"


def test_report_of_one_instance_draws_no_interval_and_no_test(capsys, tmp_path):
    """One instance has nothing to resample: the page says so in the headline (it used to be
    refused as a whole), as the group tables already did."""
    hyp, ref = tmp_path / "h.txt", tmp_path / "r.txt"
    hyp.write_text("a b\n", encoding="utf-8")
    ref.write_text("a c\n", encoding="utf-8")
    page = str(tmp_path / "t.html")
    cli_json(capsys, "report", "--hyp", str(hyp), "--hyp", str(hyp), "--ref", str(ref), "-o", page,
             "--tokenize", "whitespace")
    _, cells, _ = dom_of(page, tmp_path)
    shown = {(a.get("data-system"), a["class"]): t for a, t in cells if a["data-group"] == "(all)"}
    assert shown["A", "num"] == shown["B", "num"] == "50.00 (1 instance: no interval)"
    assert shown[None, "num diff"] == "(1 instance: no test)"


def test_text_report_shows_every_type_scored(capsys, tmp_path):
    """`report --rouge-types rouge1,rouge2,rougeL`: each type's headline and group cells are
    `score --rouge-types ... --confidence [--by]`'s."""
    hyp, ref, keys = tmp_path / "h.txt", tmp_path / "r.txt", tmp_path / "k.txt"
    hyp.write_text("the cat sat on the mat\na dog barked\nbirds sing at dawn\nrain falls\n", encoding="utf-8")
    ref.write_text("a cat sat on a mat\nthe dog barked loudly\nbirds sing\nrain falls hard\n", encoding="utf-8")
    keys.write_text("n\nc\nn\nc\n", encoding="utf-8")
    flags = ["--hyp", str(hyp), "--ref", str(ref), "--tokenize", "whitespace", "--rouge-types", "rouge1,rouge2,rougeL"]
    page = str(tmp_path / "t.html")
    cli_json(capsys, "report", *flags, "--by", str(keys), "-o", page)
    dom, cells, _ = dom_of(page, tmp_path)
    shown = {(a["data-metric"], a["data-group"]): t for a, t in cells if a.get("data-system") == "A"}
    want = cli_json(capsys, "score", *flags, "--confidence")
    groups = cli_json(capsys, "score", *flags, "--confidence", "--by", str(keys))["groups"]
    for m in ("ROUGE-1", "ROUGE-2", "ROUGE-L"):
        assert shown[m, "(all)"] == interval_text(want[m])
        for k in ("n", "c"):
            assert shown[m, k] == interval_text(groups[k][m])
    assert "Distribution of per-instance ROUGE-L F" in dom  # the LCS type orders the instances
    # ROUGE-N alone: its numbers, the texts as written, no alignment drawn
    flags[-1] = "rouge2,rouge1"
    cli_json(capsys, "report", *flags, "-o", page)
    dom, cells, _ = dom_of(page, tmp_path)
    shown = {a["data-metric"]: t for a, t in cells if a.get("data-system") == "A" and a["data-group"] == "(all)"}
    want = cli_json(capsys, "score", *flags, "--confidence")
    assert list(shown) == list(want) == ["ROUGE-2", "ROUGE-1"]
    assert all(shown[m] == interval_text(want[m]) for m in want)
    assert "no alignment drawn" in dom and "<mark>" not in dom and "the cat sat on the mat" in dom


@pytest.mark.parametrize("summary", [False, True])
def test_report_shows_the_text_as_written(capsys, tmp_path, summary):
    """Under rouge_score tokens (lowercased, punctuation dropped, stemmed) the page shows what the
    system wrote, the counted tokens marked in it, not the tokens ("a u s profits")."""
    hyp, ref = tmp_path / "h.txt", tmp_path / "r.txt"
    br = "<n>" if summary else " "  # <n>: a sentence break of ROUGE-Lsum
    hyp.write_text(f"A.U.S. Profits ROSE 5%, analysts said.{br}Shares fell.\nx\n", encoding="utf-8")
    ref.write_text(f"U.S. profits rose 5% (analysts).{br}Shares fell sharply.\ny\n", encoding="utf-8")
    page = str(tmp_path / "t.html")
    flags = ["--tokenize", "rouge_score", "--stem", "true"] + (["--summary-level"] if summary else [])
    cli_json(capsys, "report", "--hyp", str(hyp), "--ref", str(ref), "-o", page, *flags)
    dom, _, _ = dom_of(page, tmp_path)
    assert "a u s profits" not in dom and "profit rose" not in dom
    txts = texts_of(dom, "txt")  # candidate, reference; per instance, the worst first
    sep = "" if summary else " "  # ROUGE-Lsum: one line per sentence (a <br> between them)
    i = txts.index(f"A.U.S. Profits ROSE 5%, analysts said.{sep}Shares fell.")
    assert txts[i + 1] == f"U.S. profits rose 5% (analysts).{sep}Shares fell sharply."
    marks = [html.unescape(m) for m in re.findall(r"<mark>(.*?)</mark>", dom)]
    # one highlight over counted tokens and the gaps between them, case and punctuation as written
    assert "U.S. Profits ROSE 5%, analysts" in marks
    assert any(m.startswith("U.S. profits rose 5% (analysts") for m in marks), marks


def test_report_layout_wraps_words_whole(capsys, tmp_path):
    """Words wrap whole; a token wider than its box breaks (no overflow): checked on Chromium's
    layout at 640 px (the probe of dom_of: no Latin word cut across lines, no box overflowing)."""
    hyp, ref = tmp_path / "h.txt", tmp_path / "r.txt"
    words = "international cooperation between neighbouring municipalities strengthened considerably"
    hyp.write_text(f"{words} {words} {words}\n{'x' * 300} end\n", encoding="utf-8")
    ref.write_text(f"{words} again {words}\n{'x' * 300} end\n", encoding="utf-8")
    page = str(tmp_path / "t.html")
    cli_json(capsys, "report", "--hyp", str(hyp), "--ref", str(ref), "-o", page, "--tokenize", "whitespace")
    _, _, layout = dom_of(page, tmp_path, "--window-size=640,900")
    assert layout["wrapped"] >= 4  # the texts did wrap (and the 300-character token broke)


def test_report_headings_and_no_debug_line(capsys, tmp_path, monkeypatch):
    """`--by my_keys.txt`: a section "By keys from my_keys.txt" (not "By my keys.txt"); no debug
    status line on the page (instrumented() checks it has no script at all)."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "h.txt").write_text("the cat\na dog\n", encoding="utf-8")
    (tmp_path / "r.txt").write_text("a cat\nthe dog\n", encoding="utf-8")
    (tmp_path / "my_keys.txt").write_text("k1\nk2\n", encoding="utf-8")
    cli_json(capsys, "report", "--hyp", "h.txt", "--ref", "r.txt", "--by", "my_keys.txt", "-o", "t.html",
             "--tokenize", "whitespace")
    source = (tmp_path / "t.html").read_text(encoding="utf-8")
    assert "rendered, errors" not in source and 'id="status"' not in source
    dom, _, _ = dom_of(str(tmp_path / "t.html"), tmp_path)
    heads = [html.unescape(re.sub(r"<[^>]+>", "", h)) for h in re.findall(r"<h2>(.*?)</h2>", dom)]
    assert "By keys from my_keys.txt" in heads and "By my keys.txt" not in heads, heads


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
    dom, cells, _ = dom_of(page, tmp_path)
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
