"""Differential flatness of a multirotor: flat outputs -> attitude, body rates, body accelerations.

A multirotor (thrust along body z, no rotor drag) is differentially flat in position and yaw:
given p(t) and psi(t) with their derivatives up to snap and yaw acceleration, the attitude,
collective thrust, body rates and body angular accelerations follow algebraically. The
formulas are those of Faessler, Franchi & Scaramuzza (2018, App. A) without drag, as written
in docs/geometric_control.md. In particular the yaw rate ``omega_z`` is the Faessler form, which
keeps the heading constraint exact; Mellinger & Kumar (2011)'s ``psi_dot * z_W . z_B`` is not.

Frames and conventions (as everywhere in pyflyt_like): world ENU with z up, body FLU, right
hand; a rotation ``R`` maps body-frame vectors to the world frame; angular rates are body
frame. Heading is the ZYX (PyBullet) Euler yaw: the body x axis lies in the vertical plane
spanned by ``x_C = (cos psi, sin psi, 0)`` and ``e_z``, i.e. it is orthogonal to
``y_C = (-sin psi, cos psi, 0)``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from pyflyt_like.common.validation import as_float_array

from .pid import MAX_ERROR

#: Below this thrust per mass [m/s^2] the thrust direction, hence the attitude, is undefined.
MIN_THRUST_PER_MASS = 1e-6
#: Below this value of |y_C x z_B| (the cosine of the roll angle) the heading is undefined.
MIN_HEADING_COSINE = 1e-6
#: A :class:`FlatReference` saturates its position and derivatives (velocity ... snap, yaw
#: rate and yaw acceleration; SI units) at this magnitude: no vehicle flies beyond, and a
#: finite but huge value (1e308) would overflow the controller to inf and NaN.
MAX_REFERENCE = MAX_ERROR


def hat(v: np.ndarray) -> np.ndarray:
    """Return the skew-symmetric matrix of ``v``, so that ``hat(v) @ w == cross(v, w)``.

    Args:
        v: (3,) vector.

    Returns:
        (3, 3) skew-symmetric matrix.
    """
    x, y, z = as_float_array("v", v, (3,))
    return np.array(((0.0, -z, y), (z, 0.0, -x), (-y, x, 0.0)))


def vee(matrix: np.ndarray) -> np.ndarray:
    """Return the vector of a skew-symmetric matrix: the inverse of :func:`hat`.

    The entries are read from positions (2, 1), (0, 2) and (1, 0) without checking that the
    matrix is skew-symmetric; pass ``0.5 * (M - M.T)`` to project a general matrix first.

    Args:
        matrix: (3, 3) skew-symmetric matrix.

    Returns:
        (3,) vector.
    """
    m = as_float_array("matrix", matrix, (3, 3))
    return np.array((m[2, 1], m[0, 2], m[1, 0]))


def _cross(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Cross product of two (3,) arrays; several times faster than ``np.cross`` on 3-vectors."""
    a0, a1, a2 = a
    b0, b1, b2 = b
    return np.array((a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0))


def _unit(vector: np.ndarray) -> tuple[np.ndarray, float]:
    norm = math.sqrt(float(vector @ vector))
    return (vector / norm if norm > 0.0 else vector), norm


def _attitude(force: np.ndarray, yaw: float) -> tuple[np.ndarray, float, float]:
    """Unvalidated core of :func:`desired_attitude`; also returns |F| and |y_C x z_B|."""
    y_c = np.array((-math.sin(yaw), math.cos(yaw), 0.0))
    z_b, force_norm = _unit(force)
    # x_b = n(y_C x F); |y_C x F| = |F| |y_C x z_B|, so the second norm is c_3 of the seed.
    x_b, cross_norm = _unit(_cross(y_c, z_b))
    y_b = _cross(z_b, x_b)  # = n(F x x_b): z_b and x_b are orthonormal
    return np.array((x_b, y_b, z_b)).T, force_norm, cross_norm


def desired_attitude(force: np.ndarray, yaw: float) -> np.ndarray:
    """Return the attitude whose body z axis is along ``force`` and whose heading is ``yaw``.

    ``x_B = n(y_C x F)``, ``y_B = n(F x x_B)``, ``z_B = x_B x y_B`` (docs/geometric_control.md),
    with ``y_C = (-sin yaw, cos yaw, 0)``. ``z_B`` equals ``F / |F|``, and the ZYX Euler yaw of
    the result is ``yaw`` whenever the body is not rolled by 90 degrees.

    Args:
        force: (3,) world-frame thrust direction (any positive scale, e.g. N or m/s^2).
        yaw: heading [rad].

    Returns:
        (3, 3) rotation matrix, body to world, columns x_B, y_B, z_B.

    Raises:
        ValueError: when ``force`` is (near) zero, or (near) parallel to ``y_C`` so that the
            heading cannot be represented (roll of 90 degrees).
    """
    force = as_float_array("force", force, (3,))
    yaw = float(as_float_array("yaw", yaw, ()))
    rotation, force_norm, cross_norm = _attitude(force, yaw)
    if force_norm < MIN_THRUST_PER_MASS:
        raise ValueError(f"force must not be zero: the thrust direction is undefined, got "
                         f"{force.tolist()}")
    if cross_norm < MIN_HEADING_COSINE:
        raise ValueError(f"force {force.tolist()} is parallel to the heading's y axis for yaw="
                         f"{yaw}: the body x axis is undefined (roll of 90 degrees)")
    return rotation


@dataclass(frozen=True)
class FlatReference:
    """A point of a flat-output reference trajectory: position, its derivatives, and yaw.

    All vectors are (3,) in the world frame (ENU). Fields are converted to read-only float64
    arrays and validated (shape, finite) on construction; missing derivatives default to
    zero, so ``FlatReference(position=(0, 0, 1))`` is a hover reference.

    Attributes:
        position: p_d [m].
        velocity: p_d' [m/s].
        acceleration: p_d'' [m/s^2].
        jerk: p_d''' [m/s^3].
        snap: p_d'''' [m/s^4].
        yaw: heading psi_d (ZYX / PyBullet Euler yaw) [rad].
        yaw_rate: psi_d' [rad/s].
        yaw_acceleration: psi_d'' [rad/s^2].

    The position and the derivatives are saturated at ``±MAX_REFERENCE`` (1e9), entry by
    entry (the yaw angle is not), so that every finite reference gives finite commands.
    """

    position: np.ndarray
    velocity: np.ndarray = field(default_factory=lambda: np.zeros(3))
    acceleration: np.ndarray = field(default_factory=lambda: np.zeros(3))
    jerk: np.ndarray = field(default_factory=lambda: np.zeros(3))
    snap: np.ndarray = field(default_factory=lambda: np.zeros(3))
    yaw: float = 0.0
    yaw_rate: float = 0.0
    yaw_acceleration: float = 0.0

    def __post_init__(self) -> None:
        # One conversion and one check (finite, within MAX_REFERENCE) for all five vectors
        # (references are built every control tick); only on failure check field by field, to
        # name the culprit.
        values = [getattr(self, name) for name in _VECTOR_FIELDS]
        largest = math.nan  # NaN propagates through max; inf is not finite
        try:
            stacked = np.array(values, dtype=np.float64)
            if stacked.shape == (5, 3):
                largest = float(np.abs(stacked).max())
        except (TypeError, ValueError):
            pass
        valid = math.isfinite(largest)
        if not valid:
            for name, value in zip(_VECTOR_FIELDS, values):
                as_float_array(name, value, (3,))
            raise ValueError(f"FlatReference vectors must each be finite with shape (3,), got "
                             f"{values!r}")  # not reached: the loop raises first
        bound = MAX_REFERENCE
        if largest > bound:
            np.clip(stacked, -bound, bound, out=stacked)
        stacked.flags.writeable = False
        for name, row in zip(_VECTOR_FIELDS, stacked):
            object.__setattr__(self, name, row)
        for name in ("yaw", "yaw_rate", "yaw_acceleration"):
            value = getattr(self, name)
            if not (isinstance(value, (int, float)) and not isinstance(value, bool)
                    and math.isfinite(value)):
                value = as_float_array(name, value, ())
            value = float(value)
            if name != "yaw":
                value = -bound if value < -bound else (bound if value > bound else value)
            object.__setattr__(self, name, value)


_VECTOR_FIELDS = ("position", "velocity", "acceleration", "jerk", "snap")


def _check_gravity(gravity: object) -> float:
    value = float(as_float_array("gravity", gravity, ()))
    if value < 0.0:
        raise ValueError(f"gravity must be the non-negative magnitude of gravity [m/s^2], got "
                         f"{value}")
    return value


def _flat_map(acceleration: np.ndarray, jerk: np.ndarray, snap: np.ndarray, yaw: float,
              yaw_rate: float, yaw_acceleration: float, gravity: float
              ) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
    """Unvalidated core of :func:`flat_outputs_to_reference`."""
    force = acceleration + np.array((0.0, 0.0, gravity))
    rotation, c, c_3 = _attitude(force, yaw)
    if c < MIN_THRUST_PER_MASS:
        raise ValueError(
            f"acceleration + gravity*e_z = {force.tolist()} m/s^2 is (near) zero: the reference "
            f"is in free fall, so the thrust direction and the attitude are undefined (the "
            f"body rates jerk/c diverge as c -> 0). Shape the trajectory to keep "
            f"|acceleration + g e_z| > {MIN_THRUST_PER_MASS} m/s^2")
    if c_3 < MIN_HEADING_COSINE:
        raise ValueError(
            f"acceleration + gravity*e_z = {force.tolist()} m/s^2 is parallel to the heading's y "
            f"axis for yaw={yaw}: the reference rolls by 90 degrees and its heading is undefined")
    cos_yaw, sin_yaw = math.cos(yaw), math.sin(yaw)
    # Every projection the formulas need, in one product: rows jerk, snap, x_C, y_C; columns
    # their components along x_B, y_B, z_B.
    projections = (np.array((jerk, snap, (cos_yaw, sin_yaw, 0.0), (-sin_yaw, cos_yaw, 0.0)))
                   @ rotation).tolist()
    (jerk_x, jerk_y, jerk_z), (snap_x, snap_y, _), (xc_x, xc_y, xc_z), (_, yc_y, yc_z) = (
        projections)
    # c = z_B . (a + g e_z) = |F|; c_3 = |y_C x z_B| = y_C . y_B > 0 by construction.
    b_3 = -yc_z
    d_1 = jerk_x
    d_2 = -jerk_y
    d_3 = yaw_rate * xc_x
    w_x = d_2 / c
    w_y = d_1 / c
    w_z = (c * d_3 - b_3 * d_1) / (c * c_3)
    c_dot = jerk_z
    e_1 = snap_x - 2.0 * c_dot * w_y - c * w_x * w_z
    e_2 = -snap_y - 2.0 * c_dot * w_x + c * w_y * w_z
    e_3 = (yaw_acceleration * xc_x + 2.0 * yaw_rate * w_z * xc_y - 2.0 * yaw_rate * w_y * xc_z
           - w_x * w_y * yc_y - w_x * w_z * yc_z)
    omega = np.array((w_x, w_y, w_z))
    omega_dot = np.array((e_2 / c, e_1 / c, (c * e_3 - b_3 * e_1) / (c * c_3)))
    return rotation, omega, omega_dot, c


def flat_outputs_to_reference(position: np.ndarray, velocity: np.ndarray,
                              acceleration: np.ndarray, jerk: np.ndarray, snap: np.ndarray,
                              yaw: float, yaw_rate: float, yaw_acceleration: float,
                              gravity: float = 9.81
                              ) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
    """Map flat outputs to the feed-forward attitude, body rates, body accelerations and thrust.

    Implements docs/geometric_control.md with ``F_d = acceleration + gravity * e_z``:
    ``R_d = [x_B y_B z_B]`` from :func:`desired_attitude`; ``c = z_B . F_d``;
    ``omega_x = -y_B . jerk / c``, ``omega_y = x_B . jerk / c``,
    ``omega_z = (psi' x_C . x_B + omega_y y_C . z_B) / |y_C x z_B|`` (Faessler et al. 2018),
    and the angular accelerations from the snap and the second derivative of the heading
    constraint ``x_B . y_C = 0``. The dynamics are translation invariant, so ``position`` and
    ``velocity`` only get validated; they are accepted so that a whole flat state can be passed.

    Args:
        position: (3,) p_d [m], world frame.
        velocity: (3,) p_d' [m/s], world frame.
        acceleration: (3,) p_d'' [m/s^2], world frame.
        jerk: (3,) p_d''' [m/s^3], world frame.
        snap: (3,) p_d'''' [m/s^4], world frame.
        yaw: psi_d [rad] (ZYX / PyBullet Euler yaw).
        yaw_rate: psi_d' [rad/s].
        yaw_acceleration: psi_d'' [rad/s^2].
        gravity: magnitude of gravity g >= 0 [m/s^2]; world gravity is ``-g e_z``.

    Returns:
        ``(R_d, omega_d, omega_dot_d, c)``: (3, 3) attitude body -> world; (3,) body-frame
        angular velocity [rad/s]; (3,) body-frame angular acceleration [rad/s^2] (the time
        derivative of the body-frame rate vector); thrust per mass ``c = |F_d|`` [m/s^2], so the
        feed-forward collective thrust is ``mass * c`` [N].

    Raises:
        TypeError: a non-numeric argument.
        ValueError: wrong shapes, non-finite values, negative gravity; a reference in free
            fall (``|F_d| < MIN_THRUST_PER_MASS``), where no attitude is defined and no
            fallback is attempted; a reference rolled by 90 degrees relative to its heading
            (``|y_C x z_B| < MIN_HEADING_COSINE``).
    """
    as_float_array("position", position, (3,))
    as_float_array("velocity", velocity, (3,))
    return _flat_map(as_float_array("acceleration", acceleration, (3,)),
                     as_float_array("jerk", jerk, (3,)),
                     as_float_array("snap", snap, (3,)),
                     float(as_float_array("yaw", yaw, ())),
                     float(as_float_array("yaw_rate", yaw_rate, ())),
                     float(as_float_array("yaw_acceleration", yaw_acceleration, ())),
                     _check_gravity(gravity))


def reference_to_flat_state(reference: FlatReference, gravity: float = 9.81
                            ) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
    """Apply :func:`flat_outputs_to_reference` to a :class:`FlatReference`.

    Returns:
        ``(R_d (3, 3), omega_d (3,) [rad/s], omega_dot_d (3,) [rad/s^2], c [m/s^2])``.
    """
    if not isinstance(reference, FlatReference):
        raise TypeError(f"reference must be a FlatReference, got {type(reference).__name__}")
    return _flat_map(reference.acceleration, reference.jerk, reference.snap, reference.yaw,
                     reference.yaw_rate, reference.yaw_acceleration, _check_gravity(gravity))
