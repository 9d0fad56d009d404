"""Multirotor: any N-rotor vehicle defined by a YAML parameter set, driven by rotor speeds."""

from __future__ import annotations

import hashlib
import math
import tempfile
from pathlib import Path

import numpy as np
import pybullet

from pyflyt_like.common.flight_modes import FlightMode
from pyflyt_like.common.loading import load_yaml
from pyflyt_like.common.multirotor_model import (
    MultirotorModel,
    default_control_hz,
    multirotor_yaml_path,
)
from pyflyt_like.common.rates import DEFAULT_PHYSICS_HZ
from pyflyt_like.common.validation import as_float_array
from pyflyt_like.control.allocation import Allocator, actuation_matrix
from pyflyt_like.control.flatness import FlatReference
from pyflyt_like.control.geometric import GeometricController, euler_to_rotation, rotation_error
from pyflyt_like.control.multirotor_cascade import MultirotorCascade
from pyflyt_like.control.multirotor_modes import (
    HEADING_MODES,
    MULTIROTOR_MODES,
    hold_setpoints,
    setpoint_size,
)
from pyflyt_like.control.pid import PID

from ..abstractions.modal_drone import ModalDrone
from ..abstractions.motors import Motors
from ..abstractions.rotor_aerodynamics import RotorAerodynamics
from ..utils.multirotor_urdf import write_multirotor_urdf

POSITION_CONTROLLERS = ("geometric", "pid")


class Multirotor(ModalDrone):
    """An N-rotor vehicle (quad, hexa, octo, ...) flown by rotor speeds or through its modes.

    Modes (setpoint sizes in parentheses):

    - -1: rotor speeds (n) in the model's unit (``rotor_speed_unit``: "rpm" or "rad/s");
    - 0: body rates p, q, r [rad/s] + collective thrust [N] (4);
    - 1: attitude roll, pitch, yaw [rad] + collective thrust [N] (4);
    - 2: collective thrust [N] + body torques [N m] (4);
    - 7: x, y, yaw, z as QuadX mode 7, flown by the geometric controller (default) or the
      PID cascade (``position_controller="pid"``) (4).

    Modes 0-2 and 7 allocate through :class:`~pyflyt_like.control.allocation.Allocator`
    (attitude before thrust when rotors saturate). ``set_propellers_rpm`` sets mode -1.

    Args:
        p: the aviary the vehicle lives in (given by the Aviary).
        start_pos: (3,) spawn position [m].
        start_orn: (3,) spawn Euler angles [rad].
        physics_hz: physics rate [Hz].
        np_random: the aviary's random generator.
        control_hz: control rate [Hz]; default from the YAML.
        drone_model: parameter set, e.g. "cf2x", "cf2p", "racer", "crazyflie21",
            "crazyflie21plus", "hexarotor"; or the name of a user's YAML in ``model_dir``.
        model_dir: folder of model folders (default: the package's ``models/multirotors``).
            A model folder needs only ``<name>.yaml``; its URDF is generated when missing.
        ground_effect: model the thrust gain near the ground (off by default).
        rotor_drag: model rotor drag against the air velocity (off by default).
        downwash: model the wake of drones above on drones below (off by default). The three
            effects are described in :mod:`~pyflyt_like.core.abstractions.rotor_aerodynamics`.
        position_controller: what flies mode 7: ``"geometric"`` (Lee SE(3) with flatness
            feed-forward) or ``"pid"`` (the cascade of
            :mod:`pyflyt_like.control.multirotor_cascade`).
        **onboard_options: the camera's (see :meth:`ModalDrone.setup_camera`) and ``sensors``
            (:meth:`ModalDrone.setup_sensors`).
    """

    modes = MULTIROTOR_MODES

    def __init__(self, p, start_pos, start_orn, control_hz: int | None = None,
                 physics_hz: int = DEFAULT_PHYSICS_HZ, drone_model: str = "cf2x",
                 model_dir: str | Path | None = None, np_random: np.random.Generator | None = None,
                 ground_effect: bool = False, rotor_drag: bool = False, downwash: bool = False,
                 position_controller: str = "geometric", **onboard_options):
        super().__init__(p, start_pos, start_orn, control_hz, physics_hz, drone_model,
                         model_dir, np_random)
        np_random = self.np_random
        params = self.params
        gravity = abs(getattr(p, "gravity", 9.81))
        self.gravity = gravity
        model = MultirotorModel.from_params(params, self.param_path, gravity)
        self.model = model
        self.rotor_speed_unit = model.rotor_speed_unit
        positions = model.positions
        n = model.n_rotors
        self.n_propellers = n
        self.spins = model.spins
        self.kf = np.full(n, model.kf)
        self.km = np.full(n, model.km)
        self._check_against_urdf(positions)
        self.min_speed = np.full(n, model.min_speed)
        self.max_speed = np.full(n, model.max_speed)
        # Bounds of set_propellers_rpm, with a little slack for rounding in user code.
        self._speed_range = (model.min_speed - 1e-9, model.max_speed + 1e-9)
        self.positions = positions
        self.inertia = np.diag(model.inertia)
        self._inertia_diagonal = tuple(float(v) for v in model.inertia)
        self.motors = Motors(p, self.physics_period, np_random, self.Id,
                             [self.link_id(f"prop{i}") for i in range(n)],
                             tau=np.full(n, model.tau), tau_fall=np.full(n, model.tau_fall),
                             max_rpm=self.max_speed, thrust_coef=self.kf,
                             torque_coef=self.km * self.spins,
                             thrust_unit=np.tile([0.0, 0.0, 1.0], (n, 1)),
                             noise_ratio=np.zeros(n))
        self.allocator = Allocator(actuation_matrix(positions, self.spins, self.kf, self.km),
                                   self.min_speed, self.max_speed)
        self.rate_pid = PID(model.rate_kp, model.rate_ki, model.rate_kd,
                            model.rate_limits_output, self.control_period)
        self.angle_kp = model.angle_kp
        self.rate_limits = model.rate_limits
        self.prop_radius = model.prop_radius
        self.downwash_coeffs = model.downwash_coeffs.tolist()
        self.aerodynamics = RotorAerodynamics(
            p, self.physics_period, np_random, self.Id, self.motors.motor_ids, positions,
            self.kf, model.speed_to_rad_s, self.prop_radius, model.ground_effect_coeff,
            model.drag_coeff_xy, model.drag_coeff_z, self.downwash_coeffs,
            ground_effect=ground_effect, rotor_drag=rotor_drag, downwash=downwash,
            max_ground_gain=model.max_ground_gain)
        if position_controller not in POSITION_CONTROLLERS:
            raise ValueError(f"position_controller must be one of {POSITION_CONTROLLERS}, got "
                             f"{position_controller!r}")
        self.position_controller = position_controller
        self.cascade = MultirotorCascade(params["position_pid"], self.control_period,
                                         self.mass, gravity)
        self.geometric = GeometricController(self.mass, self.inertia, kp=model.geometric_kp,
                                             kv=model.geometric_kv, kr=model.geometric_kr,
                                             kw=model.geometric_kw, gravity=gravity)
        self.flat_reference: FlatReference | None = None
        self.mode_steps = self._mode_steps(model.mode_hz)
        self.setup_onboard(**onboard_options)
        self.rotor_command = np.zeros(n)  # commanded speeds, model unit
        self._rpm_set_this_tick = False
        self.aux_state = np.zeros(n)
        self.update_state()
        self.set_mode(FlightMode.ACTUATORS)

    # ------------------------------------------------------------------ model loading
    def default_control_hz(self, yaml_control_hz: int | None, physics_hz: int) -> int | None:
        if isinstance(yaml_control_hz, bool) or not isinstance(yaml_control_hz, int) \
                or yaml_control_hz <= 0:
            return yaml_control_hz  # the model's own check names what is wrong
        return default_control_hz(yaml_control_hz, physics_hz)

    def resolve_model(self, drone_model: str, model_dir: str | Path | None) -> tuple[Path, Path]:
        params_path = multirotor_yaml_path(drone_model, model_dir)
        folder = params_path.parent
        urdf_path = folder / f"{drone_model}.urdf"
        if not urdf_path.is_file():
            # Keyed by the YAML's content, so an edited parameter set gets a fresh URDF.
            digest = hashlib.sha256(params_path.read_bytes()).hexdigest()[:16]
            cache = Path(tempfile.gettempdir()) / "pyflyt_like_urdf"
            cache.mkdir(exist_ok=True)
            urdf_path = write_multirotor_urdf(drone_model, load_yaml(params_path),
                                              cache / f"{drone_model}-{digest}.urdf")
        return urdf_path, params_path

    def _check_against_urdf(self, positions: np.ndarray) -> None:
        """The URDF derives from the YAML: refuse a stale one rather than fly wrong numbers."""
        expected_mass = float(self.params["mass"])
        if abs(self.mass - expected_mass) > 1e-9 * max(1.0, expected_mass):
            raise ValueError(f"{self.drone_path} has mass {self.mass} kg but {self.param_path} "
                             f"says {expected_mass}; regenerate the URDF "
                             "(scripts/make_multirotor_urdfs.py) or delete it")
        n_links = pybullet.getNumJoints(self.Id, physicsClientId=self.client_id)
        if n_links != positions.shape[0]:
            raise ValueError(f"{self.drone_path} has {n_links} rotor links, the YAML "
                             f"{positions.shape[0]} rotors")

    # ------------------------------------------------------------------ actuation
    @property
    def hover_rpm(self) -> float:
        """Rotor speed (model unit) at which all rotors together balance gravity."""
        return float(np.sqrt(self.mass * self.gravity / self.kf.sum()))

    def set_propellers_rpm(self, rpms) -> None:
        """Command every rotor's speed (model unit: RPM or rad/s) and switch to mode -1.

        Raises:
            ValueError: wrong shape, non-finite, negative or outside [min_speed, max_speed].
            RuntimeError: when called twice within one control tick.
        """
        if self._rpm_set_this_tick:
            raise RuntimeError("set_propellers_rpm may be called once per control tick; "
                               "call aviary.step() before setting rotor speeds again")
        # The RL path calls this every step: a float64 array of the right shape is checked
        # with scalar math on its values; anything else goes through the full conversion.
        if type(rpms) is np.ndarray and rpms.dtype == np.float64 and rpms.shape == (
                self.n_propellers,):
            values = rpms.tolist()
        else:
            values = as_float_array("rpms", rpms, (self.n_propellers,)).tolist()
        low, high = self._speed_range
        for value in values:
            if not low <= value <= high:  # also catches NaN
                self._raise_speed_error(values)
        if self.mode != FlightMode.ACTUATORS:
            self.set_mode(FlightMode.ACTUATORS)
        self.setpoint = np.array(values)
        self._rpm_set_this_tick = True

    def _raise_speed_error(self, values: list[float]) -> None:
        if not all(math.isfinite(v) for v in values):
            raise ValueError(f"rpms must be finite (no NaN or inf), got {values}")
        if any(v < 0 for v in values):
            raise ValueError(f"rpms must be non-negative, got {values}")
        raise ValueError(f"rpms must lie within [{self.min_speed[0]:.6g}, "
                         f"{self.max_speed[0]:.6g}] {self.rotor_speed_unit}, got {values}")

    def setpoint_size_of(self, mode: int) -> int:
        return setpoint_size(mode, self.n_propellers)

    # ------------------------------------------------------------------ control
    def reset_components(self) -> None:
        self.motors.reset()
        self.rotor_command[:] = 0.0
        self._rpm_set_this_tick = False

    def reset_controllers(self) -> None:
        self.rate_pid.reset()
        self.cascade.reset()
        self.geometric.reset()
        self.flat_reference = None

    def preset_setpoint(self, mode: int) -> np.ndarray:
        yaw = self.state[1, 2] if mode in HEADING_MODES else None
        return hold_setpoints(mode, self.n_propellers, self.mass * self.gravity, self.state[3],
                              yaw)

    def _mode_steps(self, mode_hz: dict) -> dict[int, int]:
        """Physics steps between ticks of each mode (YAML ``mode_hz``; default control_hz)."""
        steps = {mode: self.physics_control_ratio for mode in self.modes}
        for mode, rate in mode_hz.items():
            if mode not in self.modes:
                raise ValueError(f"{self.param_path}: mode_hz names mode {mode!r}; modes are "
                                 f"{list(self.modes)}")
            if isinstance(rate, bool) or not isinstance(rate, int) or rate <= 0 or \
                    self.control_hz % rate:
                raise ValueError(f"{self.param_path}: mode_hz[{mode}] must be a positive integer "
                                 f"dividing control_hz={self.control_hz}, got {rate!r}")
            steps[mode] = self.physics_hz // rate
        return steps

    def update_control(self, physics_step: int) -> None:
        """Tick the current mode at its own rate; between ticks the last command holds."""
        if physics_step % self.physics_control_ratio == 0:
            self._rpm_set_this_tick = False
        base_mode = self.registered_base_modes.get(self.mode, self.mode)
        if physics_step % self.mode_steps[base_mode] == 0:
            super().update_control(physics_step)

    def control(self, mode: int, setpoint: np.ndarray) -> None:
        if mode == FlightMode.ACTUATORS:
            self.rotor_command[:] = np.clip(setpoint, self.min_speed, self.max_speed)
            return
        if mode == FlightMode.THRUST_TORQUES:
            wrench = setpoint
        elif mode == FlightMode.POSITION:
            wrench = self.position_wrench(setpoint)
        else:
            rates = setpoint[:3] if mode == FlightMode.RATES else self._attitude_rates(setpoint[:3])
            wrench = np.concatenate(((setpoint[3],), self.rate_torque(rates)))
        self.rotor_command[:] = self.allocator.allocate(wrench)

    def rate_torque(self, rate_setpoint: np.ndarray) -> np.ndarray:
        """Body torque [N m] tracking body rates [rad/s]: J * PID(rates) + w x J w."""
        omega = self.state[0]
        ax, ay, az = self.rate_pid.step_values(omega, rate_setpoint)
        jx, jy, jz = self._inertia_diagonal
        wx, wy, wz = omega.tolist()
        hx, hy, hz = jx * wx, jy * wy, jz * wz  # angular momentum, body frame
        return np.array((jx * ax + wy * hz - wz * hy, jy * ay + wz * hx - wx * hz,
                         jz * az + wx * hy - wy * hx))

    def _attitude_rates(self, angles: np.ndarray) -> np.ndarray:
        """Body-rate setpoint from the rotation error to Euler ``angles`` (roll, pitch, yaw)."""
        desired = euler_to_rotation(*angles.tolist())
        error = rotation_error(self.rotation_matrix, desired)
        return np.clip(-self.angle_kp * error, -self.rate_limits, self.rate_limits)

    def position_wrench(self, setpoint: np.ndarray) -> np.ndarray:
        """Mode 7: [thrust N, torques N m] for the setpoint [x, y, yaw, z]."""
        if self.position_controller == "pid":
            angles, thrust = self.cascade.step(setpoint, self.state[3], self.world_velocity)
            return np.concatenate(((thrust,), self.rate_torque(self._attitude_rates(angles))))
        reference = self.flat_reference
        if reference is None:
            x, y, yaw, z = setpoint.tolist()
            reference = FlatReference(position=(x, y, z), yaw=yaw)
        thrust, torque = self.geometric.compute(self.state, reference, self.rotation_matrix)
        return np.concatenate(((thrust,), torque))

    def set_flat_reference(self, reference: FlatReference) -> None:
        """Track a full flat-output reference in mode 7 (switching to it if needed).

        ``reference`` (position ... snap, yaw and its rates, see
        :class:`~pyflyt_like.control.flatness.FlatReference`) feeds the geometric
        controller's feed-forward; set a new one every control step to follow a trajectory.
        It holds until replaced, until ``set_setpoint`` gives a plain [x, y, yaw, z], or until
        the mode changes.
        """
        if not isinstance(reference, FlatReference):
            raise TypeError(f"reference must be a FlatReference, got {type(reference).__name__}")
        if self.position_controller != "geometric":
            raise ValueError("set_flat_reference needs position_controller='geometric'")
        if self.mode != FlightMode.POSITION:
            self.set_mode(FlightMode.POSITION)
        self.flat_reference = reference
        self.setpoint = np.array((*reference.position[:2], reference.yaw, reference.position[2]))

    def set_setpoint(self, setpoint) -> None:
        super().set_setpoint(setpoint)
        self.flat_reference = None

    # ------------------------------------------------------------------ physics
    def update_physics(self) -> None:
        self.motors.physics_update(self.rotor_command / self.max_speed)
        if self.aerodynamics.enabled:
            uppers = ((d.state[3], d.prop_radius, d.downwash_coeffs) for d in self.p.drones
                      if d is not self and isinstance(d, Multirotor)
                      ) if self.aerodynamics.downwash else ()
            self.aerodynamics.physics_update(self.rotation_matrix, self.state[3],
                                             self.air_velocity(), self.motors.rpm, uppers)

    def update_state(self) -> None:
        super().update_state()
        self.aux_state[:] = self.motors.throttle * self.max_speed
