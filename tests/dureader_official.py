"""An independent oracle of the official DuReader 2018 contest evaluation.

Written for the tests from the contest's evaluation driver (``mrc_eval.py``)
and its bonus metrics (``rouge.py``'s ``RougeLWithBonus``, ``bleu.py``'s
``BLEUWithBonus``) as published with the contest; nothing here imports
``paddle_rougel`` or shares code with it.  What the driver does, step by step:

* **Reading** (``read_file``): one JSON object per line (a ``.zip`` holds one
  or more such files, read in the archive's order); a repeated
  ``question_id`` is an error.  ``answers`` are normalised, and for the
  reference file every ``entity_answers`` list too; a missing
  ``yesno_answers`` / ``entity_answers`` is ``[]``.
* **normalize**: every character ``c`` with ``c.strip() == ""`` (every
  whitespace character) is dropped; an empty list stays empty.
* **The loop** (``calc_metrics``), over the reference questions in file order:
  a question whose ``answers`` list is empty is skipped; the candidate is the
  prediction's first answer, ``""`` when the question has no prediction or the
  prediction has no answers; predictions for unknown questions are ignored.
  YES_NO: the predicted label is the prediction's first ``yesno_answers``
  entry (``None`` when there is none) and the reference labels are the
  reference's ``yesno_answers``.  ENTITY: the entities are the **set** of all
  (normalised) entity strings of the question, ``None`` when that set is
  empty.  Other types: no bonus.
* **ROUGE-L with bonus**, per reference ``i``: ``lcs`` (a float, from a DP);
  the yes/no bonus ``yn = lcs`` when the predicted label is given and equals
  ``yn_ref[i]`` (else 0); otherwise, when entities are given, the entity bonus
  ``ent = sum(len(e) for e in entities if e in cand)``; then
  ``P_i = (lcs + a*yn + b*ent) / (len(cand) + a*yn + b*ent)`` (0 when the
  denominator is not positive), ``R_i`` the same with ``len(ref_i)``; the
  instance's F from ``max P`` and ``max R`` with gamma 1.2:
  ``((1 + g**2) * P * R) / (R + g**2 * P)`` (0 when P or R is 0).  The score
  is the mean of the instance F values (summed in order).
* **BLEU-4 with bonus**: for n = 1..4 the clipped n-gram matches of the
  candidate against its references (a reference n-gram's count is its largest
  count in any one reference) and the candidate's n-gram count; the yes/no
  bonus adds ``a`` times the clipped matches of the candidate's n-grams,
  each labelled with the predicted label, against each reference's n-grams
  labelled with that reference's label, to both the matches and the
  candidate count; the entity bonus adds ``b`` times the clipped matches
  against the entity strings likewise; the brevity penalty sums the
  candidate lengths and, per instance, the length of the reference closest in
  length (the shorter on ties); BLEU-4 = ``(p1*p2*p3*p4) ** (1/4) * BP`` with
  ``p_n = matches / candidate n-grams`` (0 when there are none) and
  ``BP = exp(min(1 - r/c, 0))`` (0 when c = 0).
* **Printing**: ``round(score * 100, 2)`` for each.
"""
from __future__ import annotations

import json
import math
import zipfile
from typing import Dict, List, Optional

YESNO_TYPES = ("YES_NO",)


def normalize(strings: List[str]) -> List[str]:
    if not strings:
        return strings
    return ["".join(ch for ch in s if ch.strip() != "") for s in strings]


def _lines(path: str):
    if path.endswith(".zip"):
        with zipfile.ZipFile(path) as zf:
            for name in zf.namelist():
                with zf.open(name) as f:
                    for raw in f:
                        yield raw.decode("utf-8")
    else:
        with open(path, encoding="utf-8") as f:
            yield from f


def read_file(path: str, is_ref: bool = False) -> Dict:
    rows: Dict = {}
    for line in _lines(path):
        obj = json.loads(line.strip())
        qid = obj["question_id"]
        if qid in rows:
            raise ValueError(f"Duplicate question_id: {qid}")
        row = {"answers": normalize(obj["answers"]),
               "yesno_answers": obj.get("yesno_answers", [])}
        if is_ref:
            row["question_type"] = obj["question_type"]
            row["source"] = obj["source"]
            row["entity_answers"] = [normalize(e) for e in obj.get("entity_answers", [])]
        rows[qid] = row
    return rows


# ------------------------------------------------------------------ ROUGE-L

def _lcs(a: str, b: str) -> float:
    table = [[0] * (len(b) + 1) for _ in range(len(a) + 1)]
    for i in range(1, len(a) + 1):
        for j in range(1, len(b) + 1):
            if a[i - 1] == b[j - 1]:
                table[i][j] = table[i - 1][j - 1] + 1
            else:
                table[i][j] = max(table[i - 1][j], table[i][j - 1])
    return float(table[len(a)][len(b)])


def rouge_instance(cand: str, refs: List[str], yn_label, yn_ref, entities,
                   alpha: float, beta: float, gamma: float = 1.2) -> float:
    precs, recs = [], []
    for i, ref in enumerate(refs):
        basic = _lcs(cand, ref)
        yn, ent = 0.0, 0.0
        if yn_ref is not None and yn_label is not None:
            yn = basic if yn_label == yn_ref[i] else 0.0
        elif entities is not None:
            ent = 0.0
            for e in entities:
                if e in cand:
                    ent += len(e)
        p_den = len(cand) + alpha * yn + beta * ent
        r_den = len(ref) + alpha * yn + beta * ent
        num = basic + alpha * yn + beta * ent
        precs.append(num / p_den if p_den > 0.0 else 0.0)
        recs.append(num / r_den if r_den > 0.0 else 0.0)
    p, r = max(precs), max(recs)
    if p != 0 and r != 0:
        return ((1 + gamma ** 2) * p * r) / float(r + gamma ** 2 * p)
    return 0.0


# ------------------------------------------------------------------ BLEU-4

def _ngrams(text: str, n: int, label: Optional[str] = None) -> List[tuple]:
    grams = [text[k:k + n] for k in range(len(text) - n + 1)]
    if label is not None:  # the driver appends "_" + label to each n-gram string
        grams = [g + "_" + label for g in grams]
    return [tuple(g) for g in grams]


def _clipped(cand: List[tuple], refs: List[List[tuple]]):
    best: Dict[tuple, int] = {}
    for grams in refs:
        counts: Dict[tuple, int] = {}
        for g in grams:
            counts[g] = counts.get(g, 0) + 1
        for g, c in counts.items():
            best[g] = max(best.get(g, 0), c)
    mine: Dict[tuple, int] = {}
    for g in cand:
        mine[g] = mine.get(g, 0) + 1
    return sum(min(c, best.get(g, 0)) for g, c in mine.items()), len(cand)


class Bleu4:
    def __init__(self, alpha: float, beta: float, n: int = 4):
        self.alpha, self.beta, self.n = alpha, beta, n
        self.match = [0] * n
        self.total = [0] * n
        self.c = 0
        self.r = 0

    def add(self, cand: str, refs: List[str], yn_label, yn_ref, entities) -> None:
        for k in range(self.n):
            m, t = _clipped(_ngrams(cand, k + 1), [_ngrams(r, k + 1) for r in refs])
            self.match[k] += m
            self.total[k] += t
        self.c += len(cand)
        self.r += min((abs(len(cand) - len(r)), len(r)) for r in refs)[1]
        if yn_label is not None and yn_ref is not None:
            for k in range(self.n):
                m, _ = _clipped(_ngrams(cand, k + 1, yn_label),
                                [_ngrams(refs[j], k + 1, lab) for j, lab in enumerate(yn_ref)])
                self.match[k] += self.alpha * m
                self.total[k] += self.alpha * m
        elif entities is not None:
            for k in range(self.n):
                m, _ = _clipped(_ngrams(cand, k + 1, "ENTITY"),
                                [_ngrams(e, k + 1, "ENTITY") for e in entities])
                self.match[k] += self.beta * m
                self.total[k] += self.beta * m

    def score(self) -> float:
        probs = [self.match[k] / float(self.total[k]) if self.total[k] != 0 else 0.0
                 for k in range(self.n)]
        cum = probs[0]
        for k in range(1, self.n):
            cum *= probs[k]
        bleu = cum ** (1.0 / self.n)
        bp = 0.0 if float(self.c) == 0.0 else math.exp(min(1 - self.r / float(self.c), 0))
        return bleu * bp


# ------------------------------------------------------------------ driver

def evaluate(pred_file: str, ref_file: str, alpha: float = 1.0, beta: float = 1.0):
    """``({"ROUGE-L": x, "BLEU-4": y}, {question_id: instance F})`` as the driver prints them."""
    preds = read_file(pred_file)
    refs = read_file(ref_file, is_ref=True)
    bleu = Bleu4(alpha, beta)
    inst: Dict = {}
    for qid, ref in refs.items():
        pred = preds.get(qid, {})
        answers = pred.get("answers", [])
        cand = answers[0] if answers else ""
        ref_answers = ref.get("answers", [])
        if not ref_answers:
            continue
        yn_label, entities = None, None
        if ref["question_type"] == "ENTITY":
            entities = set()
            for group in ref.get("entity_answers", [[]]):
                entities.update(group)
            entities = entities or None
        if ref["question_type"] in YESNO_TYPES:
            labels = pred.get("yesno_answers", [])
            yn_label = labels[0] if labels else None
        yn_ref = ref["yesno_answers"]
        bleu.add(cand, ref_answers, yn_label, yn_ref, entities)
        inst[qid] = rouge_instance(cand, ref_answers, yn_label, yn_ref, entities, alpha, beta)
    values = list(inst.values())
    rouge = sum(values) / len(values)
    return {"ROUGE-L": round(rouge * 100, 2), "BLEU-4": round(bleu.score() * 100, 2)}, inst
