"""Missions in Rerun: ``pyflyt-like fly --rerun`` (a :class:`MissionRecorder` the runner
steps) and ``pyflyt-like replay LOG.csv --rerun`` (:func:`replay_flight_logs`).

The missions package cannot import this one (the layers of pyproject.toml put
integrations above missions), so the runner takes the recorder as an argument of
:func:`~pyflyt_like.missions.runner.fly_mission` and calls ``begin(aviary)`` once and
``record()`` after every step; the command calls :meth:`MissionRecorder.finish` with the
flight.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from pyflyt_like.missions.flight_log import STATE_COLUMNS

from ._sdk import DEFAULT_VIEWER_URL, Sink, check_rrd_path, check_viewer, import_rerun
from .aviary_recorder import AviaryRecorder
from .columns import (
    WORLD,
    entity_name,
    euler_to_quaternions,
    log_event,
    send_poses,
    send_table,
)
from .geometry import VehicleShapes
from .layout import default_blueprint, framing

rr = import_rerun()

CRASH_COLOR = (230, 40, 40)
WAYPOINT_COLOR = (250, 200, 40)
REFERENCE_COLOR = (120, 120, 120)


class MissionRecorder:
    """Records a mission flown by :func:`~pyflyt_like.missions.runner.fly_mission`.

    During the flight (through an :class:`.AviaryRecorder`): every vehicle's look and pose,
    the wind at it and its contacts. After it (:meth:`finish`, from the flight logs): the
    reference path and the waypoints of each vehicle; per vehicle the time series of its
    log grouped by unit, each state beside its setpoint and reference (``x`` with ``sp_x``
    and ``x_ref``), the actuator commands by their unit, the tracking error; the moments a
    vehicle reached its last waypoint or crashed (``events``, and a red point where it
    crashed).

    Args:
        mission: the mission to be flown.
        destination: an ``.rrd`` file, or None for the viewer running at ``url``.
        name: how ``destination`` is called in messages (``--rerun``).

    Raises (before anything is flown or written):
        ValueError: ``destination`` does not end in ``.rrd``, or is a folder.
        FileWriteError: its folder is missing or not writable.
        ConnectionError: ``destination`` None and no viewer runs at ``url``.
    """

    def __init__(self, mission: Any, destination: str | os.PathLike | None = None, *,
                 name: str = "destination", url: str = DEFAULT_VIEWER_URL):
        self.mission = mission
        self.destination = None if destination is None else check_rrd_path(destination, name)
        if destination is None:
            check_viewer(url, name)
        self._url, self._name = url, name
        self.recorder: AviaryRecorder | None = None

    def begin(self, aviary: Any) -> None:
        """Start recording ``aviary`` (called by the runner once it is built)."""
        stream = None
        if self.destination is None:
            stream = Sink(None, url=self._url, name=self._name).stream
        self.recorder = AviaryRecorder(
            aviary, self.destination if stream is None else stream,
            names=[spec.name for spec in self.mission.vehicles], blueprint=False,
            series=False)
        self.recorder.stream.send_recording_name(f"mission {self.mission.name}")

    def record(self) -> None:
        """Record the aviary after a step (called by the runner)."""
        self.recorder.record()

    def finish(self, flight: Any) -> Path | None:
        """Log what the flight's logs hold, the layout, and close; return the file written
        (None for a viewer).

        Raises:
            FileWriteError: the file cannot be written (nothing is left at its path).
        """
        recorder = self.recorder
        recorder.flush()
        stream = recorder.stream
        result = flight.result
        crash_times = list(flight.crash_times or [None] * len(result.logs))
        units: list[str] = []
        points = []
        for i, (spec, log, vehicle) in enumerate(zip(self.mission.vehicles, result.logs,
                                                     result.vehicles)):
            name = recorder.names[i]
            waypoints = np.array([w.position for w in spec.waypoints], dtype=float)
            stream.log(f"{WORLD}/waypoints/{name}", rr.Points3D(
                waypoints, labels=[f"{name} {k + 1}" for k in range(len(waypoints))],
                colors=[WAYPOINT_COLOR], radii=[0.04]), static=True)
            points.append(waypoints)
            table = log.table()
            if len(table):
                references = table[:, 13:16]
                stream.log(f"{WORLD}/paths/{name}/reference", rr.LineStrips3D(
                    [references], colors=[REFERENCE_COLOR], radii=[0.003]), static=True)
                points.append(references)
            columns = dict(zip(log.columns[1:], table[:, 1:].T))
            actuator_units = dict(zip(log.actuator_names, log.actuator_units or
                                      ("command",) * len(log.actuator_names)))
            for unit in send_table(stream, name, table[:, 0], columns, actuator_units):
                if unit not in units:
                    units.append(unit)
            if vehicle.completion_time is not None:
                log_event(stream, vehicle.completion_time, f"{name} reached its last waypoint")
            if crash_times[i] is not None:
                rows = np.flatnonzero(table[:, 0] <= crash_times[i]) if len(table) else []
                log_event(stream, crash_times[i], f"{name} crashed", level="ERROR")
                if len(rows):
                    stream.log(f"{WORLD}/crashes/{name}", rr.Points3D(
                        [table[rows[-1], 10:13]], colors=[CRASH_COLOR], radii=[0.08],
                        labels=[f"{name} crashed"]))
        centre, extent = framing(np.concatenate(points) if points else np.zeros((0, 3)))
        stream.send_blueprint(default_blueprint([*units, "m/s"], centre, extent))
        return recorder.close()

    def discard(self) -> None:
        """Write nothing (the flight failed)."""
        if self.recorder is not None:
            self.recorder.discard()


def read_flight_log(path: str | os.PathLike) -> tuple[str, list[str], np.ndarray]:
    """(vehicle name, column names, (rows, columns) values) of a mission's flight log CSV
    (``log_<vehicle>.csv``, see :class:`~pyflyt_like.missions.flight_log.FlightLog`).

    Raises:
        FileNotFoundError: no such file.
        ValueError: not a flight log (naming the file and what is missing).
    """
    path = Path(path)
    with open(path, encoding="utf-8") as file:
        header = file.readline().strip().split(",")
        required = ("time", *STATE_COLUMNS)
        missing = [c for c in required if c not in header]
        if missing:
            raise ValueError(f"{path} is not a flight log: its header lacks {missing}")
        try:
            values = np.loadtxt(file, delimiter=",", ndmin=2)
        except ValueError as error:
            raise ValueError(f"{path}: a row is not numbers: {error}") from None
    if values.size and values.shape[1] != len(header):
        raise ValueError(f"{path}: rows have {values.shape[1]} values, the header "
                         f"{len(header)} names")
    values = values.reshape(-1, len(header))
    name = path.stem.removeprefix("log_") if path.stem.startswith("log_") else path.stem
    return name, header, values


def replay_flight_logs(paths: Sequence[str | os.PathLike],
                       destination: str | os.PathLike | None = None, *,
                       name: str = "destination", url: str = DEFAULT_VIEWER_URL
                       ) -> Path | None:
    """Turn mission flight logs (CSV) into one Rerun recording; return the ``.rrd`` written
    (None when sent to the viewer at ``url``).

    Every log is a vehicle (named after ``log_<name>.csv``): a plain box (the CSV does not
    say which model flew) posed at each row's position and Euler angles, its flown and
    reference paths, and every column as a time series grouped by unit, as
    :meth:`MissionRecorder.finish` does (columns not named after a state, a setpoint or a
    reference are the actuators: unit ``command``).

    Raises:
        ValueError: no paths, two logs of one vehicle, a file that is not a flight log, a
            bad ``destination``.
        FileNotFoundError: a missing log.
        FileWriteError: the ``.rrd`` cannot be written.
        ConnectionError: ``destination`` None and no viewer runs at ``url``.
    """
    if isinstance(paths, (str, os.PathLike)) or not len(paths):
        raise ValueError(f"paths must be a non-empty list of flight-log CSV files, got "
                         f"{paths!r}")
    logs = [read_flight_log(p) for p in paths]
    names = [entity_name(vehicle) for vehicle, _, _ in logs]
    if len(set(names)) != len(names):
        raise ValueError(f"two logs of one vehicle: {names}")
    sink = Sink(destination, url=url, name=name)
    stream = sink.stream
    try:
        stream.send_recording_name("replay of " + ", ".join(Path(p).name for p in paths))
        stream.log(WORLD, rr.ViewCoordinates.RIGHT_HAND_Z_UP, static=True)
        units: list[str] = []
        points = []
        for vehicle, (_, header, values) in zip(names, logs):
            column = {c: values[:, k] for k, c in enumerate(header)}
            times = column["time"]
            positions = np.column_stack([column[c] for c in ("x", "y", "z")])
            euler = np.column_stack([column[c] for c in ("roll", "pitch", "yaw")])
            VehicleShapes.placeholder().log(stream, f"{WORLD}/{vehicle}/body")
            send_poses(stream, f"{WORLD}/{vehicle}", times, positions,
                       euler_to_quaternions(euler))
            stream.log(f"{WORLD}/paths/{vehicle}/flown", rr.LineStrips3D([positions],
                                                                         radii=[0.005]),
                       static=True)
            points.append(positions)
            if all(c in column for c in ("x_ref", "y_ref", "z_ref")):
                references = np.column_stack([column[c] for c in ("x_ref", "y_ref", "z_ref")])
                stream.log(f"{WORLD}/paths/{vehicle}/reference", rr.LineStrips3D(
                    [references], colors=[REFERENCE_COLOR], radii=[0.003]), static=True)
            known = {"time", *STATE_COLUMNS, "x_ref", "y_ref", "z_ref", "error"}
            actuators = {c: "command" for c in header
                         if c not in known and not c.startswith("sp")}
            table = {c: v for c, v in column.items() if c != "time"}
            for unit in send_table(stream, vehicle, times, table, actuators):
                if unit not in units:
                    units.append(unit)
        centre, extent = framing(np.concatenate(points))
        stream.send_blueprint(default_blueprint(units, centre, extent))
    except BaseException:
        sink.discard()
        raise
    return sink.close()
