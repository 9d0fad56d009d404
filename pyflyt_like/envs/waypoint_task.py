"""WaypointTask: the Dict observation and reward glue of the waypoint tasks.

A task mixes it in ahead of its vehicle-family base and sets ``self.targets`` (a
:class:`~pyflyt_like.envs.waypoints.WaypointTargets`) before calling the base constructor,
which builds the observation space.
"""

from __future__ import annotations

from gymnasium import spaces

from .waypoints import WaypointTargets


class WaypointTask:
    """Observation ``{"attitude", "target_deltas"}`` and the targets' reward, for an AviaryEnv.

    Info each step: ``num_targets_reached``; ``env_complete`` (and termination) once the last
    target is reached.
    """

    targets: WaypointTargets

    def make_observation_space(self) -> spaces.Space:
        return spaces.Dict({"attitude": self.attitude.space,
                            "target_deltas": self.targets.delta_space})

    def reset_task(self) -> None:
        self.targets.reset(self.np_random, self.drone.state[3])

    def observe(self) -> dict:
        drone = self.drone
        return {"attitude": self.attitude.observe(self.action),
                "target_deltas": self.targets.deltas(drone.state[3], drone.rotation_matrix,
                                                     float(drone.state[1, 2]))}

    def task_reward(self) -> float:
        state = self.drone.state
        reward, _ = self.targets.update(state[3], float(state[1, 2]), self.sparse_reward)
        self.info["num_targets_reached"] = self.targets.index
        if self.targets.all_reached:
            self.termination = True
            self.info["env_complete"] = True
        return reward
