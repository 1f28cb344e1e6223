"""``BLEUForDuReader``: the DuReader contest's BLEU with yes/no and entity bonus.

Equal to ``paddlenlp.metrics.BLEUForDuReader`` (itself the contest's
``BLEUWithBonus``): corpus-level modified n-gram precisions for n = 1..n_size
(clipped by the maximum count over the references), uniform weights and the
brevity penalty of the closest reference length (ties -> the shorter).  The
bonuses add matched n-grams to both the match and the candidate counts:

* yes/no (``yn_label`` and ``yn_ref`` given): alpha x the clipped matches of
  the candidate against the references whose label equals ``yn_label``
  (paddlenlp appends ``"_" + label`` to every n-gram, so only equal labels match);
* otherwise entity (``entity_ref`` given): beta x the clipped matches of the
  candidate against the entity strings.

Counting: the C kernel keeps a hash table of the candidate's k-grams and
streams every reference through it, so one pass per order gives the clipped
matches against all references and, for the yes/no bonus, against the
same-label references (listed first) at once.  A position whose k-gram
matched nothing is skipped for k + 1 (no longer gram can match there).

Example (paddlenlp's numbers):
    >>> from paddle_rougel import BLEUForDuReader
    >>> bleu = BLEUForDuReader()
    >>> bleu.add_inst("今天天气很好", ["今天天气不错", "天气很好"], yn_label="Yes", yn_ref=["Yes", "No"])
    >>> round(bleu.score(), 12)
    0.930604859102
"""
from __future__ import annotations

from typing import Any, Optional, Sequence

from .accumulators import BleuAccumulator
from .metric import PaddleMetric, reject_unknown
from .settings import BleuSettings
from .text import TextSettings

__all__ = ["BLEUForDuReader"]


class BLEUForDuReader(PaddleMetric):
    """BLEU-n with the DuReader yes/no and entity bonus (``paddlenlp.metrics.BLEUForDuReader``).

    Args:
        n_size: the largest n-gram order (BLEU-n_size, uniform weights), 1 to 32. Default 4.
            (paddlenlp's ``BLEUForDuReader`` always uses 4: its ``__init__``
            passes n_size positionally into ``trans_func``.)
        alpha: weight of the yes/no bonus (``yesno_weight``). Default 1.0.
        beta: weight of the entity bonus (``entity_weight``). Default 1.0.
        name: metric name. Default ``"bleu"``.
        sync_dist: all-reduce the counts over ``paddle.distributed`` in ``score()``.
        tokenize, normalize, lowercase, stem: text settings (:mod:`paddle_rougel.text`).
        keep_instances: keep per-instance counts (needed by ``confidence_interval`` and
            ``compare``; corpus BLEU is recomputed from resampled counts).

    ``score()`` is a float, as paddlenlp's (0.0 when no candidate token was
    seen, where paddlenlp divides by zero).  State: per-order match and
    candidate n-gram counts and the brevity-penalty lengths, float64 sums, so
    ``merge`` / ``state_dict`` give exactly the single-run figures.
    """

    def __init__(self, n_size: int = 4, alpha: float = 1.0, beta: float = 1.0,
                 name: str = "bleu", sync_dist: bool = False, tokenize: Any = "char",
                 normalize: str = "none", lowercase: Optional[bool] = None, stem: bool = False,
                 keep_instances: bool = False, **kwargs):
        reject_unknown(kwargs, BLEUForDuReader.__init__)
        settings = BleuSettings(n_size=n_size, yesno_weight=alpha, entity_weight=beta,
                                text=TextSettings(tokenize, normalize, lowercase, stem))
        super().__init__(BleuAccumulator(settings, keep_instances), name, sync_dist)

    n_size = property(lambda self: self._acc.settings.n_size)
    alpha = yesno_weight = property(lambda self: self._acc.settings.yesno_weight)
    beta = entity_weight = property(lambda self: self._acc.settings.entity_weight)
    weights = property(lambda self: [1 / self.n_size] * self.n_size)

    def add_inst(self, cand: Any, ref_list: Sequence, yn_label: Any = None,
                 yn_ref: Optional[Sequence] = None, entity_ref: Any = None) -> None:
        """Add one candidate with its references and optional bonus information.

        Args:
            cand: the candidate (str: characters are tokens; or a token sequence).
            ref_list: non-empty list of references.
            yn_label: the candidate's yes/no label (e.g. ``"Yes"``).
            yn_ref: one label per reference; with ``yn_label``, selects the yes/no bonus.
            entity_ref: entities (strings) for the entity bonus (used when the
                yes/no bonus does not apply).
        """
        self._acc.add(self._acc.instance(cand, ref_list, yn_label, yn_ref, entity_ref))

    def add_batch(self, cands: Sequence, ref_lists: Sequence, yn_labels: Optional[Sequence] = None,
                  yn_refs: Optional[Sequence] = None, entity_refs: Optional[Sequence] = None) -> None:
        """Add many instances at once (the fast path; same result as add_inst in a loop).

        The optional lists hold one item (or None) per instance.  All
        instances are validated before any is counted.

        >>> m = BLEUForDuReader(n_size=2)
        >>> m.add_batch(["ab", "cd"], [["ab"], ["cx", "d"]])
        >>> round(m.score(), 6)
        0.707107
        """
        self._acc.add_now(self._acc.batch(cands, ref_lists, yn_labels, yn_refs, entity_refs))

    def update(self, *args, **kwargs):
        raise NotImplementedError("BLEUForDuReader takes text: use add_inst or add_batch")
