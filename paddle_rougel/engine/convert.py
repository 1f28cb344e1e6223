"""Network output -> candidate and reference tokens, on the host or on the device.

``prepare(output, label, seq_mask, ...)`` turns what a seq2seq network and its
data loader give (logits or ids, labels, an optional mask) into
``(cand, cand_valid, ref, ref_valid)``: [B, T] int64 ids and bool masks of the
tokens that count.  The rules are written once, over an array namespace, and
run with numpy (the host path: numpy arrays and CPU tensors, scored by the C
engine) or with Paddle operations on the inputs' place (the device path,
scored by :func:`paddle_rougel.device.lcs_masked`).  The model output is the
candidate, the label the reference; the same rules apply to both sides:

1. logits ``[B, T, V]`` (float, V >= 1) are reduced by ``argmax`` over V; ids
   are ``[B, T]`` (or ``[B, T, 1]``) integers; float ids are an error;
2. ``seq_mask`` ``[B, T]`` (or ``[B, T, 1]``): a sequence ends at its first 0
   (as paddlenlp);
3. ``eos_id``: then a sequence ends at its first eos (eos excluded);
4. ``pad_id``: then pad tokens are dropped wherever they are;
5. ``vocab``: ids are mapped to a canonical id (the smallest id with an equal
   token), so scores are token-level; an id the vocab lacks is an error.

This module imports paddle only for tensors.
"""
from __future__ import annotations

from typing import Any, Optional

import numpy as np

__all__ = ["prepare", "host_tokens", "rows", "vocab_table", "VocabTable", "check_packed", "on_host",
           "as_tensor"]

# |id| below this: the device LCS encodes a valid token t as 2t in an int64
_ID_LIMIT = 1 << 61


# ------------------------------------------------------------------ vocab

def _vocab_items(vocab: Any) -> list:
    if isinstance(vocab, dict):
        return list(vocab.items())
    if isinstance(vocab, (list, tuple)):
        return list(enumerate(vocab))
    if hasattr(vocab, "idx_to_token"):
        m = vocab.idx_to_token
        return list(m.items()) if isinstance(m, dict) else list(enumerate(m))
    if hasattr(vocab, "to_tokens") and hasattr(vocab, "__len__"):
        return list(enumerate(vocab.to_tokens(list(range(len(vocab))))))
    raise TypeError("vocab must be a dict id -> token, a list of tokens, or a Vocab with "
                    f"idx_to_token / to_tokens; got {type(vocab).__name__}")


def vocab_table(vocab: Any) -> np.ndarray:
    """id -> canonical id (smallest id with an equal token), -1 where the vocab lacks the id.

    ``vocab``: a dict id -> token, a list/tuple of tokens (index = id), or any
    object with ``idx_to_token`` (dict or list) or ``to_tokens`` + ``__len__``
    (``paddlenlp.data.Vocab``; paddlenlp is not imported).

    >>> vocab_table({0: "a", 1: "b", 3: "a"}).tolist()
    [0, 1, -1, 0]
    """
    return _table_of(_vocab_items(vocab))


def _table_of(items: list) -> np.ndarray:
    ids = []
    for i, _ in items:
        if isinstance(i, (bool, np.bool_)) or not isinstance(i, (int, np.integer)) or i < 0:
            raise TypeError(f"vocab ids must be non-negative integers, got {i!r}")
        ids.append(int(i))
    if ids and max(ids) >= 1 << 31:
        raise ValueError(f"vocab id {max(ids)} is too large for a lookup table (ids must be < 2**31)")
    table = np.full((max(ids) + 1) if ids else 0, -1, dtype=np.int64)
    first: dict = {}
    for i, tok in sorted(zip(ids, (t for _, t in items)), key=lambda it: it[0]):
        try:
            table[i] = first.setdefault(tok, i)
        except TypeError:
            raise TypeError(f"vocab token for id {i} is unhashable ({type(tok).__name__})") from None
    return table


class VocabTable:
    """The canonical-id table of a vocab, rebuilt whenever the vocab's content changes.

    The check compares a snapshot of the vocab's (id, token) items with the
    current ones (C-speed list equality), so a vocab mutated in place is
    never scored with a stale table.
    """

    def __init__(self, vocab: Any):
        self.vocab = vocab
        self._items = _vocab_items(vocab)
        self.table = _table_of(self._items)
        self._per_place: dict = {}

    def current(self) -> np.ndarray:
        items = _vocab_items(self.vocab)
        if items != self._items:
            self._items, self.table, self._per_place = items, _table_of(items), {}
        return self.table

    def tensor(self, place):
        import paddle

        table = self.current()
        key = str(place)
        if key not in self._per_place:
            self._per_place[key] = paddle.to_tensor(table, place=place)
        return self._per_place[key]


# ------------------------------------------------------ array namespaces

class _Numpy:
    """The handful of array operations the rules need, for numpy."""

    @staticmethod
    def kind(x) -> str:
        return x.dtype.kind if x.dtype.kind in "biuf" else "?"

    argmax = staticmethod(lambda x, axis: np.argmax(x, axis=axis))
    cumsum = staticmethod(lambda x, axis: np.cumsum(x, axis=axis))
    logical_and = staticmethod(np.logical_and)
    logical_not = staticmethod(np.logical_not)
    take = staticmethod(np.take)
    clip = staticmethod(np.clip)
    where = staticmethod(np.where)
    unsqueeze = staticmethod(np.expand_dims)

    @staticmethod
    def ones(x):
        return np.ones(x.shape, dtype=bool)

    @staticmethod
    def full_like(x, v):
        return np.full_like(x, v)

    @staticmethod
    def to_numpy(x):
        return x


class _Paddle:
    """The same operations with Paddle ops on the tensors' own place."""

    def __init__(self):
        import paddle

        self.p = paddle
        self._kinds = {paddle.bool: "b"}
        for d in (paddle.int8, paddle.int16, paddle.int32, paddle.int64):
            self._kinds[d] = "i"
        self._kinds[paddle.uint8] = "u"
        for d in (paddle.float16, paddle.float32, paddle.float64, paddle.bfloat16):
            self._kinds[d] = "f"

    def kind(self, x) -> str:
        return self._kinds.get(x.dtype, "?")

    def argmax(self, x, axis):
        return self.p.argmax(x, axis=axis)

    def cumsum(self, x, axis):
        return self.p.cumsum(x, axis=axis)

    def logical_and(self, a, b):
        return self.p.logical_and(a, b)

    def logical_not(self, a):
        return self.p.logical_not(a)

    def take(self, table, idx):
        return self.p.gather(table, idx.reshape([-1])).reshape(idx.shape)

    def clip(self, x, lo, hi):
        return self.p.clip(x, lo, hi)

    def where(self, c, a, b):
        return self.p.where(c, a, b)

    def unsqueeze(self, x, axis):
        return self.p.unsqueeze(x, axis)

    def ones(self, x):
        return self.p.ones_like(x, dtype="bool")

    def full_like(self, x, v):
        return self.p.full_like(x, v)

    @staticmethod
    def to_numpy(x):
        return x.numpy()


def on_host(x: Any) -> bool:
    """True for numpy data and CPU tensors (scored by the C engine), False for accelerator tensors."""
    if isinstance(x, np.ndarray) or not hasattr(x, "place"):
        return True
    place = x.place
    return bool(getattr(place, "is_cpu_place", lambda: False)())


def _host_array(x: Any, what: str) -> np.ndarray:
    if x is None:
        raise TypeError(f"{what} is None")
    if hasattr(x, "place") and hasattr(x, "numpy"):  # a CPU tensor
        import paddle

        if x.dtype == paddle.bfloat16:  # numpy has no bfloat16
            x = x.astype("float32")
        return x.numpy()
    try:
        arr = np.asarray(x)
    except Exception as e:  # noqa: BLE001 - exotic inputs get one clear message
        raise TypeError(f"{what}: cannot convert {type(x).__name__} to an array ({e})") from None
    if arr.dtype.kind not in "biuf":
        raise TypeError(f"{what} must be numeric, got an array of {arr.dtype}")
    return arr


def as_tensor(x: Any, what: str, place=None):
    import paddle

    if isinstance(x, paddle.Tensor):
        return x
    return paddle.to_tensor(_host_array(x, what), place=place)


# ------------------------------------------------------------------ rules

def _ids(x, what: str, xp, allow_logits: bool):
    """[B, T] int64 ids from ids or logits; returns (ids or None, was_logits)."""
    k, shape = xp.kind(x), list(x.shape)
    if k == "f":
        if allow_logits and x.ndim == 3:
            if shape[2] == 0:
                raise ValueError(f"{what}: logits of shape {shape} have no vocabulary axis (V = 0)")
            return None, True
        raise TypeError(f"{what}: float token ids of shape {shape} (expected integer ids "
                        f"[B, T]{' or float logits [B, T, V]' if allow_logits else ''})")
    if k not in "iu":
        raise TypeError(f"{what}: expected integer token ids, got {x.dtype}")
    if x.ndim == 3 and shape[2] == 1:
        x = x.squeeze(2)
    if x.ndim != 2:
        raise ValueError(f"{what}: expected [B, T] (or [B, T, 1]) ids"
                         f"{' or [B, T, V] logits' if allow_logits else ''}, got shape {shape}")
    return x.astype("int64"), False


def _mask(m, xp):
    shape = list(m.shape)
    if m.ndim == 3 and shape[2] == 1:
        m = m.squeeze(2)
    if m.ndim != 2:
        raise ValueError(f"seq_mask: expected [B, T] (or [B, T, 1]), got shape {shape}")
    if xp.kind(m) == "?":
        raise TypeError(f"seq_mask: expected a numeric or bool mask, got {m.dtype}")
    return m


def _before_first(hit, xp):
    """True at positions before the first True of each row."""
    return xp.cumsum(hit.astype("int32"), axis=1) == 0


def _check_shapes(out, ids_l, mask) -> None:
    b = out.shape[0]
    if ids_l.shape[0] != b:
        raise ValueError(f"batch sizes differ: output has {b} rows, label has {ids_l.shape[0]}")
    if mask is not None:
        if mask.shape[0] != b:
            raise ValueError(f"batch sizes differ: output has {b} rows, seq_mask has {mask.shape[0]}")
        if mask.shape[1] != out.shape[1] or mask.shape[1] != ids_l.shape[1]:
            raise ValueError(f"seq_mask has {mask.shape[1]} positions but output has "
                             f"{out.shape[1]} and label {ids_l.shape[1]}")


def _valid(ids, nz, eos_id, pad_id, xp):
    keep = xp.ones(ids) if nz is None else _before_first(xp.logical_not(nz), xp)
    if eos_id is not None:
        keep = xp.logical_and(keep, _before_first(ids == eos_id, xp))
    if pad_id is not None:
        keep = xp.logical_and(keep, ids != pad_id)
    return keep


def _canonical(ids, valid, canon, xp):
    """(canonical ids, mask of valid positions whose id the vocab lacks)."""
    n = canon.shape[0]
    if n == 0:
        mapped = xp.full_like(ids, -1)
    else:
        inside = xp.logical_and(ids >= 0, ids < n)
        mapped = xp.take(canon, xp.clip(ids, 0, n - 1))
        mapped = xp.where(inside, mapped, xp.full_like(mapped, -1))
    return mapped, xp.logical_and(valid, mapped < 0)


def _masked_argmax(logits: np.ndarray, mask: np.ndarray, nz: np.ndarray) -> np.ndarray:
    """``argmax(logits * mask[..., None], axis=2)`` (paddlenlp's masked argmax) at every position
    that can be kept, without the [B, T, V] product.

    Why it is the same where it matters: a kept position is one before the first zero of
    its row's mask (``_valid``), so its mask value m (cast to the logits' dtype, as the
    product casts it) is nonzero there.  Where m == 1, ``x * 1 == x`` exactly for every
    float (inf, NaN and -0.0 included), so the product's argmax is the logits' own.  A
    position where the mask is 0 is cut whatever its id, and so is every later one.  That
    leaves the kept positions where m is neither (fractional, negative, > 1, or a nonzero
    mask that the cast turns into 0): there the product changes the order (a negative m
    reverses it; rounding can make ties; an underflow makes all zeros), so those positions,
    and only those, are multiplied exactly as paddlenlp does and their argmax taken.  With
    a 0/1 mask that is none: the cost is the argmax alone.
    """
    ids = np.argmax(logits, axis=2).astype(np.int64)
    m = mask.astype(logits.dtype)
    special = np.logical_and(m != 1, _before_first(np.logical_not(nz), _Numpy))
    if special.any():
        r, c = np.nonzero(special)
        ids[r, c] = np.argmax(logits[r, c, :] * m[r, c, None], axis=1)
    return ids


def _rules(out, lab, seq_mask, xp, pad_id, eos_id, canon, mask_logits):
    """The five rules (module doc) over namespace ``xp``; returns (cand, cv, ref, rv)."""
    ids_o, is_logits = _ids(out, "output", xp, allow_logits=True)
    ids_l, _ = _ids(lab, "label", xp, allow_logits=False)
    mask = None if seq_mask is None else _mask(seq_mask, xp)
    _check_shapes(out, ids_l, mask)
    nz = None if mask is None else (mask if xp.kind(mask) == "b" else mask != 0)
    if is_logits:
        if mask_logits and mask is not None and xp is _Numpy:
            ids_o = _masked_argmax(out, mask, nz)
        else:
            logits = out
            if mask_logits and mask is not None:  # paddlenlp's exact operation
                logits = logits * xp.unsqueeze(mask.astype(logits.dtype), 2)
            ids_o = xp.argmax(logits, axis=2).astype("int64")
    cv, rv = _valid(ids_o, nz, eos_id, pad_id, xp), _valid(ids_l, nz, eos_id, pad_id, xp)
    if canon is None:
        return ids_o, cv, ids_l, rv
    co, bad_o = _canonical(ids_o, cv, canon, xp)
    cl, bad_l = _canonical(ids_l, rv, canon, xp)
    if bool(bad_o.any()) or bool(bad_l.any()):  # host checks, vocab path only
        for what, raw, bad in (("output", ids_o, bad_o), ("label", ids_l, bad_l)):
            if bool(bad.any()):
                rows, cols = np.nonzero(xp.to_numpy(bad))
                r, c = int(rows[0]), int(cols[0])
                tok = int(xp.to_numpy(raw)[r, c])
                raise KeyError(f"{what}: token id {tok} (batch row {r}, position {c}) "
                               f"is not in the vocab ({canon.shape[0]} ids)")
    return co, cv, cl, rv


def prepare(output: Any, label: Any, seq_mask: Any = None, *, pad_id: Optional[int] = None,
            eos_id: Optional[int] = None, canon=None, mask_logits: bool = False):
    """Device path: ``(cand, cand_valid, ref, ref_valid)`` as Paddle tensors on the output's place.

    ``canon``: the vocab's canonical-id table as an int64 tensor (or None).
    Raises before any side effect: TypeError / ValueError naming the argument
    for wrong ranks, float ids, empty logits, mismatched batch sizes or
    lengths; KeyError naming the id and row for an id missing from the vocab.
    """
    import paddle

    out = as_tensor(output, "output")
    lab = as_tensor(label, "label", out.place)
    mask = None if seq_mask is None else as_tensor(seq_mask, "seq_mask", out.place)
    cand, cv, ref, rv = _rules(out, lab, mask, _PADDLE(), pad_id, eos_id, canon, mask_logits)
    # ids beyond +-2**61 would collide in the device LCS's key encoding: rank them
    # (an order-preserving, equality-preserving map), which no real vocabulary needs
    big = [(x >= _ID_LIMIT).any() for x in (cand, ref)] + [(x <= -_ID_LIMIT).any() for x in (cand, ref)]
    if bool(paddle.stack(big).any()):
        both = paddle.concat([cand.reshape([-1]), ref.reshape([-1])])
        _, inv = paddle.unique(both, return_inverse=True)
        inv = inv.astype("int64")
        n = cand.shape[0] * cand.shape[1]
        cand, ref = inv[:n].reshape(cand.shape), inv[n:].reshape(ref.shape)
    return cand, cv, ref, rv


def host_tokens(output: Any, label: Any, seq_mask: Any = None, *, pad_id: Optional[int] = None,
                eos_id: Optional[int] = None, canon: Optional[np.ndarray] = None,
                mask_logits: bool = False):
    """Host path: per row, the candidate's and the reference's valid ids as int64 numpy arrays.

    >>> c, r = host_tokens(np.array([[5, 2, 7]]), np.array([[5, 7, 0]]), eos_id=2, pad_id=0)
    >>> c[0].tolist(), r[0].tolist()
    ([5], [5, 7])
    """
    out, lab = _host_array(output, "output"), _host_array(label, "label")
    mask = None if seq_mask is None else _host_array(seq_mask, "seq_mask")
    return rows(*_rules(out, lab, mask, _Numpy, pad_id, eos_id, canon, mask_logits))


def rows(cand: np.ndarray, cand_valid: np.ndarray, ref: np.ndarray, ref_valid: np.ndarray):
    """Per row, the valid ids of each side (numpy [B, T] arrays in, two lists of arrays out)."""
    return [c[v] for c, v in zip(cand, cand_valid)], [r[v] for r, v in zip(ref, ref_valid)]


_PADDLE_NS = []


def _PADDLE() -> _Paddle:  # noqa: N802 - built once, on first device use
    if not _PADDLE_NS:
        _PADDLE_NS.append(_Paddle())
    return _PADDLE_NS[0]


def check_packed(packed: Any) -> np.ndarray:
    """Validate ``compute``'s output ([B, 3] integers: lcs, cand_len, ref_len) as numpy."""
    arr = packed.numpy() if hasattr(packed, "numpy") and not isinstance(packed, np.ndarray) \
        else np.asarray(packed)
    if arr.ndim != 2 or arr.shape[1] != 3 or arr.dtype.kind not in "iu":
        raise ValueError(
            "update() with one argument expects compute()'s output, an integer array [B, 3] of "
            f"(lcs, cand_len, ref_len); got {arr.dtype} {list(arr.shape)}. For raw network "
            "output call update(output, label[, seq_mask])")
    arr = arr.astype(np.int64)
    if (arr < 0).any() or (arr[:, 0] > np.minimum(arr[:, 1], arr[:, 2])).any():
        raise ValueError("update(): inconsistent compute() output (negative length or lcs > length)")
    return arr
