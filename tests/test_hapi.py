"""hapi Model.prepare(metrics=RougeL(...)): fit + evaluate report the metric, equal to the host path."""
import numpy as np

from model_helpers import hapi_example, hapi_model, hapi_predicted_pairs
from paddle_rougel import RougeL


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
    ex = hapi_example()
    model, metric, train, dev = ex.build(seed=3)
    assert metric.name() == "rouge-l"
    model.fit(train, epochs=1, batch_size=64, verbose=0)
    result = model.evaluate(dev, batch_size=32, verbose=0)
    assert "rouge-l" in result
    assert 0.0 < result["rouge-l"] < 1.0
    np.testing.assert_allclose(result["rouge-l"], _host_score(model, dev, ex.PAD), rtol=1e-12)


def test_evaluate_with_a_vocab_with_duplicate_tokens():
    ex = hapi_example()
    vocab = {i: f"w{i % 20}" for i in range(ex.VOCAB)}  # ids i and i + 20 are one token
    model, metric, train, dev = ex.build(seed=4, vocab=vocab)
    model.fit(train, epochs=1, batch_size=64, verbose=0)
    got = model.evaluate(dev, batch_size=32, verbose=0)["rouge-l"]
    host = RougeL()
    for cand, (ref,) in zip(*hapi_predicted_pairs(ex, model, dev)):
        host.add_inst([vocab[t] for t in cand], [[vocab[t] for t in ref]])
    np.testing.assert_allclose(got, host.accumulate(), rtol=1e-12)


def test_network_with_two_outputs(capsys):
    """A network returning (logits, hidden): the user says which output is scored (issue 10.4)."""
    import paddle

    ex = hapi_example()

    class TwoOutputs(ex.TinySeq2Seq):
        def forward(self, src):
            h = paddle.tanh(self.emb(src))
            return self.proj(h), h  # logits [B, T, V], hidden [B, T, H]

    class Loss(paddle.nn.Layer):
        def forward(self, logits, hidden, label, seq_mask):
            return ex.MaskedCE()(logits, label, seq_mask)

    def build(metric):
        paddle.seed(5)
        return hapi_model(ex, TwoOutputs(), Loss(), metric)

    dev = ex.SyntheticPairs(64, 9)
    model = build(RougeL(pad_id=ex.PAD, num_outputs=2, output_index=0))
    got = model.evaluate(dev, batch_size=32, verbose=0)["rouge-l"]
    logits, _ = model.predict(dev, batch_size=32, stack_outputs=True, verbose=0)
    pred = np.argmax(logits, axis=-1)
    host = RougeL(pad_id=ex.PAD)
    for i in range(len(dev)):
        _, tgt, mask = dev[i]
        host.update(pred[i:i + 1], tgt[None], mask[None])
    np.testing.assert_allclose(got, host.accumulate(), rtol=1e-12)
    # without num_outputs, the error names the outputs, not a confusing label problem
    import pytest

    with pytest.raises(TypeError, match="num_outputs"):
        build(RougeL(pad_id=ex.PAD)).evaluate(dev, batch_size=32, verbose=0)
