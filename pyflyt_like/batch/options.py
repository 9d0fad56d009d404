"""The checked construction arguments of :class:`~pyflyt_like.batch.BatchedAviary`.

Every argument is checked here, once, at construction, by the project's validation helpers
(:mod:`pyflyt_like.common.validation`); nothing is checked again inside the compiled step.
What needs the vehicle's parameters (the control rate, rotor-speed limits) is checked where
the model is loaded (:mod:`.build`).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from pyflyt_like.common.dryden_filters import MAX_ALTITUDE
from pyflyt_like.common.validation import (
    as_float_array,
    check_bool,
    check_finite,
    check_flight_mode,
    check_non_negative_float,
    check_positive_int,
)
from pyflyt_like.control.multirotor_modes import MULTIROTOR_MODES

from .integrators import INTEGRATORS
from .randomization import check_randomize

#: Dryden options of ``turbulence`` and their defaults: wind at 20 ft [m/s], airspeed
#: [m/s], altitude [m].
TURBULENCE_DEFAULTS = {"wind_speed_20ft": 5.0, "airspeed": 10.0, "altitude": 10.0}


@dataclass(frozen=True)
class BatchedAviaryOptions:
    """BatchedAviary's arguments, checked and normalised (see its docstring for meanings).

    After construction: ``start_pos`` and ``start_orn`` are (W, D, 3) arrays, ``wind`` a
    (W, 3) array, ``turbulence`` ``None`` or a dict of the three Dryden options as floats,
    ``randomize`` the checked mapping of :func:`~.randomization.check_randomize`.

    Raises:
        ValueError, TypeError: any bad argument, naming it and what is allowed.
    """

    n_worlds: int = 1
    n_drones: int = 1
    drone_model: str = "crazyflie21"
    mode: int = 1
    physics_hz: int = 500
    control_hz: int | None = None
    seed: int | None = None
    model_dir: str | Path | None = None
    start_pos: Any = None
    start_orn: Any = None
    integrator: str = "semi_implicit"
    gravity: float = 9.81
    ground_effect: bool = False
    rotor_drag: bool = False
    downwash: bool = False
    wind: Any = None
    turbulence: dict | None = None
    randomize: dict | None = None
    floor_height: float = 0.0
    crash_speed: float = 1.0

    def __post_init__(self) -> None:
        n_worlds = check_positive_int("n_worlds", self.n_worlds)
        n_drones = check_positive_int("n_drones", self.n_drones)
        if not isinstance(self.drone_model, str) or not self.drone_model:
            raise TypeError(f"drone_model must be a non-empty string, got {self.drone_model!r}")
        if self.model_dir is not None and not isinstance(self.model_dir, (str, os.PathLike)):
            raise TypeError(f"model_dir must be None or a folder path (str or os.PathLike), "
                            f"got {self.model_dir!r}")
        if not isinstance(self.integrator, str) or self.integrator not in INTEGRATORS:
            raise ValueError(f"integrator must be one of {list(INTEGRATORS)}, got "
                             f"{self.integrator!r}")
        gravity = check_non_negative_float("gravity", self.gravity)
        values = {
            "n_worlds": n_worlds, "n_drones": n_drones,
            "mode": check_flight_mode("mode", self.mode, MULTIROTOR_MODES),
            "physics_hz": check_positive_int("physics_hz", self.physics_hz),
            "control_hz": (None if self.control_hz is None
                           else check_positive_int("control_hz", self.control_hz)),
            "gravity": gravity,
            "ground_effect": check_bool("ground_effect", self.ground_effect),
            "rotor_drag": check_bool("rotor_drag", self.rotor_drag),
            "downwash": check_bool("downwash", self.downwash),
            "start_pos": _per_drone("start_pos", self.start_pos, n_worlds, n_drones,
                                    _default_positions(n_drones)),
            "start_orn": _per_drone("start_orn", self.start_orn, n_worlds, n_drones,
                                    np.zeros((n_drones, 3))),
            "wind": _per_world("wind", self.wind, n_worlds),
            "turbulence": _turbulence(self.turbulence),
            "randomize": check_randomize(self.randomize),
            "floor_height": check_finite("floor_height", self.floor_height),
            "crash_speed": check_non_negative_float("crash_speed", self.crash_speed),
        }
        for name, value in values.items():
            object.__setattr__(self, name, value)  # frozen: normalised once, here

    @property
    def shape(self) -> tuple[int, int]:
        """(W, D): worlds, drones per world."""
        return self.n_worlds, self.n_drones


def _default_positions(n_drones: int) -> np.ndarray:
    """Drone i at (i, 0, 1) [m]."""
    return np.column_stack((np.arange(n_drones, dtype=float), np.zeros(n_drones),
                            np.ones(n_drones)))


def _per_drone(name: str, value: object, n_worlds: int, n_drones: int,
               default: np.ndarray) -> np.ndarray:
    """(D, 3) or (W, D, 3) as a (W, D, 3) array."""
    array = default if value is None else as_float_array(name, value,
                                                         (None,) * np.ndim(value))
    shape = (n_worlds, n_drones, 3)
    if array.shape not in ((n_drones, 3), shape):
        raise ValueError(f"{name} must have shape ({n_drones}, 3) or {shape}, got "
                         f"{array.shape}")
    return np.broadcast_to(array, shape).copy()


def _per_world(name: str, value: object, n_worlds: int) -> np.ndarray:
    """None (zero), (3,) or (W, 3) as a (W, 3) array."""
    if value is None:
        return np.zeros((n_worlds, 3))
    array = as_float_array(name, value, (None,) * np.ndim(value))
    if array.shape not in ((3,), (n_worlds, 3)):
        raise ValueError(f"{name} must have shape (3,) or ({n_worlds}, 3), got {array.shape}")
    return np.broadcast_to(array, (n_worlds, 3)).copy()


def _turbulence(turbulence: object) -> dict[str, float] | None:
    """The Dryden options with their defaults, as floats, or None."""
    if turbulence is None:
        return None
    names = list(TURBULENCE_DEFAULTS)
    if not isinstance(turbulence, dict):
        raise TypeError(f"turbulence must be None or a dict of {names}, got {turbulence!r}")
    unknown = sorted(set(turbulence) - set(names))
    if unknown:
        raise ValueError(f"turbulence has unknown options {unknown}; options are {names}")
    options = {key: check_finite(f"turbulence[{key!r}]", value)
               for key, value in {**TURBULENCE_DEFAULTS, **turbulence}.items()}
    if options["wind_speed_20ft"] < 0 or options["airspeed"] <= 0 \
            or not 0 < options["altitude"] <= MAX_ALTITUDE:
        raise ValueError(f"turbulence needs wind_speed_20ft >= 0, airspeed > 0 and "
                         f"0 < altitude <= {MAX_ALTITUDE} m, got {options}")
    return options

