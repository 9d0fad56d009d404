"""Rotor aerodynamics of multirotors: ground effect, rotor drag, downwash.

The models of gym-pybullet-drones (Panerati et al., 2021), with speeds ``w_i`` of the rotors:

- ground effect: each rotor's thrust grows by ``kf w_i^2 c_gnd (r / (4 h_i))^2`` at height
  ``h_i`` of the rotor above the ground plane; ``h_i`` is clipped from below so that the gain
  never exceeds ``max_ground_gain``, by default ``MAX_GROUND_GAIN`` = 4/15, the gain at
  gym-pybullet-drones' clipping height for Shi et al.'s fit (each rotor gains at most 27 %).
  The formula diverges at h = 0; the former cap of 1 doubled the thrust of a landed drone,
  so 56 % of its weight in thrust lifted it. Only while upright.
- rotor drag: ``F = -diag(c_xy, c_xy, c_z) v_b * sum_i w_i`` in the body frame, with ``v_b``
  the body-frame air velocity (wind included) and ``w_i`` in rad/s.
- downwash from a vehicle above: ``F_z = -alpha exp(-(d_xy / beta)^2 / 2)``,
  ``alpha = c1 (r / (4 d_z))^2``, ``beta = c2 d_z + c3``, for height difference ``d_z > 0``
  and horizontal distance ``d_xy``; the upper vehicle's coefficients apply. The fit holds in
  the far field only: its width falls to zero at ``d_z = -c3 / c2`` (0.69 m for the
  Crazyflie), which made a needle of 3x the drone's weight. Near field (our choice): the
  wake is never narrower than the rotor's diameter, ``beta >= 2 r``; above the height
  ``d_z*`` where the fit reaches that width, width and amplitude are held at their values at
  ``d_z*``. The force is then continuous in both distances and bounded by ``alpha(d_z*)``
  (0.079 N, 30 % of a cf2x's weight).
"""

from __future__ import annotations

import math


def ground_effect_min_height(prop_radius: float, coefficient: float, max_gain: float) -> float:
    """Height [m] below which a rotor's ground-effect gain is held at ``max_gain``.

    Args:
        prop_radius: rotor radius r [m].
        coefficient: the fit's c_gnd.
        max_gain: the largest fractional thrust increase allowed.
    """
    return 0.25 * prop_radius * math.sqrt(coefficient / max_gain)


def ground_effect_gain(height: float, prop_radius: float, coefficient: float,
                       min_height: float) -> float:
    """Fractional thrust increase of a rotor ``height`` [m] above the ground,
    ``c_gnd (r / (4 h))^2`` with h clipped at ``min_height`` (:func:`ground_effect_min_height`)."""
    return coefficient * (prop_radius / (4.0 * max(height, min_height))) ** 2


def downwash_force(delta_xy: float, delta_z: float, prop_radius: float, c1: float, c2: float,
                   c3: float) -> float:
    """Vertical force [N] (<= 0) on a vehicle ``delta_z`` [m] below another, ``delta_xy`` off.

    Far field: the fitted model of the module docstring, with the upper vehicle's rotor
    radius and coefficients c1, c2, c3. Nearer than ``d_z*``, where the fitted width
    ``c2 d_z + c3`` reaches the rotor diameter, the wake keeps that width and the amplitude it
    has at ``d_z*`` (continuous and bounded).
    """
    if delta_z <= 0.0:
        return 0.0
    min_width = 2.0 * prop_radius
    near_field_end = (min_width - c3) / c2 if c2 > 0.0 else 0.0
    height = max(delta_z, near_field_end)
    alpha = c1 * (prop_radius / (4.0 * height)) ** 2
    beta = max(c2 * height + c3, min_width)
    return -alpha * math.exp(-0.5 * (delta_xy / beta) ** 2)
