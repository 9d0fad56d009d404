"""Writing a mission's report: flight logs (CSV), summary.json, plots, and the summary table.

Every file is written atomically (a temporary sibling, fsync'ed, then :func:`os.replace`d
over the target): a reader sees the old file or the complete new one, never half of one.
:func:`write_outputs` stages a whole report in a temporary sub-folder and moves the files
into place only once all were written, so a failure (a full disk, an error in a plot)
leaves the output folder exactly as it was. How the folder is checked, prepared and filled,
and the :class:`ReportError` of every failure to write, are
:mod:`pyflyt_like.missions.output_files`.

The summary (what :meth:`~pyflyt_like.missions.runner.MissionResult.summary` returns and
``summary.json`` holds) is plain data laid out as::

    {
        "mission": str,             # the mission's name
        "completed": bool,          # every vehicle reached every waypoint and did not crash
        "duration": float,          # simulated seconds flown
        "vehicles": [               # one entry per vehicle, in mission order
            {
                "name": str,
                "type": str,                  # quadx, multirotor, fixedwing
                "controller": str,
                "waypoints_total": int,
                "waypoints_reached": int,
                "completion_time": float | None,   # s; None (null) if not completed
                "rms_error": float,           # m, position error to the reference
                "max_error": float,           # m
                "collisions": int,
                "crashed": bool,
                # with an estimator (mission key `estimator`), else None (null):
                "estimate_position_rms": float | None,  # m, estimate vs truth (EKF)
                "estimate_velocity_rms": float | None,  # m/s (EKF)
                "estimate_attitude_rms": float | None,  # deg
            },
        ],
    }

:func:`write_summary` accepts any JSON-like data, converting numpy scalars and arrays,
tuples, paths and dataclasses; non-finite floats (NaN, inf) become ``null`` so that the file
is strict JSON. :func:`format_summary_table` needs the ``vehicles`` list; a missing entry
shows as ``-``.
"""

from __future__ import annotations

import csv
import dataclasses
import json
import math
import os
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import IO, Any

import numpy as np

from pyflyt_like.common.atomic_files import write_atomically

from . import plots
from .flight_log import FlightLog
from .output_files import (
    OutputFolderIsAFileError,
    ReportError,
    check_output_folder,
    fill_folder,
    prepare_folder,
    write_output_file,
)

__all__ = [
    "ESTIMATE_PLOT_FILE",
    "LOG_FILE_PATTERN",
    "PLOT_FILES",
    "SUMMARY_FILE",
    "TABLE_COLUMNS",
    "format_summary_table",
    "log_file_names",
    "write_flight_log",
    "write_outputs",
    "write_plots",
    "write_summary",
    # where they lived before output_files and common.atomic_files; still imported from here
    "OutputFolderIsAFileError",
    "ReportError",
    "check_output_folder",
    "prepare_folder",
    "write_atomically",
]

SUMMARY_FILE = "summary.json"
LOG_FILE_PATTERN = "log_{}.csv"
PLOT_FILES = ("path_3d.png", "altitude.png", "position_error.png", "actuators.png")
#: Written after PLOT_FILES only when some vehicle flew with an estimator.
ESTIMATE_PLOT_FILE = "estimate.png"
TABLE_COLUMNS = ("vehicle", "waypoints reached", "time [s]", "RMS error [m]", "max error [m]",
                 "collisions", "status")
#: Before "status" when a vehicle flew with an estimator: its errors against the truth.
ESTIMATE_COLUMNS = ("estimate RMS [m]", "estimate attitude RMS [deg]")

PathLike = str | os.PathLike


def write_flight_log(log: FlightLog, path: PathLike) -> Path:
    """Write one vehicle's log as CSV: a header row of ``log.columns``, one row per step.

    Floats are written with Python's ``repr`` (the shortest text that reads back to the
    identical float), NaN and infinities as ``nan``, ``inf``, ``-inf`` (which
    ``numpy.loadtxt`` and ``float()`` read). The file is written atomically.

    Returns:
        the written path.
    """
    columns = list(log.columns)
    table = np.asarray(log.table(), dtype=float)
    if table.ndim != 2 or table.shape[1] != len(columns):
        raise ValueError(f"flight log of {log.vehicle!r}: table has shape {table.shape}, "
                         f"expected (rows, {len(columns)}) for its columns")

    def write(stream: IO) -> None:
        writer = csv.writer(stream, lineterminator="\n")
        writer.writerow(columns)
        writer.writerows(table.tolist())  # Python floats: csv writes repr()

    return write_output_file(path, write)


def log_file_names(logs: Sequence[FlightLog]) -> list[str]:
    """File names ``log_<vehicle>.csv`` of ``logs``, safe on every file system and unique.

    Characters other than letters, digits, ``.``, ``-`` and ``_`` become ``_``; if two
    vehicles end up with the same name, the later ones get ``_2``, ``_3``, ...
    """
    names: list[str] = []
    taken: set[str] = set()
    for log in logs:
        stem = re.sub(r"[^A-Za-z0-9._-]+", "_", str(log.vehicle)).strip(".") or "vehicle"
        candidate, count = stem, 1
        while candidate.lower() in taken:  # case-insensitive file systems
            count += 1
            candidate = f"{stem}_{count}"
        taken.add(candidate.lower())
        names.append(LOG_FILE_PATTERN.format(candidate))
    return names


def write_summary(summary: Mapping[str, Any], path: PathLike) -> Path:
    """Write ``summary`` as strict JSON (indent 2, UTF-8), atomically.

    numpy scalars and arrays, tuples, sets, paths and dataclasses are converted to JSON
    types; non-finite floats become ``null``.

    Raises:
        TypeError: a value has no JSON form; the message names where it is
            (``vehicles[0].name``).
    """
    data = _jsonable(summary, "summary")
    text = json.dumps(data, indent=2, ensure_ascii=False, allow_nan=False) + "\n"
    return write_output_file(path, lambda stream: stream.write(text))


def _jsonable(value: Any, where: str) -> Any:
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, np.generic):
        value = value.item()
        if isinstance(value, (bool, str)):
            return value
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, np.ndarray):
        return _jsonable(value.tolist(), where)
    if isinstance(value, os.PathLike):
        return os.fspath(value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        value = dataclasses.asdict(value)
    if isinstance(value, Mapping):
        return {str(k): _jsonable(v, f"{where}.{k}") for k, v in value.items()}
    if isinstance(value, (set, frozenset)):
        value = sorted(value, key=repr)
    if isinstance(value, (list, tuple)):
        return [_jsonable(v, f"{where}[{i}]") for i, v in enumerate(value)]
    raise TypeError(f"{where}: {type(value).__name__} {value!r} has no JSON form")


def write_plots(logs: Sequence[FlightLog], folder: PathLike, prefix: str = "",
                waypoints: Sequence[Any] | None = None) -> list[Path]:
    """Render the report's PNGs into ``folder`` (which must exist), each atomically.

    Writes ``<prefix>path_3d.png`` (flown and reference paths in 3-D and top-down, equal
    axes; 12.8 x 6 in), ``<prefix>altitude.png`` (altitude and its reference [m] against
    time), ``<prefix>position_error.png`` (error [m] against time, per vehicle) and
    ``<prefix>actuators.png`` (actuator commands against time, one panel per vehicle and
    unit) and, only when some log has estimate columns (a vehicle flown with an estimator),
    ``<prefix>estimate.png`` (the estimate's position [m] and attitude [deg] errors against
    the truth, per such vehicle; :func:`~pyflyt_like.missions.plots.estimate_figure`):
    8 x 6 in at 100 dpi unless said (the actuator figure grows by 2 in per panel beyond
    three, the estimate figure by 3 in per vehicle beyond two). Figures are made without
    pyplot (see :mod:`pyflyt_like.missions.plots`).

    Args:
        logs: one flight log per vehicle.
        folder: where to write.
        prefix: prepended to each file name.
        waypoints: optional, per vehicle, its waypoint positions (k, 3) to mark in 3-D.

    Returns:
        the written paths, in the order above.
    """
    folder = Path(folder)
    figures = list(zip(PLOT_FILES, (
        lambda: plots.path_figure(logs, waypoints), lambda: plots.altitude_figure(logs),
        lambda: plots.error_figure(logs), lambda: plots.actuator_figure(logs))))
    if any(log.has_estimates for log in logs):
        figures.append((ESTIMATE_PLOT_FILE, lambda: plots.estimate_figure(logs)))
    written = []
    for name, build in figures:
        figure = build()
        try:
            written.append(write_output_file(
                folder / f"{prefix}{name}",
                lambda stream, figure=figure: figure.savefig(stream, format="png", dpi=plots.DPI),
                binary=True))
        finally:
            figure.clear()  # no pyplot registry holds it: clearing frees it at once
    return written


def write_outputs(logs: Sequence[FlightLog], summary: Mapping[str, Any], folder: PathLike,
                  waypoints: Sequence[Any] | None = None) -> list[Path]:
    """Write a mission's report into ``folder``: logs, ``summary.json`` and the plots.

    Writes ``log_<vehicle>.csv`` per vehicle (see :func:`log_file_names`), ``summary.json``
    and the PNGs of :func:`write_plots`, all-or-nothing (:func:`fill_folder`): they replace
    same-named files of an earlier run only once all are complete, a failure while writing
    leaves ``folder`` as it was, and other files are never touched.

    Args:
        logs: one flight log per vehicle.
        summary: the summary dict (layout in this module's docstring).
        folder: the output folder; created (with its parents) if missing.
        waypoints: optional, per vehicle, its waypoint positions (k, 3) to mark in the 3-D
            plot.

    Returns:
        the written paths, in order: logs, summary, plots.

    Raises:
        ReportError: ``folder`` is a file (:class:`OutputFolderIsAFileError`, also a
            :class:`NotADirectoryError`), cannot be created, is not writable, or a file
            cannot be written (e.g. the disk is full). Errors of the plotting itself
            propagate unchanged (after the clean-up).
    """
    def write(staging: Path) -> list[Path]:
        staged = [write_flight_log(log, staging / name)
                  for log, name in zip(logs, log_file_names(logs))]
        staged.append(write_summary(summary, staging / SUMMARY_FILE))
        return staged + write_plots(logs, staging, waypoints=waypoints)

    return fill_folder(folder, write)


def format_summary_table(summary: Mapping[str, Any]) -> str:
    """The per-vehicle table the CLI prints, one row per vehicle (no trailing newline).

    Columns: vehicle, waypoints reached (``3/4``), time [s] (completion time, ``-`` if not
    completed), RMS and max position error [m], collisions, and status: ``done`` (reached
    every waypoint), ``incomplete`` or ``crashed``. When a vehicle flew with an estimator,
    the estimate's position and attitude RMS errors against the truth come before the
    status (``-`` where not estimated).
    """
    vehicles = summary.get("vehicles", [])
    estimated = any(v.get("estimate_attitude_rms") is not None for v in vehicles)
    columns = ((*TABLE_COLUMNS[:-1], *ESTIMATE_COLUMNS, TABLE_COLUMNS[-1]) if estimated
               else TABLE_COLUMNS)
    rows = [_table_row(vehicle, estimated) for vehicle in vehicles]
    widths = [max([len(header)] + [len(row[i]) for row in rows])
              for i, header in enumerate(columns)]

    def line(cells: Sequence[str]) -> str:
        # vehicle and status left-aligned, the numbers right-aligned
        parts = [cell.ljust(width) if i in (0, len(cells) - 1) else cell.rjust(width)
                 for i, (cell, width) in enumerate(zip(cells, widths))]
        return "  ".join(parts).rstrip()

    lines = [line(columns), line(["-" * width for width in widths])]
    lines += [line(row) for row in rows]
    return "\n".join(lines)


def _table_row(vehicle: Mapping[str, Any], estimated: bool = False) -> list[str]:
    reached, total = vehicle.get("waypoints_reached"), vehicle.get("waypoints_total")
    waypoints = f"{_text(reached, 'd')}/{_text(total, 'd')}"
    time = vehicle.get("completion_time")
    if vehicle.get("crashed"):
        status = "crashed"
    elif time is not None:
        status = "done"
    else:
        status = "incomplete"
    estimate = ([_text(vehicle.get("estimate_position_rms"), ".3f"),
                 _text(vehicle.get("estimate_attitude_rms"), ".2f")] if estimated else [])
    return [str(vehicle.get("name", "-")), waypoints, _text(time, ".2f"),
            _text(vehicle.get("rms_error"), ".3f"), _text(vehicle.get("max_error"), ".3f"),
            _text(vehicle.get("collisions"), "d"), *estimate, status]


def _text(value: Any, spec: str) -> str:
    if value is None or isinstance(value, bool):
        return "-"
    try:
        number = float(value)
    except (TypeError, ValueError):
        return str(value)
    if not math.isfinite(number):
        return "-" if math.isnan(number) else f"{number}"
    return format(int(number), spec) if spec == "d" else format(number, spec)
