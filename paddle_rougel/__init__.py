"""paddle-rougel: fast exact ROUGE-L for PaddlePaddle.

Public API:

* :class:`RougeL`: ``paddle.metric.Metric``, a drop-in for ``paddlenlp.metrics.RougeL``.
* :func:`rouge_l`: TF-Text compatible functional ROUGE-L (F, P, R per pair).
* :func:`lcs_length` / :func:`lcs_batch`: the exact bit-parallel LCS engine.
* :class:`Score`: ``(precision, recall, fmeasure)``.
"""
__version__ = "0.1.0"

from .engine import lcs_batch, lcs_length
from .functional import RougeLOutput, rouge_l
from .metric import RougeL
from .scoring import Score, alpha_from_gamma, gamma_from_alpha

__all__ = [
    "RougeL",
    "rouge_l",
    "RougeLOutput",
    "lcs_length",
    "lcs_batch",
    "Score",
    "alpha_from_gamma",
    "gamma_from_alpha",
    "__version__",
]
