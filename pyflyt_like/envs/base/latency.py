"""Observation and action delays of the single-agent PyBullet tasks (docs/envs.md, "Latency").

Every delay is counted on one clock, the aviary's physics steps since the last reset. With
``N`` physics steps per agent step, agent step ``t`` runs from physics time ``t N`` to
``(t + 1) N``, and the options combine into two totals:

- action delay ``D_a = action_delay_steps * N + action_delay_physics_steps``: the action
  given at agent step ``t`` is handed to the vehicle at physics time ``t N + D_a``, i.e. just
  before physics step ``t N + D_a`` runs; until the first one arrives the vehicle flies the
  zero action (as the vector tasks, whose ring of pending actions starts as zeros);
- observation delay ``D_o = observation_delay_steps * N + observation_delay_physics_steps``:
  the observation returned at the end of agent step ``t`` is the one the env made at physics
  time ``(t + 1) N - D_o``, or the reset observation if that time is <= 0.

A time on an agent-step boundary needs nothing inside the aviary's loop: the action is set
before the loop, the observation is the end-of-step one kept from an earlier step. A time
between boundaries is reached through a hook run after every physics step (the drone's
``update_last``, wrapped per instance, as the vehicle's own sensors are), installed only
when a physics-step delay asks for it, so an env without delays runs exactly as before.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from typing import Any

import numpy as np

from pyflyt_like.common.validation import check_int

from .task_options import MAX_ACTION_DELAY_STEPS

MAX_DELAY_STEPS = MAX_ACTION_DELAY_STEPS  # agent steps: the vector tasks' bound
MAX_DELAY_PHYSICS_STEPS = 100_000  # physics steps: ~7 min at 240 Hz, beyond any episode

DELAY_OPTIONS = {"observation_delay_steps": MAX_DELAY_STEPS,
                 "action_delay_steps": MAX_DELAY_STEPS,
                 "observation_delay_physics_steps": MAX_DELAY_PHYSICS_STEPS,
                 "action_delay_physics_steps": MAX_DELAY_PHYSICS_STEPS}


def check_delay_options(**delays: object) -> dict[str, int]:
    """Return the four delay options checked, by name.

    Raises:
        TypeError: a delay is not an int (bools and floats are refused), naming it.
        ValueError: a delay is negative or above its bound, naming it and the range.
    """
    checked = {}
    for name, value in delays.items():
        if name not in DELAY_OPTIONS:
            raise TypeError(f"unknown delay option {name!r}; delays are {list(DELAY_OPTIONS)}")
        delay = check_int(name, value)
        bound = DELAY_OPTIONS[name]
        if not 0 <= delay <= bound:
            unit = "agent steps" if name.endswith("_delay_steps") else "physics steps"
            raise ValueError(f"{name} must be an int in [0, {bound}] ({unit}), got {delay}")
        checked[name] = delay
    return checked


def copy_observation(observation: Any) -> Any:
    """A deep copy of an observation (arrays, dicts and tuples of them), so a kept one is not
    changed by a caller writing into what it was given."""
    if isinstance(observation, dict):
        return {key: copy_observation(value) for key, value in observation.items()}
    if isinstance(observation, tuple):
        return tuple(copy_observation(value) for value in observation)
    if isinstance(observation, np.ndarray):
        return observation.copy()
    return observation


class Latency:
    """The pending actions and past observations of one env with delays.

    Args:
        drone: the vehicle the agent flies (its ``set_setpoint`` receives the actions; its
            ``update_last`` is wrapped when a delay falls between agent steps).
        physics_steps_per_action: N, physics steps per agent step.
        zero_setpoint: the setpoint of the zero action, flown until the first action arrives.
        observe: the env's observation function, called mid-step for a physics-step
            observation delay.
        before_observe: called just before such a mid-step ``observe`` (refreshes task bodies
            whose state the env otherwise reads once per agent step).
        delays: the four checked delay options (:func:`check_delay_options`).
    """

    def __init__(self, drone, physics_steps_per_action: int, zero_setpoint: np.ndarray,
                 observe: Callable[[], Any], before_observe: Callable[[], None],
                 delays: dict[str, int]):
        n = int(physics_steps_per_action)
        self.drone = drone
        self.physics_steps_per_action = n
        self.zero_setpoint = np.array(zero_setpoint, dtype=np.float64)
        self.action_delay = delays["action_delay_steps"] * n + delays["action_delay_physics_steps"]
        self.observation_delay = (delays["observation_delay_steps"] * n
                                  + delays["observation_delay_physics_steps"])
        self._observe, self._before_observe = observe, before_observe
        self._mid_step_actions = self.action_delay % n != 0
        self._mid_step_observations = self.observation_delay % n != 0
        self._pending: deque[tuple[int, np.ndarray]] = deque()  # (due time, setpoint)
        self._observations: deque[tuple[int, Any]] = deque()  # (physics time, observation)
        self._reset_observation: Any = None
        self._step = 0
        if self._mid_step_actions or self._mid_step_observations:
            inner = drone.update_last

            def update_last(physics_step: int) -> None:
                inner(physics_step)  # the vehicle's own work (sensors, camera) comes first
                self._after_physics_step(physics_step + 1)

            drone.update_last = update_last

    @property
    def active(self) -> bool:
        """True if any delay is non-zero."""
        return self.action_delay > 0 or self.observation_delay > 0

    def reset(self, observation: Any) -> None:
        """Start an episode whose reset observation is ``observation``; the vehicle flies the
        zero action from physics time 0 while actions are delayed."""
        self._pending.clear()
        self._observations.clear()
        self._reset_observation = copy_observation(observation)
        self._step = 0
        if self.action_delay:
            self.drone.set_setpoint(self.zero_setpoint)

    def send(self, setpoint: np.ndarray) -> None:
        """Queue the setpoint of this agent step's action; hand over what is due now."""
        start = self._step * self.physics_steps_per_action
        self._pending.append((start + self.action_delay, np.array(setpoint, dtype=np.float64)))
        self._hand_over(start)

    def receive(self, observation: Any) -> Any:
        """Keep ``observation`` (made at the end of this agent step) and return the delayed
        observation due now; then move on to the next agent step."""
        n = self.physics_steps_per_action
        end = (self._step + 1) * n
        self._step += 1
        if not self.observation_delay:
            return observation
        if not self._mid_step_observations:
            self._observations.append((end, copy_observation(observation)))
        due = end - self.observation_delay
        while self._observations and self._observations[0][0] < due:
            self._observations.popleft()
        if due <= 0:
            return copy_observation(self._reset_observation)
        time, kept = self._observations.popleft()
        if time != due:  # cannot happen: one observation is kept per agent step
            raise RuntimeError(f"latency: no observation kept for physics time {due}")
        return kept

    # ----------------------------------------------------------------- inside the step
    def _hand_over(self, now: int) -> None:
        """Give the vehicle the latest pending setpoint due at or before physics time ``now``."""
        due = None
        while self._pending and self._pending[0][0] <= now:
            due = self._pending.popleft()[1]
        if due is not None:
            self.drone.set_setpoint(due)

    def _after_physics_step(self, now: int) -> None:
        """After the physics step that ends at physics time ``now``."""
        if self._mid_step_actions:
            self._hand_over(now)
        if self._mid_step_observations and (now + self.observation_delay) \
                % self.physics_steps_per_action == 0:
            self._before_observe()
            self._observations.append((now, copy_observation(self._observe())))
