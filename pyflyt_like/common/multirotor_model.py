"""A multirotor's parameter set, read and checked from its YAML; shared by both engines.

The PyBullet :class:`~pyflyt_like.core.drones.Multirotor` and the batched engine
(:mod:`pyflyt_like.batch`) fly the same numbers because both build them here. The YAML
layout is described in docs/multirotor.md.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from pyflyt_like.common.loading import MODELS_DIR, load_yaml
from pyflyt_like.common.validation import as_float_array

MULTIROTORS_DIR = MODELS_DIR / "multirotors"
ROTOR_SPEED_UNITS = ("rpm", "rad/s")
RPM_TO_RAD_S = 2.0 * math.pi / 60.0
MAX_GROUND_GAIN = 4.0 / 15.0  # extra thrust fraction at gym-pybullet-drones' clip height


def multirotor_yaml_path(drone_model: str, model_dir: str | Path | None = None) -> Path:
    """Path of ``<model_dir>/<drone_model>/<drone_model>.yaml`` (default: the package's sets).

    Raises:
        TypeError: ``drone_model`` is not a non-empty string.
        FileNotFoundError: no such file; the message lists the sets that exist.
    """
    if not isinstance(drone_model, str) or not drone_model:
        raise TypeError(f"drone_model must be a non-empty string, got {drone_model!r}")
    folder = Path(model_dir if model_dir is not None else MULTIROTORS_DIR) / drone_model
    path = folder / f"{drone_model}.yaml"
    if not path.is_file():
        root = folder.parent
        known = sorted(d.name for d in root.iterdir() if d.is_dir()) if root.is_dir() else []
        raise FileNotFoundError(f"multirotor parameter set {path} not found for "
                                f"drone_model={drone_model!r} (sets in {root}: {known})")
    return path


def _vector(source: str, name: str, value: object, positive: bool = False,
            non_negative: bool = False) -> np.ndarray:
    vector = as_float_array(name, value, (3,))
    if positive and np.any(vector <= 0.0):
        raise ValueError(f"{source}: {name} must be > 0, got {vector.tolist()}")
    if non_negative and np.any(vector < 0.0):
        raise ValueError(f"{source}: {name} must be >= 0, got {vector.tolist()}")
    return vector


@dataclass(frozen=True)
class MultirotorModel:
    """Everything a multirotor YAML defines, in SI units except rotor speeds (model unit).

    Attributes:
        name: the parameter set's name; param_path: its YAML file; params: the raw mapping.
        rotor_speed_unit: ``"rpm"`` or ``"rad/s"``; speeds below are in this unit.
        positions: (n, 3) rotor positions relative to the centre of mass, body FLU [m].
        spins: (n,) +1 counter-clockwise seen from above, -1 clockwise.
        kf: thrust per squared speed [N / unit^2]; km: yaw torque per squared speed.
        min_speed, max_speed: rotor speed limits; tau: rotor-speed lag [s] (0: none) while
            spinning up; tau_fall: while spinning down (YAML ``rotors.tau_fall``, default
            ``tau``; :mod:`pyflyt_like.physics.motor_lag`).
        mass [kg]; inertia: (3,) principal moments [kg m^2]; control_hz [Hz].
        prop_radius [m], ground_effect_coeff, drag_coeff_xy, drag_coeff_z [N s/m per rad/s],
        downwash_coeffs (3,), max_ground_gain: the rotor aerodynamics of
            :mod:`~pyflyt_like.core.abstractions.rotor_aerodynamics`.
        rate_kp, rate_ki, rate_kd, rate_limits_output: (3,) body-rate PID [1/s ...; rad/s^2].
        angle_kp (3,) [1/s]; rate_limits (3,) [rad/s]: the attitude loop.
        geometric_kp, geometric_kv, geometric_kr, geometric_kw: (3,) Lee gains.
        position_pid: the raw ``position_pid`` mapping; mode_hz: {mode: rate [Hz]}.
    """

    name: str
    param_path: Path
    params: dict[str, Any]
    rotor_speed_unit: str
    positions: np.ndarray
    spins: np.ndarray
    kf: float
    km: float
    min_speed: float
    max_speed: float
    tau: float
    tau_fall: float
    mass: float
    inertia: np.ndarray
    control_hz: int
    prop_radius: float
    ground_effect_coeff: float
    drag_coeff_xy: float
    drag_coeff_z: float
    downwash_coeffs: np.ndarray
    max_ground_gain: float
    rate_kp: np.ndarray
    rate_ki: np.ndarray
    rate_kd: np.ndarray
    rate_limits_output: np.ndarray
    angle_kp: np.ndarray
    rate_limits: np.ndarray
    geometric_kp: np.ndarray
    geometric_kv: np.ndarray
    geometric_kr: np.ndarray
    geometric_kw: np.ndarray
    position_pid: dict[str, Any]
    mode_hz: dict[int, int]

    @property
    def n_rotors(self) -> int:
        return int(self.positions.shape[0])

    @property
    def speed_to_rad_s(self) -> float:
        """Factor from the model's rotor-speed unit to rad/s."""
        return RPM_TO_RAD_S if self.rotor_speed_unit == "rpm" else 1.0

    def hover_speed(self, gravity: float = 9.81) -> float:
        """Rotor speed (model unit) at which all rotors together balance gravity."""
        return math.sqrt(self.mass * gravity / (self.n_rotors * self.kf))

    @classmethod
    def from_params(cls, params: dict[str, Any], param_path: str | Path,
                    gravity: float = 9.81) -> MultirotorModel:
        """Check and convert a YAML mapping; ``gravity`` [m/s^2] sets ``max_speed`` when the
        YAML gives ``thrust_to_weight`` instead."""
        source = str(param_path)
        try:
            return cls._convert(params, Path(param_path), source, gravity)
        except KeyError as error:
            raise ValueError(f"{source}: missing key {error.args[0]!r} (see "
                             "docs/multirotor.md for the layout)") from None

    @classmethod
    def _convert(cls, params: dict[str, Any], path: Path, source: str,
                 gravity: float) -> MultirotorModel:
        unit = params.get("rotor_speed_unit")
        if unit not in ROTOR_SPEED_UNITS:
            raise ValueError(f"{source}: rotor_speed_unit must be one of {ROTOR_SPEED_UNITS}, "
                             f"got {unit!r}")
        rotors = params["rotors"]
        positions = as_float_array("rotors.positions", rotors["positions"], (None, 3))
        n = positions.shape[0]
        if n < 4:
            raise ValueError(f"{source}: a multirotor needs at least 4 rotors, got {n}")
        spins = as_float_array("rotors.spins", rotors["spins"], (n,))
        if not np.all(np.abs(spins) == 1):
            raise ValueError(f"rotors.spins must be +1 or -1, got {spins.tolist()}")
        kf = float(as_float_array("rotors.kf", rotors["kf"], ()))
        km = float(as_float_array("rotors.km", rotors["km"], ()))
        if kf <= 0 or km <= 0:
            raise ValueError(f"{source}: rotors.kf and rotors.km must be > 0")
        mass = float(as_float_array("mass", params["mass"], ()))
        if mass <= 0:
            raise ValueError(f"{source}: mass must be > 0 kg, got {mass}")
        inertia = _vector(source, "inertia", params["inertia"], positive=True)
        min_speed = float(as_float_array("rotors.min_speed", rotors.get("min_speed", 0.0), ()))
        if "max_speed" in rotors:
            max_speed = float(as_float_array("rotors.max_speed", rotors["max_speed"], ()))
        else:
            t2w = float(as_float_array("rotors.thrust_to_weight", rotors["thrust_to_weight"], ()))
            max_speed = math.sqrt(t2w * mass * gravity / (n * kf))
        if min_speed < 0 or max_speed <= min_speed:
            raise ValueError(f"{source}: need 0 <= min_speed < max_speed")
        tau = float(as_float_array("rotors.tau", rotors.get("tau", 0.0), ()))
        if tau < 0:
            raise ValueError(f"{source}: rotors.tau must be >= 0 s, got {tau}")
        tau_fall = float(as_float_array("rotors.tau_fall", rotors.get("tau_fall", tau), ()))
        if tau_fall < 0:
            raise ValueError(f"{source}: rotors.tau_fall must be >= 0 s, got {tau_fall}")
        control_hz = params.get("control_hz", 240)
        if isinstance(control_hz, bool) or not isinstance(control_hz, int) or control_hz <= 0:
            raise ValueError(f"{source}: control_hz must be a positive integer, got "
                             f"{control_hz!r}")
        aero, gains, geometric = params["aero"], params["controller"], params["geometric"]
        rate = gains["rate"]
        downwash = as_float_array("aero.downwash_coeffs", aero["downwash_coeffs"], (3,))
        mode_hz = dict(params.get("mode_hz", {}) or {})
        return cls(
            name=path.stem, param_path=path, params=params, rotor_speed_unit=unit,
            positions=positions, spins=spins, kf=kf, km=km, min_speed=min_speed,
            max_speed=max_speed, tau=tau, tau_fall=tau_fall, mass=mass, inertia=inertia,
            control_hz=control_hz,
            prop_radius=float(aero["prop_radius"]),
            ground_effect_coeff=float(aero["ground_effect_coeff"]),
            drag_coeff_xy=float(aero["drag_coeff_xy"]), drag_coeff_z=float(aero["drag_coeff_z"]),
            downwash_coeffs=downwash,
            max_ground_gain=float(aero.get("max_ground_gain", MAX_GROUND_GAIN)),
            rate_kp=_vector(source, "controller.rate.kp", rate["kp"], non_negative=True),
            rate_ki=_vector(source, "controller.rate.ki", rate["ki"], non_negative=True),
            rate_kd=_vector(source, "controller.rate.kd", rate["kd"], non_negative=True),
            rate_limits_output=_vector(source, "controller.rate.limits", rate["limits"],
                                       positive=True),
            angle_kp=_vector(source, "controller.angle_kp", gains["angle_kp"]),
            rate_limits=_vector(source, "controller.rate_limits", gains["rate_limits"]),
            geometric_kp=_vector(source, "geometric.kp", geometric["kp"], positive=True),
            geometric_kv=_vector(source, "geometric.kv", geometric["kv"], positive=True),
            geometric_kr=_vector(source, "geometric.kr", geometric["kr"], positive=True),
            geometric_kw=_vector(source, "geometric.kw", geometric["kw"], positive=True),
            position_pid=params["position_pid"], mode_hz=mode_hz)


def default_control_hz(yaml_control_hz: int, physics_hz: int) -> int:
    """A multirotor's controller rate [Hz] when none is given, the same on both engines: the
    YAML's ``control_hz`` if it divides ``physics_hz``, else ``physics_hz`` (a control tick
    every physics step). See docs/multirotor.md, "Control rate"."""
    return yaml_control_hz if physics_hz % yaml_control_hz == 0 else physics_hz


def load_multirotor_model(drone_model: str, model_dir: str | Path | None = None,
                          gravity: float = 9.81) -> MultirotorModel:
    """Read the parameter set ``drone_model`` (from ``model_dir`` or the package's sets)."""
    path = multirotor_yaml_path(drone_model, model_dir)
    return MultirotorModel.from_params(load_yaml(path), path, gravity)
