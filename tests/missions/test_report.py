"""Report writers: CSV logs, summary.json, PNG plots, atomic output folders, summary table."""

from __future__ import annotations

import csv
import errno
import json
import math
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from pyflyt_like.missions import plots, report
from pyflyt_like.missions.flight_log import FlightLog
from tests.unwritable import refuse_writes_in

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
SETPOINTS = ("sp_x", "sp_y", "sp_yaw", "sp_z")


def make_log(name: str = "quad", actuators: int = 4, steps: int = 60,
             offset: float = 0.0) -> FlightLog:
    """A synthetic flight: a climbing circle, tracked with a small oscillating error."""
    log = FlightLog(name, SETPOINTS, tuple(f"motor{i}" for i in range(actuators)))
    for k in range(steps):
        t = k / 120
        reference = np.array([np.cos(t) + offset, np.sin(t), 1.0 + 0.5 * t])
        state = np.arange(12.0) * 1e-3 * k
        state[9:12] = reference + 0.05 * np.sin(7 * t)
        log.append(t, state, reference, np.r_[reference[:2], 0.1 * t, reference[2]],
                   0.5 + 0.2 * np.sin(t + np.arange(actuators)),
                   float(np.linalg.norm(state[9:12] - reference)))
    return log


def summary_of(logs: list[FlightLog]) -> dict:
    return {"mission": "test", "completed": True, "duration": 0.5, "vehicles": [
        {"name": log.vehicle, "type": "quadx", "controller": "position", "waypoints_total": 4,
         "waypoints_reached": 4, "completion_time": 0.45, "rms_error": 0.03,
         "max_error": 0.05, "collisions": 0, "crashed": False} for log in logs]}


def snapshot(folder: Path) -> dict[str, bytes]:
    """Every entry of ``folder`` (hidden ones too) with its content."""
    return {p.name: p.read_bytes() if p.is_file() else b"<dir>" for p in folder.iterdir()}


def test_flight_log_csv_has_the_columns_one_row_per_step_and_exact_values(tmp_path):
    log = make_log(steps=37)
    # values whose short decimal forms would not round-trip at lower precision
    log.append(1.0 / 3.0, np.full(12, 0.1), np.array([1e-17, -2.5e300, math.pi]),
               np.array([np.nan, np.inf, -np.inf, 0.0]), np.full(4, 2.0 / 3.0), 1.0 + 2**-52)
    path = report.write_flight_log(log, tmp_path / "log.csv")
    assert path == tmp_path / "log.csv"
    with path.open(newline="", encoding="utf-8") as stream:
        rows = list(csv.reader(stream))
    assert tuple(rows[0]) == log.columns
    assert len(rows) - 1 == len(log.times) == 38
    values = np.array([[float(v) for v in row] for row in rows[1:]])
    np.testing.assert_array_equal(values, log.table())  # bit-exact, NaN == NaN here
    loaded = np.loadtxt(path, delimiter=",", skiprows=1)
    np.testing.assert_array_equal(loaded, log.table())


def test_an_empty_log_writes_only_the_header(tmp_path):
    log = FlightLog("idle", SETPOINTS, ("m0",))
    lines = report.write_flight_log(log, tmp_path / "log.csv").read_text().splitlines()
    assert lines == [",".join(log.columns)]


def test_log_file_names_are_safe_and_unique():
    logs = [make_log(name, steps=1) for name in ("quad", "a/b", "a_b", "A_B", "..", "x y")]
    assert report.log_file_names(logs) == [
        "log_quad.csv", "log_a_b.csv", "log_a_b_2.csv", "log_A_B_3.csv", "log_vehicle.csv",
        "log_x_y.csv"]


def test_summary_json_round_trips_and_converts_numpy_types(tmp_path):
    summary = summary_of([make_log("a", steps=1), make_log("b", steps=1)])
    expected = json.loads(json.dumps(summary))
    vehicle = summary["vehicles"][0]
    vehicle.update(waypoints_reached=np.int64(4), rms_error=np.float64(0.03),
                   crashed=np.bool_(False), completion_time=np.float32(0.5))
    expected["vehicles"][0]["completion_time"] = 0.5
    summary["vehicles"][1].update(max_error=float("nan"), completion_time=None)
    expected["vehicles"][1].update(max_error=None, completion_time=None)
    summary["extra"] = {"start": np.array([1.0, 2.0]), "files": (Path("x.csv"),)}
    expected["extra"] = {"start": [1.0, 2.0], "files": ["x.csv"]}

    def strict(constant):
        raise AssertionError(f"non-standard JSON constant {constant}")

    path = report.write_summary(summary, tmp_path / "summary.json")
    text = path.read_text(encoding="utf-8")
    assert json.loads(text, parse_constant=strict) == expected
    assert text.startswith('{\n  "mission": "test"') and text.endswith("}\n")
    assert isinstance(json.loads(text)["vehicles"][0]["waypoints_reached"], int)


def test_summary_values_without_json_form_are_named(tmp_path):
    with pytest.raises(TypeError, match=r"summary\.vehicles\[0\]\.name: object"):
        report.write_summary({"vehicles": [{"name": object()}]}, tmp_path / "s.json")
    assert list(tmp_path.iterdir()) == []


def test_plots_are_png_of_the_expected_size_and_show_data(tmp_path):
    from matplotlib.image import imread

    logs = [make_log("a"), make_log("b", actuators=6, offset=2.0)]
    paths = report.write_plots(logs, tmp_path, prefix="run_",
                               waypoints=[[[1.0, 0.0, 1.0], [0.0, 1.0, 1.2]], None])
    assert [p.name for p in paths] == ["run_path_3d.png", "run_altitude.png",
                                       "run_position_error.png", "run_actuators.png"]
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(p.name for p in paths)
    for path in paths:
        assert path.read_bytes().startswith(PNG_SIGNATURE)
        image = imread(path)
        assert image.shape[:2] == ((600, 1280) if "path_3d" in path.name else (600, 800))
        assert image.std() > 0.01
        # coloured (non-grey) pixels: the data lines were drawn, not just empty axes
        assert np.mean(np.ptp(image[..., :3], axis=-1) > 0.3) > 1e-3


def test_actuator_figure_grows_with_many_vehicles():
    figure = plots.actuator_figure([make_log(f"v{i}", steps=5) for i in range(5)])
    assert figure.canvas.get_width_height() == (800, 1000)
    assert len(figure.axes) == 5
    assert [axes.get_title() for axes in figure.axes] == [f"v{i}" for i in range(5)]


def test_actuators_of_different_units_get_their_own_panels():
    log = make_log("plane", actuators=3)
    log.actuator_units = ("deflection [rad]", "throttle 0…1", "deflection [rad]")
    figure = plots.actuator_figure([log, make_log("quad", actuators=2)])
    assert [(axes.get_title(), axes.get_ylabel()) for axes in figure.axes] == [
        ("plane", "deflection [rad]"), ("plane", "throttle 0…1"), ("quad", "command")]
    assert [len(axes.get_lines()) for axes in figure.axes] == [2, 1, 2]


def test_the_path_figure_has_a_top_down_view_with_the_start_marked():
    figure = plots.path_figure([make_log("a")], waypoints=[[[1.0, 0.0, 1.0]]])
    top = figure.axes[1]
    assert top.get_xlabel() == "x [m] (east)" and top.get_ylabel() == "y [m] (north)"
    start, end, marks = (c.get_offsets() for c in top.collections)
    assert len(start) == len(end) == len(marks) == 1


def test_the_altitude_axis_is_at_least_a_metre_tall():
    flat = make_log("level")
    for k, (state, reference) in enumerate(zip(flat.states, flat.references)):
        state[11], reference[2] = 40.0 + 1e-3 * np.sin(k), 40.0  # holds 40 m to a millimetre
    axes = plots.altitude_figure([flat]).axes[0]
    low, high = axes.get_ylim()
    assert high - low >= 1.0 and low < 40.0 < high


def test_plotting_does_not_touch_pyplot(tmp_path):
    code = ("import sys; from pyflyt_like.missions import report; "
            "from tests.missions.test_report import make_log; "
            f"report.write_plots([make_log()], {str(tmp_path)!r}); "
            "assert 'matplotlib.pyplot' not in sys.modules, 'pyplot was imported'")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=Path(__file__).parents[2], timeout=60)
    assert run.returncode == 0, run.stderr
    assert len(list(tmp_path.glob("*.png"))) == 4


def test_write_outputs_writes_everything_and_keeps_other_files(tmp_path):
    folder = tmp_path / "new" / "nested"
    logs = [make_log("quad"), make_log("crazy flie", offset=1.0)]
    paths = report.write_outputs(logs, summary_of(logs), folder)
    assert [p.name for p in paths] == ["log_quad.csv", "log_crazy_flie.csv", "summary.json",
                                       "path_3d.png", "altitude.png", "position_error.png",
                                       "actuators.png"]
    assert all(p.parent == folder and p.is_file() for p in paths)
    assert sorted(p.name for p in folder.iterdir()) == sorted(p.name for p in paths)
    # a second run replaces its own files and leaves the others alone
    (folder / "notes.txt").write_text("keep me")
    old_log = (folder / "log_quad.csv").read_bytes()
    logs = [make_log("quad", steps=10)]
    report.write_outputs(logs, summary_of(logs), folder)
    assert (folder / "notes.txt").read_text() == "keep me"
    assert (folder / "log_quad.csv").read_bytes() != old_log
    assert (folder / "log_crazy_flie.csv").exists()
    assert not [p for p in folder.iterdir() if p.name.startswith(".")]
    assert json.loads((folder / "summary.json").read_text())["vehicles"][0]["name"] == "quad"


def test_a_failure_midway_leaves_the_folder_as_it_was(tmp_path, monkeypatch):
    for name, content in [("summary.json", b"old summary"), ("log_quad.csv", b"old,log\n"),
                          ("path_3d.png", b"old png"), ("keep.txt", b"precious")]:
        (tmp_path / name).write_bytes(content)
    before = snapshot(tmp_path)

    def broken(logs):  # fails after the logs, the summary and two plots were staged
        raise RuntimeError("plotting failed")

    monkeypatch.setattr(plots, "actuator_figure", broken)
    logs = [make_log("quad")]
    with pytest.raises(RuntimeError, match="plotting failed"):
        report.write_outputs(logs, summary_of(logs), tmp_path)
    assert snapshot(tmp_path) == before


def test_a_failing_file_write_is_a_report_error_and_changes_nothing(tmp_path, monkeypatch):
    (tmp_path / "summary.json").write_text("old")
    before = snapshot(tmp_path)
    real_fsync, calls = os.fsync, []

    def fsync(fd):  # the third file written hits a full disk
        calls.append(fd)
        if len(calls) == 3:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    logs = [make_log("a"), make_log("b")]
    with pytest.raises(report.ReportError) as caught:
        report.write_outputs(logs, summary_of(logs), tmp_path)
    assert str(caught.value) == (f"cannot write the files into output folder {tmp_path}: "
                                 f"{os.strerror(errno.ENOSPC)}")
    assert snapshot(tmp_path) == before


def test_an_output_folder_that_is_a_file_is_a_clear_error(tmp_path):
    blocker = tmp_path / "results"
    blocker.write_text("not a folder")
    logs = [make_log()]
    with pytest.raises(report.ReportError, match=r"is a file, not a folder") as caught:
        report.write_outputs(logs, summary_of(logs), blocker)
    assert isinstance(caught.value, NotADirectoryError)
    assert str(blocker) in str(caught.value) and "\n" not in str(caught.value)
    with pytest.raises(report.ReportError, match=r"cannot be created") as caught:
        report.write_outputs(logs, summary_of(logs), blocker / "sub")
    assert str(blocker / "sub") in str(caught.value)
    assert blocker.read_text() == "not a folder"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["results"]


def test_a_read_only_output_folder_is_a_clear_error(tmp_path, monkeypatch):
    folder = tmp_path / "ro"
    folder.mkdir()
    folder.chmod(0o555)
    if not hasattr(os, "geteuid") or os.geteuid() == 0:  # permissions do not bind root
        refuse_writes_in(monkeypatch, folder)
    expected = re.escape(f"output folder {folder} is not writable (Permission denied)")
    try:
        with pytest.raises(report.ReportError, match=expected):
            report.write_outputs([make_log()], summary_of([make_log()]), folder)
    finally:
        folder.chmod(0o755)
    assert list(folder.iterdir()) == []


def test_summary_table_has_one_aligned_row_per_vehicle():
    summary = summary_of([make_log("quadx", steps=1), make_log("crazyflie", steps=1),
                          make_log("lost", steps=1)])
    summary["vehicles"][0].update(completion_time=12.3456, rms_error=0.09123,
                                  max_error=0.1874)
    summary["vehicles"][1].update(waypoints_reached=2, completion_time=None, collisions=1,
                                  crashed=True)
    summary["vehicles"][2].update(waypoints_reached=3, completion_time=None,
                                  max_error=float("nan"))
    lines = report.format_summary_table(summary).splitlines()
    assert len(lines) == 5
    assert lines[0].split("  ")[0] == "vehicle" and "waypoints reached" in lines[0]
    for header in ("time [s]", "RMS error [m]", "max error [m]", "collisions", "status"):
        assert header in lines[0]
    assert set(lines[1]) == {"-", " "}
    assert lines[2].split() == ["quadx", "4/4", "12.35", "0.091", "0.187", "0", "done"]
    assert lines[3].split() == ["crazyflie", "2/4", "-", "0.030", "0.050", "1", "crashed"]
    assert lines[4].split() == ["lost", "3/4", "-", "0.030", "-", "0", "incomplete"]
    # numbers right-aligned under their headers
    end = lines[0].index("RMS error [m]") + len("RMS error [m]")
    assert all(line[end - 1] != " " for line in lines[2:])
    assert report.format_summary_table({"vehicles": []}).count("\n") == 1
