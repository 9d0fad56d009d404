"""The fixed-wing's one-wrench physics step against its components' own updates.

``Fixedwing.update_physics`` sums the surfaces', the fuselage drag's and the motor's loads
into one force and one torque on the base (as the batched engine does); each component's
``physics_update`` still applies its own. Both must give the same loads and states.
"""

from __future__ import annotations

import numpy as np
import pytest

from pyflyt_like.core import Aviary


def _aviary(**wind) -> Aviary:
    return Aviary(np.array([[0.0, 0.0, 60.0]]), np.zeros((1, 3)), drone_type="fixedwing",
                  drone_options=dict(drone_model="acrowing"), **wind)


@pytest.mark.parametrize("wind", [{}, dict(wind_type="constant",
                                            wind_options=dict(velocity=(2.0, -1.0, 0.3)))])
def test_base_wrench_equals_the_components_loads(wind):
    with _aviary(**wind) as aviary:
        aviary.set_mode(1)
        aviary.set_setpoint(0, np.array([0.4, -0.1, 0.2, 0.7]))
        for _ in range(30):
            aviary.step()
        drone = aviary.drones[0]
        drone.update_control(0)
        rates, _, velocity, _ = drone.state.tolist()
        rotation = drone.rotation_matrix
        air = drone.air_velocity()
        body_air = (rotation.T @ air).tolist()
        # the components' own path, on copies of their state
        deflection, throttle = drone.surfaces.deflection.copy(), drone.motors.throttle.copy()
        drone.surfaces.state_update(rotation.T, air, drone.state[0])
        surfaces = np.array(drone.surfaces.base_wrench(drone.surface_command))
        drone.drag.state_update(rotation.T, air)
        drag = np.array(drone.drag.forces()[0])
        motor = np.array(drone.motors.base_wrench(drone.thrust_command))
        expected_deflection, expected_throttle = (drone.surfaces.deflection.copy(),
                                                  drone.motors.throttle.copy())
        # the one-wrench path from the same start
        drone.surfaces.deflection[:], drone.motors.throttle[:] = deflection, throttle
        drone.surfaces.flow_update(body_air + rates)
        again = np.array(drone.surfaces.base_wrench(drone.surface_command))
        np.testing.assert_allclose(again, surfaces, rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(drone.drag.forces([body_air])[0], drag, rtol=1e-12,
                                   atol=1e-12)
        np.testing.assert_allclose(drone.motors.base_wrench(drone.thrust_command), motor,
                                   rtol=1e-12, atol=1e-15)
        np.testing.assert_array_equal(drone.surfaces.deflection, expected_deflection)
        np.testing.assert_array_equal(drone.motors.throttle, expected_throttle)
        assert np.linalg.norm(surfaces[:3]) > 1.0 and motor[0] > 1.0  # real loads


def test_bad_inputs_are_named():
    with _aviary() as aviary:
        drone = aviary.drones[0]
        with pytest.raises(ValueError, match="command"):
            drone.surfaces.base_wrench(np.zeros(2))
        with pytest.raises(ValueError, match="motion"):
            drone.surfaces.flow_update([0.0] * 5)
        with pytest.raises(ValueError, match="local_air_velocity"):
            drone.drag.forces([[1.0, 0.0, 0.0], [1.0, 0.0, 0.0]])
