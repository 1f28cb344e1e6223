"""``RougeLForDuReader``: moved to :mod:`paddle_rougel.metrics.dureader_rouge_l` (this name is kept
for old imports)."""
from .metrics.dureader_rouge_l import RougeLForDuReader  # noqa: F401

__all__ = ["RougeLForDuReader"]
