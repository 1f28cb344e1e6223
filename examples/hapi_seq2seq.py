"""Train a tiny per-position "seq2seq" model with paddle.hapi and evaluate ROUGE-L.

The model is an embedding + linear layer giving vocabulary logits at every
position; the task is to copy the source with a shifted vocabulary (30% of the
target tokens are random noise), so a few steps give a ROUGE-L well above
chance and below 1.  Runs on CPU in seconds::

    python examples/hapi_seq2seq.py
"""
from __future__ import annotations

import numpy as np
import paddle
from paddle.static import InputSpec

from paddle_rougel import RougeL

VOCAB, T, PAD = 50, 16, 0


class SyntheticPairs(paddle.io.Dataset):
    """(src ids, target ids [T, 1], seq_mask [T]): target = src shifted by one id; padded with PAD."""

    def __init__(self, n: int, seed: int):
        rng = np.random.default_rng(seed)
        self.src = rng.integers(1, VOCAB, (n, T)).astype("int64")
        lens = rng.integers(T // 3, T + 1, n)
        self.mask = (np.arange(T)[None, :] < lens[:, None]).astype("int64")
        tgt = self.src % (VOCAB - 1) + 1
        noisy = rng.random((n, T)) < 0.3  # 30% of the targets are random: the score stays < 1
        tgt = np.where(noisy, rng.integers(1, VOCAB, (n, T)), tgt)
        self.tgt = np.where(self.mask == 1, tgt, PAD).astype("int64")
        self.src = np.where(self.mask == 1, self.src, PAD)

    def __len__(self):
        return len(self.src)

    def __getitem__(self, i):
        return self.src[i], self.tgt[i][:, None], self.mask[i]


class TinySeq2Seq(paddle.nn.Layer):
    def __init__(self, hidden: int = 64):
        super().__init__()
        self.emb = paddle.nn.Embedding(VOCAB, hidden)
        self.proj = paddle.nn.Linear(hidden, VOCAB)

    def forward(self, src):
        return self.proj(paddle.tanh(self.emb(src)))  # [B, T, V] logits


class MaskedCE(paddle.nn.Layer):
    def forward(self, logits, label, seq_mask):
        ce = paddle.nn.functional.cross_entropy(logits, label, reduction="none").squeeze(-1)
        m = seq_mask.astype(ce.dtype)
        return (ce * m).sum() / m.sum()


def build(seed: int = 0, vocab=None, **metric_kwargs):
    """(model, metric, train set, eval set), ready for fit / evaluate."""
    paddle.seed(seed)
    net = TinySeq2Seq()
    model = paddle.Model(
        net,
        inputs=[InputSpec([None, T], "int64", "src")],
        labels=[InputSpec([None, T, 1], "int64", "label"), InputSpec([None, T], "int64", "seq_mask")],
    )
    metric = RougeL(vocab=vocab, pad_id=PAD, **metric_kwargs)
    model.prepare(paddle.optimizer.Adam(learning_rate=0.05, parameters=net.parameters()),
                  MaskedCE(), metrics=metric)
    return model, metric, SyntheticPairs(512, seed), SyntheticPairs(96, seed + 1)


def main():
    model, metric, train, dev = build()
    model.fit(train, epochs=2, batch_size=64, verbose=0)
    result = model.evaluate(dev, batch_size=32, verbose=0)
    print(result)


if __name__ == "__main__":
    main()
