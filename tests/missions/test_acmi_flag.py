"""`pyflyt-like fly --acmi FILE.acmi`: a Tacview replay of every vehicle, checked up front."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from pyflyt_like import cli
from pyflyt_like.common.acmi import read_acmi
from pyflyt_like.common.acmi import writer as acmi_module
from pyflyt_like.common.atomic_files import FileWriteError
from pyflyt_like.missions import runner as runner_module
from pyflyt_like.missions.mission import VEHICLE_CONTROLLERS
from tests.unwritable import refuse_writes_in

# Two rotorcraft flying 0.2-0.4 m each: the whole run takes about a second.
TWO_VEHICLES = """
name: pair
duration_limit: 5
arrival_tolerance: 0.05
vehicles:
  - {name: cf, type: multirotor, model: crazyflie21, start: {position: [0, 0, 1]}, speed: 1.0,
     waypoints: [[0.2, 0, 1]]}
  - {name: qx, type: quadx, start: {position: [1, 0, 1]}, speed: 1.0,
     waypoints: [[1, 0.3, 1.2]]}
"""
# From tests/missions/test_fly_command.py: a QuadX told to fly below the floor.
CRASH = """
name: crash
duration_limit: 20
vehicles:
  - {name: q, type: quadx, start: {position: [0, 0, 1]}, speed: 1.0,
     waypoints: [[1, 0, -0.5], [2, 0, 1]]}
"""


def fly_in_process(capfd, *args):
    """Run ``pyflyt-like fly`` in this process; return (exit code, stdout, stderr)."""
    code = cli.main(["fly", "--no-progress", *args])
    out, err = capfd.readouterr()
    return code, out, err


def mission_file(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "mission.yaml"
    path.write_text(text)
    return path


def test_every_vehicle_is_written_at_the_log_rate(tmp_path, capfd):
    replay = tmp_path / "pair.acmi"
    code, stdout, err = fly_in_process(capfd, str(mission_file(tmp_path, TWO_VEHICLES)),
                                       "--output", str(tmp_path / "out"), "--acmi", str(replay))
    assert code == 0, err
    assert "completed" in stdout
    recording = read_acmi(replay)
    assert recording.global_properties["Title"] == "mission pair"
    assert recording.objects == {
        1: {"Name": "cf", "Type": "Air+Rotorcraft", "Color": "Blue"},
        2: {"Name": "qx", "Type": "Air+Rotorcraft", "Color": "Red"}}
    for object_id, name in ((1, "cf"), (2, "qx")):
        log = np.loadtxt(tmp_path / "out" / f"log_{name}.csv", delimiter=",", skiprows=1)
        times, positions, euler = recording.enu_track(object_id)
        # A frame per log row (unchanged transforms aside, which rotorcraft never are).
        np.testing.assert_allclose(times, log[:, 0], atol=1e-6)
        assert np.abs(positions - log[:, 10:13]).max() < 0.01  # x, y, z: within 1 cm
        error = (euler - log[:, 4:7] + np.pi) % (2 * np.pi) - np.pi  # roll, pitch, yaw
        assert np.degrees(np.abs(error)).max() < 0.01
    assert [(e.kind, e.object_ids, e.text) for e in recording.events] == [
        ("Bookmark", (2,), "qx reached its last waypoint"),
        ("Bookmark", (1,), "cf reached its last waypoint")]
    assert recording.removals == []


def test_a_crash_is_a_destroyed_event_and_the_vehicle_leaves(tmp_path, capfd):
    replay = tmp_path / "crash.acmi"
    code, stdout, _ = fly_in_process(capfd, str(mission_file(tmp_path, CRASH)),
                                     "--output", str(tmp_path / "out"), "--acmi", str(replay))
    assert code == 1 and "crashed" in stdout
    recording = read_acmi(replay)
    last = recording.frames[-1][0]
    assert [(e.time, e.kind, e.object_ids, e.text) for e in recording.events] == [
        (last, "Destroyed", (1,), "q crashed")]
    assert recording.removals == [(last, 1)]


def test_every_vehicle_type_has_a_tacview_type():
    assert set(runner_module.ACMI_TYPES) == set(VEHICLE_CONTROLLERS)
    assert runner_module.ACMI_TYPES["fixedwing"] == "Air+FixedWing"
    assert runner_module.ACMI_TYPES["rocket"].startswith("Weapon+")


@pytest.fixture
def no_flight(monkeypatch):
    """Make any flight fail the test: the error must come before the simulation starts."""
    def forbidden(*args, **kwargs):
        raise AssertionError("the mission was flown although it should have been refused")

    monkeypatch.setattr(runner_module, "fly_mission", forbidden)
    monkeypatch.setattr(runner_module, "build_aviary", forbidden)


@pytest.mark.parametrize("case", ["suffix", "folder missing", "is a folder", "not writable"])
def test_bad_acmi_paths_exit_2_with_one_line_before_flying(tmp_path, capfd, monkeypatch,
                                                           no_flight, case):
    replay = tmp_path / "replay.acmi"
    if case == "suffix":
        replay = tmp_path / "replay.txt"
        match = r"--acmi must name an \.acmi file, got '.*replay\.txt'"
    elif case == "folder missing":
        replay = tmp_path / "nope" / "replay.acmi"
        match = r"--acmi .*replay\.acmi: its folder .*nope does not exist"
    elif case == "is a folder":
        replay.mkdir()
        match = r"--acmi .*replay\.acmi is a folder"
    else:
        replay = tmp_path / "replays" / "replay.acmi"
        replay.parent.mkdir()
        refuse_writes_in(monkeypatch, replay.parent)
        match = (r"--acmi .*replay\.acmi: no file can be written in its folder .*replays "
                 r"\(Permission denied\)")
    code, stdout, err = fly_in_process(capfd, str(mission_file(tmp_path, TWO_VEHICLES)),
                                       "--output", str(tmp_path / "out"), "--acmi", str(replay))
    lines = err.strip().splitlines()
    assert code == 2 and stdout == ""
    assert len(lines) == 1 and "Traceback" not in err, err
    assert lines[0].startswith("pyflyt-like fly: error: ") and re.search(match, lines[0])
    assert not (tmp_path / "out").exists()


def test_a_failed_write_after_the_flight_exits_1_with_one_line(tmp_path, capfd, monkeypatch):
    def full(path, write, binary=False):
        raise FileWriteError(f"cannot write {path}: No space left on device")

    monkeypatch.setattr(acmi_module, "write_atomically", full)
    replay = tmp_path / "pair.acmi"
    code, stdout, err = fly_in_process(capfd, str(mission_file(tmp_path, TWO_VEHICLES)),
                                       "--output", str(tmp_path / "out"), "--acmi", str(replay))
    assert code == 1 and "completed" in stdout  # the outcome is printed first
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err
    assert re.fullmatch(r"pyflyt-like fly: error: cannot write the report: cannot write "
                        r".*pair\.acmi: No space left on device", lines[0])
    assert not replay.exists()
