"""Corpus scale: ``deduplicate`` and ``similarity_join`` against rapidfuzz, in one run.

Peers (exact, as issue 34 measured them, timed from the text: rouge-score's tokens mapped to
code points included): a blocked greedy over rapidfuzz ``process.cdist``
(LCSseq lengths of each block against the items kept so far and against itself, rouge-score's
F, then Self-Instruct's loop) for de-duplication, and ``process.cdist`` over every pair for
the join.  Every result is checked first: on a small corpus both sides against the exact
brute force (``rouge_l_matrix``'s all-pairs kernel and float64 F), then the timed runs
against each other (the same kept indices, the same pairs and F).  Ratios are within one
run (the machine is shared and noisy).

    python benchmarks/bench_scale.py            # 30,000 / 100,000 items, a 2,000 x 60,000 join
    python benchmarks/bench_scale.py --quick    # small sizes (the smoke test)
    python benchmarks/bench_scale.py --dask     # paddle_rougel.dask on 1 and 2 worker processes
    python benchmarks/bench_scale.py --zh       # Chinese characters (the default tokenize="char")

Workload: instruction-like lines (a verb, then 4-35 words drawn from a Zipf vocabulary of 8,000,
a full stop), 30% of them copies of an earlier line with one to six word edits;
``tokenize="rouge_score"``, threshold 0.7 (Self-Instruct's).  ``--zh``: lines of 8-60 Chinese
characters drawn from a Zipf distribution over 3,500, 30% of them copies of an earlier line with
one to eight character edits, scored per character (``tokenize="char"``).
"""
from __future__ import annotations

import argparse
import os
import random
import resource
import subprocess
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchkit import cpu_model, score_verdict  # noqa: E402

from paddle_rougel import deduplicate, similarity_join
from paddle_rougel.engine import host as engine  # noqa: E402
from paddle_rougel.core.text import TextSettings  # noqa: E402

T = 0.7


def edited(seq: list, rng: random.Random, edits: int, draw) -> list:
    """``seq`` after ``edits`` random edits, each a deletion, a replacement or an insertion (a
    new token from ``draw()``): a near-copy."""
    for _ in range(edits):
        op = rng.randrange(3)
        if op == 0 and len(seq) > 1:
            seq.pop(rng.randrange(len(seq)))
        elif op == 1:
            seq[rng.randrange(len(seq))] = draw()
        else:
            seq.insert(rng.randint(0, len(seq)), draw())
    return seq


def instructions(n: int, seed: int = 0, vocab_size: int = 8000, dup_rate: float = 0.3) -> list:
    rng = random.Random(seed)
    words = ["w%d" % i for i in range(vocab_size)]
    cum = np.cumsum([1.0 / (i + 1) for i in range(vocab_size)]).tolist()
    verbs = ["Write", "Explain", "List", "Describe", "Give", "Generate", "Summarize", "Classify", "Create", "Tell"]
    out: list = []
    for _ in range(n):
        if out and rng.random() < dup_rate:
            b = rng.choice(out).split()
            out.append(" ".join(edited(b, rng, rng.randint(1, 6), lambda: rng.choices(words, cum_weights=cum)[0])))
        else:
            k = rng.randint(4, 35)
            out.append(rng.choice(verbs) + " " + " ".join(rng.choices(words, cum_weights=cum, k=k)) + ".")
    return out


def near_copies(corpus: list, fresh: list, seed: int, share: float = 0.25) -> list:
    """Benchmark questions for decontamination: ``share`` of them a corpus line with one to six
    word edits, the rest fresh lines."""
    rng = random.Random(seed)
    out = []
    for q in fresh:
        if rng.random() < share:
            b = rng.choice(corpus).split()
            for _ in range(rng.randint(1, 6)):
                k = rng.randrange(len(b))
                if rng.random() < 0.5 and len(b) > 1:
                    b.pop(k)
                else:
                    b.insert(k, rng.choice(b))
            q = " ".join(b)
        out.append(q)
    return out


def as_chars(texts: list) -> list:
    """rouge-score's tokens, each word one code point (what rapidfuzz compares fastest)."""
    tok = TextSettings("rouge_score").tokenizer()
    vocab: dict = {}
    return ["".join(chr(0x100 + vocab.setdefault(w, len(vocab))) for w in tok(s)) for s in texts]


def rouge_f(lcs: np.ndarray, m: np.ndarray, n: np.ndarray) -> np.ndarray:
    """rouge-score's F: p = lcs / m, r = lcs / n, 2 p r / (p + r) (0 when lcs is 0)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        p, r = lcs / m, lcs / n
        f = 2 * p * r / (p + r)
    return np.where(lcs > 0, f, 0.0)


def rapidfuzz_greedy(strs: list, t: float = T, block: int = 1024) -> list:
    """The blocked greedy over rapidfuzz process.cdist (exact LCS), Self-Instruct's loop."""
    from rapidfuzz import process
    from rapidfuzz.distance import LCSseq

    lens = np.array([len(s) for s in strs], dtype=np.float64)
    kept: list = []
    for lo in range(0, len(strs), block):
        blk = strs[lo:lo + block]
        m = lens[lo:lo + block]
        best = np.zeros(len(blk))
        if kept:
            lcs = process.cdist(blk, [strs[k] for k in kept], scorer=LCSseq.similarity, dtype=np.int32, workers=-1)
            best = rouge_f(lcs, m[:, None], lens[kept][None, :]).max(axis=1)
        inner = rouge_f(process.cdist(blk, blk, scorer=LCSseq.similarity, dtype=np.int32, workers=-1),
                        m[:, None], m[None, :])
        here: list = []
        for i in range(len(blk)):
            if best[i] <= t and not (here and inner[i, here].max() > t):
                here.append(i)
        kept.extend(lo + i for i in here)
    return kept


def chinese(n: int, seed: int = 0, dup_rate: float = 0.3) -> list:
    rng = random.Random(seed)
    chars = [chr(0x4E00 + i) for i in range(3500)]
    cum = np.cumsum([1.0 / (i + 1) for i in range(3500)]).tolist()
    out: list = []
    for _ in range(n):
        if out and rng.random() < dup_rate:
            s = list(rng.choice(out))
            out.append("".join(edited(s, rng, rng.randint(1, 8), lambda: rng.choices(chars, cum_weights=cum)[0])))
        else:
            out.append("".join(rng.choices(chars, cum_weights=cum, k=rng.randint(8, 60))))
    return out


def cdist_join(qs: list, cs: list, t: float = T) -> list:
    """[left, right, F] of every pair with rouge-score's F >= t, by rapidfuzz process.cdist
    (exact LCS of the str's characters) in blocks of 256 queries."""
    from rapidfuzz import process
    from rapidfuzz.distance import LCSseq

    ql, cl = np.array([len(s) for s in qs], float), np.array([len(s) for s in cs], float)
    out = []
    for lo in range(0, len(qs), 256):
        lcs = process.cdist(qs[lo:lo + 256], cs, scorer=LCSseq.similarity, dtype=np.int32, workers=-1)
        f = rouge_f(lcs, ql[lo:lo + 256, None], cl[None, :])
        a, b = np.nonzero(f >= t)
        out.append((a + lo, b, f[a, b]))
    return [np.concatenate(k) for k in zip(*out)]


def brute_f64(queries: list, choices: list, chars: bool = False) -> np.ndarray:
    """Every pair's float64 F from the all-pairs kernel (rouge_l_matrix's, unrounded);
    rouge-score's tokens, or (chars) every character a token."""
    from paddle_rougel import _lcs

    tok = TextSettings("rouge_score").tokenizer()
    toks = list(queries + choices) if chars else [tok(s) for s in queries + choices]
    lcs, lens = _lcs.lcs_matrix(toks, len(queries), threads=2)
    return np.frombuffer(_lcs.score_matrix(lcs, lens, len(queries), 0.5, False, 2, True)[0]).reshape(len(queries), -1)


def brute_kept(texts: list, t: float = T, chars: bool = False) -> list:
    """The exact brute force: every pair's float64 F, then Self-Instruct's loop."""
    f = brute_f64(texts, texts, chars)
    kept: list = []
    for i in range(len(texts)):
        if not kept or f[i, kept].max() <= t:
            kept.append(i)
    return kept


def timed(fn):
    t0 = time.perf_counter()
    out = fn()
    return time.perf_counter() - t0, out


def peak_dedup(n: int) -> tuple:
    """(seconds, peak RSS bytes, kept count) of deduplicate(best='dropped') on n items, in a
    fresh process (its peak is its own)."""
    # VmHWM: this process's own peak (ru_maxrss would keep the forking parent's across exec)
    code = ("import sys, time; sys.path.insert(0, %r); import bench_scale as b; "
            "x = b.instructions(%d, seed=1); t0 = time.perf_counter(); "
            "d = b.deduplicate(x, (), b.T, tokenize='rouge_score', best='dropped'); "
            "hwm = [ln for ln in open('/proc/self/status') if ln.startswith('VmHWM:')][0].split()[1]; "
            "print(time.perf_counter() - t0, int(hwm) * 1024, len(d.kept))"
            % (os.path.dirname(os.path.abspath(__file__)), n))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    return float(out[0]), int(out[1]), int(out[2])


def dask_scaling(n: int, n_q: int, n_c: int) -> int:
    """deduplicate and similarity_join on LocalClusters of 1 and 2 worker processes (one thread
    each), each result checked against the in-process call first."""
    from distributed import Client, LocalCluster

    import paddle_rougel.api.dask as prd

    x = instructions(n, seed=1)
    corpus = instructions(n_c, seed=3)
    queries = near_copies(corpus, instructions(n_q, seed=4), seed=5)
    want_d = deduplicate(x, (), T, tokenize="rouge_score", best="dropped")
    want_j = similarity_join(queries, corpus, T, tokenize="rouge_score")
    failures = []
    print(f"\n| Dask LocalCluster (1 thread a worker) | dedup {n:,} (best='dropped') s | join {n_q:,} x {n_c:,} s |"
          "\n|---|---:|---:|")
    for workers in (1, 2):
        with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None) as lc, \
                Client(lc) as client:
            prd.similarity_join(queries[:50], corpus[:500], T, tokenize="rouge_score")  # warm the workers
            t_d, d = timed(lambda: prd.deduplicate(x, (), T, tokenize="rouge_score", best="dropped", client=client))
            t_j, j = timed(lambda: prd.similarity_join(queries, corpus, T, tokenize="rouge_score", client=client))
        if d.kept.tolist() != want_d.kept.tolist() or not np.array_equal(j.f, want_j.f):
            failures.append(f"dask with {workers} workers vs in-process")
        print(f"| {workers} worker process{'es' if workers > 1 else ''} | {t_d:.2f} | {t_j:.2f} |")
    return score_verdict(failures)


def chinese_figures(n_check: int, n_dedup: int, n_q: int, n_c: int) -> int:
    """deduplicate and similarity_join on Chinese characters against the same rapidfuzz peers
    (which compare the str's characters as they are), each checked first."""
    print(f"# bench_scale --zh: {cpu_model()}, {os.cpu_count()} cores, engine {engine.backend()}, "
          f"threads {engine.default_threads()}")
    failures = []
    small = chinese(n_check, seed=2)
    want = brute_kept(small, chars=True)
    if rapidfuzz_greedy(small) != want or deduplicate(small, (), T).kept.tolist() != want:
        failures.append("Chinese dedup vs brute force")
    print(f"checked on {n_check} items: {len(want)} kept by the brute force")
    x = chinese(n_dedup, seed=1)
    t_rf, kept_rf = timed(lambda: rapidfuzz_greedy(x))
    t_d, d = timed(lambda: deduplicate(x, (), T))
    if d.kept.tolist() != kept_rf:
        failures.append(f"Chinese deduplicate of {n_dedup} vs the rapidfuzz greedy")
    both = chinese(n_c + n_q, seed=3)  # the last n_q lines as queries: 30% near-copies of the corpus's
    corpus, queries = both[:n_c], both[n_c:]
    t_cd, (a, b, f) = timed(lambda: cdist_join(queries, corpus))
    t_j, jn = timed(lambda: similarity_join(queries, corpus, T))
    if a.tolist() != jn.left.tolist() or b.tolist() != jn.right.tolist() or not np.array_equal(f, jn.f):
        failures.append("Chinese similarity_join vs cdist")
    print(f"\n| Chinese characters, threshold {T} | rapidfuzz s | paddle-rougel s | ratio |\n|---|---:|---:|---:|")
    print(f"| dedup of {n_dedup:,} (kept {len(kept_rf):,}) vs the blocked greedy | {t_rf:.2f} | {t_d:.2f} | "
          f"**{t_rf / t_d:.1f}x** |")
    print(f"| join {n_q:,} x {n_c:,} ({len(jn.f):,} pairs) vs cdist | {t_cd:.2f} | {t_j:.2f} | **{t_cd / t_j:.1f}x** |")
    return score_verdict(failures)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="small sizes (smoke test)")
    ap.add_argument("--dask", action="store_true", help="only the Dask figures (1 and 2 worker processes)")
    ap.add_argument("--zh", action="store_true", help="only the Chinese-character figures")
    args = ap.parse_args(argv)
    if args.zh:
        return chinese_figures(*((300, 2000, 200, 2000) if args.quick else (2000, 30000, 2000, 60000)))
    if args.dask:
        return dask_scaling(*((3000, 200, 3000) if args.quick else (100000, 2000, 60000)))
    n_check, n_dedup, n_big, (n_q, n_c) = ((600, 3000, 6000, (200, 3000)) if args.quick else
                                           (3000, 30000, 100000, (2000, 60000)))
    print(f"# bench_scale: {cpu_model()}, {os.cpu_count()} cores, engine {engine.backend()}, "
          f"threads {engine.default_threads()}")
    failures = []
    small = instructions(n_check, seed=2)
    want = brute_kept(small)
    if rapidfuzz_greedy(as_chars(small)) != want:
        failures.append("rapidfuzz greedy vs brute force")
    for mode in ("exact", "dropped"):
        if deduplicate(small, (), T, tokenize="rouge_score", best=mode).kept.tolist() != want:
            failures.append(f"deduplicate(best={mode!r}) vs brute force")
    js = similarity_join(small[:400], small, T, tokenize="rouge_score")
    full = brute_f64(small[:400], small)
    i, j = np.nonzero(full >= T)
    if i.tolist() != js.left.tolist() or j.tolist() != js.right.tolist() or not np.array_equal(js.f, full[i, j]):
        failures.append("similarity_join vs rouge_l_matrix")
    print(f"checked on {n_check} items: {len(want)} kept by the brute force")

    x = instructions(n_dedup, seed=1)
    t_rf, kept_rf = timed(lambda: rapidfuzz_greedy(as_chars(x)))  # from the text, as deduplicate
    t_d, d = timed(lambda: deduplicate(x, (), T, tokenize="rouge_score", best="dropped"))
    t_e, e = timed(lambda: deduplicate(x, (), T, tokenize="rouge_score", best="exact"))
    if d.kept.tolist() != kept_rf or e.kept.tolist() != kept_rf:
        failures.append(f"deduplicate of {n_dedup} vs the rapidfuzz greedy")
    print(f"\n| dedup of {n_dedup:,} items (kept {len(kept_rf):,}) | s | x greedy |\n|---|---:|---:|")
    print(f"| rapidfuzz blocked greedy (cdist) | {t_rf:.2f} | 1.00 |")
    print(f"| deduplicate(best='dropped') | {t_d:.2f} | **{t_rf / t_d:.1f}** |")
    print(f"| deduplicate() (every best exact) | {t_e:.2f} | {t_rf / t_e:.1f} |")

    t_big, peak, kept_big = peak_dedup(n_big)
    extrap = t_rf * (n_big / n_dedup) ** 2
    print(f"\n{n_big:,} items: deduplicate(best='dropped') {t_big:.2f} s, peak RSS {peak / 2**30:.2f} GiB, "
          f"kept {kept_big:,}; the greedy extrapolated (quadratic) {extrap:.0f} s: "
          f"**{t_big / extrap:.3f}** of it")

    corpus = instructions(n_c, seed=3)
    queries = near_copies(corpus, instructions(n_q, seed=4), seed=5)
    def from_text():  # tokens to code points timed too, as similarity_join reads the text
        both = as_chars(queries + corpus)
        return cdist_join(both[:n_q], both[n_q:])

    t_cd, (a, b, f) = timed(from_text)
    t_j, jn = timed(lambda: similarity_join(queries, corpus, T, tokenize="rouge_score"))
    if a.tolist() != jn.left.tolist() or b.tolist() != jn.right.tolist() or not np.array_equal(f, jn.f):
        failures.append("similarity_join vs cdist")
    print(f"\n| join {n_q:,} x {n_c:,} ({len(jn.f):,} pairs >= {T}) | s | x cdist |\n|---|---:|---:|")
    print(f"| rapidfuzz process.cdist | {t_cd:.2f} | 1.00 |")
    print(f"| similarity_join | {t_j:.2f} | **{t_cd / t_j:.1f}** |")
    print(f"\npeak RSS of this process {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20:.2f} GiB")
    return score_verdict(failures)


if __name__ == "__main__":
    sys.exit(main())
