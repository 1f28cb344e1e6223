"""Which base class the metrics get: ``paddle.metric.Metric``, or a stand-in.

The command line scores text files and never needs Paddle, whose import is
about 1 s (half of scoring a 20,000-question contest).  ``cli.py`` sets
``HOST_ONLY`` before it imports the metric modules; the metrics then derive
from :class:`HostMetric`.  In every other process (and whenever paddle is
already imported) they are ``paddle.metric.Metric`` subclasses, as
``paddle.Model.prepare`` requires.
"""
import sys

HOST_ONLY = False


class HostMetric:
    """Stand-in for ``paddle.metric.Metric`` in host-only processes (the CLI)."""

    def compute(self, *args):
        return args


def metric_base() -> type:
    if HOST_ONLY and "paddle" not in sys.modules:
        return HostMetric
    import paddle

    return paddle.metric.Metric
