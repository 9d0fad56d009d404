"""Bodies that feel only per-axis quadratic drag (PyFlyt's BoringBodies)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pybullet

from pyflyt_like.common.validation import as_float_array
from pyflyt_like.physics.air import AIR_DENSITY, quadratic_drag

__all__ = ["AIR_DENSITY", "BoringBodies", "base_air_velocity", "wind_at"]


class BoringBodies:
    """``n`` links that experience drag along their own x, y, z axes.

    Per body and axis i: ``F_i = -sign(v_i) * 0.5 * rho * A_i * Cd_i * v_i**2`` where ``v`` is
    the air velocity (body velocity minus wind) resolved in the link frame.

    Args:
        p: the aviary (a pybullet BulletClient).
        physics_period: seconds per physics step.
        np_random: the aviary's random generator (unused: drag is deterministic).
        uav_id: pybullet body id of the drone.
        body_ids: (n,) link ids (-1 is the base).
        drag_coefs: (n, 3) drag coefficients along each link's x, y, z.
        normal_areas: (n, 3) frontal areas [m^2] along each link's x, y, z.
    """

    def __init__(self, p, physics_period: float, np_random: np.random.Generator, uav_id: int,
                 body_ids: Sequence[int], drag_coefs, normal_areas):
        self.p = p
        self.client_id = p._client
        self.uav_id = int(uav_id)
        self.body_ids = [int(i) for i in body_ids]
        n = len(self.body_ids)
        if n == 0:
            raise ValueError("body_ids must name at least one link")
        drag_coefs = as_float_array("drag_coefs", drag_coefs, (n, 3))
        normal_areas = as_float_array("normal_areas", normal_areas, (n, 3))
        if np.any(drag_coefs < 0):
            raise ValueError(f"drag_coefs must be >= 0, got {drag_coefs.tolist()}")
        if np.any(normal_areas < 0):
            raise ValueError(f"normal_areas must be >= 0, got {normal_areas.tolist()}")
        self._half_rho_cd_a = (0.5 * AIR_DENSITY * drag_coefs * normal_areas).tolist()
        self.local_air_velocity = np.zeros((n, 3))

    def reset(self) -> None:
        """Forget the last air velocity."""
        self.local_air_velocity[:] = 0.0

    def state_update(self, rotation_matrix: np.ndarray, air_velocity: np.ndarray | None = None
                     ) -> None:
        """Store the body-frame air velocity of every body.

        Args:
            rotation_matrix: (3, 3) ground-to-body rotation of the drone's base (PyFlyt's
                convention: it takes a ground-frame vector into the body frame; the
                transpose of ``drone.rotation_matrix``), or (n, 3, 3), one per body.
            air_velocity: (3,) or (n, 3) ground-frame air velocity [m/s] of the bodies,
                i.e. body velocity minus wind. ``None`` (PyFlyt's call) reads each body's
                velocity from pybullet and subtracts the aviary's wind at its position.
        """
        if air_velocity is None:
            air_velocity = self._measured_air_velocity()
        rotation = np.asarray(rotation_matrix)
        if rotation.shape == (3, 3):
            self.local_air_velocity[:] = air_velocity @ rotation.T
        elif rotation.shape == (len(self.body_ids), 3, 3):
            air = np.broadcast_to(air_velocity, self.local_air_velocity.shape)
            self.local_air_velocity[:] = np.einsum("nij,nj->ni", rotation, air)
        else:
            raise ValueError(f"rotation_matrix must have shape (3, 3) or "
                             f"({len(self.body_ids)}, 3, 3), got {rotation.shape}")

    def _measured_air_velocity(self) -> np.ndarray:
        """(n, 3) ground-frame velocity minus wind of every body, read from pybullet."""
        client, uav = self.client_id, self.uav_id
        positions, velocities = np.zeros((len(self.body_ids), 3)), np.zeros((len(self.body_ids), 3))
        for row, link in enumerate(self.body_ids):
            if link < 0:
                positions[row] = pybullet.getBasePositionAndOrientation(
                    uav, physicsClientId=client)[0]
                velocities[row] = pybullet.getBaseVelocity(uav, physicsClientId=client)[0]
            else:
                state = pybullet.getLinkState(uav, link, computeLinkVelocity=1,
                                              physicsClientId=client)
                positions[row], velocities[row] = state[0], state[6]
        return velocities - wind_at(self.p, positions)

    def physics_update(self) -> None:
        """Apply the drag force of each body at its link origin, in the link frame."""
        uav, client, frame = self.uav_id, self.client_id, pybullet.LINK_FRAME
        for link, force in zip(self.body_ids, self.forces()):
            pybullet.applyExternalForce(uav, link, force, (0.0, 0.0, 0.0), frame,
                                        physicsClientId=client)

    def forces(self, local_air_velocity: Sequence[Sequence[float]] | None = None
               ) -> list[tuple[float, float, float]]:
        """The drag force [N] of every body along its own x, y, z axes (link frame), not
        applied: a vehicle that sums it with other loads on its base applies them once.

        Args:
            local_air_velocity: (n, 3) body-frame air velocity [m/s] of every body, kept as
                ``local_air_velocity`` (what :meth:`state_update` works out); ``None`` takes
                the last one kept.
        """
        if local_air_velocity is None:
            local_air_velocity = self.local_air_velocity.tolist()
        elif len(local_air_velocity) != len(self.body_ids):
            raise ValueError(f"local_air_velocity must have one (3,) row per body "
                             f"({len(self.body_ids)}), got {len(local_air_velocity)} rows")
        else:
            self.local_air_velocity[:] = local_air_velocity
        # A few bodies per drone: Python floats beat numpy's per-call overhead here.
        return [(quadratic_drag(vx, kx), quadratic_drag(vy, ky), quadratic_drag(vz, kz))
                for (vx, vy, vz), (kx, ky, kz) in zip(local_air_velocity, self._half_rho_cd_a)]


def wind_at(p, positions: np.ndarray) -> np.ndarray:
    """(n, 3) wind [m/s] of aviary ``p``'s wind field at (n, 3) ``positions`` [m], now."""
    wind_field = getattr(p, "wind_field", None)
    if wind_field is None:
        return np.zeros_like(positions)
    wind = np.asarray(wind_field(p.physics_steps * p.physics_period, positions), dtype=float)
    if wind.shape != positions.shape:
        raise ValueError(f"wind field must return shape {positions.shape} for "
                         f"{len(positions)} positions, got {wind.shape}")
    return wind


def base_air_velocity(p, uav_id: int) -> tuple[np.ndarray, np.ndarray]:
    """Ground-frame (air velocity [m/s], angular velocity [rad/s]) of body ``uav_id``'s base,
    read from pybullet; the air velocity is the velocity minus the wind at the base."""
    client = p._client
    position = pybullet.getBasePositionAndOrientation(uav_id, physicsClientId=client)[0]
    linear, angular = pybullet.getBaseVelocity(uav_id, physicsClientId=client)
    air = np.array(linear) - wind_at(p, np.array([position]))[0]
    return air, np.array(angular)
