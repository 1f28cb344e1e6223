"""Issue 32, the library's flows: mixed ids and text (item 3), unknown keywords with a suggestion
everywhere (item 16), a ROUGE-Lsum setting without a ROUGE-Lsum type (item 19), bytes and pandas
NaN where text is expected (item 21)."""
from __future__ import annotations

import inspect
import warnings

import numpy as np
import pytest

import paddle_rougel as pr
from paddle_rougel import compute, rouge_l, rouge_lsum, rouge_n

NAN = float("nan")


# ------------------------------------------------------------------ item 3: ids against text

@pytest.mark.parametrize("cands,refs,where", [
    ([[791, 1921, 2000]], ["今天天气不错"], ["instance 0", "candidate", "reference 0"]),
    (["今天天气不错"], [[[791, 1921]]], ["instance 0", "candidate", "reference 0"]),
    (["ab", "今天"], ["ab", ["x", np.array([5, 6])]], ["instance 1", "reference 1"]),
    (["ab", np.array([1, 2], dtype=np.int32)], ["ab", "今天"], ["instance 1", "candidate"]),
])
def test_ids_against_text_is_an_error_naming_the_instance(cands, refs, where):
    for call in (lambda: compute(cands, refs), lambda: compute(cands, refs, rouge_types=["rouge1", "rougeL"]),
                 lambda: compute(cands, refs, tokenize="whitespace")):
        with pytest.raises(TypeError) as e:
            call()
        for w in where:
            assert w in str(e.value), (w, str(e.value))
        assert "ids" in str(e.value)


def test_ids_against_text_in_rouge_lsum():
    """ROUGE-Lsum: a summary given as sentences of ids against a text summary."""
    with pytest.raises(TypeError, match="instance 0: the candidate is token ids .* reference 0 is text"):
        compute([[[791, 1921], [5]]], ["今天天气不错"], rouge_types=["rougeLsum"])
    with pytest.raises(TypeError, match="instance 1: the reference 0 is token ids .* candidate is text"):
        rouge_lsum(["ab", "今天。"], ["ab", [np.array([1, 2])]])
    assert compute([[[1, 2], [3]]], [[[[1, 2], [3]]]], rouge_types=["rougeLsum"])["rougeLsum"] == 1.0
    with pytest.raises(TypeError, match="decode"):
        rouge_lsum(["abc"], [b"abc"])


def test_ids_against_text_in_the_per_pair_calls():
    for f in (rouge_l, rouge_n):
        with pytest.raises(TypeError, match="instance 1.*candidate"):
            f(["ab", [1, 2]], ["ab", "今天"])


def test_the_same_kind_on_both_sides_still_scores():
    assert compute([[791, 1921]], [[791, 5]], gamma=1)["rougeL"] == 0.5
    assert compute([np.array([1, 2])], [[[1, 2], "xy"][0]])["rougeL"] == 1.0
    # a list of str tokens against a str: comparable tokens (characters), as before
    assert compute([["a", "b"]], ["ab"])["rougeL"] == 1.0
    # instances of different kinds in one call: each instance is consistent
    out = compute(["ab", [1, 2]], ["ab", [[1, 2]]], per_instance=True)
    assert out["per_instance"]["rougeL"].tolist() == [1.0, 1.0]


# ------------------------------------------------------------------ item 21: bytes, NaN

@pytest.mark.parametrize("call", [
    lambda: rouge_l(["abc"], [b"abc"]),
    lambda: rouge_n(["abc"], [b"abc"]),
    lambda: compute(["abc"], [[b"abc"]]),
    lambda: compute([b"abc"], ["abc"]),
    lambda: compute(["abc"], [[bytearray(b"abc")]], tokenize="whitespace"),
    lambda: pr.rouge_l_matrix(["abc"], [b"abc"]),
])
def test_bytes_where_text_is_expected_are_refused(call):
    with pytest.raises(TypeError) as e:
        call()
    msg = str(e.value)
    assert "bytes" in msg and "decode" in msg, msg
    assert "instance 0" in msg or "choice 0" in msg, msg


@pytest.mark.parametrize("call,where", [
    (lambda: compute(["a b", NAN], ["a b", "c"]), "instance 1, candidate"),
    (lambda: compute(["a b", "c"], [["a b"], ["c", NAN]], tokenize="whitespace"), "instance 1, reference 1"),
    (lambda: rouge_l(["a", "b"], ["a", NAN], tokenize="rouge_score"), "instance 1, reference 0"),
    (lambda: rouge_n(["a", NAN], ["a", "b"]), "instance 1, candidate"),
    (lambda: pr.deduplicate(["a", NAN], ["a"]), "item 1"),
    (lambda: compute(["a", "b"], ["a", NAN]), "instance 1"),
    (lambda: compute(["a", NAN], ["a", "b"], rouge_types=["rougeLsum"]), "instance 1, candidate"),
])
def test_a_pandas_nan_names_the_instance_and_says_what_it_is(call, where):
    with pytest.raises(TypeError) as e:
        call()
    msg = str(e.value)
    assert where in msg and "nan" in msg and "missing" in msg, msg
    assert "not iterable" not in msg, msg


# ------------------------------------------------------------------ item 19

def test_a_split_setting_without_rouge_lsum_is_accepted():
    """torchmetrics / transformers' helpers pass their sentence-splitting flag whatever the types."""
    plain = compute(["the cat. it sat"], ["the cat. it sat down"], rouge_types=["rougeL"], tokenize="whitespace")
    for split in ("en", "zh", "newline"):
        out = compute(["the cat. it sat"], ["the cat. it sat down"], rouge_types=["rougeL"],
                      tokenize="whitespace", split=split)
        assert out["rougeL"] == plain["rougeL"] and out["signature"] == plain["signature"]
    with pytest.raises(ValueError, match="split must be one of"):   # still checked
        compute(["a"], ["a"], rouge_types=["rougeL"], split="bogus")


# ------------------------------------------------------------------ item 16

PUBLIC_KEYWORD_CALLS = [
    ("compute", lambda **kw: pr.compute(["a"], ["a"], **kw), "gama", "gamma"),
    ("compute", lambda **kw: pr.compute(["a"], ["a"], **kw), "tokenise", "tokenize"),
    ("rouge_l", lambda **kw: pr.rouge_l(["a"], ["a"], **kw), "alpah", "alpha"),
    ("rouge_lsum", lambda **kw: pr.rouge_lsum(["a"], ["a"], **kw), "splt", "split"),
    ("rouge_n", lambda **kw: pr.rouge_n(["a"], ["a"], **kw), "tokenze", "tokenize"),
    ("rouge_l_matrix", lambda **kw: pr.rouge_l_matrix(["a"], ["a"], **kw), "with_p", "with_pr"),
    ("deduplicate", lambda **kw: pr.deduplicate(["a"], ["a"], **kw), "treshold", "threshold"),
    ("alignment", lambda **kw: pr.alignment("a", "a", **kw), "tokenise", "tokenize"),
    ("lcs_batch", lambda **kw: pr.lcs_batch(["a"], [["a"]], **kw), "word", "words"),
]


@pytest.mark.parametrize("name,call,bad,good", PUBLIC_KEYWORD_CALLS, ids=[c[0] + "-" + c[2] for c in PUBLIC_KEYWORD_CALLS])
def test_an_unknown_keyword_suggests_the_closest_name(name, call, bad, good):
    with pytest.raises(TypeError) as e:
        call(**{bad: 1})
    assert str(e.value) == f"{name}() got an unexpected keyword argument {bad!r} (did you mean {good!r}?)"


def test_the_wrapped_functions_keep_their_signatures():
    for f in (pr.compute, pr.rouge_l, pr.rouge_n, pr.rouge_lsum, pr.rouge_l_matrix, pr.deduplicate):
        params = inspect.signature(f).parameters
        assert "kwargs" not in params, f
    assert "gamma" in inspect.signature(pr.compute).parameters


def test_rouge_score_names_are_said_where_they_are_not_taken():
    """rouge-score's ``use_stemmer`` is compute()'s alias of ``stem`` (tests/test_presets.py); the
    per-pair calls and the classes, which do not take it, name ours."""
    with pytest.raises(TypeError, match=r"'use_stemmer' \(rouge-score's name: here 'stem'"):
        pr.rouge_l(["a"], ["a"], use_stemmer=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(TypeError, match=r"'use_aggregator' \(evaluate's name: here 'aggregate'"):
            pr.compute(["a"], ["a"], use_aggregator=True)


def test_classes_and_their_keyword_methods_suggest_too():
    cases = [
        (lambda: pr.RougeL(gama=3), "RougeL() got an unexpected keyword argument 'gama' (did you mean 'gamma'?)"),
        (lambda: pr.RougeN(tokenise="zh"), "RougeN() got an unexpected keyword argument 'tokenise' (did you mean 'tokenize'?)"),
        (lambda: pr.RougeL().confidence_interval(resample=10),
         "RougeL.confidence_interval() got an unexpected keyword argument 'resample' (did you mean 'resamples'?)"),
        (lambda: pr.RougeLForDuReader().add_inst("a", ["a"], yn_labl="Yes"),
         "RougeLForDuReader.add_inst() got an unexpected keyword argument 'yn_labl' (did you mean 'yn_label'?)"),
        (lambda: pr.BLEUForDuReader().add_batch(["a"], [["a"]], entity_ref=[["a"]]),
         "BLEUForDuReader.add_batch() got an unexpected keyword argument 'entity_ref' (did you mean 'entity_refs'?)"),
        (lambda: pr.compare(None, None, resample=3),
         "compare() got an unexpected keyword argument 'resample' (did you mean 'resamples'?)"),
    ]
    for call, msg in cases:
        with pytest.raises(TypeError) as e:
            call()
        assert str(e.value) == msg
    from paddle_rougel.api.config import ConfigError, preset
    with pytest.raises(ConfigError, match="did you mean 'rouge_score'"):
        preset("rouge_scor")
