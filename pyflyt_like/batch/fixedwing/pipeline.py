"""The physics step of the fixed-wing engine: a named, ordered pipeline of kernels.

Per world (in parallel) and per physics step::

    1. wind          mean wind plus the world's turbulence
    2. control       each aircraft's controller, when its tick is due (held between ticks)
    3. aerodynamics  surface deflections and loads, fuselage drag, motor -> body wrench
    4. integrate     the composite rigid body under the wrench, gravity, disturbances
    5. floor         the ground as a hard constraint, contact and crash flags
    6. turbulence    advance the world's Dryden filters
    7. clock         the world's step counter

The order of the PyBullet ``Aviary.step`` (control, physics update, step, state), as the
multirotor pipeline (:mod:`pyflyt_like.batch.pipeline`), whose wind, turbulence and floor
stages this one shares.
"""

from __future__ import annotations

from numba import njit, prange

from ..integrators import floor_constraint
from ..pipeline import BLOCKS
from ..rotations import quat_to_matrix
from ..turbulence import advance_turbulence, current_wind
from .aerodynamics import aircraft_wrench
from .body import integrate_aircraft
from .controllers import control_tick

STAGES = ("wind", "control", "aerodynamics", "integrate", "floor", "turbulence", "clock")


@njit(cache=True, _nrt=False, error_model="numpy", inline="always")
def step_world(state, plant, nominal, config, mode, w, noise, step_index):
    """One physics step of world ``w`` (the stages above)."""
    current_wind(state, plant, config, w)
    control_due = state.steps[w] % config.mode_steps == 0
    for d in range(state.pos.shape[1]):
        q = state.quat[w, d]
        rotation = quat_to_matrix(q[0], q[1], q[2], q[3])
        if control_due:
            control_tick(state, nominal, config, mode, w, d, rotation)
        wrench = state.wrench[w, d]
        wrench[0], wrench[1], wrench[2], wrench[3], wrench[4], wrench[5] = aircraft_wrench(
            state, plant, nominal, w, d, rotation)
        integrate_aircraft(config.integrator, rotation, state.pos[w, d], q, state.vel[w, d],
                           state.ang_vel[w, d], wrench, plant.disturbance_torque[w, d],
                           plant.disturbance_force[w, d], plant.mass[w, d], nominal.com,
                           plant.inertia[w, d], plant.inertia_inv[w, d], config.gravity,
                           config.dt)
        contact, crash = floor_constraint(state.pos[w, d], q, state.vel[w, d],
                                          state.ang_vel[w, d], config.floor_z,
                                          config.crash_speed)
        state.contact[w, d] = contact
        if crash:
            state.crashed[w, d] = True
    if config.turbulence:
        advance_turbulence(state, config, w, noise[step_index, w])
    state.steps[w] += 1


@njit(cache=True, _nrt=False, error_model="numpy")
def run_worlds(state, plant, nominal, config, mode, n_steps, noise, first, last):
    """``n_steps`` physics steps of worlds ``first`` to ``last - 1``, one after another
    (every stage inlined, as the multirotor's ``run_worlds``)."""
    for w in range(first, last):
        for step_index in range(n_steps):
            step_world(state, plant, nominal, config, mode, w, noise, step_index)


@njit(cache=True, parallel=True, error_model="numpy")
def advance(state, plant, nominal, config, mode, n_steps, noise):
    """Run ``n_steps`` physics steps of every world, blocks of worlds in parallel;
    ``noise`` as the multirotor's ``advance``."""
    n_worlds = state.pos.shape[0]
    blocks = min(n_worlds, BLOCKS)
    for block in prange(blocks):
        run_worlds(state, plant, nominal, config, mode, n_steps, noise,
                   block * n_worlds // blocks, (block + 1) * n_worlds // blocks)
