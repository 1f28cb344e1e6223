"""paddle-rougel: fast exact ROUGE-L for PaddlePaddle.

Public API:

* :class:`RougeL`: ``paddle.metric.Metric``, a drop-in for ``paddlenlp.metrics.RougeL``.
* :class:`RougeLForDuReader` / :class:`BLEUForDuReader`: the DuReader contest metrics (with bonus).
* :func:`rouge_l`: TF-Text compatible functional ROUGE-L (F, P, R per pair).
* :func:`lcs_length` / :func:`lcs_batch`: the exact bit-parallel LCS engine.
* :class:`Score`: ``(precision, recall, fmeasure)``.
* :func:`lcs_device` / :func:`lcs_masked`: the same LCS with Paddle ops on the inputs' place.
* :func:`vocab_table`: id -> canonical id table used by the device path.
"""
__version__ = "0.1.0"

from .convert import vocab_table
from .device import lcs_device, lcs_masked
from .engine import lcs_batch, lcs_length
from .functional import RougeLOutput, rouge_l
from .metric import RougeL
from .bleu import BLEUForDuReader
from .dureader import RougeLForDuReader
from .scoring import Score, alpha_from_gamma, gamma_from_alpha

__all__ = [
    "RougeL",
    "RougeLForDuReader",
    "BLEUForDuReader",
    "rouge_l",
    "RougeLOutput",
    "lcs_length",
    "lcs_batch",
    "lcs_device",
    "lcs_masked",
    "vocab_table",
    "Score",
    "alpha_from_gamma",
    "gamma_from_alpha",
    "__version__",
]
