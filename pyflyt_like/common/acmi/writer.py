"""Writing text ACMI 2.2 files: :class:`AcmiWriter`."""

from __future__ import annotations

import math
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import IO

import numpy as np

from ..atomic_files import write_atomically
from ..validation import as_float_array, check_choice, check_finite, check_float_in
from .conventions import (
    _ALTITUDE_DECIMALS,
    _ANGLE_DECIMALS,
    _DEGREE_DECIMALS,
    _REFERENCE_TIME,
    _TIME_DECIMALS,
    COLORS,
    DEFAULT_REFERENCE_LATITUDE,
    DEFAULT_REFERENCE_LONGITUDE,
    DEFAULT_REFERENCE_TIME,
    EVENT_KINDS,
    FILE_TYPE,
    FILE_VERSION,
    _check_object_id,
    _check_property_name,
    _check_reference_latitude,
    _degrees_per_metre,
    _escape,
    _number,
    _tacview_angles,
    check_acmi_path,
)


@dataclass
class _WrittenObject:
    pending: list[str]  # properties not yet written: they go on the object's first line
    last_transform: list[str] = field(default_factory=lambda: [""] * 6)
    removed_at: float | None = None


class AcmiWriter:
    """Records objects, frames and events, and writes them as a text ACMI 2.2 file.

    The lines are kept in memory (about 60 bytes per object per frame: 7 MB for 4 aircraft
    at 30 Hz over 10 minutes) and written at :meth:`close` atomically: the file appears
    complete or not at all (see :mod:`~pyflyt_like.common.atomic_files`). Used as a context
    manager the file is written on leaving the block, also when it raises (the recording up
    to the error is kept).

    Times are seconds after ``reference_time`` and may not go back. A component of an
    object's transform that reads as written the last time is left empty (the ACMI rule:
    it keeps its value), and an object whose transform did not change gets no line.

    Args:
        path: where the file goes; must end in ``.acmi`` in an existing, writable folder.
        reference_latitude: latitude of the ENU origin [deg], in [-89, 89].
        reference_longitude: longitude of the ENU origin [deg].
        reference_altitude: altitude of the ENU origin above sea level [m].
        reference_time: UTC time of t = 0, ISO 8601 as ``2026-01-01T00:00:00Z``.
        title: the recording's ``Title``.
        author: the recording's ``Author``.
        properties: further global properties (e.g. ``Comments``, ``Category``).

    A refused call (a bad argument to any method) changes nothing: everything is checked
    before the first line of the call is kept.

    Raises:
        TypeError, ValueError: a bad argument (named in the message).
        FileWriteError: the folder of ``path`` is missing or no file can be created there (a
            trial file is created and removed: see :func:`check_acmi_path`).
    """

    def __init__(self, path: str | os.PathLike, *,
                 reference_latitude: float = DEFAULT_REFERENCE_LATITUDE,
                 reference_longitude: float = DEFAULT_REFERENCE_LONGITUDE,
                 reference_altitude: float = 0.0,
                 reference_time: str = DEFAULT_REFERENCE_TIME,
                 title: str = "pyflyt_like flight", author: str = "pyflyt_like",
                 properties: Mapping[str, object] | None = None):
        self.path = check_acmi_path(path)
        self.reference_latitude = _check_reference_latitude(reference_latitude)
        self.reference_longitude = check_float_in("reference_longitude", reference_longitude,
                                                  -180.0, 180.0, unit=" deg")
        self.reference_altitude = check_finite("reference_altitude", reference_altitude)
        self.reference_time = _check_reference_time(reference_time)
        self._per_east, self._per_north = _degrees_per_metre(self.reference_latitude)
        globals_ = {"ReferenceTime": self.reference_time,
                    "ReferenceLongitude": _number(self.reference_longitude, 9),
                    "ReferenceLatitude": _number(self.reference_latitude, 9),
                    "Title": _escape("title", _check_str("title", title)),
                    "Author": _escape("author", _check_str("author", author)),
                    "DataRecorder": "pyflyt_like"}
        globals_.update(_properties("properties", properties))
        self._lines = [f"0,{key}={value}" for key, value in globals_.items()]
        self._objects: dict[int, _WrittenObject] = {}
        self._time: float | None = None
        self._time_text = ""
        self.closed = False

    # ----------------------------------------------------------------- recording
    def add_object(self, object_id: int, name: str, type: str = "Air+FixedWing",
                   color: str | None = None, coalition: str | None = None,
                   properties: Mapping[str, object] | None = None) -> None:
        """Declare an object; its properties are written with its first frame.

        Args:
            object_id: in [1, 2**64 - 1], unique in the file (written in hexadecimal).
            name: ``Name`` (e.g. ``"team 0 / uav 1"``).
            type: ``Type``, Tacview tags joined by ``+`` (``"Air+FixedWing"``,
                ``"Air+Rotorcraft"``, ``"Weapon+Missile"``...).
            color: ``Color``, one of :data:`COLORS`, or None.
            coalition: ``Coalition`` (free text), or None.
            properties: further object properties (e.g. ``{"Pilot": "uav_0"}``).
        """
        self._check_open()
        object_id = _check_object_id("object_id", object_id)
        if object_id in self._objects:
            raise ValueError(f"object_id {object_id} was already added")
        declared = {"Name": _escape("name", _check_str("name", name)),
                    "Type": _escape("type", _check_str("type", type))}
        if color is not None:
            declared["Color"] = check_choice("color", color, COLORS)
        if coalition is not None:
            declared["Coalition"] = _escape("coalition", _check_str("coalition", coalition))
        declared.update(_properties("properties", properties))
        self._objects[object_id] = _WrittenObject(
            [f"{key}={value}" for key, value in declared.items()])

    def frame(self, time_s: float, object_ids: Sequence[int], positions: object,
              euler: object) -> None:
        """Record the poses of ``object_ids`` at ``time_s``.

        Args:
            time_s: seconds after the reference time, >= 0 and >= the last time recorded.
            object_ids: (n,) ids given to :meth:`add_object`, not removed, no repeats.
            positions: (n, 3) ENU positions [m] about the reference point (the simulator's
                world frame); each must map to a latitude in [-90, 90] deg (about 10 000 km
                north or south of a reference on the equator) and a finite altitude.
            euler: (n, 3) roll, pitch, yaw [rad] of the FLU body, as PyBullet's
                getEulerFromQuaternion (``drone.state[1]``).
        """
        self._check_open()
        ids = self._check_ids(object_ids)
        records = [self._live(object_id, "object_ids") for object_id in ids]
        positions = as_float_array("positions", positions, (len(ids), 3))
        euler = as_float_array("euler", euler, (len(ids), 3))
        time_s = self._check_time(time_s)
        per_east, per_north = self._per_east, self._per_north
        altitude, latitude = self.reference_altitude, self.reference_latitude
        # Every line is made (and checked) before the first is kept: a refused call
        # changes nothing.
        angles = _tacview_angles(euler).tolist()
        transforms = []
        for k, ((x, y, z), (roll, pitch, heading)) in enumerate(zip(positions.tolist(),
                                                                   angles)):
            north, up = y * per_north, altitude + z
            if not (-90.0 <= latitude + north <= 90.0
                    and math.isfinite(up + roll + pitch + heading)):
                raise _pose_error(k, latitude + north, up, euler[k])
            transforms.append((_number(x * per_east, _DEGREE_DECIMALS),
                               _number(north, _DEGREE_DECIMALS),
                               _number(up, _ALTITUDE_DECIMALS),
                               _number(roll, _ANGLE_DECIMALS), _number(pitch, _ANGLE_DECIMALS),
                               # 359.996 rounds to 360.00: write it as 0 (the same heading)
                               _number(heading if round(heading, _ANGLE_DECIMALS) < 360.0
                                       else 0.0, _ANGLE_DECIMALS)))
        self._start_frame(time_s)
        for object_id, record, texts in zip(ids, records, transforms):
            last = record.last_transform
            if not record.pending and all(a == b for a, b in zip(texts, last)):
                continue  # unchanged: no line, the object keeps its transform
            transform = "|".join("" if a == b else a for a, b in zip(texts, last))
            record.last_transform = list(texts)
            self._object_line(object_id, record, f"T={transform}")

    def set_properties(self, time_s: float, object_id: int,
                       properties: Mapping[str, object]) -> None:
        """Set properties of an object at ``time_s`` (e.g. ``{"Health": 0.5}``)."""
        self._check_open()
        object_id = _check_object_id("object_id", object_id)
        record = self._live(object_id, "object_id")
        items = _properties("properties", properties)
        if not items:
            raise ValueError("properties must name at least one property, got none")
        self._start_frame(self._check_time(time_s))
        self._object_line(object_id, record,
                          ",".join(f"{key}={value}" for key, value in items.items()))

    def event(self, time_s: float, kind: str, object_ids: Sequence[int] = (),
              text: str = "") -> None:
        """Record an event: ``0,Event=<kind>|<ids>|<text>``.

        Args:
            time_s: as in :meth:`frame`.
            kind: one of :data:`EVENT_KINDS` (``"Message"``, ``"Bookmark"``,
                ``"Destroyed"``, ``"LeftArea"``...).
            object_ids: ids of added objects concerned (Tacview centres on them).
            text: the message; no ``|`` (it separates the event's fields).
        """
        self._check_open()
        kind = check_choice("kind", kind, EVENT_KINDS)
        ids = self._check_ids(object_ids)
        for object_id in ids:
            if object_id not in self._objects:
                raise ValueError(f"object_ids names {object_id}, which was never added")
        text = _check_str("text", text)
        if "|" in text:
            raise ValueError(f"text must not hold '|' (it separates the event's fields), "
                             f"got {text!r}")
        fields = [kind, *(format(i, "X") for i in ids), _escape("text", text)]
        self._start_frame(self._check_time(time_s))
        self._lines.append("0,Event=" + "|".join(fields))

    def remove(self, time_s: float, object_id: int) -> None:
        """Remove an object from the battlefield at ``time_s`` (``-<id>``); it may not be
        framed again."""
        self._check_open()
        object_id = _check_object_id("object_id", object_id)
        record = self._live(object_id, "object_id")
        self._start_frame(self._check_time(time_s))
        record.removed_at = self._time
        self._lines.append(f"-{object_id:X}")

    # ----------------------------------------------------------------- closing
    def close(self) -> Path:
        """Write the file (once; later calls do nothing) and return its path.

        Raises:
            FileWriteError: it cannot be written. The target is left untouched (an earlier
                file stays as it was, no partial file is left) and the writer open with its
                recording, so that ``close`` may be called again.
        """
        if not self.closed:
            lines = self._lines

            def write(stream: IO) -> None:
                # The UTF-8 byte-order mark is what Tacview's own files start with.
                stream.write(f"\ufeffFileType={FILE_TYPE}\nFileVersion={FILE_VERSION}\n")
                stream.write("\n".join(lines))
                stream.write("\n")

            write_atomically(self.path, write)
            self.closed = True
            self._lines = []
        return self.path

    def __enter__(self) -> AcmiWriter:
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()

    # ----------------------------------------------------------------- helpers
    def _check_open(self) -> None:
        if self.closed:
            raise ValueError(f"the ACMI writer of {self.path} is closed")

    def _check_ids(self, object_ids: object) -> list[int]:
        if isinstance(object_ids, (str, bytes)) or not isinstance(
                object_ids, (Sequence, np.ndarray)):
            raise TypeError(f"object_ids must be a sequence of ints, got {object_ids!r}")
        ids = [_check_object_id(f"object_ids[{k}]", i) for k, i in enumerate(object_ids)]
        if len(set(ids)) != len(ids):
            raise ValueError(f"object_ids must not repeat an id, got {ids}")
        return ids

    def _live(self, object_id: int, name: str) -> _WrittenObject:
        record = self._objects.get(object_id)
        if record is None:
            raise ValueError(f"{name} names {object_id}, which was never added "
                             f"(added: {sorted(self._objects)})")
        if record.removed_at is not None:
            raise ValueError(f"{name} names {object_id}, which was removed at "
                             f"{record.removed_at:g} s")
        return record

    def _check_time(self, time_s: object) -> float:
        """``time_s`` as a float, checked to be finite, >= 0 and not before the last time."""
        time_s = check_finite("time_s", time_s)
        if time_s < 0.0:
            raise ValueError(f"time_s must be >= 0 s, got {time_s!r}")
        if self._time is not None and time_s < self._time:
            raise ValueError(f"time_s must not go back: got {time_s!r} s after "
                             f"{self._time!r} s")
        return time_s

    def _start_frame(self, time_s: float) -> None:
        """Start a new time frame at ``time_s`` (checked by :meth:`_check_time`) unless it
        is the current one."""
        text = _number(time_s, _TIME_DECIMALS)
        if text != self._time_text:
            self._lines.append(f"#{text}")
            self._time_text = text
        self._time = time_s

    def _object_line(self, object_id: int, record: _WrittenObject, content: str) -> None:
        parts = [format(object_id, "X"), content, *record.pending]
        record.pending = []
        self._lines.append(",".join(parts))


def _pose_error(k: int, latitude: float, altitude: float, euler: np.ndarray) -> ValueError:
    """Why row ``k`` of a frame cannot be written (its finite input overflowed, or it lies
    beyond a pole)."""
    if not -90.0 <= latitude <= 90.0:
        return ValueError(f"positions[{k}] lies at latitude {latitude:g} deg (the flat-earth map "
                          f"about the reference point); a latitude must be in [-90, 90] deg")
    if not math.isfinite(altitude):
        return ValueError(f"positions[{k}] gives altitude {altitude:g} m above sea level "
                          "(reference_altitude + z); it must be finite")
    return ValueError(f"euler[{k}] must be angles [rad] whose degrees are finite, got "
                      f"{euler.tolist()}")


def _check_str(name: str, value: object) -> str:
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a str, got {value!r}")
    return value


def _check_reference_time(value: object) -> str:
    text = _check_str("reference_time", value)
    try:
        if not _REFERENCE_TIME.match(text):
            raise ValueError
        datetime.strptime(text.split(".")[0].rstrip("Z"), "%Y-%m-%dT%H:%M:%S")
    except ValueError:
        raise ValueError("reference_time must be a UTC time as 2026-01-01T00:00:00Z, got "
                         f"{value!r}") from None
    return text


def _properties(name: str, properties: Mapping[str, object] | None) -> dict[str, str]:
    if properties is None:
        return {}
    if not isinstance(properties, Mapping):
        raise TypeError(f"{name} must be a mapping of property name to value, got "
                        f"{properties!r}")
    return {_check_property_name(key, name): _escape(f"{name}[{key!r}]", value)
            for key, value in properties.items()}


# ------------------------------------------------------------------ reading
