"""Rotor aerodynamic effects of multirotors as a PyBullet component: ground effect, rotor
drag, downwash. Switchable per vehicle; all off by default. The formulas and their
derivation are in :mod:`pyflyt_like.physics.rotor_aerodynamics`.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

import numpy as np
import pybullet

from pyflyt_like.common.multirotor_model import MAX_GROUND_GAIN, RPM_TO_RAD_S  # noqa: F401
from pyflyt_like.common.validation import as_float_array, check_bool, check_positive_float
from pyflyt_like.physics.rotor_aerodynamics import (
    downwash_force,
    ground_effect_gain,
    ground_effect_min_height,
)


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
        self.ground_min_height = ground_effect_min_height(
            self.prop_radius, self.ground_effect_coeff, self.max_ground_gain)
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
            gains = [ground_effect_gain(h, self.prop_radius, self.ground_effect_coeff,
                                        self.ground_min_height) for h in heights.tolist()]
            extra = self.kf * speeds**2 * np.array(gains)
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
                                           *coefficients)
            force += rotation[2] * vertical  # ground z expressed in the body frame
        if self.enabled:
            pybullet.applyExternalForce(uav, -1, force.tolist(), (0.0, 0.0, 0.0), frame,
                                        physicsClientId=client)
