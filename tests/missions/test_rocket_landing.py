"""The rocket's powered-descent pilot: the minimum-jerk profile, and landings on the pad."""

import math
from pathlib import Path

import numpy as np
import pytest

from pyflyt_like.missions.mission import Mission, MissionError
from pyflyt_like.missions.rocket_pilot import evaluate, quintic
from pyflyt_like.missions.runner import fly_mission, run_mission

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "missions" / "rocket_landing.yaml"


def landing(start, pad=(0.0, 0.0, 0.0), tolerance=1.0, waypoints=None):
    return Mission.from_dict({"name": "landing", "duration_limit": 90.0,
                              "arrival_tolerance": tolerance, "vehicles": [{
                                  "name": "booster", "type": "rocket",
                                  "start": {"position": list(start)},
                                  "waypoints": waypoints or [list(pad)]}]})


def test_the_quintic_meets_its_end_conditions():
    c = quintic(150.0, -3.0, 2.4, 18.0)
    assert evaluate(c, 0.0) == pytest.approx((150.0, -3.0, 0.0))
    assert evaluate(c, 18.0) == pytest.approx((2.4, 0.0, 0.0), abs=1e-9)
    rest = quintic(10.0, 0.0, 0.0, 2.0)  # from rest: the peak acceleration is 10/sqrt(3) D/T^2
    peak = max(abs(evaluate(rest, t)[2]) for t in np.linspace(0.0, 2.0, 2001))
    assert peak == pytest.approx(10 / math.sqrt(3) * 10.0 / 4.0, rel=1e-4)


def touchdown(result):
    log = result.logs[0]
    row = log.table()[-1]
    columns = log.columns
    speed = float(np.linalg.norm(row[columns.index("u"):columns.index("w") + 1]))
    tilt = math.acos(math.cos(row[columns.index("roll")]) * math.cos(row[columns.index("pitch")]))
    return row[columns.index("x"):columns.index("z") + 1], speed, tilt


def test_the_example_lands_upright_on_the_pad():
    result = run_mission(Mission.from_yaml(EXAMPLE))
    vehicle = result.vehicles[0]
    assert result.completed and vehicle.waypoints_reached == 1 and not vehicle.crashed
    position, speed, tilt = touchdown(result)
    assert math.hypot(*position[:2]) < 0.2  # measured 0.07 m
    assert speed < 1.0 and tilt < math.radians(5.0)
    assert vehicle.rms_error < 0.3  # the profile tracked (measured 0.11 m RMS)


@pytest.mark.parametrize("start", [(0.0, 0.0, 60.0), (80.0, 40.0, 300.0)])
def test_descents_from_other_starts_land_on_the_pad(start):
    result = fly_mission(landing(start)).result
    assert result.completed
    position, speed, _ = touchdown(result)
    assert math.hypot(*position[:2]) < 0.2 and speed < 1.0


def test_a_touchdown_beyond_the_tolerance_is_not_a_completed_mission():
    result = fly_mission(landing((30.0, -20.0, 150.0), tolerance=0.01)).result
    assert not result.completed and result.vehicles[0].waypoints_reached == 0
    assert result.exit_code == 1


def test_impossible_landings_are_mission_errors():
    with pytest.raises(MissionError, match=r"vehicles\[0\]\.waypoints: a rocket's mission has "
                                           "exactly one waypoint, the landing pad; got 2"):
        landing((0.0, 0.0, 100.0), waypoints=[[0.0, 0.0, 0.0], [5.0, 0.0, 0.0]])
    with pytest.raises(MissionError, match="starts below its pad"):
        fly_mission(landing((0.0, 0.0, 3.0), pad=(0.0, 0.0, 10.0)))


def test_a_quadplane_mission_needs_a_landing_waypoint_after_the_wing_borne_ones():
    with pytest.raises(MissionError, match="a quadplane needs at least two waypoints"):
        Mission.from_dict({"vehicles": [{"type": "quadplane", "waypoints": [[100, 0, 20]]}]})
