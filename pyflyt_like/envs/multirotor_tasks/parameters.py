"""A Multirotor task's fixed numbers and spaces, built once for either engine.

The observation (:func:`pyflyt_like.rules.multirotor_tasks.observe`): ``[task features,
body-to-world rotation matrix (9, row-major), world velocity (3) [m/s], body rates (3)
[rad/s], the last action (k)]`` plus Gaussian noise of standard deviation
``observation_noise`` on every entry, clipped to the space's bounds (10 m per relative
coordinate, 1 per matrix entry, 30 m/s, 50 rad/s, 1 per action entry: far beyond where the
tasks end an episode). With ``observation="sensors"`` the state's place is taken by the
drone's sensor readings (:func:`pyflyt_like.rules.multirotor_tasks.observe`, bounds
of :func:`pyflyt_like.envs.base.sensor_observation.sensor_bounds`, GNSS positions within
10 m). Actions are in [-1, 1], zero the hover command
(:mod:`.actions`), held for ``physics_hz / agent_hz`` physics steps after
``action_delay_steps`` agent steps.
"""

from __future__ import annotations

import math

import numpy as np
from gymnasium import spaces

from pyflyt_like.common.multirotor_model import MultirotorModel
from pyflyt_like.common.validation import check_choice
from pyflyt_like.rules import multirotor_tasks as rules
from pyflyt_like.rules import navigate

from ..base.sensor_observation import sensor_bounds
from ..base.task_options import episode_steps
from .actions import hover_centred_scaling
from .kernels import TaskParams
from .navigate_world import navigate_settings
from .options import TaskOptions

MAX_RELATIVE = 10.0  # m
MAX_SPEED = 30.0  # m/s
MAX_RATE = 50.0  # rad/s
#: The info of each task, by name: (W,) arrays of the task's state after every step.
INFO_KEYS = {"Hover": ("distance",), "Reach": ("distance", "targets_reached"),
             "Track": ("tracking_error",), "Land": ("distance", "landed"),
             "Navigate": ("distance", "goal_reached")}


def task_number(task_name: str) -> int:
    """The rules' number of the task ``task_name`` ("Hover", "Reach", "Track", "Land",
    "Navigate")."""
    task = rules.TASK_NAMES.index(check_choice("task", task_name, rules.TASK_NAMES))
    rules.check_task(task)  # its rules are all there (a task added without them is refused)
    return task


def task_parameters(task: int, options: TaskOptions, model: MultirotorModel,
                    gravity: float) -> tuple[TaskParams, spaces.Box, spaces.Box]:
    """The :class:`~.kernels.TaskParams` of ``task`` (a rules number) and its single
    observation and action spaces (float32), for the drone ``model`` under ``gravity``
    [m/s^2]; both engines build theirs here. Navigate's ``options`` must hold its LiDAR
    (:func:`~.navigate_world.with_navigate_lidar`): its sectors close the observation, each
    in [0, 1]."""
    scaling = hover_centred_scaling(model, options.flight_mode, gravity)
    k = scaling.size
    # Navigate's goal starts 20 m away and the drone roams |x|, |y| <= 24 m
    relative = (navigate.GOAL_DISTANCE + math.sqrt(2.0) * navigate.HALF_WIDTH
                if task == rules.NAVIGATE else MAX_RELATIVE)
    features = np.full(rules.FEATURE_SIZES[task], relative)
    sensed = options.observation == "sensors"
    if sensed:
        state_low, state_high, _ = sensor_bounds(options.sensor_params, MAX_RATE, MAX_SPEED,
                                                 relative)
    else:
        state_high = np.concatenate((np.ones(9), np.full(3, MAX_SPEED), np.full(3, MAX_RATE)))
        state_low = -state_high
    sectors, beams, max_range, level_size = _navigate_fields(task, options)
    low = np.concatenate((-features, state_low, -np.ones(k), np.zeros(sectors)))
    high = np.concatenate((features, state_high, np.ones(k), np.ones(sectors)))
    duration = (options.max_duration_seconds if options.max_duration_seconds is not None
                else rules.DURATIONS[task])
    params = TaskParams(
        task=task, mode=options.flight_mode,
        max_steps=episode_steps(duration, options.agent_hz),
        physics_steps=options.physics_steps_per_action, agent_period=1.0 / options.agent_hz,
        action_low=-np.ones(k), action_high=np.ones(k), setpoint_centre=scaling.centre,
        setpoint_below=scaling.below, setpoint_above=scaling.above,
        yaw_column=scaling.yaw_column, observation_low=low, observation_high=high,
        noise_std=options.observation_noise, sensed=sensed, sectors=sectors, beams=beams,
        max_range=max_range, level_size=level_size)
    observation = spaces.Box(low.astype(np.float32), high.astype(np.float32),
                             dtype=np.float32)
    return params, observation, spaces.Box(-1.0, 1.0, (k,), np.float32)


def _navigate_fields(task: int, options: TaskOptions) -> tuple[int, int, float, int]:
    """``(sectors, beams, max_range [m], level_size)`` of the task: Navigate's LiDAR
    sectors, its beams per channel and range, and the layouts per curriculum level; zeros
    for the other tasks.

    Raises:
        ValueError: Navigate without a LiDAR, or more sectors than beams.
    """
    settings = navigate_settings(task, options)
    if not settings:
        return 0, 0, 0.0, 0
    params = options.sensor_params
    if "lidar" not in params:
        raise ValueError(f"Navigate observes a LiDAR: sensors must include \"lidar\" (or be "
                         f"None for the default one); configured: {list(params)}")
    lidar = params["lidar"]
    sectors = settings["lidar_sectors"]
    if sectors > lidar.beams:
        raise ValueError(f"lidar_sectors={sectors} must be at most the LiDAR's beams "
                         f"({lidar.beams}): each sector pools at least one beam")
    return sectors, lidar.beams, lidar.max_range, settings["world_layouts"]


def task_infos(task_name: str, arrays) -> dict[str, np.ndarray]:
    """The task's info arrays (views of :class:`~.kernels.TaskArrays` ``arrays``), by
    name (:data:`INFO_KEYS`)."""
    source = {"distance": arrays.distance, "tracking_error": arrays.distance,
              "targets_reached": arrays.reached, "landed": arrays.landed,
              "goal_reached": arrays.reached}
    return {key: source[key] for key in INFO_KEYS[task_name]}

