"""Domain randomisation of fixed-wings: per-world, per-aircraft parameters drawn at reset.

``randomize`` maps a key to a range; every world and aircraft draws its own value,
uniformly (the multirotor's pattern, :mod:`pyflyt_like.batch.randomization`):

======================  ========  ==============================================  ============
key                     range     meaning                                         allowed
======================  ========  ==============================================  ============
``mass``                (lo, hi)  factor on the mass (the centre of mass stays)   [0.5, 2]
``inertia``             (lo, hi)  factor on each principal axis's moment (per     [0.5, 2]
                                  axis: ``J' = D J D``, ``D = diag(sqrt f)``)
``thrust``              (lo, hi)  factor on the motor's full thrust               [0.1, 10]
``tau``                 (lo, hi)  motor lag time constant [s] (absolute)          [0, 1] s
``lift_slope``          (lo, hi)  factor on every surface's lift slope            [0.5, 2]
``cd_0``                (lo, hi)  factor on every surface's zero-lift drag        [0.1, 10]
``stall``               (lo, hi)  factor on the stall angles' distance from the   [0.5, 2]
                                  zero-lift angle
``force_disturbance``   f         constant world force at the centre of mass,     [0, 100] N
                                  direction uniform on the sphere, magnitude
                                  uniform in [0, f] [N]
``torque_disturbance``  t         constant body torque, as above [N m]            [0, 1] N m
======================  ========  ==============================================  ============

Each surface draws its own lift slope, drag and stall factors. The controllers keep the
nominal aircraft. Draws use the engine's generator, for all worlds at every reset (then
kept only for the reset ones), as the multirotor's.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from pyflyt_like.physics.fixedwing_model import FixedwingModel

from ..randomization import _ball_vectors, _uniform, check_randomize

BOUND_KEYS = ("force_disturbance", "torque_disturbance")
#: Each key's allowed interval: (low, high, unit); an interval key's (lo, hi) lies in it.
LIMITS = {
    # an aircraft twice as heavy needs twice the lift: its stall speed grows by sqrt 2
    "mass": (0.5, 2.0, ""), "inertia": (0.5, 2.0, ""),
    "thrust": (0.1, 10.0, ""), "tau": (0.0, 1.0, " s"),
    "lift_slope": (0.5, 2.0, ""), "cd_0": (0.1, 10.0, ""), "stall": (0.5, 2.0, ""),
    "force_disturbance": (0.0, 100.0, " N"),
    # a fifth of what the acrowing's ailerons give at cruise
    "torque_disturbance": (0.0, 1.0, " N m"),
}
KEYS = tuple(LIMITS)


def check_fixedwing_randomize(randomize: Mapping | None) -> dict[str, object]:
    """The checked ``randomize`` of a fixed-wing (:func:`~..randomization.check_randomize`
    with this module's keys and limits)."""
    return check_randomize(randomize, LIMITS, BOUND_KEYS, family="fixed-wing")


def draw_fixedwing_plant(rng: np.random.Generator, ranges: dict, model: FixedwingModel,
                         plant, worlds: np.ndarray, dt: float) -> None:
    """Write freshly drawn parameters of ``worlds`` (indices) into ``plant``; parameters
    without a range get their nominal value."""
    shape = plant.mass.shape
    n = model.n_surfaces

    def factor(key: str, size: tuple = ()) -> np.ndarray | float:
        return _uniform(rng, ranges[key], (*shape, *size))[worlds] if key in ranges else 1.0

    def ball(key: str) -> np.ndarray | float:
        return _ball_vectors(rng, ranges[key], shape)[worlds] if key in ranges else 0.0

    body = model.body
    plant.mass[worlds] = body.mass * factor("mass")
    scale = np.sqrt(np.broadcast_to(factor("inertia", (3,)), (len(worlds), shape[1], 3)))
    inertia = scale[..., :, None] * body.inertia * scale[..., None, :]
    plant.inertia[worlds] = inertia.reshape(len(worlds), shape[1], 9)
    plant.inertia_inv[worlds] = np.linalg.inv(inertia).reshape(len(worlds), shape[1], 9)
    plant.thrust_scale[worlds] = factor("thrust")
    tau = _uniform(rng, ranges["tau"], shape)[worlds] if "tau" in ranges else model.motor_tau
    with np.errstate(divide="ignore"):  # the PyBullet Motors' formula; tau = 0: gain 1
        plant.motor_gain[worlds] = 1.0 - np.exp(-dt / np.asarray(tau))
    s = model.surfaces
    plant.cl_alpha[worlds] = s.cl_alpha * factor("lift_slope", (n,))
    plant.cd_0[worlds] = s.cd_0 * factor("cd_0", (n,))
    if "stall" in ranges:
        stall = factor("stall", (n,))
        plant.stall_p[worlds] = s.alpha_0_base + stall * (s.stall_p_base - s.alpha_0_base)
        plant.stall_n[worlds] = s.alpha_0_base + stall * (s.stall_n_base - s.alpha_0_base)
    else:
        plant.stall_p[worlds], plant.stall_n[worlds] = s.stall_p_base, s.stall_n_base
    plant.disturbance_force[worlds] = ball("force_disturbance")
    plant.disturbance_torque[worlds] = ball("torque_disturbance")
