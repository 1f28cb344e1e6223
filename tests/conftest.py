"""Shared fixtures: every LCS engine variant, with the backend restored after use."""
from __future__ import annotations

import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))  # tests/oracle.py importable as `oracle`

from paddle_rougel import engine  # noqa: E402

ENGINES = [("c", 1), ("c", 2), ("python", None)]


@pytest.fixture
def python_backend():
    """Run the test body on the pure-Python engine; restore the backend afterwards."""
    old = engine.backend()
    engine.set_backend("python")
    try:
        yield
    finally:
        engine.set_backend(old)


@pytest.fixture(params=ENGINES, ids=["c-threads1", "c-threads2", "python"])
def lcs_engine(request):
    """A callable ``run(cands, ref_lists) -> LcsResult`` for one engine variant."""
    name, threads = request.param
    old = engine.backend()
    assert old == "c", "the C kernel must be built for these tests (pip install -e .)"
    engine.set_backend(name)
    try:
        yield lambda cands, refs: engine.lcs_batch(cands, refs, threads=threads)
    finally:
        engine.set_backend(old)
