"""MAQuadXHover: several QuadX drones, each holding its own start point."""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces

from ..base.ma_aviary_env import MAAviaryEnv
from ..base.vehicle_family import QUADX
from .hover_reward import HOVER_POINT, hover_reward

DEFAULT_START_POS = ((-1.0, -1.0, 1.0), (1.0, -1.0, 1.0), (-1.0, 1.0, 1.0), (1.0, 1.0, 1.0))  # m


class MAQuadXHoverEnv(MAAviaryEnv):
    """Every agent hovers its QuadX at its nominal start point, level.

    Observation of agent i, a Box: the attitude vector (body rates, quaternion or Euler
    angles, body velocity, position, previous action, motor throttles), then the (3,)
    ground-frame offset from the drone to its start point [m].

    Reward per step, per agent, that of QuadX-Hover about its own start point: dense
    ``1 - |p - p_start| - |(roll, pitch)| - 0.01 r^2`` (r = yaw rate [rad/s]); sparse 1
    within 0.1 m and 0.1 rad of level hover, else 0. A drone that touches anything (the
    floor or another drone) or leaves the dome gets -100 and leaves the episode.

    Args:
        start_pos: (n, 3) start points [m]; one agent per row (default: 4 at (+-1, +-1, 1)).
        start_orn: (n, 3) start Euler angles [rad] (default: level, facing +x).
        flight_mode: QuadX flight mode of the actions (-1..7; default 0, rates and thrust).
        spawn_jitter: spawn poses are the start poses moved uniformly by up to this much per
            axis, in metres and radians (default 0.1); targets stay at ``start_pos``.
        angle_representation: "quaternion" (default) or "euler" in the observation.
        sparse_reward: reward only hovering at the start point (default False).
        agent_hz: decisions per second (default 40).
        max_duration_seconds: episode length [s] (default 30).
        flight_dome_size: radius of the allowed sphere about the origin [m] (default 10).
        render_mode: None, "human" or "rgb_array".
        render_resolution: (height, width) of rgb_array frames [px].
        drone_options: extra QuadX options for every drone.
    """

    metadata = {**MAAviaryEnv.metadata, "name": "ma_quadx_hover_v0"}
    family = QUADX

    def __init__(self, start_pos=DEFAULT_START_POS, start_orn=None, flight_mode: int = 0,
                 angle_representation: str = "quaternion", sparse_reward: bool = False,
                 agent_hz: int = 40, max_duration_seconds: float = 30.0,
                 flight_dome_size: float = 10.0, render_mode: str | None = None,
                 render_resolution=None, spawn_jitter: float = 0.1,
                 drone_options: dict[str, Any] | None = None):
        if start_orn is None:
            start_orn = np.zeros(np.shape(start_pos))
        super().__init__(start_pos=start_pos, start_orn=start_orn, flight_mode=flight_mode,
                         angle_representation=angle_representation,
                         sparse_reward=sparse_reward, agent_hz=agent_hz,
                         max_duration_seconds=max_duration_seconds,
                         flight_dome_size=flight_dome_size, render_mode=render_mode,
                         render_resolution=render_resolution, spawn_jitter=spawn_jitter,
                         drone_options=drone_options)

    def make_observation_space(self, i: int) -> spaces.Box:
        attitude = self.attitudes[i].space
        reach = 2.0 * self.flight_dome_size
        return spaces.Box(np.append(attitude.low, np.full(3, -reach)),
                          np.append(attitude.high, np.full(3, reach)), dtype=np.float64)

    def observations(self, indices: list[int]) -> list[np.ndarray]:
        observations = []
        for i in indices:
            space = self._observation_spaces[i]
            observation = np.empty(space.shape[0])
            observation[:-3] = self.attitudes[i].observe(self.actions[i])
            observation[-3:] = self.start_pos[i] - self.drones[i].state[3]
            observations.append(np.clip(observation, space.low, space.high, out=observation))
        return observations

    def task_rewards(self) -> np.ndarray:
        rewards = np.zeros(self.num_drones)
        for i in np.flatnonzero(self.in_play):
            # hover_reward measures from HOVER_POINT: shift this drone's start point onto it.
            state = self.drones[i].state.copy()
            state[3] += HOVER_POINT - self.start_pos[i]
            rewards[i] = hover_reward(state, self.sparse_reward)
        return rewards
