"""ROUGE-Lsum's ASCII text reader, both paths (``_lcs.lsum_text(..., simd=...)``): the AVX-512
reader (simd=-1, where the CPU has AVX-512 F/BW/VL/DQ and VBMI2) and the SSE2/portable one
(simd=0), against each other and against rouge-score's own rougeLsum (an independent oracle:
its tokenizer, newline split and union LCS), at the vector code's boundaries: texts around the
64-byte blocks, words of 1-33 bytes crossing blocks (the 8- and 16-byte key pieces of the
gathered keys, and the long-word keys past 16), newlines at block edges, empty sentences
(blank lines, lines without a token), many sentences, one-letter words filling blocks.
"""
from __future__ import annotations

import random

import numpy as np
import pytest
from rouge_score import rouge_scorer
from rouge_score import tokenize as rs_tokenize

from paddle_rougel import _lcs

PATHS = (0, -1)  # the portable reader, the best this CPU runs
SCORER = rouge_scorer.RougeScorer(["rougeLsum"])
LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"


def lsum(cands, refs, simd):
    raw = _lcs.lsum_text(cands, refs, None, 1, simd=simd)
    assert raw is not None
    return [np.frombuffer(b, dtype=np.int64).tolist() for b in raw]


def check(cands, refs):
    """Both paths agree, and with rouge-score (hits from its recall)."""
    out = [lsum(cands, refs, simd) for simd in PATHS]
    assert out[0] == out[1]
    hits, cl, rl = out[1]
    m = 0
    for i, (c, rs) in enumerate(zip(cands, refs)):
        assert cl[i] == len(rs_tokenize.tokenize(c, None)), (i, c)
        for r in rs:
            n = len(rs_tokenize.tokenize(r, None))
            assert rl[m] == n, (i, r)
            want = SCORER.score(r, c)["rougeLsum"].recall * n
            assert hits[m] == round(want), (i, c, r, hits[m], want)
            m += 1


def word(rng, n):
    return "".join(rng.choice(LETTERS) for _ in range(n))


def text_near(rng, total, wl, nl_at=()):
    """About total bytes: words of wl bytes, separators, newlines at the offsets nl_at."""
    out = []
    while len("".join(out)) < total:
        out.append(word(rng, wl))
        out.append(rng.choice((" ", ", ", ". ", "-")))
    s = list("".join(out)[:total])
    for q in nl_at:
        if q < len(s):
            s[q] = "\n"
    return "".join(s)


def test_simd_keyword_is_checked():
    with pytest.raises(ValueError, match="lsum_text: simd=99"):
        _lcs.lsum_text(["a"], [["a"]], None, 1, simd=99)


def test_block_edges_and_word_lengths():
    rng = random.Random(1)
    cands, refs = [], []
    for total in (1, 2, 15, 16, 17, 63, 64, 65, 127, 128, 129, 191, 192, 193):
        for wl in (1, 2, 7, 8, 9, 15, 16, 17, 24, 32, 33):
            nl = (63, 64, 127, 128) if total > 60 else (total // 2,)
            c = text_near(rng, total, wl, nl)
            # the reference: shares words with the candidate, shifted across the blocks
            r = text_near(rng, total // 2, max(1, wl - 1)) + "\n" + c[rng.randrange(max(1, len(c))):]
            cands.append(c)
            refs.append([r, c[::-1], c.upper()])
    check(cands, refs)


def test_words_crossing_blocks_and_long_words():
    rng = random.Random(2)
    vocab = [word(rng, n) for n in range(1, 34) for _ in range(3)]
    cands, refs = [], []
    for k in range(120):
        pad = " " * rng.randrange(0, 64)  # moves every word across the block edges
        c = pad + "\n".join(" ".join(rng.choice(vocab) for _ in range(rng.randint(1, 12)))
                            for _ in range(rng.randint(1, 6)))
        r = "\n".join(" ".join(rng.choice(vocab).swapcase() for _ in range(rng.randint(1, 12)))
                      for _ in range(rng.randint(1, 6)))
        cands.append(c)
        refs.append([r, pad[: k % 7] + c])
    check(cands, refs)


def test_newlines_at_edges_empty_and_many_sentences():
    rng = random.Random(3)
    cands, refs = [], []
    for edge in (0, 1, 62, 63, 64, 65, 126, 127, 128):
        base = list(text_near(rng, 200, 3))
        for q in (edge, edge + 64 if edge + 64 < 200 else edge):
            base[q] = "\n"
        c = "".join(base)
        cands.append(c)
        refs.append(["\n\n" + c.replace(" ", "\n") + "\n\n", "...\n\n!!\n" + c, "\n"])
    # many sentences: one or two words a line, blank lines and token-free lines between
    for k in range(30):
        lines = [rng.choice(("", "--", "a", "b c", word(rng, rng.randint(1, 20)), "x y z")) for _ in range(300)]
        cands.append("\n".join(lines))
        refs.append(["\n".join(rng.sample(lines, len(lines)))])
    # one-letter words filling blocks: 32 starts and 32 ends a block
    cands.append(" ".join("ab"[k % 2] for k in range(400)))
    refs.append(["\n".join("ab"[k % 3 % 2] for k in range(400)), "a" * 64 + " " + "b" * 63])
    cands.append("")
    refs.append(["a b", ""])
    # words over 16 bytes equal in their first 16 (keyed past 16 by a hash, then compared)
    p = "Q" * 16
    for wl in (17, 24, 33):
        tails = [word(rng, wl - 16) for _ in range(4)]
        cands.append(" ".join(p + t for t in tails[:2]) + "\n" + (p + tails[0]).lower())
        refs.append([" ".join(p.lower() + t for t in tails[1:]), p + tails[3] + "\n" + p + tails[2]])
    check(cands, refs)


def test_random_texts_paths_agree():
    rng = random.Random(4)
    alphabet = LETTERS + " \n\n\n.,-'\t"
    cands, refs = [], []
    for _ in range(300):
        c = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 300)))
        rs = ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 300))) for _ in range(rng.randint(1, 3))]
        rs.append(c[rng.randrange(len(c) + 1):])
        cands.append(c)
        refs.append(rs)
    check(cands, refs)
