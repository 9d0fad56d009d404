"""One agent step of a multirotor task over W worlds, for either engine.

Actions are clipped to [-1, 1], delayed by ``action_delay_steps``, mapped to setpoints and
held for ``physics_hz / agent_hz`` physics steps; then the task scores the step and builds
the observation:

    [task features, body-to-world rotation matrix (9, row-major), world velocity (3) [m/s],
     body rates (3) [rad/s], the last action (k)]

plus Gaussian noise of standard deviation ``observation_noise`` on every entry, clipped to
the observation space's bounds (10 m per relative coordinate, 1 per matrix entry, 30 m/s,
50 rad/s, 1 per action entry: far beyond where the tasks end an episode).
"""

from __future__ import annotations

import numpy as np
from gymnasium import spaces

from pyflyt_like.common.validation import check_choice

from ..registry import MULTIROTOR_TASK_CLASSES, load
from .actions import HoverCentredScaling, clip_actions
from .kinematics import Kinematics
from .observation import write_observations
from .options import TaskOptions
from .tasks.base import MultirotorTask

STATE_SIZE = 9 + 3 + 3  # rotation matrix, velocity, body rates
MAX_RELATIVE = 10.0  # m
MAX_SPEED = 30.0  # m/s
MAX_RATE = 50.0  # rad/s


class Episodes:
    """W episodes of ``task`` flown by ``backend`` (a BatchBackend or a PyBulletBackend).

    Args:
        task: the task over the backend's W worlds.
        backend: the engine.
        options: the checked options.
        action_name: the env's name of the action argument, for error messages.
    """

    def __init__(self, task: MultirotorTask, backend, options: TaskOptions,
                 action_name: str = "actions"):
        self.task, self.backend, self.options = task, backend, options
        self.action_name = action_name
        self.n_worlds = n = task.n_worlds
        self.action_scaling = HoverCentredScaling(backend.model, options.flight_mode,
                                                  backend.gravity)
        k = self.action_size = self.action_scaling.size
        self.observation_size = task.feature_size + STATE_SIZE + k
        duration = (options.max_duration_seconds if options.max_duration_seconds is not None
                    else task.max_duration_seconds)
        self.max_steps = max(1, round(duration * options.agent_hz))
        self.steps_per_action = options.physics_steps_per_action
        self.agent_period = 1.0 / options.agent_hz
        self.step_count = np.zeros(n, np.int64)
        self.time = np.zeros(n)
        self.last_action = np.zeros((n, k))
        # ring of pending actions: slot `_slot` holds the one due now
        self._pending = np.zeros((options.action_delay_steps + 1, n, k))
        self._slot = 0
        self._kinematics: Kinematics | None = None  # what the last observation was made of
        self.observation = np.zeros((n, self.observation_size), np.float32)
        self._no_noise = np.zeros((1, self.observation_size))
        self._all = np.ones(n, bool)
        self.high = np.concatenate((np.full(task.feature_size, MAX_RELATIVE), np.ones(9),
                                    np.full(3, MAX_SPEED), np.full(3, MAX_RATE), np.ones(k)))
        self.low = -self.high
        self._noise = options.observation_noise

    def reset(self, mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """Start new episodes in the worlds of ``mask`` ((W,) bool); the other rows of the
        returned (W, obs) observation are the last ones, unchanged."""
        self._observe(self._start(mask, rng), mask, rng)
        return self.observation

    def _start(self, mask: np.ndarray, rng: np.random.Generator) -> Kinematics:
        start_pos, start_orn = self.task.reset(mask, rng)
        seed = int(rng.integers(2**31))
        self.backend.reset(mask, start_pos, start_orn, seed, rng)
        self.step_count[mask] = 0
        self.time[mask] = 0.0
        self.last_action[mask] = 0.0
        self._pending[:, mask] = 0.0  # zero is the hover command
        kinematics = self.backend.kinematics()
        self.task.start(kinematics, mask)
        return kinematics

    def step(self, action: np.ndarray, rng: np.random.Generator,
             restart: np.ndarray | None = None):
        """Apply (W, k) actions for one agent period.

        ``action`` is a float32 or float64 (W, k) array, checked for type and shape by the
        env (:func:`.actions.check_actions`); NaN or inf are refused here, in the pass that
        clips it, before anything changes.

        ``restart`` ((W,) bool) marks worlds whose episode ended at the previous step (the
        VectorEnv's next-step autoreset): they start a new episode instead, ignoring their
        action, with reward 0, not terminated, not truncated.

        Worlds whose physics diverged in this step (the engine's ``diverged``: their state
        went non-finite and the engine put them back at their start) end their episode as a
        crash: terminated, with the task's :attr:`~.tasks.base.MultirotorTask.failure_reward`.

        Returns:
            observations (W, obs) float32, rewards (W,), terminated (W,) bool, truncated
            (W,) bool.

        Raises:
            RuntimeError: before the first :meth:`reset`.
            ValueError: NaN or inf in ``action``; nothing changed.
        """
        if self._kinematics is None:
            raise RuntimeError("step() called before reset(): call reset() first")
        if not clip_actions(action, self.last_action):
            raise ValueError(f"{self.action_name} must be finite (no NaN or inf)")
        pending = self._pending
        pending[self._slot] = self.last_action
        self._slot = (self._slot + 1) % len(pending)
        due = pending[self._slot]  # written action_delay_steps steps ago (zero at first)
        # written straight into the engine's setpoints: within its limits by construction
        self.action_scaling(due, self._kinematics.yaw, self.backend.setpoints)
        self.backend.step(self.steps_per_action)
        self.step_count += 1
        np.multiply(self.step_count, self.agent_period, out=self.time)
        kinematics = self.backend.kinematics()
        reward, terminated = self.task.evaluate(kinematics, self.time, rng)
        diverged = self.backend.diverged()
        if diverged.any():
            # scored above from the start state the engine put them back in: not earned
            reward[diverged] = self.task.failure_reward
            terminated |= diverged
        truncated = (self.step_count >= self.max_steps) & ~terminated
        if restart is not None and restart.any():
            kinematics = self._start(restart, rng)
            reward[restart] = 0.0
            terminated[restart] = False
            truncated[restart] = False
        self._observe(kinematics, self._all, rng)
        return self.observation, reward, terminated, truncated

    def _observe(self, kinematics: Kinematics, mask: np.ndarray,
                 rng: np.random.Generator) -> None:
        noise = (rng.normal(0.0, self._noise, self.observation.shape) if self._noise > 0.0
                 else self._no_noise)
        write_observations(self.task.features(kinematics, self.time), kinematics.rot,
                           kinematics.vel, kinematics.ang_vel, self.last_action, noise,
                           self.low, self.high, mask, self.observation)
        self._kinematics = kinematics


def single_spaces(episodes: Episodes) -> tuple[spaces.Box, spaces.Box]:
    """The observation and action spaces of one world (float32; actions in [-1, 1])."""
    observation = spaces.Box(episodes.low.astype(np.float32), episodes.high.astype(np.float32),
                             dtype=np.float32)
    action = spaces.Box(-1.0, 1.0, (episodes.action_size,), np.float32)
    return observation, action


def task_class(task_name: str) -> type[MultirotorTask]:
    """The class of the task ``task_name`` ("Hover", "Reach", "Track", "Land")."""
    return load(MULTIROTOR_TASK_CLASSES[check_choice("task", task_name,
                                                    tuple(MULTIROTOR_TASK_CLASSES))])


def make_task(task_name: str, n_worlds: int, options: TaskOptions) -> MultirotorTask:
    """The task ``task_name`` ("Hover", "Reach", "Track", "Land") over ``n_worlds``."""
    return task_class(task_name)(n_worlds, 1.0 / options.agent_hz)


def estimated_bytes(n_worlds: int, feature_size: int, action_size: int,
                    options: TaskOptions) -> float:
    """The env layer's memory [bytes] over ``n_worlds`` (the engine's not included): the
    observation buffer and the copy each call returns, the noise draw, the ring of pending
    actions ((delay + 1, W, k) float64), the last action, the task's per-world arrays
    (a few times its feature rows) and the (W,) temporaries of one step."""
    observation_size = feature_size + STATE_SIZE + action_size
    per_world = (4 * 2 * observation_size  # float32 buffer + the returned copy
                 + 8 * observation_size * (options.observation_noise > 0.0)
                 + 8 * action_size * (options.action_delay_steps + 3)
                 + 8 * 4 * feature_size
                 + 8 * 64)  # rotation matrices, headings, step counters, temporaries
    return float(n_worlds) * per_world
