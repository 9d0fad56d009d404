"""Mission sweeps: one mission flown over a grid of parameter values, one summary table.

A sweep parameter is ``NAME=V1,V2,...``. ``NAME`` is a dotted path into the mission file:

- a top-level field (``duration_limit``, ``arrival_tolerance``, ``physics_hz``,
  ``wind.type``, ``wind.options.velocity``) sets that field; ``wind.X`` with X other than
  ``type`` and ``options`` is short for ``wind.options.X``;
- a vehicle field (``speed``, ``model``, ``controller``, ``start.position``) sets it on every
  vehicle; ``vehicles.N.FIELD`` on vehicle N only (0-based);
- ``seed`` is the seed of the flight (the mission file has none).

The values are read as a YAML list, so ``speed=0.5,1.0`` is two numbers and
``wind.velocity=[0,0,0],[2,0,0]`` two vectors. The grid is the Cartesian product of all
parameters, in the order given (the last one varies fastest). Every point's mission is
validated before anything flies, so a bad value is an error naming the point.

:func:`run_sweep` flies the points as Ray tasks (one CPU each; ``address`` joins a running
cluster, none starts a local one) or, with ``serial=True``, one after another in this
process. :func:`write_sweep_csv` writes the table atomically: one row per point and vehicle.
"""

from __future__ import annotations

import copy
import csv
import itertools
import json
import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import yaml

from .errors import MissionError, short_repr
from .mission import Mission
from .mission_yaml import MissionLoader
from .output_files import write_output_file

MAX_POINTS = 10_000
"""Most points a sweep may have (a typo such as ``seed=0,...`` repeated should not fly
for days)."""

MISSION_FIELDS = ("name", "physics_hz", "duration_limit", "arrival_tolerance", "wind")
VEHICLE_FIELDS = ("type", "model", "controller", "start", "speed", "waypoints")
SEED = "seed"

RESULT_COLUMNS = ("completed", "duration", "vehicle", "type", "waypoints_reached",
                  "waypoints_total", "completion_time", "rms_error", "max_error", "collisions",
                  "crashed", "error")
"""Columns of the table after ``point``, the parameters and ``seed``: the mission's
``completed`` and ``duration`` [s], then the vehicle's results (:class:`VehicleResult`;
errors in m, times in s) and ``error``, the exception of a point that could not be flown."""


class SweepError(ValueError):
    """A sweep parameter or grid point is invalid; the message is one line."""


@dataclass(frozen=True)
class SweepParameter:
    """One axis of the grid: a dotted ``name`` and the ``values`` it takes."""

    name: str
    values: tuple[Any, ...]

    @classmethod
    def parse(cls, text: str) -> SweepParameter:
        """``NAME=V1,V2,...`` → a parameter (see the module's docstring)."""
        if not isinstance(text, str) or "=" not in text:
            raise SweepError(f"a sweep parameter must be NAME=V1,V2,..., got {short_repr(text)}")
        name, _, values_text = text.partition("=")
        name = name.strip()
        _check_name(name)
        try:
            values = yaml.load(f"[{values_text}]", Loader=MissionLoader)
        except yaml.YAMLError as error:
            problem = getattr(error, "problem", None) or str(error).splitlines()[0]
            raise SweepError(f"--param {name}: cannot read the values {values_text!r} as a "
                             f"list ({problem})") from None
        if not values:
            raise SweepError(f"--param {name} has no values; give NAME=V1,V2,...")
        return cls(name, tuple(values))


def _check_name(name: str) -> None:
    parts = name.split(".")
    if not name or not all(parts):
        raise SweepError(f"a sweep parameter name must be a dotted path such as speed or "
                         f"wind.options.velocity, got {name!r}")
    head = parts[0]
    if name == SEED or head in MISSION_FIELDS or head in VEHICLE_FIELDS:
        return
    if head == "vehicles" and len(parts) >= 3 and parts[1].isdigit() \
            and parts[2] in VEHICLE_FIELDS + ("name", "arrival_tolerance"):
        return
    raise SweepError(f"--param {name}: unknown field; allowed: seed, the mission's "
                     f"{list(MISSION_FIELDS)}, every vehicle's {list(VEHICLE_FIELDS)}, or "
                     "vehicles.N.FIELD for vehicle N")


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
    shown = ", ".join(f"{name}={_cell(value)}" for name, value in values)
    return f"point {index} ({shown})" if shown else f"point {index}"


def grid_points(mission_data: dict[str, Any], parameters: Sequence[SweepParameter],
                seed: int = 0, source: str = "mission") -> list[SweepPoint]:
    """Every point of the grid, each with its validated mission.

    Args:
        mission_data: the mission as plain data (as read from its YAML file); not modified.
        parameters: the grid's axes; names must be distinct.
        seed: the flights' seed when ``seed`` is not a parameter.
        source: the mission's file name, for messages.

    Raises:
        SweepError: repeated parameter names, more than :data:`MAX_POINTS` points, a value
            that cannot be set (``wind.X`` without a wind), a seed that is not an int ≥ 0,
            or a point whose mission is invalid (the message names the point).
    """
    names = [p.name for p in parameters]
    repeated = sorted({n for n in names if names.count(n) > 1})
    if repeated:
        raise SweepError(f"--param {repeated[0]} is given twice; give each parameter once "
                         "with all its values")
    count = math.prod(len(p.values) for p in parameters)
    if count > MAX_POINTS:
        raise SweepError(f"the sweep has {count} points; at most {MAX_POINTS} are allowed")
    points = []
    for index, combination in enumerate(itertools.product(*(p.values for p in parameters))):
        values = tuple(zip(names, combination, strict=True))
        data = copy.deepcopy(mission_data)
        point_seed = seed
        for name, value in values:
            if name == SEED:
                point_seed = _seed(value)
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
        points.append(SweepPoint(index, values, point_seed, mission))
    return points


def _seed(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise SweepError(f"--param seed values must be integers >= 0, got {short_repr(value)}")
    return value


def _assign(data: dict[str, Any], name: str, value: Any) -> None:
    if not isinstance(data, dict):
        raise SweepError("the mission must be a mapping with a 'vehicles' list")
    parts = name.split(".")
    if parts[0] == "wind":
        if data.get("wind") is None:
            data["wind"] = {}  # must get its type from another parameter: checked by the caller
        if len(parts) > 1 and parts[1] not in ("type", "options"):
            parts = ["wind", "options", *parts[1:]]
        _set_path(data, parts, value, name)
    elif parts[0] in MISSION_FIELDS:
        _set_path(data, parts, value, name)
    else:
        vehicles = data.get("vehicles")
        if not isinstance(vehicles, list) or not vehicles:
            raise SweepError(f"--param {name}: the mission has no vehicles list")
        if parts[0] == "vehicles":
            number = int(parts[1])
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


# ------------------------------------------------------------------------- flying
def fly_point(point: SweepPoint) -> list[dict[str, Any]]:
    """Fly one point headless and return its table rows (one per vehicle).

    A point that cannot be flown (a mission error found while building or flying it, a
    simulation error) gives one row with ``error`` set; nothing is raised.
    """
    from ..core.utils.quiet import quiet_native_output

    try:
        with quiet_native_output():
            from .runner import fly_mission

            result = fly_mission(point.mission, seed=point.seed).result
    except Exception as error:  # noqa: BLE001 - a failed point is a row of the table
        return [_row(point, {"error": f"{type(error).__name__}: {error}"})]
    return [_row(point, {"completed": result.completed, "duration": result.duration,
                         **vars(vehicle)}) for vehicle in result.vehicles]


def _row(point: SweepPoint, results: dict[str, Any]) -> dict[str, Any]:
    row: dict[str, Any] = {"point": point.index, **dict(point.values), SEED: point.seed}
    row.update({column: results.get(column, "" if column == "error" else None)
                for column in RESULT_COLUMNS})
    row["vehicle"] = results.get("name")
    return row


def run_sweep(points: Sequence[SweepPoint], address: str | None = None, serial: bool = False,
              on_point: Callable[[SweepPoint, list[dict[str, Any]]], None] | None = None,
              ) -> list[dict[str, Any]]:
    """Fly every point and return the rows, ordered by point then vehicle.

    Args:
        points: from :func:`grid_points`.
        address: a Ray cluster to join (``"auto"``, ``"127.0.0.1:6379"``); None: the Ray
            instance already initialised in this process, else a new local one (shut down
            again when the sweep ends).
        serial: fly in this process, one point after another, without Ray.
        on_point: called with each point and its rows as it finishes (in finishing order).

    Raises:
        ImportError: Ray is needed (``serial=False``) but the ``ray`` extra is absent.
    """
    if serial:
        finished = ((point, fly_point(point)) for point in points)
    else:
        finished = _fly_on_ray(points, address)
    rows_of: dict[int, list[dict[str, Any]]] = {}
    for point, rows in finished:
        rows_of[point.index] = rows
        if on_point is not None:
            on_point(point, rows)
    return [row for index in sorted(rows_of) for row in rows_of[index]]


def _fly_on_ray(points: Sequence[SweepPoint], address: str | None,
                ) -> Iterable[tuple[SweepPoint, list[dict[str, Any]]]]:
    try:
        import ray
    except ImportError:
        raise ImportError('a sweep on Ray needs the ray extra: pip install "pyflyt_like[ray]" '
                          "(or fly the points in this process with serial=True / --serial)"
                          ) from None
    started = not ray.is_initialized()
    if started:
        ray.init(address=address, log_to_driver=False, include_dashboard=False,
                 logging_level="WARNING")
    try:
        # One CPU per point; a worker lost with its node is retried once, elsewhere.
        fly = ray.remote(num_cpus=1, max_retries=1)(fly_point)
        pending = {fly.remote(point): point for point in points}
        while pending:
            done, _ = ray.wait(list(pending), num_returns=1)
            point = pending.pop(done[0])
            try:
                rows = ray.get(done[0])
            except ray.exceptions.RayError as error:  # the worker died twice
                rows = [_row(point, {"error": f"{type(error).__name__}: "
                                              f"{str(error).splitlines()[0]}"})]
            yield point, rows
    finally:
        if started:
            ray.shutdown()


# ------------------------------------------------------------------------- the table
def sweep_columns(parameters: Sequence[SweepParameter]) -> list[str]:
    """The table's header: ``point``, the parameter names, ``seed``, :data:`RESULT_COLUMNS`."""
    return ["point", *(p.name for p in parameters if p.name != SEED), SEED, *RESULT_COLUMNS]


def write_sweep_csv(rows: Sequence[dict[str, Any]], parameters: Sequence[SweepParameter],
                    path: str | Path) -> Path:
    """Write the rows as CSV atomically (lists as JSON text, None as an empty cell).

    Raises:
        ReportError: the file cannot be written (its folder must exist).
    """
    columns = sweep_columns(parameters)

    def write(stream: IO) -> None:
        writer = csv.writer(stream, lineterminator="\n")
        writer.writerow(columns)
        writer.writerows([[_cell(row.get(column)) for column in columns] for row in rows])

    return write_output_file(path, write)


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, (list, tuple, dict)):
        return json.dumps(value)
    return str(value)
