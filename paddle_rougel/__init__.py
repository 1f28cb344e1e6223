"""paddle-rougel: fast exact ROUGE-L for PaddlePaddle.

Public API:

The metrics come from the registry (:mod:`paddle_rougel.metrics`, one module each):

* :class:`RougeL`: ``paddle.metric.Metric``, a drop-in for ``paddlenlp.metrics.RougeL``.
* :class:`RougeLsum`: summary-level ROUGE-L (union LCS over sentences), as rouge-score's ``rougeLsum``.
* :class:`RougeN`: ROUGE-N (``rouge1``, ``rouge2``, any n), clipped n-gram overlap.
* :class:`RougeLForDuReader` / :class:`BLEUForDuReader`: the DuReader contest metrics (with bonus).
* :func:`compute`: one call from texts to a dict of ``rouge1``, ``rouge2``, ``rougeL``,
  ``rougeLsum`` F, P, R (``evaluate``'s keys).
* :func:`compare`: a paired significance test of two systems (``metric.confidence_interval()``
  gives one system's interval); the statistics are in :mod:`paddle_rougel.stats`.
* :func:`rouge_l` / :func:`rouge_lsum`: per-pair F, P, R (TF-Text compatible);
  :func:`rouge_n`: per-pair ROUGE-N as a :class:`Score`.
* :func:`rouge_l_matrix`: every query against every choice; :func:`deduplicate`: the
  Self-Instruct ROUGE-L filter (bounded memory); :func:`similarity_join`: every pair with F
  above a threshold, exactly, without all pairs (:mod:`paddle_rougel.join`).
* :func:`lcs_length` / :func:`lcs_batch`: the exact bit-parallel LCS engine.
* :func:`alignment`: the LCS a score counts, as (candidate, reference) position pairs
  (ROUGE-Lsum: the union hits per reference sentence); :mod:`paddle_rougel.align`.
* :func:`breakdown` / :func:`compare_breakdown`: scores per group of instances, with intervals
  and Holm-adjusted paired tests; :mod:`paddle_rougel.groups`.
* :class:`Score`: ``(precision, recall, fmeasure)``, the result type (TF-Text's names
  ``p_measure``, ``r_measure``, ``f_measure`` read the same fields).
* :class:`TokenizationHint`: the warning when the text settings probably do not fit the text
  (English scored per character, CJK text with a word tokenizer): :mod:`paddle_rougel.hints`.
* :func:`lcs_device` / :func:`lcs_masked`: the same LCS with Paddle ops on the inputs' place.
* :func:`vocab_table`: id -> canonical id table used by the device path.
* :func:`backend`: the host engine in use, ``"c"`` or ``"python"``.
* :func:`trainer_compute_metrics`: a one-line ``compute_metrics`` for the PaddleFormers and
  PaddleNLP ``Trainer`` (also named ``paddleformers_compute_metrics`` / ``paddlenlp_compute_metrics``).

``import paddle_rougel`` does not import paddle: a metric imports it when it is
created (and registers itself as a ``paddle.metric.Metric``), the device path on
first use (PaddlePaddle is not a hard dependency: install ``paddlepaddle`` or
``paddlepaddle-gpu``).
"""
from .core.version import __version__
from . import compat

compat.install()  # the old module paths (paddle_rougel.lsum, ...): deprecated aliases

from .api.align import alignment
from .engine.convert import vocab_table
from .engine.host import backend, lcs_batch, lcs_length
from .api.functional import RougeLOutput, compare, compute
from .api.groups import breakdown, compare_breakdown
from .core.hints import TokenizationHint
from .api.join import Join, similarity_join
from .api.matrix import Dedup, deduplicate, rouge_l_matrix
from .core.scoring import Score, alpha_from_gamma, gamma_from_alpha
from .core.text import TokenizerError
from .metrics import METRICS

# every metric's Paddle class and functional call, by its registry name
_METRIC_NAMES = []
for _spec in METRICS.values():
    for _obj in (_spec.paddle_class, _spec.functional):
        if _obj is not None:
            globals()[_obj.__name__] = _obj
            _METRIC_NAMES.append(_obj.__name__)
del _spec, _obj

# The device path imports paddle (about 1 s): loaded on first use, so that
# `import paddle_rougel` and the command line stay fast.
_LAZY = {
    "lcs_device": "engine.device",
    "lcs_masked": "engine.device",
    "trainer_compute_metrics": "api.integrations",
    "paddleformers_compute_metrics": "api.integrations",
    "paddlenlp_compute_metrics": "api.integrations",
}


def __getattr__(name):
    if name in _LAZY:
        import importlib

        value = getattr(importlib.import_module(f".{_LAZY[name]}", __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_LAZY))


__all__ = _METRIC_NAMES + [
    "rouge_l_matrix",
    "deduplicate",
    "similarity_join",
    "Dedup",
    "Join",
    "compute",
    "compare",
    "alignment",
    "breakdown",
    "compare_breakdown",
    "RougeLOutput",
    "lcs_length",
    "lcs_batch",
    "lcs_device",
    "lcs_masked",
    "vocab_table",
    "backend",
    "trainer_compute_metrics",
    "paddleformers_compute_metrics",
    "paddlenlp_compute_metrics",
    "Score",
    "TokenizerError",
    "TokenizationHint",
    "alpha_from_gamma",
    "gamma_from_alpha",
    "__version__",
]
