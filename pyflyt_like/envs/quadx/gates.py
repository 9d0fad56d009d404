"""QuadX-Gates: race through a course of gates in order, seeing through an FPV camera."""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np
from gymnasium import spaces

from pyflyt_like.common.validation import as_float_array

from ..targets.deltas import TargetDeltasTask
from .base import QuadXBaseEnv
from .gate_course import MIN_GATE_HEIGHT, GateCourse

# drone_options the env sets itself: the FPV camera is part of the observation.
ENV_CAMERA_OPTIONS = ("use_camera", "camera_resolution", "camera_fps")
DEFAULT_MAX_GATE_ANGLE = math.pi / 6  # rad


def gate_turn_bound(max_gate_angle: float | None,
                    max_gate_angles: Sequence[float] | None) -> tuple[float, str]:
    """The course's turn bound [rad] and the name of the option it came from.

    ``max_gate_angles`` is PyFlyt's (roll, pitch, yaw) bound on each gate's rotation from the
    previous one [rad]; our gates stand upright, so only its yaw entry bounds the course (a
    UserWarning says so when roll or pitch is not 0).
    """
    if max_gate_angles is None:
        return (DEFAULT_MAX_GATE_ANGLE if max_gate_angle is None else max_gate_angle,
                "max_gate_angle")
    if max_gate_angle is not None:
        raise ValueError("give max_gate_angle (our yaw bound) or max_gate_angles (PyFlyt's "
                         "roll, pitch, yaw bounds), not both")
    roll, pitch, yaw = as_float_array("max_gate_angles", max_gate_angles, (3,))
    if roll or pitch:
        warnings.warn(f"max_gate_angles={list(max_gate_angles)}: gates stand upright here, so "
                      "only the yaw entry is used (roll and pitch are ignored)", UserWarning,
                      stacklevel=3)
    return yaw, "max_gate_angles[2] (yaw)"


class QuadXGatesEnv(TargetDeltasTask, QuadXBaseEnv):
    """Pass ``num_targets`` gates in order; each gives +100, the last ends the episode.

    Each episode lays a new course ahead of the spawn (see :func:`~.gate_course.draw_course`).
    A gate counts when the drone's path crosses its plane forward inside the opening (and
    within ``goal_reach_distance`` of its centre, if given); gates
    passed out of order or crossings outside the opening do not count. A missed gate does not
    end the episode: it stays the next gate, and the drone may turn back for it. Touching a
    gate's frame (or the ground) is a collision: -100 and the episode ends.

    Observation: Dict with
        "attitude": Box, see docs/envs.md;
        "rgba_cam": Box uint8 (4, H, W), channel first, the FPV camera's RGBA image taken at
            the end of each env step (the same instant as the attitude);
        "target_deltas": stacked Sequence (k, 4) of the k gates still to pass: centre in the
            body frame [m] and gate heading minus drone yaw [rad]; with
            ``padded_target_deltas=True`` a Box (num_targets, 4) and a "target_mask".

    Args:
        num_targets: gates per course (default 5).
        min_gate_distance: shortest horizontal spacing of two gates [m] (default 1.2).
        max_gate_distance: longest horizontal spacing [m] (default 1.6).
        max_gate_angle: bound of the course's turns [rad] (default pi/6): each gate lies
            within this angle of the previous gate's heading and faces within it of the line
            joining them; at most pi/3.
        max_gate_angles: PyFlyt's (roll, pitch, yaw) bounds [rad]; its yaw entry is used as
            ``max_gate_angle`` (gates stay upright). Give one of the two, not both.
        min_gate_height: lowest gate centre [m] (default 1); centres lie within 1 m above it.
        goal_reach_distance: if given, a gate counts only when crossed within this distance
            of its centre [m] (default None: anywhere in its 0.8 m opening).
        camera_resolution: (height, width) of the camera image [px] (default (64, 64)).
        flight_dome_size: dome radius [m]; None (default) for 10 m, or larger if the longest
            possible course needs it.
        drone_options: other QuadX options, including camera ones such as
            ``camera_angle_degrees`` or ``camera_FOV_degrees``; not ``use_camera``,
            ``camera_resolution`` or ``camera_fps``, which the env sets.
        **options: see :class:`QuadXBaseEnv` (defaults here:
            mode 0, 10 s, 30 Hz), and ``padded_target_deltas``: fixed-shape "target_deltas"
            with a "target_mask" instead of PyFlyt's Sequence (see
            docs/envs.md).

    Info: ``num_targets_reached``; ``missed_gate`` on a step that crossed the next gate's
    plane outside its opening; ``env_complete`` when the last gate is passed.
    """

    def __init__(self, *, num_targets: int = 5, min_gate_distance: float = 1.2,
                 max_gate_distance: float = 1.6, max_gate_angle: float | None = None,
                 max_gate_angles: Sequence[float] | None = None,
                 min_gate_height: float = MIN_GATE_HEIGHT,
                 goal_reach_distance: float | None = None,
                 camera_resolution: tuple[int, int] = (64, 64),
                 flight_dome_size: float | None = None, max_duration_seconds: float = 10.0,
                 agent_hz: int = 30, drone_options: dict[str, Any] | None = None,
                 **options: Any):
        if drone_options is not None and not isinstance(drone_options, dict):
            raise TypeError(f"drone_options must be a dict, got {drone_options!r}")
        clashes = sorted(set(drone_options or {}) & set(ENV_CAMERA_OPTIONS))
        if clashes:
            raise ValueError(f"drone_options {clashes} are set by QuadX-Gates; pass "
                             f"camera_resolution to the env instead")
        turn_bound, turn_option = gate_turn_bound(max_gate_angle, max_gate_angles)
        self.gates = GateCourse(num_targets, min_gate_distance, max_gate_distance, turn_bound,
                                flight_dome_size, min_gate_height, goal_reach_distance,
                                angle_option=turn_option)
        # The env takes the frame itself at the end of each step (camera_fps=None): a camera
        # ticking at agent_hz would fire on the first physics step of each env step and
        # show the world 7 physics steps before the attitude observation does.
        camera = {"use_camera": True, "camera_resolution": camera_resolution,
                  "camera_fps": None}
        self._previous_position = np.zeros(3)
        super().__init__(flight_dome_size=self.gates.dome_radius,
                         max_duration_seconds=max_duration_seconds, agent_hz=agent_hz,
                         drone_options={**(drone_options or {}), **camera}, **options)

    def add_task_bodies(self) -> None:
        self.gates.load(self.drone.client_id)

    def make_observation_space(self) -> spaces.Space:
        self.require_gnss("gate deltas")
        height, width = self.drone.camera.camera_resolution
        return spaces.Dict({
            "attitude": self.attitude.space,
            "rgba_cam": spaces.Box(0, 255, (4, height, width), dtype=np.uint8),
            **self.target_spaces(self.gates.num_gates, self.gates.delta_bounds),
        })

    def reset_task(self) -> None:
        spawn = self.drone.state[3]
        self.gates.reset(self.np_random, spawn, float(self.start_orn[2]))
        self._previous_position[:] = spawn

    def observe(self) -> dict:
        drone = self.drone
        # Kept on the drone too, where PyFlyt users read the latest images.
        drone.rgbaImg, drone.depthImg, drone.segImg = drone.camera.capture_image()
        return {"attitude": self.attitude.observe(self.action),
                "rgba_cam": np.ascontiguousarray(drone.rgbaImg.transpose(2, 0, 1)),
                **self.target_deltas.observe(self.gates.deltas(
                    self.observed_position(), drone.rotation_matrix,
                    float(drone.state[1, 2])))}

    def task_reward(self) -> float:
        position = self.drone.state[3]
        reward, missed = self.gates.update(self._previous_position, position,
                                           self.sparse_reward)
        self._previous_position[:] = position
        self.info["num_targets_reached"] = self.gates.index
        if missed:
            self.info["missed_gate"] = True
        if self.gates.all_passed:
            self.termination = True
            self.info["env_complete"] = True
        return reward
