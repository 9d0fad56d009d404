"""Reading text ACMI 2.2 files: :func:`read_acmi`, :class:`AcmiRecording`."""

from __future__ import annotations

import math
import os
import zipfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..validation import check_int
from .conventions import (
    _HEX_ID,
    _UNESCAPED_COMMA,
    FILE_TYPE,
    geodetic_to_enu,
    tacview_to_euler,
)


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
