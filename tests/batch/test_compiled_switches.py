"""The kernels' compile-time switches (arguments that are None where a stage is not used):
an engine binds the variant its mode needs, and binds again when set_mode crosses one."""

from __future__ import annotations

import numpy as np
import pytest
from numba import njit
from numba.core.errors import TypingError

from pyflyt_like.batch import BatchedAviary
from pyflyt_like.batch import pipeline as multirotor_pipeline


def test_the_position_mode_is_bound_with_the_outer_loop_after_a_mode_change():
    sim = BatchedAviary(n_worlds=2, drone_model="crazyflie21", mode=1, seed=0)
    assert sim._outer_loop is None and sim._loop is None  # bound at the first step
    sim.step(5)
    first = sim._loop
    assert first is not None
    sim.set_mode(7)
    assert sim._outer_loop is True and sim._loop is None  # the other variant, bound again
    target = np.array([0.5, -0.3, 0.0, 1.4])  # x, y, yaw, z
    sim.set_setpoints(target)
    sim.step(2500)  # 5 s at 500 Hz
    assert sim._loop is not first
    np.testing.assert_allclose(sim.pos[:, 0], np.tile([0.5, -0.3, 1.4], (2, 1)), atol=0.02)
    sim.set_mode(1)  # back: the first variant (cached), bound again
    assert sim._outer_loop is None and sim._loop is None
    sim.step(1)
    compiled = {str(signature[8]) for signature in multirotor_pipeline.run_worlds.signatures}
    assert {"none", "bool"} <= compiled


def test_a_mode_change_that_keeps_the_variant_keeps_the_bound_kernel():
    sim = BatchedAviary(n_worlds=2, drone_model="crazyflie21", mode=1, seed=0)
    sim.step(1)
    loop = sim._loop
    sim.set_mode(0)
    assert sim._loop is loop


# numba's pruning that the switches rest on: a branch on an argument of type None is not
# compiled, also two inlined calls deep (run_worlds -> step_world -> after_floor)
@njit
def _untypable(x):
    return x.no_such_attribute


@njit(inline="always")
def _deepest(x, switch):
    if switch is not None:
        return _untypable(x)
    return x + 1.0


@njit(inline="always")
def _middle(x, switch):
    return _deepest(x, switch) * 2.0


@njit
def _outer(x, switch):
    return _middle(x, switch)


def test_a_branch_on_a_none_argument_is_not_compiled_two_inlined_calls_deep():
    assert _outer(1.0, None) == 4.0  # compiles: the untypable call was pruned
    with pytest.raises(TypingError):
        _outer(1.0, True)  # the branch is compiled, and cannot be typed
