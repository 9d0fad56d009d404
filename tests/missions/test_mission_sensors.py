"""Missions with onboard sensors and an estimator: the ``sensors``, ``estimator``,
``state_source`` and ``control_delay_steps`` keys, the estimate's errors in the summary and
the printed table, one-line errors naming the key."""

from __future__ import annotations

import json

import pytest
import yaml

from pyflyt_like import cli
from pyflyt_like.missions.mission import Mission, MissionError
from pyflyt_like.missions.report import format_summary_table
from pyflyt_like.missions.runner import run_mission

SENSORS = {"imu": "bmi088", "baro": "default", "mag": "default",
           "gnss": {"preset": "default", "horizontal_noise": 0.5, "correlated_horizontal": 0.0,
                    "correlated_vertical": 0.0}}


def _mission(**keys) -> dict:
    # arrival_tolerance: on the estimate a vehicle is where it believes, within the EKF's
    # error (about 0.1-0.2 m here): the default 0.2 m would miss waypoints by that.
    return {"name": "estimated", "duration_limit": 20.0, "arrival_tolerance": 0.5, **keys,
            "vehicles": [
        {"name": "quad", "type": "quadx", "start": {"position": [0, 0, 1]},
         "waypoints": [{"position": [1, 0, 1]}, {"position": [1, 1, 1]}]},
        {"name": "cf", "type": "multirotor", "start": {"position": [3, 0, 1]},
         "waypoints": [{"position": [4, 0, 1]}, {"position": [4, 1, 1]}]},
    ]}


def test_a_mission_flown_on_the_ekf_reports_estimate_against_truth(tmp_path):
    mission = Mission.from_dict(_mission(sensors=SENSORS, estimator="ekf",
                                         state_source="estimate"))
    assert mission.estimator == "ekf" and mission.state_source == "estimate"
    result = run_mission(mission, tmp_path / "out")
    assert result.completed
    for vehicle in result.vehicles:
        assert vehicle.estimate_position_rms < 0.5
        assert vehicle.estimate_velocity_rms < 0.2
        assert vehicle.estimate_attitude_rms < 3.0
        assert vehicle.rms_error < 0.6  # tracking on the estimate
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert summary["vehicles"][0]["estimate_position_rms"] == pytest.approx(
        result.vehicles[0].estimate_position_rms)
    header, _, quad, _ = format_summary_table(summary).splitlines()
    assert "estimate RMS [m]" in header and "estimate attitude RMS [deg]" in header
    assert f"{summary['vehicles'][0]['estimate_position_rms']:.3f}" in quad


def test_the_control_delay_reaches_every_vehicle(tmp_path):
    mission = Mission.from_dict(_mission(control_delay_steps=3, duration_limit=1.0))
    assert mission.control_delay_steps == 3
    from pyflyt_like.missions.runner import build_aviary

    with build_aviary(mission) as aviary:
        assert [drone.control_ring.delay_steps for drone in aviary.drones] == [3, 3]


def test_without_an_estimator_the_figures_are_none():
    mission = Mission.from_dict(_mission())
    assert mission.sensors is None and mission.estimator is None
    assert mission.state_source == "truth"


@pytest.mark.parametrize("keys, words", [
    ({"estimator": "ekf"}, ["estimator='ekf'", "sensors", "missing: imu, gnss"]),
    ({"sensors": {"imu": "bmi088"}, "estimator": "ekf"}, ["estimator", "missing: gnss"]),
    ({"sensors": SENSORS, "estimator": "kalman"}, ["estimator must be one of"]),
    ({"sensors": SENSORS, "state_source": "estimate"}, ["state_source='estimate' needs"]),
    ({"sensors": SENSORS, "estimator": "ekf", "state_source": "guess"},
     ["state_source must be one of"]),
    ({"sensors": {"imu": "nope"}}, ["sensors", "nope"]),
    ({"sensors": {"sonar": "default"}}, ["sensors", "sonar"]),
    ({"sensors": "bmi088"}, ["sensors must be a mapping"]),
    ({"control_delay_steps": -2}, ["control_delay_steps must be an int in [0, 10000]"]),
    ({"control_delay_steps": 2.5}, ["control_delay_steps must be an int"]),
])
def test_bad_keys_are_one_line_errors_naming_the_key(keys, words):
    with pytest.raises(MissionError) as info:
        Mission.from_dict(_mission(**keys), source="m.yaml")
    message = str(info.value)
    assert "\n" not in message and message.startswith("m.yaml: ")
    for word in words:
        assert word in message


def test_the_fly_command_exits_2_on_a_bad_estimator(tmp_path, capfd):
    path = tmp_path / "bad.yaml"
    path.write_text(yaml.safe_dump(_mission(sensors=SENSORS, estimator="ukf")))
    code = cli.main(["fly", "--no-progress", str(path), "--output", str(tmp_path / "o")])
    err = capfd.readouterr().err.strip()
    assert code == 2
    assert err.count("\n") == 0 and "estimator must be one of" in err
