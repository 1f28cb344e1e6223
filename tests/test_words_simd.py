"""The word reader's two paths (``_lcs.lcs_words(..., simd=...)``): the AVX-512 reader of 1-byte
texts (simd=-1, where the CPU has AVX-512 F/BW/VL/DQ and VBMI2) and the portable one (simd=0)
against independent oracles (Python's ``str.split()``, rouge-score's tokenizer, the textbook
LCS and n-gram counts), at the vector code's boundaries: 64-byte blocks (texts of 63/64/65,
127/128/129 bytes, words crossing a block), the 8- and 16-byte key pieces of the gathered
keys (words of 7/8/9/15/16/17/32/33 bytes), blocks full of one-letter words (32 starts and 32
ends in a block), many distinct words (first probes that collide, the lanes' fallback), and
a differential test of the two paths on random text of every PEP 393 kind.
"""
from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rouge_score import tokenize as rs_tokenize

import oracle
from paddle_rougel import _lcs

PATHS = (0, -1)  # the portable reader, the best this CPU runs
SPLITS = ((0, False), (0, True), (1, True))  # (mode, fold): str.split(), lowercased, rouge-score


def tokens(text: str, mode: int, fold: bool) -> list:
    if mode == 1:
        return rs_tokenize.tokenize(text, None)  # rouge-score 0.1.2's own tokenizer
    return (text.lower() if fold else text).split()


def words(cands, refs, mode, fold, simd, orders=None, distinct=False):
    raw = _lcs.lcs_words(cands, refs, mode, fold, 1, orders=orders, distinct=distinct, simd=simd)
    return [np.frombuffer(b, dtype=np.int64).tolist() for b in raw]


def check_oracle(cands, refs, mode, fold, simd):
    lcs, cl, rl, rc, hits, cg, rg = words(cands, refs, mode, fold, simd, orders=(1, 2))
    m = 0
    for i, (c, rs) in enumerate(zip(cands, refs)):
        ct = tokens(c, mode, fold)
        assert cl[i] == len(ct), (i, c)
        assert rc[i] == len(rs)
        for r in rs:
            rt = tokens(r, mode, fold)
            assert rl[m] == len(rt), (i, r)
            assert lcs[m] == oracle.lcs(ct, rt), (i, c, r)
            for k, n in enumerate((1, 2)):
                h, c_n, r_n = oracle.ngram_pair_counts(ct, rt, n)
                assert (hits[2 * m + k], cg[2 * i + k], rg[2 * m + k]) == (h, c_n, r_n), (i, r, n)
            m += 1
    assert m == len(lcs)


@pytest.mark.parametrize("simd", PATHS)
def test_block_and_key_boundaries(simd):
    cands, refs = [], []
    for total in (1, 2, 63, 64, 65, 127, 128, 129, 191, 192, 193):
        for wl in (1, 7, 8, 9, 15, 16, 17, 32, 33, 64, 65):
            word = ("Ab" * wl)[:wl]
            for at in (0, 1, total - wl - 1, total - wl, 60 - wl // 2, 63, 64):
                if at < 0 or at + wl > total:
                    continue
                # the word at byte `at` of a text of `total` bytes, filler words around it
                filler = "ab cd " * 40
                text = (filler[:max(at - 1, 0)] + " " * (at > 0) + word + " " + filler[at + wl + 1:])[:total]
                assert len(text) == total and text[at:at + wl] == word
                cands.append(text)
                refs.append([text.upper(), word + " " + word[:-1] + "x", "q" * total])
    for mode, fold in SPLITS:
        check_oracle(cands, refs, mode, fold, simd)


@pytest.mark.parametrize("simd", PATHS)
def test_dense_blocks_and_colliding_probes(simd):
    rng = random.Random(5)
    dense = " ".join("abcdefghijklmnopqrstuvwxyz"[k % 26] for k in range(200))  # 32 words a block
    vocab = [f"w{k}" for k in range(1000)] + ["x" * k for k in range(1, 40)]
    cands = [dense, dense[1:], " ".join(rng.choice(vocab) for _ in range(600))]
    refs = [[dense[::-1], dense], [dense + "z"],
            [" ".join(rng.choice(vocab) for _ in range(700)), " ".join(vocab[:500])]]
    for mode, fold in SPLITS:
        check_oracle(cands, refs, mode, fold, simd)


ALPHABET = st.sampled_from(["a", "b", "Z", "0", " ", " ", "\t", "\n", "\x1c", "\x85", "\xa0", "\x00",
                            "-", "\xe9", "\u3000", "\u0101", "\U0001F600"])
LONG = st.sampled_from(["abcdefgh", "abcdefghi", "abcdefghijklmnop", "abcdefghijklmnopq",
                        "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", "the", "The", "of"])
TEXT = st.lists(st.one_of(ALPHABET, LONG), max_size=90).map("".join)


@settings(deadline=None, derandomize=True, max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(TEXT, st.lists(TEXT, min_size=1, max_size=3)), min_size=1, max_size=5),
       st.sampled_from(SPLITS), st.booleans(), st.sampled_from([(1, 2, 3), (1, 2), (2, 1), (1,), (2,), None]),
       st.booleans())
def test_paths_agree(batch, mode_fold, distinct, orders, lcs):
    """(orders 1 and/or 2, clipped, and a candidate of at most 63 short words: the mask path,
    tests/test_words_masks.py; other orders or distinct: the ids and tables)"""
    cands = [c for c, _ in batch]
    refs = [r for _, r in batch]
    mode, fold = mode_fold
    portable = _lcs.lcs_words(cands, refs, mode, fold, 1, orders=orders, distinct=distinct, lcs=lcs, simd=0)
    best = _lcs.lcs_words(cands, refs, mode, fold, 1, orders=orders, distinct=distinct, lcs=lcs, simd=-1)
    assert [bytes(x) for x in portable] == [bytes(x) for x in best]


def test_simd_must_be_a_level_this_cpu_runs():
    with pytest.raises(ValueError, match="simd"):
        _lcs.lcs_words(["a"], [["a"]], 0, simd=99)


def test_the_vector_readers_run_where_the_cpu_has_them():
    """words_simd_level() is 1 exactly when the vector readers are compiled in (on x86-64, in
    every build but scripts/sanitize.sh's portable one, SANITIZE_PORTABLE=1) and the CPU (its
    /proc/cpuinfo flags, read here, not through the package) has every extension they use: so
    on such a machine the simd=-1 runs of these tests and tests/test_lsum_simd.py do exercise
    the vector readers (otherwise the two paths compared would be one).  No /proc/cpuinfo: a
    failure, not a skip."""
    import os
    import platform

    built = platform.machine() in ("x86_64", "AMD64") and not os.environ.get("SANITIZE_PORTABLE")
    assert _lcs.WORDS_SIMD_BUILT == int(built)
    with open("/proc/cpuinfo", encoding="utf-8") as f:
        flags = next(line.split(":", 1)[1].split() for line in f if line.startswith("flags"))
    need = {"avx512f", "avx512bw", "avx512vl", "avx512dq", "avx512_vbmi2", "popcnt", "bmi1", "bmi2"}
    assert _lcs.words_simd_level() == int(built and need <= set(flags))
