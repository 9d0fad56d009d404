"""Control allocation: from collective thrust and body torques to rotor speeds squared.

For rotors with thrust coefficients ``kf``, torque coefficients ``km``, positions ``(x, y)``
in the body frame and spins ``s`` (+1 counter-clockwise), the wrench of squared rotor speeds
``u`` is ``B u`` with rows (thrust, roll, pitch, yaw torque):
``kf``, ``kf y``, ``-kf x``, ``km s``.

``allocate`` solves ``B u = w`` by the pseudo-inverse when the result respects the rotor
limits (a quadrotor's B is square: exactly ``B^-1``). When it does not, attitude is kept
before altitude and roll/pitch before yaw, the way PX4's mixer prioritises them: the
squared speeds are written as ``u = s_rp u_rp + s_y u_y + c u_1``, with the roll/pitch part
``u_rp = B^+ [0, tx, ty, 0]``, the yaw part ``u_y = B^+ [0, 0, 0, tz]`` and the collective
part ``u_1 = B^+ [1, 0, 0, 0]``. The largest yaw scale ``s_y`` in [0, 1] with full roll and
pitch for which some ``c`` keeps every rotor within its limits is found in closed form (the
limits are linear in the scale and in ``c``: see ``_largest_scale``); only if even zero yaw
does not fit is the roll/pitch part scaled the same way. Then ``c`` is the feasible value
closest to the commanded thrust. Roll/pitch keep their direction, and no rotor speed ever
leaves its limits.
"""

from __future__ import annotations

import numpy as np

# A wrench component beyond this many times what the rotors can produce is cut to it before
# allocating: such a command saturates anyway, and a finite but huge one (1e308) would
# overflow B^+ w to inf and inf - inf to NaN.
WRENCH_SATURATION = 1e6


def actuation_matrix(positions: np.ndarray, spins: np.ndarray, kf: np.ndarray,
                     km: np.ndarray) -> np.ndarray:
    """(4, n) map from squared rotor speeds to [thrust N, roll, pitch, yaw torque N m].

    Args:
        positions: (n, 3) rotor positions relative to the centre of mass, body frame [m].
        spins: (n,) +1 counter-clockwise, -1 clockwise (yaw torque = km speed^2 spin).
        kf: (n,) thrust per squared speed; km: (n,) yaw torque per squared speed (>= 0).
    """
    return np.vstack((kf, kf * positions[:, 1], -kf * positions[:, 0], km * spins))


class Allocator:
    """Rotor-speed allocation for one vehicle with fixed limits.

    Args:
        matrix: (4, n) actuation matrix from :func:`actuation_matrix`.
        min_speed: (n,) lowest rotor speeds, in the model's unit.
        max_speed: (n,) highest rotor speeds, in the model's unit.
    """

    def __init__(self, matrix: np.ndarray, min_speed: np.ndarray, max_speed: np.ndarray):
        self.matrix = np.asarray(matrix, dtype=float)
        if np.linalg.matrix_rank(self.matrix) < 4:
            raise ValueError("the actuation matrix must have rank 4 (full thrust and torque "
                             "authority); check rotor positions and spins")
        self.pseudo_inverse = np.linalg.pinv(self.matrix)
        self.low = np.asarray(min_speed, dtype=float) ** 2
        self.high = np.asarray(max_speed, dtype=float) ** 2
        self._collective = self.pseudo_inverse[:, 0]  # squared speeds per newton of thrust
        # |thrust|, |torques| reachable at most (every rotor at its limit in its favour).
        self.wrench_bound = WRENCH_SATURATION * (np.abs(self.matrix) @ self.high)
        self._bounds = self.wrench_bound.tolist()
        if np.any(self._collective <= 0):
            raise ValueError("every rotor must contribute thrust (B^+ [1, 0, 0, 0] > 0)")
        self.saturated = False

    def _collective_range(self, torque_part: np.ndarray) -> tuple[float, float]:
        """Thrust interval [N] keeping ``torque_part + c u_1`` within the limits."""
        lower = np.max((self.low - torque_part) / self._collective)
        upper = np.min((self.high - torque_part) / self._collective)
        return lower, upper

    def _largest_scale(self, fixed: np.ndarray, scaled: np.ndarray) -> float:
        """Largest s in [0, 1] for which ``fixed + s scaled`` fits with some collective.

        In closed form: a collective fits when every rotor's lower bound on it,
        ``(low_i - fixed_i - s scaled_i) / u1_i``, is below every rotor's upper bound
        ``(high_j - fixed_j - s scaled_j) / u1_j``. Each pair (i, j) is a linear condition
        ``K_ij + s M_ij <= 0``; none holds at s = 0 if some K_ij > 0, and the pairs with
        M_ij > 0 bound s by -K_ij / M_ij. (The batched engine's kernel does the same.)
        """
        u1 = self._collective
        k = ((self.low - fixed) / u1)[:, None] - ((self.high - fixed) / u1)[None, :]
        if np.any(k > 0.0):
            return 0.0
        per_newton = scaled / u1
        m = per_newton[None, :] - per_newton[:, None]
        rising = m > 0.0
        if not rising.any():
            return 1.0
        return float(min(1.0, np.min(-k[rising] / m[rising])))

    def allocate(self, wrench: np.ndarray) -> np.ndarray:
        """Return (n,) rotor speeds for ``wrench`` = [thrust N, tau_x, tau_y, tau_z N m].

        Components beyond ``WRENCH_SATURATION`` times the reachable ones are cut to that
        bound first, so every finite wrench gives finite speeds within the limits.
        """
        if not all(-b <= w <= b for w, b in zip(wrench.tolist(), self._bounds)):
            wrench = np.clip(wrench, -self.wrench_bound, self.wrench_bound)
        squared = self.pseudo_inverse @ wrench
        self.saturated = bool(np.any(squared < self.low) or np.any(squared > self.high))
        if self.saturated:
            tilt_part = self.pseudo_inverse[:, 1:3] @ wrench[1:3]
            yaw_part = self.pseudo_inverse[:, 3] * wrench[3]
            # Yaw gives way first (it matters least for staying upright), then roll and
            # pitch together, keeping their direction.
            yaw_scale = self._largest_scale(tilt_part, yaw_part)
            tilt_scale = 1.0 if yaw_scale > 0.0 else self._largest_scale(np.zeros_like(
                tilt_part), tilt_part)
            torque_part = tilt_scale * tilt_part + yaw_scale * yaw_part
            lower, upper = self._collective_range(torque_part)
            thrust = min(max(wrench[0], lower), upper)
            squared = torque_part + thrust * self._collective
            np.clip(squared, self.low, self.high, out=squared)
        return np.sqrt(squared)
