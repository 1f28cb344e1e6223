"""Parsers of the command line's flag values (argparse ``type=``): a value that does not parse
says what was expected (``--worst: expected a positive integer, got 'abc'``), never the name of a
function (argparse's own message, ``invalid _count value``)."""
from __future__ import annotations

import argparse

__all__ = ["confidence_level", "flag_type", "positive_count", "seed_value"]


def flag_type(parse):
    """A flag's parser whose failure says what was expected (argparse would name the function:
    "invalid _bool value")."""
    def flag_value(text: str):
        try:
            return parse(text)
        except (ValueError, TypeError) as e:
            why = "expected a number" if parse is float else "expected an integer" if parse is int else None
            raise argparse.ArgumentTypeError(f"{why}, got {text!r}" if why else str(e)) from None

    return flag_value


def confidence_level(text: str) -> float:
    """A level in (0, 1); a whole number >= 1 is the old resample count (see paddle_rougel.cli.options)."""
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a level in (0, 1) such as 0.95, got {text}") from None
    if 0 < v < 1:
        return v
    if v >= 1 and text.strip().isdigit():
        return int(text)  # the old resample count
    raise argparse.ArgumentTypeError(f"expected a level in (0, 1) such as 0.95, got {text}")


def positive_count(text: str) -> int:
    try:
        v = int(text)
    except ValueError:
        v = 0
    if v < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}")
    return v


def seed_value(text: str) -> int:
    try:
        v = int(text)
    except ValueError:
        v = -1
    if not 0 <= v < 2 ** 64:
        raise argparse.ArgumentTypeError(f"expected an integer in [0, 2**64), got {text!r}")
    return v
