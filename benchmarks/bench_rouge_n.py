"""ROUGE-1 + ROUGE-2 on English summary pairs: the ROUGE-N engine against rouge-score-rs, side
by side in one process (issue 22).

Run by path (never ``import benchmarks``)::

    python benchmarks/bench_rouge_n.py            # 20,000 pairs
    python benchmarks/bench_rouge_n.py --quick    # smoke test, a few seconds

Workload (seeded): 20,000 pairs, the reference 40-80 words (about 60) drawn by Zipf from
bench_lsum's common English words with capitals and punctuation, the candidate an edited
copy cut to about 50 words.  Tokens: rouge-score's tokenizer (lowercase runs of [a-z0-9]),
no stemming.

Rows (each the best of --repeat runs; rouge-score-rs's P/R/F are checked equal to ours to
1e-12 first, and a sample against rouge-score 0.1.2; exit status 1 on any difference):

* rouge-score-rs ``RougeScorer(["rouge1", "rouge2"]).score_batch`` (native, all cores);
* ``ngrams.ngram_overlap(orders=(1, 2), words=(1, True))``: the counts, words read in C;
* the same plus P, R, F of both orders with numpy (what a metric returns per instance);
* ``lcs_words`` with the n-gram counts fused: ROUGE-L's LCS and ROUGE-1/2 counts from one
  read of the text (for a metric asked for rougeL too);
* ``paddle_rougel.compute(rouge_types=["rouge1", "rouge2"], tokenize="rouge_score", gamma=1,
  multi_ref="best", per_instance=True)``: the call a user makes (snapshot, checks, hints, the
  metrics' P, R, F, macro averages and signature around the counts; every F checked equal to
  rouge-score-rs's to 1e-12).

The whole report: rouge-score-rs ``score_batch`` with rouge1, rouge2, rougeL, rougeLsum against
``paddle_rougel.compute(rouge_types=[the four], tokenize="rouge_score", gamma=1,
multi_ref="best")`` (every F checked equal to 1e-12).

Targets (issue 22): ROUGE-1+2 >= 10x rouge-score-rs, for the counts + P, R, F and for the
user's compute() call; the four-type report >= 5x (printed as met / NOT met).
"""
from __future__ import annotations

import argparse
import os
import platform
import random
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import bench_lsum  # noqa: E402  (sibling files, unique names: the English vocabulary)
from benchkit import best_time, cpu_model, max_abs_diff, score_verdict  # noqa: E402


def summary_pairs(n: int, seed: int):
    """References of 40-80 words, candidates edited and cut to 5/6 (bench_lsum.english_pairs)."""
    return bench_lsum.english_pairs(n, seed, (40, 80), keep=(5, 6))


def best_cpu(fn, repeat):
    """Best CPU time (every thread of the process) of ``repeat`` calls: less sensitive than the
    wall time to other work on a shared machine."""
    best = float("inf")
    for _ in range(repeat):
        t0 = time.process_time()
        fn()
        best = min(best, time.process_time() - t0)
    return best


def prf(hits, cand_grams, ref_grams):
    """rouge-score's _score_ngrams arithmetic on count arrays."""
    import numpy as np

    p = hits / np.maximum(cand_grams, 1)
    r = hits / np.maximum(ref_grams, 1)
    with np.errstate(invalid="ignore", divide="ignore"):
        f = np.where(p + r > 0, 2 * p * r / (p + r), 0.0)
    return p, r, f


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=20_000, help="pairs")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--quick", action="store_true", help="small smoke run")
    args = ap.parse_args(argv)
    if args.quick:
        args.n, args.repeat = 300, 1

    import numpy as np
    import rouge_score_rs
    from rouge_score import rouge_scorer

    import paddle_rougel
    from paddle_rougel import _lcs
    from paddle_rougel.engine import host as engine
    from paddle_rougel.engine.inputs import OneRef
    from paddle_rougel.engine.ngrams import ngram_overlap

    threads = engine.default_threads()
    print("## Machine")
    print(f"- CPU: {cpu_model()}, {os.cpu_count()} logical cores; our threads: {threads}")
    print(f"- Python {platform.python_version()}, numpy {np.__version__}, paddle-rougel "
          f"{paddle_rougel.__version__} (engine {engine.backend()}), rouge-score-rs {rouge_score_rs.__version__}")
    print()
    cands, refs = summary_pairs(args.n, args.seed)
    rs_tok = rouge_scorer.RougeScorer(["rouge1"])._tokenizer
    mean = lambda xs: sum(len(rs_tok.tokenize(x)) for x in xs) / max(len(xs), 1)  # noqa: E731
    print(f"- {args.n} pairs; words per candidate {mean(cands):.1f}, per reference {mean(refs):.1f}")
    one = OneRef(tuple(refs))
    failures = []

    def check(name, got, want, tol=1e-12):
        diff = max_abs_diff(got, want)
        print(f"- check {name}: max |difference| {diff:.3g}")
        if diff > tol:
            failures.append(name)

    scorer = rouge_score_rs.RougeScorer(["rouge1", "rouge2"])
    t_rs, out_rs = best_time(lambda: scorer.score_batch(refs, cands), args.repeat)

    def counts():
        return ngram_overlap(cands, one, orders=(1, 2), words=(1, True))

    def scores():
        res = counts()
        return prf(res.hits, res.cand_grams, res.ref_grams)

    def fused():
        return _lcs.lcs_words(cands, refs, 1, True, threads, one_ref=True, orders=(1, 2))

    def user_call():
        return paddle_rougel.compute(cands, refs, rouge_types=["rouge1", "rouge2"], tokenize="rouge_score",
                                     gamma=1.0, multi_ref="best", per_instance=True)

    t_counts, res = best_time(counts, args.repeat)
    t_scores, (p, r, f) = best_time(scores, args.repeat)
    t_fused, _ = best_time(fused, args.repeat)
    t_user, user = best_time(user_call, args.repeat)
    for k, name in enumerate(["rouge1", "rouge2"]):
        for col, field in ((p, "precision"), (r, "recall"), (f, "fmeasure")):
            check(f"{name} {field} vs rouge-score-rs", col[:, k], [getattr(s[name], field) for s in out_rs])
        check(f"{name} F of compute() vs rouge-score-rs", user["per_instance"][name],
              [s[name].fmeasure for s in out_rs])
    gs = rouge_scorer.RougeScorer(["rouge1", "rouge2"])
    sample = random.Random(1).sample(range(len(cands)), min(300, len(cands)))
    for k, name in enumerate(["rouge1", "rouge2"]):
        check(f"{name} F vs rouge-score 0.1.2 ({len(sample)} sampled)", f[sample, k],
              [gs.score(refs[i], cands[i])[name].fmeasure for i in sample])

    four = ["rouge1", "rouge2", "rougeL", "rougeLsum"]
    scorer4 = rouge_score_rs.RougeScorer(four)
    t_rs4, out_rs4 = best_time(lambda: scorer4.score_batch(refs, cands), args.repeat)

    def report():
        return paddle_rougel.compute(cands, refs, rouge_types=four, tokenize="rouge_score", gamma=1.0,
                                     multi_ref="best", per_instance=True)

    t_report, rep = best_time(report, args.repeat)
    for name in four:
        check(f"{name} F of the four-type report vs rouge-score-rs", rep["per_instance"][name],
              [s[name].fmeasure for s in out_rs4])

    runs = [("rouge-score-rs `score_batch` (native, all cores)", t_rs, lambda: scorer.score_batch(refs, cands)),
            ("`ngram_overlap(orders=(1, 2), words=(1, True))` (counts)", t_counts, counts),
            ("the counts + P, R, F of both orders (numpy)", t_scores, scores),
            ("`_lcs.lcs_words(..., orders=(1, 2))`: LCS + ROUGE-1/2 counts, one read", t_fused, fused),
            ("`compute(rouge_types=[\"rouge1\", \"rouge2\"], ..., per_instance=True)` (the user's call)", t_user,
             user_call)]
    table = [(name, secs, best_cpu(fn, args.repeat)) for name, secs, fn in runs]
    cpu_rs = table[0][2]
    print()
    print("| implementation | ms | x rouge-score-rs | CPU ms (all threads) | x rouge-score-rs (CPU) |")
    print("|---|---:|---:|---:|---:|")
    for name, secs, cpu in table:
        print(f"| {name} | {secs * 1000:,.1f} | {t_rs / secs:.2f} | {cpu * 1000:,.1f} | {cpu_rs / max(cpu, 1e-9):.2f} |")
    print()
    cpu_rs4, cpu_report = best_cpu(lambda: scorer4.score_batch(refs, cands), args.repeat), best_cpu(report, args.repeat)
    print(f"| rouge-score-rs `score_batch`, rouge1+rouge2+rougeL+rougeLsum | {t_rs4 * 1000:,.1f} | 1.00 | "
          f"{cpu_rs4 * 1000:,.1f} | 1.00 |")
    print(f"| `compute(rouge_types=[the four], ...)` | {t_report * 1000:,.1f} | {t_rs4 / t_report:.2f} | "
          f"{cpu_report * 1000:,.1f} | {cpu_rs4 / max(cpu_report, 1e-9):.2f} |")
    print()
    ratio, ratio_user = t_rs / t_scores, t_rs / t_user
    print(f"Target (issue 22): ROUGE-1+2 scores {ratio:.2f}x rouge-score-rs (target >= 10x): "
          f"{'met' if ratio >= 10 else 'NOT met'}; in CPU time {cpu_rs / max(table[2][2], 1e-9):.2f}x")
    print(f"Target (issue 22): ROUGE-1+2 by compute() {ratio_user:.2f}x rouge-score-rs (target >= 10x): "
          f"{'met' if ratio_user >= 10 else 'NOT met'}; in CPU time {cpu_rs / max(table[4][2], 1e-9):.2f}x")
    ratio4 = t_rs4 / t_report
    print(f"Target (issue 22): the four-type report {ratio4:.2f}x rouge-score-rs (target >= 5x): "
          f"{'met' if ratio4 >= 5 else 'NOT met'}; in CPU time {cpu_rs4 / max(cpu_report, 1e-9):.2f}x")
    return score_verdict(failures)


if __name__ == "__main__":
    sys.exit(main())
