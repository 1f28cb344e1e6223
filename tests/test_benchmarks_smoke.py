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


def test_bench_core_quick_exits_zero():
    proc = subprocess.run([sys.executable, os.path.join(BENCH, "bench_core.py"), "--quick"],
                          capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert "All score checks passed." in proc.stdout
    assert "| paddle-rougel RougeL.add_batch |" in proc.stdout
    assert "MISMATCH" not in proc.stdout


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
    proc = subprocess.run([sys.executable, os.path.join(BENCH, "bench_roads.py"), "--quick"],
                          capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert "All score checks passed." in proc.stdout
    for work in ("english", "english-ids", "chinese", "all-pairs", "update"):
        assert f"| {work} |" in proc.stdout
    assert "MISMATCH" not in proc.stdout


def test_bench_rouge_n_quick_exits_zero():
    """ROUGE-1+2 against rouge-score-rs: its P/R/F (and rouge-score's) checked equal to ours."""
    proc = subprocess.run([sys.executable, os.path.join(BENCH, "bench_rouge_n.py"), "--quick"],
                          capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert "All score checks passed." in proc.stdout
    assert "| rouge-score-rs `score_batch` (native, all cores) |" in proc.stdout
    assert "MISMATCH" not in proc.stdout
