"""``BLEUForDuReader``: moved to :mod:`paddle_rougel.metrics.bleu` (this name is kept for old
imports)."""
from .metrics.bleu import BLEUForDuReader  # noqa: F401

__all__ = ["BLEUForDuReader"]
