"""rougeW, rougeS4, rougeSU4, rouge1 and stem="rouge155" in the registry against ROUGE-1.5.5.pl.

One-line summaries (120; the registry's ROUGE-W is the script's on one unit), 1-4 references,
-f A (``pooled``) and -f B (``best_recall``), with and without -m: the script's per-evaluation
R and P (``-d``, 5 decimals) must be ours rounded to 5 decimals, F within 1e-5 (the script takes
it from the rounded R and P).
"""
from __future__ import annotations

import os
import random
import re

import pytest

import rouge155_oracle as oracle
from paddle_rougel import compute

TYPES = {"rougeW": "ROUGE-W-1.2", "rougeS4": "ROUGE-S4", "rougeSU4": "ROUGE-SU4", "rouge1": "ROUGE-1"}
LINE = re.compile(r"^sys (ROUGE-\S+) Eval (\d+)\.sys R:(\S+) P:(\S+) F:(\S+)$")


def _cases(n: int, seed: int):
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        cand = " ".join(oracle.random_word(rng) for _ in range(rng.randrange(1, 16)))
        refs = ["cat " + " ".join(oracle.random_word(rng) for _ in range(rng.randrange(0, 16)))
                for _ in range(rng.randrange(1, 5))]
        out.append((cand, refs))
    return out


def _write(root, cases):
    os.makedirs(os.path.join(root, "s"))
    lines = []
    for i, (cand, refs) in enumerate(cases):
        names = []
        for j, text in enumerate([cand] + refs):
            name = os.path.join(root, "s", f"{i}_{j}")
            with open(name, "wb") as f:
                f.write(text.encode("latin-1") + b"\n")
            names.append(name)
        lines.append(" ".join(names))
    path = os.path.join(root, "list.txt")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    return path


@pytest.fixture(scope="module")
def setup(tmp_path_factory):
    root = tmp_path_factory.mktemp("r155m")
    data = oracle.build_data(root / "d")
    cases = _cases(120, 35)
    return data, cases, _write(str(root / "c"), cases)


@pytest.mark.parametrize("mode,stem", [("A", False), ("B", False), ("A", True), ("B", True)])
def test_registry_metrics_match_the_script(setup, mode, stem, monkeypatch):
    data, cases, listing = setup
    args = ["-e", data, "-n", "1", "-x", "-w", "1.2", "-2", "4", "-U", "-d", "-r", "1", "-f", mode]
    rc, out, err = oracle.run_script(args + (["-m"] if stem else []) + ["-z", "SPL", listing, "sys"])
    assert rc == 0, err
    want = {}
    for line in out.decode("latin-1").splitlines():
        m = LINE.match(line)
        if m:
            want[(m.group(1), int(m.group(2)))] = tuple(float(x) for x in m.group(3, 4, 5))
    assert len(want) == 4 * len(cases)
    monkeypatch.setenv("ROUGE_EVAL_HOME", data)
    got = compute([c for c, _ in cases], [r for _, r in cases], rouge_types=list(TYPES), preset="rouge155",
                  multi_ref="pooled" if mode == "A" else "best_recall", stem="rouge155" if stem else False,
                  per_instance=True)["per_instance"]
    bad = []
    for key, tag in TYPES.items():
        for i in range(len(cases)):
            r, p, f = want[(tag, i + 1)]
            ours = (got[f"{key}_recall"][i], got[f"{key}_precision"][i], got[key][i])
            if float("%.5f" % ours[0]) != r or float("%.5f" % ours[1]) != p or abs(ours[2] - f) > 1.5e-5:
                bad.append((tag, i, cases[i], (r, p, f), ours))
    assert not bad, bad[:5]


def test_state_merge_and_cli_types(tmp_path):
    """rougeW / rougeSU4 keep ROUGE-L's state: a merge of two halves is the whole, a state dict
    loads back, and the command line takes the types (--rouge-types, --stem rouge155)."""
    import json
    import subprocess
    import sys

    from paddle_rougel import RougeSU, RougeW

    data = [("the cat sat on the mat", ["a cat sat on a mat"]),
            ("police killed the gunman", ["police kill the gunman", "the gunman was shot"])]
    for cls in (RougeW, RougeSU):
        a, b, whole = cls(), cls(), cls()
        a.add_inst(*data[0])
        b.add_inst(*data[1])
        for d in data:
            whole.add_inst(*d)
        a.merge(b)
        assert a.score() == whole.score()
        back = cls()
        back.load_state_dict(whole.state_dict())
        assert back.score() == whole.score()
    hyp, ref = tmp_path / "h.txt", tmp_path / "r.txt"
    hyp.write_text("the children went home\n")
    ref.write_text("a child goes home\n")
    out = subprocess.run([sys.executable, "-m", "paddle_rougel", "score", "--hyp", str(hyp), "--ref", str(ref),
                          "--rouge-types", "rouge1,rougeW,rougeSU4", "--config", "rouge155", "--stem", "rouge155"],
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    got = json.loads(out.stdout)
    assert got["ROUGE-1"] == 75.0 and got["ROUGE-SU4"] == 55.56      # children/went: child/go (WordNet)
