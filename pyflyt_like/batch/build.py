"""Builders of the batched engine's arrays from checked options and a vehicle model.

Pure functions, called once at construction: the allocation constants come from the same
:class:`~pyflyt_like.control.allocation.Allocator` the PyBullet ``Multirotor`` flies with,
the turbulence filters from :mod:`pyflyt_like.common.dryden_filters`, the default control
rate from :func:`~pyflyt_like.common.multirotor_model.default_control_hz`.
"""

from __future__ import annotations

import numpy as np

from pyflyt_like.common.dryden_filters import (
    first_order_coefficients,
    low_altitude_parameters,
    second_order_coefficients,
)
from pyflyt_like.common.multirotor_model import MultirotorModel, default_control_hz
from pyflyt_like.common.validation import check_rate_divides
from pyflyt_like.control.allocation import Allocator, actuation_matrix
from pyflyt_like.physics.rotor_aerodynamics import ground_effect_min_height

from .arrays import Config, Nominal, Plant, zeros_plant
from .integrators import INTEGRATORS
from .obstacles import empty_pool, world_fields
from .options import BatchedAviaryOptions


def control_rate(model: MultirotorModel, options: BatchedAviaryOptions) -> int:
    """The controller rate [Hz]: the YAML's ``mode_hz`` entry for the mode if it has one,
    else ``control_hz``, else the multirotor default (the rule both engines share).

    Raises:
        ValueError: a rate that does not divide ``physics_hz``, naming it.
    """
    physics_hz, mode = options.physics_hz, options.mode
    if mode in model.mode_hz:
        rate = model.mode_hz[mode]
        if isinstance(rate, bool) or not isinstance(rate, int) or rate <= 0 \
                or physics_hz % rate:
            raise ValueError(f"{model.param_path}: mode_hz[{mode}] = {rate!r} must be a "
                             f"positive integer dividing physics_hz={physics_hz}")
        return rate
    if options.control_hz is None:
        return default_control_hz(model.control_hz, physics_hz)
    check_rate_divides("control_hz", options.control_hz, physics_hz)
    return options.control_hz


def nominal_arrays(model: MultirotorModel) -> Nominal:
    """The nominal vehicle the controllers use, as the kernels' :class:`~.arrays.Nominal`."""
    n = model.n_rotors
    kf, km = np.full(n, model.kf), np.full(n, model.km)
    min_speed, max_speed = np.full(n, model.min_speed), np.full(n, model.max_speed)
    try:
        allocator = Allocator(actuation_matrix(model.positions, model.spins, kf, km),
                              min_speed, max_speed)
    except ValueError as error:
        raise ValueError(f"{model.param_path}: {error}") from None
    pinv, collective = allocator.pseudo_inverse, allocator.pseudo_inverse[:, 0]
    ki = model.rate_ki
    integral_bound = np.where(ki > 0, model.rate_limits_output / np.where(ki > 0, ki, 1), 0.0)
    return Nominal(
        positions=model.positions.copy(), spins=model.spins.copy(), pinv=pinv,
        collective=collective.copy(), per_newton=pinv / pinv[:, :1],
        low_newtons=allocator.low / collective, high_newtons=allocator.high / collective,
        low=allocator.low, high=allocator.high, wrench_bound=allocator.wrench_bound,
        min_speed=min_speed, max_speed=max_speed, mass=model.mass,
        inertia=model.inertia.copy(), rate_kp=model.rate_kp, rate_ki=model.rate_ki,
        rate_kd=model.rate_kd, rate_limits=model.rate_limits_output,
        rate_integral_bound=integral_bound, angle_kp=model.angle_kp,
        angle_rate_limits=model.rate_limits, geo_kp=model.geometric_kp,
        geo_kv=model.geometric_kv, geo_kr=model.geometric_kr, geo_kw=model.geometric_kw,
        kf=model.kf, km=model.km, prop_radius=model.prop_radius,
        ground_effect_coeff=model.ground_effect_coeff,
        ground_clip=ground_effect_min_height(model.prop_radius, model.ground_effect_coeff,
                                             model.max_ground_gain),
        drag_coeffs=np.array((model.drag_coeff_xy, model.drag_coeff_xy, model.drag_coeff_z)),
        downwash_coeffs=model.downwash_coeffs.copy(), speed_to_rad_s=model.speed_to_rad_s)


def plant_arrays(model: MultirotorModel, options: BatchedAviaryOptions) -> Plant:
    """The nominal plant of every world and drone (randomised at reset when asked)."""
    plant = zeros_plant(*options.shape)
    plant.mass[:], plant.inertia[:] = model.mass, model.inertia
    plant.kf[:], plant.km[:], plant.tau[:] = model.kf, model.km, model.tau
    plant.lag_gain[:], plant.lag_gain_fall[:], plant.drag_scale[:] = 1.0, 1.0, 1.0
    plant.wind_mean[:] = options.wind
    plant.turbulence_axes[:] = turbulence_axes(plant.wind_mean)
    return plant


def turbulence_axes(wind_mean: np.ndarray) -> np.ndarray:
    """(W, 3, 3) rows e_u (along the horizontal mean wind, +x if none), e_v (to its left),
    e_z, from (W, 3) mean winds [m/s]."""
    horizontal = wind_mean[:, :2]
    norm = np.linalg.norm(horizontal, axis=1, keepdims=True)
    along = np.where(norm > 0, horizontal / np.where(norm > 0, norm, 1), [1.0, 0.0])
    axes = np.zeros((len(wind_mean), 3, 3))
    axes[:, 0, :2] = along
    axes[:, 1, 0], axes[:, 1, 1] = -along[:, 1], along[:, 0]
    axes[:, 2, 2] = 1.0
    return axes


def turbulence_coefficients(options: BatchedAviaryOptions) -> dict[str, object]:
    """The Dryden filters' fields of a kernel config for the physics step: ``turbulence``
    (on or off), ``turb_a``, ``turb_b`` (first order), ``turb_phi_v``, ``turb_chol_v``,
    ``turb_phi_w``, ``turb_chol_w`` (second order), ``turb_sigma`` (3,)."""
    dt = 1.0 / options.physics_hz
    a = b = 0.0
    phi_v = phi_w = np.zeros(4)
    chol_v = chol_w = np.zeros(3)
    sigma = np.zeros(3)
    if options.turbulence is not None:
        turbulence = options.turbulence
        sigma, lengths = low_altitude_parameters(turbulence["altitude"],
                                                 turbulence["wind_speed_20ft"])
        theta = turbulence["airspeed"] * dt / lengths
        a, b = first_order_coefficients(theta[0])
        phi, chol = second_order_coefficients(theta[1])
        phi_v, chol_v = phi.ravel(), np.array((chol[0, 0], chol[1, 0], chol[1, 1]))
        phi, chol = second_order_coefficients(theta[2])
        phi_w, chol_w = phi.ravel(), np.array((chol[0, 0], chol[1, 0], chol[1, 1]))
    return dict(turbulence=options.turbulence is not None, turb_a=float(a), turb_b=float(b),
                turb_phi_v=phi_v, turb_chol_v=chol_v, turb_phi_w=phi_w, turb_chol_w=chol_w,
                turb_sigma=np.asarray(sigma, float))


def shear_fields(options: BatchedAviaryOptions) -> dict[str, object]:
    """The shear's fields of a kernel config: ``shear`` (on or off), its reference wind
    ``shear_x``, ``shear_y`` [m/s] and the profile's constants."""
    profile = options.shear
    if profile is None:
        return dict(shear=False, shear_x=0.0, shear_y=0.0, shear_log=False,
                    shear_min_height=0.0, shear_log_z0=0.0, shear_power=0.0, shear_scale=0.0)
    is_log, min_height, log_z0, power, scale = profile.constants
    return dict(shear=True, shear_x=float(profile.reference_velocity[0]),
                shear_y=float(profile.reference_velocity[1]), shear_log=is_log,
                shear_min_height=min_height, shear_log_z0=log_z0, shear_power=power,
                shear_scale=scale)


def engine_config(options: BatchedAviaryOptions, control_hz: int,
                  collision_radius: float) -> Config:
    """The run's scalars, with the Dryden filters' coefficients for the physics step, the
    collision radius [m] and the pool of one empty layout (the engine puts its own pool in
    with ``_replace``, :func:`~.obstacles.world_fields`)."""
    return Config(
        dt=1.0 / options.physics_hz, gravity=options.gravity,
        mode_steps=options.physics_hz // control_hz, control_period=1.0 / control_hz,
        integrator=INTEGRATORS[options.integrator], ground_effect=options.ground_effect,
        rotor_drag=options.rotor_drag, downwash=options.downwash,
        **turbulence_coefficients(options), **shear_fields(options),
        floor_z=options.floor_height,
        crash_speed=options.crash_speed, collision_radius=collision_radius,
        **world_fields(empty_pool()))
