"""LCS alignments: the pairs are one LCS (length = the DP's), read out with rouge-score's tie
rule (checked against a brute-force DP backtrack written here, and rouge-score's own
``lcs_ind``), and the ROUGE-Lsum union hits are what rouge-score counts."""
from __future__ import annotations

import collections

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rouge_score import rouge_scorer, tokenize

from paddle_rougel import alignment
from paddle_rougel.metrics.rouge_lsum import RougeLsumAccumulator
from paddle_rougel.api.align import best_reference
from paddle_rougel.engine.lsum import make_lsum_batch
from paddle_rougel.metrics.rouge_l import RougeLSettings
from paddle_rougel.metrics.rouge_lsum import RougeLsumSettings
from oracle import lcs_dp

SETTINGS = dict(deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])


def dp_backtrack(cand, ref):
    """Brute force: the full O(n m) table (reference rows, candidate columns), then
    rouge-score's walk back: a match diagonally, else left when t[i][j-1] > t[i-1][j], else up.
    Returns (candidate position, reference position) pairs."""
    n, m = len(ref), len(cand)
    t = [[0] * (m + 1) for _ in range(n + 1)]
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            t[i][j] = t[i - 1][j - 1] + 1 if ref[i - 1] == cand[j - 1] else max(t[i - 1][j], t[i][j - 1])
    i, j, out = n, m, []
    while i > 0 and j > 0:
        if ref[i - 1] == cand[j - 1]:
            out.append((j - 1, i - 1))
            i, j = i - 1, j - 1
        elif t[i][j - 1] > t[i - 1][j]:
            j -= 1
        else:
            i -= 1
    return tuple(out[::-1])


small = st.lists(st.sampled_from("abc"), max_size=12)   # three letters: ties everywhere
wide = st.lists(st.integers(0, 6), max_size=90)          # past one 64-bit word


@settings(max_examples=400, **SETTINGS)
@given(small, small)
def test_pairs_are_the_dp_backtrack_small_alphabet(cand, ref):
    a = alignment(cand, ref)
    assert a.pairs == dp_backtrack(cand, ref)
    assert a.lcs == lcs_dp(cand, ref)
    assert all(cand[c] == ref[r] for c, r in a.pairs)
    assert all(c1 < c2 and r1 < r2 for (c1, r1), (c2, r2) in zip(a.pairs, a.pairs[1:]))
    # the reference positions are rouge-score's lcs_ind(ref, cand)
    assert [r for _, r in a.pairs] == rouge_scorer.lcs_ind(ref, cand)


@settings(max_examples=150, **SETTINGS)
@given(wide, wide)
def test_pairs_are_the_dp_backtrack_long(cand, ref):
    a = alignment(cand, ref)
    assert a.pairs == dp_backtrack(cand, ref)
    assert a.lcs == lcs_dp(cand, ref)


def test_a_tie_where_another_lcs_exists():
    # "ab" vs "ba": LCS 1, "a" or "b"; at the corner left does not keep more LCS than up,
    # so the walk goes up and matches the "b"s
    a = alignment("ab", "ba")
    assert a.pairs == dp_backtrack("ab", "ba") == ((1, 0),)
    assert a.marked() == ("a[b]", "[b]a")


def test_text_settings_and_nan():
    a = alignment("The cat sat", "the cat  sat down", tokenize="whitespace", lowercase=True)
    assert a.cand == ("the", "cat", "sat") and a.lcs == 3
    nan = float("nan")
    assert alignment([nan, 1], [nan, 1]).pairs == ((1, 1),)  # NaN matches nothing
    assert alignment(np.array([3, 1, 2]), [1, 2]).pairs == ((1, 0), (2, 1))
    assert alignment("", "abc").pairs == () and alignment("abc", "").lcs == 0


def test_bad_input_names_the_side():
    with pytest.raises(TypeError, match="candidate"):
        alignment(None, "abc")
    with pytest.raises(TypeError, match="reference"):
        alignment("abc", {"a"})
    with pytest.raises(ValueError, match="tokenize"):
        alignment("a", "b", tokenize="nope")


# ------------------------------------------------------------------ ROUGE-Lsum

def rouge_score_hits(cand_sents, ref_sents):
    """rouge-score's _summary_level_lcs, written out to return the counted union positions per
    reference sentence (its union from _find_union of lcs_ind, its clipping by token counts)."""
    cnt_c, cnt_r = collections.Counter(), collections.Counter()
    for s in cand_sents:
        cnt_c.update(s)
    for s in ref_sents:
        cnt_r.update(s)
    out = []
    for r in ref_sents:
        union = rouge_scorer._find_union([rouge_scorer.lcs_ind(r, c) for c in cand_sents])
        hit = []
        for i in union:
            t = r[i]
            if cnt_c[t] > 0 and cnt_r[t] > 0:
                hit.append(i)
                cnt_c[t] -= 1
                cnt_r[t] -= 1
        out.append(tuple(hit))
    return out


sent = st.lists(st.sampled_from("abcd"), max_size=9)
summ = st.lists(sent, min_size=1, max_size=4)


@settings(max_examples=300, **SETTINGS)
@given(summ, summ)
def test_union_hits_are_rouge_scores(cand, ref):
    a = alignment(cand, ref, summary_level=True)
    assert list(a.hits) == rouge_score_hits(cand, ref)
    for k, r in enumerate(ref):  # the union: rouge-score's, per reference sentence
        nonempty = [c for c in cand if c]
        want = rouge_scorer._find_union([rouge_scorer.lcs_ind(r, c) for c in nonempty]) if r else []
        assert list(a.union[k]) == sorted(want)
    for (s, c), (k, j) in a.pairs:  # each counted hit comes with an LCS pair of equal tokens
        assert cand[s][c] == ref[k][j] and j in a.hits[k]
    # the hits the metric counts: P = hits / candidate tokens
    acc = RougeLsumAccumulator(RougeLsumSettings(gamma=1.0))
    acc.add_now(make_lsum_batch([[list(x) for x in cand]], [[[list(x) for x in ref]]]))
    n_c = sum(map(len, cand))
    assert a.n_hits == (round(acc.per_instance().precision[0] * n_c) if n_c else 0)


def test_readme_summary_pair_with_rouge_score_tokens():
    cand = "The cat sat on the mat.\nIt was happy."
    ref = "A cat sat on a mat.\nThe cat was very happy."
    a = alignment(cand, ref, summary_level=True, tokenize="rouge_score")
    tok = lambda s: tokenize.tokenize(s, None)  # noqa: E731
    cs, rs = [tok(s) for s in cand.split("\n")], [tok(s) for s in ref.split("\n")]
    assert [list(s) for s in a.cand] == cs
    assert list(a.hits) == rouge_score_hits(cs, rs)
    assert a.n_hits == 7  # P = 7 / 9 = 0.7778, the README's rougeLsum_precision
    assert a.marked()[1] == ["a [cat sat on] a [mat]", "[the] cat [was] very [happy]"]


def test_best_reference_is_the_highest_pair_f_first_on_ties():
    s = RougeLSettings(gamma=1.2)
    k, a, fs = best_reference("abcd", ["xxxx", "abxd", "abxd"], s)
    assert k == 1 and a.lcs == 3 and fs[1] == fs[2] > fs[0] == 0.0
