"""ModalDrone: the loop every built-in vehicle shares, driven by numbered flight modes."""

from __future__ import annotations

import math
from abc import abstractmethod
from collections.abc import Mapping
from pathlib import Path

import numpy as np
import pybullet

from pyflyt_like.common.validation import NumericalError, as_float_array

from . import estimator as onboard
from .base_controller import ControlClass
from .base_drone import DroneClass
from .camera import Camera
from .estimator import ControlStateRing, OnboardEstimator
from .lifting_surfaces import LiftingSurface
from .sensors import Sensors

# Camera options a vehicle takes (PyFlyt's names, plus ``is_tracking_camera``); unset ones
# come from the model YAML's ``camera`` section, then from the switches' defaults.
CAMERA_OPTIONS = ("use_camera", "use_gimbal", "camera_angle_degrees", "camera_FOV_degrees",
                  "camera_resolution", "camera_position_offset", "camera_fps",
                  "is_tracking_camera")
# Every vehicle's keyword options: the camera's, ``sensors`` and the estimation options
# (ModalDrone.setup_onboard).
ESTIMATION_OPTIONS = ("estimator", "state_source", "control_delay_steps")
KEYWORD_OPTIONS = (*CAMERA_OPTIONS, "sensors", *ESTIMATION_OPTIONS)


class ModalDrone(DroneClass):
    """A :class:`DroneClass` whose control loop runs numbered flight modes.

    It implements the PyFlyt contract (``reset``, ``update_control``, ``update_state``,
    ``update_last``) once for all built-in vehicles: one control tick of the current mode
    every ``physics_control_ratio`` physics steps, user modes feeding their base mode, one
    pybullet read per state update, camera capture when due. A vehicle sets ``modes`` and
    ``setpoint_size`` and implements the hooks :meth:`control`, :meth:`preset_setpoint`,
    :meth:`reset_components`, :meth:`reset_controllers` and :meth:`update_physics`.

    Every vehicle takes the ``sensors`` option (:meth:`setup_sensors`); ``self.sensors`` is
    its :class:`~pyflyt_like.core.abstractions.sensors.Sensors` component, or None. The
    ``estimator``, ``state_source`` and ``control_delay_steps`` options
    (:meth:`setup_estimation`) run an estimator on the readings and make the control tick
    read the (delayed) estimate or the delayed truth: its *control state*.

    Besides ``state`` it keeps ``rotation_matrix`` (3, 3) body-to-ground, ``world_velocity``
    (3,) [m/s] and ``quaternion`` (x, y, z, w) of the base, refreshed by :meth:`update_state`.
    """

    modes: tuple[int, ...] = ()
    setpoint_size: int = 4
    # Options taken through ``**onboard_options`` (the Aviary checks drone_options against them).
    keyword_options: tuple[str, ...] = KEYWORD_OPTIONS

    def __init__(self, p, start_pos, start_orn, control_hz: int | None, physics_hz: int,
                 drone_model: str, model_dir: str | Path | None = None,
                 np_random: np.random.Generator | None = None):
        super().__init__(p, start_pos, start_orn, control_hz, physics_hz, drone_model,
                         model_dir, np_random)
        if not self.params:
            raise FileNotFoundError(f"model parameters {self.param_path} not found (or empty) "
                                    f"for drone_model={drone_model!r}")
        # Handed to wind fields: a read-only view, so user code cannot move the drone.
        self._position_view = self.state[3:4]
        self._position_view.flags.writeable = False
        self.rotation_matrix = np.eye(3)
        self._state_values = self.state.reshape(-1)  # flat views, written by update_state
        self._rotation_values = self.rotation_matrix.reshape(-1)
        self.world_velocity = np.zeros(3)
        self.quaternion = self.start_orn
        self.setpoint = np.zeros(self.setpoint_size)
        self._user_controller: ControlClass | None = None
        self.sensors: Sensors | None = None
        self.estimator: OnboardEstimator | None = None
        self.state_source = "truth"
        self.control_ring: ControlStateRing | None = None
        self._snapshot = np.zeros(0)
        self._on_control_state = False

    def setup_onboard(self, **options) -> None:
        """Mount what the keyword options ask for: the ``sensors`` (:meth:`setup_sensors`),
        the estimator and control state (:meth:`setup_estimation`) and the camera
        (:meth:`setup_camera`, the other options). Every vehicle's constructor hands its
        keyword options here."""
        self.setup_sensors(options.pop("sensors", None))
        self.setup_estimation(options.pop("estimator", None),
                              options.pop("state_source", "truth"),
                              options.pop("control_delay_steps", 0))
        self.setup_camera(**options)

    def setup_camera(self, **options) -> None:
        """Mount a :class:`Camera` on the base if ``use_camera`` is true.

        Options (see docs/camera.md): ``use_camera``, ``use_gimbal``, ``camera_angle_degrees``,
        ``camera_FOV_degrees``, ``camera_resolution`` (height, width),
        ``camera_position_offset`` [m, body frame], ``camera_fps`` (default: ``control_hz``),
        ``is_tracking_camera``. Unset ones come from the YAML's ``camera`` section. The latest
        images are ``rgbaImg`` (h, w, 4) uint8, ``depthImg`` (h, w, 1) [m], ``segImg`` (h, w, 1).
        """
        unknown = sorted(set(options) - set(CAMERA_OPTIONS))
        if unknown:
            raise ValueError(f"drone_options {unknown} not accepted by {type(self).__name__}; "
                             f"keyword options are {list(KEYWORD_OPTIONS)}")
        use_camera = options.pop("use_camera", False)
        if not isinstance(use_camera, (bool, np.bool_)):
            raise TypeError(f"use_camera must be a bool, got {use_camera!r}")
        if not use_camera:
            return
        if "camera" not in self.params:
            raise ValueError(f"{self.param_path} has no camera section, needed for use_camera")
        settings = {"use_gimbal": False, "is_tracking_camera": False,
                    "camera_fps": self.control_hz, **self.params["camera"], **options}
        self.camera = Camera(self.p, self.Id, -1, physics_period=self.physics_period,
                             np_random=self.np_random, **settings)

    def setup_sensors(self, sensors: Mapping | None) -> None:
        """Give the vehicle the sensors of the ``sensors`` option (see docs/sensors.md).

        Args:
            sensors: sensor name (``"imu"``, ``"baro"``, ``"mag"``, ``"gnss"``, ``"range"``,
                ``"lidar"``, ``"depth"``)
                -> a preset name or a parameter dict; None or {} for none.

        Only a drone with sensors pays for them: the Aviary calls ``update_last`` on every
        drone each physics step, so the sensor step is bound into this drone's
        ``update_last`` (an instance attribute) instead of being tested for on every drone.

        Raises:
            TypeError, ValueError: a bad configuration, naming ``drone_options["sensors"]``.
        """
        if sensors is None or (isinstance(sensors, Mapping) and not sensors):
            return
        gravity = abs(getattr(self.p, "gravity", 9.81))
        self.sensors = Sensors(self.p, self.physics_period, self.np_random, self, sensors,
                               gravity)
        self.update_last = self._update_last_with_sensors

    def _update_last_with_sensors(self, physics_step: int) -> None:
        """``update_last`` of a drone with sensors: sample them, then the class's."""
        self.sensors.state_update()
        type(self).update_last(self, physics_step)

    def setup_estimation(self, estimator: str | None = None, state_source: str = "truth",
                         control_delay_steps: int = 0) -> None:
        """Run an estimator on the sensor readings and choose what the control tick reads.

        Args:
            estimator: ``"ekf"`` (needs the ``imu`` and ``gnss`` sensors; ``baro``, ``mag``
                used when present), ``"complementary"`` (attitude only; needs ``imu``;
                ``mag``, ``gnss`` used when present) or None. It runs every physics step
                after the sensors sample; ``aviary.read_estimate(i)`` reads it.
            state_source: ``"truth"`` or ``"estimate"``: the state the vehicle's own
                controllers (and user controllers of ``register_controller``) fly on. With
                the complementary filter only the attitude and body rates are estimated;
                position and velocity stay the truth. The physics always runs on the truth.
            control_delay_steps: int >= 0 [physics steps]: the control tick sees the state
                (truth or estimate) of that many physics steps earlier.

        With the defaults (None, "truth", 0) nothing is added to the loop: the control tick
        reads ``self.state`` and friends directly. Otherwise ``update_control`` and
        ``set_mode`` are bound (instance attributes, so only this drone pays) to versions
        that swap the control state in for the tick, and ``update_last`` to one that feeds
        the estimator and pushes the control state after the sensors sample.

        Raises:
            TypeError, ValueError: naming ``drone_options["estimator"]``,
                ``drone_options["state_source"]`` or ``drone_options["control_delay_steps"]``
                and what is allowed or missing.
        """
        sensor_names = tuple(self.sensors.params) if self.sensors is not None else ()
        estimator, state_source, delay = onboard.check_estimation_options(
            estimator, state_source, control_delay_steps, sensor_names)
        self.state_source = state_source
        if estimator is not None:
            gravity = abs(getattr(self.p, "gravity", 9.81))
            self.estimator = OnboardEstimator(estimator, self.sensors.params, gravity,
                                              self.start_orn)
        if state_source == "estimate" or delay > 0:
            self.control_ring = ControlStateRing(delay)
            self.update_control = self._update_control_on_control_state
            self.set_mode = self._set_mode_on_control_state
        if self.estimator is not None or self.control_ring is not None:
            self._snapshot = np.zeros(onboard.SNAPSHOT_SIZE)
            self._reads_truth = (estimator == "complementary" or (
                self.control_ring is not None and state_source == "truth"))
            # the EKF is fed inside the sensors' compiled call: with no control ring,
            # sampling the sensors is all there is to do
            if estimator != "ekf" or self.control_ring is not None:
                self.update_last = self._update_last_onboard

    def _update_last_onboard(self, physics_step: int) -> None:
        """``update_last`` of a drone with an estimator or a control state: sample the
        sensors, feed the estimator, push the control state, then the class's."""
        if self.sensors is not None:
            self.sensors.state_update()
        self._push_control_state()
        type(self).update_last(self, physics_step)

    def _push_control_state(self) -> None:
        estimator = self.estimator
        # the truth is copied only where it is read: the complementary filter takes its
        # position and velocity, a delayed control state on the truth its snapshots
        truth = (onboard.truth_snapshot(self, self._snapshot)
                 if self._reads_truth else self._snapshot)
        if estimator is not None:
            estimator.feed(self.sensors, truth)
        if self.control_ring is not None:
            self.control_ring.push(estimator.snapshot if self.state_source == "estimate"
                                   else truth)

    def _reset_control_state(self) -> None:
        """After the sensors' reset: restart the estimator and fill the control ring."""
        truth = onboard.truth_snapshot(self, self._snapshot)
        estimator = self.estimator
        if estimator is not None:
            estimator.reset(truth, self.sensors)
        if self.control_ring is not None:
            self.control_ring.reset(estimator.snapshot if self.state_source == "estimate"
                                    else truth)

    def _on_control(self, function, *args):
        """Call ``function(*args)`` with the control state in place of ``state``,
        ``rotation_matrix``, ``world_velocity`` and ``quaternion`` (then put the truth back,
        whatever happens)."""
        if self._on_control_state or not self.control_ring.ready:
            # already swapped in (a set_mode inside a tick), or built but not reset yet
            return function(*args)
        state, rotation, velocity, quaternion = self.control_ring.current()
        truth = self.state, self.rotation_matrix, self.world_velocity, self.quaternion
        self.state, self.rotation_matrix, self.world_velocity = state, rotation, velocity
        self.quaternion = tuple(quaternion.tolist())
        self._on_control_state = True
        try:
            return function(*args)
        finally:
            self.state, self.rotation_matrix, self.world_velocity, self.quaternion = truth
            self._on_control_state = False

    def _update_control_on_control_state(self, physics_step: int) -> None:
        """``update_control`` of a drone flying on a control state other than the truth."""
        if physics_step % self.physics_control_ratio:  # no tick due: nothing reads a state
            type(self).update_control(self, physics_step)
            return
        self._on_control(type(self).update_control, self, physics_step)

    def _set_mode_on_control_state(self, mode: int) -> None:
        """``set_mode`` on the control state: the hold setpoint is what the drone believes."""
        self._on_control(type(self).set_mode, self, mode)

    def surfaces_from_yaml(self, entries: list[dict]) -> list[LiftingSurface]:
        """Build the :class:`LiftingSurface` list of a YAML ``surfaces`` section: each entry
        names its URDF ``link``; the other keys are the surface's parameters."""
        return [LiftingSurface(self.p, self.physics_period, self.np_random, self.Id,
                               self.link_id(entry["link"]),
                               **{k: v for k, v in entry.items() if k != "link"})
                for entry in entries]

    def _capture(self) -> None:
        self.rgbaImg, self.depthImg, self.segImg = self.camera.capture_image()

    # ----------------------------------------------------------------- modes and setpoints
    def set_mode(self, mode: int) -> None:
        """Switch flight mode; the setpoint is preset so the drone holds where it is."""
        super().set_mode(mode)
        self._user_controller = self.instanced_controllers.get(self.mode)
        if self._user_controller is not None:
            base_mode = self.registered_base_modes[self.mode]
            self.setpoint = np.zeros(self.setpoint_size_of(base_mode))
        self.reset_controllers()
        if self._user_controller is None:
            self.setpoint = self.preset_setpoint(self.mode)

    def setpoint_size_of(self, mode: int) -> int:
        """Length of built-in ``mode``'s setpoint (the same for all modes unless overridden)."""
        return self.setpoint_size

    def set_setpoint(self, setpoint) -> None:
        """Set this drone's setpoint; raises on a wrong shape or non-finite values."""
        mode = self.registered_base_modes.get(self.mode, self.mode)
        self.setpoint = as_float_array("setpoint", setpoint, (self.setpoint_size_of(mode),))

    # ----------------------------------------------------------------- the loop
    def update_control(self, physics_step: int) -> None:
        """Run one control tick when ``physics_step`` falls on this drone's control period."""
        if physics_step % self.physics_control_ratio:
            return
        if self._user_controller is not None:
            base_setpoint = np.asarray(self._user_controller.step(self.state.copy(),
                                                                   self.setpoint), dtype=float)
            size = self.setpoint_size_of(self.registered_base_modes[self.mode])
            if base_setpoint.shape != (size,) or not np.all(np.isfinite(base_setpoint)):
                raise ValueError(
                    f"controller for mode {self.mode} must return a finite array of shape "
                    f"({size},), got {base_setpoint!r}")
            self.control(self.registered_base_modes[self.mode], base_setpoint)
        else:
            self.control(self.mode, self.setpoint)

    def update_state(self) -> None:
        """Read the base pose and velocity from pybullet into ``state`` (one read each)."""
        client = self.client_id
        pos, quat = pybullet.getBasePositionAndOrientation(self.Id, physicsClientId=client)
        lin, ang = pybullet.getBaseVelocity(self.Id, physicsClientId=client)
        r = pybullet.getMatrixFromQuaternion(quat)
        vx, vy, vz = lin
        wx, wy, wz = ang
        if not math.isfinite(pos[0] + pos[1] + pos[2] + vx + vy + vz + wx + wy + wz):
            raise NumericalError(f"drone {self.Id} state became non-finite: pos={pos}, vel={lin}")
        roll, pitch, yaw = pybullet.getEulerFromQuaternion(quat)
        # Body-frame vectors are R^T v, with R row-major in r. Written through flat views:
        # a flat 12-tuple costs numpy half the parsing of a nested one.
        self._state_values[:] = (
            r[0] * wx + r[3] * wy + r[6] * wz, r[1] * wx + r[4] * wy + r[7] * wz,
            r[2] * wx + r[5] * wy + r[8] * wz,
            roll, pitch, yaw,
            r[0] * vx + r[3] * vy + r[6] * vz, r[1] * vx + r[4] * vy + r[7] * vz,
            r[2] * vx + r[5] * vy + r[8] * vz,
            *pos,
        )
        self._rotation_values[:] = r
        self.world_velocity[:] = lin
        self.quaternion = quat

    def update_last(self, physics_step: int) -> None:
        """After the state update of each physics step: capture images when due."""
        if self.camera is not None and self.camera.capture_due(physics_step):
            self._capture()

    def air_velocity(self) -> np.ndarray:
        """Return the (3,) ground-frame air velocity of the base [m/s]: velocity minus wind."""
        wind_field = self.p.wind_field
        if wind_field is None:
            return self.world_velocity
        now = self.p.physics_steps * self.physics_period
        wind = np.asarray(wind_field(now, self._position_view), dtype=float)
        if wind.shape != (1, 3):
            raise ValueError(f"wind field must return shape (1, 3) for one position, got "
                             f"{wind.shape}")
        return self.world_velocity - wind[0]

    def reset(self) -> None:
        """Put the drone back at its spawn pose, at rest, with components and controllers reset."""
        pybullet.resetBasePositionAndOrientation(self.Id, self.start_pos.tolist(),
                                                 self.start_orn, physicsClientId=self.client_id)
        pybullet.resetBaseVelocity(self.Id, (0, 0, 0), (0, 0, 0), physicsClientId=self.client_id)
        self.reset_components()
        self.update_state()
        if self.sensors is not None:  # draws new units, samples the reset state at t = 0
            self.sensors.reset()
        if self.estimator is not None or self.control_ring is not None:
            self._reset_control_state()  # before set_mode: its hold setpoint reads it
        self.set_mode(self.mode)
        if self.camera is not None:
            self.camera.reset()
            if self.camera.camera_fps is not None:  # else the owner captures by hand
                self._capture()

    # ----------------------------------------------------------------- vehicle specifics
    @abstractmethod
    def reset_components(self) -> None:
        """Reset motors, drag bodies and other components to their initial state."""

    @abstractmethod
    def reset_controllers(self) -> None:
        """Clear the built-in controllers' integrators."""

    @abstractmethod
    def preset_setpoint(self, mode: int) -> np.ndarray:
        """Return the setpoint that makes built-in ``mode`` hold the current state."""

    @abstractmethod
    def control(self, mode: int, setpoint: np.ndarray) -> None:
        """One control tick of built-in ``mode``: turn ``setpoint`` into actuator commands."""

    @abstractmethod
    def update_physics(self) -> None:
        """Advance the components one physics period and apply their loads."""
