"""The physics step of the fixed-wing engine: a named, ordered pipeline of stages.

Per world and per physics step::

    1. wind          mean wind plus the world's turbulence
    2. control       each aircraft's controller, when its tick is due (held between ticks)
    3. aerodynamics  surface deflections and loads, fuselage drag, motor -> body wrench
    4. integrate     the composite rigid body under the wrench, gravity, disturbances
    5. floor         the ground as a hard constraint, contact and crash flags
    6. obstacles     each aircraft's collision sphere against its world's obstacle layout
    7. sensors       every aircraft's sensors that are due sample the new state
    8. turbulence    advance the world's Dryden filters
    9. clock         the world's step counter

The order of the PyBullet ``Aviary.step`` (control, physics update, step, state), as the
multirotor pipeline (:mod:`pyflyt_like.batch.pipeline`), whose wind, obstacles, sensors,
turbulence and clock stages this one shares, and its floor formula. Every stage has the
signature ``(state, plant, nominal, config, mode, w, noise, step_index, outer_loop)`` and is inlined
into :func:`step_world`; user stages go between them (:mod:`pyflyt_like.batch.user_stages`).
As for multirotors, :func:`run_worlds` runs ``obstacles`` and ``sensors`` only when its
``sensing`` is not None (an engine with a world or sensors), compiled without them else.
"""

from __future__ import annotations

from numba import njit

from pyflyt_like.compiled.rotations import quat_to_matrix

from ..integrators import floor_constraint
from ..pipeline import KERNEL, clock, obstacles, sensors, turbulence, wind
from ..sensors import sense
from .aerodynamics import aircraft_wrench
from .body import integrate_aircraft
from .controllers import control_tick

_STAGE = dict(cache=True, _nrt=False, error_model="numpy", inline="always")


@njit(**_STAGE)
def control(state, plant, nominal, config, mode, w, noise, step_index, outer_loop):
    """Every aircraft's control tick, when due."""
    if state.steps[w] % config.mode_steps:
        return
    for d in range(state.pos.shape[1]):
        q = state.quat[w, d]
        control_tick(state, nominal, config, mode, w, d, quat_to_matrix(q[0], q[1], q[2], q[3]),
                     outer_loop)


@njit(**_STAGE)
def aerodynamics(state, plant, nominal, config, mode, w, noise, step_index, outer_loop):
    """Every aircraft's surfaces, drag and motor, into ``state.wrench``."""
    for d in range(state.pos.shape[1]):
        q = state.quat[w, d]
        wrench = state.wrench[w, d]
        wrench[0], wrench[1], wrench[2], wrench[3], wrench[4], wrench[5] = aircraft_wrench(
            state, plant, nominal, config, w, d, quat_to_matrix(q[0], q[1], q[2], q[3]))


@njit(**_STAGE)
def integrate(state, plant, nominal, config, mode, w, noise, step_index, outer_loop):
    """Every aircraft's rigid body one step under its wrench."""
    for d in range(state.pos.shape[1]):
        q = state.quat[w, d]
        integrate_aircraft(config.integrator, quat_to_matrix(q[0], q[1], q[2], q[3]),
                           state.pos[w, d], q, state.vel[w, d], state.ang_vel[w, d],
                           state.wrench[w, d], plant.disturbance_torque[w, d],
                           plant.disturbance_force[w, d], plant.mass[w, d], nominal.com,
                           plant.inertia[w, d], plant.inertia_inv[w, d], config.gravity,
                           config.dt)


@njit(**_STAGE)
def floor(state, plant, nominal, config, mode, w, noise, step_index, outer_loop):
    """The floor under every aircraft's base origin; contact and crash flags."""
    for d in range(state.pos.shape[1]):
        contact, crash = floor_constraint(state.pos[w, d], state.quat[w, d], state.vel[w, d],
                                          state.ang_vel[w, d], config.floor_z,
                                          config.crash_speed)
        state.contact[w, d] = contact
        if crash:
            state.crashed[w, d] = True


#: The stages in the order :func:`step_world` runs them (with ``sensing=None``: all but
#: ``obstacles`` and ``sensors``).
STAGES = {"wind": wind, "control": control, "aerodynamics": aerodynamics,
          "integrate": integrate, "floor": floor, "obstacles": obstacles,
          "sensors": sensors, "turbulence": turbulence, "clock": clock}


@njit(**_STAGE)
def prepare(state, mode, w):
    """Before a fused call's steps of world ``w``: nothing for fixed-wings."""


@njit(**_STAGE)
def step_world(state, plant, nominal, config, mode, w, noise, step_index, sensing,
               outer_loop):
    """One physics step of world ``w``: the :data:`STAGES` in order, ``sensing`` and
    ``outer_loop`` as in the multirotor's ``step_world`` (the autopilot is the outer loop).
    Each family writes its stage list out here rather than calling a shared tail: one more
    level of inlining costs the kernel's compile about 0.7 s."""
    wind(state, plant, nominal, config, mode, w, noise, step_index, outer_loop)
    control(state, plant, nominal, config, mode, w, noise, step_index, outer_loop)
    aerodynamics(state, plant, nominal, config, mode, w, noise, step_index, outer_loop)
    integrate(state, plant, nominal, config, mode, w, noise, step_index, outer_loop)
    floor(state, plant, nominal, config, mode, w, noise, step_index, outer_loop)
    if sensing is not None:
        obstacles(state, plant, nominal, config, mode, w, noise, step_index, outer_loop)
        # the sensors stage, compiled for the kinds of sensor carried only
        sense(state, config, w, sensing[0], sensing[1])
    turbulence(state, plant, nominal, config, mode, w, noise, step_index, outer_loop)
    clock(state, plant, nominal, config, mode, w, noise, step_index, outer_loop)


@njit(**KERNEL)
def run_worlds(state, plant, nominal, config, mode, n_steps, noise, sensing, outer_loop,
               first, last):
    """``n_steps`` physics steps of worlds ``first`` to ``last - 1``, one after another
    (every stage inlined, as the multirotor's ``run_worlds``; ``sensing`` as there)."""
    for w in range(first, last):
        for step_index in range(n_steps):
            step_world(state, plant, nominal, config, mode, w, noise, step_index, sensing,
                       outer_loop)
