"""Fixedwing-Reach's options, spaces and bounds, checked and built once for both engines.

The batched VectorEnv and its PyBullet twin take the same keyword options with the same
meaning (those of the Multirotor tasks, :mod:`pyflyt_like.envs.multirotor_tasks.options`,
for a fixed-wing).
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

import numpy as np

from pyflyt_like.batch.fixedwing.randomization import check_fixedwing_randomize
from pyflyt_like.common.rates import DEFAULT_PHYSICS_HZ
from pyflyt_like.common.validation import (
    check_agent_hz,
    check_choice,
    check_positive_int,
)

from ..base.task_options import check_episode_options, episode_steps

DRONE_MODELS = ("acrowing", "fixedwing")
FLIGHT_MODES = (-1, 0, 1)  # surfaces + thrust; roll, pitch, yaw commands + thrust; attitude
CONTROL_HZ = 120  # both models' controller rate (their YAMLs' control_hz)
# Beyond this the physics steps of one agent step (all in one compiled call) grow long for
# no gain: the aerodynamics are smooth at 240 Hz.
MAX_PHYSICS_HZ = 2400

MAX_RATE = 50.0  # rad/s, body-rate bound of the observation
MAX_SPEED = 80.0  # m/s, well above a dive's speed of the shipped aircraft
# m: relative positions, distances and positions. The flight volume ends 250 m from the
# centre and 180 m up, so no observation in play comes near it.
MAX_DISTANCE = 1000.0


@dataclass(frozen=True)
class ReachOptions:
    """The checked options of Fixedwing-Reach.

    Attributes:
        drone_model: "acrowing" (default) or "fixedwing".
        flight_mode: what the action commands: 1 attitude hold (roll [rad], pitch [rad],
            yaw rate [rad/s], throttle; the default), 0 roll, pitch, yaw surface commands +
            throttle, -1 the five surfaces + throttle; normalised as
            :func:`~pyflyt_like.envs.base.vehicle_actions.fixedwing_action_mapping`.
        agent_hz: agent steps per second; must divide the 120 Hz control rate (default 30).
        physics_hz: physics rate [Hz], a multiple of 120, at most :data:`MAX_PHYSICS_HZ`
            (default 240).
        max_duration_seconds: episode length [s] (default 30), at most an hour; rounded to
            whole agent steps, at least one.
        randomize: the batched engine's fixed-wing ``randomize`` ranges
            (:mod:`pyflyt_like.batch.fixedwing.randomization`), drawn at every episode
            start; the twin applies ``mass`` and ``inertia`` only. None: the nominal plant.
        action_delay_steps: agent steps between an action and its effect, in [0, 1000].
        observation_noise: standard deviation of Gaussian noise added to every observation
            entry, in the entry's unit (finite, >= 0; the noisy entries are clipped to the
            observation space).
        seed: seed of the first reset that gets none: None or an int in [0, 2**63).
    """

    drone_model: str = "acrowing"
    flight_mode: int = 1
    agent_hz: int = 30
    physics_hz: int = DEFAULT_PHYSICS_HZ
    max_duration_seconds: float = 30.0
    randomize: dict | None = None
    action_delay_steps: int = 0
    observation_noise: float = 0.0
    seed: int | None = None

    def __post_init__(self):
        checked: dict[str, Any] = {
            "drone_model": check_choice("drone_model", self.drone_model, DRONE_MODELS)}
        mode = self.flight_mode
        if isinstance(mode, bool) or not isinstance(mode, (int, np.integer)) \
                or mode not in FLIGHT_MODES:
            raise ValueError(f"flight_mode must be one of {list(FLIGHT_MODES)} (an int: 1 "
                             f"attitude hold, 0 surface commands, -1 surfaces), got {mode!r}")
        checked["flight_mode"] = int(mode)
        check_agent_hz(self.agent_hz, CONTROL_HZ)
        checked["agent_hz"] = int(self.agent_hz)
        physics_hz = check_positive_int("physics_hz", self.physics_hz, maximum=MAX_PHYSICS_HZ)
        if physics_hz % CONTROL_HZ:
            raise ValueError(f"physics_hz must be a multiple of the {CONTROL_HZ} Hz control "
                             f"rate ({DEFAULT_PHYSICS_HZ} by default), got {physics_hz}")
        checked["physics_hz"] = physics_hz
        check_fixedwing_randomize(self.randomize)
        checked.update(check_episode_options(self.max_duration_seconds,
                                             self.action_delay_steps, self.observation_noise,
                                             self.seed))
        for name, value in checked.items():  # numpy numbers stored as Python's
            object.__setattr__(self, name, value)

    @property
    def max_steps(self) -> int:
        """Agent steps per episode."""
        return episode_steps(self.max_duration_seconds, self.agent_hz)

    @property
    def aviary_steps(self) -> int:
        """Control periods per agent step."""
        return CONTROL_HZ // self.agent_hz

    @property
    def physics_steps(self) -> int:
        """Physics steps per control period."""
        return self.physics_hz // CONTROL_HZ


OPTION_NAMES = tuple(field.name for field in fields(ReachOptions))


def reach_options(options: dict[str, Any]) -> ReachOptions:
    """The checked :class:`ReachOptions` of an env's keyword ``options``.

    Raises:
        TypeError: an unknown option (the message lists the accepted ones).
        TypeError, ValueError: a bad value, naming the option and what is allowed.
    """
    unknown = sorted(set(options) - set(OPTION_NAMES))
    if unknown:
        raise TypeError(f"unknown Fixedwing-Reach option(s) {unknown}; the options are "
                        f"{list(OPTION_NAMES)}")
    return ReachOptions(**options)


def observation_bounds(action_low: np.ndarray, action_high: np.ndarray,
                       aux_low: np.ndarray, aux_high: np.ndarray
                       ) -> tuple[np.ndarray, np.ndarray]:
    """(size,) low and high of the observation (:func:`pyflyt_like.rules.fixedwing_reach.observe`'s
    layout), with ``action_low``/``action_high`` (k,) the normalised action's bounds and
    ``aux_low``/``aux_high`` (m,) the aux state's (deflections [rad], throttle)."""
    d = MAX_DISTANCE
    high = np.concatenate((np.full(3, d), (d,), np.full(3, MAX_RATE), np.ones(4),
                           np.full(3, MAX_SPEED), np.full(3, d), (MAX_SPEED,), action_high,
                           aux_high))
    low = np.concatenate((np.full(3, -d), (0.0,), np.full(3, -MAX_RATE), -np.ones(4),
                          np.full(3, -MAX_SPEED), np.full(3, -d), (0.0,), action_low,
                          aux_low))
    return low, high
