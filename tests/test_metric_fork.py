"""os.fork() while another thread is inside a metric call (issue 20, finding 8).

A fork copies a lock held by another thread as held, and that thread does not exist
in the child: the child's first call on the inherited metric blocked forever.  The
child must see the metric as of the last completed call, with working locks.  Every
child runs under an alarm and the parent kills it after a deadline, so a regression
fails instead of hanging.
"""
from __future__ import annotations

import os
import signal
import threading
import time

import pytest

from paddle_rougel import RougeL, RougeLsum, RougeN

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="no os.fork on this platform")

DEADLINE = 20.0  # seconds: the child's alarm, and the parent's wait before it kills


def _run_child(body) -> int:
    """Fork; the child runs body() under an alarm and exits with its return code (or 99
    on an exception).  Returns the child's exit code; a child still running at the
    deadline is killed and fails the test."""
    pid = os.fork()
    if pid == 0:  # the child: never return into pytest
        code = 98
        try:
            signal.alarm(int(DEADLINE))
            code = body()
        except BaseException:  # noqa: BLE001 - any failure is a non-zero exit
            import traceback

            traceback.print_exc()
            code = 99
        finally:
            os._exit(code)
    end = time.monotonic() + DEADLINE + 5
    while time.monotonic() < end:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            assert os.WIFEXITED(status), f"child killed by signal {os.WTERMSIG(status)} (hung: alarm)"
            return os.WEXITSTATUS(status)
        time.sleep(0.02)
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
    pytest.fail("the forked child hung on the inherited metric")


def _stuck_in(acc, where):
    """Make the next call through acc's `where` hang (holding the metric's lock) until
    released: returns (entered, release) events."""
    entered, release = threading.Event(), threading.Event()
    if where == "engine":
        orig = acc._score

        def slow_score(batch):
            out = orig(batch)
            entered.set()
            assert release.wait(3 * DEADLINE)
            return out
        acc._score = slow_score
    else:  # between storing the per-instance result and the rest of the commit
        class StuckList(list):
            def append(self, x):
                super().append(x)
                entered.set()
                assert release.wait(3 * DEADLINE)
        acc._local = StuckList(acc._local)
    return entered, release


CASES = {
    "RougeL": (lambda: RougeL(gamma=1.0), ("abcd", ["abce"]), ("xy", ["xy"])),
    "RougeLsum": (lambda: RougeLsum(gamma=1.0), ("ab\ncd", ["ab\nce"]), ("x\ny", ["y\nx"])),
    "RougeN": (lambda: RougeN(n=2, gamma=1.0), ("abcab", ["abce"]), ("xyz", ["xy"])),
}


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("where", ["engine", "commit"])
@pytest.mark.parametrize("call", ["add_batch", "score"])
def test_fork_while_another_thread_holds_the_metric(name, where, call):
    make, first, second = CASES[name]
    m, fresh = make(), make()
    m.add_batch([first[0]], [first[1]])                   # a completed call
    fresh.add_batch([first[0]], [first[1]])
    want_before = fresh.score()                           # the state the child must see
    fresh.add_batch([second[0]], [second[1]])
    want_after = fresh.score()
    if call == "score":  # the stuck call is a read that scores the buffered instance
        m.add_inst(second[0], second[1])
    entered, release = _stuck_in(m.accumulator, where)
    worker = threading.Thread(
        target=(lambda: m.add_batch([second[0]], [second[1]])) if call == "add_batch" else m.score)
    worker.start()
    try:
        assert entered.wait(DEADLINE), "the worker thread never reached the stuck point"

        def child():
            release.set()  # this process's copy: the stuck points no longer wait
            # the state as of the last completed call: for a stuck add_batch, without
            # its instance; for a stuck score, the buffered instance still buffered
            n0 = 1 if call == "add_batch" else 2
            if m.count != n0 or len(m.per_instance().fmeasure) != n0:
                return 2
            if m.score() != (want_before if call == "add_batch" else want_after):
                return 3
            m.add_batch([second[0]], [second[1]])         # the lock works, calls add up
            if m.count != n0 + 1 or len(m.per_instance().fmeasure) != n0 + 1:
                return 4
            return 0
        assert _run_child(child) == 0
    finally:
        release.set()
        worker.join(DEADLINE)
    assert not worker.is_alive()
    # the parent is unaffected: the stuck call completed there
    assert m.count == 2 and m.score() == want_after
    assert len(m.per_instance().fmeasure) == 2


def test_fork_child_of_an_idle_metric_keeps_working():
    m = RougeL(gamma=1.0)
    m.add_inst("abcd", ["abce"])

    def child():
        m.add_inst("xy", ["xy"])
        return 0 if (m.count, m.score()) == (2, 0.875) else 1
    assert _run_child(child) == 0
    assert (m.count, m.score()) == (1, 0.75)
