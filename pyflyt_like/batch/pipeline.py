"""The physics step of the batched engine: a named, ordered pipeline of stages.

Per world and per physics step::

    1. wind         mean wind plus the world's turbulence
    2. control      each drone's controller, when its tick is due (held between ticks)
    3. rotors       motor lag, thrust and torque, rotor aerodynamics -> body wrench
    4. integrate    rigid body on SO(3) under the wrench, gravity, disturbances
    5. floor        the ground as a hard constraint, contact and crash flags
    6. obstacles    each drone's collision sphere against its world's obstacle layout
    7. sensors      every drone's sensors that are due sample the new state
    8. turbulence   advance the world's Dryden filters
    9. clock        the world's step counter

The same order as the PyBullet ``Aviary.step`` (control, physics update, step, state).
Every stage has the signature ``(state, plant, nominal, config, mode, w, noise,
step_index)`` and is inlined into :func:`step_world`; ``n_steps`` physics steps run inside
one compiled call. User stages go between them (:mod:`pyflyt_like.batch.user_stages`). The
fixed-wing pipeline (:mod:`pyflyt_like.batch.fixedwing.pipeline`) shares the wind,
obstacles, sensors, turbulence and clock stages.

One kernel, :func:`run_worlds`, a serial loop over a range of worlds (run on one thread or
several by :class:`~.threads.WorldLoop`), compiled and cached per variant: with
``sensing=None`` it runs every stage but ``obstacles`` and ``sensors``, so an engine with
neither a world nor sensors (and a task's kernel that inlines :func:`step_world` so) pays
nothing for them; with ``sensing=(points, rays)``
(:func:`~pyflyt_like.batch.sensors.sensing_switches`) it runs all of them, for an engine
with sensors or a world (:mod:`pyflyt_like.batch.sensors`,
:mod:`pyflyt_like.batch.obstacles`), its sensors stage compiled for the kinds of sensor it
carries only: its ``obstacles`` stage returns at once for an empty layout. A kernel with
user stages runs every stage.
"""

from __future__ import annotations

from numba import njit

from pyflyt_like.compiled.rotations import quat_to_matrix
from pyflyt_like.compiled.scene import pool_distance

from .controllers import attitude_targets, control_tick
from .integrators import floor_constraint
from .integrators import integrate as integrate_body
from .rotors import rotor_wrench
from .sensors import sense
from .turbulence import advance_turbulence, current_wind

_STAGE = dict(cache=True, _nrt=False, error_model="numpy", inline="always")


@njit(**_STAGE)
def wind(state, plant, nominal, config, mode, w, noise, step_index, outer_loop):
    """The world's wind of this step into ``state.wind``."""
    current_wind(state, plant, config, w)


@njit(**_STAGE)
def control(state, plant, nominal, config, mode, w, noise, step_index, outer_loop):
    """Every drone's control tick, when due."""
    if state.steps[w] % config.mode_steps:
        return
    for d in range(state.pos.shape[1]):
        q = state.quat[w, d]
        control_tick(state, nominal, config, mode, w, d, quat_to_matrix(q[0], q[1], q[2], q[3]),
                     outer_loop)


@njit(**_STAGE)
def rotors(state, plant, nominal, config, mode, w, noise, step_index, outer_loop):
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
def integrate(state, plant, nominal, config, mode, w, noise, step_index, outer_loop):
    """Every drone's rigid body one step under its wrench."""
    for d in range(state.pos.shape[1]):
        wrench = state.wrench[w, d]
        integrate_body(config.integrator, state.pos[w, d], state.quat[w, d], state.vel[w, d],
                       state.ang_vel[w, d], wrench[0:3], wrench[3:6],
                       plant.disturbance_force[w, d], plant.mass[w, d], plant.inertia[w, d],
                       config.gravity, config.dt)


@njit(**_STAGE)
def floor(state, plant, nominal, config, mode, w, noise, step_index, outer_loop):
    """The floor under every drone; contact and crash flags."""
    for d in range(state.pos.shape[1]):
        contact, crash = floor_constraint(state.pos[w, d], state.quat[w, d], state.vel[w, d],
                                          state.ang_vel[w, d], config.floor_z,
                                          config.crash_speed)
        state.contact[w, d] = contact
        if crash:
            state.crashed[w, d] = True


#: How far beyond its collision radius [m] an exact obstacle query looks around a drone;
#: the clearance it finds lets the drone move up to that far before the next query.
OBSTACLE_REACH = 1.0
#: The margin [m] by which a drone must stay inside its clearance for a query to be
#: skipped: it covers the rounding of the distances (1e-16 of the coordinates).
CHECK_MARGIN = 1e-9


@njit(**_STAGE)
def obstacles(state, plant, nominal, config, mode, w, noise, step_index, outer_loop):
    """Every drone's collision sphere (radius ``config.collision_radius``) against its
    world's layout of the pool (``state.world_layout[w]``); shared by both families.

    A sphere that overlaps a primitive (:func:`~pyflyt_like.worlds.grid_queries.pool_distance`
    below the radius: the closed forms of ``World.distance``, over the grid cells about the
    drone only) sets ``contact`` and ``crashed`` (a collision is a crash) and stops the
    drone where it is, linear and angular velocities zeroed, as the floor stops one; its
    position is kept (the overlap is at most one step's travel deep). An empty layout (no
    world) returns at once.

    The exact query looks :data:`OBSTACLE_REACH` beyond the radius and keeps the clearance
    it finds in ``state.obstacle_check``: the distance to the layout changes no faster than
    the position (it is 1-Lipschitz), so while the drone stays within that clearance of the
    queried position no primitive can reach its sphere, and the step skips the query (one
    squared distance). The crash comes at the same step as with a query at every step.
    """
    layout = state.world_layout[w]
    if config.world_cells[layout, 0] == 0:  # an empty layout: nothing to touch
        return
    radius = config.collision_radius
    for d in range(state.pos.shape[1]):
        p = state.pos[w, d]
        check = state.obstacle_check[w, d]
        dx = p[0] - check[0]
        dy = p[1] - check[1]
        dz = p[2] - check[2]
        room = check[3] - CHECK_MARGIN
        if room > 0.0 and dx * dx + dy * dy + dz * dz < room * room:
            continue  # still well inside the clearance of the last query
        reach = radius + OBSTACLE_REACH
        distance = pool_distance(
            config.world_cylinders, config.world_boxes, config.world_spheres,
            config.world_counts, config.world_origin, config.world_cells,
            config.world_z_range, config.world_cell_size, config.world_first_cell,
            config.world_cell_start, config.world_items, layout, p[0], p[1], p[2], reach)
        # the exact distance if it is <= reach, else something > reach: at least
        # min(distance, reach) of clearance, less the radius
        check[0], check[1], check[2] = p[0], p[1], p[2]
        check[3] = min(distance, reach) - radius
        if distance < radius:
            state.contact[w, d] = True
            state.crashed[w, d] = True
            for a in range(3):
                state.vel[w, d, a] = 0.0
                state.ang_vel[w, d, a] = 0.0


@njit(**_STAGE)
def sensors(state, plant, nominal, config, mode, w, noise, step_index, outer_loop):
    """Every drone's sensors that are due sample the state after the step (nothing without
    sensors); shared by both families. Compiled for every kind of sensor (a kernel with user
    stages); :func:`step_world` calls ``sense`` with its ``sensing`` switches instead."""
    sense(state, config, w, True, True)


@njit(**_STAGE)
def turbulence(state, plant, nominal, config, mode, w, noise, step_index, outer_loop):
    """Advance the world's Dryden filters (when on)."""
    if config.turbulence:
        advance_turbulence(state, config, w, noise[step_index, w])


@njit(**_STAGE)
def clock(state, plant, nominal, config, mode, w, noise, step_index, outer_loop):
    """Count the world's step."""
    state.steps[w] += 1


#: The stages in the order :func:`step_world` runs them (with ``sensing=None``: all but
#: ``obstacles`` and ``sensors``).
STAGES = {"wind": wind, "control": control, "rotors": rotors, "integrate": integrate,
          "floor": floor, "obstacles": obstacles, "sensors": sensors,
          "turbulence": turbulence, "clock": clock}


@njit(**_STAGE)
def prepare(state, mode, w):
    """Before a fused call's steps of world ``w``: the mode-1 attitude targets."""
    attitude_targets(state, mode, w)


@njit(**_STAGE)
def step_world(state, plant, nominal, config, mode, w, noise, step_index, sensing,
               outer_loop):
    """One physics step of world ``w``: the :data:`STAGES` in order; ``obstacles`` and
    ``sensors`` only when ``sensing`` is not None (an engine with a world or sensors:
    ``(points, rays)``, :func:`~pyflyt_like.batch.sensors.sensing_switches`, the sensors
    stage compiled for the kinds of sensor whose switch is True). numba compiles the step
    for ``sensing=None`` without those two stages (it prunes a branch on an argument of
    type None), so an engine or task without them pays nothing.
    ``outer_loop``: None, or True for a flight mode that flies the outer loop (the
    multirotor's position mode, the fixed-wing autopilot), compiled only then."""
    wind(state, plant, nominal, config, mode, w, noise, step_index, outer_loop)
    control(state, plant, nominal, config, mode, w, noise, step_index, outer_loop)
    rotors(state, plant, nominal, config, mode, w, noise, step_index, outer_loop)
    integrate(state, plant, nominal, config, mode, w, noise, step_index, outer_loop)
    floor(state, plant, nominal, config, mode, w, noise, step_index, outer_loop)
    if sensing is not None:
        obstacles(state, plant, nominal, config, mode, w, noise, step_index, outer_loop)
        # the sensors stage, compiled for the kinds of sensor carried only
        sense(state, config, w, sensing[0], sensing[1])
    turbulence(state, plant, nominal, config, mode, w, noise, step_index, outer_loop)
    clock(state, plant, nominal, config, mode, w, noise, step_index, outer_loop)


#: The options of a fused kernel: a serial loop over a range of worlds that releases the GIL,
#: so that :class:`~.threads.WorldLoop` runs blocks of worlds on several threads at once.
KERNEL = dict(cache=True, _nrt=False, error_model="numpy", nogil=True)


@njit(**KERNEL)
def run_worlds(state, plant, nominal, config, mode, n_steps, noise, sensing, outer_loop,
               first, last):
    """``n_steps`` physics steps of worlds ``first`` to ``last - 1``, one after another;
    ``sensing``: None, or the ``(points, rays)`` switches of the ``obstacles`` and
    ``sensors`` stages (:func:`step_world`).

    Every stage is inlined into this loop (``inline="always"``): the named tuples of arrays
    travel by value, hundreds of words each, so a function call per drone-step that passes
    them costs more than the physics. They are passed once here, per block of worlds.
    ``noise`` is (n_steps, n_worlds, 5) standard normal draws for the turbulence (any
    shape (1, 1, 5) when turbulence is off).
    """
    for w in range(first, last):
        prepare(state, mode, w)
        for step_index in range(n_steps):
            step_world(state, plant, nominal, config, mode, w, noise, step_index, sensing,
                       outer_loop)
