"""``python -m paddle_rougel``: the command line (:func:`paddle_rougel.cli.run`, also the
``paddle-rougel`` console script)."""
import sys

from .cli import run

if __name__ == "__main__":
    sys.exit(run())
