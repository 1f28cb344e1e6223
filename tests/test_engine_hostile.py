"""Hostile tokens: user code (__hash__ / __eq__ / another thread) that mutates or
breaks the inputs while the engine reads them.  The engine must never crash,
must compute on the inputs as they were when the call started, and must let
the user's exception through unchanged (TypeError gains the instance index).

The mutating scenarios run in a child process so that a crash is a clean
test failure (and, under scripts/sanitize.sh, the child is sanitized too).
"""
from __future__ import annotations

import json
import random
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from paddle_rougel.engine import host as engine

HERE = os.path.dirname(os.path.abspath(__file__))


class Boom(Exception):
    pass


class RaisingHash:
    def __hash__(self):
        raise Boom("hash")


class RaisingEq:
    """Equal hashes, so interning a second one calls __eq__ (and the self check does)."""

    def __hash__(self):
        return 42

    def __eq__(self, other):
        raise Boom("eq")


class TypeErrorEq:
    def __hash__(self):
        return 43

    def __eq__(self, other):
        raise TypeError("no comparing me")


class BadBool:
    def __bool__(self):
        raise Boom("bool")


class BadBoolEq:
    def __hash__(self):
        return 44

    def __eq__(self, other):
        return BadBool()


def _all_backends():
    for name, threads in (("c", 1), ("c", 2), ("python", None)):
        engine.set_backend(name)
        try:
            yield name, threads
        finally:
            engine.set_backend("c")


@pytest.mark.parametrize("tok", [RaisingHash, RaisingEq, BadBoolEq], ids=lambda t: t.__name__)
@pytest.mark.parametrize("where", ["candidate", "reference"])
def test_user_exception_propagates_unchanged(tok, where):
    for name, threads in _all_backends():
        cand, ref = ["a", tok(), "b"], ["a", "b"]
        if where == "reference":
            cand, ref = ref, cand
        with pytest.raises(Boom):
            engine.lcs_batch(["xy", cand], [["xy"], [ref, "ab"]], threads=threads)
        with pytest.raises(Boom):
            engine.clipped_matches(["xy", cand], [["xy"], [ref]], 2)
        assert engine.lcs_length("abc", "abd") == 2, name  # still usable


def test_type_error_from_user_code_names_the_token():
    for name, threads in _all_backends():
        with pytest.raises(TypeError, match=r"instance 1, reference 0: token 1 \(TypeErrorEq\): no comparing me"):
            engine.lcs_batch(["a", ["a"]], [["a"], [["a", TypeErrorEq()]]], threads=threads)
        with pytest.raises(TypeError, match=r"instance 0, candidate: token 2 \(list\): unhashable"):
            engine.lcs_batch([["a", "b", ["c"]]], [["ab"]], threads=threads)


def test_no_reference_leaks():
    """Every snapshot reference is released, on success and on error."""
    tok, s = object(), "some text"
    arr = np.arange(10, dtype=">i4")
    before = (sys.getrefcount(tok), sys.getrefcount(s), sys.getrefcount(arr))
    for _ in range(200):
        engine.lcs_batch([[tok, 1], s, arr], [[[tok]], [s, [s]], [arr[::2]]], threads=1)
        engine.clipped_matches([[tok, 1], s, arr], [[[tok]], [s], [arr]], 2)
        with pytest.raises(TypeError):
            engine.lcs_batch([[tok, 1], [tok]], [[[tok]], [[tok, []]]], threads=1)
    assert (sys.getrefcount(tok), sys.getrefcount(s), sys.getrefcount(arr)) == before


# ------------------------------------------------------------------ mutation (child process)

_PRELUDE = textwrap.dedent(
    """
    import json, sys, threading
    sys.path.insert(0, {here!r})
    import numpy as np
    import oracle
    from paddle_rougel import engine

    class Tok:
        '''Equal by name; on its first __hash__ (or __eq__) runs a hostile action.'''
        def __init__(self, name, action=None, on="hash"):
            self.name, self.action, self.on = name, action, on
        def _fire(self):
            act, self.action = self.action, None
            if act:
                act()
        def __hash__(self):
            if self.on == "hash":
                self._fire()
            return 7 if self.on == "eq" else hash(self.name)
        def __eq__(self, other):
            if self.on == "eq":
                self._fire()
            return isinstance(other, Tok) and other.name == self.name
        def plain(self):
            return ("tok", self.name)

    def plain(x):
        if isinstance(x, Tok):
            return x.plain()
        if isinstance(x, (list, tuple)):
            return [plain(t) for t in x]
        return x

    def words(prefix, n):
        return [f"{{prefix}}{{k % 37}}" for k in range(n)]  # fresh str objects

    def run(make):
        out = {{}}
        for name, threads in (("c", 1), ("c", 2), ("python", None)):
            engine.set_backend(name)
            cands, refs, want = make()
            res = engine.lcs_batch(cands, refs, threads=threads)
            out[f"{{name}}{{threads or ''}}"] = [res.lcs.tolist(), want]
        engine.set_backend("c")
        return out
    """
)

_SCENARIOS = {
    # a token's __hash__ clears the very list it sits in (and frees its other tokens)
    "hash_clears_own_list": """
        def make():
            cand = []
            cand += [Tok("x", lambda: cand.clear())] + words("w", 3000)
            ref = words("w", 2000)[::-1] + [Tok("x")]
            want = [oracle.lcs_dp_rows(plain(cand), plain(ref))]
            return [cand], [[ref]], want
    """,
    # ... clears every container of the call: outer lists, reference lists, token lists
    "hash_clears_everything": """
        def make():
            cands, refs = [], []
            def wipe():
                for rl in refs:
                    for r in rl:
                        r.clear()
                    rl.clear()
                for c in cands:
                    c.clear()
                cands.clear(); refs.clear()
            cands += [[Tok("x", wipe)] + words("a", 500), words("a", 300) + [Tok("x")]]
            refs += [[words("a", 400), [Tok("x")]], [words("a", 100), [Tok("x")] * 3]]
            want = [oracle.lcs_dp(plain(c), plain(r)) for c, rl in zip(cands, refs) for r in rl]
            return cands, refs, want
    """,
    # __eq__ (called on a hash collision) clears a later reference and the outer lists
    "eq_clears_later_lists": """
        def make():
            cands, refs = [], []
            late = words("b", 800)
            def wipe():
                late.clear(); cands.clear(); refs.clear()
            cands += [[Tok("p", wipe, on="eq"), Tok("q", on="eq")] + words("b", 200), words("b", 600)]
            refs += [[[Tok("q", on="eq")]], [late, words("b", 50)]]
            want = [oracle.lcs_dp(plain(c), plain(r)) for c, rl in zip(cands, refs) for r in rl]
            return cands, refs, want
    """,
    # an earlier token resizes a numpy array read later (refcheck=False: numpy lets it go)
    "hash_resizes_array": """
        def make():
            arr = np.arange(5000, dtype=np.int64) % 11
            orig = arr.copy()
            def shrink():
                arr.resize(3, refcheck=False)
            cands = [[Tok("z", shrink), 1, 2], orig[:300].tolist()]
            refs = [[[1, 2]], [arr, arr[::-1]]]
            want = [2, oracle.lcs_dp_rows(orig[:300], orig), oracle.lcs_dp_rows(orig[:300], orig[::-1])]
            return cands, refs, want
    """,
}


@pytest.mark.parametrize("scenario", sorted(_SCENARIOS))
def test_mutating_tokens_see_the_inputs_as_given(scenario):
    code = _PRELUDE.format(here=HERE) + textwrap.dedent(_SCENARIOS[scenario]) + "\nprint(json.dumps(run(make)))\n"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, f"child died ({proc.returncode}):\n{proc.stderr[-3000:]}"
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert set(out) == {"c1", "c2", "python"}
    for name, (got, want) in out.items():
        assert got == want, name


_THREADED = textwrap.dedent(
    """
    sys.setswitchinterval(1e-6)  # switch threads as often as possible

    class Slow:
        '''Python-level __hash__/__eq__: the GIL can move to the mutator mid-call.'''
        def __init__(self, v):
            self.v = v
        def __hash__(self):
            return hash(self.v)
        def __eq__(self, other):
            return isinstance(other, Slow) and other.v == self.v

    toks = [[Slow(k % 13) for k in range(400)] for _ in range(6)]
    cands = [toks[0], toks[1], toks[2]]
    refs = [[toks[3], toks[1]], [toks[4]], [toks[5], toks[0]]]
    stop = False
    def mutate():
        k = 0
        while not stop:
            lst = toks[k % 6]
            lst.clear()  # frees the item array and (fresh objects below) the old tokens
            lst.extend([Slow((k + j) % 13) for j in range(400)])
            refs[k % 3].append(toks[k % 6]); refs[k % 3].pop()
            cands.append(toks[0]); cands.pop()
            k += 1
    th = threading.Thread(target=mutate)
    th.start()
    shapes, errors = set(), []
    try:
        for it in range(60):
            engine.set_backend("c")
            try:
                res = engine.lcs_batch(cands, refs, threads=1 + it % 2)
                shapes.add((len(res.lcs), len(res.cand_len)))
                assert all(0 <= v <= 400 for v in res.lcs.tolist())
            except ValueError as e:  # lengths changed between the two outer snapshots
                errors.append(str(e))
    finally:
        stop = True
        th.join()
    print(json.dumps({"shapes": sorted(shapes), "errors": errors}))
    """
)


def test_another_thread_mutating_the_lists():
    code = _PRELUDE.format(here=HERE) + _THREADED
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, f"child died ({proc.returncode}):\n{proc.stderr[-3000:]}"
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert out["shapes"], out
    for shape in out["shapes"]:
        assert shape[1] in (3, 4) and shape[0] >= 4, shape
    assert all("candidates but" in e for e in out["errors"]), out["errors"]


def test_concurrent_word_calls_each_get_their_own_scratch():
    """lcs_words keeps one scratch block between calls (module.c mod_scratch_take): calls from
    several threads at once (each releases the GIL while its kernel runs, so they overlap)
    must each get memory of their own.  Every call's numbers equal the same call alone, for
    batches of different sizes (a larger one regrows the kept block under the others)."""
    import threading

    from paddle_rougel import _lcs

    rng = random.Random(8)
    vocab = ["the", "cat", "sat", "on", "a", "mat", "dog", "ran"]
    batches = []
    for size in (300, 3000, 20, 1500):
        cands = tuple(" ".join(rng.choice(vocab) for _ in range(rng.randrange(0, 40))) for _ in range(size))
        refs = tuple(" ".join(rng.choice(vocab) for _ in range(rng.randrange(0, 60))) for _ in range(size))
        batches.append((cands, refs))

    def run(b, threads):
        raw = _lcs.lcs_words(b[0], b[1], 1, True, threads, one_ref=True, orders=(1, 2))
        return [bytes(x) for x in raw]

    want = [run(b, 1) for b in batches]
    bad = []

    def worker(k):
        for it in range(15):
            j = (k + it) % len(batches)
            if run(batches[j], 1 + it % 2) != want[j]:
                bad.append((k, it, j))

    ths = [threading.Thread(target=worker, args=(k,)) for k in range(4)]
    for t in ths:
        t.start()
    for t in ths:
        t.join()
    assert not bad, bad[:5]
