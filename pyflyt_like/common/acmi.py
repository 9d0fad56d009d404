"""Tacview flight recordings: writing and reading text ACMI 2.2 files.

Tacview (free version: File > Open) replays ``.acmi`` files. The text format is UTF-8 lines:
a header (``FileType=text/acmi/tacview``, ``FileVersion=2.2``), global properties of object
0 (``0,ReferenceTime=...``), time frames ``#<seconds since ReferenceTime>``, object lines
``<hex id>,T=lon|lat|alt|roll|pitch|yaw,Name=...`` (a component left empty keeps its last
value), removals ``-<hex id>`` and events ``0,Event=<kind>|<ids>|<text>``.

Frames and conversions (see docs/tacview.md):

- **Position.** The simulator's ground frame is ENU (x east, y north, z up) in metres about
  a reference point. Longitude and latitude come from a local flat-earth (equirectangular)
  map about that point with the WGS-84 radii of curvature at its latitude:
  ``latitude = lat0 + y / M(lat0)``, ``longitude = lon0 + x / (N(lat0) cos lat0)``,
  ``altitude = reference_altitude + z``. Distances along a parallel at northing y are scaled
  by about ``1 - y tan(lat0) / R``, so the error of an east-west separation dx is about
  ``|dx| |y| tan|lat0| / R`` (R ~ 6371 km): on the equator (the default reference) below 4
  cm over a 10 km square, at 45 deg 1.6 cm for dx = y = 100 m, 16 cm for 1 km, 16 m for
  10 km. The file holds offsets from ``ReferenceLongitude``/``ReferenceLatitude``.
- **Attitude.** The simulator's Euler angles are PyBullet's, of the FLU body frame:
  ``R = Rz(yaw) Ry(pitch) Rx(roll)``, so positive roll lowers the right wing, positive pitch
  lowers the nose and yaw is the nose's angle counter-clockwise from east. Tacview's are the
  aerospace ones of the FRD body in NED: roll positive right wing down, pitch positive nose
  up, yaw the heading clockwise from north, in degrees. So Tacview's (roll, pitch, yaw) is
  ``(roll, -pitch, 90 deg - yaw)``; this is exact for every attitude, not only small angles,
  because the NED/FRD matrix is the ENU/FLU one with both frames' y and z axes renamed.

Only numpy and the standard library are used (no pybullet, no numba).
"""

from __future__ import annotations

import math
import os
import re
import zipfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import IO

import numpy as np

from .angles import wrap_angle
from .atomic_files import FileWriteError, write_atomically
from .validation import as_float_array, check_choice, check_finite, check_float_in, check_int

FILE_TYPE = "text/acmi/tacview"
FILE_VERSION = "2.2"
ACMI_SUFFIX = ".acmi"
#: ``Color`` values Tacview draws (the ACMI 2.2 list).
COLORS = ("Red", "Orange", "Yellow", "Green", "Cyan", "Blue", "Violet")
#: Event kinds of ACMI 2.2.
EVENT_KINDS = ("Message", "Bookmark", "Debug", "LeftArea", "Destroyed", "TakenOff", "Landed",
               "Timeout")
# On the equator the flat-earth map is best (no convergence of meridians), over the open
# Atlantic so that altitude 0 is the sea surface and nothing flies under Tacview's terrain.
DEFAULT_REFERENCE_LATITUDE = 0.0  # deg
DEFAULT_REFERENCE_LONGITUDE = -25.0  # deg
DEFAULT_REFERENCE_TIME = "2026-01-01T00:00:00Z"
MAX_REFERENCE_LATITUDE = 89.0  # deg; the map's east scale 1 / cos(lat) blows up at the poles

WGS84_SEMI_MAJOR_AXIS = 6378137.0  # m
WGS84_FLATTENING = 1.0 / 298.257223563
_E2 = WGS84_FLATTENING * (2.0 - WGS84_FLATTENING)  # first eccentricity squared

# Decimals written: 1e-8 deg is 1.1 mm of latitude, so positions round-trip within ~1 mm;
# altitude to the millimetre; angles to 0.01 deg (half of it at most is lost in rounding).
_DEGREE_DECIMALS = 8
_ALTITUDE_DECIMALS = 3
_ANGLE_DECIMALS = 2
_TIME_DECIMALS = 6
_MAX_OBJECT_ID = 2**64 - 1
_PROPERTY_NAME = re.compile(r"[A-Za-z][A-Za-z0-9]*\Z")
_REFERENCE_TIME = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z\Z")
_HEX_ID = re.compile(r"[0-9A-Fa-f]{1,16}\Z")
_UNESCAPED_COMMA = re.compile(r"(?<!\\),")
_RESERVED = ("T", "Event")


# ------------------------------------------------------------------ conversions
def radii_of_curvature(latitude: float) -> tuple[float, float]:
    """WGS-84 meridional (M) and prime-vertical (N) radii of curvature [m] at ``latitude``
    [deg]: a metre north is ``1 / M`` rad of latitude, a metre east ``1 / (N cos lat)`` rad
    of longitude."""
    sine = math.sin(math.radians(latitude))
    w = 1.0 - _E2 * sine * sine
    return WGS84_SEMI_MAJOR_AXIS * (1.0 - _E2) / w**1.5, WGS84_SEMI_MAJOR_AXIS / math.sqrt(w)


def _degrees_per_metre(reference_latitude: float) -> tuple[float, float]:
    """(deg of longitude per metre east, deg of latitude per metre north) at the reference."""
    meridional, normal = radii_of_curvature(reference_latitude)
    return (math.degrees(1.0 / (normal * math.cos(math.radians(reference_latitude)))),
            math.degrees(1.0 / meridional))


def enu_to_geodetic(positions: object, reference_latitude: float,
                    reference_longitude: float, reference_altitude: float = 0.0) -> np.ndarray:
    """(n, 3) longitude [deg], latitude [deg], altitude [m] of (n, 3) ENU ``positions`` [m]
    about the reference point, by the flat-earth map of this module's docstring."""
    positions = as_float_array("positions", positions, (None, 3))
    latitude = _check_reference_latitude(reference_latitude)
    per_east, per_north = _degrees_per_metre(latitude)
    return np.column_stack((check_finite("reference_longitude", reference_longitude)
                            + positions[:, 0] * per_east,
                            latitude + positions[:, 1] * per_north,
                            check_finite("reference_altitude", reference_altitude)
                            + positions[:, 2]))


def geodetic_to_enu(coordinates: object, reference_latitude: float,
                    reference_longitude: float, reference_altitude: float = 0.0) -> np.ndarray:
    """(n, 3) ENU positions [m] of (n, 3) longitude [deg], latitude [deg], altitude [m]: the
    inverse of :func:`enu_to_geodetic`."""
    coordinates = as_float_array("coordinates", coordinates, (None, 3))
    latitude = _check_reference_latitude(reference_latitude)
    per_east, per_north = _degrees_per_metre(latitude)
    return np.column_stack(
        ((coordinates[:, 0] - check_finite("reference_longitude", reference_longitude))
         / per_east,
         (coordinates[:, 1] - latitude) / per_north,
         coordinates[:, 2] - check_finite("reference_altitude", reference_altitude)))


def euler_to_tacview(euler: object) -> np.ndarray:
    """(n, 3) Tacview roll, pitch, yaw [deg] of (n, 3) PyBullet Euler angles [rad] of the FLU
    body: ``(roll, -pitch, 90 - yaw)``, yaw (the heading) in [0, 360)."""
    return _tacview_angles(as_float_array("euler", euler, (None, 3)))


def _tacview_angles(euler: np.ndarray) -> np.ndarray:
    degrees = np.degrees(euler)
    return np.column_stack((degrees[:, 0], -degrees[:, 1], np.mod(90.0 - degrees[:, 2], 360.0)))


def tacview_to_euler(angles: object) -> np.ndarray:
    """(n, 3) PyBullet roll, pitch, yaw [rad] (yaw in [-pi, pi)) of (n, 3) Tacview roll,
    pitch, yaw [deg]: the inverse of :func:`euler_to_tacview`."""
    angles = as_float_array("angles", angles, (None, 3))
    radians = np.radians(angles)
    return np.column_stack((radians[:, 0], -radians[:, 1],
                            wrap_angle(math.pi / 2.0 - radians[:, 2])))


def _check_reference_latitude(value: object) -> float:
    return check_float_in("reference_latitude", value, -MAX_REFERENCE_LATITUDE,
                          MAX_REFERENCE_LATITUDE, unit=" deg")


# ------------------------------------------------------------------ paths
def check_acmi_path(path: object, name: str = "path") -> Path:
    """Check, creating nothing, that an ACMI file can be written to ``path``; return it.

    ``name`` is how the path is called in messages (e.g. ``--acmi``).

    Raises:
        TypeError: ``path`` is not a str or os.PathLike.
        ValueError: it does not end in ``.acmi`` or is an existing folder.
        FileWriteError: its folder does not exist, is not a folder or is not writable.
    """
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"{name} must be a str or os.PathLike, got {path!r}")
    path = Path(path)
    if path.suffix.lower() != ACMI_SUFFIX:
        raise ValueError(f"{name} must name an {ACMI_SUFFIX} file, got {str(path)!r}")
    if path.is_dir():
        raise ValueError(f"{name} {path} is a folder; give the path of an {ACMI_SUFFIX} file")
    folder = path.parent
    if not folder.exists():
        raise FileWriteError(f"{name} {path}: its folder {folder} does not exist")
    if not folder.is_dir():
        raise FileWriteError(f"{name} {path}: {folder} is not a folder")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise FileWriteError(f"{name} {path}: its folder {folder} is not writable")
    return path


# ------------------------------------------------------------------ writing
def _number(value: float, decimals: int) -> str:
    """``value`` with at most ``decimals`` decimals, trailing zeros dropped, no ``-0``."""
    text = f"{value:.{decimals}f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def _escape(name: str, value: object) -> str:
    """A property value as ACMI text: numbers as written, text with ``,`` escaped as ``\\,``
    and line breaks as ``\\`` + line feed."""
    if isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be a str or a number, got {value!r}")
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    if isinstance(value, (float, np.floating)):
        return _number(check_finite(name, value), 9)
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a str or a number, got {value!r}")
    if "\r" in value:
        raise ValueError(f"{name} must not hold a carriage return, got {value!r}")
    return value.replace(",", "\\,").replace("\n", "\\\n")


def _check_property_name(name: object, argument: str) -> str:
    if not isinstance(name, str) or not _PROPERTY_NAME.match(name) or name in _RESERVED:
        raise ValueError(f"{argument} must be ACMI property names (letters and digits, "
                         f"starting with a letter, not {' or '.join(_RESERVED)}), got {name!r}")
    return name


def _check_object_id(name: str, value: object) -> int:
    object_id = check_int(name, value)
    if not 1 <= object_id <= _MAX_OBJECT_ID:
        raise ValueError(f"{name} must be in [1, 2**64 - 1] (0 is the global object), got "
                         f"{object_id}")
    return object_id


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

    Raises:
        TypeError, ValueError: a bad argument (named in the message).
        FileWriteError: the folder of ``path`` is missing or not writable.
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
                world frame).
            euler: (n, 3) roll, pitch, yaw [rad] of the FLU body, as PyBullet's
                getEulerFromQuaternion (``drone.state[1]``).
        """
        self._check_open()
        ids = self._check_ids(object_ids)
        positions = as_float_array("positions", positions, (len(ids), 3))
        angles = _tacview_angles(as_float_array("euler", euler, (len(ids), 3)))
        self._advance(time_s)
        per_east, per_north = self._per_east, self._per_north
        altitude = self.reference_altitude
        for object_id, (x, y, z), (roll, pitch, heading) in zip(ids, positions.tolist(),
                                                               angles.tolist()):
            record = self._live(object_id, "object_ids")
            texts = (_number(x * per_east, _DEGREE_DECIMALS),
                     _number(y * per_north, _DEGREE_DECIMALS),
                     _number(altitude + z, _ALTITUDE_DECIMALS),
                     _number(roll, _ANGLE_DECIMALS), _number(pitch, _ANGLE_DECIMALS),
                     # 359.996 rounds to 360.00: write it as 0 (the same heading)
                     _number(heading if round(heading, _ANGLE_DECIMALS) < 360.0 else 0.0,
                             _ANGLE_DECIMALS))
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
        self._advance(time_s)
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
        self._advance(time_s)
        fields = [kind, *(format(i, "X") for i in ids), _escape("text", text)]
        self._lines.append("0,Event=" + "|".join(fields))

    def remove(self, time_s: float, object_id: int) -> None:
        """Remove an object from the battlefield at ``time_s`` (``-<id>``); it may not be
        framed again."""
        self._check_open()
        object_id = _check_object_id("object_id", object_id)
        record = self._live(object_id, "object_id")
        self._advance(time_s)
        record.removed_at = self._time
        self._lines.append(f"-{object_id:X}")

    # ----------------------------------------------------------------- closing
    def close(self) -> Path:
        """Write the file (once; later calls do nothing) and return its path.

        Raises:
            FileWriteError: it cannot be written (the target is left untouched).
        """
        if not self.closed:
            self.closed = True
            lines, self._lines = self._lines, []

            def write(stream: IO) -> None:
                # The UTF-8 byte-order mark is what Tacview's own files start with.
                stream.write(f"\ufeffFileType={FILE_TYPE}\nFileVersion={FILE_VERSION}\n")
                stream.write("\n".join(lines))
                stream.write("\n")

            write_atomically(self.path, write)
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

    def _advance(self, time_s: object) -> None:
        """Start a new time frame at ``time_s`` unless it is the current one."""
        time_s = check_finite("time_s", time_s)
        if time_s < 0.0:
            raise ValueError(f"time_s must be >= 0 s, got {time_s!r}")
        if self._time is not None and time_s < self._time:
            raise ValueError(f"time_s must not go back: got {time_s!r} s after "
                             f"{self._time!r} s")
        text = _number(time_s, _TIME_DECIMALS)
        if text != self._time_text:
            self._lines.append(f"#{text}")
            self._time_text = text
        self._time = time_s

    def _object_line(self, object_id: int, record: _WrittenObject, content: str) -> None:
        parts = [format(object_id, "X"), content, *record.pending]
        record.pending = []
        self._lines.append(",".join(parts))


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
@dataclass(frozen=True)
class AcmiEvent:
    """An event: ``time`` [s], ``kind`` (e.g. ``"Destroyed"``), ids of the objects
    concerned, and its text."""

    time: float
    kind: str
    object_ids: tuple[int, ...]
    text: str


@dataclass
class AcmiRecording:
    """What :func:`read_acmi` read.

    Attributes:
        header: ``FileType`` and ``FileVersion``.
        global_properties: properties of object 0 (``ReferenceTime``, ``Title``...), text.
        objects: id -> its properties (text, the last value set), without ``T``.
        frames: (time [s], {id: (longitude [deg], latitude [deg], altitude [m], roll, pitch,
            yaw [deg])}) in file order, one per time frame with transforms; an object is in
            a frame when the file gives its ``T`` there, with omitted components filled
            from its previous values; longitude and latitude are absolute (the reference
            added); roll, pitch and yaw are NaN for a transform without rotation.
        events: every event, in file order.
        removals: (time [s], id) of every ``-<id>`` line.
    """

    header: dict[str, str]
    global_properties: dict[str, str]
    objects: dict[int, dict[str, str]]
    frames: list[tuple[float, dict[int, tuple[float, ...]]]]
    events: list[AcmiEvent]
    removals: list[tuple[float, int]]

    @property
    def reference_latitude(self) -> float:
        """``ReferenceLatitude`` [deg] (0 if absent)."""
        return float(self.global_properties.get("ReferenceLatitude", 0.0))

    @property
    def reference_longitude(self) -> float:
        """``ReferenceLongitude`` [deg] (0 if absent)."""
        return float(self.global_properties.get("ReferenceLongitude", 0.0))

    def track(self, object_id: int) -> tuple[np.ndarray, np.ndarray]:
        """(m,) times [s] and (m, 6) longitude, latitude, altitude, roll, pitch, yaw of the
        frames that give ``object_id``'s transform."""
        object_id = check_int("object_id", object_id)
        if object_id not in self.objects:
            raise ValueError(f"object_id {object_id} is not in the recording (objects: "
                             f"{sorted(self.objects)})")
        samples = [(time, poses[object_id]) for time, poses in self.frames
                   if object_id in poses]
        times = np.array([time for time, _ in samples])
        return times, np.array([pose for _, pose in samples]).reshape(len(samples), 6)

    def enu_track(self, object_id: int, reference_altitude: float = 0.0
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(m,) times [s], (m, 3) ENU positions [m] and (m, 3) PyBullet Euler angles [rad] of
        ``object_id``, about the file's reference point at ``reference_altitude`` [m] (ACMI
        has no reference altitude: give the writer's)."""
        times, poses = self.track(object_id)
        positions = geodetic_to_enu(poses[:, :3], self.reference_latitude,
                                    self.reference_longitude, reference_altitude)
        return times, positions, tacview_to_euler(np.nan_to_num(poses[:, 3:]))


def read_acmi(path: str | os.PathLike) -> AcmiRecording:
    """Read a text ACMI 2.2 file (or a zip-compressed one, as Tacview saves).

    Lines may come in any of the four ``T`` forms (lon|lat|alt, + U|V, + roll|pitch|yaw,
    + U|V|heading); empty components keep the object's last value; ``//`` comments are
    skipped; ``\\,`` is a comma and a line ending in ``\\`` continues on the next one.

    Raises:
        FileNotFoundError: no such file.
        ValueError: it is not a text ACMI file, or a line cannot be read (the message
            names the file and the line).
    """
    path = Path(path)
    raw = path.read_bytes()
    if raw.startswith(b"PK\x03\x04"):
        with zipfile.ZipFile(path) as archive:
            names = archive.namelist()
            if len(names) != 1:
                raise ValueError(f"{path}: a zipped ACMI holds one file, this one {len(names)}")
            raw = archive.read(names[0])
    return _Parser(path, raw.decode("utf-8-sig")).parse()


class _Parser:
    def __init__(self, path: Path, text: str):
        self.path = path
        self.text = text
        self.header: dict[str, str] = {}
        self.global_properties: dict[str, str] = {}
        self.objects: dict[int, dict[str, str]] = {}
        self.frames: list[tuple[float, dict[int, list[float]]]] = []
        self.events: list[AcmiEvent] = []
        self.removals: list[tuple[float, int]] = []
        self.last: dict[int, list[float]] = {}
        self.time = 0.0
        self.line_number = 0

    def error(self, message: str) -> ValueError:
        return ValueError(f"{self.path}, line {self.line_number}: {message}")

    def parse(self) -> AcmiRecording:
        for number, line in self._logical_lines():
            self.line_number = number
            if len(self.header) < 2:
                self._header_line(line)
            elif line.startswith("#"):
                self._time_line(line[1:])
            elif line.startswith("-"):
                self.removals.append((self.time, self._object_id(line[1:])))
            else:
                self._object_line(line)
        if len(self.header) < 2:
            raise ValueError(f"{self.path} is not a text ACMI file: it has no "
                             f"FileType/FileVersion header")
        # Longitude and latitude are offsets from the reference, which may come late.
        reference = (float(self.global_properties.get("ReferenceLongitude", 0.0)),
                     float(self.global_properties.get("ReferenceLatitude", 0.0)))
        frames = [(time, {i: (pose[0] + reference[0], pose[1] + reference[1], *pose[2:])
                          for i, pose in poses.items()}) for time, poses in self.frames]
        return AcmiRecording(self.header, self.global_properties, self.objects, frames,
                             self.events, self.removals)

    def _logical_lines(self):
        """(first line number, line) of each logical line: continuations joined, blank
        lines and comments dropped."""
        pending: list[str] = []
        start = 0
        for number, line in enumerate(self.text.split("\n"), start=1):
            line = line.rstrip("\r")
            if not pending:
                start = number
            if _ends_escaped(line):
                pending.append(line[:-1])
                continue
            line = "\n".join([*pending, line])
            pending = []
            if line.strip() and not line.startswith("//"):
                yield start, line
        if pending:
            yield start, "\n".join(pending)

    def _header_line(self, line: str) -> None:
        key, _, value = line.partition("=")
        expected = ("FileType", "FileVersion")[len(self.header)]
        if key != expected:
            raise self.error(f"expected the header line {expected}=..., got {line[:60]!r}")
        if key == "FileType" and value != FILE_TYPE:
            raise self.error(f"FileType must be {FILE_TYPE}, got {value!r}")
        if key == "FileVersion" and not value.startswith("2."):
            raise self.error(f"FileVersion must be 2.x, got {value!r}")
        self.header[key] = value

    def _time_line(self, text: str) -> None:
        try:
            time = float(text)
        except ValueError:
            raise self.error(f"a time frame must be #<seconds>, got #{text[:40]}") from None
        if not math.isfinite(time):
            raise self.error(f"a time frame must be finite, got #{text[:40]}")
        self.time = time

    def _object_id(self, text: str) -> int:
        if not _HEX_ID.match(text):
            raise self.error(f"an object id must be hexadecimal, got {text[:40]!r}")
        return int(text, 16)

    def _object_line(self, line: str) -> None:
        fields = _UNESCAPED_COMMA.split(line)
        object_id = self._object_id(fields[0])
        for item in fields[1:]:
            key, equals, value = item.partition("=")
            if not equals:
                raise self.error(f"a property must be Name=Value, got {item[:40]!r}")
            value = value.replace("\\,", ",")
            if object_id == 0:
                if key == "Event":
                    self._event(value)
                else:
                    self.global_properties[key] = value
            elif key == "T":
                self._transform(object_id, value)
            else:
                self.objects.setdefault(object_id, {})[key] = value
        if object_id:
            self.objects.setdefault(object_id, {})

    def _event(self, value: str) -> None:
        parts = value.split("|")
        if parts[0] == "Timeout":  # Key:value fields (SourceId:507|...), kept as the text
            self.events.append(AcmiEvent(self.time, parts[0], (), "|".join(parts[1:])))
            return
        ids = tuple(self._object_id(part) for part in parts[1:-1])
        self.events.append(AcmiEvent(self.time, parts[0], ids,
                                     parts[-1] if len(parts) > 1 else ""))

    def _transform(self, object_id: int, value: str) -> None:
        parts = value.split("|")
        if len(parts) not in (3, 5, 6, 9):
            raise self.error(f"T must have 3, 5, 6 or 9 components, got {len(parts)}")
        # The components of lon|lat|alt|roll|pitch|yaw in each form (U, V, heading dropped).
        wanted = parts[:3] + (parts[3:6] if len(parts) >= 6 else ["nan"] * 3)
        previous = self.last.get(object_id)
        pose = []
        for k, text in enumerate(wanted):
            if text == "":
                if previous is None:
                    raise self.error(f"T of object {object_id:X} leaves component {k + 1} "
                                     "empty before it was ever given")
                pose.append(previous[k])
                continue
            try:
                pose.append(float(text))
            except ValueError:
                raise self.error(f"T component {k + 1} must be a number, got "
                                 f"{text[:40]!r}") from None
        self.last[object_id] = pose
        if not self.frames or self.frames[-1][0] != self.time:
            self.frames.append((self.time, {}))
        self.frames[-1][1][object_id] = pose


def _ends_escaped(line: str) -> bool:
    """True if ``line`` ends in an odd number of backslashes (an escaped line break)."""
    return (len(line) - len(line.rstrip("\\"))) % 2 == 1
