"""BatchedAviary: thousands of multirotor worlds stepped by one compiled kernel."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from pyflyt_like.common.flight_modes import FlightMode
from pyflyt_like.common.validation import (
    as_float_array_in_shapes,
    check_flight_mode,
    check_int,
    check_positive_int,
    check_seed,
)
from pyflyt_like.compiled.jit import bound_entry
from pyflyt_like.control.multirotor_modes import MULTIROTOR_MODES
from pyflyt_like.physics.contact import CRASH_SPEED
from pyflyt_like.worlds import LayoutPool, World

from .arrays import TURBULENCE_STATES, kinematics_block
from .families import vehicle_family
from .flat_reference import flat_reference_array
from .memory import NOISE_CHUNK_BYTES, check_engine_memory, check_pool_memory
from .obstacles import (
    StartRule,
    default_world_layouts,
    draw_layouts,
    empty_pool,
    is_generator,
    layout_world,
    pack_world,
    pool_bytes,
    world_fields,
)
from .options import BatchedAviaryOptions
from .sensors import read_sensors, reset_sensor_worlds, sensing_switches
from .state_views import fill_aviary_state, set_start_attitudes, set_start_velocities
from .threads import WorldLoop
from .user_stages import build_run_worlds, check_user_stages, reset_stages
from .world_random import world_streams

MODES = MULTIROTOR_MODES  # of the multirotors; a fixed-wing's: BatchedAviary.modes
#: Most physics steps one :meth:`BatchedAviary.step` call runs (about 10**12): the
#: worlds' step counters (int64) then need 2**23 such calls, each hours long, to overflow.
MAX_STEPS_PER_CALL = 2**40


class BatchedAviary:
    """``n_worlds`` independent worlds of ``n_drones`` vehicles each, stepped together.

    Every vehicle flies the same parameter set, read from the same files as on the PyBullet
    path, in the same mode numbers with the same setpoints and units. The family comes from
    the model (one per engine):

    - multirotors (the :class:`~pyflyt_like.core.drones.Multirotor` sets): -1 rotor speeds
      (n,) in the model's unit; 0 body rates [rad/s] + thrust [N]; 1 roll, pitch, yaw [rad]
      + thrust [N]; 2 thrust [N] + body torques [N m]; 7 x, y, yaw, z [m, rad] by the
      geometric controller (or a full flat reference through :meth:`set_flat_reference`);
    - fixed-wings (``"acrowing"``, ``"fixedwing"``: the
      :class:`~pyflyt_like.core.drones.Fixedwing` models): -1 five surface commands in
      [-1, 1] + throttle in [0, 1]; 0 roll, pitch, yaw commands in [-1, 1] + throttle;
      1 roll, pitch [rad], yaw rate [rad/s], throttle; 2 heading [rad], airspeed [m/s], 0,
      altitude [m]; 3 bank [rad], airspeed [m/s], 0, climb rate [m/s]
      (docs/batch.md, "Fixed-wing aircraft").

    Args:
        n_worlds: number of worlds W (> 0).
        n_drones: drones per world D (> 0); they interact only through downwash.
        drone_model: a multirotor parameter set (cf2x, cf2p, racer, crazyflie21,
            crazyflie21plus, hexarotor), a fixed-wing (acrowing, fixedwing) or a folder name
            in ``model_dir``.
        mode: the flight mode of every drone.
        physics_hz: physics rate [Hz], an int in [1, 10**6]; ``None``: 500 for multirotors,
            240 for fixed-wings (the PyBullet ``Aviary``'s default).
        control_hz: controller rate [Hz], must divide ``physics_hz``. ``None``: the YAML's
            ``control_hz`` (a multirotor's: if it divides ``physics_hz``, else
            ``physics_hz``). A multirotor YAML's ``mode_hz`` entry for ``mode`` overrides it
            (and must divide ``physics_hz``).
        seed: seed of the engine's generator (randomisation, turbulence): ``None`` or an
            int in [0, 2**63).
        model_dir: folder of model folders (default: the package's).
        start_pos: (D, 3) or (W, D, 3) reset positions [m], within +-1e6 m; default drone
            i at (i, 0, 1) (multirotors) or (0, 10 i, 50) (fixed-wings).
        start_orn: (D, 3) or (W, D, 3) reset Euler angles [rad]; default zero.
        starting_velocity: (3,), (D, 3) or (W, D, 3) reset velocity, body frame [m/s], at
            most 340 m/s fast; default the YAML's ``starting_velocity`` (a fixed-wing's),
            else zero.
        integrator: ``"semi_implicit"`` (PyBullet's scheme, default), ``"euler"``, ``"rk4"``
            (multirotors only).
        gravity: [m/s^2], in [0, 100].
        ground_effect: rotor thrust gain near the floor (off by default; multirotors).
        rotor_drag: drag from the air velocity and the rotor speeds (off by default;
            multirotors).
        downwash: the push from drones above in the same world (off by default;
            multirotors).
        wind: (3,) or (W, 3) mean wind [m/s], world frame, at most 100 m/s fast; default
            none.
        turbulence: ``None`` or a dict of Dryden options ``wind_speed_20ft`` [m/s] (5, in
            [0, 100]), ``airspeed`` [m/s] (10, in (0, 340]), ``altitude`` [m] (10, in
            [0.1, 304.8]): independent turbulence per world on top of ``wind``, sampled
            every physics step.
        shear: ``None`` or a dict of the PyBullet ``shear`` wind field's options
            (``reference_velocity`` (3,) [m/s], horizontal, at most 100 m/s fast;
            ``reference_height`` [m], default 10; ``law`` ``"power"`` (default) or
            ``"log"``; ``exponent`` in (0, 1], default 1/7; ``roughness_length`` [m] for
            the log law): a horizontal wind growing with each vehicle's height, on top of
            ``wind`` and ``turbulence`` (:mod:`pyflyt_like.physics.wind_shear`).
        randomize: per-world, per-drone parameter ranges, see
            :mod:`~pyflyt_like.batch.randomization` (multirotors) and
            :mod:`~pyflyt_like.batch.fixedwing.randomization`; drawn at every reset.
        floor_height: height [m] of the centre of mass at which the floor holds a drone,
            within +-1e6 m.
        crash_speed: downward speed [m/s] above which reaching the floor is a crash, >= 0.
        user_stages: a list of :class:`~pyflyt_like.batch.user_stages.UserStage`: the user's
            ``numba.njit`` functions run before or after a named stage of every physics
            step, or after a reset on the reset worlds (a kernel with them is compiled
            for this engine; see :mod:`~pyflyt_like.batch.user_stages`).
        sensors: ``None`` (or ``{}``) or the sensor configuration of the PyBullet
            ``drone_options["sensors"]`` (sensor name -> preset name or parameter dict,
            :func:`pyflyt_like.sensors.resolve_sensors`; rates must divide ``physics_hz``):
            the same sensors on every drone of every world, sampled by the ``sensors``
            stage; :meth:`read_sensors` returns their readings (docs/sensors.md, "On the
            batched engine").
        world: obstacles (docs/batch.md, "Obstacle worlds"): ``None``; a
            :class:`~pyflyt_like.worlds.World`, one layout every simulated world flies
            among; a generator (``Forest``, ``Rooms``, ``Clutter``), whose ``world_layouts``
            layouts are drawn at construction and each world given one at reset (a
            :class:`~pyflyt_like.worlds.LayoutPool` of ``pack_layouts`` likewise); or a world
            file (a shipped name, a ``.yaml`` path or its mapping: with a ``seed`` its
            World, without one its generator). A drone whose collision sphere touches an
            obstacle has crashed and is stopped (:attr:`collision_radius`).
        world_layouts: a generator's pool size L, an int in [1, 65536]; ``None``:
            ``min(n_worlds, 64)``. Only with a generator.
        world_redraw: with a generator, each reset gives the worlds it resets a new layout
            index drawn from the engine's generator (``True``), or keeps their index
            (``False``: drawn at construction only).

    The bounds are physical (docs/batch.md, "Errors and bounds"); what still diverges is
    reset by :meth:`step` and flagged in :attr:`diverged`.

    Raises:
        ValueError, TypeError: any bad argument, naming it and what is allowed; an engine
            (or a pool of obstacle layouts, naming ``world_layouts``) that would need more
            than half this machine's memory (:mod:`.memory`); a start inside a ``World``'s
            obstacle (naming ``start_pos``).
        FileNotFoundError: an unknown ``drone_model`` or world file.
    """

    def __init__(self, n_worlds: int = 1, n_drones: int = 1, drone_model: str = "crazyflie21",
                 mode: int = FlightMode.ATTITUDE, physics_hz: int | None = None,
                 control_hz: int | None = None, seed: int | None = None,
                 model_dir: str | Path | None = None, start_pos=None, start_orn=None,
                 starting_velocity=None, integrator: str = "semi_implicit", gravity: float = 9.81,
                 ground_effect: bool = False, rotor_drag: bool = False,
                 downwash: bool = False, wind=None, turbulence: dict | None = None,
                 shear: dict | None = None,
                 randomize: dict | None = None, floor_height: float = 0.0,
                 crash_speed: float = CRASH_SPEED, user_stages=None, sensors=None, world=None,
                 world_layouts: int | None = None, world_redraw: bool = True):
        options = BatchedAviaryOptions(
            n_worlds=n_worlds, n_drones=n_drones, drone_model=drone_model, mode=mode,
            physics_hz=physics_hz, control_hz=control_hz, seed=seed, model_dir=model_dir,
            start_pos=start_pos, start_orn=start_orn, starting_velocity=starting_velocity,
            integrator=integrator, gravity=gravity,
            ground_effect=ground_effect, rotor_drag=rotor_drag, downwash=downwash, wind=wind,
            turbulence=turbulence, shear=shear, randomize=randomize,
            floor_height=floor_height,
            crash_speed=crash_speed, user_stages=user_stages, sensors=sensors, world=world,
            world_layouts=world_layouts, world_redraw=world_redraw)
        self.family = family = vehicle_family(options)
        self.options = options = family.options  # physics_hz resolved
        #: The resolved sensor parameters (sensor name -> parameters; {}: no sensors).
        self.sensor_params = options.sensor_params()
        self.n_worlds, self.n_drones = options.shape
        self.physics_hz, self.gravity = options.physics_hz, options.gravity
        self.model = family.model
        self.modes = family.modes
        self.mode = check_flight_mode("mode", options.mode, family.modes)
        engine_estimate, vehicles = family.memory_bytes(self.n_worlds, self.n_drones,
                                                        self.sensor_params)
        check_engine_memory(self.n_worlds, self.n_drones, engine_estimate, vehicles)
        self.control_hz = family.control_hz
        self.integrator = options.integrator
        self.randomize = family.randomize
        self.rng = np.random.default_rng(options.seed)
        self.start_pos, self.start_orn = options.start_poses(family.start_spacing,
                                                             family.start_height)
        self.start_vel = options.start_velocities(
            getattr(self.model, "starting_velocity", np.zeros(3)))
        self.dt = 1.0 / self.physics_hz
        self._state = family.zeros_state(self.n_worlds, self.n_drones,
                                         family.setpoint_size(self.mode), self.sensor_params)
        self._nominal = family.nominal
        self.plant = family.new_plant(options)
        #: The world spec (``None``, a World or a generator: a world file read).
        self.world_spec = options.world
        self.world_redraw = options.world_redraw
        #: Each drone's collision sphere [m] against obstacles and for the start rule.
        self.collision_radius = family.collision_radius
        self._generator_world = is_generator(self.world_spec)
        if isinstance(self.world_spec, LayoutPool):
            pool = self.world_spec
            check_pool_memory("world", pool_bytes(pool), engine_estimate)
        elif self._generator_world:
            n_layouts = options.world_layouts or default_world_layouts(self.n_worlds)
            pool = draw_layouts(self.world_spec, n_layouts, options.seed, engine_estimate)
        elif self.world_spec is not None:
            pool = pack_world(self.world_spec, engine_estimate)
        else:
            pool = empty_pool()
        self._pool = pool
        self._config = family.config._replace(**world_fields(pool))
        self._start_rule = None
        if self.world_spec is not None:
            self._start_rule = StartRule(pool, self.collision_radius, self.start_pos,
                                         options.start_pos)
            if not self._generator_world:
                self._start_rule.check_fixed()
        self._layouts_drawn = False
        self._world_layout_view = self._state.world_layout.view()
        self._world_layout_view.flags.writeable = False
        stages = check_user_stages(options.user_stages, list(family.pipeline.STAGES))
        self._run_worlds = build_run_worlds(family.pipeline, stages)
        # the obstacles and sensors stages, compiled only for an engine with either
        self._sensing = sensing_switches(self.sensor_params, self.world_spec is not None)
        self._outer_loop = self._outer_loop_of(self.mode)
        self._no_noise = np.zeros((1, 1, TURBULENCE_STATES))
        self._loop: WorldLoop | None = None  # bound at the first step (_advance)
        self._sensor_streams_drawn = False
        self._reset_stages = reset_stages(stages)
        self._aviary_state = np.zeros((self.n_worlds, self.n_drones, 4, 3))
        self._kinematics = kinematics_block(self._state)
        self._diverged = np.zeros(self.n_worlds, bool)
        self._diverged_view = self._diverged.view()
        self._diverged_view.flags.writeable = False
        self._any_diverged = False  # whether _diverged holds a True: clear it only then
        self.reset()

    # ------------------------------------------------------------------ modes, setpoints
    @property
    def family_name(self) -> str:
        """``"multirotor"`` or ``"fixedwing"``."""
        return self.family.name

    def setpoint_size_of(self, mode: int) -> int:
        """Setpoint length of ``mode``: a multirotor's rotor count or a fixed-wing's six
        actuator commands for -1, else 4."""
        return self.family.setpoint_size(check_flight_mode("mode", mode, self.modes))

    @property
    def setpoint_size(self) -> int:
        return self.setpoint_size_of(self.mode)

    @property
    def hover_speed(self) -> float:
        """Rotor speed (model unit) of the nominal multirotor balancing gravity."""
        self._require_multirotor("hover_speed")
        return self.model.hover_speed(self.gravity)

    def _require_multirotor(self, name: str) -> None:
        if self.family.name != "multirotor":
            raise TypeError(f"{name} is a multirotor's; drone_model={self.options.drone_model!r}"
                            " is a fixed-wing")

    def set_mode(self, mode: int) -> None:
        """Switch every drone to ``mode``; setpoints are preset to hold the current state.

        The controller rate stays the one chosen at construction.
        """
        mode = check_flight_mode("mode", mode, self.modes)
        if self.setpoint_size_of(mode) != self._state.setpoint.shape[2]:
            self._state = self._state._replace(setpoint=np.zeros(
                (self.n_worlds, self.n_drones, self.setpoint_size_of(mode))))
        self.mode = int(mode)
        if self._outer_loop_of(self.mode) is not self._outer_loop:
            # the kernel compiled (or cached) with the outer loop, or without it: bound
            # again at the next step
            self._outer_loop, self._loop = self._outer_loop_of(self.mode), None
        self._reset_controllers(slice(None))

    def _outer_loop_of(self, mode: int) -> bool | None:
        """The kernel's ``outer_loop`` argument in ``mode``: True for the family's modes
        that fly the outer loop, else None (compiled without it)."""
        return True if mode in self.family.outer_loop_modes else None

    def _reset_controllers(self, worlds) -> None:
        """Clear the controllers of ``worlds`` (indices, a (W,) mask or a slice) and preset
        their setpoints to hold the current state in the current mode."""
        self.family.reset_controllers(self._state, self.plant, self.mode, worlds)

    def set_setpoints(self, setpoints) -> None:
        """Set every drone's setpoint: (W, D, k) in the mode's units (k as
        :attr:`setpoint_size`); (D, k) and (k,) broadcast to all worlds.

        Raises:
            TypeError: not a numeric array (strings, bools, complex, ragged lists).
            ValueError: a wrong shape, NaN or infinite values, or (a multirotor's mode -1)
                rotor speeds outside [min_speed, max_speed].
        """
        target = self._state.setpoint
        k = target.shape[2]
        if not (type(setpoints) is np.ndarray and setpoints.dtype == np.float64):
            setpoints = as_float_array_in_shapes(
                "setpoints", setpoints, ((k,), (self.n_drones, k), target.shape))
        if setpoints.shape not in ((k,), (self.n_drones, k), target.shape):
            raise ValueError(f"setpoints must have shape {target.shape} (or ({self.n_drones}, "
                             f"{k}) or ({k},)) in mode {self.mode}, got {setpoints.shape}")
        if not np.isfinite(setpoints).all():
            raise ValueError("setpoints must be finite (no NaN or inf)")
        self.family.check_setpoints(self.mode, setpoints)
        target[:] = setpoints
        self.family.setpoints_given(self._state)

    def set_flat_reference(self, position, velocity=None, acceleration=None, jerk=None,
                           snap=None, yaw=None, yaw_rate=None, yaw_acceleration=None) -> None:
        """Track flat-output references in mode 7 (switching to it if needed), as
        ``Multirotor.set_flat_reference``: vectors (W, D, 3) world frame [m, m/s, m/s^2,
        m/s^3, m/s^4], yaw terms (W, D) [rad, rad/s, rad/s^2]; ``None`` is zero. Holds until
        the next call, :meth:`set_setpoints` or a mode change.

        Raises:
            TypeError: a value that is not a numeric array, naming the argument.
            ValueError: shapes, non-finite values, or a reference in free fall or rolled by
                90 degrees (its attitude undefined), naming the argument. Nothing changes
                then, not even the mode.
            TypeError: the engine flies fixed-wings.
        """
        self._require_multirotor("set_flat_reference")
        reference = flat_reference_array(
            (self.n_worlds, self.n_drones), self.gravity, position, velocity=velocity,
            acceleration=acceleration, jerk=jerk, snap=snap, yaw=yaw, yaw_rate=yaw_rate,
            yaw_acceleration=yaw_acceleration)
        if self.mode != FlightMode.POSITION:
            self.set_mode(FlightMode.POSITION)
        self._state.reference[:] = reference
        self._state.use_reference[:] = True
        self._state.setpoint[:] = reference[..., [0, 1, 15, 2]]

    # ------------------------------------------------------------------ reset and step
    def reset(self, mask=None, seed: int | None = None) -> None:
        """Put the worlds in ``mask`` ((W,) bool; ``None``: all) back at their start state.

        Vehicles return to their start pose and velocity (body frame), rotors stop or
        surfaces centre and motors spin down, controllers clear, turbulence restarts from
        its stationary distribution and, with ``randomize``, new plant parameters are
        drawn. ``seed`` (``None`` or an int in [0, 2**63)) reseeds the generator first. The
        other worlds are untouched.

        Raises:
            ValueError, TypeError: a bad ``mask`` or ``seed``, naming it; the engine is then
                left exactly as it was (the generator is not reseeded).
        """
        seed = check_seed("seed", seed)
        mask = np.ones(self.n_worlds, bool) if mask is None else self._checked_mask(mask)
        if seed is not None:
            self.rng = np.random.default_rng(seed)
        worlds = np.flatnonzero(mask)  # indexing by position: cheap for a few worlds
        state = self._state
        if self.sensor_params and (seed is not None or not self._sensor_streams_drawn):
            # Drawn first from a fresh generator and for every world, so that world w's
            # stream is the generator's w-th draw whatever W and the mask.
            state.sensor_streams[worlds] = world_streams(self.rng, self.n_worlds)[worlds]
            self._sensor_streams_drawn = True
        if self._generator_world:
            # Drawn for every world at every reset, kept for the masked ones (and, with
            # world_redraw=False, at the first reset only): the draws that follow do not
            # depend on the mask or on world_redraw.
            drawn = self.rng.integers(self._pool.n_layouts, size=self.n_worlds)
            layouts = state.world_layout[worlds]
            if self.world_redraw or not self._layouts_drawn:
                layouts = drawn[worlds]
            # the starts first: a start that cannot be moved out raises before any change
            starts = self._start_rule.starts(worlds, layouts)
            state.world_layout[worlds] = layouts
            self._layouts_drawn = True
            state.pos[worlds] = starts
        else:
            state.pos[worlds] = self.start_pos[worlds]
        set_start_attitudes(state.quat, self.start_orn, mask)
        set_start_velocities(state.quat, self.start_vel, state.vel, mask)
        state.ang_vel[worlds] = 0.0
        self.family.clear(state, worlds)
        state.steps[worlds] = 0
        state.contact[worlds] = False
        state.crashed[worlds] = False
        state.obstacle_check[worlds, :, 3] = -1.0  # a new start (or layout): query it
        self.family.draw_plant(self.rng, self.plant, worlds)
        if self._config.turbulence:
            # drawn for every world, so a world's draws do not depend on the mask
            turbulence = self.rng.standard_normal(state.turbulence.shape)
            state.turbulence[worlds] = turbulence[worlds]
        state.wind[worlds] = self.plant.wind_mean[worlds]  # until the next step's
        self._reset_controllers(worlds)
        if self.sensor_params:  # new units, then the reset state sampled at t = 0
            points, rays = self._sensing
            reset_sensor_worlds(state, self._config, worlds.astype(np.int64), points, rays)
        for stage in self._reset_stages:
            stage(state, self.plant, self._nominal, self._config, worlds, self.rng)

    def _checked_mask(self, mask) -> np.ndarray:
        """``mask`` as a (W,) bool array, or ValueError naming it."""
        expected = f"mask must be a bool array of shape ({self.n_worlds},)"
        try:
            array = np.asarray(mask)
        except ValueError:  # a ragged list
            raise ValueError(f"{expected}, got a ragged {type(mask).__name__}") from None
        if array.dtype != bool or array.shape != (self.n_worlds,):
            raise ValueError(f"{expected}, got {array.dtype} {array.shape}")
        return array

    def step(self, n_steps: int = 1) -> None:
        """Advance every world ``n_steps`` physics steps (1 to :data:`MAX_STEPS_PER_CALL`).

        One compiled call runs them all; with turbulence, its noise is drawn
        :data:`~.memory.NOISE_CHUNK_BYTES` at a time, one compiled call per chunk, which
        gives the same result as one draw. Afterwards, in one vectorised pass, worlds whose
        positions, attitudes or velocities are no longer finite are reset to their start
        state and flagged in :attr:`diverged`.

        Raises:
            TypeError, ValueError: ``n_steps`` not an int in [1, MAX_STEPS_PER_CALL]; the
                engine is then left as it was.
        """
        n_steps = check_positive_int("n_steps", n_steps, MAX_STEPS_PER_CALL)
        state, plant, nominal, config = self._state, self.plant, self._nominal, self._config
        advance = self._advance
        if not config.turbulence:
            advance(state, plant, nominal, config, self.mode, n_steps, self._no_noise,
                    self._sensing, self._outer_loop)
        else:
            chunk = max(1, NOISE_CHUNK_BYTES // (8 * TURBULENCE_STATES * self.n_worlds))
            noise = np.empty((min(chunk, n_steps), self.n_worlds, TURBULENCE_STATES))
            for done in range(0, n_steps, chunk):
                count = min(chunk, n_steps - done)
                self.rng.standard_normal(out=noise[:count])
                advance(state, plant, nominal, config, self.mode, count, noise, self._sensing,
                        self._outer_loop)
        self._restart_diverged()

    def _advance(self, *arguments) -> None:
        """Run the kernel on ``arguments`` (state, plant, nominal, config, mode, n_steps,
        noise, sensing, outer_loop) over every world. The first call binds it, compiling it
        or loading it from the cache: an engine whose kernel is never run (a task steps the
        worlds with its own) compiles nothing."""
        if self._loop is None:
            n_drones = self.n_drones
            # numba would type the ~100 arrays of every call again (~9 us); bound once
            self._loop = WorldLoop(
                bound_entry(self._run_worlds, *arguments, 0, self.n_worlds), self.n_worlds,
                work_per_world=lambda *arguments: n_drones * arguments[5])
        self._loop(*arguments)

    def _restart_diverged(self) -> None:
        """Reset the worlds whose kinematic state is not finite; record them in
        :attr:`diverged`. The finite case, every call, is one np.isfinite pass."""
        if np.isfinite(self._kinematics).all():
            if self._any_diverged:
                self._diverged[:] = False
                self._any_diverged = False
            return
        state = self._state
        finite = np.ones(self.n_worlds, bool)
        for array in (state.pos, state.quat, state.vel, state.ang_vel):
            finite &= np.isfinite(array).all(axis=(1, 2))
        np.logical_not(finite, out=self._diverged)
        self._any_diverged = True
        self.reset(mask=~finite)

    @property
    def diverged(self) -> np.ndarray:
        """(W,) bool, read-only: True for the worlds whose position, attitude or velocity
        stopped being finite (NaN or inf) in the last :meth:`step` call. Those worlds were
        reset to their start state in that call (as :meth:`reset` with a mask: new plant
        draws, the hold setpoints); the other worlds were not touched. False everywhere
        before the first step and after a step in which nothing diverged."""
        return self._diverged_view

    # ------------------------------------------------------------------ obstacles
    @property
    def world_layout(self) -> np.ndarray:
        """(W,) int64, read-only: the index in :attr:`layout_pool` of the obstacle layout
        each world flies among (all 0 without a world or with a World)."""
        return self._world_layout_view

    @property
    def layout_pool(self) -> LayoutPool:
        """The :class:`~pyflyt_like.worlds.LayoutPool` of the engine's obstacle layouts
        (one empty layout without a world)."""
        return self._pool

    def world_of(self, w: int) -> World:
        """The :class:`~pyflyt_like.worlds.World` that world ``w`` flies among now (its
        layout of the pool; primitives ordered by kind; the empty World without a world):
        for plots, or a PyBullet twin (``Aviary(world=sim.world_of(w))``).

        Raises:
            TypeError, ValueError: ``w`` not an int in [0, n_worlds).
        """
        w = check_int("w", w)
        if not 0 <= w < self.n_worlds:
            raise ValueError(f"w must be a world index in [0, {self.n_worlds}), got {w}")
        return layout_world(self._pool, int(self._state.world_layout[w]))

    # ------------------------------------------------------------------ sensors
    def read_sensors(self) -> dict[str, dict[str, np.ndarray]]:
        """The latest sample of each configured sensor, copies with leading axes (W, D), in
        the keys and units of the PyBullet ``aviary.read_sensors(i)``:
        ``{"imu": {"time", "accel" (W, D, 3) [m/s^2, sensor frame], "gyro" (W, D, 3)
        [rad/s]}, "baro": {"time", "pressure" [Pa], "altitude" [m above sea level]},
        "mag": {"time", "field" (W, D, 3) [uT, body]}, "gnss": {"time", "position"
        (W, D, 3) [m, world], "velocity" (W, D, 3) [m/s, world], "fix" (W, D) bool},
        "range": {"time", "range" [m], "valid" (W, D) bool}}``, scalars (W, D). ``time``
        [s] is the sample's, since the world's reset (which samples at t = 0); {} without
        sensors."""
        return read_sensors(self._state, self.sensor_params)

    # ------------------------------------------------------------------ views
    @property
    def pos(self) -> np.ndarray:
        """(W, D, 3) centre-of-mass positions [m], world ENU (a writable view)."""
        return self._state.pos

    @property
    def quat(self) -> np.ndarray:
        """(W, D, 4) attitudes, body (FLU) to world, quaternion (x, y, z, w)."""
        return self._state.quat

    @property
    def vel(self) -> np.ndarray:
        """(W, D, 3) velocities [m/s], world frame."""
        return self._state.vel

    @property
    def ang_vel(self) -> np.ndarray:
        """(W, D, 3) body rates p, q, r [rad/s], body frame."""
        return self._state.ang_vel

    @property
    def rotor_speed(self) -> np.ndarray:
        """(W, D, n) actual rotor speeds, model unit, rotor order of the YAML (multirotors)."""
        self._require_multirotor("rotor_speed")
        return self._state.rotor_speed

    @property
    def aux_state(self) -> np.ndarray:
        """(W, D, k) the PyBullet vehicle's ``aux_state`` (a new array): a multirotor's rotor
        speeds (model unit); a fixed-wing's surface deflections [rad] in the YAML's
        ``surfaces`` order, then its motor throttle."""
        return self.family.aux_state(self._state)

    @property
    def airspeed(self) -> np.ndarray:
        """(W, D) airspeed [m/s]: the norm of each vehicle's velocity less its world's wind
        of the last physics step and the shear at its height."""
        air = self._state.vel - self._state.wind[:, None, :]
        shear = self.options.shear
        if shear is not None:
            factor = shear.profile(self._state.pos[..., 2])
            air[..., 0] -= shear.reference_velocity[0] * factor
            air[..., 1] -= shear.reference_velocity[1] * factor
        return np.sqrt(np.einsum("wdi,wdi->wd", air, air))

    @property
    def setpoints(self) -> np.ndarray:
        """(W, D, k) the current setpoints (read-only copy)."""
        return self._state.setpoint.copy()

    @property
    def setpoint_buffer(self) -> np.ndarray:
        """(W, D, k) the engine's own setpoint array, writable in place: the trusted path
        for callers whose setpoints are valid by construction (the vector tasks' action
        scaling writes here, with nothing copied or checked again). Writes are not checked:
        use :meth:`set_setpoints` for anything else. A mode change that alters the setpoint
        size replaces the array."""
        return self._state.setpoint

    @property
    def kernel_arguments(self) -> tuple:
        """(state, plant, nominal, config): the engine's named tuples of arrays, for a task
        whose compiled step calls the family's ``pipeline.step_world`` itself (one call per
        agent step: the dogfight's). Such a step owns what :meth:`step` does besides the
        physics (divergence, turbulence noise); a mode change may replace ``state``.
        ``step_world(..., sensing=None)`` has no obstacles stage: a task flying among
        obstacles passes ``sensing`` switches (:func:`~.sensors.sensing_switches`), whose
        stage reads the pool in ``config`` (:data:`~.arrays.WORLD_FIELDS`) and
        ``state.world_layout``."""
        return self._state, self.plant, self._nominal, self._config

    @property
    def contact(self) -> np.ndarray:
        """(W, D) bool: on the floor in the last physics step."""
        return self._state.contact

    @property
    def crashed(self) -> np.ndarray:
        """(W, D) bool: reached the floor too fast or upside down since the reset."""
        return self._state.crashed

    @property
    def wind(self) -> np.ndarray:
        """(W, 3) wind [m/s] of the last physics step."""
        return self._state.wind

    @property
    def elapsed_time(self) -> np.ndarray:
        """(W,) seconds since each world's reset."""
        return self._state.steps * self.dt

    @property
    def state(self) -> np.ndarray:
        """(W, D, 4, 3) in ``Aviary.state`` layout: body rates [rad/s], Euler roll, pitch,
        yaw [rad], body-frame velocity [m/s], world position [m] (a fresh fill of one
        buffer: copy it to keep it)."""
        fill_aviary_state(self._state.pos, self._state.quat, self._state.vel,
                          self._state.ang_vel, self._aviary_state)
        return self._aviary_state
