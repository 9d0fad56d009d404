"""What every multirotor task defines, over arrays of W worlds (one drone each).

A task samples the start of the episodes it resets, gives the task part of the observation
(targets relative to the drone) and scores each agent step. The same object serves the
batched VectorEnv (W worlds) and the PyBullet twin (W = 1), so both share one definition of
observation, reward and termination.
"""

from __future__ import annotations

from abc import ABC, abstractmethod

import numpy as np

from ..kinematics import Kinematics

MIN_ALTITUDE = 0.05  # m: a flying task ends below this centre-of-mass height (a crash)


class MultirotorTask(ABC):
    """Base of Hover, Reach, Track and Land.

    Args:
        n_worlds: W.
        agent_period: seconds per agent step.
    """

    max_duration_seconds: float  # default episode length [s]
    feature_size: int  # length of :meth:`features`' rows
    #: The reward of a step whose physics diverged (the engine put the world back at its
    #: start, so :meth:`evaluate` scored a state the drone never flew to): nothing earned,
    #: neither progress nor a bonus; the lowest reward of Hover and Track, a standstill of
    #: Reach and Land. The episode ends there, as a crash.
    failure_reward: float = 0.0

    def __init__(self, n_worlds: int, agent_period: float):
        self.n_worlds = n_worlds
        self.agent_period = agent_period
        self.features_buffer = np.zeros((n_worlds, self.feature_size))

    @abstractmethod
    def reset(self, mask: np.ndarray, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        """New episodes in the worlds of ``mask`` ((W,) bool): draw their targets.

        Returns:
            start positions (m, 3) [m] and start Euler angles (m, 3) [rad] of the m masked
            worlds, in world order.
        """

    def start(self, kinematics: Kinematics, mask: np.ndarray) -> None:  # noqa: B027 (a hook)
        """After the engine put the masked worlds at their start: initialise what the
        reward compares against (e.g. the previous distance). Default: nothing."""

    @abstractmethod
    def features(self, kinematics: Kinematics, time: np.ndarray) -> np.ndarray:
        """(W, feature_size) task observation at ``time`` ((W,) [s] since each reset)."""

    @abstractmethod
    def evaluate(self, kinematics: Kinematics, time: np.ndarray,
                 rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        """Score the step that ended at ``time``: (W,) rewards and (W,) bool terminations."""

    def info(self) -> dict[str, np.ndarray]:
        """(W,) arrays describing the last step, by name. Default: none."""
        return {}


def row_norms(vectors: np.ndarray) -> np.ndarray:
    """(W,) Euclidean norms of the rows of (W, 3) ``vectors`` (np.linalg.norm's axis=1
    path costs three times as much at thousands of rows)."""
    return np.sqrt(np.einsum("ij,ij->i", vectors, vectors))


def upside_down_or_low(kinematics: Kinematics) -> np.ndarray:
    """(W,) bool: the body z axis points down, or the drone is below :data:`MIN_ALTITUDE`."""
    return (kinematics.rot[:, 2, 2] < 0.0) | (kinematics.pos[:, 2] < MIN_ALTITUDE)


def uniform_in_box(rng: np.random.Generator, low, high, count: int) -> np.ndarray:
    """(count, 3) points uniform in the box [low, high] (two (3,) corners)."""
    low = np.asarray(low, float)
    return low + rng.random((count, 3)) * (np.asarray(high, float) - low)
