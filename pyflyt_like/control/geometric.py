"""Lee's geometric tracking controller on SE(3) with differential-flatness feed-forward.

The law (Lee, Leok & McClamroch 2010, in its ENU form, derived in docs/geometric_control.md)::

    e_p = p_d - p                       e_v = p_d' - p'
    e_R = 1/2 (R_d^T R - R^T R_d)^v     e_w = w - R^T R_d w_d
    F   = m (p_d'' + K_p e_p + K_v e_v + g e_z)            (commanded force, world, N)
    f   = F . R e_z                                         (collective thrust, N)
    tau = -K_R e_R - K_w e_w + w x J w - J (hat(w) R^T R_d w_d - R^T R_d w_d')   (body, N m)

for the rigid body ``m p'' = f R e_z - m g e_z``, ``R' = R hat(w)``, ``J w' = J w x w + tau``.

Where the references come from (:func:`lee_control` and :class:`GeometricController`):

* ``R_d`` is built from the *commanded* force: ``z_B,d = F / |F|`` (Lee's b3d) with the
  heading of ``reference.yaw`` (:func:`~.flatness.desired_attitude`), so that position and
  velocity errors tilt the vehicle. (Building ``R_d`` from the feed-forward ``p_d'' + g e_z``
  alone, as some statements of the law read, leaves horizontal position errors uncorrected.)
* ``w_d`` and ``w_d'`` are the body-frame rates and accelerations of the flat feed-forward
  attitude (:func:`~.flatness.flat_outputs_to_reference`), used unchanged as the body-frame
  rate references of the commanded ``R_d``. On the reference (zero tracking error) the two
  attitudes coincide and the feed-forward is exact; off it, the derivatives of the feedback
  terms in ``F`` are neglected, as is usual in implementations of this law.

:func:`geometric_control_law` is the bare law with ``R_d``, ``w_d``, ``w_d'`` given.
"""

from __future__ import annotations

import math

import numpy as np

from pyflyt_like.common.rotations import euler_to_matrix
from pyflyt_like.common.validation import as_float_array, check_positive_float

from .flatness import (
    MIN_HEADING_COSINE,
    MIN_THRUST_PER_MASS,
    FlatReference,
    _attitude,
    _check_gravity,
    _cross,
    _flat_map,
    _unit,
)

#: Largest accepted deviation |R^T R - I| (max entry) of a rotation-matrix argument.
ROTATION_TOLERANCE = 1e-6

_E_Z = np.array((0.0, 0.0, 1.0))


def _check_rotation(name: str, value: object) -> np.ndarray:
    rotation = as_float_array(name, value, (3, 3))
    error = float(np.max(np.abs(rotation.T @ rotation - np.eye(3))))
    if error > ROTATION_TOLERANCE or np.linalg.det(rotation) <= 0.0:
        raise ValueError(f"{name} must be a rotation matrix (orthonormal, det +1) within "
                         f"{ROTATION_TOLERANCE}, got {rotation.tolist()}")
    return rotation


def _check_gain(name: str, value: object) -> np.ndarray:
    gain = as_float_array(name, value, (3,))
    if np.any(gain <= 0.0):
        raise ValueError(f"{name} must be the (3,) positive diagonal of a gain matrix, got "
                         f"{gain.tolist()}")
    return gain


def _check_inertia(value: object) -> np.ndarray:
    inertia = as_float_array("inertia", value, (3, 3))
    scale = float(np.max(np.abs(inertia)))
    symmetric = np.allclose(inertia, inertia.T, rtol=0.0, atol=1e-9 * scale)
    try:
        np.linalg.cholesky(inertia)
        positive = symmetric
    except np.linalg.LinAlgError:
        positive = False
    if not positive:
        raise ValueError(f"inertia must be a symmetric positive-definite (3, 3) matrix "
                         f"[kg m^2], got {inertia.tolist()}")
    return inertia


def attitude_error(rotation: np.ndarray, rotation_d: np.ndarray) -> np.ndarray:
    """Return Lee's attitude error ``e_R = 1/2 (R_d^T R - R^T R_d)^v``.

    For ``R = R_d exp(theta hat(a))`` (unit axis ``a``) this is ``sin(theta) a``: zero at
    ``R = R_d``, the rotation vector for small errors, and antisymmetric in its arguments.

    Args:
        rotation: (3, 3) attitude R, body to world.
        rotation_d: (3, 3) desired attitude R_d, body to world.

    Returns:
        (3,) attitude error, body frame [dimensionless].
    """
    return rotation_error(_check_rotation("rotation", rotation),
                          _check_rotation("rotation_d", rotation_d))


def rotation_error(rotation: np.ndarray, rotation_d: np.ndarray) -> np.ndarray:
    """:func:`attitude_error` without the argument checks, for the controllers' per-tick
    path, whose arguments are rotation matrices by construction."""
    e = rotation_d.T @ rotation
    return np.array((0.5 * (e[2, 1] - e[1, 2]), 0.5 * (e[0, 2] - e[2, 0]),
                     0.5 * (e[1, 0] - e[0, 1])))


def _law(rotation: np.ndarray, omega: np.ndarray, force: np.ndarray, rotation_d: np.ndarray,
         omega_d: np.ndarray, omega_dot_d: np.ndarray, kr: np.ndarray, kw: np.ndarray,
         inertia: np.ndarray) -> tuple[float, np.ndarray, np.ndarray, np.ndarray]:
    """Thrust and torque of the law for a given commanded force; returns (f, tau, e_R, e_w)."""
    relative = rotation.T @ rotation_d  # R^T R_d
    error = relative.T  # R_d^T R
    e_r = 0.5 * np.array((error[2, 1] - error[1, 2], error[0, 2] - error[2, 0],
                          error[1, 0] - error[0, 1]))
    omega_ref = relative @ omega_d
    e_w = omega - omega_ref
    thrust = float(force @ rotation[:, 2])
    torque = (-kr * e_r - kw * e_w + _cross(omega, inertia @ omega)
              - inertia @ (_cross(omega, omega_ref) - relative @ omega_dot_d))
    return thrust, torque, e_r, e_w


def geometric_control_law(position: np.ndarray, velocity: np.ndarray, rotation: np.ndarray,
                          omega: np.ndarray, position_d: np.ndarray, velocity_d: np.ndarray,
                          acceleration_d: np.ndarray, rotation_d: np.ndarray,
                          omega_d: np.ndarray, omega_dot_d: np.ndarray, *, kp: np.ndarray,
                          kv: np.ndarray, kr: np.ndarray, kw: np.ndarray, mass: float,
                          inertia: np.ndarray, gravity: float = 9.81
                          ) -> tuple[float, np.ndarray]:
    """Evaluate the control law of the module docstring with ``R_d``, ``w_d``, ``w_d'`` given.

    Nothing is derived here: the caller chooses ``R_d`` (for tracking it must follow the
    commanded force, see :func:`lee_control`).

    Args:
        position: (3,) p [m], world frame.
        velocity: (3,) p' [m/s], world frame.
        rotation: (3, 3) R, body to world.
        omega: (3,) body rates w [rad/s].
        position_d: (3,) p_d [m], world frame.
        velocity_d: (3,) p_d' [m/s], world frame.
        acceleration_d: (3,) p_d'' [m/s^2], world frame.
        rotation_d: (3, 3) R_d, body to world.
        omega_d: (3,) w_d [rad/s], in the frame of R_d.
        omega_dot_d: (3,) w_d' [rad/s^2], in the frame of R_d.
        kp: (3,) positive diagonal of K_p [1/s^2].
        kv: (3,) positive diagonal of K_v [1/s].
        kr: (3,) positive diagonal of K_R [N m].
        kw: (3,) positive diagonal of K_w [N m s].
        mass: m > 0 [kg].
        inertia: (3, 3) symmetric positive-definite J [kg m^2], body frame.
        gravity: g >= 0 [m/s^2]; world gravity is ``-g e_z``.

    Returns:
        ``(f, tau)``: collective thrust along body z [N] (negative if the commanded force
        points below the body's xy plane; clip downstream), and (3,) body torque [N m].

    Raises:
        TypeError: a non-numeric argument.
        ValueError: wrong shapes, non-finite values, non-rotation matrices, non-positive gains
            or mass, an inertia that is not symmetric positive definite, negative gravity.
    """
    position = as_float_array("position", position, (3,))
    velocity = as_float_array("velocity", velocity, (3,))
    rotation = _check_rotation("rotation", rotation)
    omega = as_float_array("omega", omega, (3,))
    position_d = as_float_array("position_d", position_d, (3,))
    velocity_d = as_float_array("velocity_d", velocity_d, (3,))
    acceleration_d = as_float_array("acceleration_d", acceleration_d, (3,))
    rotation_d = _check_rotation("rotation_d", rotation_d)
    omega_d = as_float_array("omega_d", omega_d, (3,))
    omega_dot_d = as_float_array("omega_dot_d", omega_dot_d, (3,))
    kp, kv = _check_gain("kp", kp), _check_gain("kv", kv)
    kr, kw = _check_gain("kr", kr), _check_gain("kw", kw)
    mass = check_positive_float("mass", mass)
    inertia = _check_inertia(inertia)
    gravity = _check_gravity(gravity)
    force = _force(position, velocity, position_d, velocity_d, acceleration_d, kp, kv, mass,
                   gravity)
    thrust, torque, _, _ = _law(rotation, omega, force, rotation_d, omega_d, omega_dot_d, kr, kw,
                                inertia)
    return thrust, torque


def _force(position: np.ndarray, velocity: np.ndarray, position_d: np.ndarray,
           velocity_d: np.ndarray, acceleration_d: np.ndarray, kp: np.ndarray, kv: np.ndarray,
           mass: float, gravity: float) -> np.ndarray:
    """Commanded force F = m (p_d'' + K_p e_p + K_v e_v + g e_z) [N], world frame.

    No saturation here: :class:`~.flatness.FlatReference` already bounds the reference, so
    the errors stay finite for any finite setpoint.
    """
    return mass * (acceleration_d + kp * (position_d - position) + kv * (velocity_d - velocity)
                   + gravity * _E_Z)


def commanded_attitude(force: np.ndarray, yaw: float, rotation: np.ndarray,
                       mass: float) -> np.ndarray:
    """Return R_d for a commanded force: ``z_B,d = F / |F|`` with heading ``yaw``.

    Uses :func:`~.flatness.desired_attitude`'s construction. It never raises on a degenerate
    command, since it runs inside the loop; instead it falls back:

    * ``|F| / mass < MIN_THRUST_PER_MASS`` (nothing to point): ``z_B,d`` is the current body
      z axis ``R e_z``, i.e. keep the present tilt while the thrust is about zero;
    * ``F`` parallel to ``y_C`` (a 90 degree roll, where ``x_B,d = n(y_C x F)`` is
      undefined): ``y_B,d = n(z_B,d x x_C)``, ``x_B,d = y_B,d x z_B,d`` instead.

    Args:
        force: (3,) commanded force [N], world frame.
        yaw: desired heading [rad].
        rotation: (3, 3) current attitude R, body to world (for the first fallback).
        mass: m > 0 [kg].

    Returns:
        (3, 3) desired attitude, body to world.
    """
    return _commanded_attitude(as_float_array("force", force, (3,)),
                               float(as_float_array("yaw", yaw, ())),
                               _check_rotation("rotation", rotation),
                               check_positive_float("mass", mass))


def _commanded_attitude(force: np.ndarray, yaw: float, rotation: np.ndarray,
                        mass: float) -> np.ndarray:
    if math.sqrt(float(force @ force)) < MIN_THRUST_PER_MASS * mass:
        force = rotation[:, 2]
    rotation_d, _, heading_cosine = _attitude(force, yaw)
    if heading_cosine >= MIN_HEADING_COSINE:
        return rotation_d
    z_b = rotation_d[:, 2]
    y_b, _ = _unit(_cross(z_b, np.array((math.cos(yaw), math.sin(yaw), 0.0))))
    return np.array((_cross(y_b, z_b), y_b, z_b)).T


def _lee(position: np.ndarray, velocity: np.ndarray, rotation: np.ndarray, omega: np.ndarray,
         reference: FlatReference, kp: np.ndarray, kv: np.ndarray, kr: np.ndarray,
         kw: np.ndarray, mass: float, inertia: np.ndarray, gravity: float
         ) -> tuple[float, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Unvalidated full controller; returns (f, tau, R_d, e_R, e_w)."""
    _, omega_d, omega_dot_d, _ = _flat_map(reference.acceleration, reference.jerk,
                                           reference.snap, reference.yaw, reference.yaw_rate,
                                           reference.yaw_acceleration, gravity)
    force = _force(position, velocity, reference.position, reference.velocity,
                   reference.acceleration, kp, kv, mass, gravity)
    rotation_d = _commanded_attitude(force, reference.yaw, rotation, mass)
    thrust, torque, e_r, e_w = _law(rotation, omega, force, rotation_d, omega_d, omega_dot_d, kr,
                                    kw, inertia)
    return thrust, torque, rotation_d, e_r, e_w


def lee_control(position: np.ndarray, velocity: np.ndarray, rotation: np.ndarray,
                omega: np.ndarray, reference: FlatReference, *, kp: np.ndarray, kv: np.ndarray,
                kr: np.ndarray, kw: np.ndarray, mass: float, inertia: np.ndarray,
                gravity: float = 9.81) -> tuple[float, np.ndarray]:
    """Full geometric tracking controller: flatness feed-forward plus Lee's law.

    ``w_d``, ``w_d'`` come from :func:`~.flatness.flat_outputs_to_reference` of ``reference``;
    ``R_d`` from the commanded force ``F = m (p_d'' + K_p e_p + K_v e_v + g e_z)`` and
    ``reference.yaw`` (:func:`commanded_attitude`); then :func:`geometric_control_law`.

    Args:
        position: (3,) p [m], world frame.
        velocity: (3,) p' [m/s], world frame.
        rotation: (3, 3) R, body to world.
        omega: (3,) body rates w [rad/s].
        reference: the flat reference at the current time.
        kp: (3,) positive diagonal of K_p [1/s^2].
        kv: (3,) positive diagonal of K_v [1/s].
        kr: (3,) positive diagonal of K_R [N m].
        kw: (3,) positive diagonal of K_w [N m s].
        mass: m > 0 [kg].
        inertia: (3, 3) symmetric positive-definite J [kg m^2], body frame.
        gravity: g >= 0 [m/s^2].

    Returns:
        ``(f, tau)``: collective thrust [N] and (3,) body torque [N m].

    Raises:
        TypeError: a non-numeric argument, or ``reference`` not a :class:`FlatReference`.
        ValueError: as :func:`geometric_control_law`, and when the reference is in free fall
            or rolled by 90 degrees (see :func:`~.flatness.flat_outputs_to_reference`).
    """
    if not isinstance(reference, FlatReference):
        raise TypeError(f"reference must be a FlatReference, got {type(reference).__name__}")
    thrust, torque, _, _, _ = _lee(
        as_float_array("position", position, (3,)), as_float_array("velocity", velocity, (3,)),
        _check_rotation("rotation", rotation), as_float_array("omega", omega, (3,)), reference,
        _check_gain("kp", kp), _check_gain("kv", kv), _check_gain("kr", kr),
        _check_gain("kw", kw), check_positive_float("mass", mass), _check_inertia(inertia),
        _check_gravity(gravity))
    return thrust, torque


def rotation_from_euler(euler: np.ndarray) -> np.ndarray:
    """Return R = Rz(yaw) Ry(pitch) Rx(roll) (PyBullet's Euler convention), body to world.

    Args:
        euler: (3,) roll, pitch, yaw [rad].

    Returns:
        (3, 3) rotation matrix.
    """
    roll, pitch, yaw = as_float_array("euler", euler, (3,))
    return euler_to_rotation(roll, pitch, yaw)


def euler_to_rotation(roll: float, pitch: float, yaw: float) -> np.ndarray:
    """:func:`rotation_from_euler` on three floats [rad], unchecked (the per-tick path)."""
    return np.array(euler_to_matrix(roll, pitch, yaw)).reshape(3, 3)


class GeometricController:
    """Lee's SE(3) tracking controller with flatness feed-forward, on the drone state layout.

    The law is stateless; the object holds the validated gains and parameters and, for
    logging, the errors of the last call.

    Args:
        mass: m > 0 [kg].
        inertia: (3, 3) symmetric positive-definite J [kg m^2], body frame.
        kp: (3,) positive diagonal of K_p [1/s^2] (acceleration per metre).
        kv: (3,) positive diagonal of K_v [1/s].
        kr: (3,) positive diagonal of K_R [N m] (torque per unit of e_R).
        kw: (3,) positive diagonal of K_w [N m s].
        gravity: g >= 0 [m/s^2].

    Attributes:
        position_error: (3,) last e_p = p_d - p [m].
        velocity_error: (3,) last e_v [m/s].
        attitude_error: (3,) last e_R.
        rate_error: (3,) last e_w [rad/s].
        rotation_d: (3, 3) last commanded attitude R_d.
    """

    def __init__(self, mass: float, inertia: np.ndarray, *, kp: np.ndarray, kv: np.ndarray,
                 kr: np.ndarray, kw: np.ndarray, gravity: float = 9.81):
        self.mass = check_positive_float("mass", mass)
        self.inertia = _check_inertia(inertia)
        self.kp, self.kv = _check_gain("kp", kp), _check_gain("kv", kv)
        self.kr, self.kw = _check_gain("kr", kr), _check_gain("kw", kw)
        self.gravity = _check_gravity(gravity)
        self.reset()

    def reset(self) -> None:
        """Clear the logged errors (the law itself has no memory)."""
        self.position_error = np.zeros(3)
        self.velocity_error = np.zeros(3)
        self.attitude_error = np.zeros(3)
        self.rate_error = np.zeros(3)
        self.rotation_d = np.eye(3)

    def compute(self, state: np.ndarray, reference: FlatReference,
                rotation: np.ndarray | None = None) -> tuple[float, np.ndarray]:
        """Return the collective thrust and body torque for a drone state and a reference.

        Args:
            state: (4, 3) drone state as ``Aviary.state(i)``: body rates (p, q, r) [rad/s];
                Euler roll, pitch, yaw [rad] with R = Rz(yaw) Ry(pitch) Rx(roll); body-frame
                linear velocity [m/s]; world position [m].
            reference: the flat reference at the current time.
            rotation: optional (3, 3) body-to-world rotation (e.g. the drone's
                ``rotation_matrix``). When given it is used instead of the Euler row (no
                trigonometry, no Euler singularity); it must describe the same attitude.

        Returns:
            ``(f, tau)``: collective thrust [N] and (3,) body torque [N m].
        """
        state = as_float_array("state", state, (4, 3))
        if not isinstance(reference, FlatReference):
            raise TypeError(f"reference must be a FlatReference, got {type(reference).__name__}")
        if rotation is None:
            rotation = euler_to_rotation(*state[1])
        else:
            rotation = _check_rotation("rotation", rotation)
        position = state[3]
        velocity = rotation @ state[2]
        thrust, torque, rotation_d, e_r, e_w = _lee(
            position, velocity, rotation, state[0], reference, self.kp, self.kv, self.kr,
            self.kw, self.mass, self.inertia, self.gravity)
        self.position_error = reference.position - position
        self.velocity_error = reference.velocity - velocity
        self.attitude_error, self.rate_error, self.rotation_d = e_r, e_w, rotation_d
        return thrust, torque
