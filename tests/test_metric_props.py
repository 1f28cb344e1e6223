"""Property tests (hypothesis) of the metric invariants, against independent oracles.

For ``RougeL``, ``RougeLForDuReader`` and ``BLEUForDuReader`` the same
instances go through every route that must give the same figures:

* an ``add_inst`` loop (buffered) and one ``add_batch``;
* shards (alternately ``add_batch`` and buffered ``add_inst``) merged with
  ``merge(other_metric)``, through ``merge(state_dict())`` into a fresh
  metric, and through a JSON round trip (``load_state_dict`` + ``merge``);
* ``copy.copy`` / ``copy.deepcopy`` of a metric with buffered instances,
  each copy and the original then continuing independently;

and the figures are checked against an oracle: ``tests/oracle.py`` (plain DP
LCS) for ``RougeL``, paddlenlp's own ``RougeLForDuReader`` /
``BLEUForDuReader`` (imported for real) for the DuReader metrics.

Inputs mix str of every PEP 393 kind (ASCII, Latin-1, BMP/CJK, astral),
lists/tuples of str or int tokens, numpy integer arrays of eight dtypes,
empty candidates and references, single tokens and heavy repetition;
``accumulators.FLUSH_AT`` is lowered to cross the buffer size cheaply.

Also: instances are snapshotted when added (reused numpy buffers and lists
mutated afterwards change nothing), and a bad instance anywhere in an
``add_batch`` raises naming its running index and changes nothing.
"""
from __future__ import annotations

import contextlib
import copy
import json
import math
from typing import Any, NamedTuple

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings, strategies as st

import oracle
from paddle_rougel import BLEUForDuReader, RougeL, RougeLForDuReader
from paddle_rougel.metrics import accumulators

# the reference implementations: an ImportError here is a failure, by design (no skip)
from paddlenlp.metrics import BLEUForDuReader as PaddleNLPBleuDuReader
from paddlenlp.metrics import RougeLForDuReader as PaddleNLPRougeLDuReader

TOL = 1e-12
PROPS = dict(deadline=None, derandomize=True, database=None,
             suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
MODES = ["max_pr", "best", "avg", "pooled", "best_recall"]
GAMMAS = [0.0, 0.5, 1.0, 1.2, 10.0]
FLUSH = [1, 3, None]  # None: the real FLUSH_AT (4096)

# one alphabet per str: its PEP 393 kind (1, 1, 2, 4 bytes); "a" and "b" are shared by all
ALPHABETS = {
    "ascii": "ab c",
    "latin1": "ab\xe9\xff\x00",
    "bmp": "ab\u4e2d\u6587\xe9",
    "astral": "ab\u4e2d\U0001F600\U00020000",
}
WORDS = ["the", "cat", "on", "mat", "", "Cat", "\u4e2d\u6587", "\U0001F600", "\xe9"]
DTYPES = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]
OTHER_DTYPES = [np.bool_, np.float64]  # not integer kinds: their tokens are the Python values
LABELS = ["Yes", "No", "Depends"]


class Inst(NamedTuple):
    cand: Any
    refs: Any
    yl: Any = None     # yn_label
    yr: Any = None     # yn_ref
    ents: Any = None   # entity_ref


EXTRA = Inst("ab", ["b"])  # a valid instance for every metric


# ------------------------------------------------------------------ strategies

def text(max_len):
    kinds = [st.text(alphabet=st.sampled_from(a), max_size=max_len) for a in ALPHABETS.values()]
    repeated = st.builds(lambda ch, n: ch * n, st.sampled_from(["a", "\u4e2d", "\U0001F600"]),
                         st.integers(0, 2 * max_len))
    return st.one_of(*kinds, repeated)


def words(max_len):
    seqs = st.lists(st.sampled_from(WORDS), max_size=max_len)
    return st.one_of(seqs, seqs.map(tuple), st.integers(0, max_len).map(lambda n: ["cat"] * n))


@st.composite
def ints(draw, max_len):
    box = draw(st.sampled_from(["list", "tuple"] + DTYPES + OTHER_DTYPES))
    if box in ("list", "tuple"):
        vals = draw(st.lists(st.sampled_from([0, 1, 2, 3, -1, 2 ** 40]), max_size=max_len))
        return vals if box == "list" else tuple(vals)
    vals = draw(st.lists(st.integers(0, 3), max_size=max_len))
    return np.array(vals, dtype=box)


SEQS = {"str": text, "words": words, "ints": ints}


@st.composite
def entities(draw, cand):
    """Entities for the candidate: some of its substrings (str) or tokens, some not."""
    if isinstance(cand, str):
        subs = st.tuples(st.integers(0, len(cand)), st.integers(0, 3)).map(
            lambda t: cand[t[0]:t[0] + t[1]])
        one = st.one_of(subs, subs, text(3))
    else:  # tokens of the candidate, other words, and tuples (never found: `in` is membership)
        mine = st.sampled_from(list(cand)) if len(cand) else st.sampled_from(WORDS)
        one = st.one_of(mine, st.sampled_from(WORDS), st.lists(st.sampled_from(WORDS), max_size=2).map(tuple))
    return draw(st.lists(one, max_size=3))


@st.composite
def instance(draw, max_len=10, max_refs=3, bonus=False, families=("str", "words", "ints"),
             bonus_families=("str", "words")):
    fam = draw(st.sampled_from(families))
    seq = SEQS[fam](max_len)
    cand = draw(seq)
    refs = draw(st.lists(seq, min_size=1, max_size=max_refs))
    if len(cand) and draw(st.booleans()):  # a near copy of the candidate: real overlap
        k = draw(st.integers(0, len(cand) - 1))
        refs[0] = np.concatenate([cand[:k], cand[k + 1:]]) if isinstance(cand, np.ndarray) \
            else cand[:k] + cand[k + 1:]
    if draw(st.booleans()):
        refs = tuple(refs)
    if not bonus or fam not in bonus_families:
        return Inst(cand, refs)
    yl = draw(st.sampled_from([None] + LABELS))
    labels = st.lists(st.sampled_from(LABELS), min_size=len(refs), max_size=len(refs))
    yr = None if draw(st.integers(0, 3)) == 0 else draw(labels)
    ents = draw(st.none() | entities(cand))
    return Inst(cand, refs, yl, yr, ents)


def cuts_of(max_n):
    return st.lists(st.integers(0, max_n), max_size=3).map(sorted)


# --------------------------------------------------------------------- helpers

@contextlib.contextmanager
def flush_at(n):
    old = accumulators.FLUSH_AT
    accumulators.FLUSH_AT = old if n is None else n
    try:
        yield
    finally:
        accumulators.FLUSH_AT = old


def add_insts(m, insts, bonus):
    for x in insts:
        if bonus:
            m.add_inst(x.cand, x.refs, x.yl, x.yr, x.ents)
        else:
            m.add_inst(x.cand, x.refs)


def add_batch(m, insts, bonus):
    cands, refs = [x.cand for x in insts], [x.refs for x in insts]
    if bonus:
        m.add_batch(cands, refs, [x.yl for x in insts], [x.yr for x in insts], [x.ents for x in insts])
    else:
        m.add_batch(cands, refs)


def split(insts, cuts):
    bounds = [0] + list(cuts) + [len(insts)]
    return [insts[a:b] for a, b in zip(bounds, bounds[1:]) if a <= b]


def jsonify(sd):
    return json.loads(json.dumps(sd))


def per_instance(m):
    """Per-instance arrays as one [N, k] array (empty for BLEU, which has none)."""
    if isinstance(m, BLEUForDuReader):
        return np.zeros((0, 0))
    pi = m.per_instance()
    cols = [pi.precision, pi.recall, pi.fmeasure]
    if isinstance(m, RougeLForDuReader):
        cols.append(m.per_instance_bonus())
    return np.stack(cols, axis=1)


def routes(make, insts, cuts, bonus):
    """The same instances through every route: {route: metric}, plus checks made on the way."""
    out = {}
    a = make()
    add_insts(a, insts, bonus)
    out["add_inst"] = a
    b = make()
    add_batch(b, insts, bonus)
    out["add_batch"] = b

    def shard_metrics():
        ms = []
        for k, sh in enumerate(split(insts, cuts)):
            m = make()
            (add_insts if k % 2 else add_batch)(m, sh, bonus)  # odd shards left buffered
            ms.append(m)
        return ms

    ms = shard_metrics()
    sds = [m.state_dict() for m in shard_metrics()]
    before = [m.state_dict() for m in ms[1:]]
    c = ms[0]
    for m in ms[1:]:
        assert c.merge(m) is c
    assert [m.state_dict() for m in ms[1:]] == before  # merging never changes the source
    out["merge(metric)"] = c

    d = make()
    for sd in sds:
        assert d.merge(sd) is d
    out["merge(state_dict)"] = d

    e = make()
    e.load_state_dict(jsonify(sds[0]))
    for sd in sds[1:]:
        e.merge(jsonify(sd))
    out["json+load+merge"] = e

    half = len(insts) // 2
    orig = make()
    add_insts(orig, insts[:half], bonus)  # buffered when copied
    c1, c2 = copy.copy(orig), copy.deepcopy(orig)
    add_batch(c1, insts[half:], bonus)
    add_insts(c2, insts[half:], bonus)
    add_insts(orig, [EXTRA], bonus)  # the original goes its own way
    out["copy.copy"], out["copy.deepcopy"] = c1, c2
    control = make()
    add_batch(control, list(insts[:half]) + [EXTRA], bonus)
    assert_same(orig, control, "original after copying")
    return out


def figures(m):
    if isinstance(m, BLEUForDuReader):
        return (m.accumulate(),)
    return (m.accumulate(),) + tuple(m.scores())


def assert_same(m, ref, route):
    assert int(m.count) == int(ref.count), route
    for got, want in zip(figures(m), figures(ref)):
        assert abs(got - want) <= TOL, (route, got, want)
    np.testing.assert_allclose(per_instance(m), per_instance(ref), rtol=0, atol=TOL, err_msg=route)


def check_routes(out, n):
    ref = out["add_batch"]
    assert int(ref.count) == n
    for route, m in out.items():
        if route in ("merge(state_dict)", "json+load+merge"):
            # a state dict holds no per-instance results: the figures only
            assert int(m.count) == n, route
            for got, want in zip(figures(m), figures(ref)):
                assert abs(got - want) <= TOL, (route, got, want)
            assert per_instance(m).shape[0] == 0, route
        else:
            assert_same(m, ref, route)


# ----------------------------------------------------------------------- RougeL

@settings(max_examples=150, **PROPS)
@given(insts=st.lists(instance(max_len=14), max_size=9), gamma=st.sampled_from(GAMMAS),
       mode=st.sampled_from(MODES), cuts=cuts_of(9), flush=st.sampled_from(FLUSH))
def test_rougel_routes_equal_oracle(insts, gamma, mode, cuts, flush):
    cuts = [min(c, len(insts)) for c in cuts]
    want = np.array([oracle.score_instance(x.cand, x.refs, gamma, mode) for x in insts],
                    dtype=np.float64).reshape(-1, 3)
    with flush_at(flush):
        out = routes(lambda: RougeL(gamma=gamma, multi_ref=mode), insts, cuts, bonus=False)
        check_routes(out, len(insts))
        ref = out["add_batch"]
        np.testing.assert_allclose(per_instance(ref), want, rtol=0, atol=TOL)
        mean = want.mean(axis=0) if len(insts) else np.zeros(3)
        for route, m in out.items():
            assert abs(m.accumulate() - mean[2]) <= TOL, (route, m.accumulate(), mean[2])
            assert np.allclose(tuple(m.scores()), mean, rtol=0, atol=TOL), route
            assert isinstance(m.accumulate(), float)


# ----------------------------------------------------------- RougeLForDuReader

def dureader_bonus(theirs, x, alpha, beta):
    """The per-instance bonus (largest over the references), from paddlenlp's own methods."""
    vals = []
    for i, ref in enumerate(x.refs):
        if x.yl is not None and x.yr is not None:
            vals.append(alpha * theirs.add_yn_bonus(x.cand, ref, x.yl, x.yr[i]))
        elif x.ents is not None:
            vals.append(beta * theirs.add_entity_bonus(x.cand, x.ents))
        else:
            vals.append(0.0)
    return max(vals)


@settings(max_examples=150, **PROPS)
@given(insts=st.lists(instance(max_len=10, bonus=True), max_size=8),
       gamma=st.sampled_from([0.0, 1.0, 1.2, 1.2, 10.0]), mode=st.sampled_from(["max_pr", "max_pr"] + MODES),
       weights=st.sampled_from([(1.0, 1.0), (0.5, 2.0), (0.0, 1.0), (3.0, 0.0)]),
       cuts=cuts_of(8), flush=st.sampled_from(FLUSH))
def test_rougel_dureader_routes_equal_paddlenlp(insts, gamma, mode, weights, cuts, flush):
    alpha, beta = weights
    cuts = [min(c, len(insts)) for c in cuts]
    with flush_at(flush):
        out = routes(lambda: RougeLForDuReader(alpha=alpha, beta=beta, gamma=gamma, multi_ref=mode),
                     insts, cuts, bonus=True)
        check_routes(out, len(insts))
    ref = out["add_batch"]
    theirs = PaddleNLPRougeLDuReader(alpha=alpha, beta=beta)
    assert theirs.gamma == 1.2  # paddlenlp's __init__ drops gamma (passes it as trans_func)
    theirs.gamma = gamma        # its add_inst reads self.gamma: the oracle for any gamma
    for x in insts:
        theirs.add_inst(x.cand, x.refs, yn_label=x.yl, yn_ref=x.yr, entity_ref=x.ents)
    bonus = np.array([dureader_bonus(theirs, x, alpha, beta) for x in insts], dtype=np.float64)
    np.testing.assert_allclose(ref.per_instance_bonus(), bonus, rtol=0, atol=TOL)
    if mode != "max_pr":  # paddlenlp has max_pr only; the routes above agree for every mode
        return
    np.testing.assert_allclose(ref.per_instance().fmeasure, np.array(theirs.inst_scores, dtype=np.float64),
                               rtol=0, atol=TOL)
    if insts:
        assert abs(ref.accumulate() - theirs.accumulate()) <= TOL
    else:
        assert ref.accumulate() == 0.0  # paddlenlp divides by zero


# -------------------------------------------------------------- BLEUForDuReader

@settings(max_examples=150, **PROPS)
@given(insts=st.lists(instance(max_len=12, bonus=True, bonus_families=("str",),
                                       families=("str", "str", "words", "ints")), max_size=8),
       n_size=st.sampled_from([1, 2, 3, 4]),
       weights=st.sampled_from([(1.0, 1.0), (0.5, 2.0), (0.0, 1.0), (3.0, 0.0)]),
       cuts=cuts_of(8), flush=st.sampled_from(FLUSH))
def test_bleu_dureader_routes_equal_paddlenlp(insts, n_size, weights, cuts, flush):
    alpha, beta = weights
    cuts = [min(c, len(insts)) for c in cuts]
    with flush_at(flush):
        out = routes(lambda: BLEUForDuReader(n_size=n_size, alpha=alpha, beta=beta), insts, cuts, bonus=True)
        check_routes(out, len(insts))
    theirs = PaddleNLPBleuDuReader(alpha=alpha, beta=beta)
    # paddlenlp's __init__ passes n_size positionally as trans_func (always BLEU-4): set it
    theirs.n_size, theirs.weights = n_size, [1 / n_size] * n_size
    for x in insts:
        theirs.add_inst(x.cand, x.refs, yn_label=x.yl, yn_ref=x.yr, entity_ref=x.ents)
    got = out["add_batch"].accumulate()
    if sum(len(x.cand) for x in insts) == 0:
        assert got == 0.0  # paddlenlp divides by zero (bp_c == 0)
    else:
        want = theirs.accumulate()
        assert math.isclose(got, want, rel_tol=TOL, abs_tol=1e-300), (got, want)


# -------------------------------------------------------------------- snapshot

KINDS = {
    "rougel": (lambda: RougeL(gamma=1.0), False),
    "dureader": (lambda: RougeLForDuReader(), True),
    "bleu": (lambda: BLEUForDuReader(n_size=3), True),
}


@st.composite
def snap_case(draw):
    vals = st.lists(st.integers(0, 3), max_size=10)
    wl = st.lists(st.sampled_from(WORDS[:4]), max_size=8)
    n_refs = draw(st.integers(1, 3))
    return dict(c=draw(vals), r=draw(st.lists(vals, min_size=n_refs, max_size=n_refs)),
                wc=draw(wl), wr=draw(st.lists(wl, min_size=n_refs, max_size=n_refs)),
                yl=draw(st.sampled_from(LABELS)),
                yr=draw(st.lists(st.sampled_from(LABELS), min_size=n_refs, max_size=n_refs)),
                ents=draw(st.lists(st.sampled_from(WORDS[:4]), max_size=3)))


@pytest.mark.parametrize("kind", sorted(KINDS))
@settings(max_examples=20, **PROPS)
@given(cases=st.lists(snap_case(), min_size=1, max_size=7), dtype=st.sampled_from(DTYPES),
       flush=st.sampled_from([2, None]))
def test_mutating_inputs_after_adding_changes_nothing(kind, cases, dtype, flush):
    make, bonus = KINDS[kind]
    cbuf = np.zeros(16, dtype=dtype)
    rbufs = [np.zeros(16, dtype=dtype) for _ in range(3)]
    wc, wrs, yr, ents = [], [[], [], []], [], []  # reused lists
    with flush_at(flush):
        m, control = make(), make()
        for i, cs in enumerate(cases):
            n_refs = len(cs["r"])
            # 1. numpy views of reused buffers
            cbuf[:len(cs["c"])] = cs["c"]
            for buf, r in zip(rbufs, cs["r"]):
                buf[:len(r)] = r
            m.add_inst(cbuf[:len(cs["c"])], [buf[:len(r)] for buf, r in zip(rbufs, cs["r"])])
            control.add_inst(np.array(cs["c"], dtype=dtype), [np.array(r, dtype=dtype) for r in cs["r"]])
            cbuf.fill(3)
            for buf in rbufs:
                buf.fill(1)
            # 2. reused lists (tokens, ref_list, yn_ref, entity_ref), cleared and refilled
            wc[:] = cs["wc"]
            for lst, r in zip(wrs, cs["wr"]):
                lst[:] = r
            ref_list = wrs[:n_refs]
            yr[:] = cs["yr"]
            ents[:] = cs["ents"]
            fresh = (list(cs["wc"]), [list(r) for r in cs["wr"]])
            if not bonus:
                m.add_inst(wc, ref_list)
                control.add_inst(*fresh)
            elif i % 2:  # yes/no bonus
                m.add_inst(wc, ref_list, yn_label=cs["yl"], yn_ref=yr)
                control.add_inst(*fresh, yn_label=cs["yl"], yn_ref=list(cs["yr"]))
            else:        # entity bonus
                m.add_inst(wc, ref_list, entity_ref=ents)
                control.add_inst(*fresh, entity_ref=list(cs["ents"]))
            wc[:] = ["cat"] * 9
            for lst in wrs:
                lst[:] = ["cat", "the"]
            ref_list.append(["mat"])
            yr[:] = [cs["yl"]] * len(yr)  # every label would now match
            ents[:] = ["cat", "the", "mat", "on"]
        # 3. add_batch of views, mutated after the call
        big = np.zeros(sum(len(cs["c"]) for cs in cases), dtype=dtype)
        ends = np.cumsum([len(cs["c"]) for cs in cases]).tolist()
        views = [big[e - len(cs["c"]):e] for e, cs in zip(ends, cases)]  # disjoint views
        for v, cs in zip(views, cases):
            v[:] = cs["c"]
        m.add_batch(views, [[rbufs[0][:4]] for _ in cases])
        control.add_batch([np.array(cs["c"], dtype=dtype) for cs in cases],
                          [[rbufs[0][:4].copy()] for _ in cases])
        big.fill(2)
        rbufs[0].fill(0)
        assert m.state_dict() == control.state_dict()
        np.testing.assert_array_equal(per_instance(m), per_instance(control))
        assert int(m.count) == 3 * len(cases)


# ------------------------------------------------------------ exception safety

BAD_ALL = {  # a bad instance, for every metric
    "candidate None": Inst(None, ["ab"]),
    "ref_list None": Inst("ab", None),
    "ref_list empty": Inst("ab", []),
    "reference None": Inst("ab", ["ab", None]),
    "unhashable candidate token": Inst(["a", ["b"]], [["a"]]),
    "unhashable reference token": Inst(["a"], [["a"], ["b", {"k": 1}]]),
    "set as candidate": Inst({"a", "b"}, ["ab"]),
    "set as reference": Inst("ab", ["a", {"a", "b"}]),
    "set as ref_list": Inst("ab", {"ab"}),
}
BAD_BONUS = {  # bad only through its bonus columns
    "yn_ref too short": Inst("ab", ["ab", "b"], "Yes", ["Yes"]),
    "yn_ref too long": Inst("ab", ["ab"], "No", ["No", "Yes"]),
    "entity None": Inst("ab", ["ab"], None, None, ["a", None]),
    "entity_ref bare str": Inst("ab", ["ab"], None, None, "ab"),
    "yn_ref not a list": Inst("ab", ["ab"], "Yes", 5),
}
BAD_CASES = [(k, b) for k in sorted(KINDS) for b in BAD_ALL] + \
            [(k, b) for k in ("bleu", "dureader") for b in BAD_BONUS]


def state(m):
    return m.state_dict(), per_instance(m).tolist()


@pytest.mark.parametrize("kind,bad", BAD_CASES, ids=[f"{k}-{b}" for k, b in BAD_CASES])
@settings(max_examples=8, **PROPS)
@given(data=st.data())
def test_bad_instance_changes_nothing(kind, bad, data):
    make, bonus = KINDS[kind]
    bad_inst = {**BAD_ALL, **BAD_BONUS}[bad]
    good = instance(max_len=6, bonus=bonus, bonus_families=("str",))
    prefix_batch = data.draw(st.lists(good, max_size=4), label="prefix_batch")
    prefix_insts = data.draw(st.lists(good, max_size=4), label="prefix_insts")
    batch = data.draw(st.lists(good, max_size=5), label="batch")
    k = data.draw(st.integers(0, len(batch)), label="k")
    suffix = data.draw(st.lists(good, min_size=1, max_size=3), label="suffix")
    with flush_at(data.draw(st.sampled_from([2, None]), label="flush")):
        m, control = make(), make()
        for t in (m, control):
            add_batch(t, prefix_batch, bonus)
            add_insts(t, prefix_insts, bonus)  # some left buffered
        n0 = m.accumulator.n_seen()
        assert n0 == len(prefix_batch) + len(prefix_insts)
        bad_batch = list(batch[:k]) + [bad_inst] + list(batch[k:])
        with pytest.raises((TypeError, ValueError), match=rf"\binstance {n0 + k}\b"):
            add_batch(m, bad_batch, bonus)
        assert m.accumulator.n_seen() == n0
        assert state(m) == state(control)
        before = state(m)
        with pytest.raises((TypeError, ValueError), match=rf"\binstance {n0}\b"):
            add_insts(m, [bad_inst], bonus)
        assert m.accumulator.n_seen() == n0
        assert state(m) == before
        for t in (m, control):  # still usable, and nothing of the bad calls left behind
            add_insts(t, suffix, bonus)
            add_batch(t, batch, bonus)
        assert state(m) == state(control)
        assert int(m.count) == n0 + len(suffix) + len(batch)



# ------------------------------------------------------ entity bonus membership

TUPLE_TOKENS = ["a", "b", ("a",), ("a", "b")]


@settings(max_examples=40, **PROPS)
@example(cand=[("a",)], ents=[["a"]])  # the list entity ["a"] is not the token ("a",)
@given(cand=st.lists(st.sampled_from(TUPLE_TOKENS), max_size=4),
       ents=st.lists(st.one_of(st.sampled_from(TUPLE_TOKENS),
                               st.lists(st.sampled_from(["a", "b"]), min_size=1, max_size=2)), max_size=3))
def test_dureader_entity_bonus_is_membership_as_paddlenlp(cand, ents):
    """Tokens may be any hashable, tuples included.  The entity bonus is Python's ``in``
    on the candidate as given (paddlenlp): a list entity is never a tuple token."""
    ours, theirs = RougeLForDuReader(), PaddleNLPRougeLDuReader()
    ours.add_inst(cand, [["a", "b"]], entity_ref=ents)
    theirs.add_inst(cand, [["a", "b"]], entity_ref=ents)
    assert ours.per_instance_bonus().tolist() == [theirs.add_entity_bonus(cand, ents)]
    assert abs(ours.accumulate() - theirs.accumulate()) <= TOL
