"""Writing a mission's report: flight logs (CSV), summary.json, plots, and the summary table.

Every file is written atomically (a temporary sibling, fsync'ed, then :func:`os.replace`d
over the target): a reader sees the old file or the complete new one, never half of one.
:func:`write_outputs` stages a whole report in a temporary sub-folder and moves the files
into place only once all were written, so a failure (a full disk, an error in a plot)
leaves the output folder exactly as it was.

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
            },
        ],
    }

:func:`write_summary` accepts any JSON-like data, converting numpy scalars and arrays,
tuples, paths and dataclasses; non-finite floats (NaN, inf) become ``null`` so that the file
is strict JSON. :func:`format_summary_table` needs the ``vehicles`` list; a missing entry
shows as ``-``.
"""

from __future__ import annotations

import contextlib
import csv
import dataclasses
import json
import math
import os
import re
import secrets
import shutil
import tempfile
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import IO, Any

import numpy as np

from . import plots
from .flight_log import FlightLog

SUMMARY_FILE = "summary.json"
LOG_FILE_PATTERN = "log_{}.csv"
PLOT_FILES = ("path_3d.png", "altitude.png", "position_error.png", "actuators.png")
TABLE_COLUMNS = ("vehicle", "waypoints reached", "time [s]", "RMS error [m]", "max error [m]",
                 "collisions", "status")

PathLike = str | os.PathLike


class ReportError(OSError):
    """The report cannot be written where asked; the message is one line naming the place.

    ``reason`` is the bare cause (e.g. ``No space left on device``) where there is one.
    """

    reason: str | None = None


def _report_error(message: str, reason: str) -> ReportError:
    error = ReportError(f"{message}: {reason}")
    error.reason = reason
    return error


class OutputFolderIsAFileError(ReportError, NotADirectoryError):
    """The output folder given is an existing file."""


def write_atomically(path: PathLike, write: Callable[[IO], None], binary: bool = False) -> Path:
    """Write a file through a temporary sibling, fsync it, and rename it over ``path``.

    Args:
        path: the file to (re)place; its folder must exist.
        write: called with the open temporary file (text, UTF-8, ``newline=""``; or binary).
        binary: open the temporary file in binary mode.

    Returns:
        ``path`` as a :class:`~pathlib.Path`.

    Raises:
        ReportError: the temporary file cannot be created, written or renamed (any OSError,
            also one raised by ``write``). Other exceptions of ``write`` propagate unchanged.
            In every failure the temporary file is removed and ``path`` is left untouched.
    """
    path = Path(path)
    # os.open's mode (0o666 minus the umask) gives the file the permissions of any new file;
    # tempfile.mkstemp would make it 0o600. O_BINARY: no newline translation on Windows.
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0)
    temporary = _temporary_name(path)
    try:
        try:
            fd = os.open(temporary, flags, 0o666)
        except FileExistsError:  # lost a race for the random name: try another one once
            temporary = _temporary_name(path)
            fd = os.open(temporary, flags, 0o666)
    except OSError as error:
        raise _report_error(f"cannot write {path}", error.strerror or str(error)) from None
    try:
        if binary:
            stream: IO = os.fdopen(fd, "wb")
        else:
            stream = os.fdopen(fd, "w", encoding="utf-8", newline="")
        with stream:
            write(stream)
            stream.flush()
            os.fsync(stream.fileno())
        os.replace(temporary, path)
    except OSError as error:
        _remove(temporary)
        raise _report_error(f"cannot write {path}", error.strerror or str(error)) from None
    except BaseException:
        _remove(temporary)
        raise
    _fsync_directory(path.parent)
    return path


def _temporary_name(path: Path) -> Path:
    """A hidden sibling of ``path`` with a random part (same folder: os.replace is atomic)."""
    return path.with_name(f".{path.name}.{secrets.token_hex(6)}.tmp")


def _remove(path: Path) -> None:
    with contextlib.suppress(OSError):
        os.unlink(path)


def _fsync_directory(folder: Path) -> None:
    """Persist a rename in ``folder`` (best effort: not every platform can open folders)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        with contextlib.suppress(OSError):
            os.fsync(fd)
    finally:
        os.close(fd)


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

    return write_atomically(path, write)


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
    return write_atomically(path, lambda stream: stream.write(text))


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
    unit): 8 x 6 in at 100 dpi unless said (the actuator figure grows by 2 in per panel
    beyond three). Figures are made without pyplot (see :mod:`pyflyt_like.missions.plots`).

    Args:
        logs: one flight log per vehicle.
        folder: where to write.
        prefix: prepended to each file name.
        waypoints: optional, per vehicle, its waypoint positions (k, 3) to mark in 3-D.

    Returns:
        the written paths, in the order above.
    """
    folder = Path(folder)
    builders = (lambda: plots.path_figure(logs, waypoints), lambda: plots.altitude_figure(logs),
                lambda: plots.error_figure(logs), lambda: plots.actuator_figure(logs))
    written = []
    for name, build in zip(PLOT_FILES, builders):
        figure = build()
        try:
            written.append(write_atomically(
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
    and the PNGs of :func:`write_plots`, first into a temporary staging sub-folder of
    ``folder``; only once all are complete is each moved into place with :func:`os.replace`
    (replacing a same-named file of an earlier run). The staging folder is removed in every
    case, so a failure while writing leaves ``folder`` as it was: nothing in it is lost,
    changed or half-written, and no temporary file remains. Other files are never touched.

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
    folder = prepare_folder(folder)
    try:
        staging = Path(tempfile.mkdtemp(prefix=".report-staging-", dir=folder))
    except OSError as error:
        raise ReportError(f"output folder {folder} is not writable "
                          f"({error.strerror or error})") from None
    try:
        try:
            staged = [write_flight_log(log, staging / name)
                      for log, name in zip(logs, log_file_names(logs))]
            staged.append(write_summary(summary, staging / SUMMARY_FILE))
            staged += write_plots(logs, staging, waypoints=waypoints)
        except OSError as error:
            reason = getattr(error, "reason", None) or error.strerror or str(error)
            raise _report_error(f"cannot write the files into output folder {folder}",
                                reason) from None
        written = []
        for path in staged:
            target = folder / path.name
            try:
                os.replace(path, target)
            except OSError as error:
                raise _report_error(f"cannot move {path.name} into output folder {folder}",
                                    error.strerror or str(error)) from None
            written.append(target)
        _fsync_directory(folder)
        return written
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def prepare_folder(folder: PathLike) -> Path:
    """``folder`` as a Path, created with its parents if missing, checked to be writable.

    Raises:
        OutputFolderIsAFileError: it is a file.
        ReportError: it cannot be created or is not writable.
    """
    folder = Path(folder)
    if folder.exists() and not folder.is_dir():
        raise OutputFolderIsAFileError(f"output folder {folder} is a file, not a folder")
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise ReportError(f"output folder {folder} cannot be created "
                          f"({error.strerror or error})") from None
    if not os.access(folder, os.W_OK | os.X_OK):
        raise ReportError(f"output folder {folder} is not writable")
    return folder


def check_output_folder(folder: PathLike) -> Path:
    """Check, creating nothing, that :func:`write_outputs` could write into ``folder``.

    For use before a long run: ``folder`` must be a writable folder, or not exist yet with
    its nearest existing ancestor a writable folder (so that it can be created).

    Raises:
        OutputFolderIsAFileError: ``folder``, or the ancestor it would be created in, is a
            file.
        ReportError: it is not writable, or cannot be created.
    """
    folder = Path(folder)
    existing = folder
    try:
        while not (existing.exists() or existing.is_symlink()) and existing.parent != existing:
            existing = existing.parent
        is_folder = existing.is_dir()
    except OSError as error:  # e.g. a parent that may not be searched
        raise ReportError(f"output folder {folder} cannot be checked "
                          f"({error.strerror or error})") from None
    if existing == folder:
        if not is_folder:
            raise OutputFolderIsAFileError(f"output folder {folder} is a file, not a folder")
        if not os.access(folder, os.W_OK | os.X_OK):
            raise ReportError(f"output folder {folder} is not writable")
        return folder
    if not is_folder:
        raise OutputFolderIsAFileError(f"output folder {folder} cannot be created: {existing} "
                                       "is a file, not a folder")
    if not os.access(existing, os.W_OK | os.X_OK):
        raise ReportError(f"output folder {folder} cannot be created: {existing} is not "
                          "writable")
    return folder


def format_summary_table(summary: Mapping[str, Any]) -> str:
    """The per-vehicle table the CLI prints, one row per vehicle (no trailing newline).

    Columns: vehicle, waypoints reached (``3/4``), time [s] (completion time, ``-`` if not
    completed), RMS and max position error [m], collisions, and status: ``done`` (reached
    every waypoint), ``incomplete`` or ``crashed``.
    """
    rows = [_table_row(vehicle) for vehicle in summary.get("vehicles", [])]
    widths = [max([len(header)] + [len(row[i]) for row in rows])
              for i, header in enumerate(TABLE_COLUMNS)]

    def line(cells: Sequence[str]) -> str:
        # vehicle and status left-aligned, the numbers right-aligned
        parts = [cell.ljust(width) if i in (0, len(cells) - 1) else cell.rjust(width)
                 for i, (cell, width) in enumerate(zip(cells, widths))]
        return "  ".join(parts).rstrip()

    lines = [line(TABLE_COLUMNS), line(["-" * width for width in widths])]
    lines += [line(row) for row in rows]
    return "\n".join(lines)


def _table_row(vehicle: Mapping[str, Any]) -> list[str]:
    reached, total = vehicle.get("waypoints_reached"), vehicle.get("waypoints_total")
    waypoints = f"{_text(reached, 'd')}/{_text(total, 'd')}"
    time = vehicle.get("completion_time")
    if vehicle.get("crashed"):
        status = "crashed"
    elif time is not None:
        status = "done"
    else:
        status = "incomplete"
    return [str(vehicle.get("name", "-")), waypoints, _text(time, ".2f"),
            _text(vehicle.get("rms_error"), ".3f"), _text(vehicle.get("max_error"), ".3f"),
            _text(vehicle.get("collisions"), "d"), status]


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
