"""Sweep parameters: ``NAME=V1,V2,...`` read into a checked grid axis of plain values.

``NAME`` is a dotted path into the mission file (see :mod:`pyflyt_like.missions.sweep`). The
values are read as a YAML list by the mission reader (duplicate keys, deep nesting and
unreadable values refused as in a mission file), and YAML aliases are refused too: an alias
can make a value contain itself (``&a [*a]``) or, nested, expand a short argument to
millions of items. Every value is then checked to be plain data (:data:`PLAIN_VALUES`), so
that it can be set in the mission, shown in a message and written to the table.
"""

from __future__ import annotations

import datetime
import json
import re
from dataclasses import dataclass
from typing import Any

import numpy as np
import yaml
from yaml.events import AliasEvent

from .errors import short_repr
from .mission import MAX_VEHICLES
from .mission_yaml import MAX_NESTING, MissionLoader, MissionYAMLError

MAX_POINTS = 10_000
"""Most points a sweep may have (a typo such as ``seed=0,...`` repeated should not fly
for days)."""

MAX_PARAMETER_CHARS = 1 << 17
"""Longest ``NAME=V1,V2,...`` text read (128 KiB, the longest single argument Linux passes
to a program)."""

MAX_VALUE_ITEMS = 100_000
"""Most numbers, strings, lists and mappings in one value (a vehicle's 1000 waypoints with
every field set are some 10 000)."""

MISSION_FIELDS = ("name", "physics_hz", "duration_limit", "arrival_tolerance", "wind")
VEHICLE_FIELDS = ("type", "model", "controller", "start", "speed", "waypoints")
SEED = "seed"

PLAIN_VALUES = "numbers, text, true/false, null, and lists and mappings of them"


class SweepError(ValueError):
    """A sweep parameter or grid point is invalid; the message is one line."""


class SweepTypeError(SweepError, TypeError):
    """An argument or value of a sweep has the wrong type; the message is one line."""


class _ValuesLoader(MissionLoader):
    """The mission reader, refusing aliases: a value may not contain itself (``&a [*a]``)
    or expand to millions of items through nested aliases, and nothing needs them."""

    def compose_node(self, parent: Any, index: Any) -> Any:
        if self.check_event(AliasEvent):
            mark = self.peek_event().start_mark
            raise MissionYAMLError(problem="YAML aliases (*name) are not allowed in sweep "
                                           "values; write each value out",
                                   problem_mark=mark)
        return super().compose_node(parent, index)


@dataclass(frozen=True)
class SweepParameter:
    """One axis of the grid: a dotted ``name`` and the ``values`` it takes.

    The values are checked and stored as plain data (numpy numbers become Python numbers,
    tuples lists), so that each can be written to the table and set in the mission.

    Raises:
        SweepTypeError: ``name`` is not text, ``values`` not a tuple, or a value holds
            something other than :data:`PLAIN_VALUES` (a set, bytes, a date).
        SweepError: an unknown ``name``, no values or more than :data:`MAX_POINTS`, a value
            that contains itself, is nested deeper than 20 levels or holds more than
            :data:`MAX_VALUE_ITEMS` items.
    """

    name: str
    values: tuple[Any, ...]

    def __post_init__(self) -> None:
        _check_name(self.name)
        where = f"--param {_param_name(self.name)}"
        if not isinstance(self.values, tuple):
            raise SweepTypeError(f"{where}: values must be a tuple, got "
                                 f"{short_repr(self.values)}")
        if not self.values:
            raise SweepError(f"{where} has no values; give NAME=V1,V2,...")
        if len(self.values) > MAX_POINTS:
            raise SweepError(f"{where} has {len(self.values)} values; a sweep has at most "
                             f"{MAX_POINTS} points")
        plain = tuple(_plain_value(f"{where}, value {number} of {len(self.values)}", value)
                      for number, value in enumerate(self.values, start=1))
        object.__setattr__(self, "values", plain)

    @classmethod
    def parse(cls, text: str) -> SweepParameter:
        """``NAME=V1,V2,...`` → a parameter (see the module's docstring).

        Raises:
            SweepTypeError: ``text`` is not a string.
            SweepError: no ``=``, longer than :data:`MAX_PARAMETER_CHARS`, values that are
                not a YAML list (or use aliases), and everything the constructor refuses.
        """
        if not isinstance(text, str):
            raise SweepTypeError(f"a sweep parameter must be text NAME=V1,V2,..., got "
                                 f"{short_repr(text)}")
        if len(text) > MAX_PARAMETER_CHARS:
            raise SweepError(f"a sweep parameter is {len(text)} characters long; at most "
                             f"{MAX_PARAMETER_CHARS} are allowed: {short_repr(text)}")
        if "=" not in text:
            raise SweepError(f"a sweep parameter must be NAME=V1,V2,..., got {short_repr(text)}")
        name, _, values_text = text.partition("=")
        name = name.strip()
        _check_name(name)
        loader = None
        try:
            loader = _ValuesLoader(f"[{values_text}]")  # the reader checks the characters
            values = loader.get_single_data()
        except yaml.YAMLError as error:
            problem = getattr(error, "problem", None) or str(error).splitlines()[0]
            raise SweepError(f"--param {_param_name(name)}: cannot read the values "
                             f"{short_repr(values_text)} as a list ({problem})") from None
        finally:
            if loader is not None:
                loader.dispose()
        return cls(name, tuple(values))


def _check_name(name: object) -> None:
    if not isinstance(name, str):
        raise SweepTypeError(f"a sweep parameter name must be text, got {short_repr(name)}")
    parts = name.split(".")
    if not name or not all(parts):
        raise SweepError(f"a sweep parameter name must be a dotted path such as speed or "
                         f"wind.options.velocity, got {short_repr(name)}")
    head = parts[0]
    if name == SEED or head in MISSION_FIELDS or head in VEHICLE_FIELDS:
        return
    if head == "vehicles" and len(parts) >= 3 and re.fullmatch("[0-9]+", parts[1]) \
            and parts[2] in VEHICLE_FIELDS + ("name", "arrival_tolerance"):
        if vehicle_number(parts[1]) >= MAX_VEHICLES:
            raise SweepError(f"--param {_param_name(name)}: the vehicle number must be 0 to "
                             f"{MAX_VEHICLES - 1} (a mission has at most {MAX_VEHICLES} "
                             "vehicles)")
        return
    raise SweepError(f"--param {_param_name(name)}: unknown field; allowed: seed, the "
                     f"mission's {list(MISSION_FIELDS)}, every vehicle's "
                     f"{list(VEHICLE_FIELDS)}, or vehicles.N.FIELD for vehicle N")


def _param_name(name: str) -> str:
    """``name`` as written, or quoted and cut when it is long or unprintable."""
    return name if len(name) <= 50 and name.isprintable() else short_repr(name)


def vehicle_number(digits: str) -> int:
    """The vehicle number N of ``vehicles.N.FIELD`` (at least MAX_VEHICLES if too long)."""
    # A 5000-digit number is past Python's int conversion limit: compare its length first.
    return int(digits) if len(digits) <= 6 else MAX_VEHICLES


def _plain_value(where: str, value: Any) -> Any:
    """``value`` as plain data (a copy), or a one-line error naming ``where``."""
    items = [0]

    def plain(item: Any, depth: int, ancestors: frozenset[int]) -> Any:
        items[0] += 1
        if items[0] > MAX_VALUE_ITEMS:
            raise SweepError(f"{where} holds more than {MAX_VALUE_ITEMS} items")
        if isinstance(item, (np.bool_, np.integer, np.floating)):  # np.float64 is a float
            return item.item()
        if item is None or isinstance(item, (bool, int, float)):
            return item
        if isinstance(item, str):
            return _text(where, item)
        if isinstance(item, (list, tuple, dict)):
            if id(item) in ancestors:
                raise SweepError(f"{where} contains itself")
            if depth >= MAX_NESTING:
                raise SweepError(f"{where} is nested deeper than {MAX_NESTING} levels")
            inner = ancestors | {id(item)}
            if isinstance(item, dict):
                return {_plain_key(where, key): plain(entry, depth + 1, inner)
                        for key, entry in item.items()}
            return [plain(entry, depth + 1, inner) for entry in item]
        hint = (f" (quote it to mean text: '{item}')"
                if isinstance(item, (datetime.date, datetime.datetime)) else "")
        raise SweepTypeError(f"{where} holds a value of type {type(item).__name__} "
                             f"({short_repr(item)}){hint}; values are {PLAIN_VALUES}")

    return plain(value, 0, frozenset())


def _plain_key(where: str, key: Any) -> Any:
    if isinstance(key, (np.bool_, np.integer, np.floating)):
        return key.item()
    if isinstance(key, str):
        return _text(where, key)
    if key is None or isinstance(key, (bool, int, float)):
        return key
    raise SweepTypeError(f"{where} has a mapping key {short_repr(key)} of type "
                         f"{type(key).__name__}; keys are text")


def _text(where: str, text: str) -> str:
    """``text`` if UTF-8 can encode it (it is written to the table and printed)."""
    if not text.isascii():
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:
            raise SweepError(f"{where} holds text that is not valid Unicode (a lone "
                             f"surrogate): {short_repr(text)}") from None
    return text

def format_value(value: Any) -> str:
    """A parameter value as text, as in the table: lists and mappings as JSON, None as ''."""
    if value is None:
        return ""
    if isinstance(value, (list, tuple, dict)):
        return json.dumps(value)
    return str(value)
