"""The word reader's mask path (``words_kernel.c``, where the CPU runs the AVX-512 reader): a
1-byte candidate of at most 63 words of at most 15 bytes is matched without ids or a table,
each reference word's match mask over the candidate's positions coming from a compare of
16-bit fingerprints and a check of the word's key (key, key2 | length << 56), fed straight to
the LCS step and to the clipped ROUGE-1/2 count.  Checked here, both paths (simd=-1 and the
portable reader, simd=0) against the textbook LCS and n-gram counts (tests/oracle.py) and
rouge-score's / ``str.split()``'s tokens:

* its limits: candidates of 61-66 words, words of 13-17 bytes in candidate and references;
* every mix of what is asked (LCS or not, orders 1, 2, both, in either order, or an order
  the mask path does not take);
* fingerprints that words share (found with ``_lcs.word_fingerprints``, the reader's own):
  two or three candidate words with one fingerprint, reference words that share it;
* the key's encoding: reference words of 16 bytes or more whose second key piece equals a
  shorter candidate word's piece with its length (split mode, control characters; lengths
  256 and 270, which a length shifted into the top byte would wrap to 0 and 14: the reader
  gives such words no key at all), and words that differ only by trailing NUL bytes.  (A
  wrapped key could only match with a fingerprint shared too, which includes the whole
  length: such a word cannot be built at a test's size, so the wrap itself is not observed);
* references of other PEP 393 kinds against a 1-byte candidate (the plain search).
"""
from __future__ import annotations

import random
from collections import defaultdict

import numpy as np
import pytest

import oracle
from paddle_rougel import _lcs
from test_words_simd import PATHS, SPLITS, tokens

# (lcs, orders): what a call may ask; orders the mask path does not take fall back
MIXES = ((True, (1, 2)), (True, (2, 1)), (True, None), (False, (1,)), (False, (2,)), (False, (1, 2)),
         (True, (1,)), (True, (2,)), (True, (1, 2, 3)))


def check(cands, refs, mode, fold, simd):
    for want_lcs, orders in MIXES:
        raw = _lcs.lcs_words(cands, refs, mode, fold, 1, orders=orders, lcs=want_lcs, simd=simd)
        got = [np.frombuffer(b, dtype=np.int64).tolist() for b in raw]
        lcs, cl, rl = got[0], got[1], got[2]
        K = len(orders or ())
        m = 0
        for i, (c, rs) in enumerate(zip(cands, refs)):
            ct = tokens(c, mode, fold)
            assert cl[i] == len(ct), (i, c)
            for r in rs:
                rt = tokens(r, mode, fold)
                assert rl[m] == len(rt)
                assert lcs[m] == (oracle.lcs(ct, rt) if want_lcs else 0), (orders, c, r)
                for k, n in enumerate(orders or ()):
                    h, c_n, r_n = oracle.ngram_pair_counts(ct, rt, n)
                    assert (got[4][K * m + k], got[5][K * i + k], got[6][K * m + k]) == (h, c_n, r_n), \
                        (orders, n, c, r)
                m += 1


@pytest.mark.parametrize("simd", PATHS)
def test_limits_of_the_mask_path(simd):
    rng = random.Random(3)
    short = ["the", "of", "a", "cat", "Sat", "x" * 13, "y" * 14, "z" * 15, "abcdefghijklmno", "ABCDEFGHIJKLMNO"]
    longer = short + ["w" * 16, "v" * 17, "abcdefghijklmnop"]
    cands, refs = [], []
    for n in (0, 1, 2, 61, 62, 63, 64, 65, 66):
        for vocab in (short, short, longer):
            cand = [rng.choice(vocab) for _ in range(n)]
            cands.append(" ".join(cand))
            refs.append([" ".join(rng.choice(vocab) for _ in range(rng.randrange(0, 80))),
                         " ".join(cand[::-1]), " ".join(cand) + " " + " ".join(cand[:5]), "",
                         " ".join(rng.choice(longer) for _ in range(70))])
    for mode, fold in SPLITS:
        check(cands, refs, mode, fold, simd)


def shared_fingerprints(seed, count=20000):
    """Groups of distinct lowercase words with one fingerprint (the reader's)."""
    rng = random.Random(seed)
    words = sorted({"".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rng.randrange(2, 9)))
                    for _ in range(count)})
    fps = _lcs.word_fingerprints(" ".join(words))
    assert len(fps) == len(words)
    by = defaultdict(list)
    for w, f in zip(words, fps):
        by[f].append(w)
    return [g for g in by.values() if len(g) >= 2]


@pytest.mark.parametrize("simd", PATHS)
def test_words_that_share_a_fingerprint(simd):
    if not _lcs.words_simd_level():  # no mask path here (test_the_vector_readers_run_where_the_cpu_has_them
        with pytest.raises(RuntimeError, match="AVX-512"):  # says whether that is right): nothing to share
            _lcs.word_fingerprints("a b")
        return
    groups = shared_fingerprints(11)
    triples = [g for g in groups if len(g) >= 3]
    assert len(groups) >= 100 and len(triples) >= 10  # the collisions this test is about exist
    rng = random.Random(4)
    filler = ["the", "of", "and", "to", "in"]
    cands, refs = [], []
    for g in groups[:60] + triples[:20]:
        a, b = g[0], g[1]
        c = g[2] if len(g) > 2 else "zz"
        cand = [a, b, a] + [rng.choice(filler) for _ in range(rng.randrange(0, 50))] + [b]
        rng.shuffle(cand)
        cands.append(" ".join(cand))
        refs.append([" ".join([a] * 3 + [b, c]), " ".join([c, c, b]), " ".join([b, a, b, a] + filler),
                     " ".join(cand), c])
        cands.append(" ".join([a, "x", "y", a]))  # one word of the fingerprint in the candidate
        refs.append([" ".join([b, a, b, a]), b, " ".join([c, a])])
    for mode, fold in SPLITS:
        check(cands, refs, mode, fold, simd)


@pytest.mark.parametrize("simd", PATHS)
def test_the_key_of_a_word(simd):
    # key2 | length << 56 is exact for words of at most 15 bytes; a longer reference word whose
    # bytes 8-15 equal a shorter candidate word's key2 with its length (14 = \x0e, 15 = \x0f:
    # not whitespace), or whose length is that length modulo 256 (270 = 14 + 256) or 0 modulo
    # 256, must not match it; trailing NULs make other words
    tail = "x" * 240
    tricky = ["abcdefghijklmn\x00\x0e", "abcdefghijklmno\x0f", "abcdefghijklmn\x00\x0e" + tail,
              "abcdefghijklmn\x00\x00" + tail + "x" * 14, "abcdefghijklmno\x00" + tail]
    cands = ["abcdefghijklmn abcdefghijklmno ab ab\x00 a\x00\x00",
             "abcdefghijklmn\x00\x0e abcdefghijklmno\x0f ab",
             "abcdefghijklmnop abcdefghijklmno"]
    refs = [[" ".join(tricky) + " ab\x00 a\x00\x00 ab", "ab\x00\x00 a a\x00"] + tricky,
            ["abcdefghijklmn abcdefghijklmno abcdefghijklmn\x00\x0e"] + tricky,
            ["abcdefghijklmnop abcdefghijklmno abcdefghijklmnopq"]]
    for fold in (False, True):
        check(cands, refs, 0, fold, simd)


@pytest.mark.parametrize("simd", PATHS)
def test_references_of_other_kinds(simd):
    cands = ["the cat sat on the mat", "Ab ab AB \xe9t\xe9"]
    refs = [["the cat \u3000 sat \U0001F600 mat the", "THE Cat", "the\u0101 cat"],
            ["ab \u00e9t\u00e9 \u0101", "AB ab"]]
    for mode, fold in SPLITS:
        check(cands, refs, mode, fold, simd)
