"""``paddle_rougel.rouge155.score`` (the script in Python, texts in memory) against
ROUGE-1.5.5.pl run on the same texts written as SPL files: its printed averages, interval
ends and per-evaluation R, P, F (``-d``) under -s, -l, -b, -t 1, -f B, -m, -M and the paper
flags; and ``compute(aggregate="rouge155")``: the script's bootstrap on compute's figures."""
from __future__ import annotations

import os
import random
import re

import pytest

import rouge155_oracle as oracle
from paddle_rougel import compute
from paddle_rougel.rouge155 import score

TAGS = {"rouge1": "ROUGE-1", "rouge2": "ROUGE-2", "rougeL": "ROUGE-L", "rougeLsum": "ROUGE-L", "rougeW": "ROUGE-W-1.2",
        "rougeS4": "ROUGE-S4", "rougeSU4": "ROUGE-SU4"}
CASES = [
    ("-n 2 -w 1.2 -2 4 -U -c 95 -r 300", {}),
    ("-n 2 -m -s -r 200", dict(stem="rouge155", stopwords=True, rouge_types=["rouge1", "rouge2", "rougeL"])),
    ("-l 12 -n 2 -w 1.2 -r 100", dict(length_limit=12, rouge_types=["rouge1", "rouge2", "rougeL", "rougeW"])),
    ("-b 60 -n 2 -w 1.2 -r 100", dict(byte_limit=60, rouge_types=["rouge1", "rouge2", "rougeL", "rougeW"])),
    ("-t 1 -n 2 -w 1.2 -2 4 -U -r 100", dict(token_level=True)),
    ("-f B -p 0.3 -c 90 -n 2 -w 1.2 -2 4 -U -m -r 100", dict(multi_ref="best_recall", alpha=0.3, confidence=90,
                                                             stem="rouge155")),
    ("-M -n 2 -w 1.2 -2 4 -U -r 100", dict(model_stem=True)),
]


def _texts(rng):
    def sentence():
        return " ".join(oracle.random_word(rng) for _ in range(rng.randrange(2, 14)))
    preds, refs = [], []
    for _ in range(25):
        preds.append("\n".join(sentence() for _ in range(rng.randrange(1, 4))))
        refs.append(["cat " + "\n".join(sentence() for _ in range(rng.randrange(1, 4)))
                     for _ in range(rng.randrange(1, 4))])
    return preds, refs


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    root = tmp_path_factory.mktemp("r155api")
    data = oracle.build_data(root / "full")
    preds, refs = _texts(random.Random(35))
    os.makedirs(root / "s")
    evals = []
    for i, (p, rs) in enumerate(zip(preds, refs)):
        (root / "s" / f"p{i}").write_bytes((p + "\n").encode("utf-8"))
        models = ""
        for j, r in enumerate(rs):
            (root / "s" / f"m{i}_{j}").write_bytes((r + "\n").encode("utf-8"))
            models += f'<M ID="{j}">m{i}_{j}</M>'
        evals.append(f'<EVAL ID="{i + 1}"><PEER-ROOT>{root}/s</PEER-ROOT><MODEL-ROOT>{root}/s</MODEL-ROOT>'
                     f'<INPUT-FORMAT TYPE="SPL"></INPUT-FORMAT><PEERS><P ID="s">p{i}</P></PEERS>'
                     f'<MODELS>{models}</MODELS></EVAL>')
    (root / "config.xml").write_text('<ROUGE_EVAL version="1.5.5">\n' + "\n".join(evals) + "\n</ROUGE_EVAL>\n")
    return data, str(root / "config.xml"), preds, refs


def _script(data, config, flags):
    rc, out, err = oracle.run_script(["-e", data, "-d", "-a"] + flags.split() + [config])
    assert rc == 0, err
    avg, per = {}, {}
    for line in out.decode("latin-1").splitlines():
        m = re.match(r"s (\S+) Average_([RPF]): (\S+) \(\S+ (\S+) - (\S+)\)", line)
        if m:
            avg[(m[1], m[2])] = (m[3], m[4], m[5])
        m = re.match(r"s (\S+) Eval (\d+)\.s R:(\S+) P:(\S+) F:(\S+)", line)
        if m:
            per[(m[1], int(m[2]))] = (float(m[3]), float(m[4]), float(m[5]))
    return avg, per


@pytest.mark.parametrize("flags,kw", CASES)
def test_score_against_the_script(env, flags, kw):
    data, config, preds, refs = env
    avg, per = _script(data, config, flags)
    kw = dict(kw)
    types = kw.pop("rouge_types", ["rouge1", "rouge2", "rougeL", "rougeW", "rougeS4", "rougeSU4"])
    resamples = int(re.search(r"-r (\d+)", flags)[1])
    out = score(preds, refs, rouge_types=types, resamples=resamples, data=data, **kw)
    checked = 0
    for t in types:
        for key, name in (("R", "recall"), ("P", "precision"), ("F", "fmeasure")):
            want = avg[(TAGS[t], key)]
            got = out[t][name], *out[t][name + "_ci"]
            assert tuple("%7.5f" % x for x in got) == want, (flags, t, key)
            checked += 1
        if not kw.get("token_level"):
            for i, row in enumerate(out[t]["per_instance"]):
                assert row == per[(TAGS[t], i + 1)], (flags, t, i)
    assert checked == 3 * len(types)


def test_compute_aggregate_rouge155_is_the_scripts_bootstrap(env):
    """compute(..., aggregate="rouge155") on ROUGE-1.5.5 settings: the script's averages and
    interval ends from compute's own per-instance figures."""
    data, config, preds, refs = env
    avg, _ = _script(data, config, "-n 2 -c 95 -r 1000")
    out = compute(preds, refs, rouge_types=["rouge1", "rouge2", "rougeLsum"], preset="rouge155",
                  aggregate="rouge155")   # the script's ROUGE-L is summary-level: rougeLsum
    for t in ("rouge1", "rouge2", "rougeLsum"):
        for key, suffix in (("R", "_recall"), ("P", "_precision"), ("F", "")):
            lo, hi = out["intervals"][t + suffix]
            assert ("%7.5f" % out[t + suffix], "%7.5f" % lo, "%7.5f" % hi) == avg[(TAGS[t], key)], (t, key)


def test_compute_aggregate_rouge155_takes_no_seed():
    with pytest.raises(ValueError, match="seed= is for aggregate='bootstrap_mid'"):
        compute(["a b"], ["a b"], aggregate="rouge155", seed=1)
    out = compute(["a b c d"], [["a b x d"]], rouge_types=["rouge1"], preset="rouge155", aggregate="rouge155")
    assert out["signature"].endswith("|agg:rouge155") and out["intervals"]["rouge1"] == (0.75, 0.75)


def test_score_rejects_bad_options():
    for kw, msg in ((dict(length_limit=5, byte_limit=5), "not both"), (dict(stem="porter"), "stem must be"),
                    (dict(multi_ref="max_pr"), "multi_ref must be"), (dict(rouge_types=["rougeX"]), "unknown ROUGE type"),
                    (dict(resamples=0), "resamples must be")):
        with pytest.raises(ValueError, match=msg):
            score(["a b"], [["a b"]], **kw)
    with pytest.raises(ValueError, match="instance 0 has no reference"):
        score(["a b"], [[]])
    with pytest.raises(ValueError, match="rougeW of instance 1: the script dies here"):
        score(["a b", "c d"], [["a b"], ["c d", ""]], rouge_types=["rougeW"])
