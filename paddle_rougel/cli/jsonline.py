"""The one parse of a JSON text the command line reads (a line of a DuReader file or of a JSON-lines
input, a state file): errors name where it was (``file:line`` or ``file``) and say why.

>>> parse_json('{"a": 1}', "x.jsonl:1")
{'a': 1}
>>> parse_json("NaN", "s.json")
Traceback (most recent call last):
...
paddle_rougel.cli.jsonline.InputError: s.json: invalid JSON (NaN is not valid JSON)
"""
from __future__ import annotations

import json
from typing import Any, Tuple, Union

__all__ = ["InputError", "parse_json", "reject_constant"]


class InputError(ValueError):
    """Bad input data (the CLI prints it as a one-line error)."""


def reject_constant(name: str):
    raise ValueError(f"{name} is not valid JSON")  # Python's json would accept NaN/Infinity


def parse_json(text: str, where: Union[str, Tuple[str, int]], constants: bool = False) -> Any:
    """``text`` parsed; ``where``: a name, or ``(file, line)`` (formatted only for a message);
    ``constants``: accept NaN / Infinity (the contest's script does, reading its files with
    ``json.loads``), else they are refused as JSON refuses them."""
    try:
        return json.loads(text, parse_constant=None if constants else reject_constant)
    except ValueError as e:
        raise InputError(f"{_where(where)}: invalid JSON ({e})") from None
    except RecursionError:
        raise InputError(f"{_where(where)}: invalid JSON (nested too deeply)") from None


def _where(where: Union[str, Tuple[str, int]]) -> str:
    return where if isinstance(where, str) else f"{where[0]}:{where[1]}"
