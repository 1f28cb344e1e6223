"""ROUGE-1.5.5.pl in Python, on texts in memory: :func:`score` gives the script's figures
(its averages, bootstrap intervals and per-evaluation scores) with its options by name.

The options are the script's, as keywords: ``stem`` (``-m``: ``"rouge155"`` with the WordNet
exceptions, ``"rouge155_nowordnet"`` the empty DB; ``model_stem`` is ``-M``), ``stopwords``
(``-s``: the SMART list of the data folder, dropped before stemming), ``length_limit`` (``-l
N`` words) or ``byte_limit`` (``-b N`` bytes, the script's ROUGE-L quirk included),
``multi_ref`` (``-f``: ``"pooled"`` is A, ``"best_recall"`` B), ``alpha`` (``-p``), ``weight``
(``-w``), ``token_level`` (``-t 1``: sums of counts, then ratios), ``resamples`` (``-r``) and
``confidence`` (``-c``).  Instance i is the script's evaluation ``"i+1"`` (ids 1..N, as pyrouge
writes them): the bootstrap draws over those ids sorted as strings, as the script does.

A prediction or reference is a str (its lines the sentences, as an SPL file: empty lines
dropped) or a list of sentences; the text is scored as the script reads a file's bytes (a
str's UTF-8 bytes).  The same machinery as ``paddle-rougel rouge155``, which the differential
test holds byte for byte to the script; tests/test_rouge155_api.py checks this entry point
against the script run on the same texts.

>>> out = score(["the cat sat on the mat"], [["the cat is on the mat"]], rouge_types=["rouge1"])
>>> out["rouge1"]["recall"], out["rouge1"]["per_instance"][0]
(0.83333, (0.83333, 0.83333, 0.83333))
"""
from __future__ import annotations

import os
import re
from typing import Any, Dict, List, Optional, Sequence

from . import bootstrap
from .evaluate import Evaluator, Options
from .stem import EXC_DIR, data_home, exception_table
from .text import ScriptError, read_latin1

__all__ = ["score", "TYPES"]

TYPES = "rougeN (1-9), rougeL, rougeW, rougeS* / rougeSN, rougeSU* / rougeSUN"
_TYPE = re.compile(r"rouge(?:(?P<n>[1-9])|(?P<l>L)|(?P<w>W)|S(?P<u>U)?(?P<s>\*|[0-9]+))\Z")
_UPPER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


class _Memory(Evaluator):
    """The script's evaluator on sentences held in memory (keys instead of file names)."""

    reads_files = False

    def __init__(self, opts: Options, texts: Dict[tuple, List[str]]):
        super().__init__(opts)
        self._texts = texts

    def sentences(self, path, fmt) -> List[str]:
        return self._texts[path]


def _sentences(x: Any, where: str) -> List[str]:
    """An SPL file's sentences (``@sntList``) of a str or a list of sentences."""
    if isinstance(x, str):
        lines = x.split("\n")
    elif isinstance(x, (list, tuple)) and all(isinstance(s, str) for s in x):
        lines = [s for s in x]
    else:
        raise TypeError(f"score: {where} must be a str or a list of str sentences, got {type(x).__name__}")
    # the script reads bytes: a str's UTF-8 bytes, one latin-1 character each
    return [s.encode("utf-8").decode("latin-1").translate(_UPPER) for s in lines if s != ""]


def _options(stem, model_stem, stopwords, length_limit, byte_limit, multi_ref, alpha, weight,
             data: Optional[str]) -> Options:
    if stem not in (False, None, "rouge155", "rouge155_nowordnet"):
        raise ValueError(f"score: stem must be False, 'rouge155' or 'rouge155_nowordnet', got {stem!r}")
    if multi_ref not in ("pooled", "best_recall"):
        raise ValueError(f"score: multi_ref must be 'pooled' (-f A) or 'best_recall' (-f B), got {multi_ref!r}")
    if length_limit and byte_limit:
        raise ValueError("score: give length_limit (-l) or byte_limit (-b), not both (the script dies)")
    for name, v in (("length_limit", length_limit), ("byte_limit", byte_limit)):
        if isinstance(v, bool) or not isinstance(v, int) or v < 0:
            raise ValueError(f"score: {name} must be an int >= 0 (0: no limit), got {v!r}")
    if not 0 <= alpha <= 1:
        raise ValueError(f"score: alpha must be within 0 and 1 (-p), got {alpha!r}")
    if not weight > 0:
        raise ValueError(f"score: weight must be > 0 (-w), got {weight!r}")
    stop: Dict[str, int] = {}
    if stopwords:
        lines = read_latin1(os.path.join(data_home(data), "smart_common_words.txt")).split("\n")
        stop = {x: 1 for x in (lines[:-1] if lines[-1] == "" else lines)}
    table = (exception_table(os.path.join(data_home(data), EXC_DIR))
             if stem == "rouge155" or (model_stem and stem != "rouge155_nowordnet") else {})
    return Options(alpha=float(alpha), mode="B" if multi_ref == "best_recall" else "A",
                   length_limit=length_limit, byte_limit=byte_limit, stopwords=stop, table=table,
                   stem_now=bool(stem), model_stem=bool(model_stem), weight=float(weight))


def _run(ev: _Memory, o: Options, name: str, m, ids: List[str], models: Dict[str, list]) -> Dict[str, list]:
    """Each evaluation's result list (``@results``) under one type."""
    out = {}
    for e in ids:
        try:
            out[e] = _one(ev, o, m, e, models[e])
        except ScriptError as err:   # ROUGE-W of an empty reference: the script dies
            raise ValueError(f"score: {name} of instance {int(e) - 1}: the script dies here "
                             f"({str(err).strip()})") from None
    return out


def _one(ev: _Memory, o: Options, m, e: str, models: list) -> list:
    """One evaluation's result list under one type."""
    if m.group("n"):
        return ev.ngram(("p", e), models, "SPL", int(m.group("n")))
    if m.group("l") or m.group("w"):
        return ev.lcs(("p", e), models, "SPL", bool(m.group("w")))
    o.skip = -1 if m.group("s") == "*" else int(m.group("s"))
    o.unigrams = bool(m.group("u"))
    return ev.skip_bigram(("p", e), models, "SPL")


def score(predictions: Sequence, references: Sequence, *, rouge_types: Sequence[str] = ("rouge1", "rouge2", "rougeL"),
          stem: Any = False, model_stem: bool = False, stopwords: bool = False, length_limit: int = 0,
          byte_limit: int = 0, multi_ref: str = "pooled", alpha: float = 0.5, weight: float = 1.2,
          token_level: bool = False, resamples: int = 1000, confidence: float = 95,
          data: Optional[str] = None) -> dict:
    """The script's figures of each type: ``{type: {"recall", "precision", "fmeasure": the
    printed average; "recall_ci", "precision_ci", "fmeasure_ci": (low, high); "per_instance":
    [(R, P, F)] (token_level: [(model count, peer count, hits)])}, "count": N}``, the numbers
    rounded as the script prints them (``%7.5f``).  ``data``: the script's data folder (-e)."""
    if isinstance(predictions, (str, bytes)) or isinstance(references, (str, bytes)):
        raise TypeError("score takes a list of predictions and a list of references, not a str")
    predictions, references = list(predictions), list(references)
    if len(predictions) != len(references):
        raise ValueError(f"score: got {len(predictions)} predictions but {len(references)} references")
    if isinstance(rouge_types, str):
        rouge_types = [rouge_types]
    matches = [(t, _TYPE.match(t)) for t in rouge_types]
    bad = [t for t, m in matches if m is None]
    if bad:
        raise ValueError(f"score: unknown ROUGE type {bad[0]!r}: {TYPES}")
    if isinstance(resamples, bool) or not isinstance(resamples, int) or resamples < 1:
        raise ValueError(f"score: resamples must be an int >= 1 (-r), got {resamples!r}")
    if not 0 <= confidence <= 100:
        raise ValueError(f"score: confidence must be within 0 and 100 (-c), got {confidence!r}")
    o = _options(stem, model_stem, stopwords, length_limit, byte_limit, multi_ref, alpha, weight, data)
    texts, models, ids = {}, {}, []
    for i, (p, refs) in enumerate(zip(predictions, references)):
        e = str(i + 1)
        ids.append(e)
        texts[("p", e)] = _sentences(p, f"prediction {i}")
        refs = [refs] if isinstance(refs, str) else list(refs)
        if not refs:
            raise ValueError(f"score: instance {i} has no reference")
        models[e] = []
        for j, r in enumerate(refs):
            texts[("m", e, j)] = _sentences(r, f"reference {j} of instance {i}")
            models[e].append(("m", e, j))
    ev = _Memory(o, texts)
    out: dict = {"count": len(ids)}
    for t, m in matches:
        res = _run(ev, o, t, m, ids, models)
        if token_level:
            rows = [[float(res[e][0]), float(res[e][3]), float(res[e][1])] for e in ids]
        else:
            rows = [[float(res[e][2]), float(res[e][4]), float(res[e][5])] for e in ids]
        order = sorted(range(len(ids)), key=lambda k: ids[k])   # the script's string order of the ids
        stats = bootstrap.averages([rows[k] for k in order], resamples, float(confidence), token_level, o.alpha) \
            if ids else ((0.0, 0.0, 0.0),) * 3
        one = {}
        for name, (mean, lo, hi) in zip(("recall", "precision", "fmeasure"), stats):
            one[name] = float("%7.5f" % mean)
            one[name + "_ci"] = (float("%7.5f" % lo), float("%7.5f" % hi))
        one["per_instance"] = [tuple(r) for r in rows]
        out[t] = one
    return out
