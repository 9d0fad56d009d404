"""`pyflyt-like fly`: exit codes, one-line errors, the report files, atomic output."""

import json
import re
import subprocess
import sys

import numpy as np
import pytest

from pyflyt_like import cli
from pyflyt_like.missions import report as report_module
from pyflyt_like.missions import runner as runner_module
from pyflyt_like.missions import video as video_module
from pyflyt_like.missions.default_mission import DEFAULT_MISSION_YAML
from pyflyt_like.missions.flight_log import FlightLog
from tests.unwritable import refuse_writes_in

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
                     "altitude.png", "position_error.png", "actuators.png"}
    summary = json.loads((out / "summary.json").read_text())
    assert summary["completed"] and len(summary["vehicles"]) == 2
    from matplotlib.image import imread
    sizes = {"path_3d.png": (600, 1280), "altitude.png": (600, 800),
             "position_error.png": (600, 800), "actuators.png": (600, 800)}
    for png, size in sizes.items():
        data = (out / png).read_bytes()
        assert data.startswith(PNG_SIGNATURE)
        image = imread(out / png)
        assert image.shape[:2] == size and image.std() > 0.01


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


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc is Linux's")
@pytest.mark.parametrize("flag, path, match", [
    ("--acmi", "/proc/x.acmi",
     r"--acmi /proc/x\.acmi: no file can be written in its folder /proc \("),
    ("--video", "/proc/x.mp4",
     r"--video /proc/x\.mp4: no file can be written in its folder /proc \("),
    ("--output", "/proc", r"output folder /proc is not writable \("),
    ("--output", "/proc/out", r"output folder /proc/out cannot be created: /proc is not "
                              r"writable \("),
])
def test_a_folder_where_even_root_cannot_write_is_refused_before_flying(tmp_path, flag, path,
                                                                        match):
    # /proc passes every permission check (os.access) for root, who runs CI, but no file
    # can be created there: only a trial file tells, before the flight, not after it.
    args = ["--output", str(tmp_path / "out")] if flag != "--output" else []
    run = fly(*args, flag, path)
    assert run.returncode == 2 and run.stdout == ""  # not flown: no outcome printed
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in run.stderr, run.stderr
    assert re.search(match, lines[0]), lines[0]
    assert list(tmp_path.iterdir()) == []


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


# ------------------------------------------------------------------ in-process, validate-only
TINY_MISSION = """
name: tiny
duration_limit: 5
arrival_tolerance: 0.05
vehicles:
  - {name: cf, type: multirotor, model: crazyflie21, start: {position: [0, 0, 1]}, speed: 1.0,
     waypoints: [[0.2, 0, 1]]}
"""


def fly_in_process(capfd, *args):
    """Run ``pyflyt-like fly`` in this process; return (exit code, stdout, stderr)."""
    code = cli.main(["fly", "--no-progress", *args])
    out, err = capfd.readouterr()
    return code, out, err


@pytest.fixture
def no_flight(monkeypatch):
    """Make any flight fail the test: the error must come before the simulation starts."""
    def forbidden(*args, **kwargs):
        raise AssertionError("the mission was flown although it should have been refused")

    monkeypatch.setattr(runner_module, "fly_mission", forbidden)
    monkeypatch.setattr(runner_module, "build_aviary", forbidden)


@pytest.fixture
def tiny(tmp_path):
    path = tmp_path / "tiny.yaml"
    path.write_text(TINY_MISSION)
    return path


def assert_exit_2_one_line(code, err, match):
    lines = err.strip().splitlines()
    assert code == 2, err
    assert len(lines) == 1 and "Traceback" not in err, err
    assert lines[0].startswith("pyflyt-like fly: error: ")
    assert re.search(match, lines[0]), lines[0]


@pytest.mark.parametrize("case", ["output is a file", "output under a file",
                                  "output not writable", "video extension", "video folder missing",
                                  "video is a folder", "video folder not writable",
                                  "video extra missing"])
def test_destinations_are_checked_before_flying(tmp_path, tiny, capfd, monkeypatch, no_flight,
                                                case):
    out = tmp_path / "out"
    args = [str(tiny), "--output", str(out)]
    if case == "output is a file":
        out.write_text("not a folder")
        match = r"output folder .*out is a file, not a folder"
    elif case == "output under a file":
        (tmp_path / "file").write_text("x")
        args[2] = str(tmp_path / "file" / "out")
        match = r"output folder .*file/out cannot be created: .*file is a file"
    elif case == "output not writable":
        refuse_writes_in(monkeypatch, tmp_path)
        match = (r"output folder .*out cannot be created: .* is not writable \(Permission "
                 r"denied\)")
    elif case == "video extension":
        args += ["--video", str(tmp_path / "clip.avi")]
        match = r"--video must name an \.mp4 file, got '.*clip\.avi'"
    elif case == "video folder missing":
        args += ["--video", str(tmp_path / "nope" / "clip.mp4")]
        match = r"--video .*clip\.mp4: its folder .*nope does not exist"
    elif case == "video is a folder":
        (tmp_path / "clip.mp4").mkdir()
        args += ["--video", str(tmp_path / "clip.mp4")]
        match = r"--video .*clip\.mp4 is a folder"
    elif case == "video folder not writable":
        videos = tmp_path / "videos"
        videos.mkdir()
        refuse_writes_in(monkeypatch, videos)
        args += ["--video", str(videos / "clip.mp4")]
        match = r"--video .*clip\.mp4: no file can be written in its folder .*videos \(Perm"
    else:
        def missing():
            raise ImportError(video_module.INSTALL_HINT)

        monkeypatch.setattr(video_module, "check_video_support", missing)
        args += ["--video", str(tmp_path / "clip.mp4")]
        match = r"recording video needs the video extra: pip install"
    code, stdout, err = fly_in_process(capfd, *args)
    assert_exit_2_one_line(code, err, match)
    assert stdout == ""
    assert not out.is_dir() and not list(tmp_path.glob("**/*.csv"))  # nothing written


@pytest.mark.parametrize("write, match", [
    (lambda path: path.mkdir(), r"mission file .*m\.yaml is a directory, not a file"),
    (lambda path: path.write_bytes(b"name: caf\xe9\n"),
     r"m\.yaml is not UTF-8 text: byte 0xe9 at offset 9 \(line 1\)"),
    (lambda path: path.write_text(TINY_MISSION + "name: again\n"),
     r"duplicate key 'name' at line 8, column 1 \(first at line 2, column 1\)"),
    (lambda path: path.write_text(TINY_MISSION.replace("name: tiny", "physics_hz: 1000000007")),
     r"physics_hz must be a positive integer <= 10000 Hz, got 1000000007"),
    (lambda path: path.write_text(TINY_MISSION.replace("speed: 1.0", "speed: yes")),
     r"vehicles\[0\]\.speed must be a number, not a bool"),
    (lambda path: path.write_text("vehicles: " + "[" * 1000 + "]" * 1000 + "\n"),
     r"nested deeper than 20 levels"),
])
def test_bad_mission_files_exit_2_before_flying(tmp_path, capfd, no_flight, write, match):
    path = tmp_path / "m.yaml"
    write(path)
    code, stdout, err = fly_in_process(capfd, str(path), "--output", str(tmp_path / "out"))
    assert_exit_2_one_line(code, err, match)
    assert not (tmp_path / "out").exists()


def test_run_mission_checks_the_output_folder_before_flying(tmp_path, monkeypatch):
    from pyflyt_like.missions.mission import Mission

    def forbidden(*args, **kwargs):
        raise AssertionError("flew")

    monkeypatch.setattr(runner_module, "build_aviary", forbidden)
    (tmp_path / "taken").write_text("a file")
    mission = Mission.from_yaml_text(TINY_MISSION)
    with pytest.raises(report_module.OutputFolderIsAFileError, match="is a file"):
        runner_module.run_mission(mission, output_dir=tmp_path / "taken")
    with pytest.raises(ValueError, match=r"video must name an \.mp4 file"):
        runner_module.run_mission(mission, video=tmp_path / "clip.gif")


def test_a_report_that_cannot_be_written_still_prints_the_summary(tmp_path, tiny, capfd,
                                                                  monkeypatch):
    """The one flight here (a 0.2 m hop): the disk fails after it, the table is still shown."""
    def failing_disk(*args, **kwargs):
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(report_module, "write_outputs", failing_disk)
    code, stdout, err = fly_in_process(capfd, str(tiny), "--output", str(tmp_path / "out"))
    assert code == 1
    assert "mission 'tiny': completed" in stdout
    assert re.search(r"^cf\s+1/1\s", stdout, re.MULTILINE), stdout
    assert "wrote" not in stdout
    lines = err.strip().splitlines()
    assert lines == ["pyflyt-like fly: error: cannot write the report: [Errno 5] "
                     "Input/output error"]
