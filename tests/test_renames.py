"""The names issue 22 made consistent, as users get them: the DuReader bonus weights
(``yesno_weight`` / ``entity_weight``; the old ``alpha=`` / ``beta=`` and ``.alpha`` /
``.beta`` with a DeprecationWarning), ``gamma=`` in every function that takes ``alpha``
(one rule: gamma or alpha, not both), the result types' alias fields, and
``compute()``'s signature holding every requested type's settings.

Oracles: F = (1+g^2)PR / (R+g^2 P) and 1/F = a/P + (1-a)/R written here, on the n-gram
counts and LCS table of tests/oracle.py.
"""
import inspect
import random
import warnings

import numpy as np
import pytest

from paddle_rougel import BLEUForDuReader, RougeLForDuReader, RougeLOutput, Score, compute, rouge_l, rouge_lsum, rouge_n

# ----------------------------------------------------------------------------- DuReader bonus weights

INSTANCES = [  # (cand, refs, yn_label, yn_refs, entity_refs): every bonus path
    ("是的今天天气很好", ["今天天气很好", "天气不错"], "Yes", ["Yes", "No"], None),
    ("不是这样的", ["不是的"], "No", ["No"], None),
    ("北京和上海", ["上海北京"], None, None, ["北京", "上海"]),
    ("也许吧", ["不一定", "看情况"], "Depends", ["Depends", "Depends"], None),
]


def _feed(m):
    for c, refs, yl, yr, ents in INSTANCES:
        m.add_inst(c, refs, yl, yr, ents)
    return m.score()


@pytest.mark.parametrize("cls, pos", [(RougeLForDuReader, ()), (BLEUForDuReader, (4,))])
def test_old_keywords_warn_and_score_as_the_new_names(cls, pos):
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)  # the new names warn about nothing
        new = cls(*pos, yesno_weight=0.5, entity_weight=2.0)
    with pytest.warns(DeprecationWarning, match=r"alpha=.*yesno_weight"):
        with pytest.warns(DeprecationWarning, match=r"beta=.*entity_weight"):
            old = cls(*pos, alpha=0.5, beta=2.0)
    positional = cls(*pos, 0.5, 2.0)  # positions unchanged: (yesno_weight, entity_weight)
    default = cls(*pos)
    scores = [_feed(m) for m in (new, old, positional, default)]
    assert scores[0] == scores[1] == scores[2]
    assert scores[0] != scores[3]  # the weights count
    assert old.signature() == new.signature() == positional.signature()
    assert (new.yesno_weight, new.entity_weight) == (0.5, 2.0)


@pytest.mark.parametrize("cls, pos", [(RougeLForDuReader, ()), (BLEUForDuReader, (4,))])
def test_old_attributes_warn_and_read_the_new_ones(cls, pos):
    m = cls(*pos, yesno_weight=0.25, entity_weight=3.0)
    with pytest.warns(DeprecationWarning, match=r"\.alpha is deprecated: use \.yesno_weight"):
        assert m.alpha == 0.25
    with pytest.warns(DeprecationWarning, match=r"\.beta is deprecated: use \.entity_weight"):
        assert m.beta == 3.0


@pytest.mark.parametrize("cls, pos", [(RougeLForDuReader, ()), (BLEUForDuReader, (4,))])
@pytest.mark.parametrize("kw", [dict(alpha=0.5, yesno_weight=0.7), dict(beta=0.5, entity_weight=0.7),
                                dict(alpha=0.5, yesno_weight=1.0)])
def test_old_and_new_keyword_together_is_an_error(cls, pos, kw):
    """Both spellings of one weight: which one counts?  (One silently won before.)"""
    with pytest.raises(TypeError) as e, warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        cls(*pos, **kw)
    old, new = sorted(kw)  # alpha < yesno_weight, beta < entity_weight
    assert old in str(e.value) and new in str(e.value) and cls.__name__ in str(e.value)


@pytest.mark.parametrize("cls, pos", [(RougeLForDuReader, ()), (BLEUForDuReader, (4,))])
def test_old_keyword_after_the_positional_weight_is_an_error(cls, pos):
    """cls(0.7, alpha=0.5) gave two values for one parameter (a TypeError before the rename)."""
    with pytest.raises(TypeError, match="yesno_weight"), warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        cls(*pos, 0.7, alpha=0.5)


def test_signatures_show_the_default_weights():
    for cls in (RougeLForDuReader, BLEUForDuReader):
        params = inspect.signature(cls.__init__).parameters
        assert params["yesno_weight"].default == 1.0 and params["entity_weight"].default == 1.0
        assert "alpha" not in params and "beta" not in params
        m = cls()
        assert (m.yesno_weight, m.entity_weight) == (1.0, 1.0)
        assert type(m.yesno_weight) is float and type(m.entity_weight) is float


def test_unknown_keyword_still_names_the_close_name():
    with pytest.raises(TypeError, match="yesno_weigth.*yesno_weight"):
        RougeLForDuReader(yesno_weigth=0.5)


# ----------------------------------------------------------------------------- gamma wherever alpha is

from oracle import lcs_dp as _lcs, ngram_counts as _grams  # noqa: E402  (tests/ is on sys.path)


def _pairs(seed=0, k=40):
    rnd = random.Random(seed)
    words = "a b c d e f".split()
    mk = lambda: " ".join(rnd.choice(words) for _ in range(rnd.randint(0, 8)))  # noqa: E731
    return [mk() for _ in range(k)], [mk() for _ in range(k)]


def _oracle(kind, h, r, gamma):
    ht, rt = h.split(), r.split()
    if kind == "lcs":
        hits, nc, nr = _lcs(ht, rt), len(ht), len(rt)
    else:
        gh, gr = _grams(ht, kind), _grams(rt, kind)
        hits, nc, nr = sum((gh & gr).values()), sum(gh.values()), sum(gr.values())
    p, rr = (hits / nc if nc else 0.0), (hits / nr if nr else 0.0)
    return 0.0 if p == 0 or rr == 0 else (1 + gamma ** 2) * p * rr / (rr + gamma ** 2 * p)


CALLS = [("rouge_l", lambda h, r, **kw: rouge_l(h, r, tokenize="whitespace", **kw).fmeasure, "lcs"),
         ("rouge_lsum", lambda h, r, **kw: rouge_lsum(h, r, tokenize="whitespace", **kw).fmeasure, "lcs"),
         ("rouge_n1", lambda h, r, **kw: rouge_n(h, r, n=1, tokenize="whitespace", **kw).fmeasure, 1),
         ("rouge_n2", lambda h, r, **kw: rouge_n(h, r, n=2, tokenize="whitespace", **kw).fmeasure, 2)]


@pytest.mark.parametrize("name, call, kind", CALLS, ids=[c[0] for c in CALLS])
@pytest.mark.parametrize("g", [0.0, 0.5, 1.0, 1.2, 3.0])
def test_gamma_equals_alpha_one_over_one_plus_gamma_squared(name, call, kind, g):
    hyps, refs = _pairs(int(g * 10))
    by_gamma = call(hyps, refs, gamma=g)
    by_alpha = call(hyps, refs, alpha=1 / (1 + g * g))
    np.testing.assert_allclose(by_gamma, by_alpha, rtol=0, atol=1e-15)
    want = [_oracle(kind, h, r, g) for h, r in zip(hyps, refs)]
    np.testing.assert_allclose(by_gamma, want, rtol=0, atol=1e-15)
    assert len(set(np.round(by_gamma, 12))) > 3  # not a degenerate sample


@pytest.mark.parametrize("name, call, kind", CALLS, ids=[c[0] for c in CALLS])
def test_gamma_and_alpha_together_is_a_value_error(name, call, kind):
    with pytest.raises(ValueError, match="gamma or alpha, not both"):
        call(["a b"], ["a b"], gamma=1.0, alpha=0.5)
    with pytest.raises(ValueError, match="gamma or alpha, not both"):
        compute(["a b"], ["a b"], rouge_types=["rouge1"], gamma=1.0, alpha=0.5)


@pytest.mark.parametrize("fn", [rouge_l, rouge_lsum, rouge_n])
def test_gamma_is_keyword_only_and_alpha_keeps_its_place(fn):
    params = inspect.signature(fn).parameters
    assert params["gamma"].kind is inspect.Parameter.KEYWORD_ONLY and params["gamma"].default is None
    assert params["alpha"].kind is inspect.Parameter.POSITIONAL_OR_KEYWORD
    # the default is F1 (alpha 0.5, gamma 1), as TF-Text's rouge_l
    got = fn(["a b c"], ["a b d e"], tokenize="whitespace")
    same = fn(["a b c"], ["a b d e"], tokenize="whitespace", gamma=1.0)
    assert list(got) == list(same)


# ----------------------------------------------------------------------------- result types

def test_score_has_tf_text_alias_fields():
    s = Score(np.array([0.1]), np.array([0.2]), np.array([0.3]))
    assert s._fields == ("precision", "recall", "fmeasure")
    assert s.p_measure is s.precision and s.r_measure is s.recall and s.f_measure is s.fmeasure
    p, r, f = s  # unpacking order: precision, recall, fmeasure
    assert (p[0], r[0], f[0]) == (0.1, 0.2, 0.3)


def test_rouge_l_output_has_score_fields_and_converts():
    out = rouge_l(["a b c"], ["a b d e"], tokenize="whitespace", gamma=1.0)
    assert isinstance(out, RougeLOutput) and out._fields == ("f_measure", "p_measure", "r_measure")
    f, p, r = out  # TF-Text's order kept
    assert (p[0], r[0]) == (2 / 3, 2 / 4)
    assert out.precision is out.p_measure and out.recall is out.r_measure and out.fmeasure is out.f_measure
    s = out.score()
    assert isinstance(s, Score) and (s.precision is p and s.recall is r and s.fmeasure is f)
    n = rouge_n(["a b c"], ["a b d e"], n=1, tokenize="whitespace", gamma=1.0)
    assert isinstance(n, Score) and n.f_measure[0] == f[0]  # ROUGE-1 = ROUGE-L here (in order)


# ----------------------------------------------------------------------------- compute's signature

def test_compute_signature_holds_every_types_settings_once():
    preds, refs = ["a b c\nd e", "a a b"], ["a b d\ne", "a b b"]
    sig = compute(preds, refs, rouge_types=["rouge1", "rouge2", "rougeL", "rougeLsum"], tokenize="whitespace",
                  distinct=True, split="newline")["signature"]
    head, *rest = sig.split("|")
    assert head == "rouge1+rouge2+rougeL+rougeLsum"
    keys = [p.split(":")[0] for p in rest]
    assert len(rest) == len(set(rest)), sig  # each setting once
    assert [keys.count(k) for k in ("gamma", "multi_ref", "tok", "grams", "split")] == [1, 1, 1, 1, 1], sig
    assert "grams:distinct" in rest and "split:newline" in rest and "tok:whitespace" in rest, sig
    # the last type's settings only (the old behaviour) would drop ROUGE-N's distinct counting here
    last_lsum = compute(preds, refs, rouge_types=["rouge1", "rougeLsum"], tokenize="whitespace",
                        distinct=True)["signature"]
    assert "grams:distinct" in last_lsum and "split:newline" in last_lsum
    last_n = compute(preds, refs, rouge_types=["rougeLsum", "rouge1"], tokenize="whitespace",
                     distinct=True)["signature"]
    assert "grams:distinct" in last_n and "split:newline" in last_n
    plain = compute(preds, refs, rouge_types=["rouge1", "rougeLsum"], tokenize="whitespace")["signature"]
    assert "grams:distinct" not in plain  # it is there because it counts
