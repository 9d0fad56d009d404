"""Reading text ACMI 2.2 files: :func:`read_acmi`, :class:`AcmiRecording`."""

from __future__ import annotations

import codecs
import io
import math
import os
import zipfile
import zlib
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..validation import check_int, check_memory
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


#: Bytes of memory a read recording takes per byte of its text, beyond the text itself
#: (the bytes, the decoded text and its lines: at most about 3) ...
_BYTES_PER_BYTE = 3
#: ... and per line (a transform's pose list, its frame's tuple and dict entries: measured
#: 450 B for the shortest lines, #k and 1,T=|||||).
_BYTES_PER_LINE = 600
_ZIP_MAGIC = b"PK"  # every zip file, also an empty one (b"PK\x05\x06"), starts so


def read_acmi(path: str | os.PathLike) -> AcmiRecording:
    """Read a text ACMI 2.2 file (or a zip-compressed one, as Tacview saves).

    Lines may come in any of the four ``T`` forms (lon|lat|alt, + U|V, + roll|pitch|yaw,
    + U|V|heading); empty components keep the object's last value; ``//`` comments are
    skipped; ``\\,`` is a comma and a line ending in ``\\`` continues on the next one.

    Every number read must be finite: ``ReferenceLongitude`` in [-180, 180] deg,
    ``ReferenceLatitude`` in [-90, 90] deg, each transform's latitude (the reference added)
    in [-90, 90] deg. The recording must fit in memory (about 3 bytes per byte of text and
    600 per line: checked before it is read, with the estimate in the message).

    Raises:
        TypeError: ``path`` is not a str or os.PathLike.
        FileNotFoundError: no such file. PermissionError: it may not be read (other
            OSErrors likewise name it).
        ValueError: it is a folder; it is not a text ACMI file (not UTF-8, a broken zip, a
            zip of no or several files, no header); a line cannot be read or holds a number
            out of range; it is too big for memory. The message names the file (and the
            zip's member), the line and the property where there is one, and what is
            allowed.
    """
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"path must be the path (str or os.PathLike) of an ACMI file, got "
                        f"{path!r}")
    path = Path(path)
    raw = _read_bytes(path)
    where = str(path)
    if raw.startswith(_ZIP_MAGIC):
        raw, member = _unzip(path, raw)
        where = f"{path} (its file {member})"
    return _Parser(where, _decode(where, raw)).parse()


def _read_bytes(path: Path) -> bytes:
    """The bytes of the file at ``path``, its size checked against the memory first."""
    try:
        if path.is_dir():
            raise ValueError(f"ACMI file {path} is a folder; give the path of an .acmi file")
        size = path.stat().st_size
        _check_memory(str(path), size)
        return path.read_bytes()
    except FileNotFoundError:
        raise FileNotFoundError(f"ACMI file {path} not found") from None
    except PermissionError:
        raise PermissionError(f"ACMI file {path} cannot be read: permission denied") from None
    except OSError as error:
        raise OSError(f"ACMI file {path} cannot be read: {error.strerror or error}") from None


def _unzip(path: Path, raw: bytes) -> tuple[bytes, str]:
    """(the bytes, the name) of the one file of the zip archive ``raw`` read from ``path``."""
    try:
        with zipfile.ZipFile(io.BytesIO(raw)) as archive:
            members = [info for info in archive.infolist() if not info.is_dir()]
            if len(members) != 1:
                names = [info.filename for info in members]
                raise ValueError(f"{path}: a zipped ACMI file must hold exactly one file, this "
                                 f"one holds {len(members)}: {names[:5]}")
            member = members[0]
            _check_memory(f"{path} (its file {member.filename})", member.file_size)
            return archive.read(member), member.filename
    except (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError, zlib.error,
            NotImplementedError, RuntimeError) as error:
        # RuntimeError: an encrypted member; NotImplementedError: an unknown compression
        raise ValueError(f"{path} starts as a zip archive (a zipped ACMI file) but cannot be "
                         f"unzipped: {error}") from None


def _check_memory(where: str, size: int, lines: int = 0) -> None:
    check_memory(f"reading the ACMI file {where} ({size} bytes)",
                 _BYTES_PER_BYTE * size + _BYTES_PER_LINE * lines,
                 hint="read a shorter recording")


def _decode(where: str, raw: bytes) -> str:
    """``raw`` as text (UTF-8, a byte-order mark dropped), its lines checked against the
    memory."""
    _check_memory(where, len(raw), raw.count(b"\n") + 1)
    bom = len(codecs.BOM_UTF8) if raw.startswith(codecs.BOM_UTF8) else 0
    try:
        return raw[bom:].decode("utf-8")
    except UnicodeDecodeError as error:
        offset = bom + error.start
        line = raw.count(b"\n", 0, offset) + 1
        ending = " (the file ends inside a character)" if error.reason == \
            "unexpected end of data" else ""
        raise ValueError(f"{where}, line {line}: not UTF-8 text: byte 0x{raw[offset]:02x} at "
                         f"offset {offset} cannot be decoded{ending}; an ACMI file is UTF-8 "
                         "text (or a zip of one)") from None


#: The bounds of the numbers read: (low, high) [deg] of the reference point's properties.
_REFERENCE_BOUNDS = {"ReferenceLongitude": (-180.0, 180.0), "ReferenceLatitude": (-90.0, 90.0)}
_POSITION = ("longitude", "latitude", "altitude")
_ROTATION = ("roll", "pitch", "yaw")
#: What each component of a transform of 3, 5, 6 or 9 components is.
_T_FORMS = {3: _POSITION, 5: (*_POSITION, "U", "V"), 6: (*_POSITION, *_ROTATION),
            9: (*_POSITION, *_ROTATION, "U", "V", "heading")}


class _Parser:
    def __init__(self, where: str, text: str):
        self.where = where  # the file, and the zip's member
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
        # the extreme latitude offsets and their lines: checked with the reference at the end
        self.latitudes = [(math.inf, 0), (-math.inf, 0)]

    def error(self, message: str, line: int | None = None) -> ValueError:
        return ValueError(f"{self.where}, line {line or self.line_number}: {message}")

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
            what = "is empty" if not self.text.strip() else "has no FileType/FileVersion header"
            raise ValueError(f"{self.where} is not a text ACMI file: it {what}")
        # Longitude and latitude are offsets from the reference, which may come late.
        reference = (float(self.global_properties.get("ReferenceLongitude", 0.0)),
                     float(self.global_properties.get("ReferenceLatitude", 0.0)))
        for offset, line in self.latitudes:
            if not -90.0 <= offset + reference[1] <= 90.0:
                raise self.error(f"T's latitude {offset:g} deg (+ ReferenceLatitude "
                                 f"{reference[1]:g} deg = {offset + reference[1]:g} deg) must "
                                 "be in [-90, 90] deg", line)
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

    def _number(self, name: str, text: str, low: float, high: float) -> float:
        """``text`` as a finite number in [low, high], else an error naming ``name``."""
        try:
            value = float(text)
        except ValueError:
            value = None
        if value is None or not (math.isfinite(value) and low <= value <= high):
            allowed = ("a finite number" if math.isinf(low) else
                       f"a number in [{low:g}, {high:g}] deg")
            raise self.error(f"{name} must be {allowed}, got {text[:40]!r}")
        return value

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
                    if key in _REFERENCE_BOUNDS:
                        self._number(key, value, *_REFERENCE_BOUNDS[key])
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
        if len(parts) not in _T_FORMS:
            raise self.error(f"T must have 3, 5, 6 or 9 components, got {len(parts)}")
        # lon|lat|alt, then roll|pitch|yaw in the forms of 6 and 9 components; U, V and the
        # heading are dropped (but checked to be numbers as well). Without rotation the
        # pose's roll, pitch and yaw are NaN.
        names = _T_FORMS[len(parts)]
        used = 6 if len(parts) >= 6 else 3
        previous = self.last.get(object_id)
        pose = [math.nan] * 6
        for k, text in enumerate(parts):
            if text == "":
                if k < used:
                    if previous is None:
                        raise self.error(f"T of object {object_id:X} leaves component {k + 1} "
                                         "empty before it was ever given")
                    pose[k] = previous[k]
                continue
            value = self._number(f"T component {k + 1} ({names[k]})", text, -math.inf,
                                 math.inf)
            if k < used:
                pose[k] = value
        low, high = self.latitudes
        if pose[1] < low[0]:
            self.latitudes[0] = (pose[1], self.line_number)
        if pose[1] > high[0]:
            self.latitudes[1] = (pose[1], self.line_number)
        self.last[object_id] = pose
        if not self.frames or self.frames[-1][0] != self.time:
            self.frames.append((self.time, {}))
        self.frames[-1][1][object_id] = pose


def _ends_escaped(line: str) -> bool:
    """True if ``line`` ends in an odd number of backslashes (an escaped line break)."""
    return (len(line) - len(line.rstrip("\\"))) % 2 == 1
