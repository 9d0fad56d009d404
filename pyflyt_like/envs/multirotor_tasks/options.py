"""The options both the VectorEnv and its PyBullet twin take, checked once."""

from __future__ import annotations

import sys
import warnings
from dataclasses import dataclass, fields
from typing import Any

from pyflyt_like.batch.randomization import check_randomize
from pyflyt_like.common.rates import BATCHED_MULTIROTOR_PHYSICS_HZ, MAX_PHYSICS_HZ
from pyflyt_like.common.validation import (
    check_positive_int,
    check_rate_divides,
)
from pyflyt_like.sensors import resolve_sensors

from ..base.sensor_observation import check_observation, sensor_drone_options
from ..base.task_options import check_episode_options
from .actions import check_flight_mode

DEFAULT_PHYSICS_HZ = BATCHED_MULTIROTOR_PHYSICS_HZ
DEFAULT_AGENT_HZ = 50


@dataclass(frozen=True)
class TaskOptions:
    """Checked task options.

    Attributes:
        drone_model: any multirotor YAML of the package (cf2x, cf2p, racer, crazyflie21,
            crazyflie21plus, hexarotor).
        flight_mode: -1 rotor speeds, 0 body rates + thrust, 1 attitude + thrust.
        agent_hz: agent steps per second; must divide ``physics_hz``.
        physics_hz: physics (and controller) rate [Hz], at most :data:`MAX_PHYSICS_HZ`.
        max_duration_seconds: episode length [s], in (0, 3600] (an hour:
            ``envs/base/task_options.py``); None for the task's default. Rounded to whole
            agent steps, at least one.
        randomize: the batched engine's ``randomize`` ranges (the twin applies ``mass`` and
            ``inertia``), or None.
        action_delay_steps: agent steps between an action and its effect, in
            [0, 1000] (``envs/base/task_options.py``).
        observation_noise: standard deviation of Gaussian noise added to every observation
            entry (finite, >= 0, in the entry's unit; the noisy entries are clipped to the
            observation space, so any finite value keeps them finite).
        seed: seed of the first ``reset`` that gets none: None or an int in [0, 2**63).
        observation: ``"truth"`` (the true state) or ``"sensors"`` (the drone's sensor
            readings instead: :func:`~pyflyt_like.rules.multirotor_tasks.observe`;
            a GNSS receiver is required, the targets are taken relative to its fix).
        sensors: the sensor configuration (sensor name -> preset name or parameter dict,
            docs/sensors.md; rates must divide ``physics_hz``), mounted on the drone on
            both engines; None: with ``observation="sensors"``
            :data:`~pyflyt_like.sensors.presets.DEFAULT_SENSORS`, else none.
        world_density, curriculum_levels, world_layouts, world_seed, lidar_sectors:
            Navigate's only (None: its defaults,
            :data:`~.navigate_world.NAVIGATE_OPTIONS`), checked with the task
            (:func:`~.navigate_world.navigate_settings`): the final forest's density
            [trees/m^2], the levels of density of the curriculum, the forest layouts per
            level, the seed of the layouts, the LiDAR sectors observed.

    Numbers may be Python or numpy numbers; a bool or a string is never one. The checked
    values are stored as Python ints and floats.
    """

    drone_model: str = "crazyflie21"
    flight_mode: int = 1
    agent_hz: int = DEFAULT_AGENT_HZ
    physics_hz: int = DEFAULT_PHYSICS_HZ
    max_duration_seconds: float | None = None
    randomize: dict | None = None
    action_delay_steps: int = 0
    observation_noise: float = 0.0
    seed: int | None = None
    observation: str = "truth"
    sensors: dict | None = None
    world_density: float | None = None
    curriculum_levels: int | None = None
    world_layouts: int | None = None
    world_seed: int | None = None
    lidar_sectors: int | None = None

    def __post_init__(self):
        if not isinstance(self.drone_model, str):
            raise TypeError(f"drone_model must be the name of a multirotor YAML (str), got "
                            f"{self.drone_model!r}")
        checked = {"flight_mode": check_flight_mode(self.flight_mode),
                   "physics_hz": check_positive_int("physics_hz", self.physics_hz,
                                                    maximum=MAX_PHYSICS_HZ)}
        physics_hz = checked["physics_hz"]
        check_rate_divides("agent_hz", self.agent_hz, physics_hz)
        checked["agent_hz"] = int(self.agent_hz)
        check_randomize(self.randomize)
        checked["observation"] = check_observation(self.observation)
        mounted = sensor_drone_options(checked["observation"], self.sensors, None)
        checked["sensors"] = None if mounted is None else mounted["sensors"]
        params = resolve_sensors(checked["sensors"], physics_hz, option="sensors")
        if checked["observation"] == "sensors" and "gnss" not in params:
            raise ValueError('sensors must include "gnss" with observation="sensors": the '
                             'targets are observed relative to its fix; configured: '
                             f"{list(params)}")
        checked.update(check_episode_options(self.max_duration_seconds,
                                             self.action_delay_steps, self.observation_noise,
                                             self.seed))
        for name, value in checked.items():  # numpy numbers stored as Python's
            object.__setattr__(self, name, value)

    @property
    def physics_steps_per_action(self) -> int:
        return self.physics_hz // self.agent_hz

    @property
    def sensor_params(self) -> dict:
        """The resolved sensor parameters (sensor name -> parameters; {}: none)."""
        return resolve_sensors(self.sensors, self.physics_hz, option="sensors")


OPTION_NAMES = tuple(field.name for field in fields(TaskOptions))


def task_options(options: dict[str, Any]) -> TaskOptions:
    """The checked :class:`TaskOptions` of an env's keyword ``options``.

    ``control_mode``, the old name of ``flight_mode``, is accepted for one release with a
    ``DeprecationWarning`` attributed to the line that asked for the env.

    Raises:
        TypeError: for both ``control_mode`` and ``flight_mode``, or an unknown option (the
            message lists the accepted ones).
    """
    unknown = sorted(set(options) - set(OPTION_NAMES) - {"control_mode"})
    if unknown:
        raise TypeError(f"unknown task option(s) {unknown}; the options are "
                        f"{list(OPTION_NAMES)}")
    if "control_mode" in options:
        options = dict(options)
        if "flight_mode" in options:
            raise TypeError("give flight_mode only: control_mode is its old name")
        warnings.warn("control_mode is deprecated: use flight_mode (the same numbers); "
                      "control_mode goes in the next release", DeprecationWarning,
                      stacklevel=_asking_line_stacklevel())
        options["flight_mode"] = options.pop("control_mode")
    return TaskOptions(**options)


def _asking_line_stacklevel() -> int:
    """``stacklevel``, for a warning of :func:`task_options`, of the first frame outside
    this package and gymnasium (``gymnasium.make`` builds the env from its own frames)."""
    frame, level = sys._getframe(2), 2  # the caller of task_options
    while frame is not None and frame.f_globals.get("__name__", "").startswith(
            ("pyflyt_like.envs.", "gymnasium.")):
        frame, level = frame.f_back, level + 1
    return level
