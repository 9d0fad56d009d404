"""Domain randomisation: per-world, per-drone plant parameters drawn at reset.

``randomize`` maps a key to a range; every world and drone draws its own value, uniformly:

======================  ========  ==============================================  ===========
key                     range     meaning                                         allowed
======================  ========  ==============================================  ===========
``mass``                (lo, hi)  factor on the nominal mass                      [0.1, 10]
``inertia``             (lo, hi)  factor on each principal moment (per axis)      [0.1, 10]
``kf``, ``km``          (lo, hi)  factor on the thrust / yaw-torque constant      [0.1, 10]
``drag``                (lo, hi)  factor on the rotor-drag coefficients           [0.1, 10]
``tau``                 (lo, hi)  rotor lag time constant [s] (absolute) while    [0, 1] s
                                  spinning up; the fall constant keeps the
                                  model's ratio ``tau_fall / tau``
``com_offset``          c         centre-of-mass offset, each body axis in        [0, 0.1] m
                                  [-c, c] [m]
``force_disturbance``   f         constant world force, direction uniform on the  [0, 100] N
                                  sphere, magnitude uniform in [0, f] [N]
``torque_disturbance``  t         constant body torque, as above [N m]            [0, 2e-3] N m
======================  ========  ==============================================  ===========

The allowed values are physical bounds (docs/batch.md, "Errors and bounds", gives the
reasons); beyond them the engine would overflow to inf and NaN. The controllers keep the
nominal model. Draws use the engine's generator and are made for all worlds at every reset
(then kept only for the reset ones), so a world's values depend on the seed and the reset
count, not on which worlds a mask selected.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from pyflyt_like.common.validation import check_float_in, reject_unknown_keys

FACTOR_KEYS = ("mass", "inertia", "kf", "km", "drag")
INTERVAL_KEYS = (*FACTOR_KEYS, "tau")
BOUND_KEYS = ("com_offset", "force_disturbance", "torque_disturbance")
KEYS = (*INTERVAL_KEYS, *BOUND_KEYS)

#: Factors on the nominal model within [1 / MAX_FACTOR, MAX_FACTOR]: a vehicle ten times
#: lighter or heavier is another vehicle, and a factor of 1e-9 on the inertia overflows.
MAX_FACTOR = 10.0
#: Each key's allowed interval: (low, high, unit); an interval key's (lo, hi) lies in it.
LIMITS = {
    **{key: (1.0 / MAX_FACTOR, MAX_FACTOR, "") for key in FACTOR_KEYS},
    "tau": (0.0, 1.0, " s"),  # motors respond in 10-100 ms
    "com_offset": (0.0, 0.1, " m"),  # beyond the arms of the small vehicles
    "force_disturbance": (0.0, 100.0, " N"),  # 7 times the hexarotor's weight
    # a fifth of the largest roll torque of a Crazyflie (1e-2 N m): the smallest vehicles
    # still counter it; more spins them up beyond what the integrator resolves
    "torque_disturbance": (0.0, 2e-3, " N m"),
}


def check_randomize(randomize: Mapping | None, limits: Mapping[str, tuple] | None = None,
                    bound_keys: tuple[str, ...] = BOUND_KEYS, family: str = "multirotor"
                    ) -> dict[str, object]:
    """Validate the ``randomize`` mapping; returns a dict of floats / (lo, hi) tuples.

    ``limits`` (default: the multirotor's :data:`LIMITS`) maps each key to its allowed
    (low, high, unit); ``bound_keys`` are those taking one bound instead of a pair.

    Numbers are real numbers of any Python or numpy type; bools, strings (never parsed:
    ``"12"`` is refused) and complex numbers are not.

    Raises:
        TypeError: not a mapping, a pair that is not two numbers, a bound that is no number.
        ValueError: an unknown key, a value outside its :data:`LIMITS`, low > high.
    """
    limits = LIMITS if limits is None else limits
    if randomize is None:
        return {}
    if not isinstance(randomize, Mapping):
        raise TypeError(f"randomize must be a dict of ranges, got {type(randomize).__name__}")
    reject_unknown_keys("randomize", randomize, limits, "keys",
                        f"keys of a {family} are {list(limits)}")
    checked: dict[str, object] = {}
    for key, value in randomize.items():
        low, high, unit = limits[key]
        name = f"randomize[{key!r}]"
        if key in bound_keys:
            checked[key] = check_float_in(name, value, low, high, unit=unit)
            continue
        if not (isinstance(value, (tuple, list)) and len(value) == 2
                or isinstance(value, np.ndarray) and value.shape == (2,)):
            raise TypeError(f"{name} must be a (low, high) pair of numbers in "
                            f"[{low:g}, {high:g}]{unit}, got {value!r}")
        first, second = (check_float_in(f"{name}[{i}]", v, low, high, unit=unit)
                         for i, v in enumerate(value))
        if first > second:
            raise ValueError(f"{name} must be a (low, high) pair with low <= high, got "
                             f"{value!r}")
        checked[key] = (first, second)
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
    fall_ratio = nominal.tau_fall / nominal.tau if nominal.tau > 0 else 1.0
    tau_fall = np.asarray(tau) * fall_ratio if nominal.tau > 0 else nominal.tau_fall
    with np.errstate(divide="ignore"):
        plant.lag_gain[worlds] = -np.expm1(-dt / np.asarray(tau))  # tau = 0: gain 1
        plant.lag_gain_fall[worlds] = -np.expm1(-dt / np.asarray(tau_fall))
    plant.com_offset[worlds] = (rng.uniform(-ranges["com_offset"], ranges["com_offset"],
                                            (*shape, 3))[worlds]
                                if "com_offset" in ranges else 0.0)
    plant.disturbance_force[worlds] = ball("force_disturbance")
    plant.disturbance_torque[worlds] = ball("torque_disturbance")
