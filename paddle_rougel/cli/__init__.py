"""The ``paddle-rougel`` command line: :func:`main` parses the arguments (:mod:`.parser`),
resolves them into the run's options (:mod:`.options`: commands never see argparse's namespace)
and dispatches to the command (:data:`COMMANDS`: one module per command, loaded when it runs);
what the commands share has public names in :mod:`.common`, :mod:`.output`, :mod:`.signatures`,
:mod:`.lines` (text files) and :mod:`.contest` (DuReader files); inputs are read by
:mod:`.lineio`, :mod:`.dureader_io` and :mod:`.jsonline`, outputs written by :mod:`.fileio` and
:mod:`.perinstance`, streams and signals handled by :mod:`.procio`.

Commands:

* ``dureader --pred_file P --ref_file R``: the DuReader contest score (ROUGE-L
  and BLEU-4 with the yes/no and entity bonus), printed as the contest's
  JSON ``{"ROUGE-L": .., "BLEU-4": ..}`` (x100, 2 decimals) on stdout;
* ``score --hyp H --ref R [--ref R2 ...] [--rouge-types rouge1,rouge2,rougeL,rougeLsum]``:
  ROUGE of line-aligned text files, every type in one table / JSON (the types come from
  the metric registry, :mod:`paddle_rougel.metrics`);
* ``merge STATE...``: combine ``dureader --save-state`` files (or metric
  ``state_dict()`` JSON files) into the score of all their data;
* ``explain`` and ``report``, and ``--by`` (scores per group) on ``dureader``,
  ``score`` and ``compare``: see :mod:`paddle_rougel.cli.explain`, :mod:`paddle_rougel.cli.report`
  and :mod:`paddle_rougel.cli.breakdown`.

Every run prints a signature naming the settings that change the number, then
``engine:c`` or ``engine:python``: the engine never changes the number (both
are exact), it tells the reader what ran; ``merge`` ignores it when comparing
the states' signatures (``--version`` names the engine too).
Machine-readable output (JSON) keeps stdout pure: the signature and counts go
to stderr; the ``table`` format prints the signature under the table.  When an
output (``--per-instance -``, ``--save-state /dev/stdout``) goes to stdout, the
score goes to stderr.  Diagnostics never go to stdout (not even when stderr is
closed: they are dropped, see :mod:`paddle_rougel.cli.procio`).

Errors are one line on stderr (``paddle-rougel: error: ...`` naming the file,
zip member, line or field), exit status 2, no traceback.  Outputs
(``--per-instance``, ``--save-state``; ``-`` is stdout) may not be an input or
each other (symlinks and hard links included), and are written all or nothing,
streams in place and files by rename: see :mod:`paddle_rougel.cli.fileio`.  Inputs
are ``.zip`` archives when the name ends in ``.zip`` in any case or the file
starts with zip magic bytes, else JSON lines.  A reader that closes stdout
early (``| head``) ends the run quietly with status 0; a stdout closed from the
start is an error (the score would vanish).  SIGINT / SIGTERM / SIGHUP exit
with 128 + the signal number, temp files removed (status 0 once everything is
committed and printed).  Warnings (the pure-Python engine fallback, tokenization
hints: :mod:`paddle_rougel.hints`) are one plain ``paddle-rougel: warning:`` line.
"""
from __future__ import annotations

import importlib
import sys
import warnings
from typing import List, Optional

import numpy as np

from . import procio

__all__ = ["main", "run", "COMMANDS"]

# command -> (its module, its function): loaded when it runs (report's HTML writer only for report)
COMMANDS = {
    "dureader": (".dureader", "cmd_dureader"),
    "score": (".score", "cmd_score"),
    "compare": (".compare", "cmd_compare"),
    "merge": (".merge", "cmd_merge"),
    "explain": (".explain", "cmd_explain"),
    "report": (".report", "cmd_report"),
    "dedup": (".scale", "cmd_dedup"),
    "join": (".scale", "cmd_join"),
    "rouge155": ("paddle_rougel.rouge155.cli", "main"),  # ROUGE-1.5.5.pl's flags: before argparse
}


def command(name: str):
    """A command's function, looked up when it runs (the one dynamic import of the command line)."""
    module, function = COMMANDS[name]
    return getattr(importlib.import_module(module, __name__), function)


def run() -> int:
    """Entry point of the command line process (``paddle-rougel``, ``python -m paddle_rougel``;
    it never imports paddle)."""
    procio.fill_std_fds()  # before any file is opened: a closed fd 0 / 2 is not reused
    procio.install()       # SIGINT / SIGTERM / SIGHUP: temp files removed, 128 + N
    try:
        return main()
    except KeyboardInterrupt as e:  # before main's own handlers (importing) or after them
        return getattr(e, "status", 130)


def _stdout_gone() -> int:
    """stdout's reader went away (``| head``): quiet, as other CLIs; what it read is what it wanted."""
    procio.stdout_gone()  # fd 1 to /dev/null: the interpreter's final flush cannot fail again
    return 0


def _run(ns, raw: List[str]) -> int:
    from .common import CliError
    from .options import resolve

    if sys.stdout is None:  # started with fd 1 closed: the score would vanish
        raise CliError("standard output is closed: nowhere to print the score")
    opts = resolve(ns, raw)  # the interval's rule checked before any input is read
    with np.errstate(all="ignore"):  # numbers are checked finite before printing: no numpy warnings
        rc = command(opts.command)(opts)
    procio.hold()  # printed (and committed): a signal from here on is dropped
    try:
        sys.stdout.flush()  # a closed pipe shows up here
    except BrokenPipeError:
        rc = _stdout_gone()
    procio.finish()
    return rc


def main(argv: Optional[List[str]] = None) -> int:
    """Run the command line; returns the exit status (0 ok, 2 error, 128 + N on signal N)."""
    raw = list(sys.argv[1:] if argv is None else argv)
    if raw[:1] == ["rouge155"]:  # the Perl script's flags (Getopt::Std), not argparse's
        return command("rouge155")(raw[1:])
    from .common import USER_ERRORS, error, os_message, show_warning
    from .fileio import remove_temps
    from .parser import build_parser

    parser = build_parser()
    try:
        try:
            ns = parser.parse_args(argv)
        finally:
            if sys.stdout is not None:
                sys.stdout.flush()  # --help / --version into a closed pipe
    except SystemExit as e:  # usage errors (2), --help / --version (0)
        return e.code if isinstance(e.code, int) else 2
    except BrokenPipeError:
        return _stdout_gone()
    with warnings.catch_warnings():
        warnings.showwarning = show_warning  # one plain line, no source line
        # our deprecations (--alpha, --confidence N) are for the user: shown, as any warning here
        warnings.filterwarnings("default", category=DeprecationWarning, module=r"paddle_rougel(\.|$)")
        try:
            return _run(ns, raw)
        except BrokenPipeError:
            return _stdout_gone()
        except USER_ERRORS as e:
            error(str(e))
        except (ValueError, TypeError, OverflowError) as e:  # a metric rejected an input
            error(str(e) or type(e).__name__)
        except RecursionError:
            error("input nested too deeply")
        except MemoryError:
            error("out of memory")
        except OSError as e:
            error(os_message(e))
        except KeyboardInterrupt as e:  # Ctrl-C, or SIGTERM / SIGHUP as procio.Interrupted
            procio.stop()
            remove_temps()
            error("interrupted" if not isinstance(e, procio.Interrupted) else f"interrupted ({e})")
            return getattr(e, "status", 130)
        finally:
            procio.stop()  # cleaning up: a signal now changes nothing
            remove_temps()
    return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(run())
