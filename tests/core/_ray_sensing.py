"""Helpers shared by the PyBullet ray-sensor tests (LiDAR and depth camera): an Aviary whose
drones carry the sensors among a world's obstacles, and a drone put at a pose."""

from __future__ import annotations

import numpy as np
import pybullet

from pyflyt_like.core import Aviary
from pyflyt_like.worlds import World


def sensing_aviary(sensors, positions, orientations=None, *, physics_hz: int,
                   drone_type: str = "quadx", seed: int = 0, world: object = None) -> Aviary:
    """Drones at ``positions`` (N, 3) [m] carrying ``sensors``, one physics step per
    ``aviary.step()`` (QuadX), among the obstacles of ``world`` (spawned before the first
    reset, so the sample at t = 0 sees them; an empty World spawns nothing)."""
    positions = np.array(positions, dtype=float)
    orientations = np.zeros_like(positions) if orientations is None else np.array(
        orientations, dtype=float)
    options = {"sensors": sensors}
    if drone_type == "quadx":
        options["control_hz"] = physics_hz
    return Aviary(start_pos=positions, start_orn=orientations, drone_type=drone_type,
                  physics_hz=physics_hz, seed=seed, drone_options=options,
                  world=None if isinstance(world, World) and not len(world) else world)


def place(aviary, position, quat) -> tuple[tuple, tuple]:
    """Put drone 0 at ``position`` with attitude ``quat`` (x, y, z, w); returns the pose
    Bullet holds (the sensors read it at each cast)."""
    client, body = aviary._client, aviary.drones[0].Id
    pybullet.resetBasePositionAndOrientation(body, list(position), list(quat),
                                             physicsClientId=client)
    return pybullet.getBasePositionAndOrientation(body, physicsClientId=client)
