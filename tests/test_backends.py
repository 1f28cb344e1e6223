"""Engine back ends (issue 22): every metric asks the active back end for its operations.

A third back end registered by name serves every metric path with no change to the
metrics: a counting back end (the Python one, wrapped) is asked for each operation, the
compiled extension is never touched while it is active (no silent C path), and the
numbers are the built-in back ends'.  A back end lacking a general operation fails loudly
(no silent fallback to another back end).
"""
from __future__ import annotations

import collections
import random

import numpy as np
import pytest

from paddle_rougel import BLEUForDuReader, RougeL, RougeLForDuReader, RougeLsum, RougeN, compare, compute, deduplicate, rouge_l, rouge_l_matrix, rouge_lsum, rouge_n
from paddle_rougel.engine import cext, registry
from paddle_rougel.engine import host as engine
from paddle_rougel.stats import intervals as stats
from paddle_rougel.engine.backends import Backend, PythonBackend

# the operations a back end has: Backend's public methods but available()
OPS = sorted(k for k, v in vars(Backend).items() if callable(v) and not k.startswith("_") and k != "available")


class Counting(PythonBackend):
    """The Python back end, counting the calls of each operation."""

    name = "counting"

    def __init__(self):
        self.calls = collections.Counter()


def _counted(op):
    def wrapper(self, *args, **kw):
        self.calls[op] += 1
        return getattr(PythonBackend, op)(self, *args, **kw)
    wrapper.__name__ = op
    return wrapper


for _op in OPS:
    setattr(Counting, _op, _counted(_op))


class NoExtension:
    """Stands for the compiled extension: any use of it fails the test."""

    def __getattr__(self, name):
        raise AssertionError(f"the C extension was used ({name}) while another back end is active")


@pytest.fixture
def use_backend(monkeypatch):
    """use_backend(be): register be, make it active, hide the extension; undone at the end."""
    used = []

    def use(be):
        engine.register_backend(be)
        used.append(be.name)
        engine.set_backend(be.name)
        monkeypatch.setattr(cext, "lcs", NoExtension())
        return be

    old = engine.backend()
    yield use
    monkeypatch.undo()
    engine.set_backend(old)
    for name in used:
        engine.unregister_backend(name)


def _texts(rng, n, alphabet="abcde", lo=0, hi=30):
    return ["".join(rng.choice(alphabet) for _ in range(rng.randint(lo, hi))) for _ in range(n)]


def _summaries(rng, n, alphabet="甲乙丙 丁"):
    return ["\n".join(_texts(rng, rng.randint(1, 3), alphabet, 1, 20)) for _ in range(n)]


def _workload(seed=3):
    rng = random.Random(seed)
    n = 24
    return {
        "cands": _texts(rng, n),
        "refs": [_texts(rng, rng.randint(1, 3)) for _ in range(n)],
        "one": _texts(rng, n),
        "words_c": [" ".join(_texts(rng, rng.randint(0, 8), "ab", 1, 2)) for _ in range(n)],
        "words_r": [[" ".join(_texts(rng, rng.randint(1, 8), "ab", 1, 2))] for _ in range(n)],
        "tok_c": [[rng.randrange(4) for _ in range(rng.randint(0, 90))] for _ in range(n)],
        "tok_r": [[[rng.randrange(4) for _ in range(rng.randint(1, 90))]] for _ in range(n)],
        "sum_c": _summaries(rng, n),  # characters as tokens
        "sum_r": [_summaries(rng, rng.randint(1, 2)) for _ in range(n)],
        "en_c": _summaries(rng, n, "ab cd"),  # rouge-score's words
        "en_r": [_summaries(rng, rng.randint(1, 2), "ab cd") for _ in range(n)],
    }


def _every_metric(w) -> list:
    """Each metric path once; the numbers they give."""
    out = []
    out.append(engine.lcs_length("ABCBDAB", "BDCABA"))
    out.append(engine.lcs_batch(w["tok_c"], w["tok_r"]).lcs)
    out.append(engine.lcs_pairs(w["cands"], w["one"]))  # a fast path: None unless the back end has it
    out.append(rouge_l(w["cands"], w["one"]))  # strs, one reference each
    out.append(compute(w["words_c"], w["words_r"], tokenize="whitespace")["rougeL"])  # a word reader
    m = RougeL(keep_instances=True)
    m.add_batch(w["cands"], w["refs"])
    out += [m.accumulate(), m.confidence_interval(resamples=60, seed=1)]  # resampled sums
    b = RougeL(keep_instances=True)
    b.add_batch(w["one"], w["refs"])
    out.append(compare(m, b, method="approximate_randomization", resamples=60, seed=2))
    d = RougeLForDuReader()
    d.add_batch(w["cands"], w["refs"])
    out.append(d.accumulate())
    bleu = BLEUForDuReader(keep_instances=True)
    bleu.add_batch(w["cands"], w["refs"])  # clipped n-gram matches
    out += [bleu.accumulate(), bleu.confidence_interval(resamples=60, seed=3)]
    s = RougeLsum()
    s.add_batch(w["sum_c"], w["sum_r"])  # str summaries: the text fast paths
    out.append(s.accumulate())
    out.append(rouge_lsum([[t] for t in w["tok_c"]], [[r[0]] for r in w["tok_r"]]))  # token lists
    out.append(compute(w["en_c"], w["en_r"], rouge_types=("rougeLsum",), tokenize="rouge_score")["rougeLsum"])
    out.append(rouge_l_matrix(w["cands"][:7], w["one"], with_pr=True))
    dd = deduplicate(w["cands"], w["one"][:5], 0.5, best="exact")  # the exact pass: the back end's all pairs
    out += [dd.kept, dd.best]
    out.append(stats.resample_sums(np.arange(10.0), resamples=5, seed=4))
    # ROUGE-N: token lists (the general count), str words (the word fast path), compute's one pass
    out.append(rouge_n(w["tok_c"], [r[0] for r in w["tok_r"]], n=2))
    out.append(compute(w["words_c"], w["words_r"], rouge_types=("rouge1", "rouge2"), tokenize="whitespace"))
    # ROUGE-L and ROUGE-N of the same words: one read for both (the lcs_ngram_words fast path)
    out.append(compute(w["words_c"], w["words_r"], rouge_types=("rouge2", "rougeL"), tokenize="whitespace",
                       per_instance=True))
    n = RougeN(n=1, distinct=True)
    n.add_batch(w["cands"], w["refs"])
    out.append(n.accumulate())
    return out


def _same(a, b) -> bool:
    if isinstance(a, (list, tuple)) and not isinstance(a, np.ndarray):
        return type(a) is type(b) and len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if a is None or b is None:
        return a is b
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return np.array_equal(np.asarray(a), np.asarray(b))
    return a == b


def test_a_registered_backend_serves_every_metric(use_backend):
    w = _workload()
    python = _every_metric_on("python", w)
    be = use_backend(Counting())
    got = _every_metric(w)
    missing = [op for op in OPS if be.calls[op] == 0]
    assert not missing, f"operations never asked of the active back end: {missing}"
    assert _same(got, python)


def _every_metric_on(name, w):
    old = engine.backend()
    engine.set_backend(name)
    try:
        return _every_metric(w)
    finally:
        engine.set_backend(old)


def test_the_c_and_python_backends_agree_on_every_metric():
    w = _workload(5)
    c, py = _every_metric_on("c", w), _every_metric_on("python", w)
    assert c[2] is not None and py[2] is None  # lcs_pairs: the C fast path only
    c[2] = py[2] = None
    assert _same(c, py)


class Partial(Backend):
    """Only ROUGE-L's general operation: everything else is NotImplementedError."""

    name = "partial"

    def lcs_batch(self, cands, ref_lists, threads=None):
        return PythonBackend().lcs_batch(cands, ref_lists, threads)


def test_a_missing_operation_fails_loudly(use_backend):
    use_backend(Partial())
    assert engine.lcs_length("abc", "abd") == 2  # what it has (the fast paths: not taken)
    assert rouge_l(["abc"], ["abd"]).f_measure.tolist() == pytest.approx([2 / 3])
    for call, op in [(lambda: BLEUForDuReader().add_batch(["ab"], [["ab"]]), "clipped_matches"),
                     (lambda: RougeLsum().add_batch(["ab"], [["ab"]]), "lsum_batch"),
                     (lambda: rouge_l_matrix(["ab"], ["ab"]), "lcs_matrix"),
                     (lambda: stats.resample_sums([1.0, 2.0], resamples=3), "resample_sums")]:
        with pytest.raises(NotImplementedError, match=f"Partial.{op}"):
            call()


def test_register_select_and_unregister():
    assert engine.backend() == "c" and type(engine.get_backend()).__name__ == "CBackend"
    with pytest.raises(ValueError, match="unknown LCS backend 'nope'; expected one of 'c', 'python'"):
        engine.set_backend("nope")
    with pytest.raises(TypeError, match="expected a paddle_rougel.backends.Backend, got type"):
        engine.register_backend(PythonBackend)  # the class, not an instance
    with pytest.raises(ValueError, match="'python' is already registered"):
        engine.register_backend(PythonBackend())
    with pytest.raises(ValueError, match="non-empty str name"):
        engine.register_backend(Backend())
    be = Counting()
    engine.register_backend(be)
    try:
        engine.set_backend("counting")
        assert engine.get_backend() is be and engine.backend() == "counting"
        with pytest.raises(ValueError, match="in use"):
            engine.unregister_backend("counting")
    finally:
        engine.set_backend("c")
    engine.unregister_backend("counting")
    with pytest.raises(ValueError, match="unknown LCS backend 'counting'"):
        engine.set_backend("counting")
    for name in ("c", "python"):
        with pytest.raises(ValueError, match="built in"):
            engine.unregister_backend(name)


def test_an_unavailable_backend_is_refused(monkeypatch):
    class Away(PythonBackend):
        name = "away"

        def available(self):
            return "the away engine needs a device"

    engine.register_backend(Away())
    try:
        with pytest.raises(RuntimeError, match="needs a device"):
            engine.set_backend("away")
        assert engine.backend() == "c"
    finally:
        engine.unregister_backend("away")
