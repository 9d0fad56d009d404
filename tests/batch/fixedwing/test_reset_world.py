"""The compiled one-world reset (for tasks' fused steps) equals BatchedAviary.reset."""

from __future__ import annotations

import numpy as np
import pytest

from pyflyt_like.batch import BatchedAviary
from pyflyt_like.batch.fixedwing.reset import reset_world
from pyflyt_like.batch.sensors import SENSOR_CONSTANTS


@pytest.mark.parametrize("mode", [-1, 0, 1, 2, 3])
def test_reset_world_leaves_the_state_batched_aviary_reset_leaves(mode):
    pos = np.array([[1.0, 2.0, 40.0], [-5.0, 3.0, 60.0]])
    euler = np.array([[0.1, -0.2, 0.5], [-0.3, 0.1, 2.0]])
    velocity = np.array([[14.0, 0.5, -0.2], [12.0, 0.0, 0.0]])
    reference = BatchedAviary(n_worlds=2, n_drones=2, drone_model="acrowing", mode=mode,
                              start_pos=pos, start_orn=euler, starting_velocity=velocity)
    compiled = BatchedAviary(n_worlds=2, n_drones=2, drone_model="acrowing", mode=mode)
    for sim in (reference, compiled):
        sim.step(50)  # leave every array of the state away from its reset value
    reference.reset(np.array([False, True]))
    state, plant, nominal, config = compiled.kernel_arguments
    per_world = [name for name in state._fields if name not in SENSOR_CONSTANTS]
    before = {name: np.array(getattr(state, name)[0]) for name in per_world}
    reset_world(state, plant, nominal, config, mode, 1, pos, euler, velocity)
    expected = reference.kernel_arguments[0]
    for name in per_world:
        np.testing.assert_allclose(getattr(state, name)[1], getattr(expected, name)[1],
                                   rtol=0, atol=1e-15, err_msg=name)
        np.testing.assert_array_equal(getattr(state, name)[0], before[name], err_msg=name)
