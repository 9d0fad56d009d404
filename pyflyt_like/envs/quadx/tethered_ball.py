"""TetheredBall: a ball on a string hanging from a drone (QuadX-Ball-In-Cup).

The string is inextensible but cannot push. The ball rides a prismatic joint on a light,
shapeless swivel whose frame is the string's upper end; a point-to-point constraint pins
that end under the drone, so the swivel turns freely about it. The joint's upper limit is
the string length. Bullet solves a joint limit as a one-sided constraint at every physics
step, so the string holds the ball at full length when pulled and goes slack whenever the
ball comes closer (the ball then flies ballistically), with no per-step force code.

Why not a chain of rigid links on spherical joints: hanging straight, such a chain pushed
along its axis is a column; a ball thrown straight up is held at full length instead of
rising, i.e. it behaves as a rod exactly in the rest pose every episode starts from.
"""

from __future__ import annotations

import numpy as np
import pybullet

from pyflyt_like.common.loading import MODELS_DIR

TETHER_URDF = MODELS_DIR / "scene" / "ball_in_cup" / "tethered_ball.urdf"
STRING_JOINT = 0  # the prismatic joint; its child link is the ball
BALL_LINK = 0
HANGING = (0.0, 0.0, 0.0, 1.0)  # swivel orientation whose -z axis points straight down


class TetheredBall:
    """The ball and string, pinned to ``drone`` at ``attach_point``.

    Args:
        drone: the vehicle carrying the string (a DroneClass, already in its aviary).
        attach_point: (3,) upper end of the string in the drone's body frame [m].

    Attributes:
        body_id: the PyBullet body of swivel and ball (the ball is its only collider).
        string_length: [m], from the URDF joint's upper limit.
        ball_radius: [m], from the URDF collision sphere.
        position: (3,) ball centre relative to the drone's base, body frame [m], as of the
            last :meth:`update`.
        velocity: (3,) ball velocity minus the drone's, ground-frame difference expressed
            in the body frame [m/s], as of the last :meth:`update`.
    """

    def __init__(self, drone, attach_point):
        self.drone = drone
        self.client = drone.client_id
        self.attach_point = np.asarray(attach_point, dtype=np.float64)
        client = self.client
        self.body_id: int = pybullet.loadURDF(str(TETHER_URDF), [0.0, 0.0, 0.0], HANGING,
                                              flags=pybullet.URDF_USE_INERTIA_FROM_FILE,
                                              physicsClientId=client)
        self.string_length = float(pybullet.getJointInfo(self.body_id, STRING_JOINT,
                                                         physicsClientId=client)[9])
        self.ball_radius = float(pybullet.getCollisionShapeData(
            self.body_id, BALL_LINK, physicsClientId=client)[0][3][0])
        for link in (-1, BALL_LINK):
            # Bullet's default link damping would slow the ball's free flight.
            pybullet.changeDynamics(self.body_id, link, linearDamping=0.0, angularDamping=0.0,
                                    physicsClientId=client)
        # A URDF joint starts with a velocity motor that would act as friction on the string.
        pybullet.setJointMotorControl2(self.body_id, STRING_JOINT, pybullet.VELOCITY_CONTROL,
                                       force=0.0, physicsClientId=client)
        pybullet.createConstraint(drone.Id, -1, self.body_id, -1, pybullet.JOINT_POINT2POINT,
                                  (0.0, 0.0, 0.0), self.attach_point.tolist(), (0.0, 0.0, 0.0),
                                  physicsClientId=client)
        self.position = np.zeros(3)
        self.velocity = np.zeros(3)
        self.reset()

    def attach_point_world(self) -> np.ndarray:
        """(3,) ground-frame position of the string's upper end [m]."""
        drone = self.drone
        return drone.state[3] + drone.rotation_matrix @ self.attach_point

    def reset(self) -> None:
        """Hang the ball at rest straight below the attachment point, string taut."""
        client = self.client
        pybullet.resetBasePositionAndOrientation(self.body_id, self.attach_point_world().tolist(),
                                                 HANGING, physicsClientId=client)
        pybullet.resetBaseVelocity(self.body_id, (0.0, 0.0, 0.0), (0.0, 0.0, 0.0),
                                   physicsClientId=client)
        pybullet.resetJointState(self.body_id, STRING_JOINT, self.string_length, 0.0,
                                 physicsClientId=client)
        self.update()

    def update(self) -> None:
        """Read the ball's state into ``position`` and ``velocity`` (one PyBullet call)."""
        link = pybullet.getLinkState(self.body_id, BALL_LINK, computeLinkVelocity=1,
                                     computeForwardKinematics=1, physicsClientId=self.client)
        drone = self.drone
        rotation = drone.rotation_matrix
        # Row vector times R is R^T times the vector: ground frame -> body frame.
        np.matmul(np.subtract(link[0], drone.state[3]), rotation, out=self.position)
        np.matmul(np.subtract(link[6], drone.world_velocity), rotation, out=self.velocity)
