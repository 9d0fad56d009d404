"""Domain randomisation: per-world, per-drone plant parameters drawn at reset.

``randomize`` maps a key to a range; every world and drone draws its own value, uniformly:

========================  ==========  =================================================
key                       range       meaning
========================  ==========  =================================================
``mass``                  (lo, hi)    factor on the nominal mass
``inertia``               (lo, hi)    factor on each principal moment (drawn per axis)
``kf``, ``km``            (lo, hi)    factor on the thrust / yaw-torque constant
``drag``                  (lo, hi)    factor on the rotor-drag coefficients
``tau``                   (lo, hi)    rotor lag time constant [s] (absolute)
``com_offset``            c           centre-of-mass offset, each body axis in [-c, c] [m]
``force_disturbance``     f           constant world force, direction uniform on the
                                      sphere, magnitude uniform in [0, f] [N]
``torque_disturbance``    t           constant body torque, as above [N m]
========================  ==========  =================================================

The controllers keep the nominal model. Draws use the engine's generator and are made for
all worlds at every reset (then kept only for the reset ones), so a world's values depend
on the seed and the reset count, not on which worlds a mask selected.
"""

from __future__ import annotations

import math

import numpy as np

FACTOR_KEYS = ("mass", "inertia", "kf", "km", "drag")
INTERVAL_KEYS = (*FACTOR_KEYS, "tau")
BOUND_KEYS = ("com_offset", "force_disturbance", "torque_disturbance")
KEYS = (*INTERVAL_KEYS, *BOUND_KEYS)


def check_randomize(randomize: dict | None) -> dict[str, object]:
    """Validate the ``randomize`` mapping; returns a dict of floats / (lo, hi) tuples."""
    if randomize is None:
        return {}
    if not isinstance(randomize, dict):
        raise TypeError(f"randomize must be a dict of ranges, got {type(randomize).__name__}")
    unknown = sorted(set(randomize) - set(KEYS))
    if unknown:
        raise ValueError(f"randomize has unknown keys {unknown}; keys are {list(KEYS)}")
    checked: dict[str, object] = {}
    for key, value in randomize.items():
        if key in INTERVAL_KEYS:
            try:
                low, high = (float(v) for v in value)
            except (TypeError, ValueError):
                raise TypeError(f"randomize[{key!r}] must be a (low, high) pair of numbers, "
                                f"got {value!r}") from None
            floor = 0.0 if key == "tau" else 1e-9
            if not (math.isfinite(low) and math.isfinite(high)) or low < floor or high < low:
                raise ValueError(f"randomize[{key!r}] must be finite with "
                                 f"{'0 <=' if key == 'tau' else '0 <'} low <= high, got "
                                 f"{value!r}")
            checked[key] = (low, high)
        else:
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise TypeError(f"randomize[{key!r}] must be a number, got {value!r}")
            if not math.isfinite(value) or value < 0:
                raise ValueError(f"randomize[{key!r}] must be finite and >= 0, got {value!r}")
            checked[key] = float(value)
    return checked


def _uniform(rng: np.random.Generator, bounds: tuple[float, float], shape) -> np.ndarray:
    return rng.uniform(bounds[0], bounds[1], shape)


def _ball_vectors(rng: np.random.Generator, bound: float, shape) -> np.ndarray:
    direction = rng.standard_normal((*shape, 3))
    direction /= np.maximum(np.linalg.norm(direction, axis=-1, keepdims=True), 1e-12)
    return direction * rng.uniform(0.0, bound, (*shape, 1))


def draw_plant(rng: np.random.Generator, ranges: dict, nominal, plant, worlds: np.ndarray,
               dt: float) -> None:
    """Write freshly drawn plant parameters of ``worlds`` (indices or a (W,) bool mask)
    into ``plant``; parameters without a range get their nominal value."""
    shape = plant.mass.shape

    def factor(key: str, size: tuple = ()) -> np.ndarray | float:
        return _uniform(rng, ranges[key], (*shape, *size))[worlds] if key in ranges else 1.0

    def ball(key: str) -> np.ndarray | float:
        return _ball_vectors(rng, ranges[key], shape)[worlds] if key in ranges else 0.0

    plant.mass[worlds] = nominal.mass * factor("mass")
    plant.kf[worlds] = nominal.kf * factor("kf")
    plant.km[worlds] = nominal.km * factor("km")
    plant.drag_scale[worlds] = factor("drag")
    plant.inertia[worlds] = nominal.inertia * factor("inertia", (3,))
    tau = _uniform(rng, ranges["tau"], shape)[worlds] if "tau" in ranges else nominal.tau
    plant.tau[worlds] = tau
    with np.errstate(divide="ignore"):
        plant.lag_gain[worlds] = -np.expm1(-dt / np.asarray(tau))  # tau = 0: gain 1
    plant.com_offset[worlds] = (rng.uniform(-ranges["com_offset"], ranges["com_offset"],
                                            (*shape, 3))[worlds]
                                if "com_offset" in ranges else 0.0)
    plant.disturbance_force[worlds] = ball("force_disturbance")
    plant.disturbance_torque[worlds] = ball("torque_disturbance")
