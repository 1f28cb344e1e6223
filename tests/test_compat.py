"""The old module paths (before issue 33's layered layout) still import, as deprecated aliases that
read and write through to the modules' new homes (paddle_rougel/compat.py)."""
import importlib
import json
import pathlib
import subprocess
import sys
import warnings

import pytest

from paddle_rougel import compat

ROOT = pathlib.Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("old", sorted(compat.MODULES))
def test_every_old_path_reads_its_new_module(old):
    new = importlib.import_module(f"paddle_rougel.{compat.MODULES[old]}")
    alias = importlib.import_module(f"paddle_rougel.{old}")
    names = getattr(new, "__all__", [n for n in vars(new) if not n.startswith("_")])
    assert names
    for name in names:
        assert getattr(alias, name) is getattr(new, name), (old, name)


def test_an_old_path_warns_once_naming_the_new_one_and_dask_does_not():
    code = ("import warnings, sys; warnings.simplefilter('always');\n"
            "with warnings.catch_warnings(record=True) as w:\n"
            "    import paddle_rougel.lsum, paddle_rougel.dask\n"
            "print([str(x.message) for x in w if x.category is DeprecationWarning])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "['paddle_rougel.lsum moved to paddle_rougel.engine.lsum: import it from there']"


def test_writing_through_an_old_path_patches_the_real_module(monkeypatch):
    from paddle_rougel.engine import lsum

    old = importlib.import_module("paddle_rougel.lsum")
    before = lsum.SCRATCH_BYTES
    with monkeypatch.context() as mp:
        mp.setattr(old, "SCRATCH_BYTES", 12345)
        assert lsum.SCRATCH_BYTES == 12345
    # undone through the alias: the real module has its value back (pytest >= 8.4 reads the old
    # value from vars(alias); it once found none there and deleted the real module's name)
    assert lsum.SCRATCH_BYTES == before


def test_the_names_that_moved_out_of_a_module():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        from paddle_rougel.accumulators import RougeLAccumulator, from_state
        from paddle_rougel.metric import RougeL
        from paddle_rougel.settings import OPTIONS, SETTINGS, RougeLSettings
    from paddle_rougel import metrics
    from paddle_rougel.metrics import rouge_l

    assert (RougeLAccumulator, RougeLSettings, RougeL) == (rouge_l.RougeLAccumulator, rouge_l.RougeLSettings,
                                                           rouge_l.RougeL)
    assert (OPTIONS, SETTINGS, from_state) == (metrics.OPTIONS, metrics.SETTINGS, metrics.from_state)


def test_the_moved_modules_map_resolves():
    """scripts/moved_modules.json (for rewriting imports): every target imports."""
    moved = json.loads((ROOT / "scripts" / "moved_modules.json").read_text(encoding="utf-8"))
    for old, new in moved.items():
        if old.startswith("_"):
            continue
        mod, _, name = new.partition(":")
        target = importlib.import_module(mod)
        if name:
            assert hasattr(target, name), (old, new)
