"""Mission files: the YAML schema, its validation, and the in-memory mission.

A mission is a set of vehicles, each with a start pose, a controller and waypoints, plus
global options. Every problem is reported as a :class:`MissionError` whose one-line message
names the field (``vehicles[0].waypoints[2].position``) and what is allowed. The format is
documented in docs/missions.md, with the limits below (:data:`LIMITS` as text there).

Numbers are checked against sane bounds, not only for sign: a hold of 1e308 s or a position
of 1e308 m is finite but overflows the trajectory arithmetic, and a physics rate of 10^9 Hz
would take days to fly. Bools are not numbers, numbers are not text.
"""

from __future__ import annotations

import math
import numbers
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pyflyt_like.common.rates import DEFAULT_PHYSICS_HZ, MAX_PHYSICS_HZ

from .errors import MissionError, short_repr
from .mission_yaml import load_mission_file, load_mission_text

VEHICLE_CONTROLLERS = {
    "quadx": ("position",),
    "multirotor": ("geometric", "pid"),
    "fixedwing": ("guidance",),
    "quadplane": ("vtol",),
    "rocket": ("landing",),
}
WINGED = ("fixedwing", "quadplane")  # vehicle types whose speed defaults to their trim airspeed
DEFAULT_CONTROLLER = {"quadx": "position", "multirotor": "geometric", "fixedwing": "guidance",
                      "quadplane": "vtol", "rocket": "landing"}
WIND_NAMES = ("constant", "gust", "shear", "dryden")

# Limits of a mission (docs/missions.md#limits).
MAX_DURATION = 3600.0  # s, duration_limit
MAX_HOLD = 3600.0  # s, a waypoint's hold
MAX_COORDINATE = 1e5  # m, |x|, |y|, |z| of a start or waypoint position
MAX_ANGLE = 6.2832  # rad, |roll|, |pitch|, |yaw| (2 pi, rounded up)
MIN_SPEED, MAX_SPEED = 0.01, 100.0  # m/s, a vehicle's or a waypoint's speed
MAX_TOLERANCE = 1000.0  # m, arrival_tolerance
MAX_VEHICLES = 100
MAX_WAYPOINTS = 1000  # per vehicle
MAX_NAME_LENGTH = 64  # characters of a mission, vehicle or model name
MAX_WIND_NUMBER = 1e4  # any number in wind.options (m/s, m, s)
MIN_LEG = 1e-9  # m: consecutive points closer than this coincide
NAME_PATTERN = r"[A-Za-z0-9][A-Za-z0-9_.-]*"  # mission and model names (folder names)
NAME_RULE = "letters, digits, '_', '-' or '.', starting with a letter or digit"


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
    speed: float | None  # m/s; None: a wing's trim airspeed
    waypoints: tuple[Waypoint, ...]
    arrival_tolerance: float | None = None  # m; None: the mission's


@dataclass(frozen=True)
class Mission:
    """A validated mission. Build it with :meth:`from_yaml` or :meth:`from_dict`."""

    name: str
    vehicles: tuple[VehicleSpec, ...]
    physics_hz: int = DEFAULT_PHYSICS_HZ
    duration_limit: float = 60.0
    arrival_tolerance: float = 0.2
    wind: dict[str, Any] | None = None
    source: str = field(default="mission", compare=False)
    # Onboard sensors and estimation, the same for every vehicle (docs/missions.md#sensors).
    sensors: dict[str, Any] | None = None
    estimator: str | None = None
    state_source: str = "truth"
    control_delay_steps: int = 0

    @classmethod
    def from_yaml(cls, path: str | Path) -> Mission:
        """Load and validate a mission file; raises :class:`MissionError` on any problem.

        The file must be UTF-8 YAML of at most 1 MiB, without duplicate keys (see
        :mod:`pyflyt_like.missions.mission_yaml`).
        """
        path = Path(path)
        return cls.from_dict(load_mission_file(path), source=str(path))

    @classmethod
    def from_yaml_text(cls, text: str, source: str = "<text>") -> Mission:
        """Parse and validate mission YAML given as a string, read as strictly as a file."""
        return cls.from_dict(load_mission_text(text, source), source=source)

    @classmethod
    def from_dict(cls, data: Any, source: str = "mission") -> Mission:
        """Validate a mission given as plain data (as parsed from YAML)."""
        try:
            return _parse(data, source)
        except MissionError as error:
            raise MissionError(f"{source}: {error}") from None


def _parse(data: Any, source: str) -> Mission:
    if not isinstance(data, dict):
        raise MissionError("a mission must be a mapping with a 'vehicles' list")
    _only(data, "mission", ("name", "vehicles", "physics_hz", "duration_limit",
                            "arrival_tolerance", "wind", "sensors", "estimator",
                            "state_source", "control_delay_steps"))
    if "name" in data:
        name = _name("name", data["name"], "it names the output folder")
    else:
        name = Path(source).stem
        if source.startswith("<") and not _is_name(name):  # <dict>, <text>: not a file
            name = "mission"
        elif not _is_name(name):
            raise MissionError(f"the mission has no name and its file name {name!r} cannot be "
                               f"one (it names the output folder): give it a name of "
                               f"{NAME_RULE}")
    physics_hz = data.get("physics_hz", 240)
    if isinstance(physics_hz, bool) or not isinstance(physics_hz, int) or not (
            0 < physics_hz <= MAX_PHYSICS_HZ):
        raise MissionError(f"physics_hz must be a positive integer <= {MAX_PHYSICS_HZ} Hz, "
                           f"got {short_repr(physics_hz)}")
    duration_limit = _positive("duration_limit", data.get("duration_limit", 60.0),
                               MAX_DURATION, "s")
    tolerance = _tolerance("arrival_tolerance", data.get("arrival_tolerance", 0.2))
    wind = _wind(data.get("wind"))
    vehicles = _list("vehicles", data.get("vehicles"), MAX_VEHICLES)
    specs = tuple(_vehicle(v, i) for i, v in enumerate(vehicles))
    _check_unique_names(specs, vehicles)
    sensors, estimator, state_source, delay = _estimation(data, physics_hz)
    return Mission(name=name, vehicles=specs, physics_hz=physics_hz,
                   duration_limit=duration_limit, arrival_tolerance=tolerance, wind=wind,
                   source=source, sensors=sensors, estimator=estimator,
                   state_source=state_source, control_delay_steps=delay)


def _estimation(data: dict, physics_hz: int) -> tuple[dict | None, str | None, str, int]:
    """The ``sensors``, ``estimator``, ``state_source`` and ``control_delay_steps`` keys,
    checked as the vehicles will check them, with messages naming the mission's keys."""
    # Imported here: the sensor models and the vehicles' checks are only needed by missions
    # that use them.
    from pyflyt_like.core.abstractions.estimator import check_estimation_options
    from pyflyt_like.sensors import resolve_sensors

    sensors = data.get("sensors")
    names: tuple[str, ...] = ()
    if sensors is not None:
        if not isinstance(sensors, dict) or not sensors:
            raise MissionError("sensors must be a mapping of sensor name (imu, baro, mag, "
                               "gnss, range) to a preset name or a parameter mapping, got "
                               f"{short_repr(sensors)}")
        try:
            names = tuple(resolve_sensors(sensors, physics_hz, option="sensors"))
        except (TypeError, ValueError) as error:
            raise MissionError(str(error)) from None
    try:
        estimator, state_source, delay = check_estimation_options(
            data.get("estimator"), data.get("state_source", "truth"),
            data.get("control_delay_steps", 0), names)
    except (TypeError, ValueError) as error:
        message = str(error)
        for key in ("estimator", "state_source", "sensors", "control_delay_steps"):
            message = message.replace(f'drone_options["{key}"]', key)
        raise MissionError(message) from None
    return sensors, estimator, state_source, delay


def _vehicle(data: Any, index: int) -> VehicleSpec:
    where = f"vehicles[{index}]"
    if not isinstance(data, dict):
        raise MissionError(f"{where} must be a mapping, got {short_repr(data)}")
    _only(data, where, ("name", "type", "model", "controller", "start", "speed", "waypoints",
                        "arrival_tolerance"))
    name = _vehicle_name(f"{where}.name", data.get("name", f"vehicle{index}"))
    kind = _choice(f"{where}.type", data.get("type"), sorted(VEHICLE_CONTROLLERS))
    controller = _choice(f"{where}.controller for a {kind}",
                         data.get("controller", DEFAULT_CONTROLLER[kind]),
                         list(VEHICLE_CONTROLLERS[kind]))
    model = data.get("model")
    if model is not None:
        model = _name(f"{where}.model", model, "a model folder")
    start = data.get("start", {})
    if not isinstance(start, dict):
        raise MissionError(f"{where}.start must be a mapping with position (and orientation), "
                           f"got {short_repr(start)}")
    _only(start, f"{where}.start", ("position", "orientation"))
    start_position = _position(f"{where}.start.position", start.get("position", (0.0, 0.0, 1.0)))
    start_orientation = tuple(_angle(f"{where}.start.orientation[{i}]", v) for i, v in
                              enumerate(_triple(f"{where}.start.orientation",
                                                start.get("orientation", (0.0, 0.0, 0.0)),
                                                "[roll, pitch, yaw]")))
    # A wing flies at its trim airspeed unless told; a rotorcraft's legs default to 1 m/s.
    speed = data.get("speed", None if kind in WINGED else 1.0)
    speed = None if speed is None else _speed(f"{where}.speed", speed)
    waypoints = tuple(_waypoint(w, f"{where}.waypoints[{i}]") for i, w in
                      enumerate(_list(f"{where}.waypoints", data.get("waypoints"),
                                      MAX_WAYPOINTS)))
    _check_legs(where, start_position, waypoints)
    if kind == "rocket" and len(waypoints) != 1:
        raise MissionError(f"{where}.waypoints: a rocket's mission has exactly one waypoint, "
                           f"the landing pad; got {len(waypoints)}")
    if kind == "quadplane" and len(waypoints) < 2:
        raise MissionError(f"{where}.waypoints: a quadplane needs at least two waypoints: one "
                           "to fly to on the wing, and the last to land on")
    tolerance = data.get("arrival_tolerance")
    return VehicleSpec(name=name, type=kind, model=model, controller=controller,
                       start_position=start_position, start_orientation=start_orientation,
                       speed=speed, waypoints=waypoints,
                       arrival_tolerance=None if tolerance is None else
                       _tolerance(f"{where}.arrival_tolerance", tolerance))


def _waypoint(data: Any, where: str) -> Waypoint:
    if isinstance(data, (list, tuple)):
        data = {"position": data}
    if not isinstance(data, dict):
        raise MissionError(f"{where} must be [x, y, z] or a mapping with position, got "
                           f"{short_repr(data)}")
    _only(data, where, ("position", "yaw", "hold", "speed"))
    if "position" not in data:
        raise MissionError(f"{where}.position is required")
    yaw, speed = data.get("yaw"), data.get("speed")
    return Waypoint(position=_position(f"{where}.position", data["position"]),
                    yaw=None if yaw is None else _angle(f"{where}.yaw", yaw),
                    hold=_bounded(f"{where}.hold", data.get("hold", 0.0), 0.0, MAX_HOLD, "s"),
                    speed=None if speed is None else _speed(f"{where}.speed", speed))


def _check_legs(where: str, start: tuple[float, ...], waypoints: tuple[Waypoint, ...]) -> None:
    """Refuse a waypoint at the point before it: no leg, so no duration or direction."""
    previous, before = start, "the start position"
    for i, waypoint in enumerate(waypoints):
        if math.dist(previous, waypoint.position) < MIN_LEG:
            raise MissionError(f"{where}.waypoints[{i}].position {list(waypoint.position)} is "
                               f"the same point as {before}; consecutive points must differ "
                               "(to stay at a point, give it a hold)")
        previous, before = waypoint.position, f"waypoints[{i}]"


def _check_unique_names(specs: tuple[VehicleSpec, ...], entries: list) -> None:
    first: dict[str, int] = {}
    for i, spec in enumerate(specs):
        j = first.setdefault(spec.name, i)
        if j != i:
            named = (f"vehicles[{i}].name {spec.name!r} is" if "name" in entries[i] else
                     f"vehicles[{i}] has no name, so it is named {spec.name!r}, which is")
            raise MissionError(f"{named} also the name of vehicles[{j}]; vehicle names must be "
                               f"unique, got {short_repr([s.name for s in specs])}")


def _wind(data: Any) -> dict[str, Any] | None:
    if data is None:
        return None
    if not isinstance(data, dict):
        raise MissionError(f"wind must be a mapping with type one of {list(WIND_NAMES)}, got "
                           f"{short_repr(data)}")
    _only(data, "wind", ("type", "options"))
    kind = data.get("type")
    if not isinstance(kind, str) or kind not in WIND_NAMES:
        raise MissionError(f"wind must be a mapping with type one of {list(WIND_NAMES)}, got "
                           f"{short_repr(data)}")
    options = data.get("options", {})
    if not isinstance(options, dict):
        raise MissionError(f"wind.options must be a mapping, got {short_repr(options)}")
    for key, value in options.items():
        if not isinstance(key, str):
            raise MissionError(f"wind.options has a key {short_repr(key)} that is not an option "
                               "name")
        _wind_option(f"wind.options.{key}", value)
    if "sample_period" in options:
        raise MissionError("wind.options.sample_period is set from physics_hz for you; "
                           "remove it")
    return {"type": kind, "options": dict(options)}


def _wind_option(where: str, value: Any) -> None:
    """A wind option: null, text, a number or a list of up to 3 numbers, within bounds."""
    if value is None or (isinstance(value, str) and len(value) <= MAX_NAME_LENGTH):
        return
    if isinstance(value, (list, tuple)) and 0 < len(value) <= 3:
        for i, item in enumerate(value):
            _bounded(f"{where}[{i}]", item, -MAX_WIND_NUMBER, MAX_WIND_NUMBER, "")
        return
    if isinstance(value, (str, list, tuple, dict)):
        raise MissionError(f"{where} must be a number, a list of up to 3 numbers or a word, "
                           f"got {short_repr(value)}")
    _bounded(where, value, -MAX_WIND_NUMBER, MAX_WIND_NUMBER, "")


# ------------------------------------------------------------------ shared field checks
def _only(data: dict, where: str, allowed: tuple[str, ...]) -> None:
    for key in data:
        if not isinstance(key, str):
            raise MissionError(f"{where} has a key {short_repr(key)} that is not a field name; "
                               f"allowed: {list(allowed)}")
    unknown = sorted(set(data) - set(allowed))
    if unknown:
        raise MissionError(f"{where} has unknown fields {short_repr(unknown)}; allowed: "
                           f"{list(allowed)}")


def _list(where: str, value: Any, most: int) -> list:
    if not isinstance(value, (list, tuple)) or not value:
        raise MissionError(f"{where} must be a non-empty list, got {short_repr(value)}")
    if len(value) > most:
        raise MissionError(f"{where} has {len(value)} entries; at most {most} are allowed")
    return list(value)


def _text(where: str, value: Any, what: str) -> str:
    if not isinstance(value, str):
        hint = " (quote it: YAML reads yes, no, null and numbers as values)" if (
            value is None or isinstance(value, (bool, int, float))) else ""
        raise MissionError(f"{where} must be text ({what}), got {short_repr(value)}{hint}")
    if not value or len(value) > MAX_NAME_LENGTH:
        raise MissionError(f"{where} must be 1 to {MAX_NAME_LENGTH} characters ({what}), got "
                           f"{short_repr(value)}")
    return value


def _is_name(text: str) -> bool:
    return len(text) <= MAX_NAME_LENGTH and re.fullmatch(NAME_PATTERN, text) is not None


def _name(where: str, value: Any, purpose: str) -> str:
    """A name that becomes a folder name: :data:`NAME_PATTERN`, at most 64 characters."""
    text = _text(where, value, f"{NAME_RULE}; {purpose}")
    if not _is_name(text):
        raise MissionError(f"{where} must be {NAME_RULE} ({purpose}), got {short_repr(text)}")
    return text


def _vehicle_name(where: str, value: Any) -> str:
    text = _text(where, value, "it names the log file")
    if not text.isprintable() or not text.strip():
        raise MissionError(f"{where} must be printable text on one line, got {short_repr(text)}")
    return text


def _choice(where: str, value: Any, allowed: list[str]) -> str:
    if not isinstance(value, str) or value not in allowed:
        raise MissionError(f"{where} must be one of {allowed}, got {short_repr(value)}")
    return value


def _bounded(where: str, value: Any, low: float, high: float, unit: str,
             low_open: bool = False, hint: str = "") -> float:
    """A finite real number (not a bool) in [low, high] (``low_open``: (low, high])."""
    if isinstance(value, bool):
        raise MissionError(f"{where} must be a number, not a bool, got {value!r}")
    if not isinstance(value, numbers.Real):
        hint = " (text: write the number without quotes)" if isinstance(value, str) else ""
        raise MissionError(f"{where} must be a finite number, got {short_repr(value)}{hint}")
    if not isinstance(value, numbers.Integral) and not math.isfinite(value):
        raise MissionError(f"{where} must be a finite number, got {value!r}")
    # Compared before converting: an integer of 400 digits is out of range, not an overflow.
    if value < low or value > high or (low_open and value == low):
        unit = f" {unit}" if unit else ""
        raise MissionError(f"{where} must be {'>' if low_open else '>='} {low:g} and <= "
                           f"{high:g}{unit}{hint}, got {short_repr(value)}")
    return float(value)


def _positive(where: str, value: Any, high: float, unit: str) -> float:
    return _bounded(where, value, 0.0, high, unit, low_open=True)


def _tolerance(where: str, value: Any) -> float:
    return _positive(where, value, MAX_TOLERANCE, "m")


def _speed(where: str, value: Any) -> float:
    return _bounded(where, value, MIN_SPEED, MAX_SPEED, "m/s")


def _angle(where: str, value: Any) -> float:
    return _bounded(where, value, -MAX_ANGLE, MAX_ANGLE, "rad", hint=" (radians, not degrees)")


def _triple(where: str, value: Any, names: str) -> tuple:
    if not isinstance(value, (list, tuple)) or len(value) != 3:
        count = len(value) if isinstance(value, (list, tuple)) else "not a list"
        raise MissionError(f"{where} needs 3 numbers {names}, got {count}: {short_repr(value)}")
    return tuple(value)


def _position(where: str, value: Any) -> tuple[float, float, float]:
    return tuple(_bounded(f"{where}[{i}]", v, -MAX_COORDINATE, MAX_COORDINATE, "m")  # type: ignore
                 for i, v in enumerate(_triple(where, value, "[x, y, z]")))
