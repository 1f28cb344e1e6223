"""Set-up shared by the tests that train or evaluate a model (test code, not an oracle).

hapi (tests/test_hapi.py, test_rouge_n_metric.py, static_hapi_worker.py, dist_hapi_worker.py):
``hapi_example`` loads examples/hapi_seq2seq.py, ``hapi_model`` wraps a network of it in a
prepared ``paddle.Model``, ``hapi_predicted_pairs`` reads back the ids a model predicts.
Trainer (tests/test_integrations.py's paddlenlp Trainer, paddleformers_trainer.py's
PaddleFormers one): ``trainer_examples`` and ``trainer_collate``.

Importable as ``model_helpers``: tests/ is on sys.path (conftest.py; a worker run as
``python tests/x.py`` has its own folder there).  paddle is imported where it is used.
"""
import importlib.util
import os

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


# ------------------------------------------------------------------------------ hapi


def hapi_example():
    """examples/hapi_seq2seq.py as a module."""
    # by path: site-packages holds an unrelated top-level ``examples`` package
    spec = importlib.util.spec_from_file_location("_hapi_seq2seq", os.path.join(ROOT, "examples", "hapi_seq2seq.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def hapi_model(ex, net, loss, metrics):
    """``paddle.Model(net)`` with the example's inputs (src) and labels (label, seq_mask),
    prepared with Adam (learning rate 0.05), ``loss`` and ``metrics``."""
    import paddle
    from paddle.static import InputSpec

    model = paddle.Model(net, inputs=[InputSpec([None, ex.T], "int64", "src")],
                         labels=[InputSpec([None, ex.T, 1], "int64", "label"),
                                 InputSpec([None, ex.T], "int64", "seq_mask")])
    model.prepare(paddle.optimizer.Adam(learning_rate=0.05, parameters=net.parameters()), loss, metrics=metrics)
    return model


def hapi_predicted_pairs(ex, model, dev):
    """(cands, refs) of ``dev`` as ids: each candidate the argmax the model predicts, its one
    reference the target, both cut to the mask (a prefix here) with the pads dropped."""
    (logits,) = model.predict(dev, batch_size=32, stack_outputs=True, verbose=0)
    pred = np.argmax(logits, axis=-1)
    cands, refs = [], []
    for i in range(len(dev)):
        _, tgt, mask = dev[i]
        n = int(mask.sum())  # masks are prefixes here
        cands.append([t for t in pred[i, :n].tolist() if t != ex.PAD])
        refs.append([[t for t in tgt[:n, 0].tolist() if t != ex.PAD]])
    return cands, refs


# ------------------------------------------------------------------------------ Trainer


def trainer_examples(tokenizer, pairs):
    """(source, target) text pairs as a Trainer's examples: input_ids and labels."""
    return [{"input_ids": tokenizer(src)["input_ids"], "labels": tokenizer(tgt)["input_ids"]}
            for src, tgt in pairs]


def trainer_collate(tokenizer):
    """A data collator: input padded with the pad token, labels with -100, to the batch's
    longest side."""
    import paddle

    def collate(batch):
        width = max(max(len(b["input_ids"]), len(b["labels"])) for b in batch)
        inp = np.full((len(batch), width), tokenizer.pad_token_id, dtype=np.int64)
        lab = np.full((len(batch), width), -100, dtype=np.int64)
        for i, b in enumerate(batch):
            inp[i, :len(b["input_ids"])] = b["input_ids"]
            lab[i, :len(b["labels"])] = b["labels"]
        return {"input_ids": paddle.to_tensor(inp), "labels": paddle.to_tensor(lab)}

    return collate
