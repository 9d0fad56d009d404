"""MountedCup: an open cup fixed on top of a drone (QuadX-Ball-In-Cup).

The cup is its own light body held to the drone by a fixed constraint, with collisions
between the two switched off, so the drone's URDF stays the plain vehicle's and the cup's
mass and inertia ride along through the constraint. Its interior is a cylinder in the
cup's frame, which is the drone's body frame shifted to the mount point.
"""

from __future__ import annotations

import numpy as np
import pybullet

from pyflyt_like.common.loading import MODELS_DIR

CUP_URDF = MODELS_DIR / "scene" / "ball_in_cup" / "cup.urdf"
CUP_INNER_RADIUS = 0.025  # m, axis to the inner face of the wall (cup.urdf)
CUP_RIM_HEIGHT = 0.035  # m, rim above the cup's frame (cup.urdf)


class MountedCup:
    """The cup, fixed to ``drone`` with its frame at ``mount_point``, axis along body z.

    Args:
        drone: the vehicle carrying the cup (a DroneClass, already in its aviary).
        mount_point: (3,) cup frame origin (underside of its floor) in the body frame [m].

    Attributes:
        body_id: the PyBullet body of the cup.
        mouth: (3,) centre of the rim circle in the drone's body frame [m].
    """

    def __init__(self, drone, mount_point):
        self.drone = drone
        self.client = drone.client_id
        self.mount_point = np.asarray(mount_point, dtype=np.float64)
        self.mouth = self.mount_point + (0.0, 0.0, CUP_RIM_HEIGHT)
        client = self.client
        self.body_id: int = pybullet.loadURDF(str(CUP_URDF), self.mount_point.tolist(),
                                              flags=pybullet.URDF_USE_INERTIA_FROM_FILE,
                                              physicsClientId=client)
        # The cup sits on the drone's collision shape; touching it is being bolted to it.
        for link in range(-1, pybullet.getNumJoints(drone.Id, physicsClientId=client)):
            pybullet.setCollisionFilterPair(drone.Id, self.body_id, link, -1, 0,
                                            physicsClientId=client)
        pybullet.changeDynamics(self.body_id, -1, linearDamping=0.0, angularDamping=0.0,
                                physicsClientId=client)
        # The cup's frame is offset from its centre of mass; Bullet's constraint frames on
        # a base are relative to the centre of mass.
        com = np.array(pybullet.getDynamicsInfo(self.body_id, -1, physicsClientId=client)[3])
        pybullet.createConstraint(drone.Id, -1, self.body_id, -1, pybullet.JOINT_FIXED,
                                  (0.0, 0.0, 0.0), self.mount_point.tolist(), (-com).tolist(),
                                  physicsClientId=client)
        # PyBullet places a base by its centre of mass: the cup's is here in the body frame.
        self._com_point = self.mount_point + com
        self.reset()

    def reset(self) -> None:
        """Put the cup on its mount at the drone's current pose, moving with the drone."""
        drone = self.drone
        rotation = drone.rotation_matrix
        position = drone.state[3] + rotation @ self._com_point
        velocity = drone.world_velocity + rotation @ np.cross(drone.state[0], self._com_point)
        pybullet.resetBasePositionAndOrientation(self.body_id, position.tolist(),
                                                 drone.quaternion, physicsClientId=self.client)
        pybullet.resetBaseVelocity(self.body_id, velocity.tolist(),
                                   (rotation @ drone.state[0]).tolist(),
                                   physicsClientId=self.client)

    def holds(self, point: np.ndarray) -> bool:
        """True if ``point`` (body frame [m], e.g. the ball's centre) is inside the cup:
        within the inner radius of its axis and between its floor and its rim."""
        x, y, z = point - self.mount_point
        return x * x + y * y < CUP_INNER_RADIUS ** 2 and 0.0 < z < CUP_RIM_HEIGHT
