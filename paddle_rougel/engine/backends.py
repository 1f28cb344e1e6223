"""Host engine back ends: the operations the metrics need, one object per back end.

Every metric asks the active back end (:func:`paddle_rougel.engine.get_backend`) for its
operation, never a back end by name, so a back end registered with
:func:`paddle_rougel.engine.register_backend` serves every metric with no change to them.
Two are built in, computing the same numbers:

* :class:`CBackend` (``"c"``): the compiled kernels in ``csrc/`` (``paddle_rougel._lcs``);
* :class:`PythonBackend` (``"python"``): the same algorithms in Python and numpy (the
  pure-Python engine, used when the extension is not built).

:class:`Backend` lists the operations.  The *general* ones (``lcs_batch``,
``clipped_matches``, ``lsum_batch``, ``lcs_matrix``, ``score_matrix``, ``resample_sums``)
must be implemented (the base raises ``NotImplementedError``: no silent fallback).  The
*fast paths* (``lcs_pairs``, ``lcs_words``, ``ngram_words``, ``lcs_ngram_words``,
``lsum_text_snapshot``, ``lsum_text``) take
inputs in a special form (every text a ``str``); returning None means "not for these
inputs", and the caller then takes the general path, through the same back end's general
operation.  A new operation is one more method here (general: raising in the base; fast
path: returning None), one in each built-in back end, and its call in the metric.

Example: a back end that counts its calls and computes as the Python one.

    >>> from paddle_rougel import engine
    >>> from paddle_rougel.engine.backends import PythonBackend
    >>> class Counting(PythonBackend):
    ...     name = "counting"
    ...     calls = 0
    ...     def lcs_batch(self, cands, ref_lists, threads=None):
    ...         Counting.calls += 1
    ...         return super().lcs_batch(cands, ref_lists, threads)
    >>> engine.register_backend(Counting())
    >>> old = engine.backend(); engine.set_backend("counting")
    >>> engine.lcs_length("ABCBDAB", "BDCABA"), Counting.calls
    (4, 1)
    >>> engine.set_backend(old); engine.unregister_backend("counting")
"""
from __future__ import annotations

from typing import Optional

import numpy as np

from . import cext, fallbacks, host as engine
from .inputs import FlatRefs
from . import lsum
from .lsum import LsumResult, all_text, rename_flat
from .ngrams import c_orders, result
from .registry import Backend, add_builtin, warn_fallback

__all__ = ["Backend", "CBackend", "PythonBackend"]


def _threads(threads: Optional[int]) -> int:
    return threads or engine.default_threads()


def _frombuffers(raw) -> list:
    return [np.frombuffer(b, dtype=np.int64) for b in raw]


class CBackend(Backend):
    """The compiled kernels (``cext.lcs``, read at each call)."""

    name = "c"
    checks_tokens = True

    def available(self) -> Optional[str]:
        if cext.lcs is None:
            return "the C LCS kernel is not built (reinstall with a C compiler)"
        return None

    def lcs_batch(self, cands, ref_lists, threads=None):
        return engine.LcsResult(*_frombuffers(cext.lcs.lcs_batch(cands, ref_lists, _threads(threads))))

    def lcs_pairs(self, cands, refs, threads=None):
        if not isinstance(cands, (list, tuple)) or not isinstance(refs, (list, tuple)):
            return None
        raw = cext.lcs.lcs_pairs(cands, refs, _threads(threads))
        if raw is None:
            return None
        lcs, cand_len, ref_len = _frombuffers(raw)
        return engine.LcsResult(lcs, cand_len, ref_len, np.ones(len(lcs), dtype=np.int64))

    def lcs_words(self, cands, ref_lists, words, threads=None, one_ref=False):
        kw = {"one_ref": True} if one_ref else {}
        raw = cext.lcs.lcs_words(cands, ref_lists, words[0], bool(words[1]), _threads(threads), **kw)
        return None if raw is None else engine.LcsResult(*_frombuffers(raw))

    def lcs_matrix(self, texts, q, threads=None):
        lcs, lens = cext.lcs.lcs_matrix(texts, q, _threads(threads))
        return (np.frombuffer(lcs, dtype=np.int32).reshape(q, len(texts) - q),
                np.frombuffer(lens, dtype=np.int64))

    def score_matrix(self, lcs, lens, q, alpha, with_pr, threads=None, f64=False):
        shape = lcs.shape
        if f64:  # the same float64 operations in C, on all threads
            raw = cext.lcs.score_matrix(lcs, lens, q, alpha, False, _threads(threads), True)
            return [np.frombuffer(raw[0], dtype=np.float64).reshape(shape)]
        raw = cext.lcs.score_matrix(lcs, lens, q, alpha, with_pr, _threads(threads))
        return [np.frombuffer(x, dtype=np.float32).reshape(shape) for x in raw]

    def clipped_matches(self, cands, source_lists, n_size, prefix=None, threads=None):
        raw = cext.lcs.ngram_matches(cands, source_lists, n_size, prefix, _threads(threads))
        out = np.frombuffer(raw, dtype=np.int64).astype(np.float64)
        N = len(out) // (n_size * (1 if prefix is None else 2))
        return out.reshape(N, n_size) if prefix is None else out.reshape(2, N, n_size)

    def ngram_overlap(self, cands, ref_lists, orders, distinct, threads=None):

        raw = cext.lcs.rouge_n(cands, ref_lists, c_orders(orders), distinct, _threads(threads))
        return result(_frombuffers(raw), len(orders))

    def ngram_words(self, cands, ref_lists, words, orders, distinct, threads=None, one_ref=False):

        raw = cext.lcs.lcs_words(cands, ref_lists, words[0], bool(words[1]), _threads(threads),
                                      one_ref=one_ref, orders=c_orders(orders), distinct=distinct, lcs=False)
        if raw is None:
            return None
        _, _, _, rc, h, cg, rg = _frombuffers(raw)  # (no LCS asked: its three arrays are empty)
        return result((h, cg, rg, rc), len(orders))

    def lcs_ngram_words(self, cands, ref_lists, words, orders, distinct, threads=None, one_ref=False):

        raw = cext.lcs.lcs_words(cands, ref_lists, words[0], bool(words[1]), _threads(threads),
                                      one_ref=one_ref, orders=c_orders(orders), distinct=distinct)
        if raw is None:
            return None
        lcs, cl, rl, rc, h, cg, rg = _frombuffers(raw)
        return engine.LcsResult(lcs, cl, rl, rc), result((h, cg, rg, rc.copy()), len(orders))

    def lsum_batch(self, cands, ref_lists, ref_count, threads=None, base=0):

        lists, sizes = [], []
        for c, refs in zip(cands, ref_lists):
            sents = list(c)
            sizes.append(len(c))
            for r in refs:
                sents.extend(r)
                sizes.append(len(r))
            lists.append(sents)
        try:
            hits, dlen = cext.lcs.lsum_batch(lists, sizes, ref_count.tolist(), _threads(threads),
                                                  scratch=lsum.SCRATCH_BYTES, base=base)
        except (TypeError, ValueError) as e:
            raise type(e)(rename_flat(str(e), cands, ref_lists)) from e
        return _lsum_result(np.frombuffer(hits, dtype=np.int64), np.frombuffer(dlen, dtype=np.int64), ref_count)

    def lsum_text_snapshot(self, cands, ref_lists, one_ref=False):

        snap = cext.lcs.lsum_text_snapshot(cands, ref_lists, one_ref)
        if snap is None:
            return None
        offsets = np.frombuffer(snap[2], dtype=np.int64)
        offsets.flags.writeable = False
        return snap[0], FlatRefs(snap[1], offsets)

    def lsum_text(self, cands, ref_lists, threads=None, chars=False, base=0):

        flat, offsets = ((ref_lists.flat, ref_lists.offsets) if isinstance(ref_lists, FlatRefs)
                         else (ref_lists, None))
        out = cext.lcs.lsum_text(cands, flat, offsets, _threads(threads), chars,
                                      scratch=lsum.SCRATCH_BYTES, base=base)
        if out is None:
            return None
        hits, cand_len, ref_len = _frombuffers(out)
        ref_count = (np.diff(offsets) if offsets is not None else
                     np.fromiter(map(len, ref_lists), dtype=np.int64, count=len(ref_lists)))
        return LsumResult(hits, cand_len, ref_len, ref_count)

    def resample_sums(self, cols_kn, resamples, seed, mode, threads=None):
        k, n = cols_kn.shape
        raw = cext.lcs.resample_sums(np.ascontiguousarray(cols_kn), n, k, resamples, seed, mode,
                                          _threads(threads))
        return np.frombuffer(raw, dtype=np.float64).reshape(resamples, k)


def _lsum_result(hits: np.ndarray, dlen: np.ndarray, ref_count: np.ndarray):
    """Split per-document lengths [D] (candidate first, instance by instance) into cand_len and ref_len."""

    is_cand = np.zeros(len(dlen), dtype=bool)
    is_cand[(np.cumsum(ref_count + 1) - (ref_count + 1))] = True
    return LsumResult(hits, dlen[is_cand], dlen[~is_cand], ref_count)


class PythonBackend(Backend):
    """Python ints and numpy: exact, slower (one RuntimeWarning when the extension is not built)."""

    name = "python"

    def lcs_batch(self, cands, ref_lists, threads=None):
        warn_fallback()
        return fallbacks.python_lcs_batch(cands, ref_lists)

    def lcs_matrix(self, texts, q, threads=None):
        choices = texts[q:]
        res = self.lcs_batch(texts[:q], [choices] * q, threads) if choices and q else None
        lens = np.array([len(t) for t in texts], dtype=np.int64)
        lcs = np.zeros((q, len(choices)), dtype=np.int32) if res is None else \
            res.lcs.astype(np.int32).reshape(q, len(choices))
        return lcs, lens

    def score_matrix(self, lcs, lens, q, alpha, with_pr, threads=None, f64=False):
        return fallbacks.python_score_matrix(lcs, lens, q, alpha, with_pr, f64)

    def clipped_matches(self, cands, source_lists, n_size, prefix=None, threads=None):
        warn_fallback()
        return fallbacks.python_clipped_matches(cands, source_lists, n_size, prefix)

    def ngram_overlap(self, cands, ref_lists, orders, distinct, threads=None):
        warn_fallback()
        return fallbacks.python_ngram_overlap(cands, ref_lists, orders, distinct)

    def lsum_batch(self, cands, ref_lists, ref_count, threads=None, base=0):
        warn_fallback()
        return fallbacks.python_lsum_batch(cands, ref_lists, ref_count, base)

    def lsum_text_snapshot(self, cands, ref_lists, one_ref=False):
        refs = [[r] for r in ref_lists] if one_ref else ref_lists
        if not all_text(cands, refs):
            return None
        return tuple(cands), tuple(map(tuple, refs))

    def resample_sums(self, cols_kn, resamples, seed, mode, threads=None):
        return fallbacks.numpy_sums(cols_kn, resamples, seed, mode)


add_builtin(CBackend(), PythonBackend())  # registered from below: the registry knows no back end
