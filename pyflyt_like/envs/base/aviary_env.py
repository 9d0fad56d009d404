"""AviaryEnv: the single-agent Gymnasium machinery every task shares.

One :class:`~pyflyt_like.core.Aviary` is built in ``__init__`` and kept for the env's life:
``reset`` restores its saved world instead of rebuilding it. A vehicle family subclass
(``QuadXBaseEnv``, ``FixedwingBaseEnv``, ``RocketBaseEnv``) says which vehicle flies, what an
action means and what counts as a crash; a task subclass adds its bodies, observation and
reward through the hooks at the bottom of this class.
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

from pyflyt_like.common.validation import as_float_array

from .attitude_observation import AttitudeObserver, check_angle_representation
from .env_common import FAILURE_PENALTY, AviaryEnvCommon
from .latency import Latency, check_delay_options
from .rendering import RENDER_MODES
from .sensor_observation import SensorObserver, check_observation, sensor_drone_options
from .vehicle_actions import AffineActionMapping


class AviaryEnv(AviaryEnvCommon, gymnasium.Env):
    """Base of the single-agent tasks.

    Args:
        start_pos: (3,) nominal spawn position [m].
        start_orn: (3,) nominal spawn Euler angles [rad].
        flight_mode: the vehicle's flight mode the agent commands.
        angle_representation: "quaternion" or "euler" in the attitude observation.
        sparse_reward: reward only task events instead of dense shaping.
        agent_hz: decisions per second; must divide the vehicle's control rate.
        max_duration_seconds: episode length before truncation [s].
        flight_dome_size: radius of the allowed sphere around the origin [m].
        render_mode: None, "human" (PyBullet GUI, real time) or "rgb_array".
        render_resolution: (height, width) of rgb_array frames [px]; None for (480, 480).
            Given with another render mode, it has no effect and a UserWarning says so.
        spawn_jitter: half-width of the uniform spawn perturbation, per axis, in metres for
            position and radians for attitude; 0 spawns exactly at the nominal pose.
        drone_options: extra options for the vehicle constructor.
        observation_delay_steps: agent steps the observation lags the state (int in
            [0, 1000]); docs/envs.md, "Latency".
        action_delay_steps: agent steps between an action and its effect (int in [0, 1000];
            the zero action flies until the first one arrives), as the vector tasks'.
        observation_delay_physics_steps: physics steps the observation lags the end of the
            agent step (int in [0, 100000]), added to ``observation_delay_steps``.
        action_delay_physics_steps: physics steps into the agent step (or past it) at which
            the action is handed to the vehicle (int in [0, 100000]), added to
            ``action_delay_steps``.
        observation: "truth" (the attitude vector of the true state) or "sensors" (the
            vehicle's sensor readings instead; docs/envs.md, "Sensor observation").
        sensors: the sensor configuration handed to the vehicle (``drone_options["sensors"]``,
            docs/sensors.md); None: with ``observation="sensors"`` the default IMU,
            barometer, magnetometer and GNSS, else none.
    """

    metadata = {"render_modes": list(RENDER_MODES), "render_fps": 30}

    def __init__(self, *, start_pos, start_orn, flight_mode: int, angle_representation: str,
                 sparse_reward: bool, agent_hz: int, max_duration_seconds: float,
                 flight_dome_size: float, render_mode: str | None,
                 render_resolution: tuple[int, int] | None = None, spawn_jitter: float = 0.0,
                 drone_options: dict[str, Any] | None = None,
                 observation_delay_steps: int = 0, action_delay_steps: int = 0,
                 observation_delay_physics_steps: int = 0, action_delay_physics_steps: int = 0,
                 observation: str = "truth", sensors: dict[str, Any] | None = None):
        self.delays = check_delay_options(
            observation_delay_steps=observation_delay_steps,
            action_delay_steps=action_delay_steps,
            observation_delay_physics_steps=observation_delay_physics_steps,
            action_delay_physics_steps=action_delay_physics_steps)
        self.check_common_options(sparse_reward=sparse_reward, render_mode=render_mode,
                                  flight_dome_size=flight_dome_size,
                                  max_duration_seconds=max_duration_seconds,
                                  spawn_jitter=spawn_jitter, drone_options=drone_options)
        self.observation = check_observation(observation)
        drone_options = sensor_drone_options(self.observation, sensors, drone_options)
        self.warn_unused_render_resolution(render_resolution)
        self.start_pos = as_float_array("start_pos", start_pos, (3,))
        self.start_orn = as_float_array("start_orn", start_orn, (3,))
        check_angle_representation(angle_representation)
        self.action_mapping = self.make_action_mapping(flight_mode)  # checks flight_mode
        self.flight_mode = int(flight_mode)
        self.open_aviary(self.start_pos[None], self.start_orn[None], drone_options,
                         lambda: self._build(agent_hz, angle_representation, render_resolution))
        self.step_count = 0
        self.reward = 0.0
        self.termination = self.truncation = self.crashed = False
        self.info: dict[str, Any] = {}

    def _build(self, agent_hz: int, angle_representation: str, render_resolution) -> None:
        """Everything after the aviary exists: rates, spaces, task bodies, render camera."""
        self.drone = self.aviary.drones[0]
        self.set_agent_rate(agent_hz, self.drone.control_hz)

        self.drone.set_mode(self.flight_mode)
        self.action_space = self.action_mapping.space
        self.action = np.zeros(self.action_mapping.size)
        aux_low, aux_high = self.aux_bounds()
        # Kept apart from self.attitude, which a task may wrap (the pole tasks do).
        self.sensor_observer: SensorObserver | None = None
        if self.observation == "sensors":
            self.sensor_observer = SensorObserver(
                self.drone, self.action_space, self.family.max_rate, self.family.max_speed,
                2.0 * self.flight_dome_size, aux_low, aux_high)
            self.attitude = self.sensor_observer
        else:
            self.attitude = AttitudeObserver(self.drone, angle_representation,
                                             self.action_space, self.family.max_rate,
                                             self.family.max_speed, 2.0 * self.flight_dome_size,
                                             aux_low, aux_high)
        self.angle_representation = angle_representation

        self.add_task_bodies()
        self.aviary.register_all_new_bodies()
        n_bodies = self.aviary.contact_array.shape[0]
        self._crash_bodies = np.ones(n_bodies, dtype=bool)
        self._crash_bodies[list(self.harmless_contacts())] = False
        self.observation_space = self.make_observation_space()

        self.make_render_camera(self.drone, render_resolution)

        # None without delays: the step then runs exactly as it did before delays existed.
        latency = Latency(self.drone, self.aviary_steps_per_action * self.aviary.updates_per_step,
                          self.action_mapping.to_setpoint(np.zeros(self.action_mapping.size)),
                          self.observe, self.refresh_task_bodies, self.delays)
        self.latency = latency if latency.active else None

    # ----------------------------------------------------------------- gymnasium API
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        """Start an episode in the same world; ``seed`` makes it reproducible.

        Returns:
            (observation, info).
        """
        super().reset(seed=seed)
        rng = self.np_random
        jitter = self.spawn_jitter
        drone = self.drone
        drone.start_pos = self.start_pos + rng.uniform(-jitter, jitter, 3)
        drone.start_orn = self.aviary.getQuaternionFromEuler(
            (self.start_orn + rng.uniform(-jitter, jitter, 3)).tolist())
        # The aviary's own generator (motor noise, wind) is reseeded from ours, so one seed
        # fixes the whole episode.
        self.aviary.reset(seed=int(rng.integers(2**31)))
        self.step_count = 0
        self.action[:] = 0.0
        self.termination = self.truncation = False
        self.info = {}
        self.reset_task()
        observation = self.observe()
        if self.latency is not None:
            self.latency.reset(observation)
        return observation, self.info

    def step(self, action):
        """Apply ``action`` for one agent period.

        Returns:
            (observation, reward, terminated, truncated, info); ``info`` is a new dict.
        """
        action = self.action_mapping.check("action", action)
        np.clip(action, self.action_space.low, self.action_space.high, out=self.action)
        if self.latency is None:
            self.drone.set_setpoint(self.action_mapping.to_setpoint(self.action))
        else:
            self.latency.send(self.action_mapping.to_setpoint(self.action))
        aviary, contact_row = self.aviary, self.aviary.contact_array[self.drone.Id]
        self.crashed = False
        for _ in range(self.aviary_steps_per_action):
            aviary.step()
            self.crashed |= self.crash_contact(contact_row)
            self.after_aviary_step()
        self.step_count += 1
        self.info = {}
        self.termination = self.truncation = False
        self.reward = self.task_reward()
        if self.crashed:
            self.fail("collision")
        elif self.out_of_bounds():
            self.fail("out_of_bounds")
        if self.step_count >= self.max_steps:
            self.truncation = True
        observation = self.observe()
        if self.latency is not None:
            observation = self.latency.receive(observation)
        return observation, self.reward, self.termination, self.truncation, self.info

    # ----------------------------------------------------------------- shared task tools
    def fail(self, reason: str) -> None:
        """End the episode with the failure penalty and ``info[reason] = True``."""
        self.reward = FAILURE_PENALTY
        self.termination = True
        self.info[reason] = True

    def out_of_bounds(self) -> bool:
        """True if the drone has left the flight dome (a sphere about the origin)."""
        position = self.drone.state[3]
        return float(position @ position) > self.flight_dome_size ** 2

    def crash_contact(self, contact_row: np.ndarray) -> bool:
        """True if the drone touched a body that counts as a crash in the last aviary step."""
        return bool(np.any(contact_row & self._crash_bodies))

    def observed_position(self) -> np.ndarray:
        """(3,) the position [m, world] a task's observation terms use: the true one, or with
        ``observation="sensors"`` the GNSS reading."""
        if self.sensor_observer is not None:
            return self.sensor_observer.position()
        return self.drone.state[3]

    def require_gnss(self, what: str) -> None:
        """Raise unless the observation's position source exists: with
        ``observation="sensors"`` a task whose ``what`` uses the position needs a GNSS."""
        if self.sensor_observer is not None and not self.sensor_observer.has_gnss:
            raise ValueError(f'sensors must include "gnss" with observation="sensors": the '
                             f"{what} are computed from the GNSS position")

    # ----------------------------------------------------------------- family facts
    def make_action_mapping(self, flight_mode: int) -> AffineActionMapping:
        """Return what an action means in ``flight_mode`` (raises for a mode not flown)."""
        return self.family.action_mapping(flight_mode, self.flight_dome_size)

    def aux_bounds(self) -> tuple[np.ndarray, np.ndarray]:
        """Bounds (low, high) of the vehicle's aux state in the observation."""
        return self.family.aux_bounds(self.drone)

    # ----------------------------------------------------------------- task hooks
    def add_task_bodies(self) -> None:
        """Load the task's own bodies (targets, poles, pads) into ``self.aviary``."""

    def harmless_contacts(self) -> list[int]:
        """Body ids the drone may touch without crashing (default: none)."""
        return []

    def make_observation_space(self) -> spaces.Space:
        """The observation space (default: the attitude vector)."""
        return self.attitude.space

    def reset_task(self) -> None:
        """Randomise the task for a new episode (after the world has been reset)."""

    def after_aviary_step(self) -> None:
        """Called after every aviary step inside an env step (e.g. for contact events).

        ``self.crashed`` already says whether a crash contact happened so far in this step.
        """

    def observe(self) -> Any:
        """The observation now (default: the attitude vector)."""
        return self.attitude.observe(self.action)

    def refresh_task_bodies(self) -> None:
        """Re-read the task bodies that :meth:`observe` reads from a cached state (a pole, a
        ball) so an observation made between agent steps (a physics-step observation delay)
        sees them at that physics step (default: nothing to re-read)."""

    def task_reward(self) -> float:
        """This step's reward; may set ``self.termination`` and ``self.info`` entries."""
        raise NotImplementedError
