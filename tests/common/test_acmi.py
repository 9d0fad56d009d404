"""Tacview ACMI 2.2: write, read back, the geographic map, attitude conventions, errors."""

from __future__ import annotations

import copy
import errno
import io
import math
import os
import sys
import zipfile

import numpy as np
import pybullet
import pytest

from pyflyt_like.common import atomic_files
from pyflyt_like.common.acmi import (
    DEFAULT_REFERENCE_LATITUDE,
    DEFAULT_REFERENCE_LONGITUDE,
    WGS84_FLATTENING,
    WGS84_SEMI_MAJOR_AXIS,
    AcmiEvent,
    AcmiWriter,
    enu_to_geodetic,
    euler_to_tacview,
    geodetic_to_enu,
    read_acmi,
    tacview_to_euler,
)
from pyflyt_like.common.acmi import reader as reader_module
from pyflyt_like.common.atomic_files import FileWriteError


def wrapped_degrees(error: np.ndarray) -> np.ndarray:
    """|angle difference| [deg] of radians, wrapped into [0, 180]."""
    return np.degrees(np.abs((error + math.pi) % (2 * math.pi) - math.pi))


def random_flight(rng, steps: int, n: int, half_width: float):
    """(steps, n, 3) positions [m] within +-half_width (altitudes 0..3 km) and Euler angles
    [rad] (pitch within +-85 deg: away from the gimbal lock, where roll and yaw blur)."""
    positions = rng.uniform(-half_width, half_width, (steps, n, 3))
    positions[..., 2] = rng.uniform(0.0, 3000.0, (steps, n))
    euler = rng.uniform(-math.pi, math.pi, (steps, n, 3))
    euler[..., 1] = rng.uniform(-math.radians(85), math.radians(85), (steps, n))
    return positions, euler


@pytest.mark.parametrize("reference", [(DEFAULT_REFERENCE_LATITUDE, DEFAULT_REFERENCE_LONGITUDE,
                                        0.0), (60.2, 24.9, 35.0), (-45.0, 170.0, -12.5)])
def test_positions_and_attitudes_round_trip(tmp_path, reference):
    latitude, longitude, altitude = reference
    rng = np.random.default_rng(0)
    positions, euler = random_flight(rng, steps=40, n=3, half_width=10_000.0)
    times = np.arange(40) / 120.0
    path = tmp_path / "flight.acmi"
    with AcmiWriter(path, reference_latitude=latitude, reference_longitude=longitude,
                    reference_altitude=altitude) as writer:
        for object_id, color in zip((1, 2, 0xABC), ("Red", "Blue", "Green")):
            writer.add_object(object_id, f"plane {object_id}", color=color)
        for time, p, e in zip(times, positions, euler):
            writer.frame(time, [1, 2, 0xABC], p, e)
    recording = read_acmi(path)
    assert recording.reference_latitude == latitude
    assert recording.reference_longitude == longitude
    np.testing.assert_allclose([time for time, _ in recording.frames], times, atol=1e-6)
    for k, object_id in enumerate((1, 2, 0xABC)):
        track_times, track_positions, track_euler = recording.enu_track(object_id, altitude)
        np.testing.assert_allclose(track_times, times, atol=1e-6)
        assert np.abs(track_positions - positions[:, k]).max() < 0.01  # 1 cm
        assert wrapped_degrees(track_euler - euler[:, k]).max() <= 0.0051  # 0.01 deg


def test_the_file_text_header_objects_and_omitted_components(tmp_path):
    path = tmp_path / "two.acmi"
    writer = AcmiWriter(path, reference_latitude=45.5, reference_longitude=-73.25,
                        title="Test, one", properties={"Category": "unit test"})
    writer.add_object(1, "team 0 / uav 0", color="Red", coalition="team 0",
                      properties={"Pilot": "uav_0"})
    writer.add_object(0x1F, "quad", type="Air+Rotorcraft", color="Blue")
    level = np.zeros((2, 3))
    writer.frame(0.0, [1, 0x1F], [[0.0, 0.0, 10.0], [5.0, 0.0, 2.0]], level)
    writer.frame(0.5, [1, 0x1F], [[10.0, 0.0, 10.0], [5.0, 0.0, 2.0]], level)  # 0x1F still
    writer.event(0.5, "Message", [1, 0x1F], "first, then\nsecond")
    writer.event(0.75, "Bookmark", (), "ABC")  # hexadecimal-looking text is still text
    writer.set_properties(0.75, 0x1F, {"Health": 0.25})
    writer.event(1.0, "Destroyed", [0x1F])
    writer.remove(1.0, 0x1F)
    assert not path.exists()  # nothing before close
    assert writer.close() == path and writer.close() == path  # once

    raw = path.read_bytes()
    assert raw.startswith(b"\xef\xbb\xbfFileType=text/acmi/tacview\nFileVersion=2.2\n")
    assert b"\r" not in raw
    lines = raw.decode("utf-8-sig").splitlines()
    assert lines[2:9] == ["0,ReferenceTime=2026-01-01T00:00:00Z", "0,ReferenceLongitude=-73.25",
                          "0,ReferenceLatitude=45.5", "0,Title=Test\\, one",
                          "0,Author=pyflyt_like", "0,DataRecorder=pyflyt_like",
                          "0,Category=unit test"]
    assert lines[9:] == [
        "#0",
        "1,T=0|0|10|0|0|90,Name=team 0 / uav 0,Type=Air+FixedWing,Color=Red,"
        "Coalition=team 0,Pilot=uav_0",
        "1F,T=0.00006397|0|2|0|0|90,Name=quad,Type=Air+Rotorcraft,Color=Blue",
        "#0.5",
        # 10 m east at 45.5 deg: 1.2795e-4 deg of longitude, the only component that changed;
        # 0x1F did not move: no line
        "1,T=0.00012795|||||",
        "0,Event=Message|1|1F|first\\, then\\", "second",
        "#0.75", "0,Event=Bookmark|ABC", "1F,Health=0.25",
        "#1", "0,Event=Destroyed|1F|", "-1F"]

    recording = read_acmi(path)
    assert recording.header == {"FileType": "text/acmi/tacview", "FileVersion": "2.2"}
    assert recording.global_properties["Title"] == "Test, one"
    assert recording.objects == {
        1: {"Name": "team 0 / uav 0", "Type": "Air+FixedWing", "Color": "Red",
            "Coalition": "team 0", "Pilot": "uav_0"},
        0x1F: {"Name": "quad", "Type": "Air+Rotorcraft", "Color": "Blue", "Health": "0.25"}}
    assert [time for time, _ in recording.frames] == [0.0, 0.5]
    assert set(recording.frames[1][1]) == {1}
    assert recording.frames[1][1][1][1:] == recording.frames[0][1][1][1:]  # kept values
    assert recording.events == [AcmiEvent(0.5, "Message", (1, 0x1F), "first, then\nsecond"),
                                AcmiEvent(0.75, "Bookmark", (), "ABC"),
                                AcmiEvent(1.0, "Destroyed", (0x1F,), "")]
    assert recording.removals == [(1.0, 0x1F)]
    times, poses = recording.track(1)
    np.testing.assert_allclose(times, [0.0, 0.5])
    np.testing.assert_allclose(geodetic_to_enu(poses[:, :3], 45.5, -73.25),
                               [[0, 0, 10], [10, 0, 10]], atol=1e-3)


def test_reads_the_forms_of_the_specification_and_zipped_files(tmp_path):
    # The examples of Tacview's ACMI 2.2 page: no reference point, an omitted latitude
    # and altitude; then the other transform forms, a comment, a continued line, a Timeout.
    text = ("FileType=text/acmi/tacview\nFileVersion=2.2\n"
            "0,ReferenceTime=2011-06-02T05:00:00Z\n#47.13\n"
            "3000102,T=41.6251307|41.5910417|2000.14,Name=C172\n"
            "#49\n3000102,T=41.626||\n"
            "// 3000102,T=1|2|3\n"
            "5,T=1|2|3|-50|60\n6,T=1|2|3|10|-5|270|-50|60|268\n"
            "0,Comments=two\\\nlines\n"
            "0,Event=Timeout|SourceId:507|AmmoType:FOX2|Outcome:Kill\n")
    path = tmp_path / "spec.txt.acmi"
    path.write_text(text, encoding="utf-8")
    for source in (path, _zipped(tmp_path, text)):
        recording = read_acmi(source)
        assert recording.global_properties == {"ReferenceTime": "2011-06-02T05:00:00Z",
                                               "Comments": "two\nlines"}
        assert recording.frames[0] == (47.13, {0x3000102: pytest.approx(
            (41.6251307, 41.5910417, 2000.14, math.nan, math.nan, math.nan), nan_ok=True)})
        poses = recording.frames[1][1]
        assert poses[0x3000102][:3] == (41.626, 41.5910417, 2000.14)
        assert poses[5][:3] == (1.0, 2.0, 3.0) and math.isnan(poses[5][3])
        assert poses[6] == (1.0, 2.0, 3.0, 10.0, -5.0, 270.0)
        assert recording.events == [AcmiEvent(49.0, "Timeout", (),
                                              "SourceId:507|AmmoType:FOX2|Outcome:Kill")]


def _zipped(folder, text: str):
    path = folder / "spec.zip.acmi"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("spec.txt.acmi", text)
    return path


# ------------------------------------------------------------------ attitude conventions
def _pybullet_axes(euler) -> tuple[np.ndarray, np.ndarray]:
    """Ground (ENU) directions of the nose and the right wing for PyBullet Euler angles."""
    matrix = np.reshape(pybullet.getMatrixFromQuaternion(
        pybullet.getQuaternionFromEuler(list(euler))), (3, 3))
    return matrix[:, 0], -matrix[:, 1]  # FLU: x forward, y left


def _tacview_axes(roll: float, pitch: float, yaw: float) -> tuple[np.ndarray, np.ndarray]:
    """ENU directions of the nose and the right wing for Tacview's aerospace angles [deg]:
    the FRD body in NED, R = Rz(yaw) Ry(pitch) Rx(roll)."""
    r, p, y = np.radians((roll, pitch, yaw))
    nose_ned = np.array((math.cos(p) * math.cos(y), math.cos(p) * math.sin(y), -math.sin(p)))
    right_ned = np.array((math.sin(r) * math.sin(p) * math.cos(y) - math.cos(r) * math.sin(y),
                          math.sin(r) * math.sin(p) * math.sin(y) + math.cos(r) * math.cos(y),
                          math.sin(r) * math.cos(p)))
    to_enu = np.array(((0.0, 1.0, 0.0), (1.0, 0.0, 0.0), (0.0, 0.0, -1.0)))
    return to_enu @ nose_ned, to_enu @ right_ned


def _written_angles(tmp_path, euler) -> tuple[float, float, float]:
    """Tacview roll, pitch, yaw [deg] as written to and read from a file."""
    path = tmp_path / "attitude.acmi"
    with AcmiWriter(path) as writer:
        writer.add_object(1, "plane")
        writer.frame(0.0, [1], np.zeros((1, 3)), [euler])
    return read_acmi(path).frames[0][1][1][3:]


@pytest.mark.parametrize("case, euler, expected", [
    ("level, nose east", (0.0, 0.0, 0.0), (0.0, 0.0, 90.0)),
    ("nose 20 deg up", (0.0, math.radians(-20), 0.0), (0.0, 20.0, 90.0)),
    ("right wing 30 deg down", (math.radians(30), 0.0, 0.0), (30.0, 0.0, 90.0)),
    ("nose north", (0.0, 0.0, math.pi / 2), (0.0, 0.0, 0.0)),
    ("nose west", (0.0, 0.0, math.pi), (0.0, 0.0, 270.0)),
    ("nose south-east", (0.0, 0.0, -math.pi / 4), (0.0, 0.0, 135.0)),
])
def test_attitude_signs_match_pybullet(tmp_path, case, euler, expected):
    nose, right = _pybullet_axes(euler)
    # What the case says, seen in PyBullet's own matrices (ENU: z up, y north).
    if "up" in case:
        assert nose[2] > 0.3
    if "right wing" in case:
        assert right[2] < -0.45
    angles = _written_angles(tmp_path, euler)
    np.testing.assert_allclose(angles, expected, atol=1e-9)
    tacview_nose, tacview_right = _tacview_axes(*angles)
    np.testing.assert_allclose(tacview_nose, nose, atol=1e-4)
    np.testing.assert_allclose(tacview_right, right, atol=1e-4)


def test_random_attitudes_point_the_same_way_in_tacview(tmp_path):
    rng = np.random.default_rng(1)
    for euler in rng.uniform((-math.pi, -1.5, -math.pi), (math.pi, 1.5, math.pi), (50, 3)):
        nose, right = _pybullet_axes(euler)
        tacview_nose, tacview_right = _tacview_axes(*euler_to_tacview([euler])[0])
        np.testing.assert_allclose(tacview_nose, nose, atol=1e-12)
        np.testing.assert_allclose(tacview_right, right, atol=1e-12)
        np.testing.assert_allclose(tacview_to_euler(euler_to_tacview([euler]))[0], euler,
                                   atol=1e-12)


# ------------------------------------------------------------------ the geographic map
def _ecef(geodetic: np.ndarray) -> np.ndarray:
    """Earth-centred positions [m] of (n, 3) longitude, latitude [deg], altitude [m]."""
    e2 = WGS84_FLATTENING * (2.0 - WGS84_FLATTENING)
    lon, lat = np.radians(geodetic[:, 0]), np.radians(geodetic[:, 1])
    h = geodetic[:, 2]
    n = WGS84_SEMI_MAJOR_AXIS / np.sqrt(1.0 - e2 * np.sin(lat) ** 2)
    return np.column_stack(((n + h) * np.cos(lat) * np.cos(lon), (n + h) * np.cos(lat)
                            * np.sin(lon), (n * (1.0 - e2) + h) * np.sin(lat)))


@pytest.mark.parametrize("latitude", [DEFAULT_REFERENCE_LATITUDE, 45.0])
def test_distances_on_the_earth_within_the_documented_error(latitude):
    """Pairs of points in a 10 km square at sea level: the straight-line distance between
    their places on the WGS-84 ellipsoid against the simulator's. The documented error is
    |dx| |y| tan|lat0| / R (the east scale at northing y) plus 0.75 e^2 |sin 2 lat0|
    |y1^2 - y2^2| / R (the meridian's radius changing with latitude); chords differ from
    arcs by < 1 cm over 14 km (measured at 0 deg: 4 mm)."""
    rng = np.random.default_rng(2)
    points = np.column_stack((rng.uniform(-5000.0, 5000.0, (300, 2)), np.zeros(300)))
    earth = _ecef(enu_to_geodetic(points, latitude, DEFAULT_REFERENCE_LONGITUDE))
    flat = np.linalg.norm(points[:, None] - points[None], axis=-1)
    mapped = np.linalg.norm(earth[:, None] - earth[None], axis=-1)
    dx = np.abs(points[:, None, 0] - points[None, :, 0])
    north = np.maximum(np.abs(points[:, None, 1]), np.abs(points[None, :, 1]))
    squares = np.abs(points[:, None, 1] ** 2 - points[None, :, 1] ** 2)
    e2 = WGS84_FLATTENING * (2.0 - WGS84_FLATTENING)
    phi = math.radians(latitude)
    bound = (dx * north * math.tan(phi) / 6.371e6
             + 0.75 * e2 * abs(math.sin(2.0 * phi)) * squares / 6.371e6 + 0.01)
    assert np.all(np.abs(mapped - flat) <= bound)
    if latitude == 0.0:
        assert np.abs(mapped - flat).max() < 0.01  # the default: below 1 cm over 10 km


# ------------------------------------------------------------------ errors
@pytest.fixture
def writer(tmp_path):
    writer = AcmiWriter(tmp_path / "e.acmi")
    writer.add_object(1, "a")
    writer.add_object(2, "b")
    writer.frame(1.0, [1, 2], np.zeros((2, 3)), np.zeros((2, 3)))
    return writer


@pytest.mark.parametrize("call, error, match", [
    (lambda w: w.frame(2.0, [1, 2], np.zeros((3, 3)), np.zeros((2, 3))), ValueError,
     r"positions must have shape \(2, 3\)"),
    (lambda w: w.frame(2.0, [1], [[0.0, math.nan, 0.0]], np.zeros((1, 3))), ValueError,
     "positions must be finite"),
    (lambda w: w.frame(2.0, [1], np.zeros((1, 3)), [[0.0, 0.0, math.inf]]), ValueError,
     "euler must be finite"),
    (lambda w: w.frame(2.0, [1], np.zeros((1, 3)), "level"), TypeError, "euler must be"),
    (lambda w: w.frame(2.0, [7], np.zeros((1, 3)), np.zeros((1, 3))), ValueError,
     r"object_ids names 7, which was never added \(added: \[1, 2\]\)"),
    (lambda w: w.frame(2.0, [1, 1], np.zeros((2, 3)), np.zeros((2, 3))), ValueError,
     "must not repeat"),
    (lambda w: w.frame(2.0, 1, np.zeros((1, 3)), np.zeros((1, 3))), TypeError,
     "object_ids must be a sequence"),
    (lambda w: w.frame(2.0, [1.0], np.zeros((1, 3)), np.zeros((1, 3))), TypeError,
     r"object_ids\[0\] must be an int"),
    (lambda w: w.frame(0.5, [1], np.zeros((1, 3)), np.zeros((1, 3))), ValueError,
     "time_s must not go back"),
    (lambda w: w.frame(math.nan, [1], np.zeros((1, 3)), np.zeros((1, 3))), ValueError,
     "time_s must be a finite number"),
    (lambda w: w.add_object(1, "again"), ValueError, "object_id 1 was already added"),
    (lambda w: w.add_object(0, "global"), ValueError, r"object_id must be in \[1, 2\*\*64"),
    (lambda w: w.add_object(3, "c", color="Pink"), ValueError, "color must be one of"),
    (lambda w: w.add_object(3, 5), TypeError, "name must be a str"),
    (lambda w: w.add_object(3, "c", properties={"T": "1|2|3"}), ValueError,
     "properties must be ACMI property names"),
    (lambda w: w.add_object(3, "c", properties={"Pilot": None}), TypeError,
     r"properties\['Pilot'\] must be a str or a number"),
    (lambda w: w.event(2.0, "Explosion", [1]), ValueError, "kind must be one of"),
    (lambda w: w.event(2.0, "Message", [9]), ValueError, "never added"),
    (lambda w: w.event(2.0, "Message", [1], "a|b"), ValueError, "text must not hold '|'"),
    (lambda w: w.event(2.0, "Message", [1], "a\rb"), ValueError, "carriage return"),
    (lambda w: w.set_properties(2.0, 1, {}), ValueError, "at least one property"),
    # each refused after an earlier part of the call was valid: nothing of it is kept
    (lambda w: w.frame(2.0, [1, 7], np.zeros((2, 3)), np.zeros((2, 3))), ValueError,
     r"object_ids names 7, which was never added"),
    (lambda w: w.frame(2.0, [1, 2], [[0.0, 0.0, 0.0], [0.0, 1e7, 0.0]], np.zeros((2, 3))),
     ValueError, r"positions\[1\] lies at latitude 90\.4.* deg .*must be in \[-90, 90\] deg"),
    (lambda w: w.frame(2.0, [1, 2], np.zeros((2, 3)), [[0.0, 0.0, 0.0], [1e307, 0.0, 0.0]]),
     ValueError, r"euler\[1\] must be angles \[rad\] whose degrees are finite"),
    (lambda w: w.frame(2.0, [1, 2], np.zeros((2, 3)), np.zeros((3, 3))), ValueError,
     r"euler must have shape \(2, 3\)"),
    (lambda w: w.frame(-1.0, [1], np.zeros((1, 3)), np.zeros((1, 3))), ValueError,
     r"time_s must be >= 0 s, got -1\.0"),
    (lambda w: w.frame("2", [1], np.zeros((1, 3)), np.zeros((1, 3))), TypeError, "time_s"),
    (lambda w: w.set_properties(0.5, 1, {"Health": 1}), ValueError, "time_s must not go back"),
    (lambda w: w.set_properties(2.0, 7, {"Health": 1}), ValueError, "names 7, which was never"),
    (lambda w: w.set_properties(2.0, 1, {"Health": math.nan}), ValueError,
     r"properties\['Health'\] must be a finite number"),
    (lambda w: w.set_properties(2.0, 1, {"Label": "a\rb"}), ValueError, "carriage return"),
    (lambda w: w.set_properties(2.0, 1, {"T": "0|0|0"}), ValueError, "property names"),
    (lambda w: w.event(0.5, "Message", [1], "late"), ValueError, "time_s must not go back"),
    (lambda w: w.event(2.0, "Message", [1, 9]), ValueError, "never added"),
    (lambda w: w.event(2.0, "Message", [1], 5), TypeError, "text must be a str"),
    (lambda w: w.remove(0.5, 1), ValueError, "time_s must not go back"),
    (lambda w: w.remove(2.0, 7), ValueError, "names 7, which was never added"),
    (lambda w: w.remove(2.0, 0), ValueError, r"object_id must be in \[1, 2\*\*64"),
    (lambda w: w.add_object(3, "c", coalition=["red"]), TypeError, "coalition must be a str"),
    (lambda w: w.add_object(3, "c", properties=[("Pilot", "x")]), TypeError,
     "properties must be a mapping"),
])
# angles past ~3e306 rad overflow numpy's degrees (a warning, then the ValueError tested);
# silencing it in frame() would cost every call
@pytest.mark.filterwarnings("ignore:overflow encountered in degrees:RuntimeWarning")
def test_writer_errors_name_the_argument_and_change_nothing(writer, tmp_path, call, error,
                                                            match):
    before = copy.deepcopy(vars(writer))  # the state and the lines recorded so far
    with pytest.raises(error, match=match):
        call(writer)
    assert vars(writer) == before
    _after_the_refusal(writer)  # a valid call works, and writes what it would have
    reference = AcmiWriter(tmp_path / "reference.acmi")
    reference.add_object(1, "a")
    reference.add_object(2, "b")
    reference.frame(1.0, [1, 2], np.zeros((2, 3)), np.zeros((2, 3)))
    _after_the_refusal(reference)
    assert writer.close().read_bytes() == reference.close().read_bytes()


def _after_the_refusal(writer):
    writer.frame(2.0, [1, 2], [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], np.full((2, 3), 0.1))
    writer.set_properties(2.0, 1, {"Health": 0.5})
    writer.event(2.5, "Message", [1, 2], "still recording")
    writer.remove(3.0, 2)


def test_a_huge_altitude_is_refused_and_changes_nothing(tmp_path):
    writer = AcmiWriter(tmp_path / "high.acmi", reference_altitude=1e308)
    writer.add_object(1, "a")
    before = copy.deepcopy(vars(writer))
    with pytest.raises(ValueError, match=r"positions\[0\] gives altitude inf m above sea "
                                         r"level \(reference_altitude \+ z\); it must be finite"):
        writer.frame(0.0, [1], [[0.0, 0.0, 1e308]], np.zeros((1, 3)))
    assert vars(writer) == before
    writer.frame(0.0, [1], np.zeros((1, 3)), np.zeros((1, 3)))
    assert len(read_acmi(writer.close()).frames) == 1


def test_a_failed_close_keeps_the_earlier_file_and_the_recording(writer, tmp_path,
                                                                  monkeypatch):
    writer.path.write_text("the earlier file")
    before = copy.deepcopy(vars(writer))

    def full_disk(source, target):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(atomic_files.os, "replace", full_disk)
    with pytest.raises(FileWriteError, match=r"cannot write .*e\.acmi: No space left"):
        writer.close()
    assert writer.path.read_text() == "the earlier file"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["e.acmi"]  # no partial file
    assert vars(writer) == before and not writer.closed  # still open, nothing lost
    monkeypatch.undo()
    writer.frame(2.0, [1], np.ones((1, 3)), np.zeros((1, 3)))
    assert [time for time, _ in read_acmi(writer.close()).frames] == [1.0, 2.0]
    assert writer.closed


def test_removed_objects_and_closed_writers_refuse_more(writer):
    writer.remove(2.0, 2)
    with pytest.raises(ValueError, match="names 2, which was removed at 2 s"):
        writer.frame(3.0, [2], np.zeros((1, 3)), np.zeros((1, 3)))
    writer.event(3.0, "Message", [2], "a removed object may still be named")
    writer.close()
    with pytest.raises(ValueError, match="is closed"):
        writer.frame(4.0, [1], np.zeros((1, 3)), np.zeros((1, 3)))


@pytest.mark.parametrize("kwargs, error, match", [
    ({"reference_latitude": 89.5}, ValueError, r"reference_latitude must be a number in "
                                               r"\[-89, 89\] deg"),
    ({"reference_latitude": "45"}, TypeError, "reference_latitude"),
    ({"reference_longitude": 200.0}, ValueError, "reference_longitude"),
    ({"reference_altitude": math.inf}, ValueError, "reference_altitude"),
    ({"reference_time": "2026-01-01 00:00:00"}, ValueError, "reference_time must be a UTC"),
    ({"reference_time": "2026-13-01T00:00:00Z"}, ValueError, "reference_time"),
    ({"title": None}, TypeError, "title must be a str"),
    ({"properties": {"Comments": [1]}}, TypeError, "Comments"),
])
def test_bad_writer_options(tmp_path, kwargs, error, match):
    with pytest.raises(error, match=match):
        AcmiWriter(tmp_path / "x.acmi", **kwargs)


def test_bad_paths(tmp_path):
    with pytest.raises(ValueError, match=r"path must name an \.acmi file, got '.*x\.csv'"):
        AcmiWriter(tmp_path / "x.csv")
    (tmp_path / "dir.acmi").mkdir()
    with pytest.raises(ValueError, match="is a folder"):
        AcmiWriter(tmp_path / "dir.acmi")
    with pytest.raises(FileWriteError, match="its folder .*missing does not exist"):
        AcmiWriter(tmp_path / "missing" / "x.acmi")
    with pytest.raises(TypeError, match="path must be a str or os.PathLike"):
        AcmiWriter(3)
    if sys.platform.startswith("linux"):  # root may write anywhere /proc lets it: nowhere
        with pytest.raises(FileWriteError, match=r"path /proc/x\.acmi: no file can be "
                                                 r"written in its folder /proc"):
            AcmiWriter("/proc/x.acmi")


def test_an_error_inside_the_block_still_writes_the_recording_so_far(tmp_path):
    path = tmp_path / "partial.acmi"
    with pytest.raises(RuntimeError, match="simulation failed"):
        with AcmiWriter(path) as writer:
            writer.add_object(1, "a")
            writer.frame(0.0, [1], np.zeros((1, 3)), np.zeros((1, 3)))
            raise RuntimeError("simulation failed")
    assert len(read_acmi(path).frames) == 1
    assert [p.name for p in tmp_path.iterdir()] == ["partial.acmi"]  # no temporary left


@pytest.mark.parametrize("text, match", [
    ("hello\n", "line 1: expected the header line FileType"),
    ("FileType=text/acmi/other\nFileVersion=2.2\n", "FileType must be text/acmi/tacview"),
    ("FileType=text/acmi/tacview\nFileVersion=1.1\n", "FileVersion must be 2.x"),
    ("FileType=text/acmi/tacview\n", "no FileType/FileVersion header"),
    ("FileType=text/acmi/tacview\nFileVersion=2.2\n#0\n1,T=|2|3\n",
     "line 4: T of object 1 leaves component 1 empty before it was ever given"),
    ("FileType=text/acmi/tacview\nFileVersion=2.2\n#0\n1,T=1|2\n", "3, 5, 6 or 9 components"),
    ("FileType=text/acmi/tacview\nFileVersion=2.2\n#0\n1,T=1|x|3\n",
     r"T component 2 \(latitude\) must be a finite number, got 'x'"),
    ("FileType=text/acmi/tacview\nFileVersion=2.2\n#soon\n", "line 3: a time frame must be"),
    ("FileType=text/acmi/tacview\nFileVersion=2.2\nZZ,Name=a\n", "must be hexadecimal"),
    ("FileType=text/acmi/tacview\nFileVersion=2.2\n1,Name\n", "must be Name=Value"),
])
def test_reader_errors_name_the_file_and_line(tmp_path, text, match):
    path = tmp_path / "bad.acmi"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ValueError, match=match):
        read_acmi(path)


HEADER = "FileType=text/acmi/tacview\nFileVersion=2.2\n"


def _zip(members: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return buffer.getvalue()


@pytest.mark.parametrize("data, match", [
    (bytes(range(256)), r"bad\.acmi, line 2: not UTF-8 text: byte 0x80 at offset 128 cannot "
                        r"be decoded; an ACMI file is UTF-8 text \(or a zip of one\)"),
    ((HEADER + "0,Title=café").encode()[:-1],
     r"bad\.acmi, line 3: not UTF-8 text: byte 0xc3 at offset 54 cannot be decoded \(the "
     r"file ends inside a character\)"),
    (b"\xef\xbb\xbf" + HEADER.encode() + b"0,Title=\xff\n",
     r"line 3: not UTF-8 text: byte 0xff at offset 54"),
    (b"PK\x03\x04 not really a zip", r"bad\.acmi starts as a zip archive \(a zipped ACMI "
                                     r"file\) but cannot be unzipped: File is not a zip file"),
    (_zip({}), r"bad\.acmi: a zipped ACMI file must hold exactly one file, this one holds 0"),
    (_zip({"a.acmi": HEADER, "b.acmi": HEADER}),
     r"must hold exactly one file, this one holds 2: \['a\.acmi', 'b\.acmi'\]"),
    (_zip({"a.acmi": b"\xff"}), r"bad\.acmi \(its file a\.acmi\), line 1: not UTF-8 text"),
    (_zip({"a.acmi": HEADER + "0,ReferenceLatitude=91\n"}),
     r"bad\.acmi \(its file a\.acmi\), line 3: ReferenceLatitude must be a number in "
     r"\[-90, 90\] deg, got '91'"),
    (b"", r"bad\.acmi is not a text ACMI file: it is empty"),
    (b"\n\n", r"bad\.acmi is not a text ACMI file: it is empty"),
    (HEADER + "0,ReferenceLongitude=abc\n",
     r"bad\.acmi, line 3: ReferenceLongitude must be a number in \[-180, 180\] deg, got 'abc'"),
    (HEADER + "0,ReferenceLongitude=nan\n", r"line 3: ReferenceLongitude must be a number in"),
    (HEADER + "0,ReferenceLongitude=180.5\n", r"ReferenceLongitude must be a number in"),
    (HEADER + "0,ReferenceLatitude=-inf\n", r"ReferenceLatitude must be a number in"),
    (HEADER + "0,ReferenceLatitude=-90.01\n", r"ReferenceLatitude must be a number in"),
    (HEADER + "#0\n1,T=nan|2|3\n",
     r"line 4: T component 1 \(longitude\) must be a finite number, got 'nan'"),
    (HEADER + "#0\n1,T=1|2|-inf\n", r"T component 3 \(altitude\) must be a finite number"),
    (HEADER + "#0\n1,T=1|2|3|1e999|0|0\n", r"T component 4 \(roll\) must be a finite"),
    (HEADER + "#0\n1,T=1|2|3|0|0|0|0|0|nan\n", r"T component 9 \(heading\) must be a"),
    (HEADER + "#0\n1,T=1|2|3|u|0\n", r"T component 4 \(U\) must be a finite number"),
    (HEADER + "#0\n1,T=1|95|3\n",
     r"line 4: T's latitude 95 deg \(\+ ReferenceLatitude 0 deg = 95 deg\) must be in "
     r"\[-90, 90\] deg"),
    # the reference may come after the transforms: the latitude is checked with it
    (HEADER + "#0\n1,T=1|45|3\n#1\n1,T=1|-30|3\n0,ReferenceLatitude=50\n",
     r"line 4: T's latitude 45 deg \(\+ ReferenceLatitude 50 deg = 95 deg\)"),
    (HEADER + "#inf\n", r"line 3: a time frame must be finite"),
    (HEADER + "0,Event=Destroyed|XYZ|boom\n", r"line 3: an object id must be hexadecimal"),
])
def test_unreadable_files_are_value_errors_naming_the_file(tmp_path, data, match):
    path = tmp_path / "bad.acmi"
    path.write_bytes(data.encode() if isinstance(data, str) else data)
    with pytest.raises(ValueError, match=match) as caught:
        read_acmi(path)
    assert type(caught.value) is ValueError and "\n" not in str(caught.value)


def test_latitudes_up_to_the_poles_are_read(tmp_path):
    path = tmp_path / "south.acmi"
    path.write_text(HEADER + "0,ReferenceLatitude=-89.5\n#0\n1,T=1|0.5|3\n#1\n1,T=|-0.5|\n")
    recording = read_acmi(path)
    assert recording.reference_latitude == -89.5
    assert [poses[1][:3] for _, poses in recording.frames] == [(1.0, -89.0, 3.0),
                                                                (1.0, -90.0, 3.0)]


def test_bad_paths_to_read(tmp_path):
    with pytest.raises(FileNotFoundError, match=r"ACMI file .*missing\.acmi not found"):
        read_acmi(tmp_path / "missing.acmi")
    with pytest.raises(ValueError, match=r"ACMI file .* is a folder; give the path of an "
                                         r"\.acmi file"):
        read_acmi(tmp_path)
    for bad in (3, None, b"x.acmi"):
        with pytest.raises(TypeError, match="path must be the path"):
            read_acmi(bad)


def test_a_zip_whose_data_is_corrupt_is_a_value_error(tmp_path):
    data = bytearray(_zip({"a.acmi": HEADER * 20}))
    data[40] ^= 0xFF  # inside the stored member's data: the CRC no longer matches
    path = tmp_path / "crc.zip.acmi"
    path.write_bytes(bytes(data))
    with pytest.raises(ValueError, match=r"crc\.zip\.acmi starts as a zip archive .* cannot be "
                                         r"unzipped: Bad CRC-32"):
        read_acmi(path)


@pytest.mark.parametrize("zipped", [False, True])
def test_a_recording_too_big_for_memory_is_refused_before_it_is_read(tmp_path, monkeypatch,
                                                                     zipped):
    path = tmp_path / "big.acmi"
    text = HEADER + "#0\n1,T=1|2|3\n" * 1000
    path.write_bytes(_zip({"big.acmi": text}) if zipped else text.encode())
    monkeypatch.setattr(reader_module, "check_memory", _pretend_memory(10_000))
    with pytest.raises(ValueError, match=r"reading the ACMI file .*big\.acmi.* \(\d+ bytes\) "
                                         r"needs about .* GiB, more than the .* GiB allowed"):
        read_acmi(path)


def _pretend_memory(limit: float):
    """check_memory with ``limit`` bytes allowed."""
    from pyflyt_like.common import validation

    def check(what, n_bytes, hint=""):
        real = validation.memory_limit_bytes
        validation.memory_limit_bytes = lambda: limit
        try:
            validation.check_memory(what, n_bytes, hint)
        finally:
            validation.memory_limit_bytes = real

    return check
