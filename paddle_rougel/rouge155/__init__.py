"""ROUGE-1.5.5.pl, ported: the script's rules in Python with its quadratic kernels in C.

* :func:`score` (:mod:`.api`): the script on texts in memory, its options by name (``-s``,
  ``-l`` / ``-b``, ``-t 1``, ``-f``, ``-m`` / ``-M``, ...), its averages and intervals;
* :mod:`.porter`, :mod:`.stem`: its Porter stemmer and ``MorphStem`` (``-m``; ``stem="rouge155"``);
* :mod:`.text`: how it reads a summary (SPL / SEE / ISI, ``-l`` / ``-b``, ``-s``, tokens);
* :mod:`.kernels` (and ``paddle_rougel._r155``): its LCS / weighted-LCS masks, n-gram and
  skip-bigram counts;
* :mod:`.evaluate`: one evaluation's ROUGE-N / L / W / S figures, as the script computes them;
* :mod:`.bootstrap`: its averages and intervals (Perl's drand48; ``compute(aggregate="rouge155")``);
* :mod:`.config`, :mod:`.cli`: its command line, config and output (``paddle-rougel rouge155``).
"""

from .api import score

__all__ = ["score"]
