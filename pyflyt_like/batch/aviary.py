"""BatchedAviary: thousands of multirotor worlds stepped by one compiled kernel."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from pyflyt_like.common.angles import quaternions_to_euler
from pyflyt_like.common.dryden_filters import (
    MAX_ALTITUDE,
    first_order_coefficients,
    low_altitude_parameters,
    second_order_coefficients,
)
from pyflyt_like.common.multirotor_model import MultirotorModel, load_multirotor_model
from pyflyt_like.common.validation import as_float_array, check_bool

from .arrays import Config, Model, Plant, zeros_state
from .controllers import (
    ATTITUDE,
    BODY_RATES,
    FORCE_TORQUE,
    MIN_HEADING_COSINE,
    MIN_THRUST_PER_MASS,
    POSITION,
    ROTOR_SPEEDS,
)
from .integrators import INTEGRATORS
from .pipeline import advance
from .randomization import check_randomize, draw_plant
from .state_views import fill_aviary_state, set_start_attitudes

MODES = (ROTOR_SPEEDS, BODY_RATES, ATTITUDE, FORCE_TORQUE, POSITION)
WRENCH_SATURATION = 1e6  # as the core's Allocator
TURBULENCE_OPTIONS = ("wind_speed_20ft", "airspeed", "altitude")


def _positive_int(name: str, value: object) -> int:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{name} must be an int, got {value!r}")
    if value <= 0:
        raise ValueError(f"{name} must be > 0, got {value}")
    return int(value)


def _model_arrays(model: MultirotorModel, control_period: float) -> Model:
    n = model.n_rotors
    spins = model.spins
    kf, km = np.full(n, model.kf), np.full(n, model.km)
    matrix = np.vstack((kf, kf * model.positions[:, 1], -kf * model.positions[:, 0],
                        km * spins))
    if np.linalg.matrix_rank(matrix) < 4:
        raise ValueError(f"{model.param_path}: the actuation matrix must have rank 4")
    pinv = np.linalg.pinv(matrix)
    low, high = np.full(n, model.min_speed) ** 2, np.full(n, model.max_speed) ** 2
    ki = model.rate_ki
    integral_bound = np.where(ki > 0, model.rate_limits_output / np.where(ki > 0, ki, 1), 0.0)
    return Model(
        positions=model.positions.copy(), spins=spins.copy(), pinv=pinv,
        collective=pinv[:, 0].copy(), per_newton=pinv / pinv[:, :1],
        low_newtons=low / pinv[:, 0], high_newtons=high / pinv[:, 0], low=low, high=high,
        wrench_bound=WRENCH_SATURATION * (np.abs(matrix) @ high),
        min_speed=np.full(n, model.min_speed), max_speed=np.full(n, model.max_speed),
        mass=model.mass, inertia=model.inertia.copy(), rate_kp=model.rate_kp,
        rate_ki=model.rate_ki, rate_kd=model.rate_kd, rate_limits=model.rate_limits_output,
        rate_integral_bound=integral_bound, angle_kp=model.angle_kp,
        angle_rate_limits=model.rate_limits, geo_kp=model.geometric_kp,
        geo_kv=model.geometric_kv, geo_kr=model.geometric_kr, geo_kw=model.geometric_kw,
        kf=model.kf, km=model.km, prop_radius=model.prop_radius,
        ground_effect_coeff=model.ground_effect_coeff,
        ground_clip=0.25 * model.prop_radius * math.sqrt(model.ground_effect_coeff
                                                                  / model.max_ground_gain),
        drag_coeffs=np.array((model.drag_coeff_xy, model.drag_coeff_xy, model.drag_coeff_z)),
        downwash_coeffs=model.downwash_coeffs.copy(), speed_to_rad_s=model.speed_to_rad_s)


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
                 mode: int = ATTITUDE, physics_hz: int = 500, control_hz: int | None = None,
                 seed: int | None = None, model_dir: str | Path | None = None,
                 start_pos=None, start_orn=None, integrator: str = "semi_implicit",
                 gravity: float = 9.81, ground_effect: bool = False, rotor_drag: bool = False,
                 downwash: bool = False, wind=None, turbulence: dict | None = None,
                 randomize: dict | None = None, floor_height: float = 0.0,
                 crash_speed: float = 1.0):
        self.n_worlds = _positive_int("n_worlds", n_worlds)
        self.n_drones = _positive_int("n_drones", n_drones)
        self.physics_hz = _positive_int("physics_hz", physics_hz)
        gravity = float(as_float_array("gravity", gravity, ()))
        if gravity < 0:
            raise ValueError(f"gravity must be >= 0 m/s^2, got {gravity}")
        self.gravity = gravity
        self.model = load_multirotor_model(drone_model, model_dir, gravity)
        self._check_mode(mode)
        self.mode = int(mode)
        self.control_hz = self._control_rate(control_hz)
        if integrator not in INTEGRATORS:
            raise ValueError(f"integrator must be one of {list(INTEGRATORS)}, got "
                             f"{integrator!r}")
        self.integrator = integrator
        self.randomize = check_randomize(randomize)
        self.rng = np.random.default_rng(seed)
        shape = (self.n_worlds, self.n_drones)
        self.start_pos = self._per_drone("start_pos", start_pos, np.column_stack((
            np.arange(self.n_drones, dtype=float), np.zeros(self.n_drones),
            np.ones(self.n_drones))))
        self.start_orn = self._per_drone("start_orn", start_orn, np.zeros((self.n_drones, 3)))
        self.dt = 1.0 / self.physics_hz
        n = self.model.n_rotors
        self._state = zeros_state(self.n_worlds, self.n_drones, n, self.setpoint_size_of(mode))
        self._model = _model_arrays(self.model, 1.0 / self.control_hz)
        wind_mean = np.zeros((self.n_worlds, 3))
        if wind is not None:
            wind_mean[:] = self._world_vectors("wind", wind)
        self.plant = Plant(
            mass=np.full(shape, self.model.mass), inertia=np.tile(self.model.inertia,
                                                                  (*shape, 1)),
            kf=np.full(shape, self.model.kf), km=np.full(shape, self.model.km),
            tau=np.full(shape, self.model.tau), lag_gain=np.ones(shape),
            drag_scale=np.ones(shape), com_offset=np.zeros((*shape, 3)),
            disturbance_force=np.zeros((*shape, 3)), disturbance_torque=np.zeros((*shape, 3)),
            wind_mean=wind_mean, turbulence_axes=self._turbulence_axes(wind_mean))
        self._config = self._make_config(turbulence, ground_effect, rotor_drag, downwash,
                                         floor_height, crash_speed)
        self._no_noise = np.zeros((1, 1, 5))
        self._aviary_state = np.zeros((*shape, 4, 3))
        self.reset()

    # ------------------------------------------------------------------ construction
    def _check_mode(self, mode: object) -> None:
        if isinstance(mode, (bool, np.bool_)) or not isinstance(mode, (int, np.integer)):
            raise TypeError(f"mode must be an int, one of {list(MODES)}, got {mode!r}")
        if mode not in MODES:
            raise ValueError(f"mode must be one of {list(MODES)}, got {mode}")

    def _control_rate(self, control_hz: int | None) -> int:
        mode_hz = self.model.mode_hz
        if self.mode in mode_hz:
            rate = mode_hz[self.mode]
            if not isinstance(rate, int) or rate <= 0 or self.physics_hz % rate:
                raise ValueError(f"{self.model.param_path}: mode_hz[{self.mode}] = {rate!r} "
                                 f"must be a positive integer dividing physics_hz="
                                 f"{self.physics_hz}")
            return rate
        if control_hz is None:
            yaml_rate = self.model.control_hz
            return yaml_rate if self.physics_hz % yaml_rate == 0 else self.physics_hz
        rate = _positive_int("control_hz", control_hz)
        if self.physics_hz % rate:
            raise ValueError(f"control_hz={rate} must divide physics_hz={self.physics_hz}")
        return rate

    def _per_drone(self, name: str, value, default: np.ndarray) -> np.ndarray:
        if value is None:
            value = default
        array = np.asarray(as_float_array(name, value, (None,) * np.ndim(value)))
        shape = (self.n_worlds, self.n_drones, 3)
        if array.shape not in ((self.n_drones, 3), shape):
            raise ValueError(f"{name} must have shape ({self.n_drones}, 3) or {shape}, got "
                             f"{array.shape}")
        return np.broadcast_to(array, shape).copy()

    def _world_vectors(self, name: str, value) -> np.ndarray:
        array = np.asarray(as_float_array(name, value, (None,) * np.ndim(value)))
        if array.shape not in ((3,), (self.n_worlds, 3)):
            raise ValueError(f"{name} must have shape (3,) or ({self.n_worlds}, 3), got "
                             f"{array.shape}")
        return array

    @staticmethod
    def _turbulence_axes(wind_mean: np.ndarray) -> np.ndarray:
        """Rows e_u (along the horizontal mean wind, +x if none), e_v (to its left), e_z."""
        horizontal = wind_mean[:, :2]
        norm = np.linalg.norm(horizontal, axis=1, keepdims=True)
        along = np.where(norm > 0, horizontal / np.where(norm > 0, norm, 1), [1.0, 0.0])
        axes = np.zeros((len(wind_mean), 3, 3))
        axes[:, 0, :2] = along
        axes[:, 1, 0], axes[:, 1, 1] = -along[:, 1], along[:, 0]
        axes[:, 2, 2] = 1.0
        return axes

    def _make_config(self, turbulence, ground_effect, rotor_drag, downwash, floor_height,
                     crash_speed) -> Config:
        a = b = 0.0
        phi_v = phi_w = np.zeros(4)
        chol_v = chol_w = np.zeros(3)
        sigma = np.zeros(3)
        if turbulence is not None:
            if not isinstance(turbulence, dict):
                raise TypeError(f"turbulence must be None or a dict of {TURBULENCE_OPTIONS}, "
                                f"got {turbulence!r}")
            unknown = sorted(set(turbulence) - set(TURBULENCE_OPTIONS))
            if unknown:
                raise ValueError(f"turbulence has unknown options {unknown}; options are "
                                 f"{list(TURBULENCE_OPTIONS)}")
            options = {"wind_speed_20ft": 5.0, "airspeed": 10.0, "altitude": 10.0, **turbulence}
            w20, airspeed, altitude = (float(as_float_array(f"turbulence[{k!r}]", options[k],
                                                            ())) for k in TURBULENCE_OPTIONS)
            if w20 < 0 or airspeed <= 0 or not 0 < altitude <= MAX_ALTITUDE:
                raise ValueError(f"turbulence needs wind_speed_20ft >= 0, airspeed > 0 and "
                                 f"0 < altitude <= {MAX_ALTITUDE} m, got {options}")
            sigma, lengths = low_altitude_parameters(altitude, w20)
            theta = airspeed * self.dt / lengths
            a, b = first_order_coefficients(theta[0])
            phi, chol = second_order_coefficients(theta[1])
            phi_v, chol_v = phi.ravel(), np.array((chol[0, 0], chol[1, 0], chol[1, 1]))
            phi, chol = second_order_coefficients(theta[2])
            phi_w, chol_w = phi.ravel(), np.array((chol[0, 0], chol[1, 0], chol[1, 1]))
        floor_height = float(as_float_array("floor_height", floor_height, ()))
        crash_speed = float(as_float_array("crash_speed", crash_speed, ()))
        if crash_speed < 0:
            raise ValueError(f"crash_speed must be >= 0 m/s, got {crash_speed}")
        return Config(
            dt=self.dt, gravity=self.gravity, mode_steps=self.physics_hz // self.control_hz,
            control_period=1.0 / self.control_hz, integrator=INTEGRATORS[self.integrator],
            ground_effect=check_bool("ground_effect", ground_effect),
            rotor_drag=check_bool("rotor_drag", rotor_drag),
            downwash=check_bool("downwash", downwash), turbulence=turbulence is not None,
            turb_a=float(a), turb_b=float(b), turb_phi_v=phi_v, turb_chol_v=chol_v,
            turb_phi_w=phi_w, turb_chol_w=chol_w, turb_sigma=np.asarray(sigma, float),
            floor_z=floor_height, crash_speed=crash_speed)

    # ------------------------------------------------------------------ modes, setpoints
    def setpoint_size_of(self, mode: int) -> int:
        """Setpoint length of ``mode``: the rotor count for -1, else 4."""
        return self.model.n_rotors if mode == ROTOR_SPEEDS else 4

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
        self._check_mode(mode)
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
        setpoint = state.setpoint[worlds]  # a copy (a view for a slice), written back below
        setpoint[:] = 0.0
        if self.mode in (ATTITUDE, POSITION):
            yaw = quaternions_to_euler(state.quat[worlds])[..., 2]
        weight = self.model.mass * self.gravity
        if self.mode == POSITION:
            pos = state.pos[worlds]
            setpoint[..., 0], setpoint[..., 1] = pos[..., 0], pos[..., 1]
            setpoint[..., 2], setpoint[..., 3] = yaw, pos[..., 2]
        elif self.mode == ATTITUDE:
            setpoint[..., 2], setpoint[..., 3] = yaw, weight
        elif self.mode == FORCE_TORQUE:
            setpoint[..., 0] = weight
        elif self.mode == BODY_RATES:
            setpoint[..., 3] = weight
        state.setpoint[worlds] = setpoint

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
        if self.mode == ROTOR_SPEEDS:
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
        if self.mode != POSITION:
            self.set_mode(POSITION)
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
        n_steps = _positive_int("n_steps", n_steps)
        noise = (self.rng.standard_normal((n_steps, self.n_worlds, 5))
                 if self._config.turbulence else self._no_noise)
        advance(self._state, self.plant, self._model, self._config, self.mode, n_steps, noise)

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
