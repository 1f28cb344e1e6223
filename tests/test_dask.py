"""paddle_rougel.dask on a real LocalCluster of two worker processes (never a mock): the same
arrays, bit for bit, as the in-process similarity_join and deduplicate; a worker killed
mid-run either recovers (Dask re-runs its tasks) or fails with an error, never a partial
result."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time

import numpy as np
import pytest

import paddle_rougel.api.dask as prd
from paddle_rougel import deduplicate, similarity_join
from scale_data import near_dups


from dask import bag as db  # noqa: E402
from distributed import Client, LocalCluster  # noqa: E402


@pytest.fixture(scope="module")
def client():
    cluster = LocalCluster(n_workers=2, processes=True, threads_per_worker=1, dashboard_address=None)
    c = Client(cluster)
    try:
        assert len(c.scheduler_info()["workers"]) == 2
        yield c
    finally:
        c.close()
        cluster.close()


def _same_join(a, b):
    assert a.left.tolist() == b.left.tolist() and a.right.tolist() == b.right.tolist()
    assert np.array_equal(a.f, b.f)


@pytest.mark.parametrize("alpha", [None, 0.3, -1.0])
def test_join_and_dedup_equal_in_process(client, alpha):
    items, pool = near_dups(11, 40, 3), near_dups(12, 8, 2)
    for t in (0.5, 0.7, 0.9, 0.0, -0.2):
        for right in (None, pool):
            _same_join(prd.similarity_join(items, right, t, alpha=alpha, partitions=5),
                       similarity_join(items, right, t, alpha=alpha))
        for best in ("exact", "dropped"):
            want = deduplicate(items, pool, t, alpha, best=best)
            got = prd.deduplicate(items, pool, t, alpha, best=best, partitions=7)
            assert got.kept.tolist() == want.kept.tolist(), (t, best)
            assert np.array_equal(got.best, want.best, equal_nan=True), (t, best)


def test_bags_and_text_settings(client):
    texts = ["Write a poem about the sea.", "write a poem about the sea!", "Explain how to cook rice",
             "explain how to cook rice quickly", "List three reasons why cats sleep"] * 3
    bag = db.from_sequence(texts, npartitions=3)
    want = deduplicate(texts, (), 0.7, tokenize="rouge_score")
    got = prd.deduplicate(bag, (), 0.7, tokenize="rouge_score")
    assert got.kept.tolist() == want.kept.tolist() == [0, 2, 4]
    assert np.array_equal(got.best, want.best, equal_nan=True)
    _same_join(prd.similarity_join(bag, threshold=0.6, tokenize="rouge_score"),
               similarity_join(texts, threshold=0.6, tokenize="rouge_score"))


def test_no_client_is_a_clear_error():
    code = ("import paddle_rougel.dask as d\n"
            "try:\n    d.similarity_join(['a'])\nexcept RuntimeError as e:\n    print(e)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120).stdout
    assert "no active dask.distributed Client" in out


def test_a_killed_worker_recovers_or_fails_clearly(client):
    items = near_dups(13, 2500, 3)  # 10,000 items: seconds of tasks
    want = deduplicate(items, (), 0.7)
    pids = list(client.run(os.getpid).values())
    result, error = {}, {}

    def run():
        try:
            result["d"] = prd.deduplicate(items, (), 0.7, partitions=40, client=client)
        except Exception as e:  # noqa: BLE001 - reported below
            error["e"] = e

    th = threading.Thread(target=run)
    th.start()
    deadline = time.monotonic() + 60
    while not any(client.processing().values()) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert th.is_alive()  # killed mid-run: tasks are running
    os.kill(pids[0], signal.SIGKILL)
    th.join(300)
    assert not th.is_alive()
    if "d" in result:
        assert result["d"].kept.tolist() == want.kept.tolist()
        assert np.array_equal(result["d"].best, want.best, equal_nan=True)
    else:
        assert str(error["e"]), error  # a clear error, not a partial result
    client.wait_for_workers(2, timeout=120)
