"""``python -m paddle_rougel`` and the ``paddle-rougel`` console script."""
import sys


def run() -> int:
    """Entry point of the command line process (it never imports paddle)."""
    from .cli import main

    return main()


if __name__ == "__main__":
    sys.exit(run())
