"""Core ROUGE-L benchmark on a DuReader-like workload, all implementations in one process.

Run by path (never ``import benchmarks``: site-packages holds an unrelated package
of that name)::

    python benchmarks/bench_core.py                # 10,000 questions
    python benchmarks/bench_core.py --quick        # smoke test, a few seconds
    python benchmarks/bench_core.py --n 10000 --seed 0 --threads 2

Rows (char-level tokens; cells = sum over (cand, ref) pairs of len(cand) * len(ref)):

* paddle-rougel ``RougeL.add_batch`` (the batch API) and a ``RougeL.add_inst`` loop;
  also the bare engine ``lcs_batch`` for reference;
* paddlenlp ``RougeL.add_inst`` on a subsample, extrapolated by cell count;
* Google rouge-score ``score_multi`` (pass-through tokenizer on char lists), subsample
  extrapolated by cell count;
* rouge-score-rs ``score_multi`` with its native ``CharacterTokenizer`` (every
  grapheme containing a letter/number is a token: for this ideograph-only text,
  exactly ``list(text)``), and ``score_batch`` over all (cand, ref) pairs (native,
  rayon threads, ``RAYON_NUM_THREADS`` = --threads) followed by the best-F pick.

Score checks (non-zero exit on any disagreement):

* gamma = 1 / alpha = 0.5, best-F reference ("best", rouge-score's convention):
  our add_batch and add_inst vs rouge-score-rs (every instance) and rouge-score
  (subsample), per instance to 1e-12;
* gamma = 1.2, max P and max R over references ("max_pr", paddlenlp's convention):
  ours vs paddlenlp on its subsample, per instance to 1e-12.
"""
from __future__ import annotations

import argparse
import os
import platform
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import dureader_workload  # noqa: E402  (sibling files, unique names)
from benchkit import best_time, cpu_model, max_abs_diff, score_verdict  # noqa: E402




class _PassThrough:
    def tokenize(self, text):
        return list(text)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=10_000, help="questions (default 10000)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--threads", type=int, default=None, help="threads for our kernel and rouge-score-rs")
    ap.add_argument("--quick", action="store_true", help="small smoke run (n=200, tiny subsamples)")
    ap.add_argument("--sub-paddlenlp", type=int, default=100, help="questions timed with paddlenlp")
    ap.add_argument("--sub-rouge-score", type=int, default=150, help="questions timed with rouge-score")
    ap.add_argument("--repeat", type=int, default=3, help="best-of repeats for the fast rows")
    args = ap.parse_args(argv)
    if args.quick:
        args.n, args.sub_paddlenlp, args.sub_rouge_score, args.repeat = 200, 5, 20, 1
    if args.threads:
        os.environ["PADDLE_ROUGEL_THREADS"] = str(args.threads)
        os.environ["RAYON_NUM_THREADS"] = str(args.threads)

    import numpy as np
    import paddle
    import paddle_rougel
    from paddle_rougel import RougeL
    from paddle_rougel.engine import host as engine
    from paddlenlp.metrics import RougeL as PaddleNLPRougeL
    from rouge_score import rouge_scorer
    import rouge_score_rs
    from rouge_score_rs.tokenizers import CharacterTokenizer

    threads = engine.default_threads()
    print("## Machine")
    print(f"- CPU: {cpu_model()}, {os.cpu_count()} logical cores; our kernel threads: {threads}")
    print(f"- Python {platform.python_version()}, numpy {np.__version__}, paddle {paddle.__version__}, "
          f"paddle-rougel {paddle_rougel.__version__} (engine: {engine.backend()}), "
          f"rouge-score-rs {rouge_score_rs.__version__}")
    print("- note: shared machine, timings are noisy (best of repeats where shown)\n")

    t0 = time.perf_counter()
    cands, ref_lists = dureader_workload.make_workload(n=args.n, seed=args.seed)
    cells = dureader_workload.cell_count(cands, ref_lists)
    n_pairs = sum(len(r) for r in ref_lists)
    print(f"## Workload: {args.n} questions, {n_pairs} (cand, ref) pairs, {cells / 1e6:.1f} M cells, "
          f"seed {args.seed} (generated in {time.perf_counter() - t0:.1f} s)\n")

    rows = []  # (name, seconds for the full workload, extrapolated?, convention)
    failures = []

    def check(name, got, want, tol=1e-12):
        got, want = np.asarray(got, dtype=np.float64), np.asarray(want, dtype=np.float64)
        if got.shape != want.shape:
            failures.append(f"{name}: shape {got.shape} != {want.shape}")
            return
        err = max_abs_diff(got, want)
        status = "ok" if err <= tol else "MISMATCH"
        print(f"- check {name}: max |diff| {err:.2e} over {got.size} instances, mean F "
              f"{got.mean():.12f} vs {want.mean():.12f}: {status}")
        if err > tol:
            failures.append(name)

    # ---------------------------------------------------------------- ours
    def ours_batch(gamma=1.0, mode="best"):
        m = RougeL(gamma=gamma, multi_ref=mode)
        m.add_batch(cands, ref_lists)
        return m

    def ours_inst(gamma=1.0, mode="best"):
        m = RougeL(gamma=gamma, multi_ref=mode)
        add = m.add_inst
        for c, r in zip(cands, ref_lists):
            add(c, r)
        m.score()
        return m

    t_eng, _ = best_time(lambda: engine.lcs_batch(cands, ref_lists), args.repeat)
    t_batch, m_batch = best_time(ours_batch, args.repeat)
    t_inst, m_inst = best_time(ours_inst, args.repeat)
    rows.append(("paddle-rougel lcs_batch (engine only)", t_eng, False, "-"))
    rows.append(("paddle-rougel RougeL.add_batch", t_batch, False, "gamma 1, best"))
    rows.append(("paddle-rougel RougeL.add_inst loop", t_inst, False, "gamma 1, best"))
    f_ours = m_batch.per_instance().fmeasure
    check("ours add_inst == add_batch", m_inst.per_instance().fmeasure, f_ours, tol=0.0)

    # ---------------------------------------------------------------- rouge-score-rs
    rs = rouge_score_rs.RougeScorer(["rougeL"], tokenizer=CharacterTokenizer())

    def rs_multi():
        return [rs.score_multi(refs, c)["rougeL"].fmeasure for c, refs in zip(cands, ref_lists)]

    flat_t = [t for refs in ref_lists for t in refs]
    flat_p = [c for c, refs in zip(cands, ref_lists) for _ in refs]

    def rs_batch():
        scores = rs.score_batch(flat_t, flat_p)
        out, k = [], 0
        for refs in ref_lists:
            fs = [scores[k + j]["rougeL"].fmeasure for j in range(len(refs))]
            out.append(fs[int(np.argmax(fs))])  # first maximal F, as score_multi
            k += len(refs)
        return out

    t_rs_multi, f_rs_multi = best_time(rs_multi, args.repeat)
    t_rs_batch, f_rs_batch = best_time(rs_batch, args.repeat)
    rows.append(("rouge-score-rs score_multi (CharacterTokenizer)", t_rs_multi, False, "alpha 0.5, best"))
    rows.append(("rouge-score-rs score_batch + best pick (all pairs)", t_rs_batch, False, "alpha 0.5, best"))
    check("ours vs rouge-score-rs score_multi (gamma 1 / alpha 0.5, best ref)", f_ours, f_rs_multi)
    check("ours vs rouge-score-rs score_batch (gamma 1 / alpha 0.5, best ref)", f_ours, f_rs_batch)

    # ---------------------------------------------------------------- rouge-score (subsample)
    k = min(args.sub_rouge_score, args.n)
    sub_c, sub_r = cands[:k], ref_lists[:k]
    sub_cells = dureader_workload.cell_count(sub_c, sub_r)
    gs = rouge_scorer.RougeScorer(["rougeL"], tokenizer=_PassThrough())
    t1 = time.perf_counter()
    f_gs = [gs.score_multi(refs, c)["rougeL"].fmeasure for c, refs in zip(sub_c, sub_r)]
    t_gs = (time.perf_counter() - t1) * cells / sub_cells
    rows.append((f"rouge-score score_multi (pass-through tokenizer; {k} q, extrapolated)", t_gs, True,
                 "alpha 0.5, best"))
    check(f"ours vs rouge-score on {k} questions (gamma 1 / alpha 0.5, best ref)", f_ours[:k], f_gs)

    # ---------------------------------------------------------------- paddlenlp (subsample)
    k = min(args.sub_paddlenlp, args.n)
    sub_c, sub_r = cands[:k], ref_lists[:k]
    sub_cells = dureader_workload.cell_count(sub_c, sub_r)
    pn = PaddleNLPRougeL(gamma=1.2)
    t1 = time.perf_counter()
    for c, refs in zip(sub_c, sub_r):
        pn.add_inst(c, refs)
    t_pn = (time.perf_counter() - t1) * cells / sub_cells
    rows.append((f"paddlenlp RougeL.add_inst ({k} q, extrapolated)", t_pn, True, "gamma 1.2, max_pr"))
    mine = RougeL(gamma=1.2)  # paddlenlp's default convention
    mine.add_batch(sub_c, sub_r)
    check(f"ours vs paddlenlp on {k} questions (gamma 1.2, max P / max R)",
          mine.per_instance().fmeasure, pn.inst_scores)

    # ---------------------------------------------------------------- table
    t_rs_best = min(t_rs_multi, t_rs_batch)
    print("\n## Results\n")
    print("| implementation | seconds | M cells/s | x vs rouge-score-rs (fastest) | x vs paddlenlp | F convention |")
    print("|---|---:|---:|---:|---:|---|")
    for name, sec, extrap, conv in rows:
        star = "*" if extrap else ""
        print(f"| {name} | {sec:.3f}{star} | {cells / sec / 1e6:,.1f} | {t_rs_best / sec:.2f} | "
              f"{t_pn / sec:,.0f} | {conv} |")
    print("\n`*` extrapolated from a subsample by cell count. rouge-score-rs baseline = the faster of its "
          "two rows. All rows are char-level tokens on the same workload.\n")
    print(f"Targets: batch >= 2x rouge-score-rs: {t_rs_best / t_batch:.2f}x; add_inst >= 1x: "
          f"{t_rs_best / t_inst:.2f}x; >= 1000x paddlenlp: batch {t_pn / t_batch:,.0f}x, "
          f"add_inst {t_pn / t_inst:,.0f}x")

    return score_verdict(failures, "\nSCORE DISAGREEMENT: ", "; ", sys.stderr, "\nAll score checks passed.")


if __name__ == "__main__":
    sys.exit(main())
