"""The PyBullet path under the twin env: one Multirotor in an Aviary (W = 1)."""

from __future__ import annotations

import numpy as np

from pyflyt_like.batch.randomization import check_randomize
from pyflyt_like.core import Aviary

from ..kinematics import Kinematics, heading

# What PyBullet can change on a built body; the batched engine draws the other keys.
TWIN_RANDOMIZE_KEYS = ("mass", "inertia")


class PyBulletBackend:
    """One :class:`~pyflyt_like.core.drones.Multirotor` flown by an :class:`Aviary`.

    Args:
        drone_model: the multirotor YAML's name.
        mode: the flight mode (-1, 0 or 1).
        physics_hz: physics and controller rate [Hz] (one Aviary step per physics step).
        randomize: None, or ranges for ``mass`` and ``inertia`` (factors, as the batched
            engine's), applied with ``changeDynamics`` at every reset.
        render: open PyBullet's GUI.
    """

    def __init__(self, drone_model: str, mode: int, physics_hz: int, randomize: dict | None,
                 render: bool = False):
        self.randomize = check_randomize(randomize)
        unsupported = sorted(set(self.randomize) - set(TWIN_RANDOMIZE_KEYS))
        if unsupported:
            raise ValueError(f"randomize keys {unsupported} are drawn by the batched engine "
                             f"only; the PyBullet twin randomises {list(TWIN_RANDOMIZE_KEYS)}")
        self.aviary = Aviary(np.array([[0.0, 0.0, 1.0]]), np.zeros((1, 3)),
                             drone_type="multirotor", physics_hz=physics_hz,
                             drone_options=dict(drone_model=drone_model, control_hz=physics_hz),
                             render=render, seed=0)
        self.drone = self.aviary.drones[0]
        self.model = self.drone.model
        self.gravity = self.aviary.gravity
        self.mode = mode
        self.aviary.set_mode(mode)
        self._pos, self._rot = np.zeros((1, 3)), np.zeros((1, 3, 3))
        self._vel, self._ang_vel = np.zeros((1, 3)), np.zeros((1, 3))
        self._yaw = np.zeros(1)
        self._never_diverged = np.zeros(1, bool)
        self.setpoints = np.zeros((1, self.drone.setpoint_size_of(mode)))

    def reset(self, mask: np.ndarray, start_pos: np.ndarray, start_orn: np.ndarray,
              seed: int, rng: np.random.Generator | None = None) -> None:
        """Put the drone at rest at (1, 3) position [m] and Euler angles [rad]; ``rng``
        draws the randomised mass and inertia."""
        drone, aviary = self.drone, self.aviary
        drone.start_pos = np.array(start_pos[0], float)
        drone.start_orn = aviary.getQuaternionFromEuler(start_orn[0].tolist())
        aviary.reset(seed=seed)
        aviary.set_mode(self.mode)
        if self.randomize:
            self._randomize(rng)

    def _randomize(self, rng: np.random.Generator) -> None:
        mass, inertia = self.model.mass, np.array(self.model.inertia, float)
        if "mass" in self.randomize:
            mass *= rng.uniform(*self.randomize["mass"])
        if "inertia" in self.randomize:
            inertia *= rng.uniform(*self.randomize["inertia"], size=3)
        self.aviary.changeDynamics(self.drone.Id, -1, mass=mass,
                                   localInertiaDiagonal=inertia.tolist())

    def step(self, n_steps: int) -> None:
        """Hold :attr:`setpoints` (1, k) for ``n_steps`` physics steps."""
        self.aviary.set_setpoint(0, self.setpoints[0])
        for _ in range(n_steps):
            self.aviary.step()

    def diverged(self) -> np.ndarray:
        """(1,) False: a non-finite PyBullet state raises
        :class:`~pyflyt_like.common.validation.NumericalError` from :meth:`step` instead."""
        return self._never_diverged

    def kinematics(self) -> Kinematics:
        drone = self.drone
        self._pos[0] = drone.state[3]
        self._rot[0] = drone.rotation_matrix
        self._vel[0] = drone.world_velocity
        self._ang_vel[0] = drone.state[0]
        self._yaw[0] = heading(self._rot[0])
        return Kinematics(self._pos, self._rot, self._vel, self._ang_vel, self._yaw)

    def show(self, pos: np.ndarray, quat: np.ndarray) -> None:
        """Place the drone at ``pos`` (3,) [m] with ``quat`` (4,) (x, y, z, w), for pictures."""
        self.aviary.resetBasePositionAndOrientation(self.drone.Id, pos.tolist(), quat.tolist())

    def close(self) -> None:
        self.aviary.close()
