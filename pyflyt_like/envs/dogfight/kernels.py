"""The dogfight's compiled code: the rules of :mod:`pyflyt_like.rules.dogfight` compiled
(for the PettingZoo scene too), and ``Dogfight-v0``'s fused step: every world's actions,
physics, guns, endings, rewards, observations and autoreset in one call.

Arrays of the task (:class:`DogfightArrays`), per world ``w`` and aircraft ``d`` (n per
world): health (W, n); in_play (W, n) bool; received_total, dealt, received (W, n) int
(since the reset, this step, this step); pair_total (W, n, n) int (hits of d on e since
the reset); previous_cost, cost (W, n, n) engagement costs; last_action (W, n, k) the
clipped normalised actions; aux (W, n, m + 1) deflections and throttle; touched, failed, lost,
was_in_play (W, n) bool scratch; step_count (W,) int; team_win (W,) int; streams (W,)
uint64 (:mod:`pyflyt_like.batch.world_random`); uniforms (W, 3, n), spawn_pos, spawn_euler
(W, n, 3) the last spawn draw.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit

from pyflyt_like.batch.finite import world_finite
from pyflyt_like.batch.fixedwing.pipeline import step_world
from pyflyt_like.batch.fixedwing.reset import reset_world
from pyflyt_like.batch.pipeline import KERNEL
from pyflyt_like.batch.world_random import next_uniform
from pyflyt_like.compiled.jit import compile_shared
from pyflyt_like.compiled.rotations import quat_to_euler, quat_to_matrix
from pyflyt_like.rules import dogfight as rules

spawn_on_circle = compile_shared(rules.spawn_on_circle)
score_hits = compile_shared(rules.score_hits, quat_to_matrix)
engagement_costs = compile_shared(rules.engagement_costs, quat_to_matrix)
_best_decrease = compile_shared(rules._best_decrease)
step_rewards = compile_shared(rules.step_rewards, _best_decrease)
out_of_dome = compile_shared(rules.out_of_dome)
observe = compile_shared(rules.observe, quat_to_matrix, quat_to_euler)

DogfightArrays = namedtuple("DogfightArrays", [
    "health", "in_play", "received_total", "dealt", "received", "pair_total",
    "previous_cost", "cost", "last_action", "aux", "touched", "failed", "lost",
    "was_in_play", "step_count", "team_win", "streams", "uniforms", "spawn_pos",
    "spawn_euler"])

#: The fixed numbers of the task: team (n,) int; mode (the engine's flight mode);
#: lethal_distance [m], cos_lethal_sq, damage_per_hit, aggressiveness, cooperativeness,
#: sparse (bool), dome_size [m]; max_steps, aviary_steps (control periods per agent step),
#: physics_steps (physics steps per control period); action_low, action_high,
#: setpoint_offset, setpoint_scale (k,) the normalised action's bounds and its map to the
#: setpoint; observation_low, observation_high (size,); use_quaternion (bool); radius_low,
#: radius_high, height_low, height_high [m] the spawn ranges; start_velocity (n, 3) body
#: [m/s].
DogfightParams = namedtuple("DogfightParams", [
    "team", "mode", "lethal_distance", "cos_lethal_sq", "damage_per_hit", "aggressiveness",
    "cooperativeness", "sparse", "dome_size", "max_steps", "aviary_steps", "physics_steps",
    "action_low", "action_high", "setpoint_offset", "setpoint_scale", "observation_low",
    "observation_high", "use_quaternion", "radius_low", "radius_high", "height_low",
    "height_high", "start_velocity"])


def zeros_arrays(n_worlds: int, n: int, k: int, aux_size: int) -> DogfightArrays:
    """A DogfightArrays for ``n_worlds`` worlds of ``n`` aircraft with ``k`` actions and
    ``aux_size`` aux entries (the surfaces and the throttle) each."""
    shape = (n_worlds, n)
    return DogfightArrays(
        health=np.ones(shape), in_play=np.zeros(shape, bool),
        received_total=np.zeros(shape, np.int64), dealt=np.zeros(shape, np.int64),
        received=np.zeros(shape, np.int64), pair_total=np.zeros((*shape, n), np.int64),
        previous_cost=np.zeros((*shape, n)), cost=np.zeros((*shape, n)),
        last_action=np.zeros((*shape, k)), aux=np.zeros((*shape, aux_size)),
        touched=np.zeros(shape, bool), failed=np.zeros(shape, bool),
        lost=np.zeros(shape, bool), was_in_play=np.zeros(shape, bool),
        step_count=np.zeros(n_worlds, np.int64),
        team_win=np.full(n_worlds, rules.UNDECIDED, np.int64),
        streams=np.zeros(n_worlds, np.uint64), uniforms=np.zeros((n_worlds, 3, n)),
        spawn_pos=np.zeros((*shape, 3)), spawn_euler=np.zeros((*shape, 3)))


@njit(cache=True, _nrt=False, error_model="numpy", inline="always")
def _observe_world(state, task, params, w, observation):
    """World ``w``'s observations into ``observation`` (n, size)."""
    aux = task.aux[w]
    surfaces = state.deflection.shape[2]
    for d in range(aux.shape[0]):
        for s in range(surfaces):
            aux[d, s] = state.deflection[w, d, s]
        aux[d, surfaces] = state.throttle[w, d]
    observe(state.pos[w], state.quat[w], state.vel[w], state.ang_vel[w], aux,
            task.last_action[w], task.health[w], task.in_play[w], params.team,
            params.use_quaternion, params.observation_low, params.observation_high,
            observation)


@njit(cache=True, _nrt=False, error_model="numpy", inline="always")
def _restart_world(state, plant, nominal, config, task, params, w, observation):
    """A new episode in world ``w``: spawn drawn from its stream, engine and task reset."""
    uniforms = task.uniforms[w]
    for row in range(3):
        for d in range(uniforms.shape[1]):
            uniforms[row, d] = next_uniform(task.streams, w)
    spawn_on_circle(uniforms, params.radius_low, params.radius_high, params.height_low,
                    params.height_high, task.spawn_pos[w], task.spawn_euler[w])
    reset_world(state, plant, nominal, config, params.mode, w, task.spawn_pos[w],
                task.spawn_euler[w], params.start_velocity)
    n = task.health.shape[1]
    for d in range(n):
        task.health[w, d] = 1.0
        task.in_play[w, d] = True
        task.received_total[w, d] = 0
        task.dealt[w, d] = 0
        task.received[w, d] = 0
        for e in range(n):
            task.pair_total[w, d, e] = 0
        for a in range(task.last_action.shape[2]):
            task.last_action[w, d, a] = 0.0
    task.step_count[w] = 0
    task.team_win[w] = rules.UNDECIDED
    engagement_costs(state.pos[w], state.quat[w], task.previous_cost[w])
    _observe_world(state, task, params, w, observation)


@njit(cache=True, _nrt=False, error_model="numpy")
def _play_world(state, plant, nominal, config, noise, task, params, actions, w,
                observation, reward):
    """One agent step of world ``w``; returns (terminated, truncated)."""
    n, k = actions.shape
    for d in range(n):
        task.was_in_play[w, d] = task.in_play[w, d]
        task.touched[w, d] = False
        task.dealt[w, d] = 0
        task.received[w, d] = 0
        setpoint = state.setpoint[w, d]
        for a in range(k):
            value = min(max(actions[d, a], params.action_low[a]), params.action_high[a])
            task.last_action[w, d, a] = value
            # out of play: no command (wings level, motor off), as a disarmed vehicle
            setpoint[a] = (params.setpoint_offset[a] + params.setpoint_scale[a] * value
                           if task.in_play[w, d] else 0.0)
    for _ in range(params.aviary_steps):
        for _ in range(params.physics_steps):
            # flight modes -1, 0 and 1 only: neither sensors nor the autopilot compiled
            step_world(state, plant, nominal, config, params.mode, w, noise, 0, None, None)
        for d in range(n):
            if state.contact[w, d]:
                task.touched[w, d] = True
        score_hits(state.pos[w], state.quat[w], params.team, task.in_play[w],
                   params.lethal_distance, params.cos_lethal_sq, params.physics_steps,
                   params.damage_per_hit, task.dealt[w], task.received[w],
                   task.received_total[w], task.pair_total[w], task.health[w])
    task.step_count[w] += 1
    diverged = not world_finite(state, w)
    out_of_dome(state.pos[w], params.dome_size, task.in_play[w], task.lost[w])
    for d in range(n):
        collided = (task.touched[w, d] or diverged) and task.in_play[w, d]
        lost = task.lost[w, d] and not collided
        task.failed[w, d] = collided or lost
        task.lost[w, d] = lost
        if collided or lost:
            task.in_play[w, d] = False
    if diverged:  # scored from the state before; the next step restarts the world
        for d in range(n):
            reward[d] = rules.FAILURE_REWARD if task.was_in_play[w, d] else 0.0
        task.team_win[w] = rules.DRAW
        _restart_world(state, plant, nominal, config, task, params, w, observation)
        return True, False
    engagement_costs(state.pos[w], state.quat[w], task.cost[w])
    winner = step_rewards(task.dealt[w], task.received[w], params.team, task.in_play[w],
                          task.failed[w], task.previous_cost[w], task.cost[w],
                          params.damage_per_hit, params.aggressiveness,
                          params.cooperativeness, params.sparse, reward)
    if not params.sparse:
        for d in range(n):
            for e in range(n):
                task.previous_cost[w, d, e] = task.cost[w, d, e]
    for d in range(n):
        if not task.was_in_play[w, d]:
            reward[d] = 0.0  # out of play before this step: its agent is done
    task.team_win[w] = winner
    _observe_world(state, task, params, w, observation)
    terminated = winner != rules.UNDECIDED
    return terminated, (not terminated) and task.step_count[w] >= params.max_steps


@njit(**KERNEL)
def dogfight_rows(state, plant, nominal, config, noise, task, params, actions, restart, play,
                  observation, reward, terminated, truncated, first, last):
    """One agent step of worlds ``first`` to ``last - 1`` (the signature of every task
    kernel, :mod:`pyflyt_like.envs.base.fused_vector_env`): worlds of ``restart`` ((W,)
    bool) start a new episode (reward 0, not terminated nor truncated); with ``play`` the
    others apply ``actions`` (W, n, k) and play. Writes ``observation`` (W, n, size),
    ``reward`` (W, n), ``terminated`` and ``truncated`` (W,) bool (the world's episode
    ended: decided, or the time limit)."""
    for w in range(first, last):
        if restart[w]:
            _restart_world(state, plant, nominal, config, task, params, w, observation[w])
            for d in range(reward.shape[1]):
                reward[w, d] = 0.0
            terminated[w] = False
            truncated[w] = False
        elif play:
            terminated[w], truncated[w] = _play_world(
                state, plant, nominal, config, noise, task, params, actions[w], w,
                observation[w], reward[w])
