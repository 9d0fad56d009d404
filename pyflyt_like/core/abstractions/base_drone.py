"""DroneClass: the contract every vehicle implements, and the machinery they share."""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from pathlib import Path
from typing import Any

import numpy as np
import pybullet

from ..utils.loading import load_yaml, model_files
from ..utils.validation import NumericalError, as_float_array, check_rate_divides
from .base_controller import ControlClass
from .camera import Camera

# Camera options a vehicle takes in drone_options; defaults come from the model YAML's
# ``camera`` section, then from here for the switches.
CAMERA_OPTIONS = ("use_camera", "use_gimbal", "camera_angle_degrees", "camera_FOV_degrees",
                  "camera_resolution", "camera_position_offset", "camera_fps",
                  "is_tracking_camera")


class DroneClass(ABC):
    """A vehicle in an :class:`~pyflyt_like.core.Aviary`.

    Args:
        p: the aviary (a pybullet BulletClient) the drone lives in.
        start_pos: (3,) spawn position [m], ground frame.
        start_orn: (3,) spawn orientation, Euler roll, pitch, yaw [rad].
        control_hz: control loop rate [Hz]; must divide ``physics_hz``. ``None`` takes the
            YAML's ``control_hz``.
        physics_hz: physics rate [Hz].
        drone_model: model name; loads ``<model_dir>/<model>/<model>.urdf`` and ``.yaml``.
        model_dir: folder of model folders; defaults to the package's models.
        np_random: the aviary's random generator.

    Subclasses set ``modes`` (the built-in mode ids), ``setpoint_size``, and implement
    :meth:`control` (one control tick of a built-in mode), :meth:`update_physics` and
    :meth:`preset_setpoint`.

    ``state`` is (4, 3): body rates [rad/s]; Euler roll, pitch, yaw [rad]; body-frame linear
    velocity [m/s]; ground-frame position [m].
    """

    modes: tuple[int, ...] = ()
    setpoint_size: int = 4
    # Options taken through ``**camera_options`` (the Aviary checks drone_options against them).
    keyword_options: tuple[str, ...] = CAMERA_OPTIONS

    def __init__(self, p, start_pos, start_orn, control_hz: int | None, physics_hz: int,
                 drone_model: str, model_dir: str | Path | None, np_random: np.random.Generator):
        self.p = p
        self.client_id: int = p._client
        self.np_random = np_random
        self.start_pos = as_float_array("start_pos", start_pos, (3,))
        self.start_orn = as_float_array("start_orn", start_orn, (3,))
        self.start_quat = pybullet.getQuaternionFromEuler(self.start_orn.tolist())
        self.drone_model = drone_model
        self.urdf_path, self.param_path = self.resolve_model(drone_model, model_dir)
        self.params: dict[str, Any] = load_yaml(self.param_path)
        if control_hz is None:
            control_hz = self.params.get("control_hz")
        self.physics_hz = int(physics_hz)
        self.physics_period = 1.0 / self.physics_hz
        self.physics_steps_per_control = check_rate_divides("control_hz", control_hz, physics_hz)
        self.control_hz = int(control_hz)
        self.control_period = 1.0 / self.control_hz
        self.Id: int = pybullet.loadURDF(
            str(self.urdf_path), self.start_pos.tolist(), self.start_quat,
            useFixedBase=False, flags=pybullet.URDF_USE_INERTIA_FROM_FILE,
            physicsClientId=self.client_id,
        )
        links = range(-1, pybullet.getNumJoints(self.Id, physicsClientId=self.client_id))
        for link in links:
            # Bullet's default damping (0.04 per link) is a hidden drag growing with speed;
            # aerodynamics belong to the components, so switch it off.
            pybullet.changeDynamics(self.Id, link, linearDamping=0.0, angularDamping=0.0,
                                    physicsClientId=self.client_id)
        self.mass = sum(pybullet.getDynamicsInfo(self.Id, link, physicsClientId=self.client_id)[0]
                        for link in links)
        self.state = np.zeros((4, 3))
        # Handed to wind fields: a read-only view, so user code cannot move the drone.
        self._position_view = self.state[3:4]
        self._position_view.flags.writeable = False
        self.aux_state = np.zeros(0)
        self.rotation_matrix = np.eye(3)
        self.world_velocity = np.zeros(3)
        self.quaternion = self.start_quat
        self.setpoint = np.zeros(self.setpoint_size)
        self.mode = self.modes[0] if self.modes else 0
        self.camera: Camera | None = None
        self.rgbaImg = self.depthImg = self.segImg = None
        self.instanced_controllers: dict[int, ControlClass] = {}
        self.registered_base_modes: dict[int, int] = {}
        self._user_controller: ControlClass | None = None

    def resolve_model(self, drone_model: str, model_dir: str | Path | None) -> tuple[Path, Path]:
        """Return the (URDF, YAML) paths of ``drone_model``; vehicles may override."""
        return model_files(drone_model, model_dir)

    def setup_camera(self, **options: Any) -> None:
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
                             f"camera options are {list(CAMERA_OPTIONS)}")
        if not options.get("use_camera", False):
            return
        if "camera" not in self.params:
            raise ValueError(f"{self.param_path} has no camera section, needed for use_camera")
        settings = {"use_gimbal": False, "is_tracking_camera": False,
                    "camera_fps": self.control_hz, **self.params["camera"], **options}
        settings.pop("use_camera")
        self.camera = Camera(self.p, self.physics_period, self.np_random, self.Id, -1,
                             **settings)

    def _capture(self) -> None:
        self.rgbaImg, self.depthImg, self.segImg = self.camera.capture_image()

    def link_id(self, name: str) -> int:
        """Return the pybullet link id of the URDF link called ``name``."""
        for joint in range(pybullet.getNumJoints(self.Id, physicsClientId=self.client_id)):
            info = pybullet.getJointInfo(self.Id, joint, physicsClientId=self.client_id)
            if info[12].decode() == name:
                return joint
        raise ValueError(f"{self.urdf_path} has no link named {name!r}")

    # ----------------------------------------------------------------- modes and setpoints
    @property
    def available_modes(self) -> tuple[int, ...]:
        """Built-in mode ids followed by registered user mode ids."""
        return self.modes + tuple(self.registered_base_modes)

    def register_controller(self, controller_id: int, controller_constructor: type[ControlClass],
                            base_mode: int) -> None:
        """Add user mode ``controller_id`` whose controller output is ``base_mode``'s setpoint.

        Raises:
            ValueError: if the id collides with a built-in mode or ``base_mode`` is not built in.
            TypeError: if ``controller_constructor`` is not a ControlClass subclass.
        """
        if isinstance(controller_id, bool) or not isinstance(controller_id, (int, np.integer)):
            raise TypeError(f"controller_id must be an int, got {controller_id!r}")
        if controller_id <= max(self.modes):
            raise ValueError(f"controller_id must be > {max(self.modes)} (built-in modes are "
                             f"{list(self.modes)}), got {controller_id}")
        if base_mode not in self.modes:
            raise ValueError(f"base_mode must be one of {list(self.modes)}, got {base_mode!r}")
        if not (isinstance(controller_constructor, type)
                and issubclass(controller_constructor, ControlClass)):
            raise TypeError("controller_constructor must be a ControlClass subclass, got "
                            f"{controller_constructor!r}")
        self.instanced_controllers[int(controller_id)] = controller_constructor()
        self.registered_base_modes[int(controller_id)] = int(base_mode)

    def set_mode(self, mode: int) -> None:
        """Switch flight mode; the setpoint is preset so the drone holds where it is."""
        if isinstance(mode, bool) or not isinstance(mode, (int, np.integer)) \
                or int(mode) not in self.available_modes:
            raise ValueError(f"mode must be one of {list(self.available_modes)}, got {mode!r}")
        mode = int(mode)
        self.mode = mode
        self._user_controller = self.instanced_controllers.get(mode)
        if self._user_controller is not None:
            self._user_controller.reset()
            self.setpoint = np.zeros(self.setpoint_size_of(self.registered_base_modes[mode]))
            base_mode = self.registered_base_modes[mode]
        else:
            base_mode = mode
        self.reset_controllers()
        if self._user_controller is None:
            self.setpoint = self.preset_setpoint(base_mode)

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
        if physics_step % self.physics_steps_per_control:
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
        # Body-frame vectors are R^T v, with R row-major in r.
        self.state[:] = (
            (r[0] * wx + r[3] * wy + r[6] * wz, r[1] * wx + r[4] * wy + r[7] * wz,
             r[2] * wx + r[5] * wy + r[8] * wz),
            pybullet.getEulerFromQuaternion(quat),
            (r[0] * vx + r[3] * vy + r[6] * vz, r[1] * vx + r[4] * vy + r[7] * vz,
             r[2] * vx + r[5] * vy + r[8] * vz),
            pos,
        )
        self.rotation_matrix.flat[:] = r
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
                                                 self.start_quat, physicsClientId=self.client_id)
        pybullet.resetBaseVelocity(self.Id, (0, 0, 0), (0, 0, 0), physicsClientId=self.client_id)
        self.reset_components()
        for controller in self.instanced_controllers.values():
            controller.reset()
        self.update_state()
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
