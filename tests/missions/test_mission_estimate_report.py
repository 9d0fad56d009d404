"""The mission report shows the onboard estimate against the truth: the estimate columns of
the flight-log CSV, ``estimate.png`` and the estimated path, only for vehicles flown with an
estimator (the others' reports are unchanged)."""

from __future__ import annotations

import csv
import json
import math
import struct
from pathlib import Path

import numpy as np
import pytest

from pyflyt_like.common.rotations import euler_to_matrix
from pyflyt_like.missions import plots, report, runner
from pyflyt_like.missions.flight_log import ESTIMATE_COLUMNS, FlightLog
from pyflyt_like.missions.mission import Mission

from .test_mission_sensors import SENSORS

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
SETPOINTS = ("sp_x", "sp_y", "sp_yaw", "sp_z")
# The CSV header of a QuadX without an estimator, as it was before the estimate columns.
PLAIN_QUADX_HEADER = ["time", "p", "q", "r", "roll", "pitch", "yaw", "u", "v", "w", "x", "y",
                      "z", "x_ref", "y_ref", "z_ref", "sp_x", "sp_y", "sp_yaw", "sp_z",
                      "motor0", "motor1", "motor2", "motor3", "error"]
ESTIMATION_KEYS = ("sensors", "estimator", "state_source")


def _mixed_mission() -> Mission:
    """Two QuadX, two 1 m legs each (about 2.5 s flown); the mission's sensors and EKF go to
    every vehicle, the flight below takes them off the second."""
    return Mission.from_dict({
        "name": "estimate-report", "duration_limit": 6.0, "arrival_tolerance": 0.5,
        "sensors": SENSORS, "estimator": "ekf",
        "vehicles": [
            {"name": "ekf", "type": "quadx", "start": {"position": [0, 0, 1]},
             "waypoints": [{"position": [1, 0, 1]}, {"position": [1, 1, 1]}]},
            {"name": "plain", "type": "quadx", "start": {"position": [3, 0, 1]},
             "waypoints": [{"position": [4, 0, 1]}, {"position": [4, 1, 1]}]},
        ]})


@pytest.fixture(scope="module")
def flown(tmp_path_factory) -> tuple[runner.MissionResult, Path]:
    """The mixed mission flown by the real runner, its report written; (result, folder)."""
    # The mission format gives every vehicle the same sensors and estimator, so the second
    # vehicle's are removed where the runner builds the aviary.
    real_aviary = runner.Aviary

    def first_vehicle_estimated(*args, drone_options, **kwargs):
        options = [dict(option) for option in drone_options]
        for key in ESTIMATION_KEYS:
            options[1].pop(key, None)
        return real_aviary(*args, drone_options=options, **kwargs)

    folder = tmp_path_factory.mktemp("estimate_report")
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(runner, "Aviary", first_vehicle_estimated)
        result = runner.run_mission(_mixed_mission(), folder)
    return result, folder


def _read_csv(path: Path) -> tuple[list[str], np.ndarray]:
    with path.open(newline="", encoding="utf-8") as stream:
        rows = list(csv.reader(stream))
    return rows[0], np.array(rows[1:], dtype=float)


def _png_size(path: Path) -> tuple[int, int]:
    """(height, width) [px] from the PNG's IHDR chunk."""
    data = path.read_bytes()
    assert data[:8] == PNG_SIGNATURE
    width, height = struct.unpack(">II", data[16:24])
    return height, width


def _attitude_errors(true_euler: np.ndarray, estimated_euler: np.ndarray) -> np.ndarray:
    """[deg] per row, from rotation matrices and acos of the trace: written independently
    of FlightLog.estimate_errors (which uses atan2)."""
    angles = []
    for truth, estimate in zip(true_euler, estimated_euler):
        true = np.array(euler_to_matrix(*truth)).reshape(3, 3)
        estimated = np.array(euler_to_matrix(*estimate)).reshape(3, 3)
        cosine = (np.trace(estimated.T @ true) - 1.0) / 2.0
        angles.append(math.degrees(math.acos(min(max(cosine, -1.0), 1.0))))
    return np.array(angles)


def test_the_ekf_vehicles_csv_has_estimate_columns_that_track_the_truth(flown):
    result, folder = flown
    assert [v.crashed for v in result.vehicles] == [False, False]
    header, rows = _read_csv(folder / "log_ekf.csv")
    assert header == [*PLAIN_QUADX_HEADER, *ESTIMATE_COLUMNS]
    column = {name: rows[:, k] for k, name in enumerate(header)}
    times = column["time"]
    assert times[-1] > 1.5  # enough rows after the first second to judge
    later = times > 1.0
    truth = np.column_stack([column[c] for c in ("x", "y", "z")])[later]
    estimate = np.column_stack([column[c] for c in ("x_est", "y_est", "z_est")])[later]
    assert np.isfinite(estimate).all()
    assert np.all(np.linalg.norm(estimate - truth, axis=1) < 1.0)
    angles = np.column_stack([column[c] for c in ("roll", "pitch", "yaw")])[later]
    estimated_angles = np.column_stack([column[c] for c in
                                        ("roll_est", "pitch_est", "yaw_est")])[later]
    assert np.all(_attitude_errors(angles, estimated_angles) < 10.0)


def test_the_vehicle_without_an_estimator_has_the_csv_of_before(flown):
    result, folder = flown
    header, rows = _read_csv(folder / "log_plain.csv")
    assert header == PLAIN_QUADX_HEADER
    assert rows.shape == (len(result.logs[1].times), len(PLAIN_QUADX_HEADER))
    assert not result.logs[1].has_estimates
    assert result.vehicles[1].estimate_position_rms is None


def test_the_rms_from_the_csv_agrees_with_the_summary(flown):
    _, folder = flown
    header, rows = _read_csv(folder / "log_ekf.csv")
    column = {name: rows[:, k] for k, name in enumerate(header)}
    estimated = np.isfinite(column["x_est"])  # the rows after the filter initialised
    assert estimated.sum() > 0.9 * len(rows)
    error = np.column_stack([column[f"{c}_est"] - column[c] for c in "xyz"])[estimated]
    position_rms = math.sqrt(float(np.mean(np.sum(error**2, axis=1))))
    attitude_rms = math.sqrt(float(np.mean(_attitude_errors(
        np.column_stack([column[c] for c in ("roll", "pitch", "yaw")])[estimated],
        np.column_stack([column[c] for c in ("roll_est", "pitch_est", "yaw_est")])[estimated])
        ** 2)))
    summary = json.loads((folder / report.SUMMARY_FILE).read_text())
    vehicle = summary["vehicles"][0]
    assert position_rms == pytest.approx(vehicle["estimate_position_rms"], rel=0.1)
    assert attitude_rms == pytest.approx(vehicle["estimate_attitude_rms"], rel=0.1)


def test_estimate_png_is_written_only_with_an_estimator(flown, tmp_path):
    result, folder = flown
    path = folder / report.ESTIMATE_PLOT_FILE
    assert path.is_file() and path.stat().st_size > 20_000
    assert _png_size(path) == (600, 800)
    # The same report of the vehicle without an estimator: the four figures, no estimate.
    summary = result.summary()
    summary["vehicles"] = summary["vehicles"][1:]
    report.write_outputs(result.logs[1:], summary, tmp_path)
    assert sorted(p.name for p in tmp_path.glob("*.png")) == sorted(report.PLOT_FILES)


def test_the_path_figure_shows_the_estimated_path_of_an_ekf_vehicle(flown):
    result, _ = flown
    figure = plots.path_figure(result.logs)
    labels = [line.get_label() for line in figure.axes[0].get_lines()]
    assert "ekf estimate" in labels and "plain estimate" not in labels
    assert "dash-dot estimate" in figure.get_suptitle()  # the suptitle says how
    figure.clear()


# FlightLog on synthetic rows: exact values, the complementary filter, misuse.

def _synthetic_log(position_offset: np.ndarray | None, yaw_offset: float,
                   steps: int = 5) -> FlightLog:
    """A QuadX-like log with estimates off the truth by a fixed position offset (None: no
    position, the complementary filter) and a yaw offset [rad]; the first row uninitialised.
    """
    log = FlightLog("quad", SETPOINTS, tuple(f"motor{i}" for i in range(4)))
    log.start_estimates()
    for k in range(steps):
        state = np.zeros(12)
        state[3:6] = (0.3, -0.2, 0.1 * k)  # roll, pitch, yaw [rad]
        state[9:12] = (k, 2.0 * k, 1.0)  # x, y, z [m]
        log.append(0.1 * k, state, state[9:12], np.zeros(4), np.full(4, 0.5), 0.0)
        if k == 0:
            log.append_estimate(None, None)
            continue
        # The estimated attitude: the true one turned by yaw_offset about the world z.
        turn = np.array(euler_to_matrix(0.0, 0.0, yaw_offset)).reshape(3, 3)
        rotation = turn @ np.array(euler_to_matrix(*state[3:6])).reshape(3, 3)
        euler = (math.atan2(rotation[2, 1], rotation[2, 2]), -math.asin(rotation[2, 0]),
                 math.atan2(rotation[1, 0], rotation[0, 0]))
        position = None if position_offset is None else state[9:12] + position_offset
        log.append_estimate(position, np.array(euler))
    return log


def test_estimate_errors_are_the_position_distance_and_the_rotation_angle():
    log = _synthetic_log(np.array([0.3, -0.4, 0.0]), math.radians(5.0))
    position_error, attitude_error = log.estimate_errors()
    assert np.isnan(position_error[0]) and np.isnan(attitude_error[0])
    np.testing.assert_allclose(position_error[1:], 0.5, atol=1e-12)
    np.testing.assert_allclose(attitude_error[1:], 5.0, atol=1e-9)
    assert log.columns[-6:] == ESTIMATE_COLUMNS
    assert log.table().shape == (5, len(PLAIN_QUADX_HEADER) + 6)


def test_a_complementary_log_has_nan_positions_and_draws_its_attitude(tmp_path):
    log = _synthetic_log(None, math.radians(2.0))
    assert np.isnan(log.estimate_table()[:, :3]).all()
    position_error, attitude_error = log.estimate_errors()
    assert np.isnan(position_error).all()
    np.testing.assert_allclose(attitude_error[1:], 2.0, atol=1e-9)
    path = report.write_flight_log(log, tmp_path / "log.csv")
    header, rows = _read_csv(path)
    assert header[-6:] == list(ESTIMATE_COLUMNS)
    assert np.isnan(rows[:, -6:-3]).all()
    plain = FlightLog("other", SETPOINTS, tuple(f"motor{i}" for i in range(4)))
    written = report.write_plots([plain, log], tmp_path)
    assert [p.name for p in written] == [*report.PLOT_FILES, report.ESTIMATE_PLOT_FILE]
    figure = plots.path_figure([log])  # no position estimate: no estimated path
    assert all("estimate" not in line.get_label() for line in figure.axes[0].get_lines())
    figure.clear()


def test_misused_estimate_rows_are_value_errors():
    log = FlightLog("quad", SETPOINTS, ("motor0",))
    with pytest.raises(ValueError, match="no estimate columns"):
        log.append_estimate(np.zeros(3), np.zeros(3))
    with pytest.raises(ValueError, match="no estimate columns"):
        log.estimate_table()
    with pytest.raises(ValueError, match="needs a log with estimate columns"):
        plots.estimate_figure([log])
    log.start_estimates()
    with pytest.raises(ValueError, match="append the row first"):
        log.append_estimate(np.zeros(3), np.zeros(3))
    log.append(0.0, np.zeros(12), np.zeros(3), np.zeros(4), np.zeros(1), 0.0)
    with pytest.raises(ValueError, match="1 rows; append_estimate must follow"):
        log.table()
    late = FlightLog("late", SETPOINTS, ("motor0",))
    late.append(0.0, np.zeros(12), np.zeros(3), np.zeros(4), np.zeros(1), 0.0)
    with pytest.raises(ValueError, match="before the first row"):
        late.start_estimates()


def test_a_diverged_or_never_initialised_estimate_still_draws():
    diverged = _synthetic_log(np.array([0.1, 0.0, 0.0]), 0.01)
    diverged.estimates[-1][:3] = np.inf
    never = FlightLog("never", SETPOINTS, ("motor0",))
    never.start_estimates()
    never.append(0.0, np.zeros(12), np.zeros(3), np.zeros(4), np.zeros(1), 0.0)
    never.append_estimate(None, None)
    figure = plots.estimate_figure([diverged, never])
    position_axes = figure.axes[0]
    assert position_axes.get_ylim() == pytest.approx((0.0, 0.11))  # the finite errors
    assert [t.get_text() for t in figure.axes[2].texts] == ["not initialised"]
    figure.clear()
