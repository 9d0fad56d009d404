"""The fixed-wing engine's data: state, plant and nominal model as arrays.

Structure of arrays, float64, one leading axis per world and one per aircraft, as the
multirotor's (:mod:`pyflyt_like.batch.arrays`); pos, quat, vel and ang_vel are slabs of one
buffer, checked for NaN in one pass.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np

from pyflyt_like.control.tecs import MEMORY_SIZE, TecsParameters
from pyflyt_like.physics.fixedwing_model import SURFACE_COMMANDS

from ..arrays import TURBULENCE_STATES, WORLD_FIELDS, kinematics_slabs, unchecked
from ..sensors import SENSOR_FIELDS, zeros_sensor_arrays

#: What changes every physics step, per world ``w`` and aircraft ``d``: pos (W, D, 3) base
#: origin, world ENU [m]; quat (W, D, 4) body-to-world (x, y, z, w); vel (W, D, 3) of the
#: base origin, world [m/s]; ang_vel (W, D, 3) body FLU [rad/s]; deflection (W, D, n)
#: surface deflections [rad]; throttle (W, D) the motor's; surface_command (W, D, 5) and
#: thrust_command (W, D): the controller's outputs, held between ticks; setpoint (W, D, k);
#: rate_integral, rate_previous (W, D, 3), rate_fresh (W, D): the body-rate PID; tecs
#: (W, D, 5) the TECS memory (:data:`~pyflyt_like.control.tecs.MEMORY_SIZE`); steps (W,);
#: contact, crashed (W, D) bool; turbulence (W, 5); wind (W, 3) [m/s]; wrench (W, D, 6)
#: aerodynamic and motor force [N] and torque about the base origin [N m], body frame;
#: world_layout (W,) int64 each world's obstacle layout in the pool and obstacle_check
#: (W, D, 4), as the multirotor's;
#: the sensor fields (:data:`~pyflyt_like.batch.sensors.SENSOR_FIELDS`, empty behind their
#: world axes without sensors), as the multirotor's.
FixedwingState = namedtuple("FixedwingState", [
    "pos", "quat", "vel", "ang_vel", "deflection", "throttle", "surface_command",
    "thrust_command", "setpoint", "rate_integral", "rate_previous", "rate_fresh", "tecs",
    "steps", "contact", "crashed", "turbulence", "wind", "wrench", "world_layout",
    "obstacle_check", *SENSOR_FIELDS])

#: The physical aircraft per world and aircraft, drawn at reset when randomised: mass (W, D)
#: [kg]; inertia, inertia_inv (W, D, 9) row-major tensor about the centre of mass, base
#: axes [kg m^2] and its inverse; thrust_scale (W, D) factor on the motor's thrust;
#: motor_gain (W, D) the motor lag's step gain; cl_alpha, cd_0, stall_p, stall_n (W, D, n)
#: each surface's lift slope [1/rad], zero-lift drag and stall angles [rad];
#: disturbance_force (W, D, 3) world [N]; disturbance_torque (W, D, 3) body [N m];
#: wind_mean (W, 3) [m/s]; turbulence_axes (W, 3, 3).
FixedwingPlant = namedtuple("FixedwingPlant", [
    "mass", "inertia", "inertia_inv", "thrust_scale", "motor_gain", "cl_alpha", "cd_0",
    "stall_p", "stall_n", "disturbance_force", "disturbance_torque", "wind_mean",
    "turbulence_axes"])

#: The nominal aircraft (never randomised): com (3,) centre of mass from the base origin,
#: body [m]; surface constants (n,) each (flap_gain, alpha_0_base, aspect, plate_loss,
#: half_rho_area, chord, travel), surface_gain (n,) deflection lag step gains,
#: command_index (n,) int; flow_map (2n, 6); wrench_map (6, 3n); motor_wrench (6,);
#: drag (3,); mixer (5, 3); angle_kp (2,), rate_limits (3,), rate_kp, rate_ki, rate_kd,
#: rate_output_limits, rate_integral_bound (3,); max_bank [rad], heading_kp [1/s],
#: min_ground_speed [m/s]; then every field of
#: :class:`~pyflyt_like.control.tecs.TecsParameters` (the nominal is itself the parameters
#: ``tecs_step`` reads: numba's parallel loops take no tuple nested in a tuple).
FixedwingNominal = namedtuple("FixedwingNominal", [
    "com", "flap_gain", "alpha_0_base", "aspect", "plate_loss", "half_rho_area", "chord",
    "travel", "surface_gain", "command_index", "flow_map", "wrench_map", "motor_wrench",
    "drag", "mixer", "angle_kp", "rate_limits", "rate_kp", "rate_ki", "rate_kd",
    "rate_output_limits", "rate_integral_bound", "max_bank", "heading_kp",
    "min_ground_speed", *TecsParameters._fields])

#: Scalars of the run: dt [s]; gravity [m/s^2]; mode_steps; integrator (0 euler,
#: 1 semi-implicit); turbulence (bool) and its filter coefficients, the shear (as the
#: multirotor's Config); floor_z [m]; crash_speed [m/s]; collision_radius [m] and the pool
#: of obstacle layouts (:data:`~..arrays.WORLD_FIELDS`), as the multirotor's Config.
FixedwingConfig = namedtuple("FixedwingConfig", [
    "dt", "gravity", "mode_steps", "integrator", "turbulence", "turb_a", "turb_b",
    "turb_phi_v", "turb_chol_v", "turb_phi_w", "turb_chol_w", "turb_sigma", "shear",
    "shear_x", "shear_y", "shear_log", "shear_min_height", "shear_log_z0", "shear_power",
    "shear_scale", "floor_z", "crash_speed", "collision_radius", *WORLD_FIELDS])


def zeros_fixedwing_state(n_worlds: int, n_drones: int, n_surfaces: int,
                          setpoint_size: int, sensors=None) -> FixedwingState:
    """A FixedwingState of zeros (identity attitude), allocated once; ``sensors`` the
    resolved sensor parameters (None: none, the sensor fields empty behind their world axes)."""
    shape = (n_worlds, n_drones)
    return FixedwingState(
        **kinematics_slabs(n_worlds, n_drones), deflection=np.zeros((*shape, n_surfaces)),
        throttle=np.zeros(shape),
        surface_command=np.zeros((*shape, SURFACE_COMMANDS)), thrust_command=np.zeros(shape),
        setpoint=np.zeros((*shape, setpoint_size)), rate_integral=np.zeros((*shape, 3)),
        rate_previous=np.zeros((*shape, 3)), rate_fresh=np.ones(shape, bool),
        tecs=np.zeros((*shape, MEMORY_SIZE)), steps=np.zeros(n_worlds, np.int64),
        contact=np.zeros(shape, bool), crashed=np.zeros(shape, bool),
        turbulence=np.zeros((n_worlds, TURBULENCE_STATES)), wind=np.zeros((n_worlds, 3)),
        wrench=np.zeros((*shape, 6)), world_layout=np.zeros(n_worlds, np.int64),
        obstacle_check=unchecked(n_worlds, n_drones),
        **zeros_sensor_arrays(n_worlds, n_drones, sensors))


def zeros_fixedwing_plant(n_worlds: int, n_drones: int, n_surfaces: int) -> FixedwingPlant:
    """A FixedwingPlant of zeros, allocated once (the builder fills it)."""
    shape = (n_worlds, n_drones)
    return FixedwingPlant(
        mass=np.zeros(shape), inertia=np.zeros((*shape, 9)), inertia_inv=np.zeros((*shape, 9)),
        thrust_scale=np.zeros(shape), motor_gain=np.zeros(shape),
        cl_alpha=np.zeros((*shape, n_surfaces)), cd_0=np.zeros((*shape, n_surfaces)),
        stall_p=np.zeros((*shape, n_surfaces)), stall_n=np.zeros((*shape, n_surfaces)),
        disturbance_force=np.zeros((*shape, 3)), disturbance_torque=np.zeros((*shape, 3)),
        wind_mean=np.zeros((n_worlds, 3)), turbulence_axes=np.zeros((n_worlds, 3, 3)))
