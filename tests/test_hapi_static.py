"""Static-graph hapi (``paddle.enable_static()``, ``InputSpec`` inputs): fit, evaluate and
with every metric class that takes network output, with the dygraph numbers; the
text-only metrics are refused in one line at ``prepare``.  Each run is a process of its own."""
import json
import os
import subprocess
import sys

import pytest

WORKER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "static_hapi_worker.py")


def _run(*args) -> dict:
    p = subprocess.run([sys.executable, WORKER, *args], capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr[-3000:]
    return json.loads(p.stdout.strip().splitlines()[-1])


def test_static_graph_equals_dygraph(tmp_path):
    static = _run("static", str(tmp_path))
    dygraph = _run("dygraph", str(tmp_path))
    names = ["rl", "rl_vocab", "rl_compat", "rl_dureader", "r1", "r2_vocab"]
    for name in names:
        assert 0.0 < static[name] < 1.0
        assert static[name] == dygraph[name], name
    assert static["rl"] != static["rl_vocab"]  # the vocab (duplicate tokens) and gamma count
    for name in ("r1", "r2_vocab"):  # RougeN: the number of add_batch on the predicted ids
        assert static[name] == pytest.approx(dygraph["host"][name], rel=1e-12), name
    assert static["r1"] != static["r2_vocab"]


@pytest.mark.parametrize("metric", ["RougeLsum", "BLEUForDuReader"])
def test_text_only_metrics_are_refused_at_prepare(metric):
    err = _run("refuse", metric)["error"]
    assert err is not None and err.startswith(f"{metric} scores text") and "\n" not in err
