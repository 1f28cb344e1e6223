"""ROUGE-Lsum memory is bounded (issue 20, finding 9): exact scores within a fixed budget.

The LCS rows of a long candidate sentence against a long reference sentence took
len(ref) * len(cand) / 8 bytes (1.2 GB for two 100,000-character sentences, a
MemoryError at 200,000, per worker thread).  Now a call holds at most
``lsum.SCRATCH_BYTES`` of them, shared by its threads: over that, rows are
checkpointed and recomputed block by block during the walk back, which must read
out exactly the same LCS (rouge-score's tie rule).  Oracles: rouge-score itself
(its pure-Python DP and backtrack) on sizes where it is feasible, and the whole
table (a budget large enough) on long sentences with small alphabets (many ties).
"""
from __future__ import annotations

import functools
import os
import random
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from rouge_score import rouge_scorer as rs

import paddle_rougel
from paddle_rougel import RougeLsum, rouge_lsum
from paddle_rougel.engine import cext
from paddle_rougel.engine import host as engine, lsum


def _sentence(rng: random.Random, n: int, alphabet: str) -> list:
    return [rng.choice(alphabet) for _ in range(n)]


def _summary(rng: random.Random, lengths, alphabet: str) -> list:
    return [_sentence(rng, n, alphabet) for n in lengths]


def _need(cands, ref_lists) -> int:
    """The checkpointed LCS scratch of the largest pair of a batch (the least that works)."""
    return max(lsum.pair_scratch(max(map(len, c)), max(len(s) for r in refs for s in r))
               for c, refs in zip(cands, ref_lists))


def _as_text(summary: list, sep: str) -> str:
    return "\n".join(sep.join(s) for s in summary)


# (engine, threads, input form): every path that computes a ROUGE-Lsum LCS
PATHS = [("c", 1, "tokens"), ("c", 2, "tokens"), ("c", 2, "chars"), ("c", 1, "ascii"), ("python", None, "tokens")]


def _hits(path, cands, ref_lists):
    """Union-LCS hits of every pair, by one engine path (one reference per instance)."""
    name, threads, form = path
    old = engine.backend()
    engine.set_backend(name)
    try:
        if form == "tokens":
            return lsum.lsum_batch(cands, ref_lists, threads=threads).hits
        sep = "" if form == "chars" else " "
        texts = [_as_text(c, sep) for c in cands]
        refs = [[_as_text(r, sep) for r in refs] for refs in ref_lists]
        res = cext.lcs.lsum_text(texts, refs, None, threads, form == "chars",
                                      scratch=lsum.SCRATCH_BYTES)
        assert res is not None, "the C text path did not take the batch"
        return np.frombuffer(res[0], dtype=np.int64)
    finally:
        engine.set_backend(old)


@functools.lru_cache(maxsize=None)
def _rouge_score_case():
    """Long sentences (some over 64 tokens, with short ones for the four-lane path), 2-3
    letter alphabets, and rouge-score's hits (its own DP table and backtrack)."""
    rng = random.Random(20)
    cands, ref_lists, want = [], [], []
    for alphabet in ("ab", "abc"):
        cand = _summary(rng, [rng.randint(300, 700), rng.randint(5, 40), rng.randint(65, 200)], alphabet)
        ref = _summary(rng, [rng.randint(300, 700), rng.randint(5, 40)], alphabet)
        score = rs._summary_level_lcs(ref, cand)
        want.append(round(score.recall * sum(map(len, ref))))
        cands.append(cand)
        ref_lists.append([ref])
    return cands, ref_lists, want


@pytest.mark.parametrize("path", PATHS, ids=["-".join(map(str, p)) for p in PATHS])
def test_checkpointed_walk_equals_rouge_score(path, monkeypatch):
    """The checkpointed walk reads out rouge-score's LCS, ties included."""
    cands, ref_lists, want = _rouge_score_case()
    monkeypatch.setattr(lsum, "SCRATCH_BYTES", _need(cands, ref_lists))  # no room for a whole table
    assert lsum.pair_scratch(700, 700) < 700 * 11 * 8  # (the budget forces the checkpointed rows)
    assert _hits(path, cands, ref_lists).tolist() == want


@pytest.mark.parametrize("seed", range(3))
def test_checkpointed_walk_equals_the_whole_table_on_long_sentences(seed, monkeypatch):
    """Differential: sentences of 1,000-20,000 tokens over 2-4 letters, every C path and
    thread count, budgets that force checkpoints (the largest pair's need: two threads
    share it by running one; twice that: each thread checkpoints) against the default
    (the whole table)."""
    rng = random.Random(seed)
    cands, ref_lists = [], []
    for _ in range(3):
        alphabet = "abcd"[:rng.randint(2, 4)]
        cands.append(_summary(rng, [rng.randint(1000, 20000), rng.randint(1, 64)], alphabet))
        ref_lists.append([_summary(rng, [rng.randint(1000, 20000), rng.randint(65, 300)], alphabet)])
    assert max(len(s) for c in cands for s in c) * max(len(r[0][0]) for r in ref_lists) / 8 <= lsum.SCRATCH_BYTES
    paths = [p for p in PATHS if p[0] == "c"]
    whole = {p: _hits(p, cands, ref_lists).tolist() for p in paths}
    for factor in (1, 2):
        monkeypatch.setattr(lsum, "SCRATCH_BYTES", factor * _need(cands, ref_lists))
        for p in paths:
            assert _hits(p, cands, ref_lists).tolist() == whole[p], (p, factor)
    # the pure-Python engine on the shorter pairs (its rows are Python ints)
    short = [i for i, c in enumerate(cands) if len(c[0]) <= 6000 and len(ref_lists[i][0][0]) <= 6000] or [0]
    sub_c, sub_r = [cands[i] for i in short], [ref_lists[i] for i in short]
    monkeypatch.setattr(lsum, "SCRATCH_BYTES", _need(sub_c, sub_r))
    assert _hits(("python", None, "tokens"), sub_c, sub_r).tolist() == [whole[paths[0]][i] for i in short]


def test_a_pair_over_the_budget_is_refused_up_front_naming_it(monkeypatch):
    rng = random.Random(5)
    long_c, long_r = _sentence(rng, 3000, "ab"), _sentence(rng, 4000, "ab")
    monkeypatch.setattr(lsum, "SCRATCH_BYTES", lsum.pair_scratch(3000, 4000) - 1)
    want = (f"instance 2: candidate sentence 1 (3000 tokens) against reference 1, sentence 2 (4000 tokens): "
            f"ROUGE-Lsum needs {lsum.pair_scratch(3000, 4000)} bytes of LCS scratch, over the limit of "
            f"{lsum.SCRATCH_BYTES} (paddle_rougel.lsum.SCRATCH_BYTES); split these sentences")
    cand = [["a"], long_c]
    refs = [[["b"]], [["a"], ["b"], long_r]]
    for backend in ("c", "python"):
        old = engine.backend()
        engine.set_backend(backend)
        try:
            m = RougeLsum(gamma=1.0)
            m.add_inst([["a", "b"]], [[["a"]]])
            m.add_inst("ab", ["b"])  # buffered: the failing call scores it first
            for form in ("tokens", "chars"):
                if form == "tokens":
                    c, r = cand, refs
                else:
                    c, r = _as_text(cand, ""), [_as_text(x, "") for x in refs]
                with pytest.raises(ValueError) as e:
                    m.add_batch([c], [r])
                assert str(e.value) == want, (backend, form)
                assert m.count == 2 and len(m.per_instance().fmeasure) == 2  # the metric as it was
            text = [" ".join(s) for s in cand]
            with pytest.raises(ValueError, match="^instance 0: candidate sentence 1 .3000 tokens. against "
                                                 "reference 0, sentence 2 .4000 tokens."):
                rouge_lsum(["\n".join(text)], ["\n".join(" ".join(s) for s in refs[1])],
                           tokenize="rouge_score")
        finally:
            engine.set_backend(old)


def test_the_default_budget_is_the_kernels():
    assert cext.lcs.LSUM_SCRATCH == lsum.SCRATCH_BYTES == 256 << 20


def _peak_mb(code: str, c_code: bool) -> int:
    """Run code in a fresh interpreter (this package first on its path) and return its peak
    RSS (VmHWM) in MB.  Without c_code: the checkout's package, without a sanitizer's
    allocator (scripts/sanitize.sh), which keeps freed memory (Python code has nothing
    for it to check; the sanitized extension cannot load without it)."""
    prog = textwrap.dedent(code) + textwrap.dedent("""
        for line in open("/proc/self/status"):
            if line.startswith("VmHWM:"):
                print("PEAK", int(line.split()[1]) // 1024)
    """)
    here = os.path.dirname(os.path.dirname(os.path.abspath(paddle_rougel.__file__ if c_code else __file__)))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([here] + sys.path))
    if not c_code:
        for k in ("LD_PRELOAD", "PYTHONMALLOC"):
            env.pop(k, None)
    p = subprocess.run([sys.executable, "-c", prog], capture_output=True, text=True, timeout=600, env=env)
    assert p.returncode == 0, p.stderr[-3000:]
    out = [line for line in p.stdout.splitlines() if line.startswith(("PEAK", "F "))]
    assert out[0] == "F ok", p.stdout
    return int(out[-1].split()[1])


@pytest.mark.parametrize("form", ["chars", "tokens", "ascii", "python"])
def test_two_100k_sentences_fit_in_600_mb(form):
    """One 100,000-token sentence a side: 1.2 GB of rows before, under 600 MB now (the
    whole process), with the same F as the whole table would give (the same score on
    every path)."""
    peak = _peak_mb(f"""
        import random
        from paddle_rougel import engine, rouge_lsum
        rng = random.Random(0)
        a = "".join(rng.choice("abcdefgh") for _ in range(100_000))
        b = "".join(rng.choice("abcdefgh") for _ in range(100_000))
        form = {form!r}
        if form == "python":
            engine.set_backend("python")
        if form == "tokens":
            f = rouge_lsum([[list(a)]], [[list(b)]]).f_measure[0]
        elif form == "ascii":
            f = rouge_lsum([" ".join(a)], [" ".join(b)], tokenize="rouge_score").f_measure[0]
        else:
            f = rouge_lsum([a], [b]).f_measure[0]
        print("F", "ok" if abs(f - 0.51474) < 1e-12 else f)  # LCS 51,474 (the whole table's)
    """, c_code=form != "python")
    assert peak < 600, f"peak RSS {peak} MB"
