"""Run by tests/test_hapi_static.py in a process of its own (enable_static is process-wide).

``python static_hapi_worker.py static DIR``: a static-graph hapi Model with every metric
class that takes network output: fit and evaluate; saves the parameters in DIR and
prints the results as JSON.  ``... dygraph DIR``: the same model in dygraph, loaded from
DIR, evaluated: the numbers to compare with (and, as "host", RougeN's add_batch on the
ids it predicts).  ``... refuse METRIC``: prepare a static
Model with a text-only metric; prints the error.
"""
import json
import os
import sys

import numpy as np
import paddle

from model_helpers import hapi_example, hapi_model, hapi_predicted_pairs  # this folder is on sys.path


def _metrics():
    from paddle_rougel import RougeL, RougeLForDuReader, RougeN

    ex = hapi_example()
    vocab = {i: f"w{i % 20}" for i in range(ex.VOCAB)}
    return [RougeL(pad_id=ex.PAD, name="rl"),
            RougeL(pad_id=ex.PAD, vocab=vocab, gamma=1.0, name="rl_vocab"),
            RougeL(paddlenlp_compat=True, vocab=vocab, name="rl_compat"),
            RougeLForDuReader(name="rl_dureader"),
            RougeN(n=1, pad_id=ex.PAD, name="r1"),
            RougeN(n=2, pad_id=ex.PAD, vocab=vocab, gamma=1.0, distinct=True, name="r2_vocab")]


def _model(ex, metrics):
    paddle.seed(7)
    return hapi_model(ex, ex.TinySeq2Seq(), ex.MaskedCE(), metrics)


def main():
    mode, arg = sys.argv[1], sys.argv[2]
    ex = hapi_example()
    if mode == "refuse":
        import paddle_rougel

        paddle.enable_static()
        metric = getattr(paddle_rougel, arg)()
        try:
            _model(ex, [metric])
        except TypeError as e:
            print(json.dumps({"error": str(e)}))
            return
        print(json.dumps({"error": None}))
        return
    if mode == "static":
        paddle.enable_static()
    model = _model(ex, _metrics())
    dev = ex.SyntheticPairs(96, 4)
    out = {}
    if mode == "static":
        model.fit(ex.SyntheticPairs(256, 3), epochs=1, batch_size=64, verbose=0)
        model.save(os.path.join(arg, "model"))
    else:
        model.load(os.path.join(arg, "model"))
    res = model.evaluate(dev, batch_size=32, verbose=0)
    out.update({k: float(np.asarray(v).ravel()[0]) for k, v in res.items() if k != "loss"})
    if mode == "dygraph":  # (a static Model's predict wants the labels fed)
        out["host"] = _host_rouge_n(ex, model, dev)
    print(json.dumps(out))


def _host_rouge_n(ex, model, dev) -> dict:
    """RougeN.add_batch on the ids the model predicts (pads dropped, the mask's prefix)."""
    from paddle_rougel import RougeN

    vocab = {i: f"w{i % 20}" for i in range(ex.VOCAB)}
    cands, refs = hapi_predicted_pairs(ex, model, dev)
    r1, r2 = RougeN(n=1), RougeN(n=2, gamma=1.0, distinct=True)
    r1.add_batch(cands, refs)
    r2.add_batch([[vocab[t] for t in c] for c in cands], [[[vocab[t] for t in r[0]]] for r in refs])
    return {"r1": r1.accumulate(), "r2_vocab": r2.accumulate()}


if __name__ == "__main__":
    main()
