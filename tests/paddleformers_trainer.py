"""trainer_compute_metrics under a real PaddleFormers ``Trainer.evaluate()``.

Not part of the main ``pytest`` run (its file name does not start with ``test_``):
paddleformers 1.2.0's requirements (datasets >= 3, transformers >= 5,
aistudio-sdk >= 0.3) clash with the pins paddlenlp 2.8.1 needs in the test extra,
so ``scripts/paddleformers_check.sh`` (run by ``.ci/run``) builds a venv of its
own with this package's wheel and runs this file there.  Nothing is skipped: a
missing paddleformers is an ImportError, a failure.

Nothing is downloaded: the tokenizer is a byte-level BPE (Qwen2's class, as
LLaMA-3 and Qwen use) read from a ``vocab.json`` and ``merges.txt`` written
here, the model a tiny ``LlamaForCausalLM`` built from a config in code, and
every socket connection to another host fails during these tests.

Expected figures come from an independent oracle (``tests/oracle.py``'s LCS and
F, a tokenizer written here), or by hand.
"""
from __future__ import annotations

import json
import os
import re
import socket

import numpy as np
import pytest

from model_helpers import trainer_collate, trainer_examples  # tests/ is on sys.path (conftest.py)
from oracle import f_gamma, lcs_dp

os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["TRANSFORMERS_OFFLINE"] = "1"

# words the tiny BPE knows whole (each CJK character is one token); the rest are bytes
WORDS = ["今", "天", "气", "很", "好", "不", "错", "我", "用", "写", "代", "码", "。", "，",
         " the", " cat", " sat", " on", " mat", " is", " a", " dog", "The", "the", "cat", "Python",
         " python"]
EOS = "<|endoftext|>"
PAIRS = [("今天天气很好", "今天天气不错"), ("The cat sat on the mat", "the cat is on the mat"),
         ("很好", "不错"), ("我用Python写代码", "我用python写代码。"),
         ("天气", "the cat"), ("a dog", "a cat，a dog。")]


@pytest.fixture(autouse=True)
def no_network(monkeypatch):
    """Any connection to another host fails: nothing here may download a model or tokenizer."""
    real = socket.socket.connect

    def connect(self, address):
        host = address[0] if isinstance(address, tuple) else address
        if isinstance(host, str) and host not in ("127.0.0.1", "::1", "localhost") and "/" not in host:
            raise OSError(f"network access attempted during the test: {address!r}")
        return real(self, address)

    monkeypatch.setattr(socket.socket, "connect", connect)


def _byte_chars():
    """GPT-2's byte -> printable character table (byte-level BPE's alphabet)."""
    keep = list(range(ord("!"), ord("~") + 1)) + list(range(0xA1, 0xAD)) + list(range(0xAE, 0x100))
    table, extra = {}, 0
    for b in range(256):
        if b in keep:
            table[b] = chr(b)
        else:
            table[b] = chr(256 + extra)
            extra += 1
    return table


def write_bpe(folder):
    """vocab.json and merges.txt of a byte-level BPE knowing WORDS whole."""
    byte = _byte_chars()
    vocab = {byte[b]: b for b in range(256)}
    merges = []
    for w in WORDS:
        parts = [byte[b] for b in w.encode("utf-8")]
        while len(parts) > 1:  # left to right: ((a b) c) d
            merges.append(f"{parts[0]} {parts[1]}")
            parts = [parts[0] + parts[1]] + parts[2:]
            vocab.setdefault(parts[0], len(vocab))
    vocab[EOS] = len(vocab)
    (folder / "vocab.json").write_text(json.dumps(vocab, ensure_ascii=False), encoding="utf-8")
    (folder / "merges.txt").write_text("#version: 0.2\n" + "\n".join(dict.fromkeys(merges)) + "\n",
                                       encoding="utf-8")
    return len(vocab)


# -------------------------------------------------------------- the oracle

_CJK = re.compile(r"[\u3000-\u303f\u4e00-\u9fff\uff00-\uffef]|[A-Za-z0-9]+|\S")


def zh_tokens(text):
    """Each CJK character (and CJK punctuation) a token, a run of ASCII letters and digits a word
    (lowercased), any other non-space character a token; spaces ignored."""
    return [t.lower() for t in _CJK.findall(text)]


def oracle(preds, refs, gamma=1.2):
    """Macro-averaged (F, P, R) of text pairs, one reference each."""
    rows = []
    for p, r in zip(preds, refs):
        a, b = zh_tokens(p), zh_tokens(r)
        n = lcs_dp(a, b)
        prec = n / len(a) if a else 0.0
        rec = n / len(b) if b else 0.0
        rows.append((f_gamma(prec, rec, gamma), prec, rec))
    return tuple(float(np.mean([x[k] for x in rows])) for k in range(3))


# -------------------------------------------------------------- the setup

@pytest.fixture(scope="module")
def pf(tmp_path_factory):
    import paddle
    from paddleformers.trainer import Trainer, TrainingArguments  # ImportError = failure, by design
    from paddleformers.transformers import LlamaConfig, LlamaForCausalLM, Qwen2Tokenizer

    from paddle_rougel import paddleformers_compute_metrics

    folder = tmp_path_factory.mktemp("tokenizer")
    n_vocab = write_bpe(folder)
    tokenizer = Qwen2Tokenizer.from_pretrained(str(folder))  # local files only
    assert len(tokenizer) == n_vocab and tokenizer.pad_token_id == n_vocab - 1

    def model(hidden=16, seed=7):
        paddle.seed(seed)
        cfg = LlamaConfig(vocab_size=n_vocab, hidden_size=hidden, num_hidden_layers=1,
                          num_attention_heads=2, num_key_value_heads=1, intermediate_size=32,
                          max_position_embeddings=64, pad_token_id=tokenizer.pad_token_id,
                          eos_token_id=tokenizer.eos_token_id, bos_token_id=None,
                          tie_word_embeddings=False,
                          fuse_rms_norm=False)  # the fused kernel is GPU-only
        return LlamaForCausalLM(cfg)

    def copy_model():
        """Predicts its input token at each position: one-hot embeddings, the layer's output
        projections zeroed (the residual stream stays the embedding), lm_head the identity."""
        hidden = -(-n_vocab // 4) * 4  # two heads of an even size (rotary embeddings)
        m = model(hidden)
        eye = np.eye(n_vocab, hidden, dtype=np.float32)
        m.model.embed_tokens.weight.set_value(eye)
        for name, p in m.named_parameters():
            if name.endswith(("o_proj.weight", "down_proj.weight")):
                p.set_value(np.zeros(p.shape, dtype=np.float32))
        head = m.lm_head.weight
        head.set_value(eye.T.copy() if head.shape == [hidden, n_vocab] else eye)
        return m

    def examples(pairs):
        return trainer_examples(tokenizer, pairs)

    collate = trainer_collate(tokenizer)

    def trainer(m, out_dir, metrics=None, pre=None, **args):
        """A Trainer as a user writes one: compute_metrics=paddleformers_compute_metrics(tokenizer)."""
        targs = TrainingArguments(output_dir=str(out_dir), per_device_eval_batch_size=2, report_to=[],
                                  disable_tqdm=True, logging_dir=str(out_dir / "log"),
                                  amp_master_grad=False, **args)  # no AMP on CPU
        return Trainer(model=m, args=targs, data_collator=collate, tokenizer=tokenizer,
                       compute_metrics=metrics or paddleformers_compute_metrics(tokenizer),
                       preprocess_logits_for_metrics=pre)

    return dict(paddle=paddle, tokenizer=tokenizer, model=model, copy_model=copy_model,
                examples=examples, trainer=trainer, metrics=paddleformers_compute_metrics)


def _logits(out):
    return out[0] if isinstance(out, (tuple, list)) else out


def own_predictions(pf, m, data):
    """The model's argmax at each label position, one example at a time (no batch padding), decoded."""
    paddle, tok = pf["paddle"], pf["tokenizer"]
    preds, refs = [], []
    m.eval()
    with paddle.no_grad():
        for ex in data:
            # the input padded to the label length, as the collator does (the model is causal:
            # what comes after a position does not change its prediction)
            inp = ex["input_ids"] + [tok.pad_token_id] * max(0, len(ex["labels"]) - len(ex["input_ids"]))
            logits = _logits(m(input_ids=paddle.to_tensor([inp])))
            pred_ids = logits.numpy()[0].argmax(-1)[:len(ex["labels"])].tolist()
            preds.append(tok.decode([i for i in pred_ids if i != tok.pad_token_id], skip_special_tokens=True))
            refs.append(tok.decode(ex["labels"], skip_special_tokens=True))
    return preds, refs


def _check(metrics, want, prefix="eval"):
    got = (metrics[f"{prefix}_rougeL"], metrics[f"{prefix}_rougeL_precision"], metrics[f"{prefix}_rougeL_recall"])
    assert got == pytest.approx(want, abs=1e-12), (got, want)


# -------------------------------------------------------------- the tests

def test_tokenizer_is_byte_level_bpe_without_spaces(pf):
    tok = pf["tokenizer"]
    ids = tok("今天天气很好")["input_ids"]
    assert len(ids) == 6  # one token per CJK character
    assert tok.batch_decode([ids], skip_special_tokens=True) == ["今天天气很好"]  # no spaces put in
    assert tok.decode(tok("The cat sat on the mat")["input_ids"]) == "The cat sat on the mat"


def test_evaluate_equals_the_oracle_on_own_predictions(pf, tmp_path):
    m = pf["model"]()
    data = pf["examples"](PAIRS)
    tr = pf["trainer"](m, tmp_path)
    metrics = tr.evaluate(eval_dataset=data)
    preds, refs = own_predictions(pf, m, data)
    want = oracle(preds, refs)
    _check(metrics, want)
    assert want[0] > 0 and sum(bool(p) for p in preds) >= 4  # not a comparison of empties
    # the traps were really there: logits, -100 rows between batches, -100 label padding
    out = tr.predict(data)
    logits = out.predictions[0] if isinstance(out.predictions, tuple) else out.predictions
    assert logits.ndim == 3 and (logits == -100).all(axis=-1).any() and (out.label_ids == -100).any()


def test_copy_model_hand_values(pf, tmp_path):
    # the copy model predicts its input: 今天天气很好 vs 今天天气不错 (LCS 4 of 6), and
    # 很好 vs 不错 (nothing in common), The cat sat on the mat vs the cat is on the mat
    # (lowercased words: LCS 5 of 6)
    data = pf["examples"]([PAIRS[0], PAIRS[2], PAIRS[1]])
    m = pf["copy_model"]()
    preds, _ = own_predictions(pf, m, data)
    assert preds == ["今天天气很好", "很好", "The cat sat on the mat"]
    metrics = pf["trainer"](m, tmp_path).evaluate(eval_dataset=data)
    _check(metrics, ((4 / 6 + 0 + 5 / 6) / 3,) * 3)


def test_bfloat16_logits_and_numpy_level_padding(pf, tmp_path):
    # a bf16 model's logits reach compute_metrics as uint16 bits (the Trainer casts float16 only);
    # eval_accumulation_steps=1 pads them in numpy too (-100 wraps to 0xFF9C there)
    paddle = pf["paddle"]
    m = pf["copy_model"]()
    data = pf["examples"](PAIRS)
    seen = []
    f = pf["metrics"](pf["tokenizer"])

    def metrics(ev):
        seen.append(ev.predictions)
        return f(ev)

    def bf16(logits, labels):
        # shifted down (the argmax stays): every logit but the best one negative, as in a real
        # model, where the argmax of the raw bits picks the most negative logit instead
        return (_logits(logits) - 5.0).astype(paddle.bfloat16)

    want = pf["trainer"](m, tmp_path / "a").evaluate(eval_dataset=data)
    assert want["eval_rougeL"] == pytest.approx(oracle(*own_predictions(pf, m, data))[0], abs=1e-12)
    for steps in (None, 1):
        got = pf["trainer"](m, tmp_path / f"b{steps}", metrics=metrics, pre=bf16,
                            eval_accumulation_steps=steps).evaluate(eval_dataset=data)
        assert seen[-1].dtype == np.uint16 and seen[-1].ndim == 3
        for k in ("eval_rougeL", "eval_rougeL_precision", "eval_rougeL_recall"):
            assert got[k] == want[k], (steps, k)
    assert (seen[-1] == 0xFF9C).all(axis=-1).any()  # numpy-level padding was there


def test_ids_from_preprocess_logits_for_metrics(pf, tmp_path):
    # argmax ids [B, T] (-100 padded between batches); mask_by_labels=True scores what the
    # logits path scores
    m = pf["model"]()
    data = pf["examples"](PAIRS)
    want = pf["trainer"](m, tmp_path / "a").evaluate(eval_dataset=data)
    got = pf["trainer"](m, tmp_path / "b", metrics=pf["metrics"](pf["tokenizer"], mask_by_labels=True),
                        pre=lambda logits, labels: _logits(logits).argmax(-1)).evaluate(eval_dataset=data)
    for k in ("eval_rougeL", "eval_rougeL_precision", "eval_rougeL_recall"):
        assert got[k] == want[k], k
