"""The command line process and its standard streams and signals.

* **Diagnostics never go to stdout.**  :func:`diag` writes one line to stderr,
  or nowhere when stderr is closed (``2>&-``: Python's ``sys.stderr`` is then
  None, and ``print(file=None)`` would fall back to stdout).  A process
  started with fd 0 or 2 closed gets ``/dev/null`` there (:func:`fill_std_fds`)
  so that no file opened later takes that number (a C library message would
  land in it).
* **A reader that goes away** (``| head -1``: ``EPIPE``; Python ignores SIGPIPE)
  ends that stream quietly: :func:`stdout_gone` points fd 1 at ``/dev/null`` so
  that nothing later (the interpreter's final flush included) fails again.
* **Signals.**  :func:`install` turns SIGINT, SIGTERM and SIGHUP into
  :class:`Interrupted` (a ``KeyboardInterrupt``; ``status`` is 128 + the signal
  number) so that ``finally`` blocks run and temp files are removed; a signal
  ignored when the process started stays ignored.  :func:`deferred` holds a
  signal back over a short critical section (a temp file's creation and
  registration): it is raised when the section ends.  :func:`hold` starts the
  end of the run (the renames that commit the outputs, then printing the
  score): a signal from then on is held back and dropped by :func:`finish`,
  so a run whose outputs are committed exits with the status of what was done.
  A second signal while one is held back is raised at once (an escape from a
  write that blocks).  :func:`stop` makes further signals no-ops while the
  process cleans up after an error and exits.  Both then ignore the signals:
  at interpreter exit Python would put back their default action (death).
"""
from __future__ import annotations

import contextlib
import os
import signal
import sys
from typing import Iterator, Optional

__all__ = ["Interrupted", "diag", "fill_std_fds", "printable", "stdout_gone", "install", "deferred", "hold",
           "finish", "stop", "write_fd"]

_SIGNALS = tuple(getattr(signal, n) for n in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, n))


class Interrupted(KeyboardInterrupt):
    """A signal asked the process to stop; ``status`` is the exit status to report."""

    def __init__(self, signum: int):
        super().__init__(signal.Signals(signum).name)
        self.status = 128 + signum


class _State:
    installed = False
    depth = 0                    # nesting of deferred() sections
    held = False                 # hold(): committing and printing, signals held back
    pending: Optional[int] = None
    finished = False             # outputs committed and results printed: signals change nothing
    stopping = False             # cleaning up after an error or a signal: signals change nothing


_S = _State()


def printable(text: str) -> str:
    r"""``text`` safe to show on a terminal, on one line: every character that is not printable
    (ESC, BEL, a newline, a bidi override, a lone surrogate) as its escape (``\x1b``, ``\n``,
    ``\u202e``).  The one home of this rule: error messages, warnings and every human-readable
    output of the command line (tables, ``explain``) show input text through it.

    >>> printable("ok\x1b[2J\x07")
    'ok\\x1b[2J\\x07'
    """
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else c.encode("unicode_escape", "backslashreplace").decode("ascii")
                   for c in text)


def diag(line: str) -> None:
    """One line on stderr; nothing when stderr is closed or broken (never stdout)."""
    stream = sys.stderr
    if stream is None:
        return
    try:
        stream.write(line + "\n")
        stream.flush()
    except BrokenPipeError:
        _to_devnull(2)
    except (OSError, ValueError, AttributeError):
        pass


def _to_devnull(fd: int) -> None:
    try:
        null = os.open(os.devnull, os.O_WRONLY)
        if null != fd:
            os.dup2(null, fd)
            os.close(null)
    except OSError:
        pass


def fill_std_fds() -> None:
    """Put ``/dev/null`` on a closed fd 0 or 2 (fd 1 closed stays closed: the CLI refuses to
    run without a stdout, the score would vanish)."""
    for fd, flags in ((0, os.O_RDONLY), (2, os.O_WRONLY)):
        try:
            os.fstat(fd)
        except OSError:
            try:
                null = os.open(os.devnull, flags)
            except OSError:
                continue
            if null != fd:
                os.dup2(null, fd)
                os.close(null)


def stdout_gone() -> None:
    """stdout's reader went away: point fd 1 at /dev/null so no later flush fails again."""
    try:
        fd = sys.stdout.fileno()
    except (OSError, ValueError, AttributeError):  # in-process callers: no real fd
        return
    _to_devnull(fd)


def write_fd(fd: int, data: bytes) -> None:
    """All of ``data`` to an open file descriptor (a short write is continued)."""
    view = memoryview(data)
    while view:
        n = os.write(fd, view)
        view = view[n:]


# ------------------------------------------------------------------ signals

def _handler(signum, frame) -> None:
    if _S.finished or _S.stopping:
        return
    if (_S.depth or _S.held) and _S.pending is None:
        _S.pending = signum
        return
    raise Interrupted(signum)


def install() -> None:
    """Raise :class:`Interrupted` on SIGINT / SIGTERM / SIGHUP (the process entry point only)."""
    for sig in _SIGNALS:
        try:
            if signal.getsignal(sig) in (signal.SIG_DFL, signal.default_int_handler):
                signal.signal(sig, _handler)
        except (OSError, ValueError):  # not the main thread
            continue
    _S.installed = True


def _ignore() -> None:
    """Ignore the signals from now on: at interpreter exit Python puts SIG_DFL back in place of
    a Python handler (a late SIGTERM would then kill the process), but leaves SIG_IGN."""
    for sig in _SIGNALS:
        try:
            if signal.getsignal(sig) is _handler:
                signal.signal(sig, signal.SIG_IGN)
        except (OSError, ValueError):
            continue


@contextlib.contextmanager
def deferred() -> Iterator[None]:
    """Hold a signal back until the section ends (see the module doc)."""
    _S.depth += 1
    try:
        yield
    finally:
        _S.depth -= 1
        if not _S.depth and _S.pending is not None:
            signum, _S.pending = _S.pending, None
            if _S.held:  # the end of the run has begun: finish() drops it
                _S.pending = signum
            elif not (_S.finished or _S.stopping):
                raise Interrupted(signum)


def hold() -> None:
    """The run is committing its outputs and printing: hold signals back until :func:`finish`."""
    if _S.installed:
        _S.held = True


def finish() -> None:
    """Everything is committed and printed: a held-back signal, or any later one, changes nothing."""
    if _S.installed:
        _S.finished = True
        _ignore()
    _S.held, _S.pending = False, None


def stop() -> None:
    """Cleaning up before exit: further signals change nothing."""
    if _S.installed:
        _S.stopping = True
        _ignore()
    _S.held, _S.pending = False, None
