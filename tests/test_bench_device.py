"""Smoke test: the device benchmark runs with --quick (no timing assertions)."""
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]


def test_bench_device_quick_runs():
    # by path: site-packages holds an unrelated top-level ``benchmarks`` package
    proc = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "bench_device.py"), "--quick"],
                          capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "| hapi compute + update on CPU tensors" in proc.stdout
    assert "| Paddle-op path forced on CPU" in proc.stdout
    assert "paddlenlp RougeL" in proc.stdout
