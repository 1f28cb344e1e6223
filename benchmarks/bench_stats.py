"""Benchmark paddle_rougel.stats: bootstrap and paired tests, C kernel vs numpy fallback.

One run, no arguments (``--quick`` for a small smoke run)::

    python benchmarks/bench_stats.py

Prints wall and process-CPU seconds (the machine may be shared: CPU time is
the steadier figure) and ratios:

1. ``bootstrap`` of a 1-column mean, 1,000 resamples x 1,000,000 instances
   (the target: under 2 s); the numpy fallback on 20 resamples, extrapolated.
2. Contest-sized BLEU-4: 20,000 DuReader-like questions (dureader_workload),
   per-instance columns (clipped matches, candidate n-grams, lengths), then a
   1,000-resample bootstrap, a paired bootstrap and a 10,000-trial
   approximate randomization; checked against BleuAccumulator's score, with
   the ratio of the resampling time to the time of computing the columns.
"""
from __future__ import annotations

import os
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(HERE))

import dureader_workload  # noqa: E402

from paddle_rougel.engine import host as engine
from paddle_rougel.metrics import bleu as bleu_mod
from paddle_rougel.stats import intervals as stats  # noqa: E402
from paddle_rougel.metrics.bleu import BleuAccumulator  # noqa: E402
from paddle_rougel.engine.inputs import make_batch  # noqa: E402
from paddle_rougel.metrics.bleu import BleuSettings  # noqa: E402


def timed(fn):
    """(result, wall seconds, process CPU seconds) of fn()."""
    w, c = time.perf_counter(), time.process_time()
    out = fn()
    return out, time.perf_counter() - w, time.process_time() - c


def on_python(fn):
    engine.set_backend("python")
    try:
        return timed(fn)
    finally:
        engine.set_backend("c")


def bench_mean(n: int, resamples: int, fallback_resamples: int) -> None:
    x = np.random.default_rng(0).random(n)
    ms = stats.mean_statistic()
    iv, wall, cpu = timed(lambda: stats.bootstrap(x, ms, resamples=resamples))
    print(f"bootstrap mean, {resamples} x {n:,} (C, {engine.default_threads()} threads): "
          f"{wall:.3f} s wall, {cpu:.3f} s CPU  [{iv.low:.6f}, {iv.high:.6f}]")
    sums, fwall, fcpu = on_python(lambda: stats.resample_sums(x, fallback_resamples))
    same = sums.tobytes() == stats.resample_sums(x, fallback_resamples).tobytes()
    scale = resamples / fallback_resamples
    print(f"  numpy fallback, {fallback_resamples} resamples: {fwall:.3f} s wall "
          f"(x{scale:.0f} = {fwall * scale:.1f} s); bit-identical to C: {same}; "
          f"C speed-up {fwall * scale / wall:.1f}x")
    _, awall, acpu = timed(lambda: stats.randomized_sums(x, x[::-1], 100))
    print(f"  approximate randomization, 100 trials x {n:,} (C): {awall:.3f} s wall, {acpu:.3f} s CPU")
    if not same:
        raise SystemExit("MISMATCH: the numpy fallback differs from the C kernel")


def bleu_columns(cands, ref_lists, n_size=4):
    """Per-instance BLEU columns (no bonuses), the terms BleuAccumulator sums."""
    match = engine.clipped_matches(cands, ref_lists, n_size)
    clen = np.array([len(c) for c in cands], dtype=np.float64)
    candi = np.maximum(clen[:, None] - np.arange(n_size)[None, :], 0)
    bp_r = [min((abs(len(c) - len(r)), len(r)) for r in refs)[1] for c, refs in zip(cands, ref_lists)]
    return bleu_mod.bleu_columns(match, candi, clen, bp_r)


def bench_bleu(n: int, resamples: int, trials: int) -> None:
    cands, refs = dureader_workload.make_workload(n=n, seed=0)
    other = [c[:max(1, len(c) * 9 // 10)] if i % 2 else c for i, c in enumerate(cands)]  # system B: half cut
    bleu4 = bleu_mod.bleu_statistic(4)
    cols, cwall, _ = timed(lambda: bleu_columns(cands, refs))
    cols_b = bleu_columns(other, refs)
    acc = BleuAccumulator(BleuSettings(n_size=4))
    acc.add(make_batch(cands, refs))
    _, swall, _ = timed(acc.score)
    iv, bwall, bcpu = timed(lambda: stats.bootstrap(cols, bleu4, resamples=resamples))
    ok = iv.estimate == acc.score()
    print(f"BLEU-4, {n:,} questions: per-instance columns {cwall:.3f} s; bootstrap {resamples}: "
          f"{bwall:.3f} s wall, {bcpu:.3f} s CPU (ratio to the columns {bwall / cwall:.2f}); "
          f"BLEU {iv.estimate:.6f} [{iv.low:.6f}, {iv.high:.6f}], equals BleuAccumulator.score: {ok}")
    pb, pwall, _ = timed(lambda: stats.paired_bootstrap(cols, cols_b, bleu4, resamples=resamples))
    ar, awall, _ = timed(lambda: stats.approximate_randomization(cols, cols_b, bleu4, trials=trials))
    print(f"  paired bootstrap {resamples}: {pwall:.3f} s (p = {pb.p_value:.4f}); approximate "
          f"randomization {trials}: {awall:.3f} s (p = {ar.p_value:.4f}); d = {pb.difference:+.6f}")
    if not ok:
        raise SystemExit(f"MISMATCH: BLEU {iv.estimate!r} != BleuAccumulator {acc.score()!r}")


def main() -> None:
    quick = "--quick" in sys.argv[1:]
    print(f"CPUs: {os.cpu_count()}, load average: {os.getloadavg()[0]:.2f}")
    if quick:
        bench_mean(20_000, 100, 10)
        bench_bleu(500, 100, 200)
    else:
        bench_mean(1_000_000, 1000, 20)
        bench_bleu(20_000, 1000, 10_000)
    print("All checks passed.")


if __name__ == "__main__":
    main()
