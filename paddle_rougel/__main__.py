"""``python -m paddle_rougel`` and the ``paddle-rougel`` console script."""
import sys


def run() -> int:
    """Entry point of the command line process (it never imports paddle)."""
    from . import procio

    procio.fill_std_fds()  # before any file is opened: a closed fd 0 / 2 is not reused
    procio.install()       # SIGINT / SIGTERM / SIGHUP: temp files removed, 128 + N
    try:
        from .cli import main

        return main()
    except KeyboardInterrupt as e:  # before main's own handlers (importing) or after them
        return getattr(e, "status", 130)


if __name__ == "__main__":
    sys.exit(run())
