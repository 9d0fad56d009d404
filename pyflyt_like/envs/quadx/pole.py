"""The pole of the QuadX-Pole tasks: a rod on a ball joint atop the drone, and the task glue.

:class:`Pole` is the body: loaded once, joined to the drone's top by a point-to-point
constraint, put back upright on every reset, read once per env step. :class:`PoleTask` is
the mixin a task puts ahead of its bases to carry a pole: it loads it, appends the pole
state to the attitude vector (so every observation built from ``self.attitude`` carries
it), re-erects it on reset and judges a fall.
"""

from __future__ import annotations

import math

import numpy as np
import pybullet
from gymnasium import spaces

from pyflyt_like.common.loading import MODELS_DIR

from ..base.env_common import FAILURE_PENALTY

POLE_URDF = MODELS_DIR / "scene" / "pole" / "pole.urdf"
POLE_STATE_SIZE = 12  # entries of Pole.state
POLE_SPEED_BOUND = 30.0  # m/s, bound of the pole-end velocities in the observation
FALLEN_LEAN = math.pi / 2  # rad, a pole leaning past horizontal has fallen
LEAN_PENALTY_GAIN = 1.0  # dense reward lost per radian of lean, per env step


class Pole:
    """A uniform rod standing on the drone, its lower end on a ball joint at the drone's top.

    The pivot ("mount") is the highest point of the drone's collision geometry above its
    centre of mass, with the drone level. Collisions between the pole and the drone are
    disabled, so the pole can never make the drone crash; it still collides with the floor
    and the task's other bodies.

    Args:
        aviary: the Aviary to load the pole into (before ``register_all_new_bodies``).
        drone: the drone carrying it.

    Attributes (valid after :meth:`reset` / :meth:`update`):
        state: (12,) body-frame pole state, see :meth:`update`.
        lean: angle of the pole's axis from the world vertical [rad], in [0, pi].
        length: rod length [m], from the URDF.
        mount: (3,) pivot in the drone's centre-of-mass frame [m].
    """

    def __init__(self, aviary, drone):
        client = aviary._client
        self.client, self.drone = client, drone
        # Bullet would otherwise recompute the inertia from the collision box and turn the
        # cylinder into a mesh with a collision margin.
        self.Id = pybullet.loadURDF(
            str(POLE_URDF), drone.state[3].tolist(), (0.0, 0.0, 0.0, 1.0),
            flags=pybullet.URDF_USE_INERTIA_FROM_FILE | pybullet.URDF_USE_IMPLICIT_CYLINDER,
            physicsClientId=client)
        # The rod is uniform, so its centre of mass is halfway up from the pivot frame.
        self.half_length = float(pybullet.getDynamicsInfo(self.Id, -1,
                                                          physicsClientId=client)[3][2])
        self.length = 2.0 * self.half_length
        # Bullet's default damping would slow the fall below a rigid rod's; air drag on a
        # 5 mm rod is negligible at these speeds.
        pybullet.changeDynamics(self.Id, -1, linearDamping=0.0, angularDamping=0.0,
                                physicsClientId=client)
        self.mount = self._drone_top()
        for link in range(-1, pybullet.getNumJoints(drone.Id, physicsClientId=client)):
            pybullet.setCollisionFilterPair(drone.Id, self.Id, link, -1, 0,
                                            physicsClientId=client)
        self.constraint = pybullet.createConstraint(
            drone.Id, -1, self.Id, -1, pybullet.JOINT_POINT2POINT, (0.0, 0.0, 0.0),
            self.mount.tolist(), (0.0, 0.0, -self.half_length), physicsClientId=client)

        position_bound = 2.0 * (self.length + float(np.linalg.norm(self.mount)))
        self.state_high = np.concatenate([np.full(6, position_bound),
                                          np.full(6, POLE_SPEED_BOUND)])
        self.state_low = -self.state_high
        self.state = np.zeros(POLE_STATE_SIZE)
        self.lean = 0.0
        self._state_rows = self.state.reshape(4, 3)  # a view: bottom, top, their velocities
        self.reset()

    def _drone_top(self) -> np.ndarray:
        """(3,) highest collision point of the level drone above its centre of mass [m]."""
        drone, client = self.drone, self.client
        position, orientation = pybullet.getBasePositionAndOrientation(drone.Id,
                                                                       physicsClientId=client)
        pybullet.resetBasePositionAndOrientation(drone.Id, position, (0.0, 0.0, 0.0, 1.0),
                                                 physicsClientId=client)
        top = max(pybullet.getAABB(drone.Id, link, physicsClientId=client)[1][2]
                  for link in range(-1, pybullet.getNumJoints(drone.Id,
                                                              physicsClientId=client)))
        pybullet.resetBasePositionAndOrientation(drone.Id, position, orientation,
                                                 physicsClientId=client)
        return np.array([0.0, 0.0, top - position[2]])

    def reset(self, lean: float = 0.0, azimuth: float = 0.0) -> None:
        """Stand the pole on the drone's mount, at rest, leaning ``lean`` [rad] from vertical.

        Call it with the drone at rest (as after an aviary reset); the drone may be tilted.

        Args:
            lean: angle from the world vertical [rad] (0: upright).
            azimuth: world heading the top leans toward [rad] (0: +x).
        """
        if not (math.isfinite(lean) and math.isfinite(azimuth)):
            raise ValueError(f"lean and azimuth must be finite, got {lean!r}, {azimuth!r}")
        drone = self.drone
        axis = np.array([math.sin(lean) * math.cos(azimuth),
                         math.sin(lean) * math.sin(azimuth), math.cos(lean)])
        centre = drone.state[3] + drone.rotation_matrix @ self.mount + self.half_length * axis
        # Rotate the pole's +z onto the axis about the horizontal line normal to the azimuth.
        half = 0.5 * lean
        quaternion = (-math.sin(azimuth) * math.sin(half), math.cos(azimuth) * math.sin(half),
                      0.0, math.cos(half))
        pybullet.resetBasePositionAndOrientation(self.Id, centre.tolist(), quaternion,
                                                 physicsClientId=self.client)
        pybullet.resetBaseVelocity(self.Id, (0.0, 0.0, 0.0), (0.0, 0.0, 0.0),
                                   physicsClientId=self.client)
        self.update()

    def update(self) -> None:
        """Read the pole once (call once per env step, before reward and observation).

        ``state`` becomes, all in the drone's body frame (FLU) and relative to the drone's
        centre of mass, each clipped to ``[state_low, state_high]``:
        bottom-end position (3) [m], top-end position (3) [m], bottom-end velocity (3)
        [m/s], top-end velocity (3) [m/s] (velocities are the ground-frame differences from
        the drone's velocity, rotated into the body frame).
        """
        client, drone = self.client, self.drone
        (cx, cy, cz), quaternion = pybullet.getBasePositionAndOrientation(
            self.Id, physicsClientId=client)
        (vx, vy, vz), (wx, wy, wz) = pybullet.getBaseVelocity(self.Id, physicsClientId=client)
        r = pybullet.getMatrixFromQuaternion(quaternion)
        ax, ay, az = r[2], r[5], r[8]  # the pole's axis (third column) in the world
        self.lean = math.atan2(math.hypot(ax, ay), az)
        # Scalar arithmetic on the 3-vectors: a dozen small numpy operations here cost twice
        # as much as this whole method.
        half = self.half_length
        ax, ay, az = half * ax, half * ay, half * az  # centre to top
        sx, sy, sz = wy * az - wz * ay, wz * ax - wx * az, wx * ay - wy * ax  # top's swing
        px, py, pz = drone.state[3].tolist()
        ux, uy, uz = drone.world_velocity.tolist()
        cx, cy, cz, vx, vy, vz = cx - px, cy - py, cz - pz, vx - ux, vy - uy, vz - uz
        ends = ((cx - ax, cy - ay, cz - az), (cx + ax, cy + ay, cz + az),
                (vx - sx, vy - sy, vz - sz), (vx + sx, vy + sy, vz + sz))
        # Row vectors times R are R^T v: ground frame to body frame.
        np.dot(ends, drone.rotation_matrix, out=self._state_rows)
        np.minimum(np.maximum(self.state, self.state_low, out=self.state), self.state_high,
                   out=self.state)


class PoleAttitudeObserver:
    """The attitude vector with the (12,) pole state appended; stands in for the env's observer.

    Args:
        attitude: the env's :class:`~pyflyt_like.envs.base.attitude_observation.AttitudeObserver`.
        pole: the pole whose (already updated) state is appended.
    """

    def __init__(self, attitude, pole: Pole):
        self.attitude, self.pole = attitude, pole
        base = attitude.space
        self.space = spaces.Box(np.concatenate([base.low, pole.state_low]),
                                np.concatenate([base.high, pole.state_high]), dtype=np.float64)

    @property
    def size(self) -> int:
        """Length of the vector."""
        return self.space.shape[0]

    def observe(self, action: np.ndarray) -> np.ndarray:
        """Return a new (size,) vector: attitude for ``action`` ⊕ pole state."""
        return np.concatenate((self.attitude.observe(action), self.pole.state))


class PoleTask:
    """Mixin for a QuadX task with a pole: put it ahead of the task's other bases.

    The task sets ``self.pole_fall_ends_episode`` (bool) before the base constructor runs,
    calls ``self.pole.update()`` at the start of its ``task_reward`` and passes its reward
    through :meth:`judge_pole`.
    """

    pole_fall_ends_episode: bool

    def add_task_bodies(self) -> None:
        super().add_task_bodies()
        self.pole = Pole(self.aviary, self.drone)
        self.attitude = PoleAttitudeObserver(self.attitude, self.pole)

    def reset_task(self) -> None:
        super().reset_task()
        self.pole.reset()

    def refresh_task_bodies(self) -> None:
        super().refresh_task_bodies()
        self.pole.update()  # read again before the reward, so this changes no step's outcome

    def lean_penalty(self) -> float:
        """Dense reward lost this step for the pole's lean."""
        return LEAN_PENALTY_GAIN * self.pole.lean

    def judge_pole(self, reward: float) -> float:
        """Return ``reward``, or -100 if the pole has fallen and that ends the episode.

        A fallen pole (lean > pi/2) sets ``info["pole_fell"]`` on every step it stays down.
        """
        if self.pole.lean <= FALLEN_LEAN:
            return reward
        self.info["pole_fell"] = True
        if self.pole_fall_ends_episode:
            self.termination = True
            return FAILURE_PENALTY
        return reward

