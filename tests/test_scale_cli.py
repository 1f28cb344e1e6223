"""``paddle-rougel dedup`` / ``join`` over text and JSONL files: the library's results, the input's ids."""
from __future__ import annotations

import json

import pytest

from paddle_rougel import deduplicate, similarity_join
from paddle_rougel.cli import main

TEXTS = ["Write a poem about the sea.", "write a poem about the sea!", "Explain how to cook rice",
         "", "explain how to cook rice quickly", "List three reasons why cats sleep"]


def _rows(capsys):
    return [json.loads(s) for s in capsys.readouterr().out.splitlines()]


def test_dedup_text_and_jsonl_keep_ids(tmp_path, capsys):
    txt = tmp_path / "items.txt"
    txt.write_text("\n".join(TEXTS) + "\n", encoding="utf-8")
    want = deduplicate(TEXTS, (), 0.7, tokenize="rouge_score", best="exact")
    assert main(["dedup", str(txt), "--tokenize", "rouge_score", "--best", "exact"]) == 0
    rows = _rows(capsys)
    assert [r["id"] for r in rows] == [i + 1 for i in want.kept.tolist()]  # line numbers
    assert [r["best"] for r in rows] == want.best[want.kept].tolist()
    assert main(["dedup", str(txt), "--tokenize", "rouge_score", "--all"]) == 0  # default: best="dropped"
    rows = _rows(capsys)
    assert [r["best"] for r in rows] == [None if i in want.kept else want.best[i] for i in range(len(TEXTS))]
    js = tmp_path / "items.jsonl"
    js.write_text("\n".join(json.dumps({"uid": f"q{i}", "instruction": t}) for i, t in enumerate(TEXTS)) + "\n",
                  encoding="utf-8")
    assert main(["dedup", str(js), "--tokenize", "rouge_score", "--field", "instruction", "--id-field", "uid",
                 "--all"]) == 0
    rows = _rows(capsys)
    assert [r["id"] for r in rows if r["kept"]] == [f"q{i}" for i in want.kept.tolist()]
    assert len(rows) == len(TEXTS)


def test_join_files(tmp_path, capsys):
    left, right = tmp_path / "l.txt", tmp_path / "r.jsonl"
    left.write_text("\n".join(TEXTS), encoding="utf-8")
    right.write_text("\n".join(json.dumps({"id": 100 + i, "text": t}) for i, t in enumerate(TEXTS[:3])),
                     encoding="utf-8")
    want = similarity_join(TEXTS, TEXTS[:3], 0.6, tokenize="rouge_score")
    assert main(["join", str(left), str(right), "--threshold", "0.6", "--tokenize", "rouge_score"]) == 0
    rows = _rows(capsys)
    assert [(r["left"], r["right"], r["f"]) for r in rows] == [
        (a + 1, 100 + b, f) for a, b, f in zip(want.left.tolist(), want.right.tolist(), want.f.tolist())]


def test_bad_files_name_file_and_line(tmp_path, capsys):
    js = tmp_path / "bad.jsonl"
    js.write_text('{"text": "a"}\n{"text": 3}\n', encoding="utf-8")
    assert main(["dedup", str(js)]) == 2
    assert "bad.jsonl, line 2: field 'text' is int" in capsys.readouterr().err
    js.write_text('{"text": "a"}\n{"text": \n', encoding="utf-8")
    assert main(["join", str(js)]) == 2
    assert "bad.jsonl, line 2: not JSON" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        from paddle_rougel.cli.parser import build_parser
        build_parser().parse_args(["dedup", str(js), "--threshold", "inf"])
