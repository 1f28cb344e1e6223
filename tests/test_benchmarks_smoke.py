"""Smoke test: the core benchmark runs end to end (scores cross-checked inside) and exits 0.

No timing assertions: the script is run by path with --quick in a subprocess.
"""
from __future__ import annotations

import importlib.util
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BENCH = os.path.join(ROOT, "benchmarks")


def _quick(script, timeout, *extra):
    """The stdout of ``benchmarks/<script> --quick``, which exited 0 with every score check passed."""
    proc = subprocess.run([sys.executable, os.path.join(BENCH, script), "--quick", *extra],
                          capture_output=True, text=True, timeout=timeout, cwd=ROOT)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert "All score checks passed." in proc.stdout
    assert "MISMATCH" not in proc.stdout
    return proc.stdout


def test_bench_core_quick_exits_zero():
    assert "| paddle-rougel RougeL.add_batch |" in _quick("bench_core.py", 120)


def test_workload_generator_is_seeded_and_shaped():
    spec = importlib.util.spec_from_file_location("dureader_workload_smoke", os.path.join(BENCH, "dureader_workload.py"))
    wl = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(wl)
    a = wl.make_workload(n=300, seed=5)
    assert a == wl.make_workload(n=300, seed=5)
    assert a != wl.make_workload(n=300, seed=6)
    cands, ref_lists = a
    assert len(cands) == len(ref_lists) == 300
    assert all(1 <= len(r) <= 5 for r in ref_lists)
    lens = sorted(len(x) for r in ref_lists for x in r)
    assert lens[-1] <= 600 and 80 <= lens[len(lens) // 2] <= 160
    text = "".join(cands) + "".join(x for r in ref_lists for x in r)
    assert all("\u4e00" <= ch <= "\u9fff" for ch in text)
    assert len(set(text)) > 500 and len(set(text)) < len(text) / 10  # many chars, repeated
    assert wl.cell_count(cands, ref_lists) == sum(len(c) * len(x) for c, r in zip(cands, ref_lists) for x in r)


def test_bench_roads_quick_exits_zero():
    """Every row of issue 21's table runs, its peers' scores checked equal to ours."""
    out = _quick("bench_roads.py", 300)
    for work in ("english", "english-ids", "chinese", "all-pairs", "update"):
        assert f"| {work} |" in out


def test_bench_rouge_n_quick_exits_zero():
    """ROUGE-1+2 against rouge-score-rs: its P/R/F (and rouge-score's) checked equal to ours."""
    assert "| rouge-score-rs `score_batch` (native, all cores) |" in _quick("bench_rouge_n.py", 300)


def test_benchkit_score_verdict_says_each_benchmarks_lines(capsys):
    """benchkit.score_verdict, the end of every benchmark's score checks: the exit code and the
    lines each benchmark prints (bench_roads / bench_rouge_n, bench_core, bench_lsum)."""
    import io

    spec = importlib.util.spec_from_file_location("benchkit_smoke", os.path.join(BENCH, "benchkit.py"))
    kit = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(kit)
    err = io.StringIO()
    assert kit.score_verdict([]) == 0
    assert kit.score_verdict(["a", "b"]) == 1
    assert kit.score_verdict(["a", "b"], "\nSCORE DISAGREEMENT: ", "; ", err, "\nAll score checks passed.") == 1
    assert kit.score_verdict([], "\nSCORE DISAGREEMENT: ", "; ", err, "\nAll score checks passed.") == 0
    assert kit.score_verdict(["c"], "FAILED score checks: ", stream=err, passed=None) == 1
    assert kit.score_verdict([], "FAILED score checks: ", stream=err, passed=None) == 0
    out = capsys.readouterr().out
    assert out == "All score checks passed.\nMISMATCH in: a, b\n\nAll score checks passed.\n"
    assert err.getvalue() == "\nSCORE DISAGREEMENT: a; b\nFAILED score checks: c\n"
    assert kit.max_abs_diff([0.5, 0.25], [0.5, 0.125]) == 0.125
    assert kit.max_abs_diff([], []) == 0.0


def test_bench_scale_quick_exits_zero():
    out = _quick("bench_scale.py", 600)
    assert "| deduplicate(best='dropped') |" in out and "| similarity_join |" in out


def test_bench_scale_chinese_quick_exits_zero():
    out = _quick("bench_scale.py", 600, "--zh")
    assert "| dedup of 2,000" in out and "| join 200 x 2,000" in out
