"""Different vehicles in one Aviary, PyFlyt-style: per-drone types and options, the
``primitive_drone`` model among them."""

from __future__ import annotations

import numpy as np
import pytest

from pyflyt_like.core import Aviary


def test_primitive_drone_is_a_one_kilogram_quadx_that_holds_position():
    aviary = Aviary(start_pos=np.array([[0.0, 0.0, 1.0]]), start_orn=np.zeros((1, 3)),
                    drone_options=dict(drone_model="primitive_drone"))
    drone = aviary.drones[0]
    assert drone.mass == pytest.approx(1.0)
    # Thrust grows with throttle squared (rpm = throttle * max rpm): hover at sqrt(W / 40 N).
    assert drone.hover_throttle == pytest.approx(np.sqrt(drone.mass * 9.81 / 40.0), rel=1e-6)
    aviary.set_mode(7)
    aviary.set_setpoint(0, [2.0, -1.0, 0.5, 2.0])
    for _ in range(8 * 120):
        aviary.step()
    state = aviary.state(0)
    np.testing.assert_allclose(state[3], [2.0, -1.0, 2.0], atol=0.05)
    assert state[1][2] == pytest.approx(0.5, abs=0.02)
    aviary.close()


def test_mixed_vehicles_fly_side_by_side():
    start_pos = np.array([[0.0, 0.0, 1.0], [2.0, 0.0, 1.0], [0.0, -10.0, 20.0],
                          [5.0, 5.0, 1.0]])
    aviary = Aviary(start_pos=start_pos, start_orn=np.zeros((4, 3)),
                    drone_type=["quadx", "quadx", "fixedwing", "rocket"],
                    drone_options=[dict(), dict(drone_model="primitive_drone"), dict(),
                                   dict(starting_fuel_ratio=0.05)])
    assert [d.drone_model for d in aviary.drones] == ["cf2x", "primitive_drone", "fixedwing",
                                                       "rocket"]
    aviary.set_mode([7, 7, 0, 0])
    aviary.set_setpoint(0, [0.0, 0.0, 0.0, 1.5])
    aviary.set_setpoint(1, [2.0, 0.0, 0.0, 1.5])
    aviary.set_setpoint(2, [0.0, 0.0, 0.0, 0.8])
    for _ in range(3 * 120):
        aviary.step()
    states = aviary.all_states
    np.testing.assert_allclose(states[0][3], [0.0, 0.0, 1.5], atol=0.05)
    np.testing.assert_allclose(states[1][3], [2.0, 0.0, 1.5], atol=0.05)
    assert states[2][3][0] > 40.0  # the fixed-wing flew off along +x at ~20 m/s
    assert aviary.aux_state(3)[5] == pytest.approx(0.05)  # the rocket's fuel ratio, unlit
    assert aviary.aviary_steps == 3 * 120
    aviary.close()
