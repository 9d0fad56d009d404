"""The error of an invalid mission, and how values are shown in its one-line messages.

Every module that reads or checks a mission (the YAML reader, the schema, the sweep grid)
raises :class:`MissionError` and quotes bad values with :func:`short_repr`, so that a
mistyped 10 000-element list or a 1 MiB string still gives a message of one short line.
"""

from __future__ import annotations

import reprlib
from typing import Any


class MissionError(ValueError):
    """A mission file or mission description is invalid; the message is one line."""


_REPR = reprlib.Repr()
_REPR.maxlevel, _REPR.maxlist, _REPR.maxtuple, _REPR.maxdict = 2, 4, 4, 4
_REPR.maxstring, _REPR.maxlong, _REPR.maxother = 50, 30, 50


def short_repr(value: Any) -> str:
    """``value``'s ``repr``, shortened for a message: nesting cut below 2 levels, lists,
    tuples and dicts to 4 items, strings and other values to 50 characters, integers to
    30; ``...`` marks what is left out."""
    return _REPR.repr(value)
