"""hapi compute + update on tensors (CPU: Paddle cuts + C engine; accelerators: Paddle-op LCS),
the Paddle-op path forced on CPU, numpy into update, and paddlenlp RougeL.update.

    python benchmarks/bench_device.py            # B=256, T=128, V=1000
    python benchmarks/bench_device.py --quick    # tiny sizes, a smoke run

Batch: logits [B, T, V] float32, labels [B, T, 1], seq_mask with lengths
uniform in [T/2, T]; a dict vocab.  Useful cells = sum of true
cand_len * ref_len.  Prints a markdown table.  Timings on a shared CPU are
noisy: the median of several repeats is reported.
"""
from __future__ import annotations

import argparse
import statistics
import time

import numpy as np
import paddle

from paddle_rougel import RougeL
from paddle_rougel.engine.convert import prepare
from paddle_rougel.engine.device import lcs_masked


def _median_time(fn, repeats):
    fn()  # warm-up
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="tiny sizes (smoke test)")
    ap.add_argument("--batch", type=int, default=256)
    ap.add_argument("--len", type=int, default=128)
    ap.add_argument("--vocab", type=int, default=1000)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--no-paddlenlp", action="store_true", help="skip the (slow) paddlenlp baseline")
    a = ap.parse_args(argv)
    if a.quick:
        a.batch, a.len, a.vocab, a.repeats = 8, 16, 50, 1
    b, t, v = a.batch, a.len, a.vocab
    rng = np.random.default_rng(0)
    logits = rng.standard_normal((b, t, v)).astype("float32")
    label = rng.integers(0, v, (b, t, 1)).astype("int64")
    lens = rng.integers(t // 2, t + 1, b)
    mask = (np.arange(t)[None, :] < lens[:, None]).astype("int64")
    vocab = {i: f"tok{i}" for i in range(v)}
    useful = float((lens.astype(np.int64) ** 2).sum())  # both sides are cut by the same mask
    lt, yt, mt = (paddle.to_tensor(x) for x in (logits, label, mask))

    def hapi_path():  # what hapi runs here: compute on CPU tensors, then update
        m = RougeL(vocab=vocab)
        m.update(*[o.numpy() for o in m.compute(lt, yt, mt)])
        return m.accumulate()

    def device_path():  # the Paddle-op path an accelerator tensor takes, forced on this CPU
        import paddle_rougel.engine.convert as conv

        real = conv.on_host
        conv.on_host = lambda x: False
        try:
            return hapi_path()
        finally:
            conv.on_host = real

    def numpy_update():  # paddlenlp's call pattern: numpy straight into update
        m = RougeL(vocab=vocab)
        m.update(logits, label, mask)
        return m.accumulate()

    cand, cv, ref, rv = prepare(lt, yt, mt)

    def lcs_only():
        return lcs_masked(cand, cv, ref, rv).numpy()

    def argmax_only():
        return paddle.argmax(lt, axis=2).numpy()

    def host_path():
        ids = np.argmax(logits, axis=2)
        cands = [ids[i, :lens[i]] for i in range(b)]
        refs = [[label[i, :lens[i], 0]] for i in range(b)]
        m = RougeL()
        m.add_batch(cands, refs)
        return m.accumulate()

    def paddlenlp_path():
        from paddlenlp.metrics import RougeL as PaddleNLPRougeL
        m = PaddleNLPRougeL(vocab=vocab)
        m.update(logits, label, mask)
        return m.accumulate()

    rows = []
    t_hapi = _median_time(hapi_path, a.repeats)
    t_dev = _median_time(device_path, a.repeats)
    t_lcs = _median_time(lcs_only, a.repeats)
    t_arg = _median_time(argmax_only, a.repeats)
    t_np = _median_time(numpy_update, a.repeats)
    t_host = _median_time(host_path, a.repeats)
    scores = {"hapi": hapi_path(), "device": device_path(), "numpy": numpy_update(), "host": host_path()}
    rows.append(("hapi compute + update on CPU tensors (Paddle argmax + cuts, C engine)", t_hapi))
    rows.append(("Paddle-op path forced on CPU (what an accelerator tensor takes)", t_dev))
    rows.append(("  of which paddle.argmax on the logits", t_arg))
    rows.append(("  of which the Paddle-op LCS (lcs_masked)", t_lcs))
    rows.append(("update(numpy logits, label, mask) (numpy argmax + cuts, C engine)", t_np))
    rows.append(("bare host path: numpy argmax + slicing + engine.lcs_batch", t_host))
    if not a.no_paddlenlp:
        t_nlp = _median_time(paddlenlp_path, 1 if not a.quick else 1)
        scores["paddlenlp"] = paddlenlp_path()
        rows.append(("paddlenlp RougeL(vocab=...).update", t_nlp))
    print(f"B={b} T={t} V={v}, lengths uniform in [{t // 2}, {t}], useful cells {useful:.0f}, "
          f"device {paddle.device.get_device()}, median of {a.repeats}")
    print()
    print("| path | time (ms) | x paddlenlp |")
    print("|---|---:|---:|")
    base = rows[-1][1] if not a.no_paddlenlp else float("nan")
    for name, sec in rows:
        print(f"| {name} | {sec * 1e3:.1f} | {base / sec:.1f} |")
    print()
    print(f"LCS throughput: {useful / t_lcs / 1e6:.0f} M useful cells/s "
          f"({b * t * t / t_lcs / 1e6:.0f} M padded cells/s)")
    print("scores:", {k: round(float(s), 12) for k, s in scores.items()})
    ref_score = scores["host"]
    assert all(abs(s - ref_score) < 1e-9 for s in scores.values()), scores


if __name__ == "__main__":
    main()
