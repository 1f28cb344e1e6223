"""Network output -> token-id tensors for the device path.

``prepare(output, label, seq_mask, ...)`` turns what a seq2seq network and
its data loader give (logits or ids, labels, an optional mask) into
``(cand, cand_valid, ref, ref_valid)``: [B, T] int64 ids and bool masks of
the tokens that count, ready for :func:`paddle_rougel.device.lcs_masked`.
Everything runs with Paddle operations on the inputs' place.

Rules, the same for both sides (the model output is the candidate, the
label the reference):

1. logits ``[B, T, V]`` (float) are reduced by ``argmax`` over V; ids are
   ``[B, T]`` (or ``[B, T, 1]``) integers; float ids are an error;
2. ``seq_mask`` ``[B, T]`` (or ``[B, T, 1]``): a sequence ends at its first 0
   (as paddlenlp);
3. ``eos_id``: then a sequence ends at its first eos (eos excluded);
4. ``pad_id``: then pad tokens are dropped wherever they are (the LCS
   treats them as removed, and the lengths do not count them);
5. ``vocab``: ids are mapped to a canonical id (the smallest id with the same
   token), so that scores are token-level; an id the vocab lacks is an error.

:func:`vocab_table` builds the canonical-id table once per vocab.
"""
from __future__ import annotations

from typing import Any, Optional, Tuple

import numpy as np
import paddle

__all__ = ["prepare", "vocab_table", "as_tensor", "check_packed"]

_INT = (paddle.int8, paddle.int16, paddle.int32, paddle.int64, paddle.uint8)
_FLOAT = (paddle.float16, paddle.float32, paddle.float64, paddle.bfloat16)


def as_tensor(x: Any, what: str, place=None) -> paddle.Tensor:
    """A paddle.Tensor (numpy arrays and lists are converted on ``place``)."""
    if isinstance(x, paddle.Tensor):
        return x
    if x is None:
        raise TypeError(f"{what} is None")
    try:
        arr = np.asarray(x)
    except Exception as e:  # pragma: no cover - exotic inputs
        raise TypeError(f"{what}: cannot convert {type(x).__name__} to a tensor ({e})") from None
    if arr.dtype == object or arr.dtype.kind not in "biuf":
        raise TypeError(f"{what} must be numeric, got an array of {arr.dtype}")
    return paddle.to_tensor(arr, place=place)


# ------------------------------------------------------------------ vocab

def vocab_table(vocab: Any) -> np.ndarray:
    """id -> canonical id (smallest id with an equal token), -1 where the vocab lacks the id.

    ``vocab``: a dict id -> token, a list/tuple of tokens (index = id), or any
    object with ``idx_to_token`` (dict or list) or ``to_tokens`` + ``__len__``
    (``paddlenlp.data.Vocab``; paddlenlp is not imported).

    >>> vocab_table({0: "a", 1: "b", 3: "a"}).tolist()
    [0, 1, -1, 0]
    """
    if isinstance(vocab, dict):
        items = list(vocab.items())
    elif isinstance(vocab, (list, tuple)):
        items = list(enumerate(vocab))
    elif hasattr(vocab, "idx_to_token"):
        m = vocab.idx_to_token
        items = list(m.items()) if isinstance(m, dict) else list(enumerate(m))
    elif hasattr(vocab, "to_tokens") and hasattr(vocab, "__len__"):
        n = len(vocab)
        items = list(enumerate(vocab.to_tokens(list(range(n)))))
    else:
        raise TypeError("vocab must be a dict id -> token, a list of tokens, or a Vocab with "
                        f"idx_to_token / to_tokens; got {type(vocab).__name__}")
    ids = []
    for i, _ in items:
        if isinstance(i, (bool, np.bool_)) or not isinstance(i, (int, np.integer)) or i < 0:
            raise TypeError(f"vocab ids must be non-negative integers, got {i!r}")
        ids.append(int(i))
    table = np.full((max(ids) + 1) if ids else 0, -1, dtype=np.int64)
    first: dict = {}
    for i, tok in sorted(zip(ids, (t for _, t in items)), key=lambda it: it[0]):
        try:
            table[i] = first.setdefault(tok, i)
        except TypeError:
            raise TypeError(f"vocab token for id {i} is unhashable ({type(tok).__name__})") from None
    return table


# ------------------------------------------------------------------ inputs

def _ids(x: paddle.Tensor, what: str, allow_logits: bool) -> Tuple[paddle.Tensor, bool]:
    """[B, T] int64 ids from ids or logits; returns (ids, was_logits)."""
    if x.dtype in _FLOAT:
        if allow_logits and x.ndim == 3:
            return None, True
        raise TypeError(f"{what}: float token ids of shape {list(x.shape)} (expected integer ids "
                        f"[B, T]{' or float logits [B, T, V]' if allow_logits else ''})")
    if x.dtype not in _INT:
        raise TypeError(f"{what}: expected integer token ids, got {x.dtype}")
    if x.ndim == 3 and x.shape[2] == 1:
        x = x.squeeze(2)
    if x.ndim != 2:
        raise ValueError(f"{what}: expected [B, T] (or [B, T, 1]) ids"
                         f"{' or [B, T, V] logits' if allow_logits else ''}, got shape {list(x.shape)}")
    return x.astype("int64"), False


def _mask(seq_mask: paddle.Tensor) -> paddle.Tensor:
    m = seq_mask
    if m.ndim == 3 and m.shape[2] == 1:
        m = m.squeeze(2)
    if m.ndim != 2:
        raise ValueError(f"seq_mask: expected [B, T] (or [B, T, 1]), got shape {list(seq_mask.shape)}")
    if m.dtype != paddle.bool and m.dtype not in _INT and m.dtype not in _FLOAT:
        raise TypeError(f"seq_mask: expected a numeric or bool mask, got {m.dtype}")
    return m


def _before_first(hit: paddle.Tensor) -> paddle.Tensor:
    """True at positions before the first True of each row."""
    return paddle.cumsum(hit.astype("int32"), axis=1) == 0


def prepare(output: Any, label: Any, seq_mask: Any = None, *, pad_id: Optional[int] = None,
            eos_id: Optional[int] = None, canon: Optional[paddle.Tensor] = None,
            mask_logits: bool = False):
    """Candidate/reference ids and validity masks: ``(cand, cand_valid, ref, ref_valid)``.

    Args:
        output: logits [B, T, V] (float) or ids [B, T] / [B, T, 1].
        label: ids [B, T] / [B, T, 1].
        seq_mask: optional [B, T] / [B, T, 1]; a row ends at its first 0.
        pad_id, eos_id: see the module docstring.
        canon: canonical-id table (``vocab_table`` as an int64 tensor) or None.
        mask_logits: multiply the logits by ``seq_mask`` before argmax
            (paddlenlp's exact operation; positions it changes are cut anyway).

    Raises before doing any work with side effects: TypeError / ValueError
    naming the argument for wrong ranks, float ids, mismatched batch sizes or
    lengths, and KeyError naming the id and row for an id missing from the vocab.
    """
    out = as_tensor(output, "output")
    place = out.place
    lab = as_tensor(label, "label", place)
    ids_o, is_logits = _ids(out, "output", allow_logits=True)
    ids_l, _ = _ids(lab, "label", allow_logits=False)
    b = out.shape[0]
    if ids_l.shape[0] != b:
        raise ValueError(f"batch sizes differ: output has {b} rows, label has {ids_l.shape[0]}")
    mask = None
    if seq_mask is not None:
        mask = _mask(as_tensor(seq_mask, "seq_mask", place))
        nz = mask if mask.dtype == paddle.bool else mask != 0
        if mask.shape[0] != b:
            raise ValueError(f"batch sizes differ: output has {b} rows, seq_mask has {mask.shape[0]}")
        t_out = out.shape[1]
        if mask.shape[1] != t_out or mask.shape[1] != ids_l.shape[1]:
            raise ValueError(f"seq_mask has {mask.shape[1]} positions but output has {t_out} "
                             f"and label {ids_l.shape[1]}")
    if is_logits:
        logits = out
        if mask_logits and mask is not None:
            logits = logits * mask.astype(logits.dtype).unsqueeze(2)
        ids_o = paddle.argmax(logits, axis=2).astype("int64")

    def valid_of(ids: paddle.Tensor) -> paddle.Tensor:
        keep = paddle.ones_like(ids, dtype="bool")
        if mask is not None:
            keep = _before_first(paddle.logical_not(nz))
        if eos_id is not None:
            keep = paddle.logical_and(keep, _before_first(ids == eos_id))
        if pad_id is not None:
            keep = paddle.logical_and(keep, ids != pad_id)
        return keep

    cv, rv = valid_of(ids_o), valid_of(ids_l)
    ids_raw_o, ids_raw_l = ids_o, ids_l
    if canon is not None:
        ids_o, bad_o = _canonical(ids_o, cv, canon)
        ids_l, bad_l = _canonical(ids_l, rv, canon)
        if bool(paddle.logical_or(bad_o.any(), bad_l.any())):  # the one host check
            for what, ids, bad in (("output", ids_o, bad_o), ("label", ids_l, bad_l)):
                if bool(bad.any()):
                    rows, cols = np.nonzero(bad.numpy())
                    r, c = int(rows[0]), int(cols[0])
                    tok = (ids_raw_o if what == "output" else ids_raw_l)[r, c]
                    raise KeyError(f"{what}: token id {int(tok)} (batch row {r}, position {c}) "
                                   f"is not in the vocab ({canon.shape[0]} ids)")
    return ids_o, cv, ids_l, rv


def _canonical(ids: paddle.Tensor, valid: paddle.Tensor, canon: paddle.Tensor):
    """(canonical ids, bool mask of valid positions whose id the vocab lacks)."""
    n = canon.shape[0]
    inside = paddle.logical_and(ids >= 0, ids < n)
    if n:
        mapped = paddle.gather(canon, paddle.clip(ids, 0, n - 1).reshape([-1])).reshape(ids.shape)
        mapped = paddle.where(inside, mapped, paddle.full_like(mapped, -1))
    else:
        mapped = paddle.full_like(ids, -1)
    return mapped, paddle.logical_and(valid, mapped < 0)


def check_packed(packed: Any) -> np.ndarray:
    """Validate ``compute``'s output ([B, 3] integers: lcs, cand_len, ref_len) as numpy."""
    arr = packed.numpy() if isinstance(packed, paddle.Tensor) else np.asarray(packed)
    if arr.ndim != 2 or arr.shape[1] != 3 or arr.dtype.kind not in "iu":
        raise ValueError(
            "update() with one argument expects compute()'s output, an integer array [B, 3] of "
            f"(lcs, cand_len, ref_len); got {arr.dtype} {list(arr.shape)}. For raw network "
            "output call update(output, label[, seq_mask])")
    arr = arr.astype(np.int64)
    if (arr < 0).any() or (arr[:, 0] > np.minimum(arr[:, 1], arr[:, 2])).any():
        raise ValueError("update(): inconsistent compute() output (negative length or lcs > length)")
    return arr
