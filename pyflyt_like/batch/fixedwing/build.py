"""Builders of the fixed-wing engine's arrays from checked options and a
:class:`~pyflyt_like.physics.fixedwing_model.FixedwingModel`; pure, called once."""

from __future__ import annotations

import numpy as np

from pyflyt_like.control.tecs import tecs_parameters
from pyflyt_like.physics.fixedwing_model import FixedwingModel

from ..build import shear_fields, turbulence_axes, turbulence_coefficients
from ..integrators import INTEGRATORS
from ..obstacles import empty_pool, world_fields
from ..options import BatchedAviaryOptions
from .arrays import FixedwingConfig, FixedwingNominal, FixedwingPlant, zeros_fixedwing_plant

#: The integrators a fixed-wing flies (the composite body has no RK4 twin yet).
FIXEDWING_INTEGRATORS = ("semi_implicit", "euler")


def fixedwing_nominal(model: FixedwingModel, dt: float, control_period: float,
                      gravity: float) -> FixedwingNominal:
    """The nominal aircraft the controllers use and the surfaces' fixed constants
    (``dt``: the physics period [s], ``control_period`` [s], ``gravity`` [m/s^2])."""
    s = model.surfaces
    ki = model.rate_ki
    bound = np.where(ki > 0, model.rate_output_limits / np.where(ki > 0, ki, 1), 0.0)
    autopilot = model.autopilot if model.has_autopilot else None
    if autopilot is not None:
        tecs = tecs_parameters(model.trim, autopilot, control_period, model.body.mass,
                               model.max_thrust, gravity)
        max_bank, heading_kp = float(autopilot["max_bank"]), float(autopilot["heading_kp"])
        min_ground_speed = float(autopilot["min_ground_speed"])
    else:  # modes 2 and 3 are refused for such a model; the kernels still need the fields
        tecs = tecs_parameters({"airspeed": 1.0, "pitch": 0.0, "throttle": 0.0}, {
            "lift_angle": 0.0, "airspeed_limits": (1.0, 1.0), "max_climb_rate": 0.0,
            "max_sink_rate": 0.0, "max_acceleration": 0.0, "altitude_kp": 0.0,
            "airspeed_kp": 0.0, "throttle_kp": 0.0, "throttle_ki": 0.0, "pitch_kp": 0.0,
            "pitch_ki": 0.0, "pitch_limits": (0.0, 0.0), "speed_weight": 1.0,
            "rate_filter_tau": 1.0}, control_period, model.body.mass, 1.0, gravity)
        max_bank = heading_kp = min_ground_speed = 0.0
    return FixedwingNominal(
        com=model.body.com.copy(), flap_gain=s.flap_gain, alpha_0_base=s.alpha_0_base,
        aspect=s.aspect, plate_loss=s.plate_loss, half_rho_area=s.half_rho_area,
        chord=s.chord, travel=s.travel, surface_gain=1.0 - np.exp(-dt / model.surface_tau),
        command_index=model.command_index, flow_map=model.flow_map,
        wrench_map=model.wrench_map, motor_wrench=model.motor_wrench, drag=model.drag,
        mixer=model.mixer, angle_kp=model.angle_kp, rate_limits=model.rate_limits,
        rate_kp=model.rate_kp, rate_ki=model.rate_ki, rate_kd=model.rate_kd,
        rate_output_limits=model.rate_output_limits, rate_integral_bound=bound,
        max_bank=max_bank, heading_kp=heading_kp, min_ground_speed=min_ground_speed,
        **tecs._asdict())


def fixedwing_plant(model: FixedwingModel, options: BatchedAviaryOptions) -> FixedwingPlant:
    """The nominal plant of every world and aircraft (randomised at reset when asked)."""
    plant = zeros_fixedwing_plant(*options.shape, model.n_surfaces)
    plant.wind_mean[:] = options.wind
    plant.turbulence_axes[:] = turbulence_axes(plant.wind_mean)
    return plant


def fixedwing_config(options: BatchedAviaryOptions, control_hz: int,
                     collision_radius: float) -> FixedwingConfig:
    """The run's scalars, the collision radius [m] and the pool of one empty layout (the
    engine puts its own pool in, as the multirotor's :func:`~..build.engine_config`)."""
    coefficients = turbulence_coefficients(options)
    return FixedwingConfig(
        dt=1.0 / options.physics_hz, gravity=options.gravity,
        mode_steps=options.physics_hz // control_hz,
        integrator=INTEGRATORS[options.integrator], **coefficients, **shear_fields(options),
        floor_z=options.floor_height, crash_speed=options.crash_speed,
        collision_radius=collision_radius, **world_fields(empty_pool()))
