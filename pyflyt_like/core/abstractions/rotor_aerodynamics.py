"""Rotor aerodynamic effects of multirotors: ground effect, rotor drag, downwash.

Switchable per vehicle; all off by default. Equations (gym-pybullet-drones' models, see
REFERENCE.md §2), with speeds ``w_i`` of the rotors:

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
from collections.abc import Iterable, Sequence

import numpy as np
import pybullet

from pyflyt_like.common.multirotor_model import MAX_GROUND_GAIN, RPM_TO_RAD_S  # noqa: F401
from pyflyt_like.common.validation import as_float_array, check_bool, check_positive_float


def ground_effect_gain(heights: np.ndarray, prop_radius: float, coefficient: float,
                       max_gain: float) -> np.ndarray:
    """Fractional thrust increase (n,) of rotors at ``heights`` (n,) [m] above the ground."""
    clip = 0.25 * prop_radius * math.sqrt(coefficient / max_gain)
    return coefficient * (prop_radius / (4.0 * np.maximum(heights, clip))) ** 2


def downwash_force(delta_xy: float, delta_z: float, prop_radius: float,
                   coefficients: Sequence[float]) -> float:
    """Vertical force [N] (<= 0) on a vehicle ``delta_z`` [m] below another, ``delta_xy`` off.

    Far field: the fitted model of the module docstring. Nearer than ``d_z*``, where the
    fitted width ``c2 d_z + c3`` reaches the rotor diameter, the wake keeps that width and
    the amplitude it has at ``d_z*`` (continuous and bounded; see the module docstring).
    """
    if delta_z <= 0.0:
        return 0.0
    c1, c2, c3 = coefficients
    min_width = 2.0 * prop_radius
    near_field_end = (min_width - c3) / c2 if c2 > 0.0 else 0.0
    height = max(delta_z, near_field_end)
    alpha = c1 * (prop_radius / (4.0 * height)) ** 2
    beta = max(c2 * height + c3, min_width)
    return -alpha * math.exp(-0.5 * (delta_xy / beta) ** 2)


class RotorAerodynamics:
    """Ground effect, rotor drag and downwash of one multirotor's rotors.

    Args:
        p: the aviary (a pybullet BulletClient).
        physics_period: seconds per physics step.
        np_random: the aviary's random generator (unused).
        uav_id: pybullet body id.
        prop_ids: (n,) rotor link ids (their count is the rotor count; every force acts on
            the base).
        prop_positions: (n, 3) rotor positions in the body frame [m].
        kf: (n,) thrust per squared rotor speed (model unit).
        speed_to_rad_s: factor from the model's rotor-speed unit to rad/s.
        prop_radius: [m]; ground_effect_coeff; drag_coeff_xy, drag_coeff_z [N s/m per rad/s];
        downwash_coeffs: (3,) c1, c2, c3.
        ground_effect, rotor_drag, downwash: which effects act.
        max_ground_gain: cap on the ground-effect thrust gain (default ``MAX_GROUND_GAIN``).
    """

    def __init__(self, p, physics_period: float, np_random: np.random.Generator, uav_id: int,
                 prop_ids: Sequence[int], prop_positions, kf, speed_to_rad_s: float,
                 prop_radius: float, ground_effect_coeff: float, drag_coeff_xy: float,
                 drag_coeff_z: float, downwash_coeffs, ground_effect: bool = False,
                 rotor_drag: bool = False, downwash: bool = False,
                 max_ground_gain: float = MAX_GROUND_GAIN):
        self.client_id = p._client
        self.uav_id = int(uav_id)
        self.prop_ids = [int(i) for i in prop_ids]
        n = len(self.prop_ids)
        self.prop_positions = as_float_array("prop_positions", prop_positions, (n, 3))
        self.kf = as_float_array("kf", kf, (n,))
        self.speed_to_rad_s = check_positive_float("speed_to_rad_s", speed_to_rad_s)
        self.prop_radius = check_positive_float("prop_radius", prop_radius)
        self.ground_effect_coeff = check_positive_float("ground_effect_coeff",
                                                        ground_effect_coeff)
        self.drag_coeffs = -np.array((drag_coeff_xy, drag_coeff_xy, drag_coeff_z), dtype=float)
        self.downwash_coeffs = as_float_array("downwash_coeffs", downwash_coeffs, (3,)).tolist()
        self.max_ground_gain = check_positive_float("max_ground_gain", max_ground_gain)
        self.ground_effect = check_bool("ground_effect", ground_effect)
        self.rotor_drag = check_bool("rotor_drag", rotor_drag)
        self.downwash = check_bool("downwash", downwash)
        self.enabled = self.ground_effect or self.rotor_drag or self.downwash

    def reset(self) -> None:
        """The effects hold no state."""

    def physics_update(self, rotation: np.ndarray, position: np.ndarray,
                       air_velocity: np.ndarray, speeds: np.ndarray,
                       upper_vehicles: Iterable[tuple[np.ndarray, float, Sequence[float]]] = (),
                       ) -> None:
        """Apply the enabled effects for one physics step.

        Args:
            rotation: (3, 3) body-to-ground rotation.
            position: (3,) base position [m].
            air_velocity: (3,) ground-frame air velocity of the base [m/s].
            speeds: (n,) actual rotor speeds (model unit).
            upper_vehicles: for downwash, (position (3,), prop radius, coefficients) of every
                other vehicle whose downwash acts here.
        """
        client, uav, frame = self.client_id, self.uav_id, pybullet.LINK_FRAME
        force = np.zeros(3)
        if self.ground_effect and rotation[2, 2] > 0.0:
            heights = position[2] + self.prop_positions @ rotation[2]
            extra = self.kf * speeds**2 * ground_effect_gain(
                heights, self.prop_radius, self.ground_effect_coeff, self.max_ground_gain)
            # one base wrench, as the motors apply theirs: PyBullet's link frames lag a step
            force[2] = extra.sum()
            torque = (float(self.prop_positions[:, 1] @ extra),
                      -float(self.prop_positions[:, 0] @ extra), 0.0)
            pybullet.applyExternalTorque(uav, -1, torque, frame, physicsClientId=client)
        if self.rotor_drag:
            total = float(np.sum(np.abs(speeds))) * self.speed_to_rad_s
            force += self.drag_coeffs * (air_velocity @ rotation) * total
        if self.downwash:
            vertical = 0.0
            for other, radius, coefficients in upper_vehicles:
                delta = other - position
                vertical += downwash_force(math.hypot(delta[0], delta[1]), delta[2], radius,
                                           coefficients)
            force += rotation[2] * vertical  # ground z expressed in the body frame
        if self.enabled:
            pybullet.applyExternalForce(uav, -1, force.tolist(), (0.0, 0.0, 0.0), frame,
                                        physicsClientId=client)
