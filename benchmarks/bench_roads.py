"""The workloads of issue 21, each against its fastest peer, side by side in one process.

Run by path (never ``import benchmarks``)::

    python benchmarks/bench_roads.py            # the issue's sizes
    python benchmarks/bench_roads.py --quick    # smoke test, a few seconds

Rows (seeded workloads; every timed row is the best of --repeat runs; the peers' results
are checked equal to ours first, and the script exits non-zero on any difference):

1. ``english``: 30,000 English pairs of 20-60 words (Zipf draws from bench_lsum's common
   words, capitals and punctuation; the candidate an edited copy), ROUGE-L F1 end to end
   from Python strs: rouge-score-rs ``score_batch`` (native, all cores) against
   ``compute(tokenize="rouge_score", gamma=1)`` and ``compute(tokenize="whitespace")``.
2. ``english-ids``: the same pairs with every rouge-score word mapped to one code point
   (engine only): rapidfuzz ``cpdist(scorer=LCSseq.similarity)`` against ``engine.lcs_pairs``
   and ``rouge_l``; then the same ids as lists of Python ints, rapidfuzz ``cpdist`` against
   ``engine.lcs_batch`` (no target: issue 21's is on the strs).
3. ``chinese``: 30,000 short Chinese pairs (5-30 characters), every character a token:
   rapidfuzz ``cpdist`` on the strs against ``rouge_l``.
4. ``all-pairs``: 2,000 instructions x a pool of 2,000 (Self-Instruct's de-duplication),
   rouge-score tokens: rapidfuzz ``process.cdist`` from the same text (tokenized, words mapped
   to code points, F from the LCS) against ``rouge_l_matrix`` and ``deduplicate``.
5. ``update``: ``RougeL(vocab=..., paddlenlp_compat=True).update(numpy logits (256, 128, 1000),
   label, mask)`` against paddlenlp's ``RougeL(vocab=...).update`` (timed once: about 1 s).

Each of our rows also gives its LCS cells (len(a) * len(b) summed over the pairs) per second
per thread, and that as a fraction of the bit-parallel ceiling per core that issue 21 measured
on this project's machine (AMD EPYC Zen 4: AVX2 604 G cells/s; AVX-512 698; scalar 53-133).

Targets (issue 21; printed as met / NOT met, not an exit status): english >= 5x
rouge-score-rs, chinese >= 1.5x rapidfuzz, all-pairs >= 1.5x rapidfuzz, update >= 100x
paddlenlp.
"""
from __future__ import annotations

import argparse
import itertools
import os
import platform
import random
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import bench_lsum  # noqa: E402  (sibling files, unique names: the English vocabulary)
from benchkit import best_time, cpu_model, max_abs_diff, score_verdict  # noqa: E402


def english_pairs(n: int, seed: int):
    """30,000-style English pairs of 20-60 words (bench_lsum.english_pairs)."""
    return bench_lsum.english_pairs(n, seed, (20, 60))


def chinese_pairs(n: int, seed: int):
    rng = random.Random(seed)
    chars = [chr(0x4E00 + k) for k in range(3000)]
    common = chars[:300]

    def sent(k):
        return "".join(rng.choice(common if rng.random() < 0.7 else chars) for _ in range(k))

    refs = [sent(rng.randint(5, 30)) for _ in range(n)]
    cands = ["".join(c for c in r if rng.random() < 0.8) + sent(rng.randint(0, 5)) for r in refs]
    return cands, refs


def instructions(n: int, seed: int):
    rng = random.Random(seed)
    vocab = bench_lsum.vocabulary("common")
    weights = list(itertools.accumulate(1.0 / (k + 1) for k in range(len(vocab))))
    verbs = ["Write", "Explain", "List", "Describe", "Give", "Summarize", "Classify", "Translate"]
    out = []
    for _ in range(n):
        words = rng.choices(vocab, cum_weights=weights, k=rng.randint(4, 40))
        out.append(rng.choice(verbs) + " " + " ".join(words) + rng.choice(".?:"))
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=30_000, help="pairs of the pair workloads")
    ap.add_argument("--pool", type=int, default=2_000, help="instructions and pool size (all pairs)")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--quick", action="store_true", help="small smoke run")
    ap.add_argument("--rows", default="english,english-ids,chinese,all-pairs,update")
    args = ap.parse_args(argv)
    if args.quick:
        args.n, args.pool, args.repeat = 300, 60, 1
    rows_wanted = set(args.rows.split(","))

    import numpy as np
    import rapidfuzz
    import rouge_score_rs
    from rapidfuzz import process
    from rapidfuzz.distance import LCSseq
    from rouge_score import rouge_scorer

    import paddle_rougel
    from paddle_rougel import _lcs, compute, deduplicate, rouge_l, rouge_l_matrix
    from paddle_rougel.engine import host as engine
    from paddle_rougel.core.text import TextSettings

    print("## Machine")
    print(f"- CPU: {cpu_model()}, {os.cpu_count()} logical cores; our threads: {engine.default_threads()}; "
          f"AVX2 lanes: {'yes' if _lcs.simd_level() else 'no'}")
    print(f"- Python {platform.python_version()}, numpy {np.__version__}, paddle-rougel "
          f"{paddle_rougel.__version__} (engine {engine.backend()}), rouge-score-rs "
          f"{rouge_score_rs.__version__}, rapidfuzz {rapidfuzz.__version__}")
    print()
    failures, table, targets = [], [], []
    threads = engine.default_threads()
    cells: dict = {}  # workload -> LCS cells

    def check(name, got, want, tol=0.0):
        diff = max_abs_diff(got, want)
        print(f"- check {name}: max |difference| {diff:.3g}")
        if diff > tol:
            failures.append(name)

    def target(name, ratio, want):
        targets.append(f"- {name}: {ratio:.2f}x (target >= {want}x): {'met' if ratio >= want else 'NOT met'}")

    rs_tok = TextSettings("rouge_score").tokenizer()
    if "english" in rows_wanted or "english-ids" in rows_wanted:
        cands, refs = english_pairs(args.n, args.seed)
        scorer = rouge_score_rs.RougeScorer(["rougeL"])
        t_rs, out_rs = best_time(lambda: scorer.score_batch(refs, cands), args.repeat)
        f_rs = [s["rougeL"].fmeasure for s in out_rs]
        if "english" in rows_wanted:
            t_rsc, ours = best_time(lambda: compute(cands, refs, tokenize="rouge_score", gamma=1,
                                                    per_instance=True), args.repeat)
            t_ws, ours_ws = best_time(lambda: compute(cands, refs, tokenize="whitespace", gamma=1,
                                                      per_instance=True), args.repeat)
            check("english: compute(rouge_score) vs rouge-score-rs", ours["per_instance"]["rougeL"], f_rs)

            class Split:
                def tokenize(self, text):
                    return text.split()

            gs = rouge_scorer.RougeScorer(["rougeL"], tokenizer=Split())
            k = min(300, len(cands))
            check("english: compute(whitespace) vs rouge-score with str.split (first %d)" % k,
                  ours_ws["per_instance"]["rougeL"][:k], [gs.score(r, c)["rougeL"].fmeasure
                                                          for c, r in zip(cands[:k], refs[:k])])
            cells["english"] = sum(len(rs_tok(c)) * len(rs_tok(r)) for c, r in zip(cands, refs))
            table.append(("english", "rouge-score-rs `score_batch` (native, all cores)", t_rs, t_rs))
            table.append(("english", '`compute(tokenize="rouge_score")`', t_rsc, t_rs))
            table.append(("english", '`compute(tokenize="whitespace")`', t_ws, t_rs))
            target("english: compute(rouge_score) vs rouge-score-rs", t_rs / t_rsc, 5)
            target("english: compute(whitespace) vs rouge-score-rs", t_rs / t_ws, 5)
        if "english-ids" in rows_wanted:
            vocab: dict = {}

            def enc(text):
                return "".join(chr(vocab.setdefault(w, len(vocab) + 1)) for w in rs_tok(text))

            ce, re_ = [enc(c) for c in cands], [enc(r) for r in refs]
            t_rf, lcs_rf = best_time(lambda: process.cpdist(ce, re_, scorer=LCSseq.similarity, workers=-1),
                                     args.repeat)
            t_eng, res = best_time(lambda: engine.lcs_pairs(ce, re_), args.repeat)
            t_rl, _ = best_time(lambda: rouge_l(ce, re_), args.repeat)
            check("english-ids: lcs vs rapidfuzz", res.lcs, lcs_rf)
            cells["english-ids"] = sum(len(c) * len(r) for c, r in zip(ce, re_))
            table.append(("english-ids", "rapidfuzz `cpdist` (LCSseq.similarity, all cores)", t_rf, t_rf))
            table.append(("english-ids", "`engine.lcs_pairs`", t_eng, t_rf))
            table.append(("english-ids", "`rouge_l` (F, P, R)", t_rl, t_rf))
            target("english-ids: lcs_pairs vs rapidfuzz cpdist", t_rf / t_eng, 1.5)
            # the same ids as lists of Python ints (lcs_batch: tokens.c's int table, the lanes)
            ci, ri = [[ord(x) for x in c] for c in ce], [[ord(x) for x in r] for r in re_]
            rli = [[r] for r in ri]
            t_rfl, lcs_rfl = best_time(lambda: process.cpdist(ci, ri, scorer=LCSseq.similarity, workers=-1),
                                       args.repeat)
            t_bl, res_l = best_time(lambda: engine.lcs_batch(ci, rli), args.repeat)
            check("english-ids: lcs_batch on int lists vs rapidfuzz", res_l.lcs, lcs_rfl)
            table.append(("english-ids", "rapidfuzz `cpdist` on lists of ints (all cores)", t_rfl, t_rfl))
            table.append(("english-ids", "`engine.lcs_batch` on lists of ints", t_bl, t_rfl))

    if "chinese" in rows_wanted:
        zc, zr = chinese_pairs(args.n, args.seed + 1)
        t_rf, lcs_rf = best_time(lambda: process.cpdist(zc, zr, scorer=LCSseq.similarity, workers=-1),
                                 args.repeat)
        t_rl, out = best_time(lambda: rouge_l(zc, zr), args.repeat)
        lens_c = np.array([len(c) for c in zc], dtype=np.float64)
        p_rf = np.where(lens_c > 0, np.asarray(lcs_rf) / np.maximum(lens_c, 1), 0.0)
        check("chinese: rouge_l P vs rapidfuzz LCS / len(cand)", out.p_measure, p_rf)
        cells["chinese"] = sum(len(c) * len(r) for c, r in zip(zc, zr))
        table.append(("chinese", "rapidfuzz `cpdist` (LCSseq.similarity, all cores)", t_rf, t_rf))
        table.append(("chinese", "`rouge_l` (F, P, R)", t_rl, t_rf))
        target("chinese: rouge_l vs rapidfuzz cpdist", t_rf / t_rl, 1.5)

    if "all-pairs" in rows_wanted:
        new, pool = instructions(args.pool, args.seed + 2), instructions(args.pool, args.seed + 3)

        def rf_matrix():
            vocab: dict = {}

            def enc(text):
                return "".join(chr(vocab.setdefault(w, len(vocab) + 1)) for w in rs_tok(text))

            qs, cs = [enc(t) for t in new], [enc(t) for t in pool]
            lcs = process.cdist(qs, cs, scorer=LCSseq.similarity, workers=-1, dtype=np.int32)
            ql = np.array([len(x) for x in qs], dtype=np.float64)
            cl = np.array([len(x) for x in cs], dtype=np.float64)
            p = np.where(ql[:, None] > 0, lcs / np.maximum(ql[:, None], 1), 0.0)
            r = np.where(cl[None, :] > 0, lcs / np.maximum(cl[None, :], 1), 0.0)
            with np.errstate(invalid="ignore", divide="ignore"):
                f = np.where((p > 0) & (r > 0), 2 * p * r / (p + r), 0.0)
            return f.astype(np.float32)

        t_rf, f_rf = best_time(rf_matrix, args.repeat)
        t_m, f_m = best_time(lambda: rouge_l_matrix(new, pool, tokenize="rouge_score"), args.repeat)
        t_d, _ = best_time(lambda: deduplicate(new, pool, 0.7, tokenize="rouge_score"), args.repeat)
        check("all-pairs: rouge_l_matrix vs rapidfuzz cdist F", f_m.ravel(), f_rf.ravel())
        gs = rouge_scorer.RougeScorer(["rougeL"])
        rng = random.Random(0)
        sampled = [(rng.randrange(len(new)), rng.randrange(len(pool))) for _ in range(200)]
        check("all-pairs: rouge_l_matrix vs rouge-score (200 sampled cells)",
              [f_m[i, j] for i, j in sampled],
              [np.float32(gs.score(pool[j], new[i])["rougeL"].fmeasure) for i, j in sampled])
        cells["all-pairs"] = sum(len(rs_tok(x)) for x in new) * sum(len(rs_tok(x)) for x in pool)
        table.append(("all-pairs", "rapidfuzz `process.cdist` from the text (all cores)", t_rf, t_rf))
        table.append(("all-pairs", '`rouge_l_matrix(tokenize="rouge_score")`', t_m, t_rf))
        table.append(("all-pairs", "`deduplicate` (pool + kept items, threshold 0.7)", t_d, t_rf))
        target("all-pairs: rouge_l_matrix vs rapidfuzz cdist", t_rf / t_m, 1.5)

    if "update" in rows_wanted:
        from paddle_rougel import RougeL
        from paddlenlp.metrics import RougeL as PaddleNLPRougeL

        b, t, v = (256, 128, 1000) if not args.quick else (8, 16, 50)
        rng = np.random.default_rng(args.seed)
        logits = rng.standard_normal((b, t, v)).astype("float32")
        label = rng.integers(0, v, (b, t, 1)).astype("int64")
        mask = (np.arange(t)[None, :] < rng.integers(t // 2, t + 1, b)[:, None]).astype("int64")
        vocab = {i: f"tok{i}" for i in range(v)}

        def ours():
            m = RougeL(vocab=vocab, paddlenlp_compat=True)
            m.update(logits, label, mask)
            return m.per_instance().fmeasure

        def theirs():
            m = PaddleNLPRougeL(vocab=vocab)
            m.update(logits, label, mask)
            return m.inst_scores

        t_ours, s_ours = best_time(ours, args.repeat)
        t_nlp, s_nlp = best_time(theirs, 1)
        t_arg, _ = best_time(lambda: np.argmax(logits, axis=2), args.repeat)
        check("update: per-instance F vs paddlenlp", s_ours, s_nlp)
        table.append(("update", "paddlenlp `RougeL(vocab=...).update`", t_nlp, t_nlp))
        table.append(("update", "`RougeL(vocab=..., paddlenlp_compat=True).update`", t_ours, t_nlp))
        table.append(("update", "of which numpy's argmax of the logits (the floor)", t_arg, t_nlp))
        target("update vs paddlenlp", t_nlp / t_ours, 100)

    print()
    print(f"| workload | implementation | ms | x peer | G cells/s per thread ({threads}) | of the AVX2 ceiling |")
    print("|---|---|---:|---:|---:|---:|")
    for work, name, secs, base in table:
        ours = not (name.startswith("rouge-score-rs") or name.startswith("rapidfuzz")
                    or name.startswith("paddlenlp") or name.startswith("of which"))
        rate = cells.get(work, 0) / secs / threads / 1e9 if ours and work in cells else None
        extra = f"{rate:.2f} | {rate / 604:.2%}" if rate is not None else " | "
        print(f"| {work} | {name} | {secs * 1000:,.1f} | {base / secs:.2f} | {extra} |")
    print()
    print("Targets (issue 21):")
    print("\n".join(targets))
    return score_verdict(failures)


if __name__ == "__main__":
    sys.exit(main())
