"""Hostile inputs around text: tokenizers, their names, str subclasses, summary shapes (issue 20).

Each test names the finding it guards against (20.2, 20.3, 20.5, 20.6, 20.13); each failed on
the code before the fix.
"""
from __future__ import annotations

import collections.abc
import functools
import os
import subprocess
import sys
import textwrap

import pytest

import oracle
from paddle_rougel import BLEUForDuReader, RougeL, RougeLForDuReader, RougeLsum, compare, compute, lcs_length, rouge_l, rouge_lsum
from paddle_rougel import metrics
from paddle_rougel.engine import host as engine
from paddle_rougel import TokenizerError
from paddle_rougel.core.text import TextSettings

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
BACKENDS = ["c", "python"]


@pytest.fixture(params=BACKENDS)
def backend(request, on_backend):
    with on_backend(request.param, needs_c=False):
        yield request.param


def words(text):  # module level: a tokenizer known by its qualified name (as before)
    return text.split()


def words_again(text):
    return text.split()


# ------------------------------------------------ 20.2 unordered tokenizer results

class OrderlessMapping(collections.abc.Mapping):
    def __init__(self, d):
        self.d = d

    def __getitem__(self, k):
        return self.d[k]

    def __iter__(self):
        return iter(self.d)

    def __len__(self):
        return len(self.d)


class OrderlessSet(collections.abc.Set):
    def __init__(self, xs):
        self.xs = set(xs)

    def __contains__(self, x):
        return x in self.xs

    def __iter__(self):
        return iter(self.xs)

    def __len__(self):
        return len(self.xs)


UNORDERED = {
    "set": (set, "a set"),
    "frozenset": (frozenset, "a set"),
    "dict": (dict.fromkeys, "a mapping"),
    "dict.keys": (lambda ws: dict.fromkeys(ws).keys(), "a set"),
    "dict.values": (lambda ws: {w: w for w in ws}.values(), "a mapping view"),
    "dict.items": (lambda ws: dict.fromkeys(ws).items(), "a set"),
    "Mapping": (lambda ws: OrderlessMapping(dict.fromkeys(ws)), "a mapping"),
    "Set": (OrderlessSet, "a set"),
}


# module-level tokenizers (accepted before and after 20.3), their bad result set per test
BEHAVIOUR = {"make": None}


def orderless(text):  # unordered only for "c a b"
    ws = text.split()
    return BEHAVIOUR["make"](ws) if text == "c a b" else ws


@pytest.mark.parametrize("kind", sorted(UNORDERED))
def test_tokenizer_returning_an_unordered_collection_is_refused(kind, monkeypatch):
    make, what = UNORDERED[kind]
    monkeypatch.setitem(BEHAVIOUR, "make", make)
    m = RougeL(tokenize=orderless)
    m.add_inst("a b", ["a b"])
    with pytest.raises(TypeError) as ei:
        m.add_batch(["a b c", "b a c"], [["a b c"], ["b a c", "c a b"]])
    msg = str(ei.value)
    assert msg.startswith("instance 2, reference 1: "), msg
    assert f"'orderless' returned {what}, which has no order" in msg, msg
    assert m.count == 1 and m.score() == 1.0


def passthrough(text):
    return BEHAVIOUR["make"](text)


@pytest.mark.parametrize("shape", ["iterator", "generator", "map"])
def test_tokenizer_returning_an_iterator_is_read_once(shape, monkeypatch):
    make = {"iterator": lambda t: iter(t.split()), "generator": lambda t: (w for w in t.split()),
            "map": lambda t: map(str, t.split())}[shape]
    monkeypatch.setitem(BEHAVIOUR, "make", make)
    cands, refs = ["a b c d e", "x y"], [["a c b e d", "e d"], ["y x y"]]
    want = compute(cands, refs, tokenize=words, per_instance=True)
    got = compute(cands, refs, tokenize=passthrough, per_instance=True)
    assert got["per_instance"]["rougeL"].tolist() == want["per_instance"]["rougeL"].tolist()
    assert 0 < got["rougeL"] < 1


_CHILD = textwrap.dedent("""
    import json, sys
    sys.path.insert(0, {root!r})
    from paddle_rougel import compute, engine, lcs_length
    GREEK = "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu"
    def bag(text):
        return set(text.split())
    out = {{}}
    try:
        out["compute"] = compute([GREEK.split()], [GREEK], tokenize=bag)["rougeL"]
    except TypeError as e:
        out["compute"] = str(e)
    for be in ("c", "python"):
        engine.set_backend(be)
        for name, args in (("set", ({{"a", "b", "c"}}, ["a", "b", "c"])),
                           ("dict", (["a", "b", "c"], dict.fromkeys("cba")))):
            try:
                out[be + " " + name] = lcs_length(*args)
            except TypeError as e:
                out[be + " " + name] = str(e)
    print(json.dumps(out))
""")


def test_unordered_results_are_refused_whatever_the_hash_seed():
    """20.2: the same call scored 0.5, 0.417 or 0.417 (LCS 6, 5, 5) under PYTHONHASHSEED 1, 2, 3;
    lcs_length of a set 3, 1, 1."""
    outs = []
    for seed in ("1", "2", "3"):
        env = dict(os.environ, PYTHONHASHSEED=seed)
        proc = subprocess.run([sys.executable, "-c", _CHILD.format(root=ROOT)], env=env,
                              capture_output=True, text=True, timeout=300)
        assert proc.returncode == 0, proc.stderr[-2000:]
        outs.append(proc.stdout.strip().splitlines()[-1])
    assert outs[0] == outs[1] == outs[2], outs
    import json

    out = json.loads(outs[0])
    assert out["compute"] == ("instance 0, reference 0: tokenize callable 'bag' returned a set, which "
                              "has no order; return a str or an ordered sequence of tokens "
                              "(list, tuple, iterator)")
    for be in BACKENDS:
        assert out[f"{be} set"].startswith("lcs_length: a: a set has no order"), out
        assert out[f"{be} dict"].startswith("lcs_length: b: a mapping has no order"), out


@pytest.mark.parametrize("bad,what", [({"a", "b"}, "a set"), (frozenset("ab"), "a set"),
                                      ({"a": 1}, "a mapping"), ({"a": 1}.keys(), "a set"),
                                      ({"a": 1}.values(), "a mapping view"),
                                      (OrderlessMapping({"a": 1}), "a mapping"),
                                      (OrderlessSet("ab"), "a set")],
                         ids=["set", "frozenset", "dict", "keys", "values", "Mapping", "Set"])
def test_engine_refuses_unordered_texts(backend, bad, what):
    with pytest.raises(TypeError, match=f"^lcs_length: a: {what} has no order"):
        lcs_length(bad, "ab")
    with pytest.raises(TypeError, match=f"^lcs_length: b: {what} has no order"):
        lcs_length("ab", bad)
    with pytest.raises(TypeError, match=f"^instance 1, reference 1: {what} has no order"):
        engine.lcs_batch(["ab", "ab"], [["ab"], ["ab", bad]])
    with pytest.raises(TypeError, match=f"^instance 0, candidate: {what} has no order"):
        engine.lcs_batch([bad], [["ab"]])
    with pytest.raises(TypeError, match=f"^instance 1, reference 0: {what} has no order"):
        engine.clipped_matches(["ab", "ab"], [["ab"], [bad]], 2)


def test_engine_refuses_unordered_reference_lists_and_batches(backend):
    with pytest.raises(TypeError, match="^instance 0: ref_list is a set, which has no order"):
        engine.lcs_batch(["ab"], [{"ab", "ba"}])
    with pytest.raises(TypeError, match="^instance 0: sources is a mapping, which has no order"):
        engine.clipped_matches(["ab"], [{"ab": 1, "ba": 2}], 2)
    with pytest.raises(TypeError, match="^lcs_batch: cands is a set"):
        engine.lcs_batch({"ab"}, [["ab"]])
    # ordered one-shot iterables are still read (once)
    assert lcs_length(iter("abc"), (c for c in "abc")) == 3


# ------------------------------------------------ 20.3 tokenizer identity

def _unnamed():
    def tok(text):
        return text.split()
    return {
        "lambda": lambda t: t.split(),
        "local function": tok,
        "partial": functools.partial(str.split, sep=" "),
        "bound method": "|".join,
        "callable object": type("Tok", (), {"__call__": lambda self, t: t.split()})(),
    }


@pytest.mark.parametrize("kind", sorted(_unnamed()))
def test_tokenizers_that_cannot_be_told_apart_are_refused(kind):
    f = _unnamed()[kind]
    for make in (lambda: RougeL(tokenize=f), lambda: RougeLsum(tokenize=f),
                 lambda: compute(["a"], ["a"], tokenize=f), lambda: rouge_l(["a"], ["a"], tokenize=f),
                 lambda: BLEUForDuReader(tokenize=f)):
        with pytest.raises(ValueError, match=r"cannot be told apart.*tokenize=\(\"my_tokenizer\", f\)"):
            make()


def test_two_lambdas_no_longer_merge_or_compare():
    """20.3: every lambda was custom:<lambda>, so two different tokenizers merged and compared."""
    a = RougeL(tokenize=("split", lambda t: t.split()), keep_instances=True)
    b = RougeL(tokenize=("chars", lambda t: list(t)), keep_instances=True)
    for m in (a, b):
        m.add_batch(["x y", "y z"], [["x y"], ["y"]])
    with pytest.raises(ValueError, match="different settings"):
        a.merge(b)
    with pytest.raises(ValueError, match="different settings"):
        a.merge(b.state_dict())
    with pytest.raises(ValueError, match="different settings"):
        compare(a, b)
    assert "|tok:custom:split|" in a.signature() and "|tok:custom:chars|" in b.signature()
    same = RougeL(tokenize=("split", str.split), keep_instances=True)  # the name is the identity
    same.add_batch(["x y"], [["x y"]])
    same.merge(a.state_dict())
    assert same.count == 3


def test_module_level_tokenizer_keeps_its_identity():
    """Backwards compatibility: a module-level function is still known by its qualified name."""
    a = RougeL(tokenize=words)
    assert "|tok:custom:words|" in a.signature()
    assert TextSettings(tokenize=words) == TextSettings(tokenize="custom:words")
    state = a.state_dict()
    assert state["config"]["text"]["tokenize"] == "custom:words"
    RougeL(tokenize=words).merge(state)
    with pytest.raises(ValueError, match="different settings"):
        RougeL(tokenize=words_again).merge(state)
    assert "|tok:custom:str.split|" in RougeL(tokenize=str.split).signature()


@pytest.mark.parametrize("name", ["custom:<lambda>", "custom:f.<locals>.tok"])
def test_states_of_unnamed_tokenizers_are_refused(name):
    state = RougeL(tokenize=words).state_dict()
    state["config"]["text"]["tokenize"] = name
    with pytest.raises(ValueError, match="cannot be told apart"):
        metrics.from_state(state)


@pytest.mark.parametrize("bad,exc", [(("", words), ValueError), (("a|b", words), ValueError),
                                     (("a<b>", words), ValueError), ((1, words), TypeError),
                                     (("a", "b"), TypeError), (("a", words, 3), TypeError)])
def test_bad_tokenizer_names_are_refused(bad, exc):
    with pytest.raises(exc, match="tokenize"):
        TextSettings(tokenize=bad)


# ------------------------------------------------ 20.5 summary shapes in compute

def test_compute_reads_a_sentence_list_reference_as_the_prediction():
    """20.5: rougeL 1.0 but rougeLsum 0.667 for a prediction and its identical reference."""
    p = ["the cat sat on the mat", "it was happy"]
    out = compute([p], [p], rouge_types=["rougeL", "rougeLsum"], tokenize="whitespace", gamma=1)
    assert out["rougeL"] == out["rougeLsum"] == 1.0
    assert rouge_lsum([p], [p], tokenize="whitespace").f_measure.tolist() == [1.0]
    m = RougeLsum(tokenize="whitespace", gamma=1)
    m.add_inst(p, [p])
    assert m.score() == 1.0


def test_compute_sentence_list_shapes_match_the_metric():
    p = ["the cat sat on the mat", "it was happy"]
    r1, r2 = ["a cat sat", "it was very happy"], ["the mat"]
    t = [["the", "cat"], ["sat"]]
    rt = [["a", "cat"], ["sat", "down"]]
    cases = [  # (prediction, reference item as given to compute, the references it means)
        (p, r1, [r1]),                      # the prediction's shape: one reference
        (p, [r1, r2], [r1, r2]),            # one level deeper: a list of references
        (p, [r1], [r1]),                    # the old wrapped spelling still works
        (p, "a cat sat\nit was happy", ["a cat sat\nit was happy"]),   # a str: one reference
        (t, rt, [rt]),                      # token sentences: the same rule
        (t, [rt, [["x"]]], [rt, [["x"]]]),
        ("the cat sat\nit was happy", r1, r1),   # a str prediction: a list is a list of references
        ("the cat sat\nit was happy", [r1], [r1]),
    ]
    for pred, given, meant in cases:
        out = compute([pred], [given], rouge_types="rougeLsum", tokenize="whitespace",
                      multi_ref="best", gamma=1)
        m = RougeLsum(tokenize="whitespace", multi_ref="best", gamma=1)
        m.add_inst(pred, meant)
        assert out["rougeLsum"] == m.score(), (pred, given)
    out = compute([p], [[r1, r2]], rouge_types="rougeLsum", tokenize="whitespace", gamma=1,
                  multi_ref="avg")
    assert out["rougeLsum"] != compute([p], [r1], rouge_types="rougeLsum", tokenize="whitespace",
                                       gamma=1, multi_ref="avg")["rougeLsum"]


# ------------------------------------------------ 20.6 str subclasses

class Sneaky(str):
    """A str whose Python-level views disagree with its value."""

    def __iter__(self):
        return iter("zzzz")

    def __getitem__(self, i):
        return "z"

    def __len__(self):
        return 99

    def __eq__(self, other):
        return False

    def __hash__(self):
        return 1

    def split(self, *a, **k):
        return ["zz"]

    def lower(self):
        return "zz"

    def __str__(self):
        return "zz"


def test_str_subclass_is_its_str_value_on_every_engine(backend):
    """20.6: LCS 4 / F 1.0 on the C engine but 0 / 0.0 on the Python engine."""
    s = Sneaky("abcd")
    assert lcs_length(s, "abcd") == lcs_length("abcd", s) == oracle.lcs("abcd", "abcd") == 4
    res = engine.lcs_batch([s], [["abxd", s]])
    assert res.lcs.tolist() == [3, 4] and res.cand_len.tolist() == [4] and res.ref_len.tolist() == [4, 4]
    assert rouge_l([s], ["abcd"]).f_measure.tolist() == [1.0]
    assert rouge_lsum([s], ["abcd"]).f_measure.tolist() == [1.0]
    assert compute([s], [s], rouge_types=["rougeL", "rougeLsum"])["rougeLsum"] == 1.0
    for cls in (RougeL, RougeLForDuReader, RougeLsum):
        m = cls()
        m.add_inst(s, [Sneaky("abxd")])
        m2 = cls()
        m2.add_inst("abcd", ["abxd"])
        assert m.score() == m2.score() > 0, cls
    b = BLEUForDuReader(n_size=2)
    b.add_inst(s, [s])
    assert b.score() == pytest.approx(1.0)


def test_str_subclass_under_text_settings_and_sentences(backend):
    s = Sneaky("The Cat sat")
    for tok in ("whitespace", "zh", "rouge_score"):
        want = compute(["The Cat sat"], ["the cat"], tokenize=tok, lowercase=True if tok != "rouge_score" else None)
        got = compute([s], [Sneaky("the cat")], tokenize=tok, lowercase=True if tok != "rouge_score" else None)
        assert got["rougeL"] == want["rougeL"] > 0, tok
    want = rouge_lsum(["a b\nc d"], ["a b\nc"], tokenize="whitespace", split="newline")
    got = rouge_lsum([Sneaky("a b\nc d")], [[Sneaky("a b"), "c"]], tokenize="whitespace")
    assert got.f_measure.tolist() == want.f_measure.tolist()
    d = RougeLForDuReader(tokenize="zh")
    d.add_inst("我 在 北京", ["在北京"], entity_ref=[Sneaky("北 京")])
    assert d.per_instance_bonus().tolist() == [2.0]


# ------------------------------------------------ 20.13 errors of a tokenize callable

class Boom(Exception):
    pass


def _raise(exc):
    raise exc


FAILURES = {  # failure -> (tokenizer result maker, exception type, message part, cause type)
    "returns None": (lambda: None, TypeError, "returned None", None),
    "returns int": (lambda: 3, TypeError, "returned int", None),
    "raises ZeroDivisionError": (lambda: 1 / 0, TokenizerError, "raised ZeroDivisionError", ZeroDivisionError),
    "raises its own": (lambda: _raise(Boom("no")), TokenizerError, "raised Boom: no", Boom),
    "raises TypeError": (lambda: _raise(TypeError("t")), TokenizerError, "raised TypeError: t", TypeError),
    "generator raises": (lambda: (_raise(KeyError("k")) for _ in "x"), TokenizerError,
                         "raised KeyError while its result was read", KeyError),
}

SITES = {  # site -> (call with the tokenizer, the place the message starts with)
    "candidate": (lambda tok: compute(["a", "BAD"], [["a"], ["b"]], tokenize=tok), "instance 1, candidate"),
    "reference": (lambda tok: compute(["a", "b"], [["a"], ["b", "BAD"]], tokenize=tok),
                  "instance 1, reference 1"),
    "rouge_l": (lambda tok: rouge_l(["a", "b"], ["a", "BAD"], tokenize=tok), "instance 1, reference 0"),
    "sentence": (lambda tok: rouge_lsum(["a", "b"], ["a", ["b", "BAD"]], tokenize=tok),
                 "instance 1, reference 0, sentence 1"),
    "summary sentence": (lambda tok: rouge_lsum(["a\nBAD"], ["a"], tokenize=tok),
                         "instance 0, candidate, sentence 1"),
    "entity": (lambda tok: RougeLForDuReader(tokenize=tok).add_batch(
        ["a", "b"], [["a"], ["b"]], entity_refs=[["a"], ["b", "BAD"]]), "instance 1, entity 1"),
    "bleu": (lambda tok: BLEUForDuReader(tokenize=tok).add_batch(["a", "b"], [["a"], ["BAD"]]),
             "instance 1, reference 0"),
}


def picky(text):  # fails on "BAD" only
    return BEHAVIOUR["make"]() if text == "BAD" else text.split()


@pytest.mark.parametrize("site", sorted(SITES))
@pytest.mark.parametrize("failure", sorted(FAILURES))
def test_tokenizer_errors_name_the_place_and_the_tokenizer(failure, site, monkeypatch):
    make, exc, part, cause = FAILURES[failure]
    monkeypatch.setitem(BEHAVIOUR, "make", make)
    call, place = SITES[site]
    with pytest.raises(exc) as ei:
        call(picky)
    msg = str(ei.value)
    assert msg.startswith(place + ": tokenize callable 'picky' "), msg
    assert part in msg, msg
    if cause is None:
        assert ei.value.__cause__ is None
    else:
        assert type(ei.value.__cause__) is cause


def test_tokenizer_error_leaves_the_metric_as_it_was(monkeypatch):
    monkeypatch.setitem(BEHAVIOUR, "make", lambda: 1 / 0)
    m = RougeL(tokenize=picky)
    m.add_batch(["a b"], [["a"]])
    before = (m.count, m.score())
    with pytest.raises(TokenizerError, match="^instance 2, reference 0: "):
        m.add_batch(["a", "b"], [["a"], ["BAD"]])
    assert (m.count, m.score()) == before
