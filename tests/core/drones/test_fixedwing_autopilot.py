"""Fixed-wing autopilot: TECS altitude/airspeed hold (mode 2), bank/airspeed/climb-rate hold
(mode 3), coordinated turns, and the SO(3) attitude error under mode 1, on every model that
has the autopilot (fixedwing, acrowing, quadplane wing-borne)."""

from __future__ import annotations

import math
import shutil
from pathlib import Path

import numpy as np
import pytest
import yaml

from pyflyt_like.control.fixedwing_attitude import (
    FixedwingAttitude,
    attitude_error,
    desired_rotation,
)
from pyflyt_like.core import Aviary

MODELS = Path(__file__).resolve().parents[3] / "pyflyt_like" / "models" / "vehicles"
ALTITUDE = 50.0  # m


def trim_airspeed(model: str) -> float:
    return yaml.safe_load((MODELS / model / f"{model}.yaml").read_text())["trim"]["airspeed"]


def fly(model: str, mode: int, setpoint, seconds: float, changes=(), wind=None,
        wind_options=None, start_orn=(0.0, 0.0, 0.0), altitude=ALTITUDE):
    """Fly from level flight at trim airspeed; return per-control-step arrays: t, position
    (n, 3), airspeed, Euler angles (n, 3), course, the smallest stall margin of any surface
    [rad]. ``changes``: (time [s], setpoint) pairs applied when their time comes."""
    kind = "quadplane" if model == "quadplane" else "fixedwing"
    options = {"starting_velocity": [trim_airspeed(model), 0.0, 0.0]}
    if kind == "fixedwing":
        options["drone_model"] = model
    with Aviary(np.array([[0.0, 0.0, altitude]]), np.array([start_orn]), drone_type=kind,
                drone_options=options, wind_type=wind, wind_options=wind_options,
                seed=0) as aviary:
        drone = aviary.drones[0]
        aviary.set_mode(mode)
        aviary.set_setpoint(0, np.asarray(setpoint, dtype=float))
        pending = list(changes)
        rows = []
        while aviary.elapsed_time < seconds - 1e-9:
            while pending and aviary.elapsed_time >= pending[0][0] - 1e-9:
                aviary.set_setpoint(0, np.asarray(pending.pop(0)[1], dtype=float))
            aviary.step()
            velocity = drone.world_velocity
            rows.append((aviary.elapsed_time, *drone.state[3],
                         float(np.linalg.norm(drone.air_velocity())), *drone.state[1],
                         math.atan2(velocity[1], velocity[0]),
                         float(drone.surfaces.stall_margins.min())))
    a = np.array(rows)
    return {"t": a[:, 0], "pos": a[:, 1:4], "airspeed": a[:, 4], "euler": a[:, 5:8],
            "course": a[:, 8], "stall_margin": a[:, 9]}


@pytest.mark.parametrize("model", ["fixedwing", "acrowing", "quadplane"])
def test_mode_2_holds_altitude_and_airspeed_in_level_flight_for_60_s(model):
    speed = trim_airspeed(model)
    log = fly(model, 2, [0.0, speed, 0.0, ALTITUDE], 60.0)
    assert np.abs(log["pos"][:, 2] - ALTITUDE).max() < 1.0
    assert np.abs(log["airspeed"] - speed).max() < 0.5
    assert np.abs(log["course"]).max() < 0.01  # heading 0 (east) held
    assert log["stall_margin"].min() > 0.0


def test_a_90_degree_heading_change_loses_less_than_3_m_and_does_not_overshoot():
    log = fly("fixedwing", 2, [0.0, 20.0, 0.0, ALTITUDE], 25.0,
              changes=[(2.0, [math.pi / 2, 20.0, 0.0, ALTITUDE])])
    course, t = log["course"], log["t"]
    assert log["pos"][:, 2].min() > ALTITUDE - 3.0
    arrived = t[np.argmax(np.abs(course - math.pi / 2) < math.radians(2.0))]
    assert 2.0 < arrived < 12.0  # a coordinated turn at up to max_bank, not a snap
    assert course.max() < math.pi / 2 + math.radians(3.0)
    assert np.abs(course[t > arrived + 2.0] - math.pi / 2).max() < math.radians(1.0)
    # It banked left (negative roll in FLU) to turn left, at most a little past max_bank
    # (0.6 rad: the roll loop overshoots its setpoint by under 0.05 rad).
    assert -0.65 < log["euler"][:, 0].min() < -0.5
    assert log["stall_margin"].min() > 0.0


def test_mode_3_climbs_20_m_at_the_commanded_rate_holding_airspeed():
    rate = 2.0
    log = fly("fixedwing", 3, [0.0, 20.0, 0.0, rate], 16.0)
    z, t = log["pos"][:, 2], log["t"]
    start, end = np.argmax(z > ALTITUDE + 1.0), np.argmax(z > ALTITUDE + 21.0)
    assert end > start > 0
    measured = 20.0 / (t[end] - t[start])
    assert measured == pytest.approx(rate, rel=0.05)
    assert np.abs(log["airspeed"][start:] - 20.0).max() < 0.5
    assert np.abs(log["euler"][:, 0]).max() < 0.01  # wings level at bank 0
    assert log["stall_margin"].min() > 0.0


def test_mode_3_banks_as_commanded_and_turns_at_the_coordinated_rate():
    bank = 0.4  # rad, right wing down: turns right
    log = fly("fixedwing", 3, [bank, 20.0, 0.0, 0.0], 20.0)
    settled = log["t"] > 8.0
    assert log["euler"][settled, 0] == pytest.approx(bank, abs=0.02)
    course = np.unwrap(log["course"][settled])
    turn_rate = np.polyfit(log["t"][settled], course, 1)[0]
    assert turn_rate == pytest.approx(-9.81 * math.tan(bank) / 20.0, rel=0.1)
    assert np.abs(log["pos"][:, 2] - ALTITUDE).max() < 3.0  # climb rate 0 held in the turn


def test_airspeed_setpoints_are_held_within_the_limits_and_never_stall():
    slow = fly("fixedwing", 2, [0.0, 5.0, 0.0, ALTITUDE], 30.0)  # below the 14 m/s minimum
    assert slow["airspeed"][slow["t"] > 20.0] == pytest.approx(14.0, abs=0.2)
    assert np.abs(slow["pos"][:, 2] - ALTITUDE).max() < 1.0
    assert slow["stall_margin"].min() > 0.0
    fast = fly("fixedwing", 2, [0.0, 30.0, 0.0, ALTITUDE], 30.0)
    assert fast["airspeed"][fast["t"] > 20.0] == pytest.approx(30.0, abs=0.2)
    assert np.abs(fast["pos"][:, 2] - ALTITUDE).max() < 1.0


def test_dryden_turbulence_at_w20_6_m_s_keeps_altitude_within_3_m():
    log = fly("fixedwing", 2, [0.0, 20.0, 0.0, ALTITUDE], 60.0, wind="dryden",
              wind_options={"wind_speed_20ft": 6.0, "altitude": ALTITUDE, "airspeed": 20.0})
    assert np.abs(log["pos"][:, 2] - ALTITUDE).max() < 3.0
    assert np.abs(log["airspeed"] - 20.0).max() < 2.0  # gusts move it, TECS brings it back
    assert log["stall_margin"].min() > 0.0


# ----------------------------------------------------------------- the attitude error
def rodrigues(axis, angle):
    n = np.asarray(axis, float) / np.linalg.norm(axis)
    k = np.array(((0, -n[2], n[1]), (n[2], 0, -n[0]), (-n[1], n[0], 0)))
    return np.eye(3) + math.sin(angle) * k + (1 - math.cos(angle)) * k @ k


@pytest.mark.parametrize("angle", [1e-6, 0.3, 1.5, 2.5, 3.1, math.pi - 1e-9])
@pytest.mark.parametrize("axis", [(1, 0, 0), (0, 1, 0), (0, 0, 1), (1, -2, 0.5)])
def test_the_attitude_error_is_the_rotation_vector_at_any_angle(axis, angle):
    desired = rodrigues((0.3, 0.1, -1.0), 0.7)
    rotation = desired @ rodrigues(axis, angle)
    n = np.asarray(axis, float) / np.linalg.norm(axis)
    np.testing.assert_allclose(attitude_error(rotation, desired), angle * n, atol=1e-7)


def test_the_rate_setpoint_is_continuous_through_the_vertical():
    """Euler angles jump at pitch -90 deg (roll and yaw flip by pi); the SO(3) law does not."""
    attitude = FixedwingAttitude({"angle_kp": [4.0, 4.0], "rate_limits": [9.0, 9.0, 9.0],
                                  "rate": {"kp": [0.3] * 3, "ki": [0.0] * 3, "kd": [0.0] * 3,
                                           "limits": [1.0] * 3}}, 1 / 120)
    for roll in (0.0, 0.3):
        rates = [attitude.rate_setpoint(0.0, -0.07, desired_rotation(roll, -math.pi / 2 + e,
                                                                     0.2))
                 for e in (-1e-5, 1e-5)]
        np.testing.assert_allclose(rates[0], rates[1], atol=1e-3)
        assert max(abs(r) for r in rates[0]) > 0.5  # and it does pull the nose down


@pytest.mark.parametrize("orientation", [(math.pi, 0.0, 1.0), (0.0, -math.pi / 2, 0.0),
                                         (math.pi, -0.3, 0.0), (-2.5, 1.3, -2.0)])
def test_mode_1_rights_the_aircraft_from_inverted_and_vertical(orientation):
    log = fly("fixedwing", 1, [0.0, -0.075, 0.0, 0.6], 12.0, start_orn=orientation,
              altitude=300.0)
    settled = log["t"] > 8.0
    assert np.abs(log["euler"][settled, 0]).max() < 0.05
    assert np.abs(log["euler"][settled, 1] + 0.075).max() < 0.05


def test_a_model_without_the_autopilot_sections_offers_modes_minus_1_to_1(tmp_path):
    folder = tmp_path / "plain"
    shutil.copytree(MODELS / "fixedwing", folder)
    (folder / "fixedwing.yaml").rename(folder / "plain.yaml")
    (folder / "fixedwing.urdf").rename(folder / "plain.urdf")
    params = yaml.safe_load((folder / "plain.yaml").read_text())
    del params["autopilot"]
    (folder / "plain.yaml").write_text(yaml.safe_dump(params))
    with Aviary(np.array([[0.0, 0.0, 20.0]]), np.zeros((1, 3)), drone_type="fixedwing",
                drone_options={"drone_model": "plain", "model_dir": tmp_path}) as aviary:
        assert aviary.drones[0].available_modes == (-1, 0, 1)
        with pytest.raises(ValueError, match=r"mode must be one of \[-1, 0, 1\], got 2"):
            aviary.set_mode(2)
