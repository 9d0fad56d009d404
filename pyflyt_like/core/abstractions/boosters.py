"""Fuel-burning boosters (rocket motors), vectorised over their links."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pybullet

from pyflyt_like.common.validation import as_float_array

from .rigid_links import all_rigid, link_geometry

MIN_TANK_MASS = 1e-3  # kg: an empty tank keeps a sliver of mass so the link stays dynamic


class Boosters:
    """``n`` boosters, each with ignition, a lagged throttle, and a fuel tank that drains.

    Per physics period ``dt``:

    - ignition: a booster lights when its ignition command is > 0.5. A non-reignitable
      booster then stays lit until its fuel is gone; a reignitable one goes out whenever the
      command drops to <= 0.5.
    - throttle follows the command in [0, 1] through a first-order lag ``tau`` (exact
      discretisation) while lit, and falls toward 0 when not;
    - thrust = ``min_thrust + (max_thrust - min_thrust) * throttle`` [N] while lit with fuel,
      else 0, along the (optionally gimballed) ``thrust_unit`` in the booster link's frame;
    - fuel burns at ``throttle * max_fuel_rate * dt`` [kg]; the tank link's mass and inertia
      scale with the remaining fuel.

    Args:
        p: the aviary (a pybullet BulletClient).
        physics_period: seconds per physics step.
        np_random: the aviary's random generator.
        uav_id: pybullet body id.
        booster_ids: (n,) link ids where thrust acts.
        fueltank_ids: (n,) link ids of the tanks (their mass is the fuel), or ``None`` entries.
        tau: (n,) throttle lag [s], > 0.
        total_fuel_mass: (n,) full tank [kg], > 0.
        max_fuel_rate: (n,) burn rate at full throttle [kg/s], >= 0.
        max_inertia: (n, 3) principal inertia of a full tank [kg m^2].
        min_thrust: (n,) thrust while lit at zero throttle [N], >= 0.
        max_thrust: (n,) thrust at full throttle [N], >= min_thrust.
        thrust_unit: (n, 3) thrust direction in each booster link's frame.
        reignitable: (n,) whether the booster can be shut down and relit.
        noise_ratio: (n,) relative thrust noise, >= 0 (zero-mean).
    """

    def __init__(self, p, physics_period: float, np_random: np.random.Generator, uav_id: int,
                 booster_ids: Sequence[int], fueltank_ids: Sequence[int | None], tau,
                 total_fuel_mass, max_fuel_rate, max_inertia, min_thrust, max_thrust,
                 thrust_unit, reignitable, noise_ratio):
        self.client_id = p._client
        self.uav_id = int(uav_id)
        self.np_random = np_random
        self.physics_period = float(physics_period)
        self.booster_ids = [int(i) for i in booster_ids]
        n = len(self.booster_ids)
        if n == 0:
            raise ValueError("booster_ids must name at least one link")
        if len(fueltank_ids) != n:
            raise ValueError(f"fueltank_ids must have {n} entries, got {len(fueltank_ids)}")
        self.fueltank_ids = [None if i is None else int(i) for i in fueltank_ids]
        self.tau = as_float_array("tau", tau, (n,))
        self.total_fuel_mass = as_float_array("total_fuel_mass", total_fuel_mass, (n,))
        self.max_fuel_rate = as_float_array("max_fuel_rate", max_fuel_rate, (n,))
        self.max_inertia = as_float_array("max_inertia", max_inertia, (n, 3))
        self.min_thrust = as_float_array("min_thrust", min_thrust, (n,))
        self.max_thrust = as_float_array("max_thrust", max_thrust, (n,))
        unit = as_float_array("thrust_unit", thrust_unit, (n, 3))
        self.noise_ratio = as_float_array("noise_ratio", noise_ratio, (n,))
        self.reignitable = np.array(reignitable, dtype=bool).reshape(-1)
        if self.reignitable.shape != (n,):
            raise ValueError(f"reignitable must have shape ({n},), got {self.reignitable.shape}")
        if np.any(self.tau <= 0):
            raise ValueError(f"tau must be > 0 s, got {self.tau.tolist()}")
        if np.any(self.total_fuel_mass <= 0):
            raise ValueError(f"total_fuel_mass must be > 0 kg, got {self.total_fuel_mass}")
        if np.any(self.max_fuel_rate < 0):
            raise ValueError(f"max_fuel_rate must be >= 0 kg/s, got {self.max_fuel_rate}")
        if np.any(self.max_inertia < 0):
            raise ValueError("max_inertia must be >= 0")
        if np.any(self.min_thrust < 0) or np.any(self.max_thrust < self.min_thrust):
            raise ValueError("need 0 <= min_thrust <= max_thrust, got "
                             f"{self.min_thrust.tolist()} and {self.max_thrust.tolist()}")
        if np.any(self.noise_ratio < 0):
            raise ValueError(f"noise_ratio must be >= 0, got {self.noise_ratio.tolist()}")
        if np.any(np.linalg.norm(unit, axis=1) < 1e-9):
            raise ValueError("thrust_unit rows must be non-zero vectors")
        self.thrust_unit = unit / np.linalg.norm(unit, axis=1, keepdims=True)
        self._lag_gain = 1.0 - np.exp(-self.physics_period / self.tau)
        self.ignited = np.zeros(n, dtype=bool)
        self.throttle = np.zeros(n)
        self.fuel_remaining = self.total_fuel_mass.copy()
        self.thrust = np.zeros(n)
        # Boosters fixed rigidly to the base push it through one force and torque (see
        # rigid_links: per-link loads would use PyBullet's one-step-stale link frames).
        self._base_geometry = (link_geometry(self.client_id, self.uav_id, self.booster_ids)
                               if all_rigid(self.client_id, self.uav_id, self.booster_ids)
                               else None)
        self._update_tanks()

    @property
    def fuel_ratio(self) -> np.ndarray:
        """(n,) fraction of fuel left, in [0, 1]."""
        return self.fuel_remaining / self.total_fuel_mass

    def reset(self, starting_fuel_ratio: float | np.ndarray = 1.0) -> None:
        """Refuel to ``starting_fuel_ratio`` (a number or (n,), in [0, 1]) of a full tank,
        extinguish and spool down every booster."""
        ratio = as_float_array("starting_fuel_ratio", np.broadcast_to(
            starting_fuel_ratio, self.fuel_remaining.shape) if np.ndim(starting_fuel_ratio) == 0
            else starting_fuel_ratio, self.fuel_remaining.shape)
        if np.any((ratio < 0) | (ratio > 1)):
            raise ValueError(f"starting_fuel_ratio must be within [0, 1], got {ratio.tolist()}")
        self.ignited[:] = False
        self.throttle[:] = 0.0
        self.thrust[:] = 0.0
        self.fuel_remaining[:] = self.total_fuel_mass * ratio
        self._update_tanks()

    def get_states(self) -> np.ndarray:
        """Return (3n,): ignition state, fuel ratio, throttle of each booster."""
        return np.concatenate((self.ignited.astype(float), self.fuel_ratio, self.throttle))

    def state_update(self) -> None:
        """Boosters read no body state."""

    def physics_update(self, ignition: np.ndarray, pwm: np.ndarray,
                       rotation: np.ndarray | None = None) -> None:
        """Advance one physics period and apply thrust.

        Args:
            ignition: (n,) ignition commands (> 0.5 lights).
            pwm: (n,) throttle commands in [0, 1].
            rotation: optional (n, 3, 3) gimbal rotations applied to ``thrust_unit``.
        """
        light = np.asarray(ignition, dtype=float) > 0.5
        has_fuel = self.fuel_remaining > 0.0
        # Latching: a lit non-reignitable booster ignores an "off" command.
        self.ignited = (light | (self.ignited & ~self.reignitable)) & has_fuel
        target = np.where(self.ignited, np.clip(pwm, 0.0, 1.0), 0.0)
        self.throttle += self._lag_gain * (target - self.throttle)
        burn = np.where(self.ignited, self.throttle * self.max_fuel_rate * self.physics_period,
                        0.0)
        self.fuel_remaining = np.maximum(self.fuel_remaining - burn, 0.0)
        thrust = self.min_thrust + (self.max_thrust - self.min_thrust) * self.throttle
        if np.any(self.noise_ratio > 0):
            thrust = thrust * (1.0 + self.noise_ratio * self.np_random.standard_normal(thrust.size))
        self.thrust = np.where(self.ignited, thrust, 0.0)
        direction = self.thrust_unit if rotation is None else np.einsum(
            "nij,nj->ni", rotation, self.thrust_unit)
        forces = self.thrust[:, None] * direction
        if self._base_geometry is not None:  # rigid boosters: one wrench on the base
            offsets, to_base = self._base_geometry
            on_base = np.einsum("nij,nj->ni", to_base, forces)
            force = on_base.sum(axis=0).tolist()
            torque = np.cross(offsets, on_base).sum(axis=0).tolist()
            pybullet.applyExternalForce(self.uav_id, -1, force, (0.0, 0.0, 0.0),
                                        pybullet.LINK_FRAME, physicsClientId=self.client_id)
            pybullet.applyExternalTorque(self.uav_id, -1, torque, pybullet.LINK_FRAME,
                                         physicsClientId=self.client_id)
        else:
            for link, force in zip(self.booster_ids, forces.tolist()):
                pybullet.applyExternalForce(self.uav_id, link, force, (0.0, 0.0, 0.0),
                                            pybullet.LINK_FRAME, physicsClientId=self.client_id)
        if np.any(burn > 0):
            self._update_tanks()

    def _update_tanks(self) -> None:
        """Set each tank link's mass to its fuel and scale its inertia with it."""
        for tank, fuel, ratio, inertia in zip(self.fueltank_ids, self.fuel_remaining,
                                              self.fuel_ratio, self.max_inertia):
            if tank is None:
                continue
            pybullet.changeDynamics(self.uav_id, tank, mass=max(float(fuel), MIN_TANK_MASS),
                                    localInertiaDiagonal=(np.maximum(inertia * ratio, 1e-9)
                                                          ).tolist(),
                                    physicsClientId=self.client_id)
