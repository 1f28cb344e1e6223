"""The host engine's back-end registry: :class:`Backend` (the operations a back end
implements), the back ends by name and the one in use.  A leaf of the engine layer: the
built-in back ends (:mod:`.backends`) register themselves here from below when the engine
package is imported, and every operation asks :func:`get_backend` for the one in use."""
from __future__ import annotations

import warnings
from typing import Any, Optional, Sequence, Tuple

import numpy as np

from . import cext

__all__ = ["Backend", "backend", "get_backend", "set_backend", "register_backend", "unregister_backend",
           "add_builtin", "warn_fallback"]


class Backend:
    """The operations of a host engine (see the module doc).  Results are numpy arrays of
    the dtypes below, in instance order; errors name the instance (and reference, token)
    as the built-in back ends do."""

    #: the name it is registered and selected by (``engine.set_backend(name)``)
    name: str = ""
    #: ``lcs_batch`` reads each token list once and names a bad token itself, so
    #: ``inputs.make_batch(snapshot=False)`` need not copy or check them first
    checks_tokens: bool = False

    def available(self) -> Optional[str]:
        """None when the back end can run here, else why not (``set_backend`` raises it)."""
        return None

    # ------------------------------------------------------------ ROUGE-L (LCS)

    def lcs_batch(self, cands: Sequence, ref_lists: Sequence, threads: Optional[int] = None):
        """``engine.LcsResult`` of every (candidate, reference) pair: texts are ``str``
        (characters) or sequences of hashable tokens (``engine``'s token rules)."""
        raise NotImplementedError(f"{type(self).__name__}.lcs_batch")

    def lcs_pairs(self, cands: Sequence, refs: Sequence, threads: Optional[int] = None):
        """Fast path: ``lcs_batch(cands, [[r] for r in refs])`` when every item is a ``str``
        (lists or tuples); None: not taken."""
        return None

    def lcs_words(self, cands: Sequence, ref_lists: Sequence, words: tuple, threads: Optional[int] = None,
                  one_ref: bool = False):
        """Fast path: ``lcs_batch`` of ``str`` texts split into words as ``words`` = (mode,
        fold) says (``TextSettings.c_words()``); with ``one_ref``, ``ref_lists[i]`` is one
        reference.  None: not taken (the caller splits in Python, then ``lcs_batch``)."""
        return None

    def lcs_matrix(self, texts: list, q: int, threads: Optional[int] = None) -> Tuple[np.ndarray, np.ndarray]:
        """(lcs int32 [Q, C], lengths int64 [Q + C]) of every query ``texts[:q]`` against
        every choice ``texts[q:]``."""
        raise NotImplementedError(f"{type(self).__name__}.lcs_matrix")

    def score_matrix(self, lcs: np.ndarray, lens: np.ndarray, q: int, alpha: float, with_pr: bool,
                     threads: Optional[int] = None, f64: bool = False) -> List[np.ndarray]:
        """F (and P, R with ``with_pr``) of an ``lcs_matrix``, float32 [Q, C] each (rounded once
        from scoring.py's float64 values); ``f64``: [F] in float64.  ``alpha`` < 0 is
        tensor2tensor's F."""
        raise NotImplementedError(f"{type(self).__name__}.score_matrix")

    # ------------------------------------------------------------ BLEU

    def clipped_matches(self, cands: Sequence, source_lists: Sequence, n_size: int,
                        prefix: Optional[Sequence[int]] = None, threads: Optional[int] = None) -> np.ndarray:
        """``engine.clipped_matches``: float64 [N, n_size], or [2, N, n_size] with ``prefix``."""
        raise NotImplementedError(f"{type(self).__name__}.clipped_matches")

    # ------------------------------------------------------------ ROUGE-N

    def ngram_overlap(self, cands: Sequence, ref_lists: Sequence, orders: Tuple[int, ...], distinct: bool,
                      threads: Optional[int] = None):
        """``ngrams.NgramResult`` of every (candidate, reference) pair at each order (texts as
        ``lcs_batch``'s; ``distinct``: n-grams as sets)."""
        raise NotImplementedError(f"{type(self).__name__}.ngram_overlap")

    def ngram_words(self, cands: Sequence, ref_lists: Sequence, words: tuple, orders: Tuple[int, ...],
                    distinct: bool, threads: Optional[int] = None, one_ref: bool = False):
        """Fast path: ``ngram_overlap`` of ``str`` texts split into words as ``lcs_words``; None:
        not taken (the caller splits in Python, then ``ngram_overlap``)."""
        return None

    # ------------------------------------------------------------ ROUGE-L and ROUGE-N together

    def lcs_ngram_words(self, cands: Sequence, ref_lists: Sequence, words: tuple, orders: Tuple[int, ...],
                        distinct: bool, threads: Optional[int] = None, one_ref: bool = False):
        """Fast path: ``(lcs_words(...), ngram_words(...))`` of the same texts and ``words``, an
        ``engine.LcsResult`` and an ``ngrams.NgramResult``, from one read of their words (ROUGE-L
        and ROUGE-N asked together: ``functional.score_all``); None: not taken (the caller asks
        for each as it would alone)."""
        return None

    # ------------------------------------------------------------ ROUGE-Lsum

    def lsum_batch(self, cands: tuple, ref_lists: tuple, ref_count: np.ndarray, threads: Optional[int] = None,
                   base: int = 0):
        """``lsum.LsumResult`` of summaries given as tuples of sentence snapshots (``str``: its
        characters, or token sequences); errors name instance ``base + i``, the candidate or
        reference and the sentence; a pair over ``lsum.SCRATCH_BYTES`` is refused first."""
        raise NotImplementedError(f"{type(self).__name__}.lsum_batch")

    def lsum_text_snapshot(self, cands: Sequence, ref_lists: Sequence, one_ref: bool = False):
        """Fast path: when every summary is a ``str`` (every reference list a non-empty list or
        tuple of them; with ``one_ref``, ``ref_lists[i]`` one ``str``), ``(cands, refs)`` as
        ``lsum_text`` reads them; None: not taken (the caller snapshots one by one)."""
        return None

    def lsum_text(self, cands: tuple, ref_lists: Any, threads: Optional[int] = None, chars: bool = False,
                  base: int = 0):
        """Fast path: ``lsum.LsumResult`` of ``str`` summaries (``ref_lists``: from
        ``lsum_text_snapshot``, or a tuple of tuples), read as rouge-score's default tokens and
        newline split (``chars``: every character but a newline a token); None: not taken."""
        return None

    # ------------------------------------------------------------ stats

    def resample_sums(self, cols_kn: np.ndarray, resamples: int, seed: int, mode: int,
                      threads: Optional[int] = None) -> np.ndarray:
        """float64 [R, k] resampled column sums of ``cols_kn`` [k, N] by ``stats``' generator
        and pairwise tree (``mode``: ``fallbacks.BOOTSTRAP`` or ``fallbacks.RANDOMIZE``)."""
        raise NotImplementedError(f"{type(self).__name__}.resample_sums")

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name!r}>"


_BACKEND = "c" if cext.lcs is not None else "python"  # the name of the active back end
_BACKENDS: dict = {}  # name -> Backend (the built-in ones: engine.backends adds them)
_WARNED = False


def backend() -> str:
    """The engine in use: ``"c"``, ``"python"`` or the name of a registered back end."""
    return _BACKEND


def get_backend():
    """The :class:`paddle_rougel.backends.Backend` in use (the object :func:`backend` names)."""
    return _BACKENDS[_BACKEND]


def set_backend(name: str) -> None:
    """Select a back end by name (``"c"``, ``"python"`` or a registered one); used by tests
    and benchmarks.  RuntimeError when it cannot run here (the C kernel not built)."""
    global _BACKEND
    be = _BACKENDS.get(name)
    if be is None:
        known = ", ".join(repr(k) for k in _BACKENDS)
        raise ValueError(f"unknown LCS backend {name!r}; expected one of {known}")
    why = be.available()
    if why:
        raise RuntimeError(why)
    _BACKEND = name


def register_backend(be) -> None:
    """Register a :class:`paddle_rougel.backends.Backend` under ``be.name`` (then
    ``set_backend(be.name)`` selects it).  ValueError for a name already registered."""
    if not isinstance(be, Backend):
        raise TypeError(f"register_backend: expected a paddle_rougel.backends.Backend, got {type(be).__name__}")
    if not isinstance(be.name, str) or not be.name:
        raise ValueError("register_backend: the backend needs a non-empty str name")
    if be.name in _BACKENDS:
        raise ValueError(f"register_backend: a backend named {be.name!r} is already registered")
    _BACKENDS[be.name] = be


def unregister_backend(name: str) -> None:
    """Remove a back end registered with :func:`register_backend` (not a built-in one, nor
    the one in use)."""
    if name in ("c", "python"):
        raise ValueError(f"unregister_backend: {name!r} is built in")
    if name == _BACKEND:
        raise ValueError(f"unregister_backend: {name!r} is in use; set_backend another first")
    if name not in _BACKENDS:
        raise ValueError(f"unregister_backend: no backend named {name!r}")
    del _BACKENDS[name]


def warn_fallback() -> None:
    global _WARNED
    if not _WARNED and cext.lcs is None:
        warnings.warn(
            "paddle_rougel: the C LCS kernel is not built; using the pure-Python "
            "bit-parallel engine (exact, roughly 10-50x slower). Reinstall with a C compiler.",
            RuntimeWarning,
            stacklevel=3,
        )
        _WARNED = True


def add_builtin(*backends: Backend) -> None:
    """Register the built-in back ends ("c", "python"): :mod:`.backends` calls it once."""
    for be in backends:
        _BACKENDS[be.name] = be
