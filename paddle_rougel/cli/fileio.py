"""Writing the command line's output files without ever losing a user's data.

What an output path names decides how it is written:

* ``-``, ``/dev/stdout``, ``/dev/stderr``, ``/dev/fd/N``, ``/proc/self/fd/N``
  (also through symlinks) name a descriptor this process already has open: the
  data is written **in place** to that descriptor, after what it already holds.
  It is never reopened (reopening ``/dev/stdout`` when the shell said
  ``>> log`` would write over the log from its start; ``> out.txt`` would be
  truncated) and never renamed over.  ``-`` is stdout.  ``/dev/stdin``
  (``/dev/fd/0``) is refused: standard input is an input.
* A terminal, FIFO or other character device, given by path, is opened for
  writing (never truncated) and written in place.  A socket cannot be opened:
  an error.  A block device or a directory is refused.
* A regular file (new or existing) is written to a temp file next to it and
  renamed over it (``os.replace``), so a reader never sees half a file.  A
  symlink is followed: its target is replaced, the link stays.  A new file gets
  ``0666 & ~umask``; a replaced file keeps its mode.  (Other hard links to a
  replaced file keep the old contents: the rename gives the path a new inode.)

Refused before any work (:func:`check_distinct`): an output that is an input
(paths compared after resolving symlinks and, for existing files, by identity
``st_dev``/``st_ino``, so a hard link is caught too; standard input counts when
an input is ``-``), an output that is another output, two outputs on one
descriptor, and a file path that is the file stdout or stderr is redirected to
(renaming over it would orphan what is printed there: use ``-``).  A character
device (``/dev/null``, a terminal) may be named twice: writing to one loses
nothing.

All or nothing across outputs: every temp file is written first, then the
in-place outputs, and only then are the temp files renamed into place; if
anything fails before that, nothing has been replaced.  Temp files are removed
on every exit path: errors, and (with :func:`paddle_rougel.cli.procio.install`)
SIGINT / SIGTERM / SIGHUP; from the first rename on, signals are held back
(:func:`paddle_rougel.cli.procio.hold`).  A reader
that goes away (``EPIPE``, ``| head``) ends its stream quietly; the other
outputs are still written.

Errors are :class:`OutputError` naming the user's path, never the temp file.

>>> import os, tempfile
>>> d = tempfile.mkdtemp()
>>> a = os.path.join(d, "a.txt")
>>> write_outputs([(a, "one\\n")])
>>> open(a).read()
'one\\n'
>>> check_distinct([("--ref_file", a)], [("--save-state", a)])  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
paddle_rougel.cli.fileio.OutputError: --save-state .../a.txt is the same file as --ref_file .../a.txt (refusing to overwrite an input)
"""
from __future__ import annotations

import errno
import os
import re
import stat
import sys
import tempfile
from typing import List, Optional, Sequence, Set, Tuple

from . import procio

__all__ = ["OutputError", "check_distinct", "write_outputs", "output_fd", "remove_temps"]

STD_NAMES = {0: "standard input", 1: "standard output", 2: "standard error"}
_STD_PATHS = {"/dev/stdin": 0, "/dev/stdout": 1, "/dev/stderr": 2}
_FD_PATH = re.compile(r"/dev/fd/(\d+)|/proc/(self|\d+)(?:/task/\d+)?/fd/(\d+)")
_TEMPS: Set[str] = set()  # temp files not yet renamed into place (removed on every exit path)


class OutputError(Exception):
    """An output cannot be written (a one-line message naming the user's path)."""


def _fd_named(path: str) -> Optional[int]:
    m = _FD_PATH.fullmatch(path)
    if m is None:
        return _STD_PATHS.get(path)
    if m.group(1) is not None:
        return int(m.group(1))
    if m.group(2) != "self" and int(m.group(2)) != os.getpid():
        return None  # another process's descriptor: an ordinary path
    return int(m.group(3))


def output_fd(path: str) -> Optional[int]:
    """The descriptor of this process an output path names (``-`` is 1), or None.

    Symlinks are followed one by one (``/dev/stdout`` -> ``/proc/self/fd/1``), stopping at
    the descriptor link itself: ``realpath`` would go on to the file, pipe or terminal it
    points at, which must not be reopened.
    """
    if path == "-":
        return 1
    full = os.path.join(os.getcwd(), path)
    fd = _fd_named(os.path.normpath(full))
    if fd is not None:
        return fd
    parts = [p for p in full.split("/") if p]
    done, hops = "", 0
    while parts:
        part = parts.pop(0)
        if part == ".":
            continue
        if part == "..":
            done = os.path.dirname(done) if done else ""
            continue
        cur = f"{done}/{part}"
        if not parts:
            fd = _fd_named(cur)
            if fd is not None:
                return fd
        try:
            link = os.readlink(cur)
        except OSError:  # not a symlink, or absent
            done = cur
            continue
        hops += 1
        if hops > 40:  # a loop: let the open fail with its own message
            return None
        if link.startswith("/"):
            done = ""
        parts = [p for p in link.split("/") if p] + parts
    return None


def _identity(path: str) -> Tuple[str, Optional[Tuple[int, int]], bool]:
    """(realpath, (st_dev, st_ino) or None when absent, is a character device)."""
    real = os.path.realpath(path)
    try:
        st = os.stat(path)
    except OSError:
        return real, None, False
    return real, (st.st_dev, st.st_ino), stat.S_ISCHR(st.st_mode)


def _fd_identity(fd: int) -> Tuple[Optional[Tuple[int, int]], bool, bool]:
    """((st_dev, st_ino) or None when not open, is a character device, is a regular file)."""
    try:
        st = os.fstat(fd)
    except OSError:
        return None, False, False
    return (st.st_dev, st.st_ino), stat.S_ISCHR(st.st_mode), stat.S_ISREG(st.st_mode)


def check_distinct(inputs: Sequence[Tuple[str, str]], outputs: Sequence[Tuple[str, str]]) -> None:
    """Refuse an output that is an input, another output, or the file behind stdout / stderr:
    ``(flag, path)`` pairs; an input ``-`` is standard input (see the module doc)."""
    seen = []  # (flag, path, realpath or None, identity, what)
    for flag, path in inputs:
        if not path:
            continue
        if path == "-":
            ino, _, _ = _fd_identity(0)
            seen.append((flag, "- (standard input)", None, ino, "an input"))
        else:
            real, ino, _ = _identity(path)
            seen.append((flag, path, real, ino, "an input"))
    streams = {}  # fd -> (flag, path) of an output written there in place
    for fd in (1, 2):  # a regular file behind stdout / stderr: not to be renamed over
        ino, _, is_reg = _fd_identity(fd)
        if is_reg:
            seen.append(("", STD_NAMES[fd], None, ino, f"{STD_NAMES[fd]} (write to it with -)"))
    for flag, path in outputs:
        if not path:
            continue
        fd = output_fd(path)
        if fd is not None:
            if fd == 0:
                raise OutputError(f"{flag} {path} is standard input (refusing to write into an input)")
            if fd in streams:
                raise OutputError(f"{flag} {path} is {streams[fd][0]} {streams[fd][1]} again "
                                  f"(one descriptor, two outputs)")
            streams[fd] = (flag, path)
            ino, is_chr, _ = _fd_identity(fd)
            if ino is None:
                raise OutputError(f"{flag} {path}: descriptor {fd} is not open")
            real = None
        else:
            real, ino, is_chr = _identity(path)
        for oflag, opath, oreal, oino, what in ([] if is_chr else seen):
            if fd is not None and not oflag:  # in place on a descriptor: stdout's file is fine
                continue
            if (real is not None and real == oreal) or (ino is not None and ino == oino):
                if not oflag:  # stdout / stderr
                    raise OutputError(f"{flag} {path} is the file {opath} is written to "
                                      f"(renaming over it would lose what is printed there; "
                                      f"use - for standard output)")
                raise OutputError(f"{flag} {path} is the same file as {oflag} {opath} "
                                  f"(refusing to overwrite {what})")
        if fd is None:
            seen.append((flag, path, real, ino, "another output"))


def _umask() -> int:
    mask = os.umask(0o022)  # the only portable way to read it: set, then restore
    os.umask(mask)
    return mask


def _cannot(path: str, e: OSError) -> OutputError:
    return OutputError(f"{path}: cannot write ({e.strerror or e})")


def _prepare(path: str, data: bytes, umask: int) -> Tuple[Optional[str], str]:
    """Write a regular file's temp copy: returns (temp path, target); (None, path) when the
    output is written in place (a FIFO, a terminal or other character device)."""
    try:
        st = os.stat(path)  # the path itself: a magic link (/proc/PID/fd/N) names a pipe
    except FileNotFoundError:
        st = None
    except OSError as e:
        raise _cannot(path, e) from None
    if st is not None and stat.S_ISDIR(st.st_mode):
        raise OutputError(f"{path}: is a directory")
    if st is not None and stat.S_ISBLK(st.st_mode):
        raise OutputError(f"{path}: is a block device (refusing to write to it)")
    if st is not None and not stat.S_ISREG(st.st_mode):
        return None, path
    target = os.path.realpath(path)  # a symlink: replace what it points to, keep the link
    d = os.path.dirname(target)
    if not os.path.isdir(d):
        raise OutputError(f"{path}: directory {os.path.dirname(os.path.abspath(path))} does not exist")
    mode = stat.S_IMODE(st.st_mode) if st is not None else 0o666 & ~umask
    try:
        with procio.deferred():  # a signal cannot fall between creating and registering it
            fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=d)
            _TEMPS.add(tmp)
    except OSError as e:
        raise _cannot(path, e) from None
    try:
        with os.fdopen(fd, "wb") as f:
            os.fchmod(f.fileno(), mode)
            f.write(data)
    except OSError as e:
        _unlink(tmp)
        raise _cannot(path, e) from None
    return tmp, target


def _unlink(tmp: str) -> None:
    try:
        os.unlink(tmp)
    except FileNotFoundError:
        pass
    except OSError:
        return
    _TEMPS.discard(tmp)


def remove_temps() -> None:
    """Remove every temp file not renamed into place (any exit path)."""
    for tmp in list(_TEMPS):
        _unlink(tmp)


def _write_stream(fd: int, data: bytes) -> None:
    """In place to an open descriptor: stdout and stderr through their Python streams."""
    stream = {1: sys.stdout, 2: sys.stderr}.get(fd)
    if stream is not None:
        stream.flush()
        buf = getattr(stream, "buffer", None)
        if buf is not None:
            buf.write(data)
            buf.flush()
        else:
            stream.write(data.decode("utf-8"))
            stream.flush()
    elif fd in (1, 2):
        raise OSError(errno.EBADF, f"{STD_NAMES[fd]} is closed")
    else:
        procio.write_fd(fd, data)


def _write_in_place(path: str, target: str, data: bytes) -> None:
    fd = output_fd(path)
    try:
        try:
            if fd is not None:
                _write_stream(fd, data)
            else:  # FIFO, terminal, device: opened, never truncated, never renamed
                out = os.open(target, os.O_WRONLY | getattr(os, "O_CLOEXEC", 0))
                try:
                    procio.write_fd(out, data)
                finally:
                    os.close(out)
        except BrokenPipeError:  # its reader went away (| head): that stream ends quietly
            if fd == 1:
                procio.stdout_gone()
    except OSError as e:
        raise _cannot(path, e) from None


def write_outputs(outputs: Sequence[Tuple[str, str]]) -> None:
    """Write every ``(path, text)`` (UTF-8), all or nothing; see the module docstring."""
    umask = _umask()
    prepared: List[Tuple[str, Optional[str], str, bytes]] = []
    try:
        for path, text in outputs:
            data = text.encode("utf-8")
            if output_fd(path) is not None:
                prepared.append((path, None, path, data))
                continue
            tmp, target = _prepare(path, data, umask)
            prepared.append((path, tmp, target, data))
        for path, tmp, target, data in prepared:
            if tmp is None:
                _write_in_place(path, target, data)
        procio.hold()  # every rename, then the score: a signal now is dropped (see procio)
        while prepared:
            path, tmp, target, _ = prepared[0]
            if tmp is not None:
                try:
                    os.replace(tmp, target)
                except OSError as e:
                    raise _cannot(path, e) from None
                _TEMPS.discard(tmp)
            prepared.pop(0)
    finally:
        for _, tmp, _, _ in prepared:
            if tmp is not None:
                _unlink(tmp)
