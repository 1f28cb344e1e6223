"""Distributed evaluation over paddle.distributed (gloo on CPU), two real ranks."""
import json
import os
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))


def _launch(script, tmp_path, *args, timeout=240, terminal=None):
    log_dir = tmp_path / "log"
    cmd = [sys.executable, "-m", "paddle.distributed.launch", "--nproc_per_node", "2",
           "--log_dir", str(log_dir), script, *args]
    proc = subprocess.run(cmd, cwd=str(tmp_path), capture_output=True, text=True,
                          timeout=timeout)
    if terminal is not None:
        terminal.append(proc.stdout + proc.stderr)
    if proc.returncode != 0:
        logs = ""
        if log_dir.exists():
            for p in sorted(log_dir.iterdir()):
                logs += f"\n--- {p.name}\n" + p.read_text(errors="replace")[-3000:]
        raise AssertionError(f"launch failed ({proc.returncode}):\n{proc.stdout[-2000:]}\n"
                             f"{proc.stderr[-2000:]}{logs}")
    return log_dir


@pytest.fixture(scope="module")
def ranks(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("dist")
    _launch(os.path.join(HERE, "dist_worker.py"), tmp, str(tmp))
    return [json.loads((tmp / f"rank{r}.json").read_text()) for r in range(2)]


def test_two_ranks_ran(ranks):
    assert [r["rank"] for r in ranks] == [0, 1]
    assert all(r["world"] == 2 for r in ranks)


def test_every_metric_is_covered(ranks):
    names = {k.split("/", 1)[1] for k in ranks[0]["cases"]}
    assert names == {"rougel_max_pr", "rougel_best_g1", "rougel_dureader", "bleu_dureader", "rouge2",
                     "rouge1_distinct_best"}


def test_confidence_intervals_gather_every_rank(ranks):
    """keep_instances + sync_dist: the interval over all ranks is the single-process one."""
    checked = 0
    for r in ranks:
        for key, c in r["cases"].items():
            if c["ci"] is not None:
                assert c["ci"][0] == c["ci"][1], (r["rank"], key, c["ci"])
                checked += 1
    assert checked == 2 * 2 * 3  # two ranks, two shardings, three metrics that keep instances


def test_every_rank_returns_the_single_process_score(ranks):
    for r in ranks:
        for key, c in r["cases"].items():
            assert abs(c["global"] - c["single"]) <= 1e-12, (r["rank"], key, c)
            # reading the score twice syncs twice but never double counts
            assert c["again"] == c["global"], (r["rank"], key, c)


def test_sync_does_not_modify_local_state(ranks):
    for r in ranks:
        for key, c in r["cases"].items():
            if c["count_after"] >= 0:
                assert c["count_after"] == c["local_count"], (r["rank"], key, c)


def test_shards_really_differ(ranks):
    # rank 1's own shard scores differently: the equality above is due to the sync
    for key, c in ranks[1]["cases"].items():
        if key.startswith("uneven/"):
            assert abs(c["local"] - c["single"]) > 1e-6, (key, c)
        if key.startswith("empty_rank/"):
            assert c["local"] == 0.0 and c["local_count"] == 0, (key, c)


def test_sync_is_a_noop_in_one_process():
    from paddle_rougel import RougeL

    a, b = RougeL(sync_dist=True), RougeL()
    for m in (a, b):
        m.add_inst("今天天气很好", ["今天天气不错", "天气很好"])
        m.add_inst("abc", ["abd"])
    assert a.accumulate() == b.accumulate()
    assert a.scores() == b.scores()


def test_readme_example_runs_on_two_ranks(tmp_path):
    """examples/distributed_eval.py (the README's example): both ranks print the global figure."""
    import re

    script = os.path.join(os.path.dirname(HERE), "examples", "distributed_eval.py")
    single = subprocess.run([sys.executable, script], capture_output=True, text=True, check=True)
    want = re.search(r"rouge-l = ([0-9.]+)", single.stdout).group(1)
    terminal = []
    log_dir = _launch(script, tmp_path, terminal=terminal)
    got = {}
    for p in log_dir.glob("workerlog.*"):
        m = re.search(r"rank (\d)/2: rouge-l = ([0-9.]+) over (\d) local", p.read_text())
        assert m, p.read_text()[-2000:]
        got[int(m.group(1))] = (m.group(2), int(m.group(3)))
    assert got == {0: (want, 3), 1: (want, 2)}
    # what docs/distributed.md and the example's docstring say: the launcher shows rank 0 only,
    # rank 1's line is in workerlog.1
    assert re.search(r"rank 0/2: rouge-l = ", terminal[0]) and "rank 1/2" not in terminal[0]
    readme = open(os.path.join(os.path.dirname(HERE), "docs", "distributed.md"), encoding="utf-8").read()
    for text in (readme, open(script, encoding="utf-8").read()):
        block = text[text.index("examples/distributed_eval.py"):]
        line1 = next(ln for ln in block.splitlines() if "rank 1/2: rouge-l" in ln)
        assert "workerlog.1" in line1 or "workerlog.1" in block[block.index(line1):][:200], line1


@pytest.mark.parametrize("n_eval", [96, 97])  # 97: the sampler pads one rank's shard
def test_hapi_evaluate_on_two_ranks_reports_the_global_score(tmp_path, n_eval):
    """Under hapi keep sync_dist=False: hapi all-gathers before compute, every rank sees all data."""
    _launch(os.path.join(HERE, "dist_hapi_worker.py"), tmp_path, str(tmp_path), str(n_eval))
    for r in range(2):
        res = json.loads((tmp_path / f"hapi_rank{r}.json").read_text())
        assert 0.0 < res["host"] < 1.0
        assert abs(res["hapi"] - res["host"]) <= 1e-12, (r, res)
