"""ROUGE-N against two independent oracles.

1. Google's rouge-score 0.1.2 itself (imported for real: no skip): ``RougeScorer(["rouge1",
   "rouge2", "rouge3"], use_stemmer=...)``, ``.score(target, prediction)`` per pair and
   ``.score_multi(targets, prediction)`` (the target with the highest F, ``np.argmax``: the first
   on ties) on seeded random English text (case, punctuation, digits, hyphens, accents, repeated
   words, empty and one-word texts, words the Porter stemmer changes), through ``compute``,
   ``rouge_n``, ``RougeN`` and the command line.
2. A plain n-gram counter written below (no package code): on token lists, every ``multi_ref``
   mode (max_pr, best, avg, pooled, best_recall), gamma and alpha weightings, ``distinct``, and
   tokens that are not equal to themselves (``float('nan')`` matches nothing, not even itself).
"""
from __future__ import annotations

import json
import random

import numpy as np
import pytest

import oracle
from paddle_rougel import RougeN, compute, rouge_n
from paddle_rougel.cli import main

from rouge_score import rouge_scorer  # ImportError = failure, by design

TYPES = ["rouge1", "rouge2", "rouge3"]

# words the stemmer changes (and some it leaves), short words, digits, names, accents
VOCAB = ["the", "The", "THE", "cat", "cats", "running", "runs", "ran", "generously", "generous",
         "was", "is", "a", "of", "on", "mat", "mats", "played", "playing", "plays", "happily",
         "happiness", "2024", "3", "x1", "v2.0", "U.S.", "don't", "it's", "well-known", "e-mail",
         "café", "naïve", "straße", "über", "OK", "ok", "connection", "connected", "connects"]
PUNCT = [",", ".", "!", "?", ";", ":", "--", "(", ")", "\"", "'", "...", "-", "&", "$", "%"]


def _english(rng: random.Random, vocab: list) -> str:
    r = rng.random()
    if r < 0.05:
        return ""
    if r < 0.08:
        return rng.choice(["!!", "...", " ", "--", "\n"])       # no token at all
    n = rng.choice([1, 1, 2, 3]) if r < 0.25 else rng.randrange(1, 40)
    out = []
    for _ in range(n):
        w = rng.choice(vocab)
        u = rng.random()
        if u < 0.1:
            w = w.upper()
        elif u < 0.2:
            w = w.capitalize()
        if rng.random() < 0.15:
            w += rng.choice(PUNCT)
        if rng.random() < 0.05:
            w = rng.choice(PUNCT) + w
        out.append(w)
        if rng.random() < 0.1:
            out.append(w)                                         # a repeated word
    return rng.choice([" ", "  ", "\t", "\n"]).join(out) if rng.random() < 0.1 else " ".join(out)


def english_cases(seed: int, n: int, max_refs: int = 4):
    """(predictions, reference lists): per instance a small vocabulary (many shared n-grams),
    half of the predictions copied in part from their first reference."""
    rng = random.Random(seed)
    preds, refs = [], []
    for _ in range(n):
        vocab = rng.sample(VOCAB, rng.randrange(2, 12))
        rl = [_english(rng, vocab) for _ in range(rng.randrange(1, max_refs + 1))]
        pred = _english(rng, vocab)
        if rng.random() < 0.5 and rl[0]:
            cut = rng.randrange(len(rl[0]) + 1)
            pred = rl[0][:cut] + " " + pred if rng.random() < 0.5 else pred + " " + rl[0][cut:]
        preds.append(pred)
        refs.append(rl)
    return preds, refs


PREDS, REFS = english_cases(2012, 600)


@pytest.fixture(scope="module", params=[False, True], ids=["nostem", "stem"])
def google(request):
    """(stem, {type: [Score per instance]} of score_multi, of score against the first reference)."""
    stem = request.param
    scorer = rouge_scorer.RougeScorer(TYPES, use_stemmer=stem)
    multi = [scorer.score_multi(rl, p) for p, rl in zip(PREDS, REFS)]
    single = [scorer.score(rl[0], p) for p, rl in zip(PREDS, REFS)]
    return stem, {t: [m[t] for m in multi] for t in TYPES}, {t: [s[t] for s in single] for t in TYPES}


def _close(ours: dict, theirs: list, t: str, tol: float = 1e-12) -> float:
    """Assert our per-instance P/R/F of type t equal theirs (within tol); the max difference."""
    worst = 0.0
    for i, s in enumerate(theirs):
        got = (ours[f"{t}_precision"][i], ours[f"{t}_recall"][i], ours[t][i])
        d = max(abs(a - b) for a, b in zip(got, (s.precision, s.recall, s.fmeasure)))
        assert d <= tol, (t, i, PREDS[i], REFS[i], got, s)
        worst = max(worst, d)
    return worst


def test_cases_are_varied(google):
    stem, multi, _ = google
    f1 = [s.fmeasure for s in multi["rouge1"]]
    f2 = [s.fmeasure for s in multi["rouge2"]]
    assert sum(f == 0 for f in f1) > 20 and sum(0 < f < 1 for f in f1) > 300 and sum(f == 1 for f in f1) > 3
    assert sum(0 < f < 1 for f in f2) > 200
    assert sum(len(r) == 4 for r in REFS) > 100 and sum(len(r) == 1 for r in REFS) > 100
    # the best reference is not always the first
    assert sum(multi["rouge1"][i] != rouge_scorer.RougeScorer(["rouge1"], use_stemmer=stem)
               .score(REFS[i][0], PREDS[i])["rouge1"] for i in range(len(PREDS))) > 50


def test_compute_best_equals_score_multi(google):
    stem, multi, _ = google
    out = compute(PREDS, REFS, rouge_types=TYPES, tokenize="rouge_score", stem=stem, gamma=1.0,
                  multi_ref="best", per_instance=True)
    for t in TYPES:
        _close(out["per_instance"], multi[t], t)
        # the means: evaluate's rouge1 / rouge2 (use_aggregator=False, then the mean)
        assert out[t] == pytest.approx(np.mean([s.fmeasure for s in multi[t]]), abs=1e-12)
        assert out[f"{t}_recall"] == pytest.approx(np.mean([s.recall for s in multi[t]]), abs=1e-12)
    tok = "tok:rouge_score+stem|" if stem else "tok:rouge_score|"
    assert out["signature"].startswith("rouge1+rouge2+rouge3|gamma:1.0|multi_ref:best|" + tok)


def test_the_whole_report_equals_score_multi_bit_for_bit(google):
    """evaluate's four types from one compute call: each the same doubles as rouge-score's
    score_multi (rougeLsum: its newline split), and rouge1 / rouge2 the same as asked alone."""
    stem = google[0]
    types = ["rouge1", "rouge2", "rougeL", "rougeLsum"]
    scorer = rouge_scorer.RougeScorer(types, use_stemmer=stem)
    multi = [scorer.score_multi(rl, p) for p, rl in zip(PREDS, REFS)]
    out = compute(PREDS, REFS, rouge_types=types, tokenize="rouge_score", stem=stem, gamma=1.0,
                  multi_ref="best", per_instance=True)["per_instance"]
    for t in types:
        for i, m in enumerate(multi):
            assert (out[f"{t}_precision"][i], out[f"{t}_recall"][i], out[t][i]) == tuple(m[t]), (t, i)
    assert sum(m["rougeLsum"] != m["rougeL"] for m in multi) > 5     # newlines in some texts
    for t in ("rouge1", "rouge2"):
        alone = compute(PREDS, REFS, rouge_types=[t], tokenize="rouge_score", stem=stem, gamma=1.0,
                        multi_ref="best", per_instance=True)["per_instance"]
        assert all(np.array_equal(alone[k], out[k]) for k in alone)


def test_compute_one_reference_equals_score(google):
    stem, _, single = google
    out = compute(PREDS, [rl[0] for rl in REFS], rouge_types=["rouge2", "rouge1"], tokenize="rouge_score",
                  stem=stem, alpha=0.5, per_instance=True)
    for t in ("rouge1", "rouge2"):
        _close(out["per_instance"], single[t], t)


def test_rouge_n_functional_equals_score(google):
    stem, _, single = google
    for n, t in ((1, "rouge1"), (2, "rouge2"), (3, "rouge3")):
        s = rouge_n(PREDS, [rl[0] for rl in REFS], n=n, tokenize="rouge_score", stem=stem)  # alpha 0.5
        _close({t: s.fmeasure, f"{t}_precision": s.precision, f"{t}_recall": s.recall}, single[t], t)
        s1 = rouge_n(PREDS, [rl[0] for rl in REFS], n, gamma=1.0, tokenize="rouge_score", stem=stem)
        assert np.array_equal(s1.fmeasure, s.fmeasure) and np.array_equal(s1.recall, s.recall)


def test_rouge_n_metric_equals_score_multi(google):
    stem, multi, _ = google
    for n in (1, 2):
        m = RougeN(n=n, gamma=1.0, multi_ref="best", tokenize="rouge_score", stem=stem)
        for lo in range(0, len(PREDS), 250):                      # several batches
            m.add_batch(PREDS[lo:lo + 250], REFS[lo:lo + 250])
        pi = m.per_instance()
        t = f"rouge{n}"
        _close({t: pi.fmeasure, f"{t}_precision": pi.precision, f"{t}_recall": pi.recall}, multi[t], t)
        assert m.score() == pytest.approx(np.mean([s.fmeasure for s in multi[t]]), abs=1e-12)


def test_command_line_equals_score_multi(google, tmp_path, capsys):
    """score --rouge-types rouge1,rouge2: one JSON with both means (x100, as the CLI reports)."""
    stem, multi, _ = google
    # one line per text: the CLI reads line files (no newline inside a text), 4 reference files
    keep = [i for i in range(len(PREDS)) if len(REFS[i]) == 4 and "\n" not in PREDS[i] + "".join(REFS[i])]
    assert len(keep) > 80
    (tmp_path / "hyp.txt").write_text("".join(PREDS[i] + "\n" for i in keep), encoding="utf-8")
    args = ["score", "--hyp", str(tmp_path / "hyp.txt")]
    for k in range(4):
        (tmp_path / f"ref{k}.txt").write_text("".join(REFS[i][k] + "\n" for i in keep), encoding="utf-8")
        args += ["--ref", str(tmp_path / f"ref{k}.txt")]
    args += ["--rouge-types", "rouge1,rouge2", "--tokenize", "rouge_score", "--stem", "yes" if stem else "no",
             "--gamma", "1", "--multi-ref", "best", "--format", "json"]
    assert main(args) == 0
    out = json.loads(capsys.readouterr().out)
    text = json.dumps(out)
    for t, label in (("rouge1", "ROUGE-1"), ("rouge2", "ROUGE-2")):
        want = 100 * np.mean([multi[t][i].fmeasure for i in keep])
        assert f'"{label}": {round(want, 2)}' in text, (label, want, out)


ODD = list("abcAB01 .-,\t\n'_") + ["\u0130", "\u212a", "\u00df", "\u00e9", "\ufb01", "\u216b", "\u00b2",
                                    "\u01c5", "\u03a3", "\u03c2", "\u0301", "\x00", "\u00a0", "\u2028", "\x85",
                                    "\x1c", "\U0001F600"]


@pytest.mark.parametrize("stem", [False, True])
def test_odd_characters_equal_score_multi(stem):
    """Short random strings of letters, digits, separators and characters whose lowercase or
    class is unusual (dotted I, Kelvin sign, ligatures, combining marks, odd line breaks): the
    same tokens as rouge-score's tokenizer, so bit-equal figures."""
    rng = random.Random(31 + stem)
    preds = ["".join(rng.choice(ODD) for _ in range(rng.randrange(0, 20))) for _ in range(1500)]
    refs = [["".join(rng.choice(ODD) for _ in range(rng.randrange(0, 20))) for _ in range(rng.randrange(1, 3))]
            for _ in preds]
    scorer = rouge_scorer.RougeScorer(["rouge1", "rouge2"], use_stemmer=stem)
    out = compute(preds, refs, rouge_types=["rouge1", "rouge2"], tokenize="rouge_score", stem=stem, gamma=1.0,
                  multi_ref="best", per_instance=True)["per_instance"]
    hits = 0
    for i, (p, rl) in enumerate(zip(preds, refs)):
        m = scorer.score_multi(rl, p)
        for t in ("rouge1", "rouge2"):
            assert (out[f"{t}_precision"][i], out[f"{t}_recall"][i], out[t][i]) == tuple(m[t]), (t, p, rl, m[t])
            hits += m[t].fmeasure > 0
    assert hits > 500


# ---------------------------------------------------------------- the plain counter oracle

counts = oracle.ngram_pair_counts  # (hits, candidate n-grams, reference n-grams), explicit ==


def f_alpha(p: float, r: float, alpha: float) -> float:
    """ROUGE-1.5.5's F, its operation order: P R / ((1 - alpha) P + alpha R), 0 when P or R is 0.
    (The order matters to ``best``: 1 / (alpha/P + (1-alpha)/R) can tie two references that this
    form tells apart by one ulp, e.g. P, R = 1/2, 1/4 and 1, 1/5 at alpha 0.5.)"""
    return p * r / ((1 - alpha) * p + alpha * r) if p and r else 0.0


def score_instance(cand, refs, n, weight, mode, distinct=False):
    """(P, R, F) of one instance; weight = ("gamma", g) (paddlenlp's F) or ("alpha", a)."""
    kind, w = weight
    f = (lambda p, r: oracle.f_gamma(p, r, w)) if kind == "gamma" else (lambda p, r: f_alpha(p, r, w))
    c = [counts(cand, ref, n, distinct) for ref in refs]
    prs = [(h / cn if cn else 0.0, h / rn if rn else 0.0) for h, cn, rn in c]
    if mode == "pooled":
        hits, cn, rn = (sum(x[k] for x in c) for k in range(3))
        p, r = (hits / cn if cn else 0.0), (hits / rn if rn else 0.0)
        return p, r, f(p, r)
    if mode == "max_pr":
        p, r = max(x[0] for x in prs), max(x[1] for x in prs)
        return p, r, f(p, r)
    if mode == "best_recall":
        k = [x[1] for x in prs].index(max(x[1] for x in prs))
        return prs[k][0], prs[k][1], f(*prs[k])
    fs = [f(p, r) for p, r in prs]
    if mode == "best":
        k = fs.index(max(fs))
        return prs[k][0], prs[k][1], fs[k]
    assert mode == "avg"
    m = len(prs)
    return sum(x[0] for x in prs) / m, sum(x[1] for x in prs) / m, sum(fs) / m


def _tokens(rng: random.Random, vocab: list, nans: list) -> list:
    length = rng.choice([0, 1, 2, 3, rng.randrange(0, 25), rng.randrange(0, 25)])
    out = []
    for _ in range(length):
        if nans and rng.random() < 0.08:
            out.append(rng.choice(nans))           # shared nan objects: identity must not match
        else:
            out.append(rng.choice(vocab))
    if out and rng.random() < 0.2:
        out = out + out[: rng.randrange(len(out) + 1)]     # repeated n-grams
    return out


def token_cases(seed: int, n: int, with_nan: bool):
    rng = random.Random(seed)
    nans = [float("nan"), float("nan")] if with_nan else []
    cands, refs = [], []
    for _ in range(n):
        vocab = rng.choice([["a", "b"], ["a", "b", "c"], [1, 2, 3, 4], ["the", "cat", "on", "mat", "a"],
                            list("abcdefgh")])
        cands.append(_tokens(rng, vocab, nans))
        refs.append([_tokens(rng, vocab, nans) for _ in range(rng.randrange(1, 5))])
    return cands, refs


MODES = ["max_pr", "best", "avg", "pooled", "best_recall"]
WEIGHTS = [("gamma", 1.0), ("gamma", 1.2), ("gamma", 0.3), ("alpha", 0.5), ("alpha", 0.0), ("alpha", 1.0),
           ("alpha", 0.8)]


@pytest.mark.parametrize("mode", MODES)
def test_every_mode_and_weighting_equals_the_counter_oracle(mode):
    cands, refs = token_cases(7 + MODES.index(mode), 250, with_nan=True)
    assert any(any(t != t for t in c) for c in cands)
    worst = 0.0
    for kind, w in WEIGHTS:
        out = compute(cands, refs, rouge_types=["rouge1", "rouge2", "rouge4"], multi_ref=mode,
                      per_instance=True, **{kind: w})["per_instance"]
        for n in (1, 2, 4):
            t = f"rouge{n}"
            for i, (c, rl) in enumerate(zip(cands, refs)):
                p, r, f = score_instance(c, rl, n, (kind, w), mode)
                got = (out[f"{t}_precision"][i], out[f"{t}_recall"][i], out[t][i])
                if mode != "avg":                  # P and R: the same divisions
                    assert got[:2] == (p, r), (t, kind, w, i, c, rl, got, (p, r, f))
                d = max(abs(a - b) for a, b in zip(got, (p, r, f)))
                assert d <= 1e-12, (t, kind, w, i, c, rl, got, (p, r, f))
                worst = max(worst, d)
    assert worst < 1e-12


@pytest.mark.parametrize("mode", MODES)
def test_distinct_equals_the_counter_oracle(mode):
    cands, refs = token_cases(70 + MODES.index(mode), 250, with_nan=False)
    out = compute(cands, refs, rouge_types=["rouge1", "rouge2", "rouge3"], multi_ref=mode, gamma=1.0,
                  distinct=True, per_instance=True)["per_instance"]
    differs = 0
    for n in (1, 2, 3):
        t = f"rouge{n}"
        for i, (c, rl) in enumerate(zip(cands, refs)):
            want = score_instance(c, rl, n, ("gamma", 1.0), mode, distinct=True)
            got = (out[f"{t}_precision"][i], out[f"{t}_recall"][i], out[t][i])
            assert max(abs(a - b) for a, b in zip(got, want)) <= 1e-12, (t, i, c, rl, got, want)
            differs += want != score_instance(c, rl, n, ("gamma", 1.0), mode)
    assert differs > 50                             # distinct is another number on these cases


def test_nan_tokens_match_nothing():
    nan = float("nan")
    cand, ref = ["a", nan, "b", nan], ["a", nan, "b", nan]     # the same nan object on both sides
    out = compute([cand], [ref], rouge_types=["rouge1", "rouge2"], gamma=1.0, per_instance=True)
    assert (out["rouge1_precision"], out["rouge1_recall"]) == (0.5, 0.5)     # a, b
    assert (out["rouge2_precision"], out["rouge2_recall"]) == (0.0, 0.0)     # every bigram holds a nan
    assert counts(cand, ref, 1) == (2, 4, 4) and counts(cand, ref, 2) == (0, 3, 3)
    s = rouge_n([cand], [ref], n=1, gamma=1.0)
    assert (s.precision[0], s.recall[0]) == (0.5, 0.5)


MIXED = [
    ([1, 2, 1.0, 2.0], [[1.0, 2.0, True], [2, 1]]),                 # equal across int / float / bool
    ([0.0, -0.0, 0.0], [[-0.0, 0.0]]),
    (np.array([1, 2, 3, 1, 2]), [np.array([1, 2, 3]), np.array([2, 3, 1, 2], dtype=np.int32)]),
    ([np.float64("nan"), 1, np.float64("nan")], [[np.float64("nan"), 1]]),
    (["a", ("x", 1), "b"], [[("x", 1), "b"], ["a"]]),
    ([1, 2, 2 ** 70, 2 ** 70 + 1], [[2 ** 70, 2 ** 70 + 1, 1, 2]]),   # beyond 64 bits
]


@pytest.mark.parametrize("case, distinct", [(k, d) for k in range(len(MIXED)) for d in (False, True)
                                             if not (d and k == 3)])   # no set of nan n-grams
def test_tokens_of_mixed_types_equal_the_counter_oracle(case, distinct):
    """Tokens match when they compare equal (==), whatever their types."""
    cand, refs = MIXED[case]
    for mode in MODES:
        out = compute([cand], [refs], rouge_types=["rouge1", "rouge2"], gamma=1.0, multi_ref=mode,
                      distinct=distinct, per_instance=True)["per_instance"]
        for n in (1, 2):
            want = score_instance(list(cand), [list(r) for r in refs], n, ("gamma", 1.0), mode, distinct)
            got = tuple(out[k][0] for k in (f"rouge{n}_precision", f"rouge{n}_recall", f"rouge{n}"))
            assert got == pytest.approx(want, abs=1e-12, rel=0), (mode, n, got, want)


def test_oracle_self_check():
    """The counter on hand-worked cases (clipping, repeats, distinct)."""
    assert counts(list("aab"), list("ab"), 1) == (2, 3, 2)
    assert counts(list("aaaa"), list("aa"), 2) == (1, 3, 1)
    assert counts(list("aaaa"), list("aa"), 1, distinct=True) == (1, 1, 1)
    assert counts(list("abab"), list("abxab"), 2) == (2, 3, 4)
    assert counts([], list("ab"), 1) == (0, 0, 2)
    assert score_instance(list("ab"), [list("a"), list("abc")], 1, ("alpha", 0.5), "pooled") == (0.75, 0.75, 0.75)


@pytest.mark.parametrize("as_tensor", [False, True], ids=["numpy", "paddle"])
@pytest.mark.parametrize("n, distinct", [(1, False), (2, False), (3, False), (2, True)])
def test_network_output_equals_the_counter_oracle(n, distinct, as_tensor):
    """RougeN on hapi's path: ``compute(ids, label)`` -> [B, 3] (hits, candidate n-grams,
    reference n-grams) -> ``update``; the candidate cut before its first eos, the label's
    trailing pads dropped."""
    import paddle

    rng = random.Random(100 * n + distinct)
    pad, eos, B, T = 0, 2, 64, 12
    out, lab, want = np.full((B, T), pad), np.full((B, T), pad), []
    for b in range(B):
        vocab = [3, 4, 5, 6, 7, 8][: rng.randrange(1, 7)]
        c = [rng.choice(vocab) for _ in range(rng.randrange(0, T + 1))]
        r = [rng.choice(vocab) for _ in range(rng.randrange(0, T + 1))]
        row = c + ([eos] + [rng.choice(vocab + [eos, pad]) for _ in range(T)] if len(c) < T else [])
        out[b], lab[b, :len(r)] = row[:T], r
        want.append(score_instance(c, [r], n, ("gamma", 1.0), "max_pr", distinct))
    m = RougeN(n=n, gamma=1.0, pad_id=pad, eos_id=eos, distinct=distinct)
    for lo in range(0, B, 16):
        args = (out[lo:lo + 16], lab[lo:lo + 16])
        packed = m.compute(*(paddle.to_tensor(a) for a in args) if as_tensor else args)
        m.update(*(x.numpy() for x in packed))
    pi = m.per_instance()
    for b, w in enumerate(want):
        assert (pi.precision[b], pi.recall[b]) == w[:2] and abs(pi.fmeasure[b] - w[2]) <= 1e-12, (b, out[b], lab[b])
    assert sum(0 < w[2] < 1 for w in want) > 10
    assert m.accumulate() == pytest.approx(np.mean([w[2] for w in want]), abs=1e-12)
