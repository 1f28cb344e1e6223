"""The statistics layer (imports the engine and the core, no metric): intervals and tests over
columns (:mod:`.intervals`; a metric's statistic, BLEU's included, is passed in) and the
corpus aggregates (:mod:`.aggregate`).  The public names of :mod:`.intervals` are re-exported
here, so ``paddle_rougel.stats.paired_bootstrap`` keeps working."""
from .intervals import *  # noqa: F401,F403
from .intervals import __all__  # noqa: F401
