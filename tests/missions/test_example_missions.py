"""Every example mission completes headless within its tracking bound."""

from pathlib import Path

import numpy as np
import pytest

from pyflyt_like.missions.mission import Mission
from pyflyt_like.missions.runner import run_mission

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "missions"

# Bounds [m] on (RMS, max) tracking error per vehicle, from measured runs with margin:
# QuadX mode 7 lags its reference (measured 0.11/0.21 m in the square, 0.13/0.20 m in wind);
# the geometric controller with feed-forward stays within millimetres (measured <= 6/11 mm);
# the PID cascade lags more (measured 0.06/0.17 m).
# The fixed-wing's error is its horizontal distance to the flyable path (the legs with each
# corner rounded to its turn radius): measured 2.6 m RMS, 4.7 m max on the 200 m x 150 m
# circuit, against a target of 10 m RMS.
# The quadplane's error is the distance to the path on the wing, to the transitions' lines,
# and to the moving hover setpoint: measured 1.9 m RMS, 5.7 m max (at the survey's sharpest
# corner).
BOUNDS = {"position": (0.2, 0.35), "geometric": (0.01, 0.03), "pid": (0.1, 0.3),
          "guidance": (10.0, 8.0), "vtol": (4.0, 10.0)}
ROTORCRAFT = ["square.yaml", "figure_eight.yaml", "formation.yaml", "windy.yaml",
              "fixedwing_circuit.yaml", "quadplane_survey.yaml"]


@pytest.fixture(scope="module")
def fly():
    """``fly(name)``: the result of the example mission ``name``, flown once per module (the
    tests only read it; the circuit and the survey are checked twice)."""
    results = {}

    def flown(name: str):
        if name not in results:
            results[name] = run_mission(Mission.from_yaml(EXAMPLES / name))
        return results[name]

    return flown


@pytest.mark.parametrize("name", ROTORCRAFT)
def test_example_mission_completes(name, fly):
    result = fly(name)
    assert result.completed, [vars(v) for v in result.vehicles]
    for vehicle in result.vehicles:
        assert vehicle.waypoints_reached == vehicle.waypoints_total
        assert not vehicle.crashed
        rms, worst = BOUNDS[vehicle.controller]
        assert vehicle.rms_error < rms and vehicle.max_error < worst, vars(vehicle)


def test_fixed_wing_holds_altitude_on_the_circuit(fly):
    result = fly("fixedwing_circuit.yaml")
    table = result.logs[0].table()
    assert abs(table[:, 12] - 40.0).max() < 2.0  # z column (measured within 0.34 m)
    speeds = (table[:, 7] ** 2 + table[:, 8] ** 2 + table[:, 9] ** 2) ** 0.5
    assert speeds.min() > 15.0  # never near the stall


def test_the_quadplane_takes_off_cruises_on_its_wing_and_lands_on_the_pad(fly):
    result = fly("quadplane_survey.yaml")
    table = result.logs[0].table()
    columns = result.logs[0].columns
    mode, z = table[:, columns.index("sp_mode")], table[:, columns.index("z")]
    # Phases in order: hover (7), transition (8), wing-borne (2), transition (8), hover (7).
    changes = [int(mode[0])] + [int(m) for a, m in zip(mode, mode[1:]) if m != a]
    assert changes == [7, 8, 2, 8, 7]
    assert abs(z[mode != 7] - 30.0).max() < 2.0  # measured 29.28 ... 30.58 m
    lift = table[:, [columns.index(f"lift{i}") for i in range(4)]]
    assert np.all(lift[mode == 2][240:] < 1e-3)  # the wing alone carries it in cruise
    final = table[-1, columns.index("x"):columns.index("z") + 1]
    assert np.linalg.norm(final - (-20.0, 0.0, 0.2)) < 0.3  # on the pad
    assert result.completed and not result.vehicles[0].crashed
