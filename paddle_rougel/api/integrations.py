"""Framework integrations: a one-line ``compute_metrics`` for the PaddleNLP and PaddleFormers Trainers.

``Trainer(..., compute_metrics=trainer_compute_metrics(tokenizer))`` logs
``eval_rougeL``, ``eval_rougeL_precision`` and ``eval_rougeL_recall`` (with
``rouge_types=["rouge1", "rouge2", "rougeL"]`` each type's three keys).
``paddleformers_compute_metrics`` and ``paddlenlp_compute_metrics`` are the
same function under the names of the two Trainers (PaddleFormers, PaddleNLP's
successor, has no metrics module of its own).  Every ROUGE type of the registry
(``rouge_types``: rouge1, rouge2, any rougeN, rougeL, rougeLsum).

What both Trainers hand to ``compute_metrics`` (PaddleNLP 2.8.1 and
PaddleFormers 1.2.0, ``Trainer.evaluation_loop``), and what this helper does
about it:

* an ``EvalPrediction(predictions, label_ids)`` (a named tuple, so the plain
  tuple form works too);
* ``predictions`` is a tuple when the model returns more than loss and logits:
  element ``prediction_index`` (0) is used;
* logits ``[B, T, V]`` (argmax is taken) or token ids ``[B, T]`` (from
  ``preprocess_logits_for_metrics`` or ``Seq2SeqTrainer``'s generation);
  bfloat16 logits arrive as ``uint16`` (Paddle's ``Tensor.numpy()`` gives the
  raw bits; the Trainers cast only float16) and are read as bfloat16, not as
  integers;
* batches are concatenated with ``-100`` padding whatever your labels use, on
  both sides (a padded logits position is a vocabulary row of ``-100``): every
  ``ignore_index``, negative id and ``pad_token_id`` position is dropped before
  ``tokenizer.batch_decode``, so padding is never decoded as text;
* with logits, the prediction at a position whose label is ignored (prompt or
  padding) is dropped too: teacher forcing lines logits up with labels, and
  the model's guesses at padding would otherwise count as prediction text.
  Both Trainers' causal LMs expect labels already shifted by the data
  pipeline (logits at t are scored against the label at t), as here;
* decoded text: BERT/ERNIE tokenizers put a space between CJK characters
  (``"今 天 天 气"``) and around punctuation, sentencepiece and byte-level BPE
  ones (LLaMA, Qwen) do not.  The default ``tokenize="zh"`` ignores spaces
  (each CJK character a token, each run of Latin letters and digits a word),
  so both spellings score the same.  Scoring the decoded text per character
  (``tokenize="char"``) would count the spaces as matching tokens and inflate
  the score.

>>> class CharTokenizer:  # any object with batch_decode and pad_token_id will do
...     pad_token_id = 0
...     vocab = ["[PAD]", "今", "天", "气", "很", "好", "不", "错"]
...     def batch_decode(self, seqs, skip_special_tokens=True):
...         return [" ".join(self.vocab[i] for i in s if i or not skip_special_tokens) for s in seqs]
>>> f = trainer_compute_metrics(CharTokenizer())
>>> f(([[1, 2, 2, 3, 4, 5, 0]], [[1, 2, 2, 3, 6, 7, -100]]))  # 今天天气很好 vs 今天天气不错
{'rougeL': 0.6666666666666666, 'rougeL_precision': 0.6666666666666666, 'rougeL_recall': 0.6666666666666666}
"""
from __future__ import annotations

import inspect
from typing import Any, Callable, Optional

import numpy as np

from .functional import compute
from ..core.settings import reject_unknown
from ..metrics import rouge_types as registry_types

__all__ = ["trainer_compute_metrics", "paddleformers_compute_metrics", "paddlenlp_compute_metrics"]

# Trainer.evaluation_loop pads across batches with this value, whatever the labels' ignore index
_TRAINER_PAD = -100
# -100 written into a uint16 (bfloat16 bits) array by numpy-level padding wraps to this
_BF16_PAD_BITS = np.uint16(np.int64(_TRAINER_PAD) & 0xFFFF)


def _bf16_to_float32(bits: np.ndarray) -> np.ndarray:
    """bfloat16 values from their raw uint16 bits (the top half of a float32)."""
    return (bits.astype(np.uint32) << 16).view(np.float32)


def _numpy(x: Any, what: str) -> np.ndarray:
    if hasattr(x, "numpy") and not isinstance(x, np.ndarray):  # a paddle / torch tensor
        x = x.numpy()
    try:
        return np.asarray(x)
    except ValueError:  # ragged nested lists
        raise ValueError(f"{what}: expected a rectangular array [B, T] or [B, T, V] "
                         "(pad rows with the ignore index)") from None


def _pick(x: Any, index: int, what: str, arg: str) -> Any:
    # the Trainer's form of several model outputs: a tuple of arrays (rows are never arrays there)
    if isinstance(x, tuple) and x and all(hasattr(e, "shape") and len(e.shape) >= 2 for e in x):
        if not -len(x) <= index < len(x):
            raise IndexError(f"{what} is a tuple of {len(x)} arrays; {arg}={index} is out of range")
        return x[index]
    return x


def trainer_compute_metrics(tokenizer: Any, *, ignore_index: int = -100,
                            skip_special_tokens: bool = True, tokenize: Any = "zh",
                            lowercase: bool = True, prediction_index: int = 0,
                            label_index: int = 0, mask_by_labels: Optional[bool] = None,
                            rouge_types: Any = ("rougeL",), **settings: Any) -> Callable[[Any], dict]:
    """A ``compute_metrics`` for the PaddleNLP and PaddleFormers ``Trainer``: token ids in, ROUGE-L out.

    Args:
        tokenizer: anything with ``batch_decode(list_of_id_lists,
            skip_special_tokens=...)`` and ``pad_token_id`` (may be ``None``):
            a PaddleNLP, PaddleFormers or Hugging Face tokenizer.  Neither
            framework is imported here.
        ignore_index: the label value of positions that are not target text
            (the Trainer's ``-100``).  Dropped on both sides, as are ``-100``
            (the Trainer's own padding between batches), any other negative
            id, and ``pad_token_id``.
        skip_special_tokens: passed to ``batch_decode``; True keeps
            ``[CLS]``, ``[SEP]``, ``</s>`` ... out of the scored text.
        tokenize: how the decoded text becomes tokens (default ``"zh"``: CJK
            characters, and words of Latin letters and digits; spaces
            ignored; punctuation one token each), see :mod:`paddle_rougel.text`.
        lowercase: default True, as rouge-score; uncased tokenizers already
            lowercase, so the figure does not depend on the tokenizer's casing.
        prediction_index / label_index: which array to use when predictions /
            labels are a tuple of arrays (the Trainer passes every model output
            after the loss; the logits are usually the first).
        mask_by_labels: drop the predicted token at each position whose label
            is ignored.  ``None`` (default): only for logits ``[B, T, V]`` of
            the same ``[B, T]`` as the labels (teacher forcing).  Pass True
            for ids already argmax-ed by ``preprocess_logits_for_metrics``;
            leave False for generated ids (they do not line up with labels).
        rouge_types: any ROUGE types of the registry, as :func:`paddle_rougel.compute`
            takes them: ``"rougeL"`` (default), ``"rougeLsum"`` (summary-level, sentences
            split by ``split``, default newline), ``"rouge1"``, ``"rouge2"`` (any
            ``"rougeN"``), one name or a list (``["rouge1", "rouge2", "rougeL"]``: the
            keys LLaMA-Factory's ``ComputeSimilarity`` logs, on the 0-1 scale).
        **settings: the rest of :func:`paddle_rougel.compute`'s settings
            (``gamma`` (default 1.2, paddlenlp's), ``alpha``, ``multi_ref``,
            ``normalize``, ``stem``, ``split``), checked now.

    Returns:
        ``f(eval_pred) -> {"rougeL": F, "rougeL_precision": P,
        "rougeL_recall": R}`` (each type's three keys, in the order asked):
        Python floats on the 0-1 scale of :func:`paddle_rougel.compute`
        (macro averages; 0.0 for an empty set).  ``f.signature`` is
        ``compute``'s signature of the settings.
    """
    if not callable(getattr(tokenizer, "batch_decode", None)):
        raise TypeError("tokenizer must have a batch_decode method (a PaddleNLP or Hugging Face tokenizer), "
                        f"got {type(tokenizer).__name__}")
    if "per_instance" in settings:
        raise TypeError("per_instance is not supported: the Trainer logs scalar metrics only")
    takes = [k for k in inspect.signature(compute).parameters if k not in ("predictions", "references")]
    reject_unknown({k: v for k, v in settings.items() if k not in takes}, trainer_compute_metrics,
                   also=tuple(takes), name="trainer_compute_metrics")
    for name, v in (("ignore_index", ignore_index), ("prediction_index", prediction_index),
                    ("label_index", label_index)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
            raise TypeError(f"{name} must be an int, got {v!r}")
    if mask_by_labels not in (None, True, False):
        raise TypeError(f"mask_by_labels must be None, True or False, got {mask_by_labels!r}")
    types = registry_types(rouge_types)  # every type of the registry: rouge1, rouge2, rougeN, rougeL, rougeLsum
    text = dict(tokenize=tokenize, lowercase=lowercase, rouge_types=tuple(types), **settings)
    compute([], [], **text)  # bad settings fail here, not after an epoch
    return _TrainerMetrics(tokenizer, int(ignore_index), skip_special_tokens, prediction_index,
                           label_index, mask_by_labels, text)


# the same function under each Trainer's name (PaddleFormers is PaddleNLP's successor)
paddleformers_compute_metrics = trainer_compute_metrics
paddlenlp_compute_metrics = trainer_compute_metrics


class _TrainerMetrics:
    """The function ``trainer_compute_metrics`` returns: ``f(eval_pred) -> dict``."""

    def __init__(self, tokenizer, ignore_index, skip_special_tokens, prediction_index, label_index,
                 mask_by_labels, text):
        self.tokenizer, self.skip_special_tokens = tokenizer, skip_special_tokens
        self.prediction_index, self.label_index = prediction_index, label_index
        self.mask_by_labels, self.text = mask_by_labels, text
        self.drop_values = {ignore_index, _TRAINER_PAD}
        self.signature = compute([], [], **text)["signature"]

    def _keep(self, ids: np.ndarray) -> np.ndarray:
        keep = ids >= 0
        for v in self.drop_values:
            keep &= ids != v
        pad = getattr(self.tokenizer, "pad_token_id", None)
        if pad is not None:
            keep &= ids != pad  # generated sequences are padded with it: never text
        return keep

    def _decode(self, ids: np.ndarray, keep: np.ndarray) -> list:
        rows = [row[k].tolist() for row, k in zip(ids, keep)]  # Python ints: every tokenizer takes them
        return list(self.tokenizer.batch_decode(rows, skip_special_tokens=self.skip_special_tokens))

    def _ids(self, preds: np.ndarray):
        """(ids [B, T], whether they came from logits)."""
        bf16_pad = None
        if preds.ndim == 3 and preds.dtype == np.uint16:
            # bfloat16 logits as Paddle's numpy() gives them: raw bits, not integers.  A row of
            # -100 padded in numpy wrapped to 0xFF9C (a NaN); one padded in Paddle is -100.0
            bf16_pad = (preds == _BF16_PAD_BITS).all(axis=-1)
            preds = _bf16_to_float32(preds)
        if preds.ndim == 3 and preds.dtype.kind in "fiu":
            # a row that is all -100 (or ignore_index) is the Trainer's padding between batches
            lo, hi = preds.min(axis=-1), preds.max(axis=-1)
            padded = (lo == hi) & np.isin(hi, list(self.drop_values))
            if bf16_pad is not None:
                padded |= bf16_pad
            ids = preds.argmax(axis=-1)
            ids[padded] = _TRAINER_PAD
            return ids, True
        if preds.ndim == 2 and np.issubdtype(preds.dtype, np.integer):
            return preds, False
        raise ValueError(f"predictions must be logits [B, T, V] (bfloat16 ones as uint16 bits) or "
                         f"integer token ids [B, T], got {preds.dtype} {preds.shape}")

    def __call__(self, eval_pred: Any) -> dict:
        if hasattr(eval_pred, "predictions") and hasattr(eval_pred, "label_ids"):
            preds, labels = eval_pred.predictions, eval_pred.label_ids
        else:
            preds, labels = eval_pred[0], eval_pred[1]
        preds = _numpy(_pick(preds, self.prediction_index, "predictions", "prediction_index"), "predictions")
        labels = _numpy(_pick(labels, self.label_index, "label_ids", "label_index"), "label_ids")
        if labels.ndim != 2 or not np.issubdtype(labels.dtype, np.integer):
            raise ValueError(f"label_ids must be token ids [B, T], got {labels.dtype} {labels.shape}")
        ids, logits = self._ids(preds)
        if len(ids) != len(labels):
            raise ValueError(f"got {len(ids)} predictions but {len(labels)} labels")
        label_keep, keep = self._keep(labels), self._keep(ids)
        aligned = ids.shape == labels.shape
        if self.mask_by_labels or (self.mask_by_labels is None and logits and aligned):
            if not aligned:
                raise ValueError(f"mask_by_labels=True needs predictions of the labels' shape, "
                                 f"got {ids.shape} and {labels.shape}")
            keep &= label_keep
        out = compute(self._decode(ids, keep), self._decode(labels, label_keep), **self.text)
        return {k: float(out[k]) for t in self.text["rouge_types"]
                for k in (t, f"{t}_precision", f"{t}_recall")}
