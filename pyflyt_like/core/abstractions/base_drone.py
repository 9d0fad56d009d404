"""DroneClass: the contract every vehicle implements (PyFlyt's), and what it provides."""

from __future__ import annotations

import os
from abc import ABC, abstractmethod
from pathlib import Path
from pprint import pprint
from typing import Any

import numpy as np
import pybullet

from pyflyt_like.common.loading import load_yaml, model_files
from pyflyt_like.common.validation import as_float_array, check_rate_divides, check_rng

from .base_controller import ControlClass
from .camera import Camera


class DroneClass(ABC):
    """A vehicle in an :class:`~pyflyt_like.core.Aviary`: PyFlyt's ``DroneClass`` contract.

    Args:
        p: the aviary (a pybullet BulletClient) the drone lives in.
        start_pos: (3,) spawn position [m], ground frame.
        start_orn: (3,) spawn orientation, Euler roll, pitch, yaw [rad]. Kept as the
            quaternion (x, y, z, w) in ``self.start_orn``, as PyFlyt does, so that
            ``p.resetBasePositionAndOrientation(self.Id, self.start_pos, self.start_orn)``
            puts the drone back.
        control_hz: control loop rate [Hz]; must divide ``physics_hz``. ``None`` takes the
            model YAML's ``control_hz``.
        physics_hz: physics rate [Hz].
        drone_model: model name; loads ``<model_dir>/<model>/<model>.urdf`` (and reads
            ``<model>.yaml`` into ``self.params`` when it exists).
        model_dir: folder of model folders; defaults to the package's vehicle models.
        np_random: the aviary's random generator (a new one when ``None``).

    A subclass implements :meth:`reset`, :meth:`update_control`, :meth:`update_physics`,
    :meth:`update_state` and :meth:`update_last`, and keeps ``state`` (4, 3) — body rates
    [rad/s]; Euler roll, pitch, yaw [rad]; body-frame linear velocity [m/s]; ground-frame
    position [m] — ``aux_state``, ``setpoint`` and ``mode``. :meth:`set_mode`,
    :meth:`register_controller`, :meth:`get_joint_info` and
    :meth:`disable_artificial_damping` are provided. The built-in vehicles derive from
    :class:`~pyflyt_like.core.abstractions.ModalDrone`, which implements the loop through
    flight modes.
    """

    #: Built-in mode ids. PyFlyt's base offers mode 0 (the vehicle's own command).
    modes: tuple[int, ...] = (0,)

    def __init__(self, p, start_pos, start_orn, control_hz: int | None, physics_hz: int,
                 drone_model: str, model_dir: str | Path | None = None,
                 np_random: np.random.Generator | None = None):
        client_id = getattr(p, "_client", None)
        if not isinstance(client_id, int) or client_id < 0:
            raise TypeError(f"p must be a connected Aviary (a pybullet BulletClient), got {p!r}")
        self.p = p
        self.client_id: int = client_id
        self.np_random = check_rng("np_random", np_random)
        self.start_pos = as_float_array("start_pos", start_pos, (3,))
        start_euler = as_float_array("start_orn", start_orn, (3,))
        self.start_orn: tuple[float, ...] = pybullet.getQuaternionFromEuler(start_euler.tolist())
        if not isinstance(drone_model, str) or not drone_model:
            raise TypeError(f"drone_model must be a non-empty string, got {drone_model!r}")
        if model_dir is not None and not isinstance(model_dir, (str, os.PathLike)):
            raise TypeError(f"model_dir must be None or the path (str or os.PathLike) of a "
                            f"folder of model folders, got {model_dir!r}")
        self.drone_model = drone_model
        self.drone_path, self.param_path = self.resolve_model(drone_model, model_dir)
        self.params: dict[str, Any] = (load_yaml(self.param_path) if self.param_path.is_file()
                                       else {})
        if control_hz is None:
            if not self.param_path.is_file():
                raise FileNotFoundError(f"control_hz must be given, or model parameters "
                                        f"{self.param_path} must exist to give it")
            control_hz = self.default_control_hz(self.params.get("control_hz"), physics_hz)
            if control_hz is None:
                raise ValueError(f"control_hz must be given: {self.param_path} has no "
                                 "control_hz to default to")
        self.physics_hz = int(physics_hz)
        self.physics_period = 1.0 / self.physics_hz
        self.physics_control_ratio = check_rate_divides("control_hz", control_hz, physics_hz)
        self.control_hz = int(control_hz)
        self.control_period = 1.0 / self.control_hz
        self.Id: int = pybullet.loadURDF(
            str(self.drone_path), self.start_pos.tolist(), self.start_orn,
            useFixedBase=False, flags=pybullet.URDF_USE_INERTIA_FROM_FILE,
            physicsClientId=client_id,
        )
        # Bullet's default damping (0.04 per link) is a hidden drag growing with speed;
        # aerodynamics belong to the components, so it is off for every vehicle.
        self.disable_artificial_damping()
        links = range(-1, pybullet.getNumJoints(self.Id, physicsClientId=client_id))
        self.mass = sum(pybullet.getDynamicsInfo(self.Id, link, physicsClientId=client_id)[0]
                        for link in links)
        self.state = np.zeros((4, 3))
        self.aux_state = np.zeros(0)
        self.setpoint = np.zeros(0)
        self.mode = self.modes[0] if self.modes else 0
        self.camera: Camera | None = None
        self.rgbaImg = self.depthImg = self.segImg = None
        self.registered_controllers: dict[int, type[ControlClass]] = {}
        self.instanced_controllers: dict[int, ControlClass] = {}
        self.registered_base_modes: dict[int, int] = {}

    def resolve_model(self, drone_model: str, model_dir: str | Path | None) -> tuple[Path, Path]:
        """Return the (URDF, YAML) paths of ``drone_model``; vehicles may override."""
        return model_files(drone_model, model_dir)

    # ----------------------------------------------------------------- provided helpers
    def link_id(self, name: str) -> int:
        """Return the pybullet link id of the URDF link called ``name``."""
        for joint in range(pybullet.getNumJoints(self.Id, physicsClientId=self.client_id)):
            info = pybullet.getJointInfo(self.Id, joint, physicsClientId=self.client_id)
            if info[12].decode() == name:
                return joint
        raise ValueError(f"{self.drone_path} has no link named {name!r}")

    def get_joint_info(self) -> dict[int, str]:
        """Print and return ``{link id: link name}`` of the URDF (``-1`` is the base)."""
        infos = {-1: "base"}
        for joint in range(pybullet.getNumJoints(self.Id, physicsClientId=self.client_id)):
            infos[joint] = pybullet.getJointInfo(self.Id, joint,
                                                 physicsClientId=self.client_id)[12].decode()
        pprint(infos)
        return infos

    def disable_artificial_damping(self) -> None:
        """Switch off Bullet's linear and angular damping on every link of this drone."""
        for link in range(-1, pybullet.getNumJoints(self.Id, physicsClientId=self.client_id)):
            pybullet.changeDynamics(self.Id, link, linearDamping=0.0, angularDamping=0.0,
                                    physicsClientId=self.client_id)

    # ----------------------------------------------------------------- modes and setpoints
    @property
    def available_modes(self) -> tuple[int, ...]:
        """Built-in mode ids followed by registered user mode ids."""
        return tuple(self.modes) + tuple(self.registered_base_modes)

    def register_controller(self, controller_id: int, controller_constructor: type[ControlClass],
                            base_mode: int) -> None:
        """Add user mode ``controller_id`` whose controller output is ``base_mode``'s setpoint.

        The controller is built with no arguments (``controller_constructor()``); the
        instance is ``instanced_controllers[controller_id]``.

        Raises:
            TypeError: if an id is not an int or ``controller_constructor`` is not a
                ControlClass subclass.
            ValueError: if the id collides with a built-in mode or ``base_mode`` is not built in.
        """
        for name, value in (("controller_id", controller_id), ("base_mode", base_mode)):
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
                raise TypeError(f"{name} must be an int, got {value!r}")
        if controller_id <= max(self.modes):
            raise ValueError(f"controller_id must be > {max(self.modes)} (built-in modes are "
                             f"{list(self.modes)}), got {controller_id}")
        if base_mode not in self.modes:
            raise ValueError(f"base_mode must be one of {list(self.modes)}, got {base_mode!r}")
        if not (isinstance(controller_constructor, type)
                and issubclass(controller_constructor, ControlClass)):
            raise TypeError("controller_constructor must be a ControlClass subclass, got "
                            f"{controller_constructor!r}")
        self.registered_controllers[int(controller_id)] = controller_constructor
        self.instanced_controllers[int(controller_id)] = controller_constructor()
        self.registered_base_modes[int(controller_id)] = int(base_mode)

    def default_control_hz(self, yaml_control_hz: int | None, physics_hz: int) -> int | None:
        """The control rate [Hz] used when none is given: the YAML's ``control_hz``, which
        must then divide ``physics_hz``. A vehicle family may choose otherwise."""
        return yaml_control_hz

    def set_mode(self, mode: int) -> None:
        """Switch to built-in or registered ``mode``; a user mode's controller is reset."""
        if isinstance(mode, bool) or not isinstance(mode, (int, np.integer)) \
                or int(mode) not in self.available_modes:
            raise ValueError(f"mode must be one of {list(self.available_modes)}, got {mode!r}")
        self.mode = int(mode)
        controller = self.instanced_controllers.get(self.mode)
        if controller is not None:
            controller.reset()

    def set_setpoint(self, setpoint) -> None:
        """Set this drone's setpoint: finite numbers, as many as the current setpoint has."""
        size = np.shape(self.setpoint)
        self.setpoint = as_float_array("setpoint", setpoint,
                                       size if len(size) == 1 and size[0] else (None,))

    # ----------------------------------------------------------------- the contract
    @abstractmethod
    def reset(self) -> None:
        """Put the drone back at its spawn pose, at rest, with its components reset."""

    @abstractmethod
    def update_control(self, physics_step: int) -> None:
        """Run the controllers when ``physics_step`` falls on this drone's control tick."""

    @abstractmethod
    def update_physics(self) -> None:
        """Advance the components one physics period and apply their loads."""

    @abstractmethod
    def update_state(self) -> None:
        """Read the drone's state from the world into ``state`` and ``aux_state``."""

    @abstractmethod
    def update_last(self, physics_step: int) -> None:
        """Anything after the state update of a physics step (e.g. camera capture)."""
