"""Joint invariants of metric states (issue 20.4): what no run can produce is refused by
``load_state_dict`` / ``merge``, and every state that real runs produce is accepted.

The hostile cases each failed on the code before the fix (each field was in range, the
combination impossible, and it moved the score).  The property test feeds random data to
every metric under many settings and checks that its states, merges of them and their
per-instance rows always load.
"""
from __future__ import annotations

import copy
import json

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings as hsettings, strategies as st

from paddle_rougel.metrics.bleu import BleuAccumulator
from paddle_rougel.metrics.dureader_rouge_l import DuReaderRougeLAccumulator
from paddle_rougel.metrics.rouge_l import RougeLAccumulator
from paddle_rougel.metrics.rouge_lsum import RougeLsumAccumulator
from paddle_rougel.metrics.rouge_n import RougeNAccumulator, RougeNSettings
from paddle_rougel.engine.inputs import make_batch
from paddle_rougel.engine.lsum import make_lsum_batch
from paddle_rougel.core.scoring import MULTI_REF_MODES
from paddle_rougel.metrics.bleu import BleuSettings
from paddle_rougel.metrics.dureader_rouge_l import DuReaderRougeLSettings
from paddle_rougel.metrics.rouge_l import RougeLSettings
from paddle_rougel.metrics.rouge_lsum import RougeLsumSettings


def _rouge(cls=RougeLAccumulator, settings=None, keep=True, data=(("abcd", ["abce"]), ("xy", ["xy", "yx"]))):
    acc = cls(settings or cls.settings_class(), keep_instances=keep)
    cands, refs = zip(*data)
    acc.add_now(make_lsum_batch(list(cands), list(refs)) if cls is RougeLsumAccumulator
                else make_batch(list(cands), list(refs)))
    return acc


def _bleu(keep=True, **kw):
    acc = BleuAccumulator(BleuSettings(**kw), keep_instances=keep)
    acc.add_now(make_batch(["abcab", "xyz"], [["abcd"], ["xyzw", "xy"]]))
    return acc


def _refused(acc, state, *words):
    """load_state_dict and merge both refuse ``state`` naming ``words``, and change nothing."""
    before = json.dumps(acc.state_dict())
    for call in (acc.load_state_dict, acc.merge, lambda s: type(acc)(acc.settings).merge(s)):
        with pytest.raises(ValueError) as e:
            call(copy.deepcopy(state))
        for w in words:
            assert w in str(e.value), (w, str(e.value))
        assert json.dumps(acc.state_dict()) == before


# ------------------------------------------------------------------ ROUGE-L family

@pytest.mark.parametrize("cls", [RougeLAccumulator, DuReaderRougeLAccumulator, RougeLsumAccumulator,
                                 RougeNAccumulator])
def test_f_sum_without_p_and_r_is_refused(cls):
    """f_sum == count with p_sum == r_sum == 0 scored 1.0."""
    acc = _rouge(cls, keep=False)
    st = acc.state_dict()
    st["states"].update(f_sum=5.0, p_sum=0.0, r_sum=0.0, count=5)
    _refused(acc, st, "f_sum", "more than P 0.0 and R 0.0 allow")
    st["states"].update(f_sum=1e-10, p_sum=0.0, r_sum=0.0, count=0)  # sums without instances
    _refused(acc, st, "count", "no instances")


@pytest.mark.parametrize("cls", [RougeLAccumulator, DuReaderRougeLAccumulator, RougeLsumAccumulator,
                                 RougeNAccumulator])
def test_kept_row_with_f_above_its_p_and_r_is_refused(cls):
    """A kept row P=0, R=0, F=1 was accepted (here its sums pass: P, R, F sum to 1 over 2 rows)."""
    acc = _rouge(cls)
    st = json.loads(json.dumps(acc.state_dict()))
    extra = [0.0] * (len(st["instances"][0]) - 3)  # the DuReader bonus column
    st["instances"] = [[1.0, 1.0, 0.0] + extra, [0.0, 0.0, 1.0] + extra]
    st["states"] = {"f_sum": 1.0, "p_sum": 1.0, "r_sum": 1.0, "count": 2}
    _refused(acc, st, "instances' row 1", "F 1.0 is more than P 0.0 and R 0.0 allow")


@pytest.mark.parametrize("cfg", [{"gamma": 1.2}, {"gamma": 0.0}, {"gamma": 1e200}, {"alpha": 0.0},
                                 {"alpha": 1.0}, {"alpha": 0.5}, {"alpha": -1.0}])
def test_rows_above_the_f_of_their_p_and_r_are_refused(cfg):
    settings = RougeLSettings(gamma=cfg.get("gamma"), alpha=cfg.get("alpha"))
    acc = RougeLAccumulator(settings, keep_instances=True)
    p, r = 0.9, 0.3  # F: 0.3 .. 0.9 by the weighting; tensor2tensor's at most 1.1185 min(P, R)
    f = float(settings.f(np.array([p]), np.array([r]))[0])
    ok = {"metric": "RougeL", "config": settings.config(), "instances": [[p, r, f], [p, r, f]],
          "states": {"f_sum": 2 * f, "p_sum": 2 * p, "r_sum": 2 * r, "count": 2}}
    acc.load_state_dict(ok)
    assert acc.score() == f
    g = min(1.0, f * 1.01 + 0.01) if cfg.get("alpha", 0) >= 0 else 0.3 * 1.12
    sums = copy.deepcopy(ok)  # an F sum above what the P and R sums allow
    del sums["instances"]
    sums["states"]["f_sum"] = 2 * g
    _refused(RougeLAccumulator(settings), sums, "'f_sum'", f"F {2 * g!r} is more than")
    rows = copy.deepcopy(ok)  # a row above its own P and R (the sums pass: row 0 has F 0)
    rows["instances"] = [[1.0, 1.0, 0.0], [p, r, g]]
    rows["states"] = {"f_sum": g, "p_sum": 1.0 + p, "r_sum": 1.0 + r, "count": 2}
    _refused(acc, rows, "row 1", f"F {g!r} is more than P 0.9 and R 0.3")


# ------------------------------------------------------------------ BLEU

def test_bleu_count_zero_with_matches_is_refused():
    """count == 0 with non-zero matches merged and moved the score."""
    acc = _bleu(keep=False)
    st = acc.state_dict()
    st["states"].update(match_ngram=[3.0, 2.0, 1.0, 0.0], candi_ngram=[3.0, 2.0, 1.0, 0.0], bp_c=3.0,
                        bp_r=3.0, count=0)
    _refused(acc, st, "count", "no instances")


@pytest.mark.parametrize("weights", [(0.0, 0.0), (1.0, 1.0), (2.0, 0.5)])
def test_bleu_more_bigrams_than_the_candidate_has_is_refused(weights):
    """candi_ngram = [1, 5, 5, 5] (more bigrams than unigrams) scored 1.0."""
    yn, ent = weights
    acc = _bleu(keep=False, yesno_weight=yn, entity_weight=ent)
    st = acc.state_dict()
    st["states"].update(match_ngram=[1.0, 5.0, 5.0, 5.0], candi_ngram=[1.0, 5.0, 5.0, 5.0], bp_c=1.0,
                        bp_r=1.0, count=1)
    _refused(acc, st, "candi_ngram", "candidate n-grams")
    st["states"].update(match_ngram=[0.0] * 4, candi_ngram=[40.0, 3.0, 2.0, 1.0], bp_c=4.0, count=1)
    _refused(acc, st, "candidate n-grams")  # 40 unigrams of a 4-token candidate
    st["states"].update(candi_ngram=[4.0, 3.0, 2.0, 1.0], bp_c=4.0, bp_r=2.5)
    _refused(acc, st, "whole numbers")


def test_bleu_rows_are_checked_one_by_one():
    acc = _bleu()
    st = json.loads(json.dumps(acc.state_dict()))
    row, other = st["instances"]  # 5 and 3 tokens: 5, 4, 3, 2 and 3, 2, 1, 0 candidate n-grams
    assert row[:8] == [3.0, 2.0, 1.0, 0.0, 5.0, 4.0, 3.0, 2.0] and other[4:9] == [3.0, 2.0, 1.0, 0.0, 3.0]
    row[4], other[4] = 4.0, 4.0  # a unigram moved between the rows: the sums still pass
    _refused(BleuAccumulator(acc.settings, keep_instances=True), st, "row 0", "fewer candidate n-grams")


# ------------------------------------------------------------------ real runs are always accepted

TEXT = st.text(alphabet="abc", max_size=7)
SUMMARY = st.lists(st.text(alphabet="abc", min_size=1, max_size=4), max_size=3).map("\n".join)
LABEL = st.sampled_from(["Yes", "No", "Depends"])
WEIGHTS = st.sampled_from([0.0, 0.5, 1.0, 2.0])


@st.composite
def instances(draw, text=TEXT, bonus=False):
    n = draw(st.integers(0, 7))
    out = []
    for _ in range(n):
        refs = draw(st.lists(text, min_size=1, max_size=3))
        yn_label = yn_refs = ents = None
        if bonus:
            kind = draw(st.sampled_from(["none", "yesno", "entity"]))
            if kind == "yesno":
                yn_label, yn_refs = draw(LABEL), [draw(LABEL) for _ in refs]
            elif kind == "entity":
                ents = draw(st.lists(st.text(alphabet="abc", min_size=1, max_size=3), min_size=1, max_size=3))
        out.append((draw(text), refs, yn_label, yn_refs, ents))
    return out


@st.composite
def metric_and_data(draw):
    kind = draw(st.sampled_from(["rougeL", "dureader", "lsum", "bleu", "rougeN"]))
    mode = draw(st.sampled_from(MULTI_REF_MODES))
    weighting = draw(st.sampled_from([{"gamma": 1.2}, {"gamma": 0.0}, {"gamma": 3.0}, {"gamma": 1e200},
                                      {"alpha": 0.0}, {"alpha": 1.0}, {"alpha": 0.3}, {"alpha": -1.0}]))
    if kind == "rougeL":
        s = RougeLSettings(gamma=weighting.get("gamma"), alpha=weighting.get("alpha"), multi_ref=mode)
        return RougeLAccumulator, s, draw(instances())
    if kind == "rougeN":
        s = RougeNSettings(n=draw(st.sampled_from([1, 2, 3])), distinct=draw(st.booleans()),
                           gamma=weighting.get("gamma"), alpha=weighting.get("alpha"), multi_ref=mode)
        return RougeNAccumulator, s, draw(instances())
    if kind == "lsum":
        s = RougeLsumSettings(gamma=weighting.get("gamma"), alpha=weighting.get("alpha"), multi_ref=mode)
        return RougeLsumAccumulator, s, draw(instances(SUMMARY))
    yn, ent = draw(WEIGHTS), draw(WEIGHTS)
    if kind == "dureader":
        s = DuReaderRougeLSettings(gamma=draw(st.sampled_from([1.2, 0.0, 5.0])), multi_ref=mode,
                                   yesno_weight=yn, entity_weight=ent)
        return DuReaderRougeLAccumulator, s, draw(instances(bonus=True))
    s = BleuSettings(n_size=draw(st.sampled_from([1, 2, 4])), yesno_weight=yn, entity_weight=ent)
    return BleuAccumulator, s, draw(instances(bonus=True))


def _run(cls, s, data, keep):
    acc = cls(s, keep_instances=keep)
    if data:
        cands, refs, yl, yr, en = (list(c) for c in zip(*data))
        if cls is RougeLsumAccumulator:
            acc.add_now(make_lsum_batch(cands, refs))
        elif cls in (RougeLAccumulator, RougeNAccumulator):
            acc.add_now(make_batch(cands, refs))
        else:
            acc.add_now(make_batch(cands, refs, yl, yr, en))
    return acc


@hsettings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=metric_and_data(), cut=st.integers(0, 7), keep=st.booleans())
def test_states_of_real_runs_are_always_accepted(case, cut, keep):
    cls, s, data = case
    a, b = _run(cls, s, data[:cut], keep), _run(cls, s, data[cut:], keep)
    whole = _run(cls, s, data, keep)
    for st_ in (a.state_dict(), b.state_dict(), whole.state_dict()):
        cls(s, keep_instances=keep).load_state_dict(json.loads(json.dumps(st_)))
    fresh = cls(s, keep_instances=keep)
    fresh.load_state_dict(json.loads(json.dumps(a.state_dict())))
    fresh.merge(json.loads(json.dumps(b.state_dict())))
    fresh.merge(whole)
    fresh.merge(copy.deepcopy(fresh))  # doubled: still a run's state (the data twice)
    assert fresh.count == 4 * len(data)
