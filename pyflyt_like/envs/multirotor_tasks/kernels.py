"""The Multirotor tasks' compiled code: the rules of :mod:`pyflyt_like.rules.multirotor_tasks`
compiled (for the PyBullet twin too), the per-world draws, and the VectorEnv's fused step:
every world's action, physics, reward, endings, observation and autoreset in one call.

Arrays of the task (:class:`TaskArrays`), per world ``w`` (one drone each): target (W, 3)
[m] (Hover's point, Reach's target, Track's reference now, Land's touchdown point); curve
(W, 9) Track's figure-eight; distance (W,) [m] what the task measures (Track: the tracking
error); reached (W,) int Reach's targets this episode; landed (W,) bool Land's soft landing
at the last step; step_count (W,) int; last_action (W, k) the clipped normalised actions;
pending (W, delay + 1, k) the ring of delayed actions and slot (W,) int its cursor;
uniforms (W, START_DRAWS) and normals (W, size) the last draws; streams (W,) uint64 the
starts' and targets' draws and noise_streams (W,) uint64 the observation noise's
(:mod:`pyflyt_like.batch.world_random`: two streams, so a world's episodes are the same
sequence whatever the noise); start_pos, start_euler (W, 1, 3) the last start.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit

from pyflyt_like.batch.finite import world_finite
from pyflyt_like.batch.multirotor_reset import reset_world
from pyflyt_like.batch.pipeline import KERNEL, prepare, step_world
from pyflyt_like.batch.sensors import reset_sensor_world
from pyflyt_like.batch.world_random import next_normals, next_uniform
from pyflyt_like.compiled.jit import compile_shared
from pyflyt_like.compiled.rotations import quat_to_matrix
from pyflyt_like.compiled.scene import pool_distance
from pyflyt_like.rules import action_queue, navigate
from pyflyt_like.rules import multirotor_tasks as rules

_in_box = compile_shared(rules._in_box)
_tilted = compile_shared(rules._tilted)
place_reach_target = compile_shared(rules.place_reach_target, _in_box)
reference_point = compile_shared(rules.reference_point)
place_start = compile_shared(navigate.place_start)
place_goal = compile_shared(navigate.place_goal)
score_navigate = compile_shared(navigate.score_navigate)
sector_range = compile_shared(navigate.sector_range)
sector_value = compile_shared(navigate.sector_value)
start_episode = compile_shared(rules.start_episode, _in_box, _tilted, place_reach_target,
                               reference_point, place_start, place_goal)
distance_to = compile_shared(rules.distance_to)
task_distance = compile_shared(rules.task_distance, reference_point, distance_to)
score_step = compile_shared(rules.score_step, task_distance, score_navigate)
to_setpoint = compile_shared(rules.to_setpoint)
heading = compile_shared(rules.heading, quat_to_matrix)
up_z_of = compile_shared(rules.up_z_of)
_put = compile_shared(rules._put)
_features = compile_shared(rules._features, reference_point, _put)
observe = compile_shared(rules.observe, _features, quat_to_matrix, _put)
put_sectors = compile_shared(rules.put_sectors, sector_range, sector_value, _put)
queue_action = compile_shared(action_queue.queue_action)

TaskArrays = namedtuple("TaskArrays", [
    "target", "curve", "distance", "reached", "landed", "step_count", "last_action",
    "pending", "slot", "uniforms", "normals", "streams", "noise_streams", "start_pos",
    "start_euler", "layout", "level"])

#: The fixed numbers of the task: task (:data:`~pyflyt_like.rules.multirotor_tasks.HOVER`
#: ...), mode (the engine's flight mode), max_steps, physics_steps (per agent step),
#: agent_period [s]; action_low, action_high (k,) the normalised action's bounds (-1, 1);
#: setpoint_centre, setpoint_below, setpoint_above (k,) its map to the setpoint and
#: yaw_column (:func:`~pyflyt_like.rules.multirotor_tasks.to_setpoint`); observation_low,
#: observation_high (size,); noise_std the observation noise's standard deviation; sensed
#: True for ``observation="sensors"`` (the observation of the engine's sensor readings).
TaskParams = namedtuple("TaskParams", [
    "task", "mode", "max_steps", "physics_steps", "agent_period", "action_low",
    "action_high", "setpoint_centre", "setpoint_below", "setpoint_above", "yaw_column",
    "observation_low", "observation_high", "noise_std", "sensed", "sectors", "beams",
    "max_range", "level_size"])


def zeros_arrays(n_worlds: int, k: int, size: int, delay: int) -> TaskArrays:
    """A TaskArrays for ``n_worlds`` worlds with ``k`` actions, observations of ``size``
    and ``delay`` agent steps of action delay."""
    w = n_worlds
    return TaskArrays(
        target=np.zeros((w, 3)), curve=np.zeros((w, 9)), distance=np.zeros(w),
        reached=np.zeros(w, np.int64), landed=np.zeros(w, bool),
        step_count=np.zeros(w, np.int64), last_action=np.zeros((w, k)),
        pending=np.zeros((w, delay + 1, k)), slot=np.zeros(w, np.int64),
        uniforms=np.zeros((w, rules.START_DRAWS)), normals=np.zeros((w, size)),
        streams=np.zeros(w, np.uint64), noise_streams=np.zeros(w, np.uint64),
        start_pos=np.zeros((w, 1, 3)), start_euler=np.zeros((w, 1, 3)),
        layout=np.zeros(w, np.int64), level=np.zeros(w, np.int64))


@njit(cache=True, _nrt=False, error_model="numpy")
def draw_start(task, params, w, pool):
    """World ``w``'s next episode from its stream: its target (or curve) and its start
    (``task.start_pos[w]``, ``task.start_euler[w]``); with obstacle layouts
    (``params.level_size`` > 0), its layout ``task.layout[w]`` among the ``level_size``
    of its curriculum level ``task.level[w]`` in ``pool`` (the arrays of a
    :class:`~pyflyt_like.worlds.LayoutPool`, or None for a task without obstacles), and
    Navigate's goal redrawn while a trunk is near it (:mod:`pyflyt_like.rules.navigate`)."""
    u = task.uniforms[w]
    for i in range(u.shape[0]):
        u[i] = next_uniform(task.streams, w)
    start_episode(params.task, u, task.target[w], task.curve[w], task.start_pos[w, 0],
                  task.start_euler[w, 0])
    if pool is None or params.level_size == 0:  # None: compiled without the obstacles
        return
    size = params.level_size
    layout = task.level[w] * size + min(int(next_uniform(task.streams, w) * size), size - 1)
    task.layout[w] = layout
    goal = task.target[w]
    for _ in range(navigate.GOAL_TRIES):
        clearance = pool_distance(*pool, layout, goal[0], goal[1], goal[2],
                                  navigate.GOAL_CLEARANCE)
        if clearance >= navigate.GOAL_CLEARANCE:
            return
        place_goal(next_uniform(task.streams, w), goal)


@njit(cache=True, _nrt=False, error_model="numpy")
def start_task(pos, task, params, w):
    """Clear world ``w``'s episode counters and action ring for a drone started at ``pos``
    (3,) [m]."""
    task.distance[w] = task_distance(params.task, pos, task.target[w], task.curve[w], 0.0)
    task.reached[w] = 0
    task.landed[w] = False
    task.step_count[w] = 0
    task.slot[w] = 0
    task.last_action[w, :] = 0.0
    task.pending[w, :, :] = 0.0


@njit(cache=True, _nrt=False, error_model="numpy")
def setpoint_of(quat, task, params, w, setpoint):
    """Queue world ``w``'s (already clipped) ``task.last_action[w]`` and write the action
    now due as the engine's ``setpoint`` (k,) for the drone at attitude ``quat`` (4,)."""
    slot = queue_action(task.last_action[w], params.action_low, params.action_high,
                        task.last_action[w], task.pending[w], task.slot[w])
    task.slot[w] = slot
    to_setpoint(task.pending[w, slot], params.setpoint_centre, params.setpoint_below,
                params.setpoint_above, heading(quat), params.yaw_column, setpoint)


@njit(cache=True, _nrt=False, error_model="numpy")
def score_world(pos, quat, vel, crashed, task, params, w, pool):
    """Score world ``w``'s agent step (its drone at ``pos``, ``quat``, ``vel``, its
    collision flag ``crashed``, its obstacles those of its layout in ``pool``, the arrays of
    a :class:`~pyflyt_like.worlds.LayoutPool`, or None without obstacles): reward, Reach's
    next target on arrival, Land's soft landing, Navigate's arrival; returns (reward,
    terminated)."""
    task.step_count[w] += 1
    time = task.step_count[w] * params.agent_period
    clearance = navigate.CLEARANCE_MARGIN  # no obstacles: nothing near
    if pool is not None and params.level_size > 0:
        clearance = pool_distance(*pool, task.layout[w], pos[0], pos[1], pos[2],
                                  navigate.CLEARANCE_MARGIN)
    reward, terminated, distance, arrived, landed = score_step(
        params.task, pos, up_z_of(quat), vel, task.target[w], task.curve[w], time,
        task.distance[w], crashed, clearance)
    if arrived and params.task == rules.NAVIGATE:
        task.reached[w] += 1
    elif arrived:
        task.reached[w] += 1
        u = task.uniforms[w]
        for i in range(3):
            u[i] = next_uniform(task.streams, w)
        place_reach_target(u[0], u[1], u[2], task.target[w])
        distance = distance_to(pos, task.target[w])
    task.distance[w] = distance
    task.landed[w] = landed
    return reward, terminated


@njit(cache=True, _nrt=False, error_model="numpy")
def observe_world(pos, quat, vel, ang_vel, sensed, periods, ranges, task, params, w,
                  observation):
    """World ``w``'s observation (size,) (:func:`~pyflyt_like.rules.multirotor_tasks.observe`)
    of its drone's true state, or with ``sensed`` of its latest sensor readings (flat
    layout, :mod:`pyflyt_like.common.sensor_readings`) of the sensors of ``periods`` (5,)
    (both None: compiled without them); and, with ``params.sectors`` > 0, the LiDAR sectors
    of its flat ``ranges`` [m], last (None: compiled without them). Noise is drawn from its
    noise stream when ``params.noise_std > 0``."""
    normals = task.normals[w]
    if params.noise_std > 0.0:
        next_normals(task.noise_streams, w, normals)
    observe(params.task, pos, quat, vel, ang_vel, sensed, periods, task.target[w],
            task.curve[w], task.step_count[w] * params.agent_period, task.last_action[w],
            normals, params.noise_std, params.observation_low, params.observation_high,
            observation)
    if ranges is not None and params.sectors > 0:
        put_sectors(ranges, params.beams, params.max_range, normals, params.noise_std,
                    params.observation_low, params.observation_high, observation,
                    observation.shape[0] - params.sectors)


# The stages a task's fused step compiles: a task pays only for what it uses. Each of the
# arguments below is None when the task does without it, and numba then compiles the step
# without the code under ``if ... is not None`` (it prunes a branch on an argument of type
# None, also in an inlined function): Hover compiles no obstacle, LiDAR or sensor code.
#   pool     the arrays of the layout pool (Navigate's forests) or None;
#   sensing  the engine's (points, rays) switches of its obstacles and sensors stages and
#            the sensors' reset (pyflyt_like.batch.sensors.sensing_switches);
#   sensed   True: the observation of the sensor readings (``observation="sensors"``);
#   rays     True: the LiDAR's sectors in the observation.
@njit(cache=True, _nrt=False, error_model="numpy", inline="always")
def _observe_ranges(state, task, params, w, observation, sensed, ranges):
    if sensed is not None:
        observe_world(state.pos[w, 0], state.quat[w, 0], state.vel[w, 0],
                      state.ang_vel[w, 0], state.sensor_readings[w, 0], state.sensor_periods,
                      ranges, task, params, w, observation)
    else:
        observe_world(state.pos[w, 0], state.quat[w, 0], state.vel[w, 0],
                      state.ang_vel[w, 0], None, None, ranges, task, params, w, observation)


@njit(cache=True, _nrt=False, error_model="numpy", inline="always")
def _observe_state(state, task, params, w, observation, sensed, rays):
    if rays is not None:
        # the LiDAR's rays come first in the engine's ray table (RAY_SENSOR_NAMES order)
        _observe_ranges(state, task, params, w, observation, sensed,
                        state.ray_readings[w, 0, 0:state.ray_first[1]])
    else:
        _observe_ranges(state, task, params, w, observation, sensed, None)


@njit(cache=True, _nrt=False, error_model="numpy")
def _restart_world(state, plant, config, task, params, w, observation, pool, sensing, sensed,
                   rays):
    """A new episode in world ``w``: start from its stream, engine, sensors and task reset
    (the plant is not redrawn here: the VectorEnv does it before the call)."""
    draw_start(task, params, w, pool)
    state.world_layout[w] = task.layout[w]  # reset_world asks for an exact obstacle query
    reset_world(state, plant, w, task.start_pos[w], task.start_euler[w])
    if sensing is not None:
        reset_sensor_world(state, config, w, sensing[0], sensing[1])
    start_task(state.pos[w, 0], task, params, w)
    _observe_state(state, task, params, w, observation, sensed, rays)


@njit(cache=True, _nrt=False, error_model="numpy", inline="always")
def _play_world(state, plant, nominal, config, noise, task, params, w, observation, pool,
                sensing, sensed, rays):
    """One agent step of world ``w`` (its clipped action in ``task.last_action[w]``);
    returns (reward, terminated, truncated). Every physics step runs the engine's stages,
    with obstacles and sensors when ``sensing``."""
    setpoint_of(state.quat[w, 0], task, params, w, state.setpoint[w, 0])
    prepare(state, params.mode, w)
    for _ in range(params.physics_steps):
        # flight modes -1, 0 and 1 only: the position mode's outer loop not compiled
        step_world(state, plant, nominal, config, params.mode, w, noise, 0, sensing, None)
    if not world_finite(state, w):
        # scored nothing (a state the drone never flew to); show a valid state until the
        # next step restarts the world
        _restart_world(state, plant, config, task, params, w, observation, pool, sensing,
                       sensed, rays)
        return rules.FAILURE_REWARD, True, False
    reward, terminated = score_world(state.pos[w, 0], state.quat[w, 0], state.vel[w, 0],
                                     state.crashed[w, 0], task, params, w, pool)
    _observe_state(state, task, params, w, observation, sensed, rays)
    return reward, terminated, (not terminated) and task.step_count[w] >= params.max_steps


@njit(cache=True, _nrt=False, error_model="numpy")
def clip_actions(actions, task, params):
    """``actions`` (W, k) clipped into ``task.last_action``, unless an entry is NaN or
    infinite: then False and nothing written (the PyBullet twin's step)."""
    for w in range(actions.shape[0]):
        for a in range(actions.shape[1]):
            if not np.isfinite(actions[w, a]):
                return False
    for w in range(actions.shape[0]):
        for a in range(actions.shape[1]):
            task.last_action[w, a] = min(max(actions[w, a], params.action_low[a]),
                                         params.action_high[a])
    return True


@njit(**KERNEL)
def task_rows(state, plant, nominal, config, noise, task, params, pool, sensing, sensed, rays,
              actions, restart, play, observation, reward, terminated, truncated, first, last):
    """One agent step of worlds ``first`` to ``last - 1`` (run by a
    :class:`~pyflyt_like.batch.threads.WorldLoop`): worlds of ``restart`` ((W,) bool) start
    a new episode (reward 0, not terminated nor truncated); with ``play`` the others apply
    their ``actions`` (W, k), finite (the caller checks), clipped to the action space, and
    play, else they are left as they are. Writes ``observation`` (W, size) float32,
    ``reward`` (W,), ``terminated`` and ``truncated`` (W,) bool. ``pool``, ``sensing``,
    ``sensed``, ``rays``: the stages the task uses (None: compiled without; see above)."""
    for w in range(first, last):
        if restart[w]:
            _restart_world(state, plant, config, task, params, w, observation[w], pool,
                           sensing, sensed, rays)
            reward[w] = 0.0
            terminated[w] = False
            truncated[w] = False
        elif play:
            for a in range(actions.shape[1]):
                task.last_action[w, a] = min(max(actions[w, a], params.action_low[a]),
                                             params.action_high[a])
            reward[w], terminated[w], truncated[w] = _play_world(
                state, plant, nominal, config, noise, task, params, w, observation[w], pool,
                sensing, sensed, rays)
