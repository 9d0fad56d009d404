"""Fixed-wing attitude hold: roll and pitch angles plus yaw rate, flown by body-rate PIDs.

PyFlyt has no attitude hold for its fixed-wing; this is ours. The attitude error is taken on
SO(3), not between Euler angles, so it is defined at every attitude (vertical and inverted
included): the desired attitude is ``R_d = Rz(ψ_ref) · Ry(pitch) · Rx(roll)`` and the error
is the rotation vector of ``R_dᵀ R`` (body frame; its size is the full error angle, up to
π, so an aircraft upside down is pulled upright as hard as the limits allow). Its roll and
pitch parts, times ``angle_kp`` and clipped, are body-rate setpoints; the yaw axis is
commanded by rate alone (the rudder damps and coordinates, it does not hold a heading).

``ψ_ref``, the heading the setpoint is taken about, is the heading of
``x_b − (x_b·ẑ)³ z_b``: for any pure pitch γ about a heading ψ this vector points along ψ
(its length along ψ is ``cos γ + sin⁴ γ > 0``), so it stays defined through the vertical,
where the Euler yaw jumps by π; away from the vertical the z_b term is small (sin³ of the
pitch: 0.3 % at 8°), so ψ_ref is nearly the Euler yaw and a banked, pitched setpoint is held
as the Euler angles it names. A PID per axis turns rate
errors into the normalised [roll, pitch, yaw] surface commands of mode 0. Gains come from
the vehicle YAML (``attitude_controller``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from .pid import PID


def heading_reference(r) -> float:
    """Heading ψ_ref [rad] about which the attitude setpoint is built (module docstring).

    Args:
        r: the body-to-ground rotation, row-major, 9 floats.
    """
    cube = r[6] ** 3
    x, y = r[0] - cube * r[2], r[3] - cube * r[5]
    if x * x + y * y < 1e-12:  # not reachable by pitch and roll alone; any heading will do
        return math.atan2(r[3], r[0])
    return math.atan2(y, x)


def reference_heading(rotation: np.ndarray) -> float:
    """:func:`heading_reference` of a (3, 3) body-to-ground rotation matrix."""
    return heading_reference(rotation.ravel().tolist())


def desired_rotation_values(roll: float, pitch: float, heading: float):
    """``Rz(heading) · Ry(pitch) · Rx(roll)`` (PyBullet's Euler order), row-major 9-tuple."""
    cr, sr, cp, sp = math.cos(roll), math.sin(roll), math.cos(pitch), math.sin(pitch)
    cy, sy = math.cos(heading), math.sin(heading)
    return (cy * cp, cy * sp * sr - sy * cr, cy * sp * cr + sy * sr,
            sy * cp, sy * sp * sr + cy * cr, sy * sp * cr - cy * sr,
            -sp, cp * sr, cp * cr)


def desired_rotation(roll: float, pitch: float, heading: float) -> np.ndarray:
    """(3, 3) ``Rz(heading) · Ry(pitch) · Rx(roll)`` (PyBullet's Euler order)."""
    return np.array(desired_rotation_values(roll, pitch, heading)).reshape(3, 3)


def rotation_error(r, d):
    """Body-frame rotation vector θ·n [rad] of ``dᵀ r``: the rotation taking the desired
    attitude ``d`` to the actual one ``r`` (both row-major 9-tuples), with θ ∈ [0, π].

    Taken through the unit quaternion of ``dᵀ r`` (Shepperd's method, exact at any angle),
    not as ``½ vee(dᵀ r − rᵀ d)``, whose size is sin θ: that error vanishes at θ = π, and
    an aircraft upside down with wings level would then feel no pull to roll upright.
    """
    # Unpacked once: 54 subscripts cost more than the arithmetic in plain Python.
    r00, r01, r02, r10, r11, r12, r20, r21, r22 = r
    d00, d01, d02, d10, d11, d12, d20, d21, d22 = d
    m00 = d00 * r00 + d10 * r10 + d20 * r20
    m01 = d00 * r01 + d10 * r11 + d20 * r21
    m02 = d00 * r02 + d10 * r12 + d20 * r22
    m10 = d01 * r00 + d11 * r10 + d21 * r20
    m11 = d01 * r01 + d11 * r11 + d21 * r21
    m12 = d01 * r02 + d11 * r12 + d21 * r22
    m20 = d02 * r00 + d12 * r10 + d22 * r20
    m21 = d02 * r01 + d12 * r11 + d22 * r21
    m22 = d02 * r02 + d12 * r12 + d22 * r22
    trace = m00 + m11 + m22
    # The largest of 4w², 4x², 4y², 4z² gives the best-conditioned square root.
    if trace >= max(m00, m11, m22):
        w4 = 2.0 * math.sqrt(max(1.0 + trace, 0.0))
        w, x, y, z = 0.25 * w4, (m21 - m12) / w4, (m02 - m20) / w4, (m10 - m01) / w4
    elif m00 >= m11 and m00 >= m22:
        x4 = 2.0 * math.sqrt(max(1.0 + m00 - m11 - m22, 0.0))
        w, x, y, z = (m21 - m12) / x4, 0.25 * x4, (m01 + m10) / x4, (m02 + m20) / x4
    elif m11 >= m22:
        y4 = 2.0 * math.sqrt(max(1.0 + m11 - m00 - m22, 0.0))
        w, x, y, z = (m02 - m20) / y4, (m01 + m10) / y4, 0.25 * y4, (m12 + m21) / y4
    else:
        z4 = 2.0 * math.sqrt(max(1.0 + m22 - m00 - m11, 0.0))
        w, x, y, z = (m10 - m01) / z4, (m02 + m20) / z4, (m12 + m21) / z4, 0.25 * z4
    if w < 0.0:  # the shorter way round
        w, x, y, z = -w, -x, -y, -z
    sine = math.sqrt(x * x + y * y + z * z)
    if sine < 1e-12:
        return 2.0 * x, 2.0 * y, 2.0 * z
    scale = 2.0 * math.atan2(sine, w) / sine
    return scale * x, scale * y, scale * z


def attitude_error(rotation: np.ndarray, desired: np.ndarray) -> np.ndarray:
    """(3,) :func:`rotation_error` of (3, 3) matrices."""
    return np.array(rotation_error(rotation.ravel().tolist(), desired.ravel().tolist()))


def attitude_rates(r, roll: float, pitch: float, angle_kp, rate_limits, feedforward):
    """Body rates [rad/s] that bring the attitude ``r`` (row-major 9-tuple) to ``roll``,
    ``pitch`` [rad] about :func:`heading_reference`: ``clip(feedforward − angle_kp · error)``
    on roll and pitch, the yaw rate the feed-forward's alone, each within ``rate_limits``.

    Args:
        angle_kp: (2,) [1/s]; rate_limits: (3,) [rad/s]; feedforward: (3,) [rad/s].
    """
    error_x, error_y, _ = rotation_error(r, desired_rotation_values(roll, pitch,
                                                                   heading_reference(r)))
    limit_x, limit_y, limit_z = rate_limits
    return (min(max(feedforward[0] - angle_kp[0] * error_x, -limit_x), limit_x),
            min(max(feedforward[1] - angle_kp[1] * error_y, -limit_y), limit_y),
            min(max(feedforward[2], -limit_z), limit_z))


class FixedwingAttitude:
    """Attitude-hold controller of a fixed-wing.

    Args:
        gains: the YAML ``attitude_controller`` mapping: ``angle_kp`` (2,) [1/s] for roll and
            pitch, ``rate_limits`` (3,) [rad/s] and a ``rate`` PID section (kp, ki, kd,
            limits).
        period: control period [s].
    """

    def __init__(self, gains: dict[str, Any], period: float):
        self.angle_kp = [float(k) for k in gains["angle_kp"]]
        self.rate_limits = [float(k) for k in gains["rate_limits"]]
        rate = gains["rate"]
        self.rate = PID(rate["kp"], rate["ki"], rate["kd"], rate["limits"], period)

    def reset(self) -> None:
        """Clear the rate integrators."""
        self.rate.reset()

    def rate_setpoint(self, roll: float, pitch: float, rotation: np.ndarray,
                      feedforward: tuple[float, float, float] = (0.0, 0.0, 0.0),
                      ) -> tuple[float, float, float]:
        """Body rates [rad/s] that bring the attitude to ``roll``, ``pitch`` [rad].

        Args:
            roll: roll setpoint [rad] (FLU: positive roll = right wing down).
            pitch: pitch setpoint [rad] (FLU: positive pitch = nose down).
            rotation: (3, 3) body-to-ground rotation matrix.
            feedforward: (3,) body rates [rad/s] added before the limits (a steady turn's).
        """
        return attitude_rates(rotation.ravel().tolist(), roll, pitch, self.angle_kp,
                              self.rate_limits, feedforward)

    def commands(self, rate_setpoint: tuple[float, float, float],
                 state: np.ndarray) -> list[float]:
        """[roll, pitch, yaw] surface commands in [-1, 1] flying ``rate_setpoint`` [rad/s]."""
        return self.rate.step_values(state[0].tolist(), rate_setpoint)

    def step(self, setpoint: np.ndarray, state: np.ndarray,
             rotation: np.ndarray) -> list[float]:
        """Mode 1: return [roll, pitch, yaw] commands in [-1, 1].

        Args:
            setpoint: (4,) roll [rad], pitch [rad], body yaw rate [rad/s], throttle (unused
                here).
            state: (4, 3) drone state (row 0: body rates).
            rotation: (3, 3) body-to-ground rotation matrix.
        """
        return self.step_values(setpoint.tolist(), state, rotation)

    def step_values(self, setpoint: Sequence[float], state: np.ndarray,
                    rotation: np.ndarray) -> list[float]:
        """:meth:`step` with ``setpoint`` as Python floats (the vehicle's per-tick path: one
        conversion of the setpoint, no intermediate calls)."""
        rates = attitude_rates(rotation.ravel().tolist(), setpoint[0], setpoint[1],
                               self.angle_kp, self.rate_limits, (0.0, 0.0, setpoint[2]))
        return self.rate.step_values(state[0].tolist(), rates)
