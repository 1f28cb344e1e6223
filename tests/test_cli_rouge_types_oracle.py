"""`score --rouge-types rouge1,rouge2,rougeL,rougeLsum` on the shipped English summaries equals
rouge-score 0.1.2's four figures (its tokenizer, F1; ``<n>`` read as a newline for every type of
every run), per line and as means: the oracle is rouge-score itself."""
from __future__ import annotations

import json
import pathlib

from rouge_score import rouge_scorer

from paddle_rougel.cli import main

ROOT = pathlib.Path(__file__).resolve().parents[1]
HYP, REF = ROOT / "examples" / "text" / "hyp.txt", ROOT / "examples" / "text" / "ref.txt"
TYPES = ["rouge1", "rouge2", "rougeL", "rougeLsum"]
LABEL = {"rouge1": "ROUGE-1", "rouge2": "ROUGE-2", "rougeL": "ROUGE-L", "rougeLsum": "ROUGE-Lsum"}


def _lines(p):
    return [ln.replace("<n>", "\n") for ln in p.read_text(encoding="utf-8").splitlines()]


def test_four_types_equal_rouge_score(capsys, tmp_path):
    rows = tmp_path / "rows.jsonl"
    rc = main(["score", "--hyp", str(HYP), "--ref", str(REF), "--tokenize", "rouge_score", "--gamma", "1",
               "--rouge-types", ",".join(TYPES), "--per-instance", str(rows)])
    out = json.loads(capsys.readouterr().out)
    assert rc == 0 and list(out)[:3] == ["ROUGE-1", "ROUGE-1-P", "ROUGE-1-R"]
    scorer = rouge_scorer.RougeScorer(TYPES)
    want = [scorer.score(r, h) for h, r in zip(_lines(HYP), _lines(REF))]
    got = [json.loads(line) for line in rows.read_text().splitlines()]
    assert len(got) == len(want) == 5
    for t in TYPES:
        for g, w in zip(got, want):
            assert abs(g[LABEL[t]] - w[t].fmeasure) < 1e-12, (t, g, w[t])
            assert abs(g[LABEL[t] + "-P"] - w[t].precision) < 1e-12
            assert abs(g[LABEL[t] + "-R"] - w[t].recall) < 1e-12
        mean = sum(w[t].fmeasure for w in want) / len(want)
        assert out[LABEL[t]] == round(mean * 100, 2)


def test_rouge_l_alone_reads_n_markers_as_the_run_with_rougelsum(capsys):
    """One reading of ``<n>`` for every type of any run (issue 32 item 2: ROUGE-L alone used to score
    it as text, the token "n" on both sides of line 1)."""
    main(["score", "--hyp", str(HYP), "--ref", str(REF), "--tokenize", "rouge_score", "--gamma", "1"])
    alone = json.loads(capsys.readouterr().out)["ROUGE-L"]
    main(["score", "--hyp", str(HYP), "--ref", str(REF), "--tokenize", "rouge_score", "--gamma", "1",
          "--rouge-types", "rougeL,rougeLsum"])
    with_lsum = json.loads(capsys.readouterr().out)["ROUGE-L"]
    assert alone == with_lsum == 53.77
