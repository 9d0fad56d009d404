"""Restarting one multirotor world inside a compiled call (a task's fused step).

:meth:`~pyflyt_like.batch.BatchedAviary.reset` does the same over a mask from Python, with
the plant's randomisation, the turbulence's stationary draw and the hold setpoints (and
mode 1's attitude target derived from them), which this does not: a task that restarts its
worlds in its own kernel writes its setpoint before the next physics step (the target
follows from it, ``pipeline.prepare``), draws the plant beforehand if randomised, and flies
in still or steady air (the tests compare the two resets).
"""

from __future__ import annotations

from numba import njit

from .world_reset import place_still, restart_clock


@njit(cache=True, _nrt=False, error_model="numpy")
def reset_world(state, plant, w, start_pos, start_euler):
    """Put every drone ``d`` of world ``w`` at rest at ``start_pos[d]`` [m] with Euler angles
    ``start_euler[d]`` [rad] ((D, 3) each): rotors stopped, controllers cleared, step
    counter, contact and crash flags cleared, the wind at the world's mean."""
    for d in range(state.pos.shape[1]):
        place_still(state, w, d, start_pos[d], start_euler[d])
        for a in range(3):
            state.vel[w, d, a] = 0.0
        state.rotor_speed[w, d, :] = 0.0
        state.rotor_command[w, d, :] = 0.0
        state.use_reference[w, d] = False
    restart_clock(state, plant, w)
