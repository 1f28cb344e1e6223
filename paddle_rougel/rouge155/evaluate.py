"""One evaluation of ROUGE-1.5.5.pl: ``computeNGramScore``, ``computeLCSScore``,
``computeWLCSScore``, ``computeSkipBigramScore`` and ``computeROUGEX``'s per-evaluation figures.

Each returns the script's ``@results``: (model count, hits, R, peer count, P, F) with R, P, F
the ``%7.5f`` strings it makes (F from the rounded R and P).  The script's global ``$opt_m`` is
the mutable ``Options.stem_now`` (``-M`` switches it on for a model and off after it, as the
script does, whatever ``-m`` said: the state carries over, as there).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Dict, List, Optional

from array import array

from .kernels import lcs_mask, ngram_counts, skip_bigram_counts, wlcs_mask
from .text import ScriptError, read_sentences, read_text, read_units, tokens

from ..engine.cext import r155 as _C  # None in the pure-Python build: the reference kernels

__all__ = ["Options", "Evaluator", "f5", "prf", "weighted_hits"]


def f5(x: float) -> str:
    """Perl's ``sprintf("%7.5f", x)``."""
    return "%7.5f" % x


@dataclass
class Options:
    """The scoring options of one run (the script's globals)."""

    alpha: float = 0.5
    mode: str = "A"                # -f
    length_limit: int = 0          # -l
    byte_limit: int = 0            # -b
    stopwords: Dict[str, int] = field(default_factory=dict)   # in force: -s
    table: Optional[Dict[str, str]] = None   # the exception table (-m / -M)
    stem_now: bool = False         # the script's $opt_m, mutable
    model_stem: bool = False       # -M
    weight: float = 1.2            # -w
    skip: int = -1                 # -2
    unigrams: bool = False         # -u (the script's $opt_u, switched on by -U for a pass)


def prf(model_count, hits, peer_count, alpha: float, power: Optional[float] = None) -> list:
    """The script's result list from totals (``power``: ROUGE-W's inverse weighting)."""
    def ratio(h, c):
        if c == 0:
            return f5(0)
        r = h / c
        return f5(r ** (1 / power) if power is not None else r)
    r, p = ratio(hits, model_count), ratio(hits, peer_count)
    rn, pn = float(r), float(p)
    den = (1 - alpha) * pn + alpha * rn
    f = f5((pn * rn) / den) if den > 0 else f5(0)
    return [model_count, hits, r, peer_count, p, f]


class Evaluator:
    """Scores peers against models, reading each file once per length setting."""

    def __init__(self, opts: Options):
        self.o = opts
        self._snts: Dict[tuple, List[str]] = {}
        self._tok_cache: Dict[tuple, list] = {}
        self._vocab: Dict[str, int] = {}

    def sentences(self, path: str, fmt) -> List[str]:
        key = (path, fmt)
        if key not in self._snts:
            self._snts[key] = read_sentences(path, fmt)
        return self._snts[key]

    def _toks(self, text) -> List[str]:
        o = self.o
        return tokens(text, o.stopwords, o.table if o.stem_now else None)

    def _text(self, path, fmt):
        o = self.o
        return read_text(self.sentences(path, fmt), o.length_limit, o.byte_limit)

    def _units(self, path, fmt):
        o = self.o
        return read_units(self.sentences(path, fmt), o.length_limit, o.byte_limit)

    def _cached(self, key, make):
        got = self._tok_cache.get(key)
        if got is None:
            got = self._tok_cache[key] = make()
        return got

    def _ids(self, toks) -> array:
        v = self._vocab
        return array("i", [v.setdefault(t, len(v)) for t in toks])

    def unit_ids(self, path, fmt):
        """(int32 ids of every unit's tokens end to end, int64 unit offsets) as bytes (cached)."""
        def make():
            units = self.unit_tokens(path, fmt)
            offs = array("q", [0])
            flat = array("i")
            for u in units:
                flat.extend(self._ids(u))
                offs.append(len(flat))
            return flat.tobytes(), offs.tobytes()
        return self._cached((path, fmt, "uid", self.o.stem_now), make)

    def gram_keys(self, path, fmt, kind: str, n: int):
        """(units, count) of ``readText``'s tokens: int64 keys (bytes) for the C overlap, or a
        Counter when the ids do not pack (n-grams of a vocabulary too large for 64 bits)."""
        o = self.o

        def make():
            toks = self.text_tokens(path, fmt)
            if kind == "S":
                if _C is None:
                    return skip_bigram_counts(toks, o.skip, o.unigrams)
                keys = _C.skip_keys(self.text_ids(path, fmt), int(o.skip), bool(o.unigrams))
                return keys, len(keys) // 8
            bits = 63 // n
            if _C is None or len(self._vocab) + len(toks) >= (1 << bits) - 1:
                return ngram_counts(toks, n)
            keys = _C.ngram_keys(self.text_ids(path, fmt), n, bits)
            return keys, len(keys) // 8
        return self._cached((path, fmt, kind, n, o.skip, o.unigrams, self.o.stem_now), make)

    def text_ids(self, path, fmt) -> bytes:
        """int32 ids of ``readText``'s tokens (cached)."""
        return self._cached((path, fmt, "tid", self.o.stem_now), lambda: self._ids(self.text_tokens(path, fmt)).tobytes())

    def unigrams(self, path, fmt):
        """(Counter of ``readText``'s tokens, their number): the clipping counts (cached: copy
        before changing)."""
        return self._cached((path, fmt, "u1", self.o.stem_now), lambda: ngram_counts(self.text_tokens(path, fmt), 1))

    def _units_and_ids(self, path, fmt):
        return self.unit_tokens(path, fmt), (self.unit_ids(path, fmt) if _C is not None else None)

    def text_tokens(self, path, fmt) -> List[str]:
        """The tokens of ``readText``'s text of a file under the stemming now in force (cached)."""
        key = (path, fmt, "text", self.o.stem_now)
        got = self._tok_cache.get(key)
        if got is None:
            if self.o.length_limit == 0 and self.o.byte_limit == 0:
                # no limit: the text is the sentences joined by spaces, normalized byte by byte,
                # so its tokens are the units' tokens end to end (tokenized once)
                got = [t for unit in self.unit_tokens(path, fmt) for t in unit]
            else:
                got = self._toks(self._text(path, fmt))
            self._tok_cache[key] = got
        return got

    def unit_tokens(self, path, fmt) -> List[List[str]]:
        """The tokens of each of ``readText_LCS``'s units of a file (cached likewise)."""
        key = (path, fmt, "units", self.o.stem_now)
        got = self._tok_cache.get(key)
        if got is None:
            got = self._tok_cache[key] = [self._toks(u) for u in self._units(path, fmt)]
        return got

    def _model_pass(self, fn, *args):
        """Run ``fn`` as the script runs a model's tokenizer under -M."""
        if self.o.model_stem:
            self.o.stem_now = True
            try:
                return fn(*args)
            finally:
                self.o.stem_now = False
        return fn(*args)

    # ------------------------------------------------------------ ROUGE-N / ROUGE-S
    def _grams(self, peer, models, fmt, kind: str, n: int, model_stem: bool) -> list:
        o = self.o
        pg, pc = self.gram_keys(peer, fmt, kind, n)
        hit_t = cnt_t = cntp_t = 0
        best = -1.0
        for mp in models:
            mg, mc = (self._model_pass(self.gram_keys, mp, fmt, kind, n) if model_stem
                      else self.gram_keys(mp, fmt, kind, n))
            if isinstance(mg, bytes) and isinstance(pg, bytes):
                hit = _C.clip_sorted(mg, pg)   # the keys are made sorted
            else:
                hit = sum(min(c, pg[g]) for g, c in mg.items() if g in pg)
            score = float(f5(hit / mc)) if mc != 0 else 0.0   # sprintf("%07.5f"): the same digits
            if o.mode == "B":
                if score > best:
                    best, hit_t, cnt_t, cntp_t = score, hit, mc, pc
            else:
                hit_t += hit
                cnt_t += mc
                cntp_t += pc
        return prf(cnt_t, hit_t, cntp_t, o.alpha)

    def ngram(self, peer, models, fmt, n: int) -> list:
        return self._grams(peer, models, fmt, "N", n, False)

    def skip_bigram(self, peer, models, fmt) -> list:
        return self._grams(peer, models, fmt, "S", 0, True)

    # ------------------------------------------------------------ ROUGE-L / ROUGE-W
    def lcs(self, peer, models, fmt, weighted: bool) -> list:
        o = self.o
        w = o.weight
        peer_units = self.unit_tokens(peer, fmt)
        peer_ids = self.unit_ids(peer, fmt) if _C is not None else None
        peer_1, peer_cn = self.unigrams(peer, fmt)
        hit_t = cnt_t = cntp_t = 0
        best = -1.0
        for mp in models:
            if weighted:
                model_units, model_ids = self._units_and_ids(mp, fmt)
            else:
                model_units, model_ids = self._model_pass(self._units_and_ids, mp, fmt)
            model_1 = dict(self._model_pass(self.unigrams, mp, fmt)[0])
            peer_left = dict(peer_1)
            masks = None
            if _C is not None:
                masks = _C.masks(*model_ids, *peer_ids, float(w) if weighted else 0.0)
            hit, base = _lcs_hits(model_units, peer_units, model_1, peer_left, w if weighted else None, masks)
            if weighted:
                if base == 0:
                    raise ScriptError("Illegal division by zero at ROUGE-1.5.5.pl line 2455.\n")
                score = (hit / base) ** (1 / w)
                cnt, cntp = float(base) ** w, float(peer_cn) ** w
            else:
                score = hit / base if base > 0 else 0
                cnt, cntp = base, peer_cn
            if o.mode == "B":
                if score > best:
                    best, hit_t, cnt_t, cntp_t = score, hit, cnt, cntp
            else:
                hit_t += hit
                cnt_t += cnt
                cntp_t += cntp
        return prf(cnt_t, hit_t, cntp_t, o.alpha, w if weighted else None)


def _lcs_hits(model_units, peer_units, model_1, peer_1, weight, masks=None):
    """``lcs`` / ``wlcs``: hits (ROUGE-W: the weighted runs) and the base (model length; ROUGE-W:
    the sum of the sentences' weighted lengths), clipping by the unigram counts left.
    ``masks``: the units' hit masks end to end, from the C kernel (None: computed here)."""
    hit = 0 if weight is None else 0.0
    base = 0 if weight is None else 0.0
    at = 0
    for mt in model_units:
        m = len(mt)
        base += m if weight is None else float(m) ** weight
        if masks is not None:
            mask = masks[at:at + m]
            at += m
        else:
            mask = [0] * m
            for pt in peer_units:
                if weight is None:
                    lcs_mask(mt, pt, mask)
                else:
                    wlcs_mask(mt, pt, mask, weight)
        run = 0
        for j in range(m):
            if mask[j] != 1:
                continue
            t = mt[j]
            if model_1.get(t, 0) > 0 and peer_1.get(t, 0) > 0:
                if weight is None:
                    hit += 1
                else:
                    run += 1
                    if (j + 1 < m and mask[j + 1] == 0) or j + 1 == m:
                        hit += float(run) ** weight
                        run = 0
                model_1[t] -= 1
                peer_1[t] -= 1
    return hit, base


def weighted_hits(model, peer, weight: float) -> float:
    """ROUGE-W's hit of one model unit against one peer unit (``wlcs`` with one sentence each;
    no clipping can bite: a token matched once per side)."""
    m1 = {}
    for t in model:
        m1[t] = m1.get(t, 0) + 1
    p1 = {}
    for t in peer:
        p1[t] = p1.get(t, 0) + 1
    hit, _ = _lcs_hits([list(model)], [list(peer)], m1, p1, weight)
    return hit
