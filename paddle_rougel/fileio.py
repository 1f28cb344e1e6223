"""Writing the command line's output files without ever losing a user's data.

* An output may not be one of the inputs, nor another output: paths are
  compared after resolving symlinks (``realpath``) and, for existing files, by
  identity (``st_dev``, ``st_ino``) so a hard link is caught too.  Character
  devices (``/dev/null``, a terminal) are exempt: writing to one twice loses
  nothing.
* Regular files (new or existing) are written to a temp file next to the
  target and renamed over it (``os.replace``), so a reader never sees half a
  file.  A symlink is followed: its target is replaced, the link stays.  A new
  file gets ``0666 & ~umask``; a replaced file keeps its mode.  (Other hard
  links to a replaced file keep the old contents: the rename gives the path a
  new inode.)
* Anything else (a FIFO, a device such as ``/dev/stdout``) is opened and
  written directly: it cannot be renamed over and it has no "half-written" state.
* All or nothing across outputs: every temp file is written first, then the
  non-regular outputs, and only then are the temp files renamed into place;
  if anything fails before that, nothing has been replaced.

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
paddle_rougel.fileio.OutputError: --save-state .../a.txt is the same file as --ref_file .../a.txt (refusing to overwrite an input)
"""
from __future__ import annotations

import os
import stat
import tempfile
from typing import List, Optional, Sequence, Tuple

__all__ = ["OutputError", "check_distinct", "write_outputs"]


class OutputError(Exception):
    """An output cannot be written (a one-line message naming the user's path)."""


def _identity(path: str) -> Tuple[str, Optional[Tuple[int, int]], bool]:
    """(realpath, (st_dev, st_ino) or None when absent, is a character device)."""
    real = os.path.realpath(path)
    try:
        st = os.stat(path)
    except OSError:
        return real, None, False
    return real, (st.st_dev, st.st_ino), stat.S_ISCHR(st.st_mode)


def check_distinct(inputs: Sequence[Tuple[str, str]], outputs: Sequence[Tuple[str, str]]) -> None:
    """Refuse an output that is an input or another output: ``(flag, path)`` pairs."""
    seen = [(flag, path, _identity(path), "an input") for flag, path in inputs if path]
    for flag, path in outputs:
        if not path:
            continue
        ident = _identity(path)
        real, ino, is_chr = ident
        for oflag, opath, (oreal, oino, _), what in ([] if is_chr else seen):
            if real == oreal or (ino is not None and ino == oino):
                raise OutputError(f"{flag} {path} is the same file as {oflag} {opath} "
                                  f"(refusing to overwrite {what})")
        seen.append((flag, path, ident, "another output"))


def _umask() -> int:
    mask = os.umask(0o022)  # the only portable way to read it: set, then restore
    os.umask(mask)
    return mask


def _cannot(path: str, e: OSError) -> OutputError:
    return OutputError(f"{path}: cannot write ({e.strerror or e})")


def _prepare(path: str, data: bytes, umask: int) -> Tuple[Optional[str], str]:
    """Write a regular file's temp copy: returns (temp path, target); (None, target) if not regular."""
    target = os.path.realpath(path)  # a symlink: replace what it points to, keep the link
    try:
        st = os.stat(target)
    except FileNotFoundError:
        st = None
    except OSError as e:
        raise _cannot(path, e) from None
    if st is not None and stat.S_ISDIR(st.st_mode):
        raise OutputError(f"{path}: is a directory")
    if st is not None and not stat.S_ISREG(st.st_mode):
        return None, target
    d = os.path.dirname(target)
    if not os.path.isdir(d):
        raise OutputError(f"{path}: directory {os.path.dirname(os.path.abspath(path))} does not exist")
    mode = stat.S_IMODE(st.st_mode) if st is not None else 0o666 & ~umask
    try:
        fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=d)
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
    except OSError:
        pass


def _write_direct(path: str, target: str, data: bytes) -> None:
    try:
        with open(target, "wb") as f:  # FIFO, device: no rename possible
            f.write(data)
    except OSError as e:
        raise _cannot(path, e) from None


def write_outputs(outputs: Sequence[Tuple[str, str]]) -> None:
    """Write every ``(path, text)`` (UTF-8), all or nothing; see the module docstring."""
    umask = _umask()
    prepared: List[Tuple[str, Optional[str], str, bytes]] = []
    try:
        for path, text in outputs:
            data = text.encode("utf-8")
            tmp, target = _prepare(path, data, umask)
            prepared.append((path, tmp, target, data))
        for path, tmp, target, data in prepared:
            if tmp is None:
                _write_direct(path, target, data)
        while prepared:
            path, tmp, target, _ = prepared[0]
            if tmp is not None:
                try:
                    os.replace(tmp, target)
                except OSError as e:
                    raise _cannot(path, e) from None
            prepared.pop(0)
    finally:
        for _, tmp, _, _ in prepared:
            if tmp is not None:
                _unlink(tmp)
