"""The batched engine's data: state, plant parameters and model constants as arrays.

Structure of arrays, float64, one leading axis per world and one per drone. Kernels read
the fields of these named tuples; the :class:`~pyflyt_like.batch.BatchedAviary` owns them.
Every array is allocated once, at construction; a step writes into them in place.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np

from .sensors import SENSOR_FIELDS, zeros_sensor_arrays

#: The fields of the engine's ``Config`` (both families') that hold the pool of obstacle
#: layouts (:mod:`.obstacles`), in the order of :class:`~pyflyt_like.worlds.LayoutPool`:
#: ``pool_distance(config.world_cylinders, ..., config.world_items, layout, ...)``.
WORLD_FIELDS = ("world_cylinders", "world_boxes", "world_spheres", "world_counts",
                "world_origin", "world_cells", "world_z_range", "world_cell_size",
                "world_first_cell", "world_cell_start", "world_items")

#: What changes every physics step, per world ``w`` and drone ``d``.
#: pos (W, D, 3) centre of mass, world ENU [m]; quat (W, D, 4) body-to-world (x, y, z, w);
#: vel (W, D, 3) world frame [m/s]; ang_vel (W, D, 3) body frame FLU [rad/s];
#: rotor_speed / rotor_command (W, D, n) model unit; setpoint (W, D, k);
#: reference (W, D, 18) flat reference (position, velocity, acceleration, jerk, snap, yaw,
#: yaw rate, yaw acceleration) with use_reference (W, D) bool; rate_integral and
#: rate_previous (W, D, 3) and rate_fresh (W, D) bool: the body-rate PID;
#: steps (W,) int64 physics steps since the world's reset; contact, crashed (W, D) bool;
#: turbulence (W, 5) Dryden filter states (u, v1, v2, w1, w2); wind (W, 3) [m/s];
#: wrench (W, D, 6) body force [N] and torque [N m] of the last step;
#: attitude_target (W, D, 9) row-major rotation of a mode-1 setpoint's Euler angles, worked
#: out once per fused call (the setpoints hold over it) rather than once per tick;
#: world_layout (W,) int64 the index of each world's obstacle layout in the pool of
#: ``Config`` (:mod:`.obstacles`; 0 without a world); obstacle_check (W, D, 4) the position
#: [m] of each drone's last exact obstacle query and how far [m] it may move from there
#: before it needs another (-1: now; set at reset, and needed again after any write into
#: world_layout); the sensor fields
#: (:data:`~pyflyt_like.batch.sensors.SENSOR_FIELDS`, empty behind their world axes without
#: sensors): the stages' signature passes nothing else a step writes into.
State = namedtuple("State", [
    "pos", "quat", "vel", "ang_vel", "rotor_speed", "rotor_command", "setpoint", "reference",
    "use_reference", "rate_integral", "rate_previous", "rate_fresh", "steps", "contact",
    "crashed", "turbulence", "wind", "wrench", "attitude_target", "world_layout",
    "obstacle_check", *SENSOR_FIELDS])

#: The physical vehicle per world and drone, drawn at reset when randomised.
#: mass (W, D) [kg]; inertia (W, D, 3) principal [kg m^2]; kf, km (W, D) rotor constants;
#: tau (W, D) rotor lag [s] while spinning up and lag_gain (W, D) = 1 - exp(-dt / tau);
#: lag_gain_fall (W, D) the same while spinning down (the fall constant); drag_scale (W, D)
#: factor on the rotor-drag coefficients; com_offset (W, D, 3) centre of mass from the
#: nominal one, body frame [m]; disturbance_force (W, D, 3) world [N];
#: disturbance_torque (W, D, 3) body [N m]; wind_mean (W, 3) [m/s];
#: turbulence_axes (W, 3, 3) rows e_u, e_v, e_w of the Dryden axes, world frame.
Plant = namedtuple("Plant", [
    "mass", "inertia", "kf", "km", "tau", "lag_gain", "lag_gain_fall", "drag_scale",
    "com_offset",
    "disturbance_force", "disturbance_torque", "wind_mean", "turbulence_axes"])

#: The nominal vehicle (what the controllers believe, never randomised) and fixed constants.
#: positions (n, 3) [m]; spins (n,); pinv (n, 4) allocation pseudo-inverse; collective (n,)
#: = pinv[:, 0]; low, high (n,) squared speed limits; wrench_bound (4,); min_speed,
#: max_speed (n,); mass [kg]; inertia (3,); rate_kp, rate_ki, rate_kd, rate_limits,
#: rate_integral_bound (3,); angle_kp, angle_rate_limits (3,); geo_kp, geo_kv, geo_kr,
#: geo_kw (3,); kf, km nominal; prop_radius [m]; ground_effect_coeff; ground_clip [m];
#: drag_coeffs (3,) [N s/m per rad/s]; downwash_coeffs (3,); speed_to_rad_s;
#: per_newton (n, 4), low_newtons, high_newtons (n,): pinv, low and high divided row-wise by
#: the collective, so the saturated allocation compares collectives without dividing.
Nominal = namedtuple("Nominal", [
    "positions", "spins", "pinv", "collective", "per_newton", "low_newtons", "high_newtons",
    "low", "high", "wrench_bound", "min_speed",
    "max_speed", "mass", "inertia", "rate_kp", "rate_ki", "rate_kd", "rate_limits",
    "rate_integral_bound", "angle_kp", "angle_rate_limits", "geo_kp", "geo_kv", "geo_kr",
    "geo_kw", "kf", "km", "prop_radius", "ground_effect_coeff", "ground_clip", "drag_coeffs",
    "downwash_coeffs", "speed_to_rad_s"])

#: Scalars of the run: dt [s]; gravity [m/s^2]; mode_steps (physics steps per controller
#: tick); control_period [s]; integrator (0 euler, 1 semi-implicit, 2 rk4);
#: ground_effect, rotor_drag, downwash, turbulence (bool); turbulence coefficients
#: (first-order a, b; second-order phi (4,) and chol (3,) per axis v and w; sigma (3,));
#: shear (bool) and its reference wind shear_x, shear_y [m/s] and profile constants
#: (:func:`~pyflyt_like.physics.wind_shear.shear_factor`'s); floor_z [m]; crash_speed [m/s];
#: collision_radius [m] every drone's collision sphere against obstacles; the pool of
#: obstacle layouts (:data:`WORLD_FIELDS`, the
#: :class:`~pyflyt_like.worlds.LayoutPool` arrays in its order; one empty layout without a
#: world).
Config = namedtuple("Config", [
    "dt", "gravity", "mode_steps", "control_period", "integrator", "ground_effect",
    "rotor_drag", "downwash", "turbulence", "turb_a", "turb_b", "turb_phi_v", "turb_chol_v",
    "turb_phi_w", "turb_chol_w", "turb_sigma", "shear", "shear_x", "shear_y", "shear_log",
    "shear_min_height", "shear_log_z0", "shear_power", "shear_scale", "floor_z",
    "crash_speed", "collision_radius", *WORLD_FIELDS])

REFERENCE_SIZE = 18
TURBULENCE_STATES = 5


#: The rigid-body state of a drone, in the order of its slabs in one buffer: the
#: divergence guard checks them in one pass (:func:`kinematics_block`).
KINEMATICS = (("pos", 3), ("quat", 4), ("vel", 3), ("ang_vel", 3))


def zeros_state(n_worlds: int, n_drones: int, n_rotors: int, setpoint_size: int,
                sensors=None) -> State:
    """A State of zeros (identity attitude), allocated once; ``sensors`` the resolved
    sensor parameters (None: none, the sensor fields empty behind their world axes).

    pos, quat, vel and ang_vel are consecutive C-contiguous slabs of one buffer (see
    :func:`kinematics_block`), each an ordinary (W, D, k) array to the kernels.
    """
    shape = (n_worlds, n_drones)
    return State(
        **kinematics_slabs(n_worlds, n_drones), rotor_speed=np.zeros((*shape, n_rotors)),
        rotor_command=np.zeros((*shape, n_rotors)), setpoint=np.zeros((*shape, setpoint_size)),
        reference=np.zeros((*shape, REFERENCE_SIZE)), use_reference=np.zeros(shape, bool),
        rate_integral=np.zeros((*shape, 3)), rate_previous=np.zeros((*shape, 3)),
        rate_fresh=np.ones(shape, bool), steps=np.zeros(n_worlds, np.int64),
        contact=np.zeros(shape, bool), crashed=np.zeros(shape, bool),
        turbulence=np.zeros((n_worlds, TURBULENCE_STATES)), wind=np.zeros((n_worlds, 3)),
        wrench=np.zeros((*shape, 6)), attitude_target=np.zeros((*shape, 9)),
        world_layout=np.zeros(n_worlds, np.int64), obstacle_check=unchecked(n_worlds, n_drones),
        **zeros_sensor_arrays(n_worlds, n_drones, sensors))


def unchecked(n_worlds: int, n_drones: int) -> np.ndarray:
    """A (W, D, 4) ``obstacle_check`` that asks for an exact query at the next step."""
    check = np.zeros((n_worlds, n_drones, 4))
    check[..., 3] = -1.0
    return check


def kinematics_slabs(n_worlds: int, n_drones: int) -> dict[str, np.ndarray]:
    """pos, quat, vel and ang_vel (W, D, k) of zeros (identity attitudes): consecutive
    C-contiguous slabs of one buffer (:func:`kinematics_block`), for any family's state."""
    block = np.zeros(n_worlds * n_drones * sum(width for _, width in KINEMATICS))
    slabs, start = {}, 0
    for name, width in KINEMATICS:
        size = n_worlds * n_drones * width
        slabs[name] = block[start:start + size].reshape(n_worlds, n_drones, width)
        start += size
    slabs["quat"][..., 3] = 1.0
    return slabs


def kinematics_block(state: State) -> np.ndarray:
    """The flat buffer holding pos, quat, vel and ang_vel of a :func:`zeros_state` State:
    13 floats per drone, checked for NaN in one vectorised pass."""
    return state.pos.base  # numpy's base of a view is the array that owns the memory


def zeros_plant(n_worlds: int, n_drones: int) -> Plant:
    """A Plant of zeros, allocated once (:func:`~.build.plant_arrays` fills it)."""
    shape = (n_worlds, n_drones)
    return Plant(
        mass=np.zeros(shape), inertia=np.zeros((*shape, 3)), kf=np.zeros(shape),
        km=np.zeros(shape), tau=np.zeros(shape), lag_gain=np.zeros(shape),
        lag_gain_fall=np.zeros(shape),
        drag_scale=np.zeros(shape), com_offset=np.zeros((*shape, 3)),
        disturbance_force=np.zeros((*shape, 3)), disturbance_torque=np.zeros((*shape, 3)),
        wind_mean=np.zeros((n_worlds, 3)), turbulence_axes=np.zeros((n_worlds, 3, 3)))
