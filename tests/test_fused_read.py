"""ROUGE-L and ROUGE-N from one read of the words (issue 22's report speed).

``compute`` (and ``score --rouge-types``) asked for rougeL and rougeN with the same text settings
takes ROUGE-L's LCS and ROUGE-N's counts from one fused read of the words
(``Backend.lcs_ngram_words``) instead of reading every text once per metric.  Checked here:

* the numbers: ``compute`` with every type at once equals ``compute`` of each type alone, every
  key and every per-instance value bit for bit, over hypothesis-drawn and seeded texts (empty,
  punctuation only, capitals, accents, Chinese, emoji; 1-4 references; every ``multi_ref``,
  ``distinct``, gamma and alpha, both word tokenizers, rouge1/2/3);
* the path: a counting back end over the C one sees one fused call and no separate word reads
  (``lcs_words``, ``ngram_words``), from ``compute`` and from the command line; settings the
  fused reader cannot serve (stemming, characters, token lists, a back end without it) go the
  old way with the same numbers;
* errors: a bad item is named (instance, side) exactly as when each type is asked alone, and
  an error anywhere leaves every accumulator as it was.
"""
from __future__ import annotations

import collections
import json
import random

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from paddle_rougel import compute
from paddle_rougel.engine import host as engine
from paddle_rougel.engine.backends import Backend, CBackend, PythonBackend
from paddle_rougel.cli import main
from paddle_rougel.api.functional import score_all
from paddle_rougel.metrics import resolve_type

SETTINGS = dict(deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow],
                max_examples=150)
OPS = sorted(k for k, v in vars(Backend).items() if callable(v) and not k.startswith("_") and k != "available")
MULTI_REF = ("max_pr", "best", "avg", "pooled", "best_recall")
# words and separators: capitals, accents, CJK, emoji, digits, apostrophes, punctuation only
WORDS = ["the", "The", "THE", "cat", "Cat", "sat", "on", "mat", "a", "a1", "can't", "café", "Café", "ÉTÉ",
         "naïve", "猫", "中文", "文", "😀", "😀x", "x😀", "İ", "ß", "ǅ", "...", "!", "—", "--", "«»", "2024"]
SEPS = [" ", " ", " ", "  ", "\n", "\t", ", ", "", "\u3000", "\xa0"]


def _text(rng) -> str:
    k = rng.choice([0, 0, 1, 2, 5, 9, 20])
    out = []
    for _ in range(k):
        out += [rng.choice(WORDS), rng.choice(SEPS)]
    return "".join(out)


# ----------------------------------------------------------------------------- the differential

def _alone_and_together(cands, refs, types, **kw):
    """compute with every type at once, and each type alone (per instance)."""
    together = compute(cands, refs, rouge_types=types, per_instance=True, **kw)
    alone = {t: compute(cands, refs, rouge_types=[t], per_instance=True,
                        **{k: v for k, v in kw.items() if k != "distinct" or t.startswith("rouge") and t[5:].isdigit()})
             for t in types}
    return together, alone


def _bits(x) -> bytes:
    a = np.asarray(x)
    assert a.dtype == np.float64, a.dtype
    return a.tobytes()


def assert_same(together, alone, types):
    assert together["count"] == len(together["per_instance"][types[0]])
    expected_keys = {f"{t}{s}" for t in types for s in ("", "_precision", "_recall")}
    assert set(together["per_instance"]) == expected_keys
    assert set(together) == expected_keys | {"count", "per_instance", "signature"}
    for t in types:
        one = alone[t]
        assert one["count"] == together["count"]
        for key in (t, f"{t}_precision", f"{t}_recall"):
            assert type(together[key]) is type(one[key]) and together[key] == one[key], key
            assert _bits(together["per_instance"][key]) == _bits(one["per_instance"][key]), key


@st.composite
def workload(draw):
    rng = random.Random(draw(st.integers(0, 2 ** 32 - 1)))
    n = draw(st.integers(0, 7))
    cands = [_text(rng) for _ in range(n)]
    shape = draw(st.sampled_from(["str", "lists", "mixed"]))  # one str reference each: the OneRef path
    refs = []
    for _ in range(n):
        k = 1 if shape == "str" else rng.randint(1, 4)
        rs = [_text(rng) for _ in range(k)]
        refs.append(rs[0] if shape == "str" or (shape == "mixed" and k == 1 and rng.random() < .5) else rs)
    tokenize = draw(st.sampled_from(["rouge_score", "whitespace"]))
    kw = dict(tokenize=tokenize, multi_ref=draw(st.sampled_from(MULTI_REF)), distinct=draw(st.booleans()))
    if tokenize == "whitespace":
        kw["lowercase"] = draw(st.sampled_from([None, True, False]))
    weight = draw(st.sampled_from([("gamma", 1.0), ("gamma", 1.2), ("gamma", 0.0), ("gamma", 3.5),
                                   ("alpha", 0.5), ("alpha", 0.0), ("alpha", 1.0), ("alpha", 0.3),
                                   ("alpha", -1.0), (None, None)]))
    if weight[0] is not None:
        kw[weight[0]] = weight[1]
    types = draw(st.sampled_from([["rouge1", "rouge2", "rougeL", "rougeLsum"], ["rouge1", "rougeL"],
                                  ["rougeL", "rouge2"], ["rouge3", "rougeL", "rouge1", "rouge2"],
                                  ["rouge2", "rougeLsum", "rougeL"]]))
    return cands, refs, types, kw


@settings(**SETTINGS)
@given(workload())
def test_every_type_at_once_equals_each_type_alone(w):
    cands, refs, types, kw = w
    together, alone = _alone_and_together(cands, refs, types, **kw)
    assert_same(together, alone, types)


@pytest.mark.parametrize("tokenize", ["rouge_score", "whitespace"])
@pytest.mark.parametrize("multi_ref", MULTI_REF)
def test_seeded_batches_at_once_equal_each_type_alone(tokenize, multi_ref, monkeypatch):
    """Larger batches (several worker threads, long texts) in every multi_ref mode."""
    rng = random.Random(f"{tokenize}{multi_ref}")
    n = 400
    cands = [_text(rng) * rng.choice([1, 1, 3, 12]) for _ in range(n)]
    refs = [[_text(rng) * rng.choice([1, 2, 9]) for _ in range(rng.randint(1, 4))] for _ in range(n)]
    monkeypatch.setenv("PADDLE_ROUGEL_THREADS", "3")
    types = ["rouge1", "rouge2", "rouge3", "rougeL", "rougeLsum"]
    for distinct in (False, True):
        for weight in ({"gamma": 1.0}, {"alpha": 0.2}):
            together, alone = _alone_and_together(cands, refs, types, tokenize=tokenize, multi_ref=multi_ref,
                                                  distinct=distinct, **weight)
            assert_same(together, alone, types)
    # one str reference each (the OneRef path)
    one = [r[0] for r in refs]
    together, alone = _alone_and_together(cands, one, types, tokenize=tokenize, multi_ref=multi_ref, gamma=1.2)
    assert_same(together, alone, types)


# ----------------------------------------------------------------------------- the path taken

def _counting(base):
    """A back end computing as ``base`` and counting each operation's calls (and the fused call's
    orders and distinct)."""
    def counted(op):
        def wrapper(self, *args, **kw):
            self.calls[op] += 1
            if op == "lcs_ngram_words":
                self.fused_args.append((args[3], args[4]))
            return getattr(base, op)(self, *args, **kw)
        return wrapper

    cls = type(f"Counting{base.__name__}", (base,), {op: counted(op) for op in OPS})
    be = cls()
    be.name = f"counting-{base.name}"
    be.calls, be.fused_args = collections.Counter(), []
    return be


@pytest.fixture
def use_backend():
    used, old = [], engine.backend()

    def use(be):
        engine.register_backend(be)
        used.append(be.name)
        engine.set_backend(be.name)
        return be

    yield use
    engine.set_backend(old)
    for name in used:
        engine.unregister_backend(name)


def _english(n, seed=0):
    rng = random.Random(seed)
    words = "The cat sat on the mat . It was happy , very HAPPY ! café 中文".split()
    text = lambda k: " ".join(rng.choice(words) for _ in range(k))  # noqa: E731
    return [text(rng.randint(0, 30)) for _ in range(n)], [text(rng.randint(1, 30)) for _ in range(n)]


def test_compute_reads_the_words_once_for_rouge_l_and_rouge_n(use_backend):
    cands, refs = _english(300)
    four = ["rouge1", "rouge2", "rougeL", "rougeLsum"]
    want = _per_type(cands, refs, four, tokenize="rouge_score", gamma=1.0, multi_ref="best")
    be = use_backend(_counting(CBackend))
    got = compute(cands, refs, rouge_types=four, tokenize="rouge_score", gamma=1.0, multi_ref="best",
                  per_instance=True)
    assert be.calls["lcs_ngram_words"] == 1 and be.fused_args == [((1, 2), False)]
    for op in ("lcs_words", "ngram_words", "lcs_batch", "ngram_overlap", "lcs_pairs"):
        assert be.calls[op] == 0, (op, be.calls)
    assert be.calls["lsum_text"] == 1  # ROUGE-Lsum: its own reader (sentences)
    assert_same(got, want, four)
    # several orders, distinct, references in lists: still one fused call with every order
    be.calls.clear(), be.fused_args.clear()
    compute(cands, [[r, c] for r, c in zip(refs, cands)], rouge_types=["rouge3", "rougeL", "rouge1"],
            tokenize="whitespace", lowercase=True, distinct=True)
    assert be.calls["lcs_ngram_words"] == 1 and be.fused_args == [((1, 3), True)]
    assert be.calls["lcs_words"] == be.calls["ngram_words"] == 0


def test_the_command_line_reads_the_words_once(use_backend, tmp_path, capsys):
    cands, refs = _english(50, seed=4)
    hyp, ref = tmp_path / "hyp.txt", tmp_path / "ref.txt"
    hyp.write_text("\n".join(c or "x" for c in cands) + "\n", encoding="utf-8")
    ref.write_text("\n".join(refs) + "\n", encoding="utf-8")

    def score(types):
        assert main(["score", "--hyp", str(hyp), "--ref", str(ref), "--rouge-types", types,
                     "--tokenize", "rouge_score", "--format", "json"]) == 0
        return json.loads(capsys.readouterr().out)

    alone = {**score("rouge1"), **score("rouge2"), **score("rougeL")}
    be = use_backend(_counting(CBackend))
    together = score("rouge1,rouge2,rougeL")
    assert be.calls["lcs_ngram_words"] == 1 and be.fused_args == [((1, 2), False)]
    assert be.calls["lcs_words"] == be.calls["ngram_words"] == 0
    assert together == alone


def _per_type(cands, refs, types, **kw):
    return {t: compute(cands, refs, rouge_types=[t], per_instance=True, **kw) for t in types}


@pytest.mark.filterwarnings("ignore:.*looks like English words")
@pytest.mark.parametrize("case", ["stem", "characters", "token lists", "python back end"])
def test_settings_the_fused_reader_cannot_serve_go_the_old_way(case, use_backend):
    cands, refs = _english(60, seed=7)
    types = ["rouge1", "rouge2", "rougeL"]
    kw = {"stem": {"tokenize": "rouge_score", "stem": True}, "characters": {},
          "token lists": {}, "python back end": {"tokenize": "whitespace"}}[case]
    if case == "token lists":
        cands, refs = [c.split() for c in cands], [[r.split()] for r in refs]
    want = _per_type(cands, refs, types, **kw)
    be = use_backend(_counting(PythonBackend if case == "python back end" else CBackend))
    got = compute(cands, refs, rouge_types=types, per_instance=True, **kw)
    assert_same(got, want, types)
    if case == "python back end":  # asked, not taken (None): each metric reads as alone
        assert be.calls["lcs_ngram_words"] == 1
        assert be.calls["lcs_words"] >= 1 and be.calls["ngram_words"] >= 1  # (also asked with one_ref)
        assert be.calls["lcs_batch"] == be.calls["ngram_overlap"] == 1
    else:  # not a str batch split into words: not asked
        assert be.calls["lcs_ngram_words"] == 0
        assert be.calls["lcs_batch"] + be.calls["lcs_pairs"] + be.calls["lcs_words"] >= 1
        assert be.calls["ngram_overlap"] + be.calls["ngram_words"] >= 1


# ----------------------------------------------------------------------------- errors

@pytest.mark.parametrize("cands, refs, where", [
    (["a b", None], ["a", "b"], "instance 1: candidate is None"),
    (["a b", "c"], [["a"], ["b", 3]], "instance 1, reference 1"),
    (["a b", "c"], [["a"], ["b", None]], "instance 1, reference 1"),
    (["a b", "c", "d"], [["a"], [], ["d"]], "instance 1"),
    (["a b", 7], ["a", "b"], "instance 1"),
])
@pytest.mark.parametrize("tokenize", ["rouge_score", "whitespace"])
def test_a_bad_item_is_named_as_when_each_type_is_alone(cands, refs, where, tokenize):
    types = ["rouge1", "rouge2", "rougeL"]
    errors = []
    for ts in [types] + [[t] for t in types]:
        with pytest.raises((TypeError, ValueError)) as e:
            compute(cands, refs, rouge_types=ts, tokenize=tokenize)
        errors.append((type(e.value), str(e.value)))
    assert len(set(errors)) == 1, errors
    assert where in errors[0][1], errors[0]


VALUES = {"tokenize": "rouge_score", "normalize": "none", "stem": False, "split": "newline",
          "distinct": False, "gamma": 1.0, "multi_ref": "best"}


def _accumulators(types):
    out = {}
    for t in types:
        spec, params = resolve_type(t)
        out[t] = spec.accumulator(spec.from_options({**VALUES, **params}))
    return out


def _state(accs):
    return {t: (json.dumps(a.state_dict(), sort_keys=True), a.n_seen(),
                [_bits(x) for x in a.per_instance()]) for t, a in accs.items()}


class Failing(CBackend):
    """The C back end, one operation raising (``fail``)."""

    name = "failing"
    fail = ""

    def _boom(self, op):
        if op == self.fail:
            raise RuntimeError(f"{op} failed")

    def lcs_ngram_words(self, *args, **kw):
        self._boom("lcs_ngram_words")
        return super().lcs_ngram_words(*args, **kw)

    def lsum_text(self, *args, **kw):
        self._boom("lsum_text")
        return super().lsum_text(*args, **kw)


@pytest.mark.parametrize("fail", ["bad item", "lcs_ngram_words", "lsum_text"])
def test_an_error_leaves_every_accumulator_as_it_was(fail, use_backend):
    types = ["rouge1", "rouge2", "rougeL", "rougeLsum"]
    accs = _accumulators(types)
    cands, refs = _english(40, seed=9)
    score_all(accs, cands[:20], refs[:20])  # a first chunk, scored
    before = _state(accs)
    assert all(a.n_seen() == 20 for a in accs.values())
    be = use_backend(Failing())
    if fail == "bad item":
        bad = cands[20:]
        bad[5] = None
        with pytest.raises(TypeError, match="instance 25: candidate is None"):
            score_all(accs, bad, refs[20:], base=20)
    else:
        be.fail = fail
        with pytest.raises(RuntimeError, match=f"{fail} failed"):
            score_all(accs, cands[20:], refs[20:], base=20)
    assert _state(accs) == before
    be.fail = ""  # and they go on as if the failed call had not happened
    score_all(accs, cands[20:], refs[20:], base=20)
    fresh = _accumulators(types)
    score_all(fresh, cands[:20], refs[:20])
    score_all(fresh, cands[20:], refs[20:], base=20)
    assert _state(accs) == _state(fresh)


def test_each_metric_scores_its_own_figures_only():
    """ROUGE-L and ROUGE-N share how inputs are read (TextPrfAccumulator), not each other's
    scoring: a ROUGE-N accumulator has no score_lcs and ROUGE-L none of score_counts, so
    _score_jobs can never hand an LCS to ROUGE-N or counts to ROUGE-L."""
    from paddle_rougel.metrics.rouge_l import RougeLAccumulator, TextPrfAccumulator
    from paddle_rougel.metrics.rouge_n import RougeNAccumulator

    assert issubclass(RougeNAccumulator, TextPrfAccumulator) and issubclass(RougeLAccumulator, TextPrfAccumulator)
    assert not issubclass(RougeNAccumulator, RougeLAccumulator)
    assert not hasattr(RougeNAccumulator, "score_lcs") and not hasattr(RougeLAccumulator, "score_counts")
