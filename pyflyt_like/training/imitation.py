"""Imitation of a teacher on a vector env: behaviour cloning and DAgger.

Behaviour cloning fits the policy's mean action to a teacher's on the states the teacher
visits; its errors then take the policy to states the teacher never showed it, where the
errors grow (compounding error). DAgger (Ross, Gordon and Bagnell 2011, "A Reduction of
Imitation Learning and Structured Prediction to No-Regret Online Learning",
arXiv:1011.0686) instead lets the policy fly more and more of the steps while the teacher
keeps labelling every state visited, and refits on the aggregate of all labelled states.

The teacher is any callable mapping a batch of observations ``(N, obs_dim)`` to actions
``(N, act_dim)`` (a scripted pilot, a controller, another policy).
"""

from __future__ import annotations

import copy
import secrets
import time
from collections.abc import Callable
from typing import Any

import numpy as np
import torch
from gymnasium.vector import VectorEnv

from pyflyt_like.common.validation import (
    NumericalError,
    check_bool,
    check_finite,
    check_positive_float,
    check_positive_int,
    check_seed,
)

from .memory import check_imitation_memory, sizes_text
from .policy import PPOPolicy, box_space_sizes

__all__ = ["dagger", "fit_to_teacher"]

Teacher = Callable[[np.ndarray], np.ndarray]


def fit_to_teacher(policy: PPOPolicy, observations: np.ndarray, actions: np.ndarray,
                   epochs: int, seed: int | None, batch_size: int = 8192,
                   learning_rate: float = 1e-3, merge_statistics: bool = True) -> float:
    """Fit ``policy``'s mean action to the teacher's ``actions`` (least squares, Adam), in
    place, after merging the observations into its normalisation statistics if
    ``merge_statistics``.

    Args:
        policy: the policy; its critic and log-std are left alone.
        observations: (S, obs_dim) raw observations, S >= 1, finite.
        actions: (S, act_dim) the teacher's actions for them, finite.
        epochs: passes over the samples, >= 1.
        seed: orders the minibatches: an int in [0, 2**63), or None (drawn from the OS).
        batch_size: samples per Adam step, >= 1.
        learning_rate: Adam's step size, finite and > 0.
        merge_statistics: merge ``observations`` into the policy's running mean and variance
            first (off when refitting on samples already merged).

    Returns:
        The RMS error of the fitted mean actions over all samples [action units].

    Raises:
        TypeError: an argument of the wrong kind (``policy`` not a PPOPolicy, non-numeric
            samples, a bool or a string for a number).
        ValueError: an argument out of range, samples of the wrong shape or with NaN or inf
            (the message names the first such row), or samples too many for the memory
            (the estimate in the message). All are raised before the policy is touched.
        NumericalError: the fit diverged (the weights stopped being finite: lower
            ``learning_rate``); the policy is then restored as it was before the call.
    """
    _check_policy(policy)
    epochs = check_positive_int("epochs", epochs)
    seed = _check_seed(seed)
    batch_size = check_positive_int("batch_size", batch_size)
    learning_rate = check_positive_float("learning_rate", learning_rate)
    merge_statistics = check_bool("merge_statistics", merge_statistics)
    x = _samples("observations", observations, policy.obs_dim)
    y = _samples("actions", actions, policy.act_dim)
    if len(x) != len(y):
        raise ValueError(f"observations and actions must hold as many samples, got "
                         f"{len(x)} and {len(y)}")
    check_imitation_memory(f"fitting {len(x)} samples (obs_dim={policy.obs_dim}, "
                           f"act_dim={policy.act_dim}, "
                           f"hidden_sizes={sizes_text(policy.hidden_sizes)})", len(x),
                           policy.obs_dim, policy.act_dim, policy.hidden_sizes, batch_size,
                           hint="fit fewer samples")
    return _fit(policy, x, y, epochs, seed, batch_size, learning_rate, merge_statistics)


def _fit(policy: PPOPolicy, observations: np.ndarray, actions: np.ndarray, epochs: int,
         seed: int, batch_size: int, learning_rate: float, merge_statistics: bool) -> float:
    """:func:`fit_to_teacher` on checked (S, D) and (S, A) float32 samples."""
    before = copy.deepcopy(policy.state_dict())
    x = torch.from_numpy(observations)
    y = torch.from_numpy(actions)
    if merge_statistics:
        policy.update_obs_stats(x.double().mean(0), x.double().var(0, unbiased=False),
                                float(x.shape[0]))
    optimizer = torch.optim.Adam(policy.actor.parameters(), lr=learning_rate)
    generator = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        normalised = policy.normalize(x)
    for _ in range(epochs):
        order = torch.randperm(x.shape[0], generator=generator)
        for first in range(0, x.shape[0], batch_size):
            rows = order[first:first + batch_size]
            loss = (policy.actor(normalised[rows]) - y[rows]).square().mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
    if not all(bool(torch.isfinite(p).all()) for p in policy.actor.parameters()):
        policy.load_state_dict(before)
        raise NumericalError(f"the fit diverged: the actor's weights are no longer finite "
                             f"(learning_rate={learning_rate:g}; lower it); the policy was "
                             "restored as it was before the call")
    squares = 0.0
    with torch.no_grad():  # in minibatches: one pass over all S would hold S activations
        for first in range(0, x.shape[0], batch_size):
            error = policy.actor(normalised[first:first + batch_size]) - y[
                first:first + batch_size]
            squares += float(error.double().square().sum())
    return (squares / y.numel()) ** 0.5


def dagger(vector_env: VectorEnv, policy: PPOPolicy, teacher: Teacher, *,
           first_steps: int, round_steps: int, epochs: int = 4, teacher_decay: float = 0.5,
           max_samples: int = 4_000_000, seed: int | None = 0,
           callback: Callable[[dict[str, Any]], bool | None] | None = None,
           max_rounds: int = 1000) -> list[dict[str, Any]]:
    """Train ``policy`` (in place) by DAgger on ``vector_env``.

    Round 0 flies the teacher for ``first_steps`` vector steps (behaviour cloning); round
    r > 0 flies ``round_steps`` steps in which each env's action is the teacher's with
    probability ``teacher_decay ** r`` and the policy's deterministic action otherwise. Every
    visited observation is labelled with the teacher's action; after each round the policy
    is refitted (:func:`fit_to_teacher`, ``epochs`` passes) on the most recent
    ``max_samples`` labelled observations. The observation normalisation is set from round
    0's (the teacher's) observations and then kept, so each refit sees the same inputs. The
    env is reset once, with ``seed``.

    Args:
        vector_env: a Gymnasium vector env with 1-D Box single spaces matching ``policy``.
        policy: the policy to train.
        teacher: (N, obs_dim) observations -> (N, act_dim) actions (numbers, finite).
        first_steps, round_steps: vector steps of round 0 and of each later round, >= 1.
        epochs: fitting passes after each round, >= 1.
        teacher_decay: a number in [0, 1); the teacher's share of the actions decays by it
            per round.
        max_samples: labelled observations kept (the oldest are dropped first), >= 1.
        seed: the env reset's seed and the fits' minibatch order: an int in [0, 2**63), or
            None (drawn from the OS).
        callback: None, or called after each round with its row (``round``, ``samples``,
            ``teacher_share``, ``rms_error``, ``wall_time_s``); returning False stops.
        max_rounds: rounds at most, >= 1.

    Returns:
        The rows, one per round.

    Raises:
        TypeError: an argument of the wrong kind (``vector_env`` not a VectorEnv,
            ``policy`` not a PPOPolicy, ``teacher`` or ``callback`` not callable, a bool or
            a string for a number); the teacher returned something other than numbers.
        ValueError: an argument out of range; spaces that do not match ``policy``; samples
            too many for the memory (the estimate in the message). These are raised before
            the env is reset. While flying: the teacher returned actions of the wrong shape
            or NaN or inf (the message names the teacher, the round and the step, and the
            expected and the returned shape). The policy then holds the fit of the last
            finished round (as before the call if the teacher failed in round 0).
        NumericalError: the env returned NaN or inf observations, or a fit diverged.
    """
    if not isinstance(vector_env, VectorEnv):
        raise TypeError(f"vector_env must be a gymnasium.vector.VectorEnv, got {vector_env!r}")
    _check_policy(policy)
    if not callable(teacher):
        raise TypeError(f"teacher must be a callable mapping (N, obs_dim) observations to "
                        f"(N, act_dim) actions, got {teacher!r}")
    if callback is not None and not callable(callback):
        raise TypeError(f"callback must be None or a callable taking a row, got {callback!r}")
    first_steps = check_positive_int("first_steps", first_steps)
    round_steps = check_positive_int("round_steps", round_steps)
    epochs = check_positive_int("epochs", epochs)
    max_samples = check_positive_int("max_samples", max_samples)
    max_rounds = check_positive_int("max_rounds", max_rounds)
    teacher_decay = check_finite("teacher_decay", teacher_decay)
    if not 0.0 <= teacher_decay < 1.0:
        raise ValueError(f"teacher_decay must be in [0, 1), got {teacher_decay!r}")
    seed = _check_seed(seed)
    obs_dim, act_dim = box_space_sizes(vector_env.single_observation_space,
                                       vector_env.single_action_space)
    if (obs_dim, act_dim) != (policy.obs_dim, policy.act_dim):
        raise ValueError(f"policy has obs_dim={policy.obs_dim}, act_dim={policy.act_dim}; "
                         f"vector_env has {obs_dim} and {act_dim}")
    n_envs = check_positive_int("vector_env.num_envs", vector_env.num_envs)
    # Most samples held at once: those kept plus a round's, before the oldest are dropped.
    steps = max(first_steps, round_steps)
    peak = min(max_samples + steps * n_envs,
               (first_steps + round_steps * (max_rounds - 1)) * n_envs)
    check_imitation_memory(f"DAgger on num_envs={n_envs} with max_samples={max_samples} "
                           f"(obs_dim={obs_dim}, act_dim={act_dim}, hidden_sizes="
                           f"{sizes_text(policy.hidden_sizes)})", peak, obs_dim, act_dim,
                           policy.hidden_sizes, _BATCH_SIZE,
                           hint="use a smaller max_samples, fewer envs or fewer steps")
    name = _teacher_name(teacher)
    rng = np.random.default_rng(seed)
    inputs: list[np.ndarray] = []
    labels: list[np.ndarray] = []
    observations, _ = vector_env.reset(seed=seed)
    start = time.perf_counter()
    rows: list[dict[str, Any]] = []
    for round_index in range(max_rounds):
        share = teacher_decay ** round_index
        for step in range(first_steps if round_index == 0 else round_steps):
            stored = np.array(observations, np.float32)  # a copy: envs may reuse theirs
            if not np.isfinite(stored).all():
                raise NumericalError(f"vector_env returned non-finite observations (NaN or "
                                     f"inf) in DAgger round {round_index}, step {step}")
            taught = _labels(name, teacher(observations), (n_envs, act_dim), round_index,
                             step)
            inputs.append(stored)
            labels.append(taught)
            if share < 1.0:
                flown = policy.act(observations)
                use_teacher = rng.random(n_envs) < share
                flown[use_teacher] = taught[use_teacher]
            else:
                flown = taught
            observations, *_ = vector_env.step(flown)
        _keep_latest(inputs, labels, max_samples)
        error = _fit(policy, np.concatenate(inputs), np.concatenate(labels), epochs,
                     (seed + round_index) % 2**63, _BATCH_SIZE, _LEARNING_RATE,
                     round_index == 0)
        row = {"round": round_index, "samples": sum(len(x) for x in inputs),
               "teacher_share": share, "rms_error": error,
               "wall_time_s": time.perf_counter() - start}
        rows.append(row)
        if callback is not None and callback(row) is False:
            break
    return rows


# fit_to_teacher's defaults, which DAgger's refits use
_BATCH_SIZE = 8192
_LEARNING_RATE = 1e-3


def _check_policy(policy: object) -> None:
    if not isinstance(policy, PPOPolicy):
        raise TypeError(f"policy must be a pyflyt_like.training.PPOPolicy, got {policy!r}")


def _check_seed(value: object) -> int:
    seed = check_seed("seed", value)
    return secrets.randbits(63) if seed is None else seed


def _samples(name: str, value: object, width: int) -> np.ndarray:
    """``value`` as a C-contiguous (S, width) float32 array of finite numbers, S >= 1."""
    array = np.asarray(value)
    if array.dtype.kind not in "iuf":
        raise TypeError(f"{name} must be a numeric array of shape (S, {width}), got dtype "
                        f"{array.dtype}")
    if array.ndim != 2 or array.shape[1] != width or array.shape[0] == 0:
        raise ValueError(f"{name} must have shape (S, {width}) with S >= 1, got "
                         f"{array.shape}")
    with np.errstate(over="ignore"):  # beyond float32: inf, refused just below
        array = np.ascontiguousarray(array, np.float32)
    _check_finite_rows(name, array, "")
    return array


def _check_finite_rows(name: str, array: np.ndarray, where: str) -> None:
    """Raise ValueError naming the first row of ``array`` with NaN or inf (float32: also a
    number too large for it)."""
    finite = np.isfinite(array).all(axis=1)
    if not finite.all():
        row = int(np.argmin(finite))
        raise ValueError(f"{name} must be finite (no NaN or inf, within float32){where}: row "
                         f"{row} is {array[row].tolist()}")


def _labels(name: str, value: object, shape: tuple[int, int], round_index: int,
            step: int) -> np.ndarray:
    """The teacher's ``value`` for one vector step, checked: (N, A) finite numbers."""
    where = f" in DAgger round {round_index}, step {step}"
    array = np.asarray(value)
    if array.dtype.kind not in "iuf":
        raise TypeError(f"teacher {name} must return numeric actions of shape {shape}, got "
                        f"dtype {array.dtype}{where}")
    if array.shape != shape:
        raise ValueError(f"teacher {name} must return actions of shape {shape} (num_envs, "
                         f"act_dim), got shape {array.shape}{where}")
    with np.errstate(over="ignore"):  # beyond float32: inf, refused just below
        array = np.asarray(array, np.float32)
    _check_finite_rows(f"teacher {name}'s actions", array, where)
    return array


def _teacher_name(teacher: object) -> str:
    """How messages call the teacher: a function's name, else its class's."""
    return getattr(teacher, "__qualname__", None) or type(teacher).__qualname__


def _keep_latest(inputs: list[np.ndarray], labels: list[np.ndarray], most: int) -> None:
    """Drop the oldest whole batches until at most ``most`` samples remain."""
    total = sum(len(x) for x in inputs)
    while len(inputs) > 1 and total > most:
        total -= len(inputs.pop(0))
        labels.pop(0)
