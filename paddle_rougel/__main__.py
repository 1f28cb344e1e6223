"""``python -m paddle_rougel`` and the ``paddle-rougel`` console script."""
import sys


def run() -> int:
    """Entry point of the command line process.

    This process only scores files, so the metrics are built without importing
    paddle (about 1 s): see ``_host.py``.  Calling ``cli.main`` from a Python
    program keeps the usual ``paddle.metric.Metric`` classes.
    """
    from . import _host

    _host.HOST_ONLY = True
    from .cli import main

    return main()


if __name__ == "__main__":
    sys.exit(run())
