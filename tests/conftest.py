"""Shared fixtures: every LCS engine variant, with the backend restored after use; copies of
the example contest files (ex)."""
from __future__ import annotations

import contextlib
import os
import shutil
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))  # tests/oracle.py importable as `oracle`

from paddle_rougel.engine import host as engine  # noqa: E402

ENGINES = [("c", 1), ("c", 2), ("python", None)]
EXAMPLES = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "examples", "dureader")


@contextlib.contextmanager
def _on_backend(name, needs_c=True):
    """Run the block on engine ``name``; the backend before it is restored afterwards
    (needs_c: it must be the C one)."""
    old = engine.backend()
    if needs_c:
        assert old == "c", "the C kernel must be built for these tests (pip install -e .)"
    engine.set_backend(name)
    try:
        yield
    finally:
        engine.set_backend(old)


@pytest.fixture
def on_backend():
    """The context manager ``on_backend(name, needs_c=True)`` for a test module's own engine
    fixtures: the block runs on engine ``name``, the backend is restored afterwards."""
    return _on_backend


@pytest.fixture
def python_backend():
    """Run the test body on the pure-Python engine; restore the backend afterwards."""
    with _on_backend("python", needs_c=False):
        yield


@pytest.fixture(params=ENGINES, ids=["c-threads1", "c-threads2", "python"])
def lcs_engine(request):
    """A callable ``run(cands, ref_lists) -> LcsResult`` for one engine variant."""
    name, threads = request.param
    with _on_backend(name):
        yield lambda cands, refs: engine.lcs_batch(cands, refs, threads=threads)


@pytest.fixture
def ex(tmp_path):
    """Copies of the example contest files (examples/dureader) in tmp_path: (pred, ref)."""
    pred, ref = tmp_path / "pred.jsonl", tmp_path / "ref.jsonl"
    shutil.copy(os.path.join(EXAMPLES, "pred.jsonl"), pred)
    shutil.copy(os.path.join(EXAMPLES, "ref.jsonl"), ref)
    return str(pred), str(ref)


def pytest_collection_modifyitems(config, items):
    """Under scripts/sanitize.sh (PADDLE_ROUGEL_SANITIZE=1) the runs that execute no C code are
    deselected, not skipped: a test parametrized on the pure-Python engine (an id part "python")
    or asking for the ``python_backend`` fixture.  The main run has just run them; under ASan they
    only cost time (CI's budget), since the sanitizers watch the C extension."""
    if not os.environ.get("PADDLE_ROUGEL_SANITIZE"):
        return
    keep, drop = [], []
    for item in items:
        spec = getattr(item, "callspec", None)
        python_only = "python_backend" in getattr(item, "fixturenames", ())
        python_only = python_only or (spec is not None and "python" in spec.id.split("-"))
        (drop if python_only else keep).append(item)
    if drop:
        config.hook.pytest_deselected(items=drop)
        items[:] = keep
