"""A fixed-wing aircraft's parameters, read from its YAML and URDF, for the batched engine.

The PyBullet :class:`~pyflyt_like.core.drones.Fixedwing` reads the same two files (the
YAML's ``motor_params``, ``drag_params``, ``surfaces``, ``mixer``, ``attitude_controller``,
``trim``, ``autopilot``; the URDF's links); this module turns them into the arrays the
compiled kernels fly, with the same formulas (:mod:`pyflyt_like.physics.lifting_surface`,
:mod:`pyflyt_like.control`) and the rigid body PyBullet builds
(:mod:`pyflyt_like.common.urdf_bodies`). No parameter is written a second time.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from pyflyt_like.common.flight_modes import FlightMode
from pyflyt_like.common.loading import load_yaml, model_files
from pyflyt_like.common.urdf_bodies import RigidBody, load_rigid_body
from pyflyt_like.common.validation import as_float_array
from pyflyt_like.physics.air import AIR_DENSITY
from pyflyt_like.physics.lifting_surface import SurfaceConstants, surface_constants, surface_maps

#: The flight modes of a fixed-wing on both engines (docs/modes.md): -1 surfaces and
#: throttle, 0 rates, 1 attitude, 2 heading/airspeed/altitude, 3 bank/airspeed/climb rate.
FIXEDWING_MODES = tuple(int(m) for m in (
    FlightMode.ACTUATORS, FlightMode.RATES, FlightMode.ATTITUDE,
    FlightMode.HEADING_AUTOPILOT, FlightMode.BANK_AUTOPILOT))
#: The modes that need the YAML's ``trim`` and ``autopilot`` sections.
AUTOPILOT_MODES = (int(FlightMode.HEADING_AUTOPILOT), int(FlightMode.BANK_AUTOPILOT))
#: Surface commands of a fixed-wing: left aileron, right aileron, horizontal tail, vertical
#: tail, main wing (flaps); mode -1 appends the throttle.
SURFACE_COMMANDS = 5
#: The parameters of each ``surfaces`` entry besides ``link``, ``command_id`` and
#: ``command_sign`` (the :class:`~pyflyt_like.core.abstractions.LiftingSurface` names).
SURFACE_KEYS = ("Cl_alpha_2D", "chord", "span", "flap_to_chord", "eta", "alpha_0_base",
                "alpha_stall_P_base", "alpha_stall_N_base", "Cd_0", "deflection_limit", "tau")


@dataclass(frozen=True)
class FixedwingModel:
    """A fixed-wing's parameters as arrays (units: SI, angles in radians).

    Attributes:
        name: the model's name; param_path: its YAML; params: the raw YAML mapping.
        body: the composite rigid body of the URDF (mass, centre of mass, inertia).
        control_hz: the YAML's controller rate [Hz].
        starting_velocity: (3,) spawn velocity, body frame [m/s].
        surfaces: the :class:`~pyflyt_like.physics.lifting_surface.SurfaceConstants` of the
            n surfaces, YAML order; surface_tau: (n,) deflection lags [s];
            command_index: (n,) int, the command each surface follows (-1: none).
        flow_map: (2n, 6); wrench_map: (6, 3n): see
            :func:`~pyflyt_like.physics.lifting_surface.surface_maps`.
        motor_wrench: (6,) base force [N] and torque [N m] per unit signed throttle squared
            (``throttle |throttle|``); motor_tau: the motor lag [s]; max_thrust [N].
        drag: (3,) ``rho Cd A / 2`` of the fuselage along the base's x, y, z [kg/m].
        mixer: (5, 3) [roll, pitch, yaw] -> surface commands.
        angle_kp (2,) [1/s], rate_limits (3,) [rad/s], rate_kp, rate_ki, rate_kd,
            rate_output_limits (3,): the attitude controller (mode 1).
        trim, autopilot: the raw YAML sections of modes 2 and 3 (``None`` if absent).
    """

    name: str
    param_path: Path
    params: dict[str, Any]
    body: RigidBody
    control_hz: int
    starting_velocity: np.ndarray
    surfaces: SurfaceConstants
    surface_tau: np.ndarray
    command_index: np.ndarray
    flow_map: np.ndarray
    wrench_map: np.ndarray
    motor_wrench: np.ndarray
    motor_tau: float
    max_thrust: float
    drag: np.ndarray
    mixer: np.ndarray
    angle_kp: np.ndarray
    rate_limits: np.ndarray
    rate_kp: np.ndarray
    rate_ki: np.ndarray
    rate_kd: np.ndarray
    rate_output_limits: np.ndarray
    trim: dict[str, Any] | None
    autopilot: dict[str, Any] | None

    @property
    def n_surfaces(self) -> int:
        return int(self.surface_tau.shape[0])

    @property
    def has_autopilot(self) -> bool:
        """Whether modes 2 and 3 can fly (the YAML has ``trim`` and ``autopilot``)."""
        return self.trim is not None and self.autopilot is not None


def is_fixedwing_params(params: dict[str, Any]) -> bool:
    """Whether a YAML mapping describes a fixed-wing the batched engine flies: lifting
    ``surfaces`` and one forward ``motor_params``, no lift motors (a quadplane)."""
    return ("surfaces" in params and "motor_params" in params
            and "lift_motor_params" not in params)


def load_fixedwing_model(drone_model: str, model_dir: str | Path | None = None
                         ) -> FixedwingModel:
    """Read fixed-wing ``drone_model`` (``<model_dir>/<name>/<name>.urdf|.yaml``, default
    the package's ``models/vehicles``).

    Raises:
        FileNotFoundError: no such model. ValueError: a malformed YAML or URDF, naming the
            file and the key.
    """
    urdf, yaml_path = model_files(drone_model, model_dir)
    if not yaml_path.is_file():
        raise FileNotFoundError(f"model parameters {yaml_path} not found for "
                                f"drone_model={drone_model!r}")
    params = load_yaml(yaml_path)
    try:
        return _convert(drone_model, params, yaml_path, load_rigid_body(urdf))
    except KeyError as error:
        raise ValueError(f"{yaml_path}: missing key {error.args[0]!r} (see docs/fixedwing.md "
                         "for the layout)") from None


def _convert(name: str, params: dict[str, Any], path: Path, body: RigidBody
             ) -> FixedwingModel:
    source = str(path)
    entries = params["surfaces"]
    if not isinstance(entries, list) or not entries:
        raise ValueError(f"{source}: surfaces must be a non-empty list")
    columns = {key: np.array([float(entry[key]) for entry in entries]) for key in SURFACE_KEYS}
    signs = np.array([float(entry.get("command_sign", 1.0)) for entry in entries])
    index = []
    for i, entry in enumerate(entries):
        command = entry.get("command_id", "own")
        index.append(i if command == "own" else (-1 if command is None else int(command)))
    command_index = np.array(index, dtype=np.int64)
    if command_index.max() >= SURFACE_COMMANDS:
        raise ValueError(f"{source}: a surface's command_id must be below {SURFACE_COMMANDS}, "
                         f"got {command_index.max()}")
    constants = surface_constants(*(columns[key] for key in SURFACE_KEYS[:-1]), signs)
    pairs = [body.offset_and_rotation(entry["link"], source) for entry in entries]
    offsets, to_base = np.array([o for o, _ in pairs]), np.array([r for _, r in pairs])
    lift = np.array([as_float_array("lifting_unit", e["lifting_unit"], (3,)) for e in entries])
    forward = np.array([as_float_array("forward_unit", e["forward_unit"], (3,))
                        for e in entries])
    lift /= np.linalg.norm(lift, axis=1, keepdims=True)
    forward /= np.linalg.norm(forward, axis=1, keepdims=True)
    flow_map, wrench_map = surface_maps(offsets, to_base, forward, lift)

    motor = params["motor_params"]
    offset, rotation = body.offset_and_rotation(motor["link"], source)
    unit = as_float_array("motor_params.thrust_unit", motor["thrust_unit"], (3,))
    unit = unit / np.linalg.norm(unit)
    # As the PyBullet Motors: max RPM from the full thrust, then the load per throttle^2.
    max_rpm = np.sqrt(float(motor["total_thrust"]) / float(motor["thrust_coef"]))
    force = rotation @ (unit * (float(motor["thrust_coef"]) * max_rpm**2))
    torque = rotation @ (unit * (float(motor["torque_coef"]) * max_rpm**2))
    motor_wrench = np.concatenate((force, np.cross(offset, force) + torque))

    drag = params["drag_params"]
    coefs = as_float_array("drag_params.drag_coefs", drag["drag_coefs"], (1, 3))
    areas = as_float_array("drag_params.normal_areas", drag["normal_areas"], (1, 3))
    gains = params["attitude_controller"]
    rate = gains["rate"]
    return FixedwingModel(
        name=name, param_path=path, params=params, body=body,
        control_hz=int(params["control_hz"]),
        starting_velocity=as_float_array("starting_velocity", params["starting_velocity"],
                                         (3,)),
        surfaces=constants, surface_tau=columns["tau"], command_index=command_index,
        flow_map=flow_map, wrench_map=wrench_map, motor_wrench=motor_wrench,
        motor_tau=float(motor["tau"]), max_thrust=float(motor["total_thrust"]),
        drag=(0.5 * AIR_DENSITY * coefs * areas)[0],
        mixer=as_float_array("mixer", params["mixer"], (SURFACE_COMMANDS, 3)),
        angle_kp=as_float_array("angle_kp", gains["angle_kp"], (2,)),
        rate_limits=as_float_array("rate_limits", gains["rate_limits"], (3,)),
        rate_kp=as_float_array("rate.kp", rate["kp"], (3,)),
        rate_ki=as_float_array("rate.ki", rate["ki"], (3,)),
        rate_kd=as_float_array("rate.kd", rate["kd"], (3,)),
        rate_output_limits=as_float_array("rate.limits", rate["limits"], (3,)),
        trim=params.get("trim"), autopilot=params.get("autopilot"))
