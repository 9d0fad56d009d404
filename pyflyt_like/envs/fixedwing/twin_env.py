"""The PyBullet twin of ``Fixedwing-Reach-v0``: a single gymnasium.Env on the Aviary."""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np

from pyflyt_like.batch.world_random import world_streams
from pyflyt_like.common.validation import as_float_array, check_seed
from pyflyt_like.core import Aviary
from pyflyt_like.core.abstractions.camera import make_chase_camera
from pyflyt_like.physics.fixedwing_model import load_fixedwing_model
from pyflyt_like.rules import fixedwing_reach as rules

from ..base.rendering import DEFAULT_RENDER_RESOLUTION, check_render_mode, check_render_resolution
from ..base.task_options import check_twin_randomize
from . import kernels
from .options import reach_options
from .vector_env import task_parameters


class FixedwingReachTwinEnv(gymnasium.Env):
    """One episode at a time of Fixedwing-Reach on PyBullet (one
    :class:`~pyflyt_like.core.drones.Fixedwing` in an :class:`~pyflyt_like.core.Aviary`),
    with the spaces, observation, reward, endings and options of
    :class:`~.vector_env.FixedwingReachVectorEnv` (the task's documentation is there): it
    calls the same compiled rules with one world, and draws its spawns, targets and noise
    from the same streams, so the same seed gives the same targets on both engines and a
    policy trained on the batched engine flies here unchanged.

    Differences, by design: a crash is any contact of the aircraft (PyBullet's), besides
    the rules' 2 m floor, which comes first; ``randomize`` takes ``mass`` and ``inertia``
    only (applied with ``changeDynamics`` at every reset, drawn from the env's generator).

    Args:
        render_mode: None, "rgb_array" (chase camera) or "human" (PyBullet's GUI).
        render_resolution: (height, width) of rgb_array frames [px].
        **options: :class:`~.options.ReachOptions`; ``seed`` seeds the first reset that
            gets none.

    Raises:
        TypeError, ValueError: a bad argument or option, naming it.
    """

    metadata = {"render_modes": ["human", "rgb_array"]}

    def __init__(self, render_mode: str | None = None,
                 render_resolution=DEFAULT_RENDER_RESOLUTION, **options: Any):
        self.render_mode = check_render_mode(render_mode)
        resolution = check_render_resolution(render_resolution)
        options = self.options = reach_options(options)
        check_twin_randomize(options.randomize)
        self.aviary = Aviary(np.array([[0.0, 0.0, rules.SPAWN_Z]]), np.zeros((1, 3)),
                             drone_type="fixedwing",
                             drone_options=dict(drone_model=options.drone_model),
                             physics_hz=options.physics_hz, render=self.render_mode == "human",
                             seed=0)
        try:
            self.drone = self.aviary.drones[0]
            model = load_fixedwing_model(options.drone_model)  # the batched engine's source
            self.params, self.observation_space, self.action_space = task_parameters(
                options, model.surfaces.travel, self.drone.starting_velocity)
        except Exception:
            self.aviary.close()
            raise
        k, size = self.action_space.shape[0], self.observation_space.shape[0]
        self.task = kernels.zeros_arrays(1, k, self.drone.aux_state.shape[0], size,
                                         options.action_delay_steps)
        self._observation = np.zeros(size)
        self._setpoint = np.zeros(k)
        self._pos, self._quat = np.zeros(3), np.zeros(4)
        self._vel, self._ang_vel = np.zeros(3), np.zeros(3)
        self._mass, self._inertia = 0.0, None  # the nominal body, read at the first draw
        self.metadata = {**self.metadata, "render_fps": options.agent_hz}
        self._camera = (make_chase_camera(self.aviary, self.drone, resolution)
                        if self.render_mode == "rgb_array" else None)
        self._seed = options.seed
        self._started = False

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        """Start a new episode; ``seed`` (None or an int in [0, 2**63)) reseeds the env's
        generator first. ``options`` must be None or empty.

        Raises:
            TypeError, ValueError: a bad ``seed`` or ``options``; the env is left as it was.
        """
        seed = check_seed("seed", seed)
        if options is not None and not isinstance(options, dict):
            raise TypeError(f"options must be None or an empty dict (the twin takes no reset "
                            f"options), got {options!r}")
        if options:
            raise ValueError(f"options has unknown key(s) {', '.join(sorted(map(repr, options)))}"
                             f"; the twin takes no reset options")
        if seed is None and self._seed is not None:
            seed, self._seed = self._seed, None
        super().reset(seed=seed)
        task, drone, aviary = self.task, self.drone, self.aviary
        # drawn in the VectorEnv's order, so a seed gives both engines the same streams
        task.streams[:] = world_streams(self.np_random, 1)
        task.noise_streams[:] = world_streams(self.np_random, 1)
        kernels.draw_spawn(task.streams, 0, task.spawn_pos[0], task.spawn_euler[0],
                           task.target[0])
        drone.start_pos = task.spawn_pos[0, 0].copy()
        drone.start_orn = np.array(aviary.getQuaternionFromEuler(task.spawn_euler[0, 0].tolist()))
        aviary.reset(seed=0)
        aviary.set_mode(self.options.flight_mode)
        if self.options.randomize:
            self._randomize()
        self._gather()
        kernels.start_task(self._pos, task, 0)
        self._observe()
        self._started = True
        return self._observation.copy(), self._info()

    def _randomize(self) -> None:
        """New mass and principal moments from the env's generator (the batched engine's
        factors, :mod:`pyflyt_like.batch.fixedwing.randomization`)."""
        ranges, aviary, body = self.options.randomize, self.aviary, self.drone.Id
        if self._inertia is None:  # the nominal values, read once
            info = aviary.getDynamicsInfo(body, -1)
            self._mass, self._inertia = info[0], np.array(info[2], float)
        mass, inertia = self._mass, self._inertia.copy()
        if "mass" in ranges:
            mass *= self.np_random.uniform(*ranges["mass"])
        if "inertia" in ranges:
            inertia *= self.np_random.uniform(*ranges["inertia"], size=3)
        aviary.changeDynamics(body, -1, mass=mass, localInertiaDiagonal=inertia.tolist())

    def step(self, action):
        """Fly ``action`` ((k,) numbers, clipped to the action space) for one agent step.

        Raises:
            TypeError, ValueError: ``action`` not (k,) finite numbers; nothing changed.
            RuntimeError: before the first :meth:`reset`.
        """
        if not self._started:
            raise RuntimeError("step() called before reset(): call reset() first")
        action = as_float_array("action", action, self.action_space.shape)
        task, params = self.task, self.params
        slot = kernels.queue_action(action, params.action_low, params.action_high,
                                    task.last_action[0], task.pending[0], task.slot[0])
        task.slot[0] = slot
        kernels.to_setpoint(task.pending[0, slot], params.setpoint_offset,
                            params.setpoint_scale, self._setpoint)
        return self.step_setpoint(self._setpoint)

    def step_setpoint(self, setpoint: np.ndarray):
        """One agent step holding ``setpoint`` in the aviary's current flight mode (a
        scripted pilot's way in: :mod:`.autopilot` flies mode 2 through it); scored as
        :meth:`step`. Returns the same 5-tuple."""
        if not self._started:
            raise RuntimeError("step_setpoint() called before reset(): call reset() first")
        aviary, contact = self.aviary, self.aviary.contact_array[self.drone.Id]
        aviary.set_setpoint(0, setpoint)
        touched = False
        for _ in range(self.params.aviary_steps):
            aviary.step()
            touched |= bool(contact.any())
        self._gather()
        finite = bool(np.isfinite(self._pos).all() and np.isfinite(self._quat).all()
                      and np.isfinite(self._vel).all() and np.isfinite(self._ang_vel).all())
        reward = kernels.score_world(self._pos, touched, finite, self.task, 0)
        self._observe()
        terminated = bool(self.task.ending[0] != rules.NONE)
        truncated = (not terminated) and bool(self.task.step_count[0] >= self.params.max_steps)
        return self._observation.copy(), float(reward), terminated, truncated, self._info()

    def _gather(self) -> None:
        drone = self.drone
        self._pos[:] = drone.state[3]
        self._quat[:] = drone.quaternion
        self._vel[:] = drone.world_velocity
        self._ang_vel[:] = drone.state[0]

    def _observe(self) -> None:
        kernels.observe_world(self._pos, self._quat, self._vel, self._ang_vel,
                              self.drone.aux_state, self.task, self.params, 0,
                              self._observation)

    def _info(self) -> dict[str, Any]:
        return {"targets_reached": int(self.task.reached[0]),
                "distance": float(self.task.distance[0])}

    @property
    def target(self) -> np.ndarray:
        """(3,) the current target [m] (a copy)."""
        return self.task.target[0].copy()

    def render(self) -> np.ndarray | None:
        """rgb_array: an (H, W, 3) uint8 chase-camera frame; None otherwise."""
        return None if self._camera is None else self._camera.capture_rgb()

    def close(self) -> None:
        """Disconnect the aviary; safe to call twice."""
        self.aviary.close()
