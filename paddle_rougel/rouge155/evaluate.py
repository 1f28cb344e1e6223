"""One evaluation of ROUGE-1.5.5.pl: ``computeNGramScore``, ``computeLCSScore``,
``computeWLCSScore``, ``computeSkipBigramScore`` and ``computeROUGEX``'s per-evaluation figures.

Each returns the script's ``@results``: (model count, hits, R, peer count, P, F) with R, P, F
the ``%7.5f`` strings it makes (F from the rounded R and P).  The script's global ``$opt_m`` is
the mutable ``Options.stem_now`` (``-M`` switches it on for a model and off after it, as the
script does, whatever ``-m`` said: the state carries over, as there).
"""
from __future__ import annotations

from array import array
from collections import Counter
from dataclasses import dataclass, field
from typing import Dict, List, Optional

from .kernels import EXT, lcs_mask, ngram_counts, skip_bigram_counts, weighted_hit, wlcs_mask
from .text import ScriptError, is_spl, read_sentences, read_text, read_units, spl_unit_words, tokens

_C = EXT   # None in the pure-Python build: the reference kernels

__all__ = ["Options", "Evaluator", "f5", "prf", "lcs_hits", "weighted_hits"]


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
    if power is None:
        r = "%7.5f" % (hits / model_count) if model_count != 0 else "0.00000"
        p = "%7.5f" % (hits / peer_count) if peer_count != 0 else "0.00000"
    else:
        r = "%7.5f" % ((hits / model_count) ** (1 / power)) if model_count != 0 else "0.00000"
        p = "%7.5f" % ((hits / peer_count) ** (1 / power)) if peer_count != 0 else "0.00000"
    rn, pn = float(r), float(p)
    den = (1 - alpha) * pn + alpha * rn
    f = "%7.5f" % ((pn * rn) / den) if den > 0 else "0.00000"
    return [model_count, hits, r, peer_count, p, f]


class _Memo(dict):
    """raw token -> id (-1: dropped), each new token filtered and stemmed once by ``make``."""

    def __init__(self, make):
        super().__init__()
        self.make = make

    def __missing__(self, raw: str) -> int:
        got = self[raw] = self.make(raw)
        return got


class Evaluator:
    """Scores peers against models, reading each file once per length setting.

    A file's tokens are int32 ids (one vocabulary of the tokens after the stopword filter and
    stemming; each distinct raw token filtered and stemmed once per stemming state)."""

    def __init__(self, opts: Options):
        self.o = opts
        self._snts: Dict[tuple, List[str]] = {}
        self._files: Dict[tuple, FileData] = {}
        self._vocab: Dict[str, int] = {}
        self._memo: Dict[bool, _Memo] = {}
        self._scratch = bytearray()   # lcs_hits' clipping counts (zero between calls)

    def sentences(self, path: str, fmt) -> List[str]:
        key = (path, fmt)
        if key not in self._snts:
            self._snts[key] = read_sentences(path, fmt)
        return self._snts[key]

    def _new_id(self, raw: str) -> int:
        o = self.o
        got = tokens(raw, o.stopwords, o.table if o.stem_now else None)
        return self._vocab.setdefault(got[0], len(self._vocab)) if got else -1

    def _ids(self, text: Optional[str]) -> array:
        """The ids of a normalized text's tokens (``tokens``: filtered, stemmed if in force)."""
        if not text:
            return array("i")
        return self._word_ids(text.split(" "))   # normalized: single spaces, none at the ends

    def _word_ids(self, words: List[str]) -> array:
        memo = self._memo.get(self.o.stem_now)
        if memo is None:
            memo = self._memo[self.o.stem_now] = _Memo(self._new_id)
        return array("i", [i for i in map(memo.__getitem__, words) if i >= 0])

    def file(self, path, fmt, stem: Optional[bool] = None) -> "FileData":
        """A summary's token ids under the stemming ``stem`` (None: the state in force), cached."""
        stem = self.o.stem_now if stem is None else stem
        got = self._files.get((path, fmt, stem))
        if got is None:
            saved, self.o.stem_now = self.o.stem_now, stem
            try:
                got = self._files[(path, fmt, stem)] = self._load(path, fmt)
            finally:
                self.o.stem_now = saved
        return got

    reads_files = True   # an SPL file without a length limit is read in one pass (spl_unit_words)

    def _load(self, path, fmt) -> "FileData":
        o = self.o
        offs = array("q", [0])
        flat = array("i")
        if self.reads_files and o.length_limit == 0 and o.byte_limit == 0 and is_spl(fmt):
            for words in spl_unit_words(path):
                flat.extend(self._word_ids(words))
                offs.append(len(flat))
            return FileData(flat, offs, flat)
        snts = self.sentences(path, fmt)
        for u in read_units(snts, o.length_limit, o.byte_limit):
            flat.extend(self._ids(u))
            offs.append(len(flat))
        if o.length_limit == 0 and o.byte_limit == 0:
            # the text is the sentences joined by spaces, normalized byte by byte: its tokens are
            # the units' end to end
            text = flat
        else:
            text = self._ids(read_text(snts, o.length_limit, o.byte_limit))
        return FileData(flat, offs, text)

    def grams(self, f: "FileData", kind: str, n: int, packed: bool = True):
        """(grams, count) of a file's ``readText`` tokens: sorted int64 keys (bytes) for the C
        overlap, or a Counter of id tuples (no C, ``packed`` False, or n-grams of a vocabulary
        too large to pack in 64 bits); cached in the file's record."""
        o = self.o
        key = (kind, n, o.skip, o.unigrams, packed)
        got = f.grams.get(key)
        if got is not None:
            return got
        ids = f.text
        if kind == "S":
            if _C is None or not packed:
                got = skip_bigram_counts(ids, o.skip, o.unigrams)
            else:
                keys = _C.skip_keys(f.text_bytes(), int(o.skip), bool(o.unigrams))
                got = keys, len(keys) // 8
        else:
            bits = 63 // n
            if _C is None or not packed or len(self._vocab) >= (1 << bits) - 1:
                got = ngram_counts(ids, n)
            else:
                keys = _C.ngram_keys(f.text_bytes(), n, bits)
                got = keys, len(keys) // 8
        f.grams[key] = got
        return got

    def _model_file(self, path, fmt, under_m: bool) -> "FileData":
        """A model's record, read as the script reads a model: under -M (``under_m``) with
        stemming on, after which the script's ``$opt_m`` is off (whatever -m said)."""
        if under_m and self.o.model_stem:
            got = self.file(path, fmt, True)
            self.o.stem_now = False
            return got
        return self.file(path, fmt)

    # ------------------------------------------------------------ ROUGE-N / ROUGE-S
    def _grams(self, peer, models, fmt, kind: str, n: int, model_stem: bool) -> list:
        o = self.o
        pf = self.file(peer, fmt)
        key = (kind, n, o.skip, o.unigrams, True)
        got = pf.grams.get(key)
        pg, pc = got if got is not None else self.grams(pf, kind, n)
        files, by_b = self._files, o.mode == "B"
        hit_t = cnt_t = cntp_t = 0
        best = -1.0
        for mp in models:
            mf = files.get((mp, fmt, o.stem_now)) if not (model_stem and o.model_stem) else None
            if mf is None:
                mf = self._model_file(mp, fmt, model_stem)
            got = mf.grams.get(key)
            mg, mc = got if got is not None else self.grams(mf, kind, n)
            if isinstance(mg, bytes) and isinstance(pg, bytes):
                hit = _C.clip_sorted(mg, pg)   # the keys are made sorted
            else:   # one side unpacked (the vocabulary grew past the packing): both as Counters
                pd, md = self.grams(pf, kind, n, False)[0], self.grams(mf, kind, n, False)[0]
                hit = sum(min(c, pd[g]) for g, c in md.items() if g in pd)
            if by_b:
                score = float(f5(hit / mc)) if mc != 0 else 0.0   # sprintf("%07.5f"): the same digits
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
        pf = self.file(peer, fmt)
        peer_cn = len(pf.text)
        hit_t = cnt_t = cntp_t = 0
        best = -1.0
        files = self._files
        for mp in models:
            mu = files.get((mp, fmt, o.stem_now)) if not o.model_stem else None
            if mu is None:
                mu = self._model_file(mp, fmt, not weighted)   # ROUGE-W reads the units as they are
            mt = mu if not o.model_stem else self._model_file(mp, fmt, True)
            if len(self._scratch) < 8 * len(self._vocab):   # 2 int32 counts an id, all zero
                self._scratch = bytearray(16 * len(self._vocab))
            hit, base = lcs_hits(mu, mt, pf, w if weighted else None, self._scratch)
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


class FileData:
    """A summary's ids: ``units`` (``readText_LCS``'s, end to end) with their int64 ``offs``,
    ``text`` (``readText``'s tokens), the n-gram / skip-bigram ``grams`` made of them; ``ub``,
    ``ob``, ``tb``: the three as bytes for the C kernels."""

    __slots__ = ("units", "offs", "text", "grams", "ub", "ob", "tb")

    def __init__(self, units: array, offs: array, text: array):
        self.units, self.offs, self.text = units, offs, text
        self.grams: dict = {}
        self.ub, self.ob = units.tobytes(), offs.tobytes()
        self.tb = self.ub if text is units else text.tobytes()

    def text_bytes(self) -> bytes:
        return self.tb


def lcs_hits(mu: FileData, mt: FileData, pf: FileData, weight: Optional[float], scratch: bytearray):
    """(hits, base) of one model against the peer (``lcs`` / ``wlcs``; ``weight`` None: ROUGE-L):
    the model's units from ``mu``, its clipping counts from ``mt``'s text (the two differ under
    -M), the peer's units and counts from ``pf``.  The C kernel (``scratch``: zero bytes, 8 an
    id of the vocabulary), else :func:`_lcs_hits` on the reference masks."""
    if _C is not None:
        return _C.lcs_hits(mu.ub, mu.ob, pf.ub, pf.ob, mt.tb, pf.tb,
                           0.0 if weight is None else float(weight), scratch)

    def split(f):
        return [list(f.units[f.offs[k]:f.offs[k + 1]]) for k in range(len(f.offs) - 1)]
    return _lcs_hits(split(mu), split(pf), dict(Counter(mt.text)), dict(Counter(pf.text)), weight)


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
    got = weighted_hit(model, peer, weight)
    if got is not None:
        return got
    m1 = {}
    for t in model:
        m1[t] = m1.get(t, 0) + 1
    p1 = {}
    for t in peer:
        p1[t] = p1.get(t, 0) + 1
    hit, _ = _lcs_hits([list(model)], [list(peer)], m1, p1, weight)
    return hit
