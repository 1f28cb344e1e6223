"""Independent test oracles: plain O(n*m) LCS and plain-Python ROUGE-L scoring.

Nothing here imports paddle_rougel; every figure is computed from the
textbook definitions so the package can be checked against it.

* ``lcs_dp(a, b)``: the classic dynamic programme, two rows, pure Python.
* ``lcs_dp_rows(a, b)``: the same recurrence, one numpy row at a time (still
  O(n*m) cells, for the long pairs).  Row i from row i-1:
  ``cur[j] = max(cur[j-1], prev[j], prev[j-1] + (a[i] == b[j]))``, and since
  ``cur`` is non-decreasing this is the running maximum of
  ``max(prev[j], prev[j-1] + eq[j])``.
* ``ngram_counts(toks, n, distinct)``: a text's n-grams with their counts (each once when
  ``distinct``), for the ROUGE-N oracles.
* ``ngram_pair_counts(cand, ref, n, distinct)``: one pair's ROUGE-N (hits, candidate n-grams,
  reference n-grams) with explicit ``==`` on each token (nan equals nothing, itself neither).
* ``score_instance(...)``: P, R, F of one candidate against its references for
  the multi_ref modes "max_pr", "best", "avg", "pooled" and "best_recall".
"""
from __future__ import annotations

import random

import numpy as np


def _tokens(x):
    # a str is its characters; numpy arrays compare like their Python values
    return x.tolist() if isinstance(x, np.ndarray) else list(x)


def lcs_dp(a, b) -> int:
    """Length of the longest common subsequence; tokens compared with ==."""
    a, b = _tokens(a), _tokens(b)
    prev = [0] * (len(b) + 1)
    for x in a:
        cur = [0] * (len(b) + 1)
        for j, y in enumerate(b, 1):
            if x == y:
                cur[j] = prev[j - 1] + 1
            else:
                cur[j] = prev[j] if prev[j] >= cur[j - 1] else cur[j - 1]
        prev = cur
    return prev[-1]


def lcs_dp_rows(a, b) -> int:
    """Same DP as ``lcs_dp``, each row computed with numpy (for long pairs)."""
    a, b = _tokens(a), _tokens(b)
    if not a or not b:
        return 0
    ids: dict = {}
    ai = [ids.setdefault(t, len(ids)) for t in a]
    bi = np.array([ids.setdefault(t, len(ids)) for t in b], dtype=np.int64)
    prev = np.zeros(len(b) + 1, dtype=np.int64)
    for x in ai:
        eq = (bi == x).astype(np.int64)
        cand = np.maximum(prev[1:], prev[:-1] + eq)
        cur = np.empty_like(prev)
        cur[0] = 0
        np.maximum.accumulate(cand, out=cur[1:])
        prev = cur
    return int(prev[-1])


def lcs(a, b) -> int:
    """The oracle LCS: pure Python for small pairs, numpy rows for big ones."""
    return lcs_dp(a, b) if len(a) * len(b) <= 40_000 else lcs_dp_rows(a, b)


def ngram_counts(toks, n: int, distinct: bool = False):
    """Counter of the n-grams of ``toks`` (tuples; each counted once when ``distinct``).
    Keyed by dict equality: for tokens that equal themselves (words, ids)."""
    from collections import Counter

    c = Counter(tuple(toks[i:i + n]) for i in range(len(toks) - n + 1))
    return Counter(set(c)) if distinct else c


def _gram_eq(g, h) -> bool:
    return all(a == b for a, b in zip(g, h))  # `==` on each token: nan == nan is False


def _gram_classes(grams):
    """[representative, count] of the n-grams grouped by ==; one that holds a token unequal
    to itself equals no representative and is a class of its own."""
    out = []
    for g in grams:
        for c in out:
            if _gram_eq(c[0], g):
                c[1] += 1
                break
        else:
            out.append([g, 1])
    return out


def ngram_pair_counts(cand, ref, n: int, distinct: bool = False):
    """(hits, candidate n-grams, reference n-grams) by the definition, with explicit ==:
    hits = sum over the candidate's classes of equal n-grams of min(count in candidate, count
    in reference) (distinct: the number of classes found in the reference; the counts are then
    the numbers of classes)."""
    cg = [tuple(cand[i:i + n]) for i in range(len(cand) - n + 1)]
    rg = [tuple(ref[i:i + n]) for i in range(len(ref) - n + 1)]
    cc = _gram_classes(cg)
    hits = 0
    for g, k in cc:
        in_ref = sum(_gram_eq(g, h) for h in rg)
        hits += (1 if in_ref else 0) if distinct else min(k, in_ref)
    if distinct:
        return hits, len(cc), len(_gram_classes(rg))
    return hits, len(cg), len(rg)


# ------------------------------------------------------------------ scoring

def pr(lcs_len: int, n_cand: int, n_ref: int):
    p = lcs_len / n_cand if n_cand > 0 else 0.0
    r = lcs_len / n_ref if n_ref > 0 else 0.0
    return p, r


def f_gamma(p: float, r: float, gamma: float) -> float:
    """paddlenlp's formula and operation order."""
    if p != 0 and r != 0:
        return ((1 + gamma ** 2) * p * r) / float(r + gamma ** 2 * p)
    return 0.0


def f_alpha(p: float, r: float, alpha: float) -> float:
    """ROUGE-1.5.5 / TF-Text weighting: 1/F = alpha/P + (1 - alpha)/R."""
    if p == 0 or r == 0:
        return 0.0
    return 1.0 / (alpha / p + (1 - alpha) / r)


def f_t2t(p: float, r: float) -> float:
    """tensor2tensor's rouge_l_sentence_level F."""
    beta = p / (r + 1e-12)
    return ((1 + beta ** 2) * r * p) / (r + (beta ** 2) * p + 1e-12)


def score_instance(cand, refs, gamma: float = 1.2, mode: str = "max_pr"):
    """(P, R, F) of one instance, plain Python.

    max_pr: max P and max R over references separately, then F (paddlenlp);
    best:   P, R, F of the first reference with the highest F (rouge-score);
    avg:    means of P, R and F over the references;
    pooled: ROUGE-1.5.5 -f A: R = sum of LCS / sum of reference lengths,
            P = sum of LCS / (k * candidate length);
    best_recall: ROUGE-1.5.5 -f B: the first reference with the highest R, its P.
    """
    n = len(_tokens(cand))
    prs = [pr(lcs(cand, ref), n, len(_tokens(ref))) for ref in refs]
    if mode == "pooled":
        hits = sum(lcs(cand, ref) for ref in refs)
        rlen = sum(len(_tokens(ref)) for ref in refs)
        p = hits / (len(refs) * n) if n else 0.0
        r = hits / rlen if rlen else 0.0
        return p, r, f_gamma(p, r, gamma)
    if mode == "best_recall":
        rs = [x[1] for x in prs]
        k = rs.index(max(rs))
        return prs[k][0], prs[k][1], f_gamma(prs[k][0], prs[k][1], gamma)
    if mode == "max_pr":
        p = max(x[0] for x in prs)
        r = max(x[1] for x in prs)
        return p, r, f_gamma(p, r, gamma)
    fs = [f_gamma(p, r, gamma) for p, r in prs]
    if mode == "best":
        k = fs.index(max(fs))  # the first reference with the highest F
        return prs[k][0], prs[k][1], fs[k]
    if mode == "avg":
        m = len(prs)
        return sum(x[0] for x in prs) / m, sum(x[1] for x in prs) / m, sum(fs) / m
    raise ValueError(mode)


# ---------------------------------------------------------------- generators

CJK = [chr(c) for c in range(0x4E00, 0x4E00 + 300)]
ASTRAL = ["\U0001F600", "\U0001F601", "\U0001F680", "\U00020000", "\U0002A700", "\U0001D11E"]


def random_seq(rng: random.Random, length: int, kind: str):
    """A token sequence of one of several kinds (see ``KINDS``)."""
    if kind == "ab":  # tiny alphabet: many matches, deep carries
        return "".join(rng.choice("ab") for _ in range(length))
    if kind == "acgt":
        return "".join(rng.choice("ACGT") for _ in range(length))
    if kind == "same":  # all-equal tokens
        return "x" * length
    if kind == "cjk":
        return "".join(rng.choice(CJK[:40]) for _ in range(length))
    if kind == "astral":  # emoji, CJK ext. B, mixed with BMP
        return "".join(rng.choice(ASTRAL + ["a", "\u4e2d", "\x00"]) for _ in range(length))
    if kind == "words":
        return [rng.choice(["the", "cat", "on", "mat", "a", "is", "", "Cat"]) for _ in range(length)]
    if kind == "ints":
        return [rng.randrange(6) for _ in range(length)]
    if kind == "bigints":  # ints beyond 32 bits, negatives
        return [rng.choice([-1, 0, 2 ** 40, 2 ** 40 + 1, 7]) for _ in range(length)]
    if kind == "numpy":
        return np.array([rng.randrange(5) for _ in range(length)], dtype=np.int64)
    if kind == "numpy32":
        return np.array([rng.randrange(5) for _ in range(length)], dtype=np.int32)
    raise ValueError(kind)


KINDS = ["ab", "acgt", "same", "cjk", "astral", "words", "ints", "bigints", "numpy", "numpy32"]
# kinds whose tokens compare equal to each other across types
COMPATIBLE = {
    "ab": ["ab", "acgt", "same"], "acgt": ["acgt", "ab"], "same": ["same", "ab"],
    "cjk": ["cjk"], "astral": ["astral"], "words": ["words"],
    "ints": ["ints", "numpy", "numpy32", "bigints"], "bigints": ["bigints", "ints"],
    "numpy": ["numpy", "ints", "numpy32"], "numpy32": ["numpy32", "numpy", "ints"],
}

BOUNDARY_LENGTHS = [0, 1, 2, 63, 64, 65, 127, 128, 129, 191, 192, 193]


def random_length(rng: random.Random) -> int:
    u = rng.random()
    if u < 0.35:
        return rng.choice(BOUNDARY_LENGTHS)
    if u < 0.9:
        return rng.randrange(0, 40)
    return rng.randrange(40, 300)


def as_char_list(x):
    """A str as a list of one-char strs (same tokens, other container)."""
    return list(x) if isinstance(x, str) else x


def random_instances(seed: int, n: int, kinds, cand_lengths, ref_lengths, ref_counts=(1, 2, 3),
                     overlap: float = 0.0):
    """N seeded (candidate, references) instances: the shared test workload.

    Each instance draws one kind from ``kinds`` (see ``random_seq``), a candidate
    length from ``cand_lengths``, per reference a length from ``ref_lengths``
    and a count from ``ref_counts`` (each a sequence to choose from, or a
    callable ``rng -> int``).  With probability ``overlap`` the first reference
    starts with half of the candidate (real overlap, not only chance matches).
    """
    rng = random.Random(seed)

    def draw(spec):
        return spec(rng) if callable(spec) else rng.choice(spec)

    cands, ref_lists = [], []
    for _ in range(n):
        kind = rng.choice(kinds)
        cand = random_seq(rng, draw(cand_lengths), kind)
        refs = [random_seq(rng, draw(ref_lengths), kind) for _ in range(draw(ref_counts))]
        if overlap and rng.random() < overlap:
            refs[0] = cand[: len(cand) // 2] + refs[0]
        cands.append(cand)
        ref_lists.append(refs)
    return cands, ref_lists
