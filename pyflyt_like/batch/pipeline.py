"""The physics step of the batched engine: a named, ordered pipeline of kernels.

Per world (in parallel) and per physics step::

    1. wind         mean wind plus the world's turbulence
    2. control      each drone's controller, when its tick is due (held between ticks)
    3. rotors       motor lag, thrust and torque, rotor aerodynamics -> body wrench
    4. integrate    rigid body on SO(3) under the wrench, gravity, disturbances
    5. floor        the ground as a hard constraint, contact and crash flags
    6. turbulence   advance the world's Dryden filters
    7. clock        the world's step counter

The same order as the PyBullet ``Aviary.step`` (control, physics update, step, state).
``n_steps`` physics steps run inside one compiled call.
"""

from __future__ import annotations

from numba import njit, prange

from .controllers import attitude_targets, control_tick
from .integrators import floor_constraint, integrate
from .rotations import quat_to_matrix
from .rotors import rotor_wrench
from .turbulence import advance_turbulence, current_wind

BLOCKS = 256  # blocks of worlds shared among the threads (a few per thread balance the load)


@njit(cache=True, _nrt=False, error_model="numpy", inline="always")
def step_world(state, plant, nominal, config, mode, w, noise, step_index):
    """One physics step of world ``w`` (stages 1-7 above)."""
    n_drones = state.pos.shape[1]
    current_wind(state, plant, config, w)
    control_due = state.steps[w] % config.mode_steps == 0
    # every wrench from the state at the start of the step (downwash sees the others there)
    for d in range(n_drones):
        q = state.quat[w, d]
        rotation = quat_to_matrix(q[0], q[1], q[2], q[3])
        if control_due:
            control_tick(state, nominal, config, mode, w, d, rotation)
        fx, fy, fz, tx, ty, tz = rotor_wrench(state, plant, nominal, config, w, d, rotation)
        wrench, disturbance = state.wrench[w, d], plant.disturbance_torque[w, d]
        wrench[0], wrench[1], wrench[2] = fx, fy, fz
        wrench[3] = tx + disturbance[0]
        wrench[4] = ty + disturbance[1]
        wrench[5] = tz + disturbance[2]
    for d in range(n_drones):
        wrench = state.wrench[w, d]
        integrate(config.integrator, state.pos[w, d], state.quat[w, d], state.vel[w, d],
                  state.ang_vel[w, d], wrench[0:3], wrench[3:6],
                  plant.disturbance_force[w, d], plant.mass[w, d], plant.inertia[w, d],
                  config.gravity, config.dt)
        contact, crash = floor_constraint(state.pos[w, d], state.quat[w, d], state.vel[w, d],
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
    """``n_steps`` physics steps of worlds ``first`` to ``last - 1``, one after another.

    Every stage is inlined into this loop (``inline="always"``): the named tuples of arrays
    travel by value, hundreds of words each, so a function call per drone-step that passes
    them costs more than the physics. They are passed once here, per block of worlds.
    """
    for w in range(first, last):
        attitude_targets(state, mode, w)
        for step_index in range(n_steps):
            step_world(state, plant, nominal, config, mode, w, noise, step_index)


@njit(cache=True, parallel=True, error_model="numpy")
def advance(state, plant, nominal, config, mode, n_steps, noise):
    """Run ``n_steps`` physics steps of every world, blocks of worlds in parallel.

    ``noise`` is (n_steps, n_worlds, 5) standard normal draws for the turbulence (any
    shape (1, 1, 5) when turbulence is off).
    """
    n_worlds = state.pos.shape[0]
    blocks = min(n_worlds, BLOCKS)
    for block in prange(blocks):
        run_worlds(state, plant, nominal, config, mode, n_steps, noise,
                   block * n_worlds // blocks, (block + 1) * n_worlds // blocks)
