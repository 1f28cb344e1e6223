"""hapi Model.prepare(metrics=RougeL(...)): fit + evaluate report the metric, equal to the host path."""
import importlib.util
import pathlib

import numpy as np

from paddle_rougel import RougeL

ROOT = pathlib.Path(__file__).resolve().parents[1]


def _example():
    # by path: site-packages holds an unrelated top-level ``examples`` package
    spec = importlib.util.spec_from_file_location("_hapi_seq2seq", ROOT / "examples" / "hapi_seq2seq.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _host_score(model, dev, pad):
    (logits,) = model.predict(dev, batch_size=32, stack_outputs=True, verbose=0)
    pred = np.argmax(logits, axis=-1)
    cands, refs = [], []
    for i in range(len(dev)):
        _, tgt, mask = dev[i]
        n = int(np.argmin(mask)) if (mask == 0).any() else len(mask)
        c, r = pred[i, :n], tgt[:n, 0]
        cands.append([t for t in c.tolist() if t != pad])
        refs.append([[t for t in r.tolist() if t != pad]])
    host = RougeL()
    host.add_batch(cands, refs)
    return host.accumulate()


def test_fit_and_evaluate_report_the_host_score():
    ex = _example()
    model, metric, train, dev = ex.build(seed=3)
    assert metric.name() == "rouge-l"
    model.fit(train, epochs=1, batch_size=64, verbose=0)
    result = model.evaluate(dev, batch_size=32, verbose=0)
    assert "rouge-l" in result
    assert 0.0 < result["rouge-l"] < 1.0
    np.testing.assert_allclose(result["rouge-l"], _host_score(model, dev, ex.PAD), rtol=1e-12)


def test_evaluate_with_a_vocab_with_duplicate_tokens():
    ex = _example()
    vocab = {i: f"w{i % 20}" for i in range(ex.VOCAB)}  # ids i and i + 20 are one token
    model, metric, train, dev = ex.build(seed=4, vocab=vocab)
    model.fit(train, epochs=1, batch_size=64, verbose=0)
    got = model.evaluate(dev, batch_size=32, verbose=0)["rouge-l"]
    (logits,) = model.predict(dev, batch_size=32, stack_outputs=True, verbose=0)
    pred = np.argmax(logits, axis=-1)
    host = RougeL()
    for i in range(len(dev)):
        _, tgt, mask = dev[i]
        n = int(mask.sum())  # masks are prefixes here
        host.add_inst([vocab[t] for t in pred[i, :n].tolist() if t != ex.PAD],
                      [[vocab[t] for t in tgt[:n, 0].tolist() if t != ex.PAD]])
    np.testing.assert_allclose(got, host.accumulate(), rtol=1e-12)
