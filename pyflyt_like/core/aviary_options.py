"""The checked construction arguments of :class:`~pyflyt_like.core.Aviary`.

Every argument is checked here, once, before PyBullet is connected, so a bad one raises
without opening (or leaking) a physics client. What needs the world (a drone's own options,
the wind field's options) is checked by the class that receives them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from pyflyt_like.common.rates import DEFAULT_PHYSICS_HZ
from pyflyt_like.common.validation import (
    as_float_array,
    check_bool,
    check_positive_float,
    check_positive_int,
)
from pyflyt_like.worlds.specs import WORLD_GENERATORS, WorldSpec, check_world_spec

from .abstractions.base_drone import DroneClass
from .abstractions.base_wind_field import WindFieldClass

GRAVITY = 9.81  # m/s^2
# The world argument is checked in pyflyt_like.worlds.specs, where both engines find it; its
# names are re-exported here for core.aviary.
__all__ = ["GRAVITY", "WORLD_GENERATORS", "AviaryOptions", "WorldSpec", "check_world_spec"]


@dataclass(frozen=True)
class AviaryOptions:
    """Aviary's arguments, checked and normalised (see :class:`~pyflyt_like.core.Aviary`).

    After construction: ``start_pos`` and ``start_orn`` are (n, 3) float arrays,
    ``drone_types`` and ``drone_options`` lists of n entries, ``drone_type_mappings`` the
    built-ins merged with the user's, ``np_random`` the generator to use (seeded from
    ``seed`` when none is given), ``wind_options`` a dict, ``world`` ``None``, a
    :class:`~pyflyt_like.worlds.World` or a generator (:func:`check_world_spec`).

    Raises:
        ValueError, TypeError: any bad argument, naming it and what is allowed.
    """

    start_pos: Any
    start_orn: Any
    built_in_drone_types: dict[str, type[DroneClass]]
    drone_type: str | Sequence[str] = "quadx"
    drone_type_mappings: dict[str, type[DroneClass]] | None = None
    drone_options: dict[str, Any] | Sequence[dict[str, Any]] | None = None
    wind_type: str | type[WindFieldClass] | None = None
    wind_options: dict[str, Any] | None = None
    render: bool = False
    physics_hz: int = DEFAULT_PHYSICS_HZ
    world_scale: float = 1.0
    seed: int | None = None
    np_random: np.random.Generator | None = None
    gravity: float = GRAVITY
    world: Any = None
    world_redraw: bool = True
    drone_types: list[str] = field(init=False)

    def __post_init__(self) -> None:
        # checked in the order of the arguments, so the first bad one is the one named
        start_pos = as_float_array("start_pos", self.start_pos, (None, 3))
        n = start_pos.shape[0]
        if n == 0:
            raise ValueError("start_pos must hold at least one drone, got shape (0, 3)")
        values = {
            "start_pos": start_pos,
            "start_orn": as_float_array("start_orn", self.start_orn, (n, 3)),
            "physics_hz": check_positive_int("physics_hz", self.physics_hz),
            "world_scale": check_positive_float("world_scale", self.world_scale),
            "drone_type_mappings": {**self.built_in_drone_types,
                                    **_check_mappings(self.drone_type_mappings)},
        }
        values["drone_types"] = _per_drone("drone_type", self.drone_type, str, n)
        for name in values["drone_types"]:
            if name not in values["drone_type_mappings"]:
                raise ValueError(f"drone_type {name!r} is unknown; allowed: "
                                 f"{sorted(values['drone_type_mappings'])}")
        values["drone_options"] = _per_drone("drone_options", self.drone_options or {}, dict, n)
        if self.wind_options is not None and not isinstance(self.wind_options, dict):
            raise TypeError(f"wind_options must be a dict of the wind field's options, got "
                            f"{self.wind_options!r}")
        if self.wind_type is None and self.wind_options:
            raise ValueError(f"wind_options {sorted(self.wind_options)} given with "
                             "wind_type=None, where they have no effect; set wind_type (a "
                             "built-in name or a WindFieldClass subclass) or drop wind_options")
        values["wind_options"] = self.wind_options or {}
        values["np_random"] = _generator(self.np_random, self.seed)
        values["render"] = check_bool("render", self.render)
        values["gravity"] = check_positive_float("gravity", self.gravity)
        values["world"] = check_world_spec("world", self.world)
        values["world_redraw"] = check_bool("world_redraw", self.world_redraw)
        for name, value in values.items():
            object.__setattr__(self, name, value)  # frozen: normalised once, here

    @property
    def num_drones(self) -> int:
        return self.start_pos.shape[0]


def _check_mappings(mappings: object) -> dict[str, type[DroneClass]]:
    if mappings is None:
        return {}
    if not isinstance(mappings, dict):
        raise TypeError(f"drone_type_mappings must be None or a dict of name -> DroneClass "
                        f"subclass, got {mappings!r}")
    for name, drone_class in mappings.items():
        if not isinstance(name, str):
            raise TypeError(f"drone_type_mappings keys must be drone type names (str), got "
                            f"{name!r}")
        if not (isinstance(drone_class, type) and issubclass(drone_class, DroneClass)):
            raise TypeError(f"drone_type_mappings[{name!r}] must be a DroneClass subclass, "
                            f"got {drone_class!r}")
    return mappings


def _per_drone(name: str, value: object, kind: type, n: int) -> list:
    """One ``kind`` for every drone, or a list of ``n``."""
    if isinstance(value, kind):
        return [value] * n
    if isinstance(value, (list, tuple)) and len(value) == n and all(
            isinstance(v, kind) for v in value):
        return list(value)
    raise ValueError(f"{name} must be a {kind.__name__} or a list of {n} {kind.__name__}s "
                     f"(one per drone), got {value!r}")


def check_aviary_seed(seed: object) -> None:
    """The Aviary's one seed check, at construction and at ``reset(seed=...)``: None or an
    integer >= 0, else a ValueError (for a wrong type too, as the Aviary always raised)."""
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, (int, np.integer))
                             or seed < 0):
        raise ValueError(f"seed must be None or an integer >= 0, got {seed!r}")


def _generator(np_random: object, seed: object) -> np.random.Generator:
    if np_random is not None and not isinstance(np_random, np.random.Generator):
        raise TypeError(f"np_random must be a numpy Generator, got {np_random!r}")
    check_aviary_seed(seed)
    return np_random if np_random is not None else np.random.default_rng(seed)
