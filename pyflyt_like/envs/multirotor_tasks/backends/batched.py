"""The batched engine under the VectorEnv: W worlds of one drone each."""

from __future__ import annotations

import numpy as np

from pyflyt_like.batch import BatchedAviary

from ..kinematics import Kinematics, quat_to_rotation


class BatchBackend:
    """:class:`~pyflyt_like.batch.BatchedAviary` seen as W drones.

    Args:
        n_worlds: W.
        drone_model: the multirotor YAML's name.
        mode: the engine's flight mode (-1, 0 or 1).
        physics_hz: physics rate [Hz]; the controllers run at the same rate (unless the
            YAML's ``mode_hz`` says otherwise), as in the PyBullet twin.
        randomize: the engine's per-world parameter ranges, or None.
    """

    def __init__(self, n_worlds: int, drone_model: str, mode: int, physics_hz: int,
                 randomize: dict | None):
        self.sim = BatchedAviary(n_worlds=n_worlds, n_drones=1, drone_model=drone_model,
                                 mode=mode, physics_hz=physics_hz, control_hz=physics_hz,
                                 randomize=randomize)
        self.model = self.sim.model
        self.gravity = self.sim.gravity
        self._rot, self._yaw = np.zeros((n_worlds, 3, 3)), np.zeros(n_worlds)
        sim = self.sim
        # the trusted path: the action scaling writes the engine's setpoints in place
        self.setpoints = sim.setpoint_buffer[:, 0]
        # views of the engine's (W, 1, .) state arrays: they stay valid across steps
        self._pos, self._quat = sim.pos[:, 0], sim.quat[:, 0]
        self._vel, self._ang_vel = sim.vel[:, 0], sim.ang_vel[:, 0]

    def reset(self, mask: np.ndarray, start_pos: np.ndarray, start_orn: np.ndarray,
              seed: int, rng: np.random.Generator) -> None:
        """Put the masked worlds at rest at (m, 3) positions [m] and Euler angles [rad];
        ``seed`` reseeds the engine's generator (randomisation) when all worlds reset (the
        engine draws with its own generator, not ``rng``)."""
        self.sim.start_pos[mask, 0] = start_pos
        self.sim.start_orn[mask, 0] = start_orn
        self.sim.reset(mask, seed=seed if mask.all() else None)

    def step(self, n_steps: int) -> None:
        """Hold :attr:`setpoints` ((W, k), the engine's own array: valid by construction of
        the action scaling, so not checked again) for ``n_steps`` physics steps, in one
        compiled call."""
        self.sim.step(n_steps)

    def diverged(self) -> np.ndarray:
        """(W,) bool, read-only: the worlds whose state went non-finite in the last
        :meth:`step` (the engine put them back at their start state within that step)."""
        return self.sim.diverged

    def kinematics(self) -> Kinematics:
        rot = quat_to_rotation(self._quat, self._rot, self._yaw)
        return Kinematics(self._pos, rot, self._vel, self._ang_vel, self._yaw)

    def close(self) -> None:
        """Nothing to release."""
