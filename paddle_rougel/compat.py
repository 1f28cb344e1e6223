"""The one compatibility module: the package's old module paths (before the layered layout of
issue 33) and the names that moved out of a module, kept importable as deprecated aliases.

``import paddle_rougel.settings`` (or ``from paddle_rougel.lsum import split_sentences``)
still works: the finder below answers an old path with a thin module that reads and writes
through to the module's new home (``paddle_rougel.core.settings``; a test's ``monkeypatch``
of an old path patches the real module), and warns once with a ``DeprecationWarning`` naming
the new path.  New code imports the new paths (docs/layout.md lists them).
"""
from __future__ import annotations

import importlib
import importlib.machinery
import sys
import types
import warnings

_P = "paddle_rougel"

#: old module path -> its home now
MODULES = {
    "scoring": "core.scoring", "settings": "core.settings", "text": "core.text", "lcs_step": "core.lcs_step",
    "invariants": "core.invariants", "hints": "core.hints",
    "backends": "engine.backends", "inputs": "engine.inputs", "ngrams": "engine.ngrams", "lsum": "engine.lsum",
    "device": "engine.device", "convert": "engine.convert", "candidates": "engine.candidates",
    "aggregate": "stats.aggregate",
    "accumulators": "metrics.accumulators", "metric": "metrics.metric", "_paddle": "metrics.distributed",
    "bleu": "metrics.bleu", "dureader": "metrics.dureader_rouge_l",
    "functional": "api.functional", "groups": "api.groups", "align": "api.align", "matrix": "api.matrix",
    "config": "api.config", "integrations": "api.integrations", "join": "api.join", "dedup": "api.dedup",
    "dask": "api.dask",
}
#: old paths the docs still teach (no warning): ``paddle_rougel.dask.similarity_join``
QUIET = frozenset({"dask"})

#: names an old module served that live elsewhere now: old module -> {name: new module}
NAMES = {
    "settings": {"RougeLSettings": "metrics.rouge_l", "RougeLsumSettings": "metrics.rouge_lsum",
                 "RougeNSettings": "metrics.rouge_n", "DuReaderRougeLSettings": "metrics.dureader_rouge_l",
                 "BleuSettings": "metrics.bleu", "rouge_from_options": "metrics.rouge_l",
                 "lsum_from_options": "metrics.rouge_lsum", "dureader_from_options": "metrics.dureader_rouge_l",
                 "BONUS_OPTIONS": "metrics.dureader_rouge_l", "SUMMARY_OPTIONS": "metrics.rouge_lsum",
                 "SETTINGS": "metrics", "OPTIONS": "metrics"},
    "accumulators": {"RougeLAccumulator": "metrics.rouge_l", "RougeLsumAccumulator": "metrics.rouge_lsum",
                     "RougeNAccumulator": "metrics.rouge_n", "DuReaderRougeLAccumulator": "metrics.dureader_rouge_l",
                     "BleuAccumulator": "metrics.bleu", "ACCUMULATORS": "metrics", "from_state": "metrics"},
    "metric": {"RougeL": "metrics.rouge_l", "RougeLsum": "metrics.rouge_lsum", "RougeN": "metrics.rouge_n"},
}


def new_path(old: str) -> str | None:
    """The new dotted path of an old module path (``paddle_rougel.lsum`` ->
    ``paddle_rougel.engine.lsum``), None when it did not move."""
    short = old[len(_P) + 1:] if old.startswith(_P + ".") else None
    return f"{_P}.{MODULES[short]}" if short in MODULES else None


class _Alias(types.ModuleType):
    """An old module path: reads and writes go to the module's new home (and the moved names)."""

    def __init__(self, old: str, target: types.ModuleType, moved: dict):
        super().__init__(old, target.__doc__)
        object.__setattr__(self, "_target", target)
        object.__setattr__(self, "_moved", moved)

    def __getattr__(self, name: str):
        if name in self._moved:
            return getattr(importlib.import_module(f"{_P}.{self._moved[name]}"), name)
        return getattr(self._target, name)

    def __setattr__(self, name: str, value) -> None:
        if name.startswith("__") and name.endswith("__"):
            object.__setattr__(self, name, value)
        else:
            setattr(self._target, name, value)

    def __delattr__(self, name: str) -> None:
        delattr(self._target, name)

    def __dir__(self):
        return sorted(set(dir(self._target)) | set(self._moved))

    @property
    def __dict__(self):  # noqa: D105 - the target's namespace, so that tools reading vars(module)
        """(pytest's ``monkeypatch`` reads the old value there, and restores it through
        ``setattr``) see the real module's names, not the alias's own bookkeeping."""
        return vars(object.__getattribute__(self, "_target"))


class _Loader:
    """A loader (the protocol: importlib.abc is not imported, it costs import time)."""

    def create_module(self, spec):
        new = new_path(spec.name)
        if spec.name.rpartition(".")[2] not in QUIET:
            warnings.warn(f"{spec.name} moved to {new}: import it from there", DeprecationWarning, stacklevel=2)
        return _Alias(spec.name, importlib.import_module(new), NAMES.get(spec.name.rpartition(".")[2], {}))

    def exec_module(self, module) -> None:
        return None


class _Finder:
    """A meta path finder for the old paths only."""

    def find_spec(self, fullname, path=None, target=None):
        if new_path(fullname) is None:
            return None
        return importlib.machinery.ModuleSpec(fullname, _Loader())


def install() -> None:
    """Answer the old module paths (called once by the package face)."""
    if not any(isinstance(f, _Finder) for f in sys.meta_path):
        sys.meta_path.insert(0, _Finder())
