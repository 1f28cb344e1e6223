"""`paddle-rougel dureader` against an independent oracle of the official contest driver.

The oracle (``tests/dureader_official.py``) is written from the official DuReader 2018
evaluation (``mrc_eval.py`` with the bonus ``rouge.py`` / ``bleu.py``) and shares no code
with the package.  The contests are generated to hit what the driver's order of steps
decides: whitespace in and around answers and entities, entities that collide once
whitespace is dropped, empty and whitespace-only answers and entities, several references,
every question type, yes/no labels that match some references only, missing labels,
missing and unexpected predictions, questions without answers, full-width and non-BMP
characters, and bonus weights other than 1.  The command line's JSON and every
``--per-instance`` F must equal the oracle's bit for bit.
"""
from __future__ import annotations

import json
import os
import random
import subprocess
import sys

import pytest

import dureader_official as official

# characters: CJK, full-width, non-BMP, ASCII, and the whitespace the driver drops
# (str.strip(): space, tab, ideographic space U+3000, NBSP, U+0085, U+001C..U+001F, U+2028)
# next to characters it keeps (zero-width space U+200B, BOM U+FEFF are not whitespace)
LETTERS = list("天气很好北京上海七丁乳是的不吗") + ["Ａ", "１", "，", "\U00020000", "\U0001F600", "a", "B", "7"]
SPACES = [" ", "\t", "\u3000", "\xa0", "\x85", "\x1c", "\u2028", "  "]
KEEP = ["\u200b", "\ufeff"]
LABELS = ["Yes", "No", "Depends"]
WEIGHTS = [(1.0, 1.0), (0.5, 2.0), (0.0, 1.0), (3.0, 0.25), (100.0, 0.001)]


def _text(rng: random.Random, lo: int = 0, hi: int = 12) -> str:
    out = []
    for _ in range(rng.randint(lo, hi)):
        r = rng.random()
        out.append(rng.choice(SPACES) if r < 0.15 else rng.choice(KEEP) if r < 0.17 else rng.choice(LETTERS))
    return "".join(out)


def _spaced(rng: random.Random, s: str) -> str:
    """``s`` with whitespace inserted inside and around it (equal to ``s`` once normalised)."""
    out = [rng.choice(SPACES)] if rng.random() < 0.5 else []
    for ch in s:
        out.append(ch)
        if rng.random() < 0.3:
            out.append(rng.choice(SPACES))
    return "".join(out)


def make_contest(seed: int, n: int, directory: str):
    rng = random.Random(seed)
    refs, preds = [], []
    for q in range(n):
        qid = q if rng.random() < 0.5 else f"q{q}"
        qtype = rng.choice(["YES_NO", "ENTITY", "DESCRIPTION"])
        k = rng.choice([0, 1, 1, 2, 3, 4]) if rng.random() < 0.97 else 0
        answers = [_text(rng, 0 if rng.random() < 0.1 else 1) for _ in range(k)]
        if answers and rng.random() < 0.05:
            answers[0] = rng.choice(SPACES)  # whitespace-only: "" once normalised
        row = {"question_id": qid, "question_type": qtype, "answers": answers,
               "source": rng.choice(["search", "zhidao"])}
        if qtype == "YES_NO":
            row["yesno_answers"] = [rng.choice(LABELS) for _ in answers]
        else:
            row["yesno_answers"] = []
        if qtype == "ENTITY" and rng.random() < 0.9:
            groups = []
            pool = [_text(rng, 1, 3) for _ in range(3)]
            for _ in range(rng.randint(1, 3)):
                group = []
                for _ in range(rng.randint(0, 4)):
                    r = rng.random()
                    if r < 0.4:
                        group.append(_spaced(rng, rng.choice(pool)))  # collides after normalising
                    elif r < 0.5:
                        group.append(rng.choice(["", " ", "\u3000"]))
                    else:
                        group.append(_text(rng, 1, 4))
                groups.append(group)
            row["entity_answers"] = groups
        elif rng.random() < 0.5:
            row["entity_answers"] = [[]]
        refs.append(row)
        if rng.random() < 0.1:
            continue  # no prediction
        base = rng.choice(answers) if answers and rng.random() < 0.7 else _text(rng)
        # the candidate shares characters with the reference and (often) contains entities
        cand = _spaced(rng, base) if rng.random() < 0.5 else base + _text(rng, 0, 4)
        if qtype == "ENTITY" and row.get("entity_answers") and rng.random() < 0.7:
            ents = [e for g in row["entity_answers"] for e in g]
            if ents:
                cand = _spaced(rng, rng.choice(ents).strip()) + cand
        pred_answers = [cand] if rng.random() < 0.95 else []
        if pred_answers and rng.random() < 0.2:
            pred_answers.append(_text(rng))
        pred = {"question_id": qid, "answers": pred_answers}
        if qtype == "YES_NO" and rng.random() < 0.85:
            pred["yesno_answers"] = [rng.choice(LABELS)]
        elif rng.random() < 0.2:
            pred["yesno_answers"] = []
        preds.append(pred)
    for extra in range(rng.randint(0, 3)):  # predictions for questions the references lack
        preds.append({"question_id": f"unknown{extra}", "answers": [_text(rng)], "yesno_answers": ["Yes"]})
    rng.shuffle(preds)
    ref_path = os.path.join(directory, f"ref{seed}.jsonl")
    pred_path = os.path.join(directory, f"pred{seed}.jsonl")
    for path, rows in ((ref_path, refs), (pred_path, preds)):
        with open(path, "w", encoding="utf-8") as f:
            for r in rows:
                f.write(json.dumps(r, ensure_ascii=rng.random() < 0.3) + "\n")
    return pred_path, ref_path


def run_cli(pred: str, ref: str, tmp_path, yn: float, ent: float):
    per = os.path.join(str(tmp_path), "per.jsonl")
    p = subprocess.run([sys.executable, "-m", "paddle_rougel", "dureader", "--pred_file", pred,
                        "--ref_file", ref, "--yesno-weight", repr(yn), "--entity-weight", repr(ent),
                        "--per-instance", per], capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    with open(per, encoding="utf-8") as f:
        rows = [json.loads(line) for line in f]
    return json.loads(p.stdout), {r["question_id"]: r["f"] for r in rows}


def test_entities_are_deduplicated_after_normalisation(tmp_path):
    """The regression: "七" and "七 " are one entity (the driver normalises, then takes the set)."""
    ref = tmp_path / "ref.jsonl"
    pred = tmp_path / "pred.jsonl"
    ref.write_text(json.dumps({"question_id": 1, "question_type": "ENTITY", "answers": ["七天", "丁嘐七"],
                               "entity_answers": [["乳 ", "七", "丁嘐"], ["七 ", "丁 呑", "噖俾侺"]],
                               "yesno_answers": [], "source": "search"}, ensure_ascii=False) + "\n",
                   encoding="utf-8")
    pred.write_text(json.dumps({"question_id": 1, "answers": ["七日"]}, ensure_ascii=False) + "\n",
                    encoding="utf-8")
    want, want_inst = official.evaluate(str(pred), str(ref))
    assert want == {"ROUGE-L": 66.67, "BLEU-4": 0.0}  # bonus 1 (one entity found), not 2
    got, got_inst = run_cli(str(pred), str(ref), tmp_path, 1.0, 1.0)
    assert got == want and got_inst == want_inst
    rows = [json.loads(line) for line in open(tmp_path / "per.jsonl", encoding="utf-8")]
    assert rows[0]["bonus"] == 1.0


def test_the_oracle_knows_the_driver_rules():
    """Hand-checked cases of the oracle itself (so a wrong oracle cannot pass silently)."""
    assert official.normalize([" 北 京\u3000", "\u200b"]) == ["北京", "\u200b"]
    assert official.normalize([]) == []
    # yes/no: the bonus counts against the references with the predicted label only
    f = official.rouge_instance("是的", ["是的", "不是"], "Yes", ["No", "Yes"], None, 1.0, 1.0)
    # ref 0: lcs 2, no bonus: P = R = 1; ref 1: lcs 1, bonus 1: P = R = 2/3 -> max 1, 1
    assert f == 1.0
    f = official.rouge_instance("是", ["是的"], "Yes", ["Yes"], None, 1.0, 1.0)
    # lcs 1 + bonus 1: P = 2/2, R = 2/3
    assert f == pytest.approx((1 + 1.44) * 1 * (2 / 3) / ((2 / 3) + 1.44 * 1))
    b = official.Bleu4(1.0, 1.0)
    b.add("ab", ["ab"], None, None, None)
    assert b.score() == 0.0  # no trigram: p3 = 0
    b = official.Bleu4(1.0, 1.0)
    b.add("abcd", ["abcd"], None, None, None)
    assert b.score() == 1.0


@pytest.mark.parametrize("seed,n", [(1, 400), (2, 600), (3, 2000)])
@pytest.mark.parametrize("yn,ent", WEIGHTS)
def test_cli_equals_the_official_driver(tmp_path, seed, n, yn, ent):
    pred, ref = make_contest(seed, n, str(tmp_path))
    want, want_inst = official.evaluate(pred, ref, yn, ent)
    got, got_inst = run_cli(pred, ref, tmp_path, yn, ent)
    assert got == want
    assert got_inst.keys() == want_inst.keys()
    diff = {q: (got_inst[q], want_inst[q]) for q in want_inst if got_inst[q] != want_inst[q]}
    assert not diff, f"{len(diff)} questions differ, e.g. {list(diff.items())[:3]}"


def test_generated_contests_exercise_the_rules(tmp_path):
    """The generator really makes the cases the differential test is for."""
    pred, ref = make_contest(1, 400, str(tmp_path))
    refs = official.read_file(ref, is_ref=True)
    raw = [json.loads(line) for line in open(ref, encoding="utf-8")]
    def collides(r):
        raw_set = {e for g in r.get("entity_answers") or [] for e in g}
        return len(set(official.normalize(sorted(raw_set)))) < len(raw_set)
    collide = sum(1 for r in raw if r["question_type"] == "ENTITY" and collides(r))
    assert collide >= 20
    assert sum(1 for r in refs.values() if not r["answers"]) >= 5
    assert sum(1 for r in raw if r["question_type"] == "YES_NO" and len(r["answers"]) >= 2) >= 20


def test_zip_contest_files_equal_the_official_driver(tmp_path):
    import zipfile
    pred, ref = make_contest(4, 300, str(tmp_path))
    zipped = []
    for path in (pred, ref):
        z = path + ".zip"
        with zipfile.ZipFile(z, "w") as zf:
            zf.write(path, os.path.basename(path))
        zipped.append(z)
    want = official.evaluate(*zipped, 0.5, 2.0)
    assert want == official.evaluate(pred, ref, 0.5, 2.0)
    assert run_cli(*zipped, tmp_path, 0.5, 2.0) == want


def test_word_tokens_deduplicate_entities_by_token_tuple(tmp_path):
    """The same rule for every tokenizer: entities that give the same tokens count once."""
    ref = tmp_path / "ref.jsonl"
    pred = tmp_path / "pred.jsonl"
    ref.write_text(json.dumps({"question_id": "q", "question_type": "ENTITY", "answers": ["new york city"],
                               "entity_answers": [["new york", "new  york", " new york "], ["york"]],
                               "source": "search"}) + "\n", encoding="utf-8")
    pred.write_text(json.dumps({"question_id": "q", "answers": ["in new york"]}) + "\n", encoding="utf-8")
    per = tmp_path / "per.jsonl"
    p = subprocess.run([sys.executable, "-m", "paddle_rougel", "dureader", "--pred_file", str(pred),
                        "--ref_file", str(ref), "--tokenize", "whitespace", "--normalize", "none",
                        "--per-instance", str(per)], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    row = json.loads(per.read_text(encoding="utf-8"))
    assert row["bonus"] == 3.0  # ("new", "york") once: 2 tokens, plus ("york",): 1
    # LCS 2 + bonus 3: P = 5 / (3 + 3), R = 5 / (3 + 3)
    assert row["precision"] == row["recall"] == 5 / 6


@pytest.mark.parametrize("pred", ["pred.jsonl", "pred_b.jsonl"])
def test_shipped_examples_equal_the_official_driver(tmp_path, pred):
    examples = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "examples", "dureader")
    want = official.evaluate(os.path.join(examples, pred), os.path.join(examples, "ref.jsonl"))
    assert want[0] == {"pred.jsonl": {"ROUGE-L": 56.38, "BLEU-4": 36.44},
                       "pred_b.jsonl": {"ROUGE-L": 84.59, "BLEU-4": 70.19}}[pred]
    assert run_cli(os.path.join(examples, pred), os.path.join(examples, "ref.jsonl"), tmp_path, 1.0, 1.0) == want
