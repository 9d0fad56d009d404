"""The physics step of the batched engine: a named, ordered pipeline of stages.

Per world (in parallel) and per physics step::

    1. wind         mean wind plus the world's turbulence
    2. control      each drone's controller, when its tick is due (held between ticks)
    3. rotors       motor lag, thrust and torque, rotor aerodynamics -> body wrench
    4. integrate    rigid body on SO(3) under the wrench, gravity, disturbances
    5. floor        the ground as a hard constraint, contact and crash flags
    6. sensors      every drone's sensors that are due sample the new state
    7. turbulence   advance the world's Dryden filters
    8. clock        the world's step counter

The same order as the PyBullet ``Aviary.step`` (control, physics update, step, state).
Every stage has the signature ``(state, plant, nominal, config, mode, w, noise,
step_index)`` and is inlined into :func:`step_world`; ``n_steps`` physics steps run inside
one compiled call. User stages go between them (:mod:`pyflyt_like.batch.user_stages`). The
fixed-wing pipeline (:mod:`pyflyt_like.batch.fixedwing.pipeline`) shares the wind,
sensors, turbulence and clock stages.

Two kernels, both cached on disk: :func:`advance` (:func:`step_world`) runs every stage but
``sensors``, so an engine without sensors (and a task's kernel that inlines
:func:`step_world`) pays nothing for them; :func:`advance_sensed`
(:func:`step_world_sensed`) runs all of them, for an engine with sensors
(:mod:`pyflyt_like.batch.sensors`). A kernel with user stages runs every stage; its
``sensors`` stage returns at once without sensors.
"""

from __future__ import annotations

from numba import njit, prange

from pyflyt_like.compiled.rotations import quat_to_matrix

from .controllers import attitude_targets, control_tick
from .integrators import floor_constraint
from .integrators import integrate as integrate_body
from .rotors import rotor_wrench
from .sensors import sense
from .turbulence import advance_turbulence, current_wind

BLOCKS = 256  # blocks of worlds shared among the threads (a few per thread balance the load)


_STAGE = dict(cache=True, _nrt=False, error_model="numpy", inline="always")


@njit(**_STAGE)
def wind(state, plant, nominal, config, mode, w, noise, step_index):
    """The world's wind of this step into ``state.wind``."""
    current_wind(state, plant, config, w)


@njit(**_STAGE)
def control(state, plant, nominal, config, mode, w, noise, step_index):
    """Every drone's control tick, when due."""
    if state.steps[w] % config.mode_steps:
        return
    for d in range(state.pos.shape[1]):
        q = state.quat[w, d]
        control_tick(state, nominal, config, mode, w, d, quat_to_matrix(q[0], q[1], q[2], q[3]))


@njit(**_STAGE)
def rotors(state, plant, nominal, config, mode, w, noise, step_index):
    """Every drone's rotor wrench, from the state at the start of the step (downwash sees
    the others there), plus its torque disturbance, into ``state.wrench``."""
    for d in range(state.pos.shape[1]):
        q = state.quat[w, d]
        fx, fy, fz, tx, ty, tz = rotor_wrench(state, plant, nominal, config, w, d,
                                              quat_to_matrix(q[0], q[1], q[2], q[3]))
        wrench, disturbance = state.wrench[w, d], plant.disturbance_torque[w, d]
        wrench[0], wrench[1], wrench[2] = fx, fy, fz
        wrench[3] = tx + disturbance[0]
        wrench[4] = ty + disturbance[1]
        wrench[5] = tz + disturbance[2]


@njit(**_STAGE)
def integrate(state, plant, nominal, config, mode, w, noise, step_index):
    """Every drone's rigid body one step under its wrench."""
    for d in range(state.pos.shape[1]):
        wrench = state.wrench[w, d]
        integrate_body(config.integrator, state.pos[w, d], state.quat[w, d], state.vel[w, d],
                       state.ang_vel[w, d], wrench[0:3], wrench[3:6],
                       plant.disturbance_force[w, d], plant.mass[w, d], plant.inertia[w, d],
                       config.gravity, config.dt)


@njit(**_STAGE)
def floor(state, plant, nominal, config, mode, w, noise, step_index):
    """The floor under every drone; contact and crash flags."""
    for d in range(state.pos.shape[1]):
        contact, crash = floor_constraint(state.pos[w, d], state.quat[w, d], state.vel[w, d],
                                          state.ang_vel[w, d], config.floor_z,
                                          config.crash_speed)
        state.contact[w, d] = contact
        if crash:
            state.crashed[w, d] = True


@njit(**_STAGE)
def sensors(state, plant, nominal, config, mode, w, noise, step_index):
    """Every drone's sensors that are due sample the state after the step (nothing without
    sensors); shared by both families."""
    sense(state, w, config.gravity, config.dt, config.floor_z)


@njit(**_STAGE)
def turbulence(state, plant, nominal, config, mode, w, noise, step_index):
    """Advance the world's Dryden filters (when on)."""
    if config.turbulence:
        advance_turbulence(state, config, w, noise[step_index, w])


@njit(**_STAGE)
def clock(state, plant, nominal, config, mode, w, noise, step_index):
    """Count the world's step."""
    state.steps[w] += 1


#: The stages in the order :func:`step_world_sensed` runs them (:func:`step_world`: all but
#: ``sensors``).
STAGES = {"wind": wind, "control": control, "rotors": rotors, "integrate": integrate,
          "floor": floor, "sensors": sensors, "turbulence": turbulence, "clock": clock}


@njit(**_STAGE)
def prepare(state, mode, w):
    """Before a fused call's steps of world ``w``: the mode-1 attitude targets."""
    attitude_targets(state, mode, w)


@njit(**_STAGE)
def step_world(state, plant, nominal, config, mode, w, noise, step_index):
    """One physics step of world ``w``: the :data:`STAGES` in order but ``sensors`` (an
    engine without sensors; the tasks' kernels)."""
    wind(state, plant, nominal, config, mode, w, noise, step_index)
    control(state, plant, nominal, config, mode, w, noise, step_index)
    rotors(state, plant, nominal, config, mode, w, noise, step_index)
    integrate(state, plant, nominal, config, mode, w, noise, step_index)
    floor(state, plant, nominal, config, mode, w, noise, step_index)
    turbulence(state, plant, nominal, config, mode, w, noise, step_index)
    clock(state, plant, nominal, config, mode, w, noise, step_index)


@njit(**_STAGE)
def step_world_sensed(state, plant, nominal, config, mode, w, noise, step_index):
    """One physics step of world ``w``: every stage of :data:`STAGES` in order."""
    wind(state, plant, nominal, config, mode, w, noise, step_index)
    control(state, plant, nominal, config, mode, w, noise, step_index)
    rotors(state, plant, nominal, config, mode, w, noise, step_index)
    integrate(state, plant, nominal, config, mode, w, noise, step_index)
    floor(state, plant, nominal, config, mode, w, noise, step_index)
    sensors(state, plant, nominal, config, mode, w, noise, step_index)
    turbulence(state, plant, nominal, config, mode, w, noise, step_index)
    clock(state, plant, nominal, config, mode, w, noise, step_index)


@njit(cache=True, _nrt=False, error_model="numpy")
def run_worlds(state, plant, nominal, config, mode, n_steps, noise, first, last):
    """``n_steps`` physics steps of worlds ``first`` to ``last - 1``, one after another.

    Every stage is inlined into this loop (``inline="always"``): the named tuples of arrays
    travel by value, hundreds of words each, so a function call per drone-step that passes
    them costs more than the physics. They are passed once here, per block of worlds.
    """
    for w in range(first, last):
        prepare(state, mode, w)
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


@njit(cache=True, _nrt=False, error_model="numpy")
def run_worlds_sensed(state, plant, nominal, config, mode, n_steps, noise, first, last):
    """:func:`run_worlds` with :func:`step_world_sensed`."""
    for w in range(first, last):
        prepare(state, mode, w)
        for step_index in range(n_steps):
            step_world_sensed(state, plant, nominal, config, mode, w, noise, step_index)


@njit(cache=True, parallel=True, error_model="numpy")
def advance_sensed(state, plant, nominal, config, mode, n_steps, noise):
    """:func:`advance` with the ``sensors`` stage: the kernel of an engine with sensors."""
    n_worlds = state.pos.shape[0]
    blocks = min(n_worlds, BLOCKS)
    for block in prange(blocks):
        run_worlds_sensed(state, plant, nominal, config, mode, n_steps, noise,
                          block * n_worlds // blocks, (block + 1) * n_worlds // blocks)
