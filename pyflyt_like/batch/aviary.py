"""BatchedAviary: thousands of multirotor worlds stepped by one compiled kernel."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from pyflyt_like.common.angles import quaternions_to_euler
from pyflyt_like.common.flight_modes import FlightMode
from pyflyt_like.common.multirotor_model import load_multirotor_model
from pyflyt_like.common.validation import as_float_array, check_flight_mode, check_positive_int
from pyflyt_like.control.flatness import MIN_HEADING_COSINE, MIN_THRUST_PER_MASS
from pyflyt_like.control.multirotor_modes import (
    HEADING_MODES,
    MULTIROTOR_MODES,
    hold_setpoints,
    setpoint_size,
)

from .arrays import zeros_state
from .build import control_rate, engine_config, model_arrays, plant_arrays
from .options import BatchedAviaryOptions
from .pipeline import advance
from .randomization import draw_plant
from .state_views import fill_aviary_state, set_start_attitudes

MODES = MULTIROTOR_MODES


class BatchedAviary:
    """``n_worlds`` independent worlds of ``n_drones`` multirotors each, stepped together.

    Every drone flies the same parameter set, read by the same loader as the PyBullet
    :class:`~pyflyt_like.core.drones.Multirotor` (``drone_model``, ``model_dir``), in the
    same mode numbers with the same setpoints and units:

    - -1: rotor speeds (n,) in the model's unit; 0: body rates [rad/s] + thrust [N];
    - 1: roll, pitch, yaw [rad] + thrust [N]; 2: thrust [N] + body torques [N m];
    - 7: x, y, yaw, z [m, rad] by the geometric controller (or a full flat reference
      through :meth:`set_flat_reference`).

    Args:
        n_worlds: number of worlds W (> 0).
        n_drones: drones per world D (> 0); they interact only through downwash.
        drone_model: a multirotor parameter set (cf2x, cf2p, racer, crazyflie21,
            crazyflie21plus, hexarotor) or a folder name in ``model_dir``.
        mode: the flight mode of every drone.
        physics_hz: physics rate [Hz].
        control_hz: controller rate [Hz], must divide ``physics_hz``. ``None``: the YAML's
            ``control_hz`` if it divides ``physics_hz``, else ``physics_hz``. A YAML
            ``mode_hz`` entry for ``mode`` overrides it (and must divide ``physics_hz``).
        seed: seed of the engine's generator (randomisation, turbulence).
        model_dir: folder of model folders (default: the package's).
        start_pos: (D, 3) or (W, D, 3) reset positions [m]; default drone i at (i, 0, 1).
        start_orn: (D, 3) or (W, D, 3) reset Euler angles [rad]; default zero.
        integrator: ``"semi_implicit"`` (PyBullet's scheme, default), ``"euler"``, ``"rk4"``.
        gravity: [m/s^2], >= 0.
        ground_effect: rotor thrust gain near the floor (off by default).
        rotor_drag: drag from the air velocity and the rotor speeds (off by default).
        downwash: the push from drones above in the same world (off by default).
        wind: (3,) or (W, 3) mean wind [m/s], world frame; default none.
        turbulence: ``None`` or a dict of Dryden options ``wind_speed_20ft`` [m/s] (5),
            ``airspeed`` [m/s] (10), ``altitude`` [m] (10): independent turbulence per
            world on top of ``wind``, sampled every physics step.
        randomize: per-world, per-drone parameter ranges, see
            :mod:`~pyflyt_like.batch.randomization`; drawn at every reset.
        floor_height: height [m] of the centre of mass at which the floor holds a drone.
        crash_speed: downward speed [m/s] above which reaching the floor is a crash.

    Raises:
        ValueError, TypeError: any bad argument, naming it.
        FileNotFoundError: an unknown ``drone_model``.
    """

    def __init__(self, n_worlds: int = 1, n_drones: int = 1, drone_model: str = "crazyflie21",
                 mode: int = FlightMode.ATTITUDE, physics_hz: int = 500,
                 control_hz: int | None = None, seed: int | None = None,
                 model_dir: str | Path | None = None, start_pos=None, start_orn=None,
                 integrator: str = "semi_implicit", gravity: float = 9.81,
                 ground_effect: bool = False, rotor_drag: bool = False,
                 downwash: bool = False, wind=None, turbulence: dict | None = None,
                 randomize: dict | None = None, floor_height: float = 0.0,
                 crash_speed: float = 1.0):
        options = BatchedAviaryOptions(
            n_worlds=n_worlds, n_drones=n_drones, drone_model=drone_model, mode=mode,
            physics_hz=physics_hz, control_hz=control_hz, seed=seed, model_dir=model_dir,
            start_pos=start_pos, start_orn=start_orn, integrator=integrator, gravity=gravity,
            ground_effect=ground_effect, rotor_drag=rotor_drag, downwash=downwash, wind=wind,
            turbulence=turbulence, randomize=randomize, floor_height=floor_height,
            crash_speed=crash_speed)
        self.options = options
        self.n_worlds, self.n_drones = options.shape
        self.physics_hz, self.gravity = options.physics_hz, options.gravity
        self.model = load_multirotor_model(options.drone_model, options.model_dir,
                                           options.gravity)
        self.mode = options.mode
        self.control_hz = control_rate(self.model, options)
        self.integrator = options.integrator
        self.randomize = options.randomize
        self.rng = np.random.default_rng(options.seed)
        self.start_pos, self.start_orn = options.start_pos, options.start_orn
        self.dt = 1.0 / self.physics_hz
        self._state = zeros_state(self.n_worlds, self.n_drones, self.model.n_rotors,
                                  self.setpoint_size_of(self.mode))
        self._nominal = model_arrays(self.model)
        self.plant = plant_arrays(self.model, options)
        self._config = engine_config(options, self.control_hz)
        self._no_noise = np.zeros((1, 1, 5))
        self._aviary_state = np.zeros((self.n_worlds, self.n_drones, 4, 3))
        self.reset()

    # ------------------------------------------------------------------ modes, setpoints
    def setpoint_size_of(self, mode: int) -> int:
        """Setpoint length of ``mode``: the rotor count for -1, else 4."""
        return setpoint_size(mode, self.model.n_rotors)

    @property
    def setpoint_size(self) -> int:
        return self.setpoint_size_of(self.mode)

    @property
    def hover_speed(self) -> float:
        """Rotor speed (model unit) of the nominal model balancing gravity."""
        return self.model.hover_speed(self.gravity)

    def set_mode(self, mode: int) -> None:
        """Switch every drone to ``mode``; setpoints are preset to hold the current state.

        The controller rate stays the one chosen at construction.
        """
        mode = check_flight_mode("mode", mode, MODES)
        if self.setpoint_size_of(mode) != self._state.setpoint.shape[2]:
            self._state = self._state._replace(setpoint=np.zeros(
                (self.n_worlds, self.n_drones, self.setpoint_size_of(mode))))
        self.mode = int(mode)
        self._reset_controllers(slice(None))

    def _reset_controllers(self, worlds) -> None:
        """Clear the controllers of ``worlds`` (indices, a (W,) mask or a slice) and preset
        their setpoints to hold the current state in the current mode."""
        state = self._state
        state.rate_integral[worlds] = 0.0
        state.rate_previous[worlds] = 0.0
        state.rate_fresh[worlds] = True
        state.use_reference[worlds] = False
        yaw = (quaternions_to_euler(state.quat[worlds])[..., 2] if self.mode in HEADING_MODES
               else None)
        state.setpoint[worlds] = hold_setpoints(self.mode, self.model.n_rotors,
                                                self.model.mass * self.gravity,
                                                state.pos[worlds], yaw)

    def set_setpoints(self, setpoints) -> None:
        """Set every drone's setpoint: (W, D, k) in the mode's units (k as
        :attr:`setpoint_size`); (D, k) and (k,) broadcast to all worlds.

        Raises:
            ValueError: a wrong shape, NaN or infinite values, or (mode -1) rotor speeds
                outside [min_speed, max_speed].
        """
        target = self._state.setpoint
        if not (type(setpoints) is np.ndarray and setpoints.dtype == np.float64):
            setpoints = as_float_array("setpoints", setpoints, (None,) * np.ndim(setpoints))
        k = target.shape[2]
        if setpoints.shape not in ((k,), (self.n_drones, k), target.shape):
            raise ValueError(f"setpoints must have shape {target.shape} (or ({self.n_drones}, "
                             f"{k}) or ({k},)) in mode {self.mode}, got {setpoints.shape}")
        if not np.isfinite(setpoints).all():
            raise ValueError("setpoints must be finite (no NaN or inf)")
        if self.mode == FlightMode.ACTUATORS:
            low, high = self.model.min_speed - 1e-9, self.model.max_speed + 1e-9
            if setpoints.min() < low or setpoints.max() > high:
                raise ValueError(f"rotor speed setpoints must lie within "
                                 f"[{self.model.min_speed:.6g}, {self.model.max_speed:.6g}] "
                                 f"{self.model.rotor_speed_unit}")
        target[:] = setpoints
        self._state.use_reference[:] = False

    def set_flat_reference(self, position, velocity=None, acceleration=None, jerk=None,
                           snap=None, yaw=None, yaw_rate=None, yaw_acceleration=None) -> None:
        """Track flat-output references in mode 7 (switching to it if needed), as
        ``Multirotor.set_flat_reference``: vectors (W, D, 3) world frame [m, m/s, m/s^2,
        m/s^3, m/s^4], yaw terms (W, D) [rad, rad/s, rad/s^2]; ``None`` is zero. Holds until
        the next call, :meth:`set_setpoints` or a mode change.

        Raises:
            ValueError: shapes, non-finite values, or a reference in free fall or rolled by
                90 degrees (its attitude undefined), naming the argument.
        """
        shape = (self.n_worlds, self.n_drones)
        reference = np.zeros((*shape, 18))
        for offset, (name, value) in enumerate((("position", position),
                                                ("velocity", velocity),
                                                ("acceleration", acceleration),
                                                ("jerk", jerk), ("snap", snap))):
            if value is not None:
                reference[..., 3 * offset:3 * offset + 3] = np.clip(
                    as_float_array(name, value, (*shape, 3)), -1e9, 1e9)
        for index, (name, value) in enumerate((("yaw", yaw), ("yaw_rate", yaw_rate),
                                               ("yaw_acceleration", yaw_acceleration))):
            if value is not None:
                values = as_float_array(name, value, shape)
                reference[..., 15 + index] = values if index == 0 else np.clip(values, -1e9,
                                                                               1e9)
        force = reference[..., 6:9] + (0.0, 0.0, self.gravity)
        norm = np.linalg.norm(force, axis=-1)
        if np.any(norm < MIN_THRUST_PER_MASS):
            raise ValueError("acceleration + gravity*e_z is (near) zero for some drone: the "
                             "reference is in free fall and its attitude undefined")
        heading = np.stack((-np.sin(reference[..., 15]), np.cos(reference[..., 15]),
                            np.zeros(shape)), axis=-1)
        if np.any(np.linalg.norm(np.cross(heading, force / norm[..., None]), axis=-1)
                  < MIN_HEADING_COSINE):
            raise ValueError("acceleration + gravity*e_z is parallel to the heading's y axis "
                             "for some drone: the reference rolls by 90 degrees")
        if self.mode != FlightMode.POSITION:
            self.set_mode(FlightMode.POSITION)
        self._state.reference[:] = reference
        self._state.use_reference[:] = True
        self._state.setpoint[:] = reference[..., [0, 1, 15, 2]]

    # ------------------------------------------------------------------ reset and step
    def reset(self, mask=None, seed: int | None = None) -> None:
        """Put the worlds in ``mask`` ((W,) bool; ``None``: all) back at their start state.

        Rotors stop, controllers clear, turbulence restarts from its stationary
        distribution and, with ``randomize``, new plant parameters are drawn. ``seed``
        reseeds the generator first. The other worlds are untouched.
        """
        if seed is not None:
            self.rng = np.random.default_rng(seed)
        if mask is None:
            mask = np.ones(self.n_worlds, bool)
        else:
            mask = np.asarray(mask)
            if mask.dtype != bool or mask.shape != (self.n_worlds,):
                raise ValueError(f"mask must be a bool array of shape ({self.n_worlds},), got "
                                 f"{mask.dtype} {mask.shape}")
        worlds = np.flatnonzero(mask)  # indexing by position: cheap for a few worlds
        state = self._state
        state.pos[worlds] = self.start_pos[worlds]
        set_start_attitudes(state.quat, self.start_orn, mask)
        for name in ("vel", "ang_vel", "rotor_speed", "rotor_command", "wrench"):
            getattr(state, name)[worlds] = 0.0
        state.steps[worlds] = 0
        state.contact[worlds] = False
        state.crashed[worlds] = False
        draw_plant(self.rng, self.randomize, self.model, self.plant, worlds, self.dt)
        if self._config.turbulence:
            # drawn for every world, so a world's draws do not depend on the mask
            turbulence = self.rng.standard_normal(state.turbulence.shape)
            state.turbulence[worlds] = turbulence[worlds]
        self._reset_controllers(worlds)

    def step(self, n_steps: int = 1) -> None:
        """Advance every world ``n_steps`` physics steps in one compiled call."""
        n_steps = check_positive_int("n_steps", n_steps)
        noise = (self.rng.standard_normal((n_steps, self.n_worlds, 5))
                 if self._config.turbulence else self._no_noise)
        advance(self._state, self.plant, self._nominal, self._config, self.mode, n_steps, noise)

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
        """(W, D, n) actual rotor speeds, model unit, rotor order of the YAML."""
        return self._state.rotor_speed

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
