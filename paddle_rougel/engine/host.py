"""Host LCS engine: exact longest-common-subsequence lengths for batches.

Two interchangeable back ends compute the same numbers:

* ``c``: the compiled bit-parallel kernel in ``csrc/`` (built by setup.py),
  O(len(a) * len(b) / 64) word operations and O(len(a) + len(b)) memory per
  pair, several cores used for large batches.
* ``python``: the same bit-parallel recurrence on Python's arbitrary-size
  ints (:mod:`paddle_rougel.lcs_step`), used when the extension could not be
  built (one warning).

Each is a :class:`paddle_rougel.backends.Backend` registered by name; every
metric (ROUGE-L, ROUGE-Lsum, BLEU, the all-pairs matrix, the resampling
statistics) asks the active one, :func:`get_backend`, for its operations, so
another back end registered with :func:`register_backend` and selected with
:func:`set_backend` serves them all.

Tokens: a ``str`` is its sequence of characters; any other sequence (list,
tuple, range, numpy array of any integer dtype, byte order or stride, ...)
holds hashable tokens compared with Python's ``==`` (so ``1 == 1.0 == True``
and ``np.int64(2) == 2``), with one rule on top, the same in every back end
and in the BLEU n-gram counts:

* a token that is not equal to itself (``float("nan")``, ``np.float64("nan")``,
  a complex with a NaN part, any object whose ``__eq__`` says False for
  itself) matches nothing, not even the very same object, as in the textbook
  ``a[i] == b[j]`` dynamic programme (and paddlenlp's).  An n-gram holding
  one never matches.  ``str``, ``int``, ``bool``, ``bytes``, ``tuple``,
  ``frozenset`` and ``None`` (exact types) are trusted to equal themselves
  and cost nothing extra; exact floats and complexes get a NaN test; any
  other token (subclasses, numpy scalars, user classes) costs one
  ``tok == tok`` call.  Equality must otherwise be an equivalence consistent
  with ``hash``, as for dict keys.

The inputs are read as they are when the call starts: a ``__hash__`` or
``__eq__`` (or another thread) that mutates them while the call runs does not
change the result.  Exceptions raised by tokens propagate; a ``TypeError`` or
``ValueError`` (an unhashable token, say) is re-raised with the instance,
reference and token index in its message.

Example:
    >>> from paddle_rougel.engine import lcs_length, lcs_batch
    >>> lcs_length("ABCBDAB", "BDCABA")
    4
    >>> nan = float("nan")
    >>> lcs_length([nan, 1], [nan, 1])  # nan != nan, even the same object
    1
    >>> res = lcs_batch(["abc", ["x", "y"]], [["abd", "c"], [["y"]]])
    >>> res.lcs.tolist(), res.ref_len.tolist(), res.ref_count.tolist()
    ([2, 1, 1], [3, 1, 1], [2, 1])
"""
from __future__ import annotations

import os
from typing import Any, NamedTuple, Optional, Sequence

import numpy as np

from .inputs import as_str, unordered
from ..core.settings import keywords_checked

from . import cext
from .registry import backend, get_backend, register_backend, set_backend, unregister_backend  # noqa: F401

__all__ = ["LcsResult", "c_kernel", "lcs_batch", "lcs_pairs", "lcs_length", "clipped_matches", "backend", "set_backend",
           "get_backend", "register_backend", "unregister_backend", "default_threads"]


def c_kernel(name: str):
    """The C extension's entry point ``name`` while the C back end is active, else None (the
    caller takes its Python path): the one way other modules reach the extension."""
    if cext.lcs is None or backend() != "c":
        return None
    return getattr(cext.lcs, name, None)


class LcsResult(NamedTuple):
    """LCS of every (candidate, reference) pair of a batch, in order.

    ``lcs`` and ``ref_len`` are flat over all pairs ([M]); ``cand_len`` and
    ``ref_count`` are per instance ([N]); the references of instance i are the
    slice ``offsets[i]:offsets[i+1]`` of the flat arrays.
    """

    lcs: np.ndarray
    cand_len: np.ndarray
    ref_len: np.ndarray
    ref_count: np.ndarray

    @property
    def offsets(self) -> np.ndarray:
        return offsets_of(self.ref_count)


def offsets_of(ref_count: np.ndarray) -> np.ndarray:
    """[N+1] where each instance's references start in the flat pair arrays (and the end)."""
    out = np.zeros(len(ref_count) + 1, dtype=np.int64)
    np.cumsum(ref_count, out=out[1:])
    return out


# The most worker threads the C kernel runs (partition.h's PARTITION_MAX_THREADS).
MAX_THREADS = int(getattr(cext.lcs, "MAX_THREADS", 64))


def default_threads() -> int:
    """Worker threads for the C kernel: PADDLE_ROUGEL_THREADS, else all cores (max 8).

    PADDLE_ROUGEL_THREADS must be a positive integer; a value above
    ``MAX_THREADS`` (64, the most the kernel runs) means ``MAX_THREADS``.
    Unset or empty (whitespace) means the default.  Anything else (``abc``,
    ``0``, ``-3``, ``1e20``) raises ValueError naming the variable, on every
    call that needs it, rather than being silently replaced.
    """
    raw = os.environ.get("PADDLE_ROUGEL_THREADS", "")
    if not raw.strip():
        return max(1, min(8, os.cpu_count() or 1))
    try:
        n = int(raw)
    except ValueError:  # also a number of more digits than int() reads
        n = 0
    if n < 1:
        shown = raw if len(raw) <= 40 else raw[:40] + "..."
        raise ValueError(f"PADDLE_ROUGEL_THREADS={shown!r}: expected a positive integer "
                         "(worker threads for the C kernel), or unset it for the default")
    return min(n, MAX_THREADS)


def batch_args(name: str, cands: Sequence, ref_lists: Sequence) -> Sequence:
    """The checks every batch call (``lcs_batch``, ``ngrams.ngram_overlap``) makes of its two
    arguments; the candidates as a list or tuple (a generator is read once here)."""
    if isinstance(cands, (str, bytes)) or isinstance(ref_lists, (str, bytes)):
        raise TypeError(f"{name} takes a list of candidates and a list of reference lists")
    for what, x in (("cands", cands), ("ref_lists", ref_lists)):
        if unordered(x):
            raise TypeError(f"{name}: {what} is {unordered(x)}, which has no order; expected a list")
    return cands if isinstance(cands, (list, tuple)) else list(cands)  # both back ends need len(), two passes


@keywords_checked
def lcs_batch(cands: Sequence, ref_lists: Sequence, threads: int | None = None,
              words: Optional[tuple] = None) -> LcsResult:
    """LCS lengths of each candidate against each of its references.

    Args:
        cands: N candidates (str or token sequences).
        ref_lists: N non-empty lists of references (or an ``inputs.OneRef``: one str
            reference each, read without a tuple per instance).
        threads: worker threads for the C kernel (default: ``default_threads()``).
        words: ``(mode, fold)`` from ``TextSettings.c_words()``: every text is a str split
            into words (mode 0: ``str.split()``, lowercased first with fold; mode 1:
            rouge-score's tokenizer), read in C; lengths then count words.  Texts that are
            not all str are split by the Python tokenizer of the same settings.

    Raises:
        TypeError: (or ValueError) naming the instance (and reference) index for
            a ``None`` item, a bare ``str`` given as a reference list, an empty
            reference list, unhashable tokens or mismatched lengths.
    """
    cands = batch_args("lcs_batch", cands, ref_lists)
    from .inputs import OneRef  # (inputs imports this module)

    be = get_backend()
    one = ref_lists.refs if isinstance(ref_lists, OneRef) else None
    if one is not None:  # one str reference each: the fast paths take them without 1-tuples
        res = (be.lcs_pairs(cands, one, threads) if words is None
               else be.lcs_words(cands, one, tuple(words), threads, one_ref=True))
        if res is not None:
            return res
    if not isinstance(ref_lists, (list, tuple)):
        ref_lists = list(ref_lists)
    if words is not None:
        res = be.lcs_words(cands, ref_lists, tuple(words), threads)
        if res is not None:
            return res
        from .inputs import split_texts  # the Python tokenizer of the same settings

        cands, ref_lists = split_texts(cands, ref_lists, words)
    return be.lcs_batch(cands, ref_lists, threads)


def lcs_pairs(cands: Sequence, refs: Sequence, threads: int | None = None) -> Optional[LcsResult]:
    """``lcs_batch(cands, [[r] for r in refs])`` when every item is a ``str`` (characters as
    tokens), with no per-pair overhead (the C engine's ``_lcs.lcs_pairs``); None when the
    items are anything else or the back end in use has no such fast path (the caller takes
    the general path)."""
    return get_backend().lcs_pairs(cands, refs, threads)


def lcs_length(a: Any, b: Any) -> int:
    """Exact LCS length of one pair.

    >>> lcs_length([1, 2, 3, 2], [2, 2, 3])
    2
    """
    try:
        return int(lcs_batch([a], [[b]], threads=1).lcs[0])
    except (TypeError, ValueError) as e:  # name the argument, not the batch position
        msg = str(e)
        for old, new in (("instance 0, candidate", "lcs_length: a"), ("instance 0, reference 0", "lcs_length: b")):
            if msg.startswith(old):
                raise type(e)(new + msg[len(old):]) from e
        raise


# ------------------------------------------------------------------ fallback

# Exact types whose == is reflexive: no self-comparison needed (see the module docstring).
_TRUSTED = frozenset({str, int, bool, bytes, tuple, frozenset, type(None)})


def _where(i: int, j: Optional[int]) -> str:
    return f"instance {i}, candidate" if j is None else f"instance {i}, reference {j}"


def snap_text(x: Any, i: int, j: Optional[int]) -> Any:
    """One text as given: a str (its characters) or a list of its tokens."""
    if x is None:
        raise TypeError(f"{_where(i, j)}: got None, expected a str or a sequence of tokens")
    if isinstance(x, str):
        return as_str(x)  # a subclass: its characters, as the C reader takes them
    if isinstance(x, np.ndarray) and x.ndim == 1 and x.dtype.kind in "iu":
        return x.tolist()  # Python ints, whatever the byte order or stride
    if unordered(x):
        raise TypeError(f"{_where(i, j)}: {unordered(x)} has no order; expected a str or a sequence of tokens")
    try:
        return list(x)
    except TypeError as e:  # not iterable, or e.g. a 0-d array
        detail = "" if not (hasattr(x, "__iter__") or hasattr(x, "__getitem__")) else f" ({e})"
        raise TypeError(f"{_where(i, j)}: got {type(x).__name__}, "
                        f"expected a str or a sequence of tokens{detail}") from None


def reraise_at(e: BaseException, i: int, j: Optional[int], p: int, tok: Any):
    """TypeError / ValueError (exactly) from token p gain its place, as in the C reader."""
    if type(e) in (TypeError, ValueError):
        raise type(e)(f"{_where(i, j)}: token {p} ({type(tok).__name__}): {e}") from e
    raise e


def fix_tokens(toks: Any, i: int, j: Optional[int]) -> Any:
    """Check every token is hashable; replace each token unequal to itself by a
    fresh object(), which equals nothing else (so it matches nothing)."""
    if isinstance(toks, str):
        return toks
    for p, t in enumerate(toks):
        tp = type(t)
        if tp is str or tp is int:
            continue
        try:
            hash(t)
            if tp not in _TRUSTED and not (t == t):
                toks[p] = object()
        except Exception as e:  # noqa: BLE001 - re-raised (with its place when Type/ValueError)
            reraise_at(e, i, j, p, t)
    return toks


def snap_lists(lists: Any, i: int, refs: bool) -> list:
    """The references (refs=True: non-empty, not a bare str) or sources of instance i."""
    if refs and (lists is None or isinstance(lists, (str, bytes))):
        got = "None" if lists is None else type(lists).__name__
        raise TypeError(f"instance {i}: ref_list must be a list of references, got {got} "
                        "(wrap a single reference as [ref])")
    if unordered(lists):
        what = "ref_list" if refs else "sources"
        raise TypeError(f"instance {i}: {what} is {unordered(lists)}, which has no order; expected a list")
    try:
        out = list(lists)
    except TypeError:
        what = "ref_list must be a list of references" if refs else "sources must be a list"
        raise TypeError(f"instance {i}: {what}, got {type(lists).__name__}") from None
    if refs and not out:
        raise ValueError(f"instance {i}: ref_list is empty (need at least one reference)")
    return out


def snap_batch(cands: Sequence, lists: Sequence, refs: bool) -> list:
    """Every text of the batch, read before any token's __hash__ / __eq__ runs (as in C)."""
    cands, lists = list(cands), list(lists)
    if len(cands) != len(lists):
        raise ValueError(f"got {len(cands)} candidates but {len(lists)} "
                         f"{'reference' if refs else 'source'} lists")
    out = []
    for i, (cand, texts) in enumerate(zip(cands, lists)):
        texts = snap_lists(texts, i, refs)
        out.append([snap_text(cand, i, None)] + [snap_text(t, i, j) for j, t in enumerate(texts)])
    return out


# --------------------------------------------------------------- counting

def clipped_matches(cands: Sequence, source_lists: Sequence, n_size: int,
                    prefix: Optional[Sequence[int]] = None) -> np.ndarray:
    """match[i, k-1] = sum over the distinct k-grams g of cands[i] of
    min(count in cands[i], max over s in source_lists[i] of count in s).

    Tokens: a str is its characters, any other sequence holds hashable tokens.
    With ``prefix`` (one int per instance), the result is [2, N, n_size]: the
    above and the same with the max over the first ``prefix[i]`` sources only
    (one pass over the sources gives both).  Counted by the C kernel (a hash
    table of the candidate's k-grams, sources streamed through it), or with
    dicts when the extension is not built.

    >>> clipped_matches(["aab", "xy"], [["ab", "aa"], []], 2).tolist()
    [[3.0, 2.0], [0.0, 0.0]]
    >>> clipped_matches(["aab"], [["aa", "ab"]], 2, prefix=[1]).tolist()
    [[[3.0, 2.0]], [[2.0, 1.0]]]
    """
    if n_size < 1:
        raise ValueError("n must be >= 1")
    return get_backend().clipped_matches(cands, source_lists, n_size, prefix)


