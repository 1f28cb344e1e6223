"""Exact batched LCS written with Paddle tensor operations only (the device path).

``lcs_device(cand, cand_len, ref, ref_len)`` returns the LCS length of each
row pair ``(cand[i, :cand_len[i]], ref[i, :ref_len[i]])``.  Every tensor is
created on the inputs' place, so the same code runs on CPU and GPU.

Algorithm: Hyyro's bit-vector LCS, vectorised over the batch.  The longer
side (the "bit side") is packed ``w <= 62`` bits per int64 word (Paddle has
no uint64; a sum of two 62-bit values fits a signed int64, so additions and
carries are exact).  For each position j of the shorter side::

    U = V & M_j
    V = (V + U) | (V - U)        # V - U == V & ~M_j since U is a subset of V

with the multi-word carry of ``V + U`` propagated by ripple (few words) or
by a carry-lookahead built from ``cummax`` (many words).  LCS = number of
zero bits of V.

Match masks M_j (bit k set iff bit-side token k equals step token j) come
from one of two sources:

* table (default): each row's bit-side tokens are sorted once; a table
  holds, per distinct token of the row, the packed mask of its positions
  (built with one ``scatter_nd_add``: bits are distinct, so add == or), and
  ``searchsorted`` finds each step token's entry.  Work: O(B L log L) once
  plus O(B * ceil(L / 62)) word operations per step.  The table and the
  gathered masks are B x L x ceil(L / 62) words, so rows are processed in
  groups that keep each of them under ``_BUDGET_WORDS``.
* compare-and-pack: at each step, compare the step token of every row with
  all bit-side keys ([B, L] bool) and pack the result into words (times a
  [62] vector of powers of two, summed).  O(B L) work per step, nothing
  kept between steps.  Used when even one row's table would exceed
  ``_BUDGET_WORDS`` (L * ceil(L / 62) > _BUDGET_WORDS, i.e. L above about
  16,000 with the default budget).

Memory: O(B x L) words, plus on the table path a mask table and gathered
masks capped at ``_BUDGET_WORDS`` words each per row group; above that the
compare-and-pack path keeps memory O(B x L).  ``masks="table"`` or
``masks="compare"`` forces a source (tests).

Invalid positions (padding, dropped tokens, beyond a length) are encoded so
that they never match: a valid token t becomes key 2t, invalid bit-side
positions -1 and invalid step-side positions -3.  An LCS with never-matching
fillers equals the LCS with the fillers removed, so masking is exact as long
as the lengths count only valid tokens.

Host synchronisation in this module: one, to read the two maximal lengths
(the loop bound and the word count).  The conversion before it
(:func:`paddle_rougel.convert.prepare`) adds one for ids beyond +-2**61 and,
with a vocab, one for ids the vocab lacks.

Portability (Paddle 2.6 to 3.3): new tensors are derived from the inputs with
``*_like``, ``cumsum`` and ``scatter_nd``, which allocate on their input's
place in every version (creation ops take ``device=`` only from Paddle 3.2 on),
the compaction sorts unique keys (``argsort(stable=)`` is Paddle 3.x only),
and bit shifts are products with, masks by, and comparisons against powers of
two (``bitwise_*_shift`` is Paddle 3.x only).
"""
from __future__ import annotations

from typing import Iterator, List, Optional

import numpy as np
import paddle

from ..core.lcs_step import advance

__all__ = ["lcs_device", "lcs_masked"]

_MAX_BITS = 62
_BUDGET_WORDS = 1 << 22  # per row group: mask table and gathered masks (32 MB each);
# when one row's table alone exceeds it, masks are built by compare-and-pack
_LOOKAHEAD_FROM = 4  # words: ripple carries below, carry-lookahead from here on


def _positions(x: paddle.Tensor) -> paddle.Tensor:
    """0, 1, 2, ... along axis 1 of ``x``'s shape, int64, on ``x``'s place (an arange without a place argument)."""
    return paddle.cumsum(paddle.ones_like(x, dtype="int64"), axis=1) - 1


def _powers(x: paddle.Tensor, width: int) -> paddle.Tensor:
    """[width] int64 2^0 .. 2^(width-1) on ``x``'s place (``x``: any tensor with >= width elements)."""
    return paddle.cumprod(paddle.full_like(x.reshape([-1])[:width], 2), dim=0) // 2


def _lengths_mask(length: paddle.Tensor, tokens: paddle.Tensor) -> paddle.Tensor:
    if tokens.shape[0] == 0 or tokens.shape[1] == 0:  # (Paddle 2.6: no cumsum of an empty tensor)
        return paddle.zeros_like(tokens, dtype="bool")
    return _positions(tokens) < length.astype("int64").unsqueeze(1)


def lcs_device(cand: paddle.Tensor, cand_len: paddle.Tensor, ref: paddle.Tensor,
               ref_len: paddle.Tensor, *, carry: Optional[str] = None,
               masks: Optional[str] = None) -> paddle.Tensor:
    """LCS length of each row pair; tokens are integers (int32/int64).

    Args:
        cand, ref: [B, Tc] and [B, Tr] integer token tensors; only the first
            ``cand_len[i]`` / ``ref_len[i]`` tokens of row i are used.
        cand_len, ref_len: [B] integer lengths (clipped to [0, T]).
        carry: force ``"ripple"`` or ``"lookahead"`` (tests); default by word count.
        masks: force the match-mask source, ``"table"`` or ``"compare"``
            (tests); default ``"table"`` unless one row's table would exceed
            ``_BUDGET_WORDS``.

    Returns:
        int64 tensor [B] on the inputs' place.
    """
    _check_pair(cand, ref)
    tc, tr = cand.shape[1], ref.shape[1]
    cl = paddle.clip(cand_len.astype("int64"), 0, tc)
    rl = paddle.clip(ref_len.astype("int64"), 0, tr)
    return lcs_masked(cand, _lengths_mask(cl, cand), ref, _lengths_mask(rl, ref), carry=carry, masks=masks)


def _check_pair(cand, ref):
    for name, t in (("cand", cand), ("ref", ref)):
        if not isinstance(t, paddle.Tensor):
            raise TypeError(f"{name} must be a paddle.Tensor, got {type(t).__name__}")
        if t.ndim != 2:
            raise ValueError(f"{name} must be [B, T], got shape {list(t.shape)}")
        if t.dtype not in (paddle.int32, paddle.int64):
            raise TypeError(f"{name} must hold integer token ids, got {t.dtype}")
    if cand.shape[0] != ref.shape[0]:
        raise ValueError(f"batch sizes differ: cand has {cand.shape[0]} rows, ref has {ref.shape[0]}")


def lcs_masked(cand: paddle.Tensor, cand_valid: paddle.Tensor, ref: paddle.Tensor,
               ref_valid: paddle.Tensor, *, carry: Optional[str] = None,
               masks: Optional[str] = None) -> paddle.Tensor:
    """LCS of each row pair where only the positions with ``*_valid`` True count.

    Invalid positions may sit anywhere (middle of a row too): they behave as
    removed tokens.  ``carry`` and ``masks`` as in :func:`lcs_device`.
    Returns int64 [B].
    """
    _check_pair(cand, ref)
    if masks not in (None, "table", "compare"):
        raise ValueError(f"masks must be 'table' or 'compare', got {masks!r}")
    b = cand.shape[0]
    if b == 0 or cand.shape[1] == 0 or ref.shape[1] == 0:
        # nothing can match; built on the host (Paddle 2.6 cannot reduce an empty axis)
        return paddle.to_tensor(np.zeros(b, dtype=np.int64), place=cand.place)
    ck = paddle.where(cand_valid, cand.astype("int64") * 2, paddle.full_like(cand, -1, dtype="int64"))
    rk = paddle.where(ref_valid, ref.astype("int64") * 2, paddle.full_like(ref, -3, dtype="int64"))
    nc = cand_valid.astype("int64").sum(axis=1)
    nr = ref_valid.astype("int64").sum(axis=1)
    # compact valid tokens to the front of each row (stable), so the loop
    # bound is the longest valid length, not the padded width
    ck = _compact(ck, cand_valid)
    rk = _compact(rk, ref_valid)
    # the one host synchronisation: both maximal lengths at once
    mc, mr = (int(v) for v in paddle.stack([nc.max(), nr.max()]).numpy())
    if mc == 0 or mr == 0:
        return paddle.zeros_like(nc)
    ck, rk = ck[:, :mc], rk[:, :mr]
    if mr > mc:  # LCS is symmetric: loop over the shorter side, pack the longer
        ck, rk, mc, mr = rk, ck, mr, mc
        ck = paddle.where(ck == -3, paddle.full_like(ck, -1), ck)
        rk = paddle.where(rk == -1, paddle.full_like(rk, -3), rk)
    words = -(-mc // _MAX_BITS)
    width = -(-mc // words)  # bits per word, balanced over the words
    row_words = max(mc, mr) * words  # one row's mask table (and its gathered masks)
    if masks is None:
        masks = "table" if row_words <= _BUDGET_WORDS else "compare"
    rows = b if masks == "compare" else max(1, _BUDGET_WORDS // row_words)
    if rows >= b:
        return _lcs_bits(ck, rk, words, width, carry, masks)
    parts = [_lcs_bits(ck[s:s + rows], rk[s:s + rows], words, width, carry, masks)
             for s in range(0, b, rows)]
    return paddle.concat(parts)


def _compact(keys: paddle.Tensor, valid: paddle.Tensor) -> paddle.Tensor:
    # unique sort keys (invalid after valid, then position): any sort is stable
    rank = paddle.logical_not(valid).astype("int64") * keys.shape[1] + _positions(keys)
    return paddle.take_along_axis(keys, paddle.argsort(rank, axis=1), axis=1)


def _lcs_bits(ck: paddle.Tensor, rk: paddle.Tensor, words: int, width: int,
              carry: Optional[str], masks: str) -> paddle.Tensor:
    b, lc = ck.shape
    nbits = words * width
    if nbits > lc:  # pad the bit side to whole words with never-matching fillers
        # (nbits - lc < words <= lc, so the slice has nbits - lc columns)
        ck = paddle.concat([ck, paddle.full_like(ck[:, :nbits - lc], -1)], axis=1)
        lc = nbits
    steps = (_table_masks if masks == "table" else _compare_masks)(ck, rk, words, width)
    # 2^width - 1 as an exact int64 sum: full_like(x, big int) goes through a double
    full = paddle.zeros_like(ck[:, :words]) + _powers(ck, width).sum()  # [b, words]
    v = full
    mode = carry or ("ripple" if words < _LOOKAHEAD_FROM else "lookahead")
    # One word: lcs_step.advance, the host's step.  More words: the row's sum carries from
    # word to word, which Paddle (no uint64, no carry flag) has no operation for: the carry
    # is propagated here, by ripple or by lookahead, on words of `width` <= 62 bits.
    if words == 1:
        v = advance(v, steps, full)
    elif mode == "ripple":
        zero = paddle.zeros_like(ck[:, :1])
        for m in steps:
            u = v & m
            s = v + u
            for _ in range(words - 1):
                c = (s > full).astype("int64")  # s >> width: s < 2^(width+1)
                s = (s & full) + paddle.concat([zero, c[:, :-1]], axis=1)
            v = (s & full) | (v - u)
    elif mode == "lookahead":
        zero = paddle.zeros_like(ck[:, :1])
        ar = _positions(v)  # [b, words]: word index
        neg = paddle.full_like(v, -1)
        for m in steps:
            u = v & m
            s = v + u
            g = (s > full).astype("int64")  # carry generated by the word (s >> width)
            lo = s & full
            # carry out of word k = g of the last word <= k that does not propagate
            last = paddle.cummax(paddle.where(lo == full, neg, ar), axis=1)[0]
            cout = paddle.take_along_axis(g, paddle.clip(last, 0), axis=1) * (last >= 0).astype("int64")
            v = ((lo + paddle.concat([zero, cout[:, :-1]], axis=1)) & full) | (v - u)
    else:
        raise ValueError(f"carry must be 'ripple' or 'lookahead', got {carry!r}")
    # LCS = zero bits of V
    ones = ((v.unsqueeze(2) & _powers(ck, width)) != 0).astype("int64").sum(axis=[1, 2])
    return nbits - ones


def _table_masks(ck: paddle.Tensor, rk: paddle.Tensor, words: int, width: int) -> List[paddle.Tensor]:
    """Step masks from a per-row table of packed position masks per distinct bit-side key.

    Memory: the table ([b * lc + 1, words]) and the gathered masks
    ([lr, b, words]); the caller keeps both under ``_BUDGET_WORDS`` by row groups.
    """
    b, lc = ck.shape
    lr = rk.shape[1]
    # --- mask table: one entry per run of equal keys in the sorted row
    perm = paddle.argsort(ck, axis=1)
    skey = paddle.take_along_axis(ck, perm, axis=1)
    new_run = paddle.concat(
        [paddle.ones_like(skey[:, :1]), (skey[:, 1:] != skey[:, :-1]).astype("int64")], axis=1)
    run = paddle.cumsum(new_run, axis=1) - 1  # [b, lc] run index of each sorted position
    row = paddle.cumsum(paddle.ones_like(skey[:, :1]), axis=0) - 1  # [b, 1]: row index
    slot = (row * lc + run) * words + perm // width
    bit = paddle.gather(_powers(ck, width), (perm % width).reshape([-1])).reshape(perm.shape)
    # one extra all-zero entry (index b * lc) for step tokens absent from the bit side
    # (not paddle.scatter_nd: it allocates its zeros on the default place)
    zeros = paddle.zeros_like(skey[:1, :1]).reshape([1]).expand([(b * lc + 1) * words])
    table = paddle.scatter_nd_add(zeros, slot.reshape([-1, 1]), bit.reshape([-1])).reshape([b * lc + 1, words])
    # --- each step token's entry, gathered step-major so no transpose copy is needed
    pos = paddle.clip(paddle.searchsorted(skey, rk), 0, lc - 1)
    found = paddle.take_along_axis(skey, pos, axis=1) == rk
    entry = paddle.where(found, row * lc + paddle.take_along_axis(run, pos, axis=1),
                         paddle.full_like(pos, b * lc))  # [b, lr]
    gathered = paddle.gather(table, entry.transpose([1, 0]).reshape([-1]))  # [lr * b, words]
    return paddle.unbind(gathered.reshape([lr, b, words]), axis=0)  # lr tensors [b, words]


def _compare_masks(ck: paddle.Tensor, rk: paddle.Tensor, words: int, width: int) -> Iterator[paddle.Tensor]:
    """Step masks by comparing each step token with every bit-side key, then packing.

    O(b * lc) work and memory per step (nothing is kept between steps).
    """
    b, lc = ck.shape
    lr = rk.shape[1]
    keys = ck.reshape([b, words, width])
    powers = _powers(ck, width)
    for t in paddle.unbind(rk.transpose([1, 0]).reshape([lr, b, 1, 1]), axis=0):
        yield ((keys == t).astype("int64") * powers).sum(axis=2)  # [b, words]
