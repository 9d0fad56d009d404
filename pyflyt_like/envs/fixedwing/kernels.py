"""Fixedwing-Reach's compiled code: the rules of :mod:`pyflyt_like.rules.fixedwing_reach`
compiled (for the PyBullet twin too), the per-world draws, and ``Fixedwing-Reach-v0``'s
fused step: every world's actions, physics, targets, endings, rewards, observations and
autoreset in one call.

Arrays of the task (:class:`ReachArrays`), per world ``w`` (one aircraft each): target
(W, 3) [m]; distance (W,) [m] to it; reached (W,) int targets this episode; step_count (W,)
int; ending (W,) int (:data:`~pyflyt_like.rules.fixedwing_reach.NONE`, ``CRASH``,
``OUT_OF_BOUNDS``) of the last step; last_action (W, k) the clipped normalised actions;
pending (W, delay + 1, k) the ring of delayed actions and slot (W,) int its cursor; aux
(W, m + 1) scratch for the deflections and throttle; normals (W, size) the last noise draw;
streams (W,) uint64 the spawn and target draws and noise_streams (W,) uint64 the
observation noise's (:mod:`pyflyt_like.batch.world_random`; two streams, so that a world's
targets are the same sequence whatever the noise or the flight); spawn_pos, spawn_euler
(W, 1, 3) the last spawn draw.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit

from pyflyt_like.batch.finite import world_finite
from pyflyt_like.batch.fixedwing.pipeline import step_world
from pyflyt_like.batch.fixedwing.reset import reset_world
from pyflyt_like.batch.pipeline import KERNEL
from pyflyt_like.batch.world_random import next_normals, next_uniform
from pyflyt_like.compiled.jit import compile_shared
from pyflyt_like.compiled.rotations import quat_to_matrix
from pyflyt_like.rules import action_queue
from pyflyt_like.rules import fixedwing_reach as rules

place_target = compile_shared(rules.place_target)
spawn_pose = compile_shared(rules.spawn_pose)
target_distance = compile_shared(rules.target_distance)
queue_action = compile_shared(action_queue.queue_action)
to_setpoint = compile_shared(action_queue.to_setpoint)
score_step = compile_shared(rules.score_step, target_distance)
observe = compile_shared(rules.observe, quat_to_matrix)

ReachArrays = namedtuple("ReachArrays", [
    "target", "distance", "reached", "step_count", "ending", "last_action", "pending",
    "slot", "aux", "normals", "streams", "noise_streams", "spawn_pos", "spawn_euler"])

#: The fixed numbers of the task: mode (the engine's flight mode); max_steps, aviary_steps
#: (control periods per agent step), physics_steps (physics steps per control period);
#: action_low, action_high, setpoint_offset, setpoint_scale (k,) the normalised action's
#: bounds and its map to the setpoint; observation_low, observation_high (size,);
#: noise_std the observation noise's standard deviation; start_velocity (1, 3) body [m/s].
ReachParams = namedtuple("ReachParams", [
    "mode", "max_steps", "aviary_steps", "physics_steps", "action_low", "action_high",
    "setpoint_offset", "setpoint_scale", "observation_low", "observation_high", "noise_std",
    "start_velocity"])


def zeros_arrays(n_worlds: int, k: int, aux_size: int, size: int, delay: int) -> ReachArrays:
    """A ReachArrays for ``n_worlds`` worlds with ``k`` actions, ``aux_size`` aux entries,
    observations of ``size`` and ``delay`` agent steps of action delay."""
    w = n_worlds
    return ReachArrays(
        target=np.zeros((w, 3)), distance=np.zeros(w), reached=np.zeros(w, np.int64),
        step_count=np.zeros(w, np.int64), ending=np.zeros(w, np.int64),
        last_action=np.zeros((w, k)), pending=np.zeros((w, delay + 1, k)),
        slot=np.zeros(w, np.int64), aux=np.zeros((w, aux_size)), normals=np.zeros((w, size)),
        streams=np.zeros(w, np.uint64), noise_streams=np.zeros(w, np.uint64),
        spawn_pos=np.zeros((w, 1, 3)), spawn_euler=np.zeros((w, 1, 3)))


@njit(cache=True, _nrt=False, error_model="numpy")
def draw_target(streams, w, target):
    """A new target for world ``w`` from its stream into ``target`` (3,) [m]."""
    u0 = next_uniform(streams, w)
    u1 = next_uniform(streams, w)
    u2 = next_uniform(streams, w)
    place_target(u0, u1, u2, target)


@njit(cache=True, _nrt=False, error_model="numpy")
def draw_spawn(streams, w, spawn_pos, spawn_euler, target):
    """World ``w``'s spawn (``spawn_pos``, ``spawn_euler`` (1, 3)) and first target (3,),
    in that order, from its stream."""
    spawn_pose(next_uniform(streams, w), spawn_pos, spawn_euler)
    draw_target(streams, w, target)


@njit(cache=True, _nrt=False, error_model="numpy")
def observe_world(pos, quat, vel, ang_vel, aux, task, params, w, observation):
    """World ``w``'s observation (size,) of its aircraft's state (``pos``, ``quat``,
    ``vel``, ``ang_vel``, ``aux`` of one aircraft), with noise drawn from its noise stream
    when ``params.noise_std > 0``."""
    normals = task.normals[w]
    if params.noise_std > 0.0:
        next_normals(task.noise_streams, w, normals)
    observe(pos, quat, vel, ang_vel, aux, task.target[w], task.distance[w],
            task.last_action[w], normals, params.noise_std, params.observation_low,
            params.observation_high, observation)


@njit(cache=True, _nrt=False, error_model="numpy")
def score_world(pos, touched, finite, task, w):
    """Score world ``w``'s agent step (its aircraft at ``pos`` (3,)): reward, targets (a
    new one drawn on arrival), ending; returns the reward."""
    reward, arrived, ending, distance = score_step(pos, task.target[w], task.distance[w],
                                                   touched, finite)
    if arrived:
        task.reached[w] += 1
        draw_target(task.streams, w, task.target[w])
        distance = target_distance(pos, task.target[w])
    task.distance[w] = distance
    task.ending[w] = ending
    task.step_count[w] += 1
    return reward


@njit(cache=True, _nrt=False, error_model="numpy")
def start_task(pos, task, w):
    """Clear world ``w``'s episode counters for an aircraft spawned at ``pos`` (3,)."""
    task.distance[w] = target_distance(pos, task.target[w])
    task.reached[w] = 0
    task.step_count[w] = 0
    task.ending[w] = rules.NONE
    task.slot[w] = 0
    for a in range(task.last_action.shape[1]):
        task.last_action[w, a] = 0.0
    for s in range(task.pending.shape[1]):
        for a in range(task.pending.shape[2]):
            task.pending[w, s, a] = 0.0


@njit(cache=True, _nrt=False, error_model="numpy", inline="always")
def _observe_state(state, task, params, w, observation):
    aux = task.aux[w]
    surfaces = state.deflection.shape[2]
    for s in range(surfaces):
        aux[s] = state.deflection[w, 0, s]
    aux[surfaces] = state.throttle[w, 0]
    observe_world(state.pos[w, 0], state.quat[w, 0], state.vel[w, 0], state.ang_vel[w, 0],
                  aux, task, params, w, observation)


@njit(cache=True, _nrt=False, error_model="numpy", inline="always")
def _restart_world(state, plant, nominal, config, task, params, w, observation):
    """A new episode in world ``w``: spawn and target from its stream, engine and task
    reset (the plant is not redrawn here: the VectorEnv does it before the call)."""
    draw_spawn(task.streams, w, task.spawn_pos[w], task.spawn_euler[w], task.target[w])
    reset_world(state, plant, nominal, config, params.mode, w, task.spawn_pos[w],
                task.spawn_euler[w], params.start_velocity)
    start_task(state.pos[w, 0], task, w)
    _observe_state(state, task, params, w, observation)


@njit(cache=True, _nrt=False, error_model="numpy")
def _play_world(state, plant, nominal, config, noise, task, params, action, w, observation):
    """One agent step of world ``w``; returns (reward, terminated, truncated)."""
    slot = queue_action(action, params.action_low, params.action_high, task.last_action[w],
                        task.pending[w], task.slot[w])
    task.slot[w] = slot
    to_setpoint(task.pending[w, slot], params.setpoint_offset, params.setpoint_scale,
                state.setpoint[w, 0])
    touched = False
    for _ in range(params.aviary_steps):
        for _ in range(params.physics_steps):
            # flight modes -1, 0 and 1 only: neither sensors nor the autopilot compiled
            step_world(state, plant, nominal, config, params.mode, w, noise, 0, None, None)
        if state.contact[w, 0]:
            touched = True
    finite = world_finite(state, w)
    reward = score_world(state.pos[w, 0], touched, finite, task, w)
    if not finite:  # the next step restarts the world; show a valid state until then
        _restart_world(state, plant, nominal, config, task, params, w, observation)
        task.ending[w] = rules.CRASH
        return reward, True, False
    _observe_state(state, task, params, w, observation)
    terminated = task.ending[w] != rules.NONE
    return reward, terminated, (not terminated) and task.step_count[w] >= params.max_steps


@njit(**KERNEL)
def reach_rows(state, plant, nominal, config, noise, task, params, actions, restart, play,
               observation, reward, terminated, truncated, first, last):
    """One agent step of worlds ``first`` to ``last - 1`` (the signature of every task
    kernel, :mod:`pyflyt_like.envs.base.fused_vector_env`): worlds of ``restart`` ((W,)
    bool) start a new episode (reward 0, not terminated nor truncated); with ``play`` the
    others apply ``actions`` (W, k) and play. Writes ``observation`` (W, size), ``reward``
    (W,), ``terminated`` and ``truncated`` (W,) bool."""
    for w in range(first, last):
        if restart[w]:
            _restart_world(state, plant, nominal, config, task, params, w, observation[w])
            reward[w] = 0.0
            terminated[w] = False
            truncated[w] = False
        elif play:
            reward[w], terminated[w], truncated[w] = _play_world(
                state, plant, nominal, config, noise, task, params, actions[w], w,
                observation[w])
