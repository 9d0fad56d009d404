"""`pyflyt-like fly`: exit codes, one-line errors, the report files, atomic output."""

import json
import subprocess
import sys

import numpy as np
import pytest

from pyflyt_like.missions import report as report_module
from pyflyt_like.missions.default_mission import DEFAULT_MISSION_YAML
from pyflyt_like.missions.flight_log import FlightLog

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def fly(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "pyflyt_like", "fly", "--no-progress", *args],
                          capture_output=True, text=True, cwd=cwd, timeout=300)


@pytest.fixture(scope="module")
def default_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("default")
    return fly("--output", str(out)), out


def test_default_mission_flies_and_writes_the_report(default_run):
    run, out = default_run
    assert run.returncode == 0, run.stderr
    assert "completed" in run.stdout and "4/4" in run.stdout
    names = {p.name for p in out.iterdir()}
    assert names == {"log_quadx.csv", "log_crazyflie.csv", "summary.json", "path_3d.png",
                     "position_error.png", "actuators.png"}
    summary = json.loads((out / "summary.json").read_text())
    assert summary["completed"] and len(summary["vehicles"]) == 2
    from matplotlib.image import imread
    for png in ("path_3d.png", "position_error.png", "actuators.png"):
        data = (out / png).read_bytes()
        assert data.startswith(PNG_SIGNATURE)
        image = imread(out / png)
        assert image.shape[:2] == (600, 800) and image.std() > 0.01


def test_log_columns_and_one_row_per_control_step(default_run):
    run, out = default_run
    lines = (out / "log_quadx.csv").read_text().splitlines()
    header = lines[0].split(",")
    assert header[:13] == ["time", "p", "q", "r", "roll", "pitch", "yaw", "u", "v", "w",
                           "x", "y", "z"]
    assert header[13:16] == ["x_ref", "y_ref", "z_ref"] and header[-1] == "error"
    assert header[16:20] == ["sp_x", "sp_y", "sp_yaw", "sp_z"]
    assert header[20:24] == ["motor0", "motor1", "motor2", "motor3"]
    rows = np.loadtxt(out / "log_quadx.csv", delimiter=",", skiprows=1)
    summary = json.loads((out / "summary.json").read_text())
    assert rows.shape == (round(summary["duration"] * 120), len(header))
    assert np.allclose(np.diff(rows[:, 0]), 1 / 120)


@pytest.mark.parametrize("content, match", [
    (None, "not found"),
    ("vehicles: [\n - {type: quadx\n", "YAML syntax error"),
    (DEFAULT_MISSION_YAML.replace("type: multirotor", "type: blimp"), "type must be one of"),
    (DEFAULT_MISSION_YAML.replace("controller: geometric", "controller: lqr"), "controller"),
    (DEFAULT_MISSION_YAML.replace("- [1.0, 0.0, 1.0]", "- [1.0, 0.0]"), "needs 3 numbers"),
    (DEFAULT_MISSION_YAML.replace("- [1.0, 1.0, 1.0]", "- [1.0, .nan, 1.0]"), "finite"),
    (DEFAULT_MISSION_YAML.replace("speed: 0.8", "speed: -0.8"), "speed must be >= 0.01"),
    (DEFAULT_MISSION_YAML.replace("duration_limit: 40.0", "duration_limit: 2.0"),
     "is shorter than"),
])
def test_user_errors_exit_2_with_one_line_and_no_traceback(tmp_path, content, match):
    mission = tmp_path / "mission.yaml"
    if content is not None:
        mission.write_text(content)
    out = tmp_path / "out"
    out.mkdir()
    (out / "keep.txt").write_text("precious")
    run = fly(str(mission), "--output", str(out))
    assert run.returncode == 2
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1 and match in lines[0] and "Traceback" not in run.stderr
    assert sorted(p.name for p in out.iterdir()) == ["keep.txt"]
    assert (out / "keep.txt").read_text() == "precious"


def test_a_crashing_mission_exits_1_and_reports_it(tmp_path):
    mission = tmp_path / "crash.yaml"
    mission.write_text("""
name: crash
duration_limit: 20
vehicles:
  - {name: q, type: quadx, start: {position: [0, 0, 1]}, speed: 1.0,
     waypoints: [[1, 0, -0.5], [2, 0, 1]]}
""")
    run = fly(str(mission), "--output", str(tmp_path / "out"))
    assert run.returncode == 1
    assert "crashed" in run.stdout and "NOT completed" in run.stdout


def test_failed_writes_leave_the_folder_as_it_was(tmp_path, monkeypatch):
    log = FlightLog("v", ("sp_x", "sp_y", "sp_yaw", "sp_z"), ("m0",))
    for k in range(5):
        log.append(k / 10, np.arange(12.0), np.zeros(3), np.zeros(4), np.ones(1), 0.1 * k)
    (tmp_path / "summary.json").write_text("old")

    def broken(*args, **kwargs):
        raise RuntimeError("disk full")

    monkeypatch.setattr(report_module, "write_plots", broken)
    with pytest.raises(RuntimeError, match="disk full"):
        report_module.write_outputs([log], {"vehicles": []}, tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["summary.json"]
    assert (tmp_path / "summary.json").read_text() == "old"
    with pytest.raises(NotADirectoryError, match="not a folder"):
        report_module.write_outputs([log], {}, tmp_path / "summary.json")
