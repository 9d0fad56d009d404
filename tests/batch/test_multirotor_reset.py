"""The compiled one-world multirotor reset (for tasks' fused steps) equals
BatchedAviary.reset, except the setpoints, which the task writes before each step."""

from __future__ import annotations

import numpy as np
import pytest

from pyflyt_like.batch import BatchedAviary
from pyflyt_like.batch.multirotor_reset import reset_world
from pyflyt_like.batch.sensors import SENSOR_CONSTANTS

# BatchedAviary.reset presets the setpoints to hold (and mode 1's attitude target from
# them); the in-kernel reset leaves both to the task, whose step writes the setpoint and
# derives the target from it (``pipeline.prepare``) before any physics step
LEFT_TO_THE_TASK = ("setpoint", "attitude_target")


@pytest.mark.parametrize("mode", [-1, 0, 1])
def test_reset_world_leaves_the_state_batched_aviary_reset_leaves(mode):
    pos = np.array([[1.0, 2.0, 1.0], [-0.5, 0.3, 1.5]])
    euler = np.array([[0.1, -0.2, 0.5], [-0.3, 0.1, 2.0]])
    reference = BatchedAviary(n_worlds=2, n_drones=2, drone_model="cf2x", mode=mode,
                              start_pos=pos, start_orn=euler, wind=(1.0, -0.5, 0.2))
    compiled = BatchedAviary(n_worlds=2, n_drones=2, drone_model="cf2x", mode=mode,
                             wind=(1.0, -0.5, 0.2))
    for sim in (reference, compiled):
        sim.set_setpoints(sim.setpoint_buffer[0] * 1.01)  # leave hover: rates, integrals
        sim.step(50)  # every array of the state away from its reset value
        sim.crashed[:] = sim.contact[:] = True
    reference.reset(np.array([False, True]))
    state, plant, _, _ = compiled.kernel_arguments
    per_world = [name for name in state._fields if name not in SENSOR_CONSTANTS]
    before = {name: np.array(getattr(state, name)[0]) for name in per_world}
    reset_world(state, plant, 1, pos, euler)
    expected = reference.kernel_arguments[0]
    compared = [name for name in per_world if name not in LEFT_TO_THE_TASK]
    assert {"pos", "quat", "vel", "rotor_speed", "rate_integral", "steps", "wind"} <= set(
        compared)
    for name in compared:
        np.testing.assert_allclose(getattr(state, name)[1], getattr(expected, name)[1],
                                   rtol=0, atol=1e-15, err_msg=name)
        np.testing.assert_array_equal(getattr(state, name)[0], before[name], err_msg=name)
