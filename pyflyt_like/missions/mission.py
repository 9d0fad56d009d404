"""Mission files: the YAML schema, its validation, and the in-memory mission.

A mission is a set of vehicles, each with a start pose, a controller and waypoints, plus
global options. Every problem is reported as a :class:`MissionError` whose one-line message
names the field (``vehicles[0].waypoints[2].position``) and what is allowed. The format is
documented in docs/missions.md.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

VEHICLE_CONTROLLERS = {
    "quadx": ("position",),
    "multirotor": ("geometric", "pid"),
    "fixedwing": ("guidance",),
}
DEFAULT_CONTROLLER = {"quadx": "position", "multirotor": "geometric", "fixedwing": "guidance"}
WIND_NAMES = ("constant", "gust", "shear", "dryden")


class MissionError(ValueError):
    """A mission file or mission description is invalid; the message is one line."""


@dataclass(frozen=True)
class Waypoint:
    """One waypoint: position [m], optional yaw [rad], hold [s] and approach speed [m/s]."""

    position: tuple[float, float, float]
    yaw: float | None = None
    hold: float = 0.0
    speed: float | None = None


@dataclass(frozen=True)
class VehicleSpec:
    """One vehicle of a mission."""

    name: str
    type: str
    model: str | None
    controller: str
    start_position: tuple[float, float, float]
    start_orientation: tuple[float, float, float]
    speed: float
    waypoints: tuple[Waypoint, ...]
    arrival_tolerance: float | None = None  # m; None: the mission's


@dataclass(frozen=True)
class Mission:
    """A validated mission. Build it with :meth:`from_yaml` or :meth:`from_dict`."""

    name: str
    vehicles: tuple[VehicleSpec, ...]
    physics_hz: int = 240
    duration_limit: float = 60.0
    arrival_tolerance: float = 0.2
    wind: dict[str, Any] | None = None
    source: str = field(default="mission", compare=False)

    @classmethod
    def from_yaml(cls, path: str | Path) -> Mission:
        """Load and validate a mission file; raises :class:`MissionError` on any problem."""
        path = Path(path)
        if not path.is_file():
            raise MissionError(f"mission file {path} not found")
        try:
            data = yaml.safe_load(path.read_text(encoding="utf-8"))
        except yaml.YAMLError as error:
            mark = getattr(error, "problem_mark", None)
            where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
            problem = getattr(error, "problem", None) or "invalid YAML"
            raise MissionError(f"{path}: YAML syntax error{where}: {problem}") from None
        return cls.from_dict(data, source=str(path))

    @classmethod
    def from_dict(cls, data: Any, source: str = "mission") -> Mission:
        """Validate a mission given as plain data (as parsed from YAML)."""
        prefix = f"{source}: "
        try:
            return _parse(data, source)
        except MissionError as error:
            raise MissionError(prefix + str(error)) from None


def _parse(data: Any, source: str) -> Mission:
    if not isinstance(data, dict):
        raise MissionError("a mission must be a mapping with a 'vehicles' list")
    _only(data, "mission", ("name", "vehicles", "physics_hz", "duration_limit",
                            "arrival_tolerance", "wind"))
    name = data.get("name", Path(source).stem)
    if not isinstance(name, str) or not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_.-]*", name):
        raise MissionError(f"name must be letters, digits, '_', '-' or '.' (it names the output "
                           f"folder), got {name!r}")
    physics_hz = data.get("physics_hz", 240)
    if isinstance(physics_hz, bool) or not isinstance(physics_hz, int) or physics_hz <= 0:
        raise MissionError(f"physics_hz must be a positive integer, got {physics_hz!r}")
    duration_limit = _positive("duration_limit", data.get("duration_limit", 60.0))
    tolerance = _positive("arrival_tolerance", data.get("arrival_tolerance", 0.2))
    wind = _wind(data.get("wind"))
    vehicles = data.get("vehicles")
    if not isinstance(vehicles, list) or not vehicles:
        raise MissionError("vehicles must be a non-empty list")
    specs = tuple(_vehicle(v, i) for i, v in enumerate(vehicles))
    names = [s.name for s in specs]
    if len(set(names)) != len(names):
        raise MissionError(f"vehicle names must be unique, got {names}")
    return Mission(name=name, vehicles=specs, physics_hz=physics_hz,
                   duration_limit=duration_limit, arrival_tolerance=tolerance, wind=wind,
                   source=source)


def _vehicle(data: Any, index: int) -> VehicleSpec:
    where = f"vehicles[{index}]"
    if not isinstance(data, dict):
        raise MissionError(f"{where} must be a mapping")
    _only(data, where, ("name", "type", "model", "controller", "start", "speed", "waypoints",
                        "arrival_tolerance"))
    kind = data.get("type")
    if kind not in VEHICLE_CONTROLLERS:
        raise MissionError(f"{where}.type must be one of {sorted(VEHICLE_CONTROLLERS)}, got "
                           f"{kind!r}")
    controller = data.get("controller", DEFAULT_CONTROLLER[kind])
    if controller not in VEHICLE_CONTROLLERS[kind]:
        raise MissionError(f"{where}.controller for a {kind} must be one of "
                           f"{list(VEHICLE_CONTROLLERS[kind])}, got {controller!r}")
    model = data.get("model")
    if model is not None and (not isinstance(model, str) or not model):
        raise MissionError(f"{where}.model must be a model name, got {model!r}")
    start = data.get("start", {})
    if not isinstance(start, dict):
        raise MissionError(f"{where}.start must be a mapping with position (and orientation)")
    _only(start, f"{where}.start", ("position", "orientation"))
    start_position = _vector(f"{where}.start.position", start.get("position", (0.0, 0.0, 1.0)))
    start_orientation = _vector(f"{where}.start.orientation",
                                start.get("orientation", (0.0, 0.0, 0.0)))
    speed = _positive(f"{where}.speed", data.get("speed", 1.0))
    waypoints = data.get("waypoints")
    if not isinstance(waypoints, list) or not waypoints:
        raise MissionError(f"{where}.waypoints must be a non-empty list")
    return VehicleSpec(name=str(data.get("name", f"vehicle{index}")), type=kind, model=model,
                       controller=controller, start_position=start_position,
                       start_orientation=start_orientation, speed=speed,
                       waypoints=tuple(_waypoint(w, f"{where}.waypoints[{i}]")
                                       for i, w in enumerate(waypoints)),
                       arrival_tolerance=None if data.get("arrival_tolerance") is None else
                       _positive(f"{where}.arrival_tolerance", data["arrival_tolerance"]))


def _waypoint(data: Any, where: str) -> Waypoint:
    if isinstance(data, (list, tuple)):
        data = {"position": data}
    if not isinstance(data, dict):
        raise MissionError(f"{where} must be [x, y, z] or a mapping with position")
    _only(data, where, ("position", "yaw", "hold", "speed"))
    if "position" not in data:
        raise MissionError(f"{where}.position is required")
    yaw = data.get("yaw")
    return Waypoint(position=_vector(f"{where}.position", data["position"]),
                    yaw=None if yaw is None else _finite(f"{where}.yaw", yaw),
                    hold=_non_negative(f"{where}.hold", data.get("hold", 0.0)),
                    speed=None if data.get("speed") is None else _positive(f"{where}.speed",
                                                                           data["speed"]))


def _wind(data: Any) -> dict[str, Any] | None:
    if data is None:
        return None
    if not isinstance(data, dict) or data.get("type") not in WIND_NAMES:
        raise MissionError(f"wind must be a mapping with type one of {list(WIND_NAMES)}, got "
                           f"{data!r}")
    _only(data, "wind", ("type", "options"))
    options = data.get("options", {})
    if not isinstance(options, dict):
        raise MissionError(f"wind.options must be a mapping, got {options!r}")
    return {"type": data["type"], "options": options}


def _only(data: dict, where: str, allowed: tuple[str, ...]) -> None:
    unknown = sorted(set(data) - set(allowed))
    if unknown:
        raise MissionError(f"{where} has unknown fields {unknown}; allowed: {list(allowed)}")


def _finite(where: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise MissionError(f"{where} must be a finite number, got {value!r}")
    return float(value)


def _positive(where: str, value: Any) -> float:
    number = _finite(where, value)
    if number <= 0:
        raise MissionError(f"{where} must be > 0, got {value!r}")
    return number


def _non_negative(where: str, value: Any) -> float:
    number = _finite(where, value)
    if number < 0:
        raise MissionError(f"{where} must be >= 0, got {value!r}")
    return number


def _vector(where: str, value: Any) -> tuple[float, float, float]:
    if not isinstance(value, (list, tuple)) or len(value) != 3:
        count = len(value) if isinstance(value, (list, tuple)) else "not a list"
        raise MissionError(f"{where} needs 3 numbers [x, y, z], got {count}: {value!r}")
    return tuple(_finite(f"{where}[{i}]", v) for i, v in enumerate(value))  # type: ignore
