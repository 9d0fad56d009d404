"""The sweep's grid: every combination of the parameters' values, each a validated mission.

Each point is the mission with its values set (:func:`grid_points`); all are built and
validated before anything flies, and a grid too large for this machine's memory is refused
at its first point.
"""

from __future__ import annotations

import copy
import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pyflyt_like.common.validation import check_memory, check_seed

from .errors import MissionError, short_repr
from .mission import Mission
from .sweep_parameters import (
    MAX_POINTS,
    MISSION_FIELDS,
    SEED,
    SweepError,
    SweepParameter,
    SweepTypeError,
    format_value,
    vehicle_number,
)

# Memory a grid point holds until it has flown [bytes]: its Mission and, on Ray, the task's
# pickled arguments (measured: ~1.5 KiB per point, ~0.5 KiB per vehicle, ~180 B per
# waypoint in the Mission plus ~60 B pickled), rounded up.
POINT_BYTES, VEHICLE_BYTES, WAYPOINT_BYTES = 2048, 1024, 256


@dataclass(frozen=True)
class SweepPoint:
    """One grid point: its number, the parameter values, the seed and the mission to fly."""

    index: int
    values: tuple[tuple[str, Any], ...]  # (parameter name, value), in the parameters' order
    seed: int
    mission: Mission

    @property
    def label(self) -> str:
        """``point 3 (speed=1.0)`` for messages."""
        return _label(self.index, self.values)


def _label(index: int, values: tuple[tuple[str, Any], ...]) -> str:
    shown = ", ".join(f"{name}={_shown(value)}" for name, value in values)
    return f"point {index} ({shown})" if shown else f"point {index}"


def _shown(value: Any) -> str:
    """A value as in the table, cut to 40 characters for one-line messages."""
    text = format_value(value)
    return text if len(text) <= 40 else text[:37] + "..."


def grid_points(mission_data: dict[str, Any], parameters: Sequence[SweepParameter],
                seed: int = 0, source: str = "mission") -> list[SweepPoint]:
    """Every point of the grid, each with its validated mission.

    Args:
        mission_data: the mission as plain data (as read from its YAML file); not modified.
        parameters: the grid's axes; names must be distinct.
        seed: the flights' seed when ``seed`` is not a parameter: an int in [0, 2**63).
        source: the mission's file name, for messages.

    Raises:
        SweepTypeError: ``parameters`` is not a sequence of :class:`SweepParameter`, ``seed``
            not an int, ``source`` not text.
        SweepError: repeated parameter names, more than :data:`MAX_POINTS` points, points
            whose missions would need more memory than half this machine's, a value that
            cannot be set (``wind.X`` without a wind), a seed outside [0, 2**63), or a point
            whose mission is invalid (the message names the point).
    """
    if not isinstance(parameters, (list, tuple)) or not all(
            isinstance(p, SweepParameter) for p in parameters):
        raise SweepTypeError(f"parameters must be a list of SweepParameter, got "
                             f"{short_repr(parameters)}")
    if not isinstance(source, str):
        raise SweepTypeError(f"source must be text, got {short_repr(source)}")
    seed = check_flight_seed("seed", seed)
    names = [p.name for p in parameters]
    repeated = sorted({n for n in names if names.count(n) > 1})
    if repeated:
        raise SweepError(f"--param {repeated[0]} is given twice; give each parameter once "
                         "with all its values")
    count = math.prod(len(p.values) for p in parameters)
    if count > MAX_POINTS:
        raise SweepError(f"the sweep has {count} points; at most {MAX_POINTS} are allowed")
    points: list[SweepPoint] = []
    held = largest = 0
    for index, combination in enumerate(itertools.product(*(p.values for p in parameters))):
        values = tuple(zip(names, combination, strict=True))
        data = copy.deepcopy(mission_data)
        point_seed = seed
        for name, value in values:
            if name == SEED:
                point_seed = check_flight_seed("--param seed: each value", value)
            else:
                _assign(data, name, value)
        wind = data.get("wind")
        if isinstance(wind, dict) and "type" not in wind and "wind" not in mission_data:
            first = next(name for name, _ in values if name.startswith("wind."))
            raise SweepError(f"--param {first}: the mission has no wind; give it one in the "
                             "file or sweep wind.type too (e.g. --param wind.type=constant)")
        try:
            mission = Mission.from_dict(data, source=f"{source} {_label(index, values)}")
        except MissionError as error:
            raise SweepError(str(error)) from None
        # The points still to build are assumed as large as the largest so far: a grid too
        # large is refused at its first point unless a later value makes missions larger.
        size = _point_bytes(mission)
        held, largest = held + size, max(largest, size)
        try:
            check_memory(f"a sweep of {count} points", held + (count - index - 1) * largest,
                         hint="sweep fewer points, or a mission with fewer vehicles or "
                              "waypoints")
        except ValueError as error:
            raise SweepError(str(error)) from None
        points.append(SweepPoint(index, values, point_seed, mission))
    return points


def check_flight_seed(name: str, value: Any) -> int:
    """``value`` if it is an int in [0, 2**63) (numpy ints too, not a bool or None), else a
    one-line :class:`SweepTypeError` (not an int) or :class:`SweepError` (out of range)
    naming ``name``."""
    message = f"{name} must be an integer in [0, 2**63), got {short_repr(value)}"
    if value is None:
        raise SweepTypeError(message)
    try:
        return int(check_seed(name, value))
    except TypeError:
        raise SweepTypeError(message) from None
    except ValueError:
        raise SweepError(message) from None


def _point_bytes(mission: Mission) -> int:
    return POINT_BYTES + sum(VEHICLE_BYTES + WAYPOINT_BYTES * len(vehicle.waypoints)
                             for vehicle in mission.vehicles)


def _assign(data: dict[str, Any], name: str, value: Any) -> None:
    if not isinstance(data, dict):
        raise SweepError("the mission must be a mapping with a 'vehicles' list")
    parts = name.split(".")
    if parts[0] == "wind":
        if data.get("wind") is None:
            data["wind"] = {}  # must get its type from another parameter: checked by the caller
        if len(parts) > 1 and parts[1] not in ("type", "options"):
            parts = ["wind", "options", *parts[1:]]
        _set_path(data, parts, copy.deepcopy(value), name)
    elif parts[0] in MISSION_FIELDS:
        _set_path(data, parts, copy.deepcopy(value), name)
    else:
        vehicles = data.get("vehicles")
        if not isinstance(vehicles, list) or not vehicles:
            raise SweepError(f"--param {name}: the mission has no vehicles list")
        if parts[0] == "vehicles":
            number = vehicle_number(parts[1])
            if number >= len(vehicles):
                raise SweepError(f"--param {name}: the mission has {len(vehicles)} vehicles "
                                 f"(0 to {len(vehicles) - 1})")
            targets, parts = [vehicles[number]], parts[2:]
        else:
            targets = vehicles
        for vehicle in targets:
            if not isinstance(vehicle, dict):
                raise SweepError(f"--param {name}: a vehicle is not a mapping")
            _set_path(vehicle, parts, copy.deepcopy(value), name)


def _set_path(data: dict[str, Any], parts: list[str], value: Any, name: str) -> None:
    for part in parts[:-1]:
        child = data.setdefault(part, {})
        if not isinstance(child, dict):
            raise SweepError(f"--param {name}: {part} is not a mapping in the mission, got "
                             f"{short_repr(child)}")
        data = child
    data[parts[-1]] = value
