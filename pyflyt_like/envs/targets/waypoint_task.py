"""WaypointTask: the Dict observation and reward glue of the waypoint tasks.

A task mixes it in ahead of its vehicle-family base and sets ``self.targets`` (a
:class:`~pyflyt_like.envs.targets.waypoints.WaypointTargets`) before calling the base constructor,
which builds the observation space. :class:`TargetMarkers` shows the targets when rendering.
"""

from __future__ import annotations

import pybullet
from gymnasium import spaces

from .deltas import TargetDeltasTask
from .waypoints import WaypointTargets

MARKER_RGBA = (1.0, 0.55, 0.1, 1.0)  # orange; opaque, as the headless renderer ignores alpha
PARKING_POSITION = (0.0, 0.0, -1000.0)  # m, where a reached target's marker is put away


class WaypointTask(TargetDeltasTask):
    """Observation ``{"attitude", "target_deltas"}`` (and ``"target_mask"`` with
    ``padded_target_deltas=True``, see :mod:`~pyflyt_like.envs.targets.deltas`) and the
    targets' reward, for an AviaryEnv.

    Info each step: ``num_targets_reached``; ``env_complete`` (and termination) once the last
    target is reached. When the env renders, the targets not yet reached show as
    :class:`TargetMarkers`.
    """

    targets: WaypointTargets

    def make_observation_space(self) -> spaces.Space:
        self.require_gnss("target deltas")
        return spaces.Dict({"attitude": self.attitude.space,
                            **self.target_spaces(self.targets.num_targets,
                                                 self.targets.delta_bounds)})

    def add_task_bodies(self) -> None:
        super().add_task_bodies()
        self.markers = (TargetMarkers(self.drone.client_id, self.targets)
                        if self.render_mode is not None else None)

    def reset_task(self) -> None:
        super().reset_task()
        state = self.drone.state
        self.targets.reset(self.np_random, state[3], heading=float(state[1, 2]))
        if self.markers is not None:
            self.markers.show(self.targets)

    def observe(self) -> dict:
        drone = self.drone
        return {"attitude": self.attitude.observe(self.action),
                **self.target_deltas.observe(self.targets.deltas(
                    self.observed_position(), drone.rotation_matrix,
                    float(drone.state[1, 2])))}

    def task_reward(self) -> float:
        state = self.drone.state
        reward, reached = self.targets.update(state[3], float(state[1, 2]), self.sparse_reward)
        if reached and self.markers is not None:
            self.markers.show(self.targets)
        self.info["num_targets_reached"] = self.targets.index
        if self.targets.all_reached:
            self.termination = True
            self.info["env_complete"] = True
        return reward


class TargetMarkers:
    """Visual-only spheres of radius ``goal_reach_distance`` at the targets not yet reached.

    They have no collision shape, so they never make a contact or change the physics; build
    them in ``add_task_bodies`` only when the env renders.

    Args:
        client_id: the PyBullet client of the aviary.
        targets: the task's targets.
    """

    def __init__(self, client_id: int, targets: WaypointTargets):
        self.client_id = client_id
        shape = pybullet.createVisualShape(pybullet.GEOM_SPHERE,
                                           radius=targets.goal_reach_distance,
                                           rgbaColor=MARKER_RGBA, physicsClientId=client_id)
        self.ids = [pybullet.createMultiBody(baseMass=0.0, baseVisualShapeIndex=shape,
                                             basePosition=PARKING_POSITION,
                                             physicsClientId=client_id)
                    for _ in range(targets.num_targets)]

    def show(self, targets: WaypointTargets) -> None:
        """Put each marker on its target, or away once the target has been reached."""
        for i, body in enumerate(self.ids):
            position = targets.positions[i].tolist() if i >= targets.index else PARKING_POSITION
            pybullet.resetBasePositionAndOrientation(body, position, (0.0, 0.0, 0.0, 1.0),
                                                     physicsClientId=self.client_id)
