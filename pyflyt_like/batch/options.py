"""The checked construction arguments of :class:`~pyflyt_like.batch.BatchedAviary`.

Every argument is checked here, once, at construction, by the project's validation helpers
(:mod:`pyflyt_like.common.validation`); nothing is checked again inside the compiled step.
What needs the vehicle's parameters (the mode among its family's, ``randomize`` against its
family's keys, the control rate, rotor-speed limits, the memory the engine needs) is checked
where the model is loaded (:mod:`.families`, :mod:`.memory`), before anything is allocated:
so that a huge ``n_worlds`` is refused first, nothing here is sized by it.

The physical bounds below refuse finite values that no vehicle meets and that would
overflow the engine to inf and NaN; docs/batch.md ("Errors and bounds") gives the reasons.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from pyflyt_like.common.dryden_filters import MAX_ALTITUDE
from pyflyt_like.common.validation import (
    as_float_array_in_shapes,
    check_bool,
    check_choice,
    check_flight_mode,
    check_float_in,
    check_non_negative_float,
    check_positive_int,
    check_seed,
    reject_unknown_keys,
)
from pyflyt_like.control.multirotor_modes import MULTIROTOR_MODES
from pyflyt_like.physics.contact import CRASH_SPEED
from pyflyt_like.physics.fixedwing_model import FIXEDWING_MODES
from pyflyt_like.physics.wind_shear import ShearProfile
from pyflyt_like.sensors import resolve_sensors
from pyflyt_like.sensors.params import SensorParams
from pyflyt_like.worlds import LayoutPool
from pyflyt_like.worlds.specs import WORLD_GENERATORS, check_world_spec

from .integrators import INTEGRATORS
from .obstacles import MAX_WORLD_LAYOUTS

#: Every family's modes: the options check a mode is one of them, the family that it is its.
ALL_MODES = tuple(sorted(set(MULTIROTOR_MODES) | set(FIXEDWING_MODES)))

#: Dryden options of ``turbulence`` and their defaults: wind at 20 ft [m/s], airspeed
#: [m/s], altitude [m].
TURBULENCE_DEFAULTS = {"wind_speed_20ft": 5.0, "airspeed": 10.0, "altitude": 10.0}
#: Start positions and the floor height lie within this distance of the origin [m]: float64
#: still resolves 1e-10 m there; mode 7 turns a start at 1e308 into NaN at once.
MAX_POSITION = 1e6
#: Gravity [m/s^2] in [0, MAX_GRAVITY]: Jupiter's cloud tops have 24.8; 1e300 turns mode 7
#: into NaN.
MAX_GRAVITY = 100.0
#: Mean wind speed and Dryden ``wind_speed_20ft`` [m/s]: a category-5 hurricane blows 70
#: m/s; the rotor drag in a wind of 1e300 m/s overflows.
MAX_WIND_SPEED = 100.0
#: Shear power-law exponent at most this: measured ones lie between 0.1 (over water) and
#: 0.4 (over cities); a huge one overflows the profile at a height of a few metres.
MAX_SHEAR_EXPONENT = 1.0
#: Dryden ``airspeed`` [m/s] in (0, MAX_AIRSPEED]: the model is one of subsonic flight.
MAX_AIRSPEED = 340.0
#: ``starting_velocity`` at most this fast [m/s]: subsonic, as the models.
MAX_START_SPEED = 340.0
#: Dryden ``altitude`` [m] in [MIN_ALTITUDE, MAX_ALTITUDE]: the vertical scale length is the
#: altitude, and one below 10 cm, smaller than the vehicles, makes the filters' step
#: ``airspeed * dt / altitude`` overflow them to NaN at 1e-300.
MIN_ALTITUDE = 0.1
#: ``physics_hz`` and ``control_hz`` at most this [Hz]: 1 microsecond steps; the step
#: counters and rates must stay far inside int64.
MAX_RATE_HZ = 1_000_000


@dataclass(frozen=True)
class BatchedAviaryOptions:
    """BatchedAviary's arguments, checked and normalised (see its docstring for meanings).

    After construction: ``physics_hz`` is ``None`` (its family's default, see
    :meth:`with_physics_hz`) or the checked int; ``start_pos``, ``start_orn`` and
    ``starting_velocity`` are ``None`` (the defaults) or float arrays of their allowed
    shapes and ``wind`` a (3,) or (W, 3) array, as given, since nothing here is sized by
    W x D (:meth:`start_poses` makes the engine's arrays once it is known to have the
    memory); ``turbulence`` is ``None`` or a dict of the three Dryden options as floats;
    ``shear`` ``None`` or a :class:`~pyflyt_like.physics.wind_shear.ShearProfile`;
    ``randomize`` ``None`` or a mapping (its family checks its keys and ranges);
    ``sensors`` ``None`` (also for ``{}``) or a mapping (:meth:`sensor_params` resolves it
    once ``physics_hz`` is known); ``world`` ``None``, a
    :class:`~pyflyt_like.worlds.World` or a generator (a world file read:
    :func:`~pyflyt_like.worlds.specs.check_world_spec`, the PyBullet ``Aviary``'s check);
    or a :class:`~pyflyt_like.worlds.LayoutPool` (taken as it is);
    ``world_layouts`` ``None`` or an int in [1, MAX_WORLD_LAYOUTS], given only with a
    generator; ``world_redraw`` a bool.

    Raises:
        ValueError, TypeError: any bad argument, naming it and what is allowed.
    """

    n_worlds: int = 1
    n_drones: int = 1
    drone_model: str = "crazyflie21"
    mode: int = 1
    physics_hz: int | None = None
    control_hz: int | None = None
    seed: int | None = None
    model_dir: str | Path | None = None
    start_pos: Any = None
    start_orn: Any = None
    starting_velocity: Any = None
    integrator: str = "semi_implicit"
    gravity: float = 9.81
    ground_effect: bool = False
    rotor_drag: bool = False
    downwash: bool = False
    wind: Any = None
    turbulence: dict | None = None
    shear: Any = None
    randomize: dict | None = None
    floor_height: float = 0.0
    crash_speed: float = CRASH_SPEED
    user_stages: Any = None
    sensors: Any = None
    world: Any = None
    world_layouts: int | None = None
    world_redraw: bool = True

    def __post_init__(self) -> None:
        n_worlds = check_positive_int("n_worlds", self.n_worlds)
        n_drones = check_positive_int("n_drones", self.n_drones)
        if not isinstance(self.drone_model, str) or not self.drone_model:
            raise TypeError(f"drone_model must be a non-empty string, got {self.drone_model!r}")
        if self.model_dir is not None and not isinstance(self.model_dir, (str, os.PathLike)):
            raise TypeError(f"model_dir must be None or a folder path (str or os.PathLike), "
                            f"got {self.model_dir!r}")
        values = {
            "n_worlds": n_worlds, "n_drones": n_drones,
            "mode": check_flight_mode("mode", self.mode, ALL_MODES),
            "physics_hz": (None if self.physics_hz is None
                           else check_positive_int("physics_hz", self.physics_hz, MAX_RATE_HZ)),
            "control_hz": (None if self.control_hz is None
                           else check_positive_int("control_hz", self.control_hz,
                                                   MAX_RATE_HZ)),
            "seed": check_seed("seed", self.seed),
            "integrator": check_choice("integrator", self.integrator, list(INTEGRATORS)),
            "gravity": check_float_in("gravity", self.gravity, 0.0, MAX_GRAVITY,
                                      unit=" m/s^2"),
            "ground_effect": check_bool("ground_effect", self.ground_effect),
            "rotor_drag": check_bool("rotor_drag", self.rotor_drag),
            "downwash": check_bool("downwash", self.downwash),
            "start_pos": _positions("start_pos", self.start_pos, n_worlds, n_drones),
            "start_orn": _per_drone("start_orn", self.start_orn, n_worlds, n_drones),
            "wind": _wind(self.wind, n_worlds),
            "turbulence": _turbulence(self.turbulence),
            "shear": _shear(self.shear),
            "randomize": _mapping_or_none("randomize", self.randomize),
            "starting_velocity": _velocities(self.starting_velocity, n_worlds, n_drones),
            "floor_height": check_float_in("floor_height", self.floor_height, -MAX_POSITION,
                                           MAX_POSITION, unit=" m"),
            "crash_speed": check_non_negative_float("crash_speed", self.crash_speed),
            "sensors": _sensors(self.sensors),
            "world_redraw": check_bool("world_redraw", self.world_redraw),
        }
        # a pool packed by the caller is taken as it is (a task's curriculum of layouts)
        values["world"] = world = (self.world if isinstance(self.world, LayoutPool)
                                   else check_world_spec("world", self.world))
        values["world_layouts"] = _world_layouts(self.world_layouts, world)
        for name, value in values.items():
            object.__setattr__(self, name, value)  # frozen: normalised once, here

    def with_physics_hz(self, default: int) -> BatchedAviaryOptions:
        """These options with ``physics_hz`` set to ``default`` [Hz] if it was ``None``."""
        if self.physics_hz is not None:
            return self
        return dataclasses.replace(self, physics_hz=default)

    def sensor_params(self) -> dict[str, SensorParams]:
        """The resolved ``sensors`` (sensor name -> parameters; {} for none), checked
        against ``physics_hz`` (resolve it first: :meth:`with_physics_hz`).

        Raises:
            ValueError, TypeError: a bad configuration, naming ``sensors`` (e.g.
                ``sensors["imu"]["update_rate"]``) and what is allowed.
        """
        if self.physics_hz is None:
            raise ValueError("physics_hz must be resolved before the sensors")
        return resolve_sensors(self.sensors, self.physics_hz, option="sensors")

    @property
    def shape(self) -> tuple[int, int]:
        """(W, D): worlds, drones per world."""
        return self.n_worlds, self.n_drones

    def start_poses(self, spacing: tuple[float, float, float] = (1.0, 0.0, 0.0),
                    height: float = 1.0) -> tuple[np.ndarray, np.ndarray]:
        """(W, D, 3) start positions [m] (default: drone i at ``i * spacing`` and
        ``height`` [m], its family's) and Euler angles [rad] (default: zero), new arrays."""
        shape = (self.n_worlds, self.n_drones, 3)
        positions, angles = np.zeros(shape), np.zeros(shape)
        if self.start_pos is None:
            positions[:] = np.arange(self.n_drones)[:, None] * np.asarray(spacing)
            positions[..., 2] += height
        else:
            positions[:] = self.start_pos
        if self.start_orn is not None:
            angles[:] = self.start_orn
        return positions, angles

    def start_velocities(self, default: np.ndarray) -> np.ndarray:
        """(W, D, 3) start velocities, body frame [m/s]: ``starting_velocity`` or
        ``default`` (3,), a new array."""
        velocities = np.zeros((self.n_worlds, self.n_drones, 3))
        velocities[:] = default if self.starting_velocity is None else self.starting_velocity
        return velocities


def _world_layouts(value: object, world: object) -> int | None:
    """None, or the pool size of a generator ``world``: an int in [1, MAX_WORLD_LAYOUTS]."""
    if value is None:
        return None
    count = check_positive_int("world_layouts", value, MAX_WORLD_LAYOUTS)
    if not isinstance(world, WORLD_GENERATORS):
        raise ValueError(f"world_layouts sizes the pool of a generator's layouts; give it with "
                         f"world=Forest(...), Rooms(...) or Clutter(...) (or a world file "
                         f"without a seed), not with world={type(world).__name__}")
    return count


def _sensors(value: object) -> Mapping | None:
    """None (also for an empty mapping) or the sensor configuration mapping; its names and
    parameters are checked by :meth:`BatchedAviaryOptions.sensor_params`."""
    if value is None:
        return None
    if not isinstance(value, Mapping):
        raise TypeError(f"sensors must be None or a dict from sensor name (imu, baro, mag, "
                        f"gnss, range) to a preset name or a parameter dict, got {value!r}")
    return value or None


def _mapping_or_none(name: str, value: object) -> Mapping | None:
    if value is not None and not isinstance(value, Mapping):
        raise TypeError(f"{name} must be a dict of ranges, got {type(value).__name__}")
    return value


def _velocities(value: object, n_worlds: int, n_drones: int) -> np.ndarray | None:
    """None, or (3,), (D, 3) or (W, D, 3) body-frame velocities no faster than
    MAX_START_SPEED."""
    if value is None:
        return None
    velocities = as_float_array_in_shapes("starting_velocity", value, (
        (3,), (n_drones, 3), (n_worlds, n_drones, 3)))
    largest = np.abs(velocities).max()  # first: the norm of 1e300 would overflow
    fastest = (largest if largest > MAX_START_SPEED
               else np.linalg.norm(velocities, axis=-1).max())
    if fastest > MAX_START_SPEED:
        raise ValueError(f"starting_velocity must be at most {MAX_START_SPEED:g} m/s fast, "
                         f"got {fastest:g} m/s")
    return velocities


def _shear(shear: object) -> ShearProfile | None:
    """None, or the checked :class:`~pyflyt_like.physics.wind_shear.ShearProfile` of a dict
    of its options (``reference_velocity`` [m/s], at most MAX_WIND_SPEED fast, and
    ``reference_height``, ``law``, ``exponent``, ``roughness_length``)."""
    if shear is None or isinstance(shear, ShearProfile):
        return shear
    names = ["reference_velocity", "reference_height", "law", "exponent", "roughness_length"]
    if not isinstance(shear, Mapping):
        raise TypeError(f"shear must be None or a dict of {names}, got {shear!r}")
    reject_unknown_keys("shear", shear, names)
    if "reference_velocity" not in shear:
        raise ValueError("shear needs reference_velocity, the (3,) wind [m/s] at "
                         "reference_height")
    profile = ShearProfile(**shear)
    largest = float(np.abs(profile.reference_velocity).max())  # first: a norm may overflow
    speed = (largest if largest > MAX_WIND_SPEED
             else float(np.linalg.norm(profile.reference_velocity)))
    if profile.exponent is not None and profile.exponent > MAX_SHEAR_EXPONENT:
        raise ValueError(f"shear exponent must be in (0, {MAX_SHEAR_EXPONENT:g}], got "
                         f"{profile.exponent!r}")
    if speed > MAX_WIND_SPEED:
        raise ValueError(f"shear reference_velocity must be at most {MAX_WIND_SPEED:g} m/s "
                         f"fast, got {speed:g} m/s")
    return profile


def _per_drone(name: str, value: object, n_worlds: int, n_drones: int) -> np.ndarray | None:
    """``value`` (D, 3) or (W, D, 3) as a float array, or None."""
    if value is None:
        return None
    return as_float_array_in_shapes(name, value, ((n_drones, 3), (n_worlds, n_drones, 3)))


def _positions(name: str, value: object, n_worlds: int, n_drones: int) -> np.ndarray | None:
    """(D, 3) or (W, D, 3) positions [m] within MAX_POSITION, or None."""
    positions = _per_drone(name, value, n_worlds, n_drones)
    if positions is not None and np.abs(positions).max() > MAX_POSITION:
        raise ValueError(f"{name} must lie within +-{MAX_POSITION:g} m of the origin, got "
                         f"a coordinate of {np.abs(positions).max():g} m")
    return positions


def _wind(value: object, n_worlds: int) -> np.ndarray:
    """None (zero), (3,) or (W, 3) mean wind [m/s], each no faster than MAX_WIND_SPEED."""
    if value is None:
        return np.zeros(3)
    wind = as_float_array_in_shapes("wind", value, ((3,), (n_worlds, 3)))
    largest = np.abs(wind).max()  # first: the norm of 1e300 would overflow
    fastest = largest if largest > MAX_WIND_SPEED else np.linalg.norm(wind, axis=-1).max()
    if fastest > MAX_WIND_SPEED:
        raise ValueError(f"wind must be at most {MAX_WIND_SPEED:g} m/s fast, got "
                         f"{fastest:g} m/s")
    return wind


#: The accepted interval of each Dryden option: (low, high, low_open, unit).
_TURBULENCE_BOUNDS = {
    "wind_speed_20ft": (0.0, MAX_WIND_SPEED, False, " m/s"),
    "airspeed": (0.0, MAX_AIRSPEED, True, " m/s"),
    "altitude": (MIN_ALTITUDE, MAX_ALTITUDE, False, " m"),
}


def _turbulence(turbulence: object) -> dict[str, float] | None:
    """The Dryden options with their defaults, as floats, or None."""
    if turbulence is None:
        return None
    names = list(TURBULENCE_DEFAULTS)
    if not isinstance(turbulence, Mapping):
        raise TypeError(f"turbulence must be None or a dict of {names}, got {turbulence!r}")
    reject_unknown_keys("turbulence", turbulence, names)
    options = {**TURBULENCE_DEFAULTS, **turbulence}
    return {key: check_float_in(f"turbulence[{key!r}]", options[key], low, high,
                                low_open=low_open, unit=unit)
            for key, (low, high, low_open, unit) in _TURBULENCE_BOUNDS.items()}
