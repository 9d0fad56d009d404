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

import time
from collections.abc import Callable
from typing import Any

import numpy as np
import torch
from gymnasium.vector import VectorEnv

from pyflyt_like.common.validation import check_positive_int

from .policy import PPOPolicy

__all__ = ["dagger", "fit_to_teacher"]

Teacher = Callable[[np.ndarray], np.ndarray]


def fit_to_teacher(policy: PPOPolicy, observations: np.ndarray, actions: np.ndarray,
                   epochs: int, seed: int, batch_size: int = 8192,
                   learning_rate: float = 1e-3, merge_statistics: bool = True) -> float:
    """Fit ``policy``'s mean action to the teacher's ``actions`` (least squares, Adam), in
    place, after merging the observations into its normalisation statistics if
    ``merge_statistics``.

    Args:
        policy: the policy; its critic and log-std are left alone.
        observations: (S, obs_dim) raw observations.
        actions: (S, act_dim) the teacher's actions for them.
        epochs: passes over the samples.
        seed: orders the minibatches.
        batch_size: samples per Adam step.
        learning_rate: Adam's step size.
        merge_statistics: merge ``observations`` into the policy's running mean and variance
            first (off when refitting on samples already merged).

    Returns:
        The RMS error of the fitted mean actions over all samples [action units].
    """
    epochs = check_positive_int("epochs", epochs)
    batch_size = check_positive_int("batch_size", batch_size)
    x = torch.from_numpy(np.ascontiguousarray(observations, np.float32))
    y = torch.from_numpy(np.ascontiguousarray(actions, np.float32))
    if x.ndim != 2 or x.shape[1] != policy.obs_dim or y.shape != (x.shape[0], policy.act_dim):
        raise ValueError(f"observations and actions must be (S, {policy.obs_dim}) and "
                         f"(S, {policy.act_dim}), got {tuple(x.shape)} and {tuple(y.shape)}")
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
    with torch.no_grad():
        return (policy.actor(normalised) - y).square().mean().sqrt().item()


def dagger(vector_env: VectorEnv, policy: PPOPolicy, teacher: Teacher, *,
           first_steps: int, round_steps: int, epochs: int = 4, teacher_decay: float = 0.5,
           max_samples: int = 4_000_000, seed: int = 0,
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
        vector_env: a Gymnasium vector env with flat Box spaces matching ``policy``.
        policy: the policy to train.
        teacher: (N, obs_dim) observations -> (N, act_dim) actions.
        first_steps, round_steps: vector steps of round 0 and of each later round.
        epochs: fitting passes after each round.
        teacher_decay: in [0, 1); the teacher's share of the actions decays by it per round.
        max_samples: labelled observations kept (the oldest are dropped first).
        seed: the env reset's seed and the fits' minibatch order.
        callback: called after each round with its row (``round``, ``samples``,
            ``teacher_share``, ``rms_error``, ``wall_time_s``); returning False stops.
        max_rounds: rounds at most.

    Returns:
        The rows, one per round.
    """
    first_steps = check_positive_int("first_steps", first_steps)
    round_steps = check_positive_int("round_steps", round_steps)
    max_samples = check_positive_int("max_samples", max_samples)
    max_rounds = check_positive_int("max_rounds", max_rounds)
    if not 0.0 <= teacher_decay < 1.0:
        raise ValueError(f"teacher_decay must be in [0, 1), got {teacher_decay!r}")
    rng = np.random.default_rng(seed)
    n_envs = vector_env.num_envs
    inputs: list[np.ndarray] = []
    labels: list[np.ndarray] = []
    observations, _ = vector_env.reset(seed=seed)
    start = time.perf_counter()
    rows: list[dict[str, Any]] = []
    for round_index in range(max_rounds):
        share = teacher_decay ** round_index
        for _ in range(first_steps if round_index == 0 else round_steps):
            taught = np.asarray(teacher(observations), np.float32)
            inputs.append(np.asarray(observations, np.float32))
            labels.append(taught)
            if share < 1.0:
                flown = policy.act(observations)
                use_teacher = rng.random(n_envs) < share
                flown[use_teacher] = taught[use_teacher]
            else:
                flown = taught
            observations, *_ = vector_env.step(flown)
        _keep_latest(inputs, labels, max_samples)
        error = fit_to_teacher(policy, np.concatenate(inputs), np.concatenate(labels), epochs,
                               seed + round_index, merge_statistics=round_index == 0)
        row = {"round": round_index, "samples": sum(len(x) for x in inputs),
               "teacher_share": share, "rms_error": error,
               "wall_time_s": time.perf_counter() - start}
        rows.append(row)
        if callback is not None and callback(row) is False:
            break
    return rows


def _keep_latest(inputs: list[np.ndarray], labels: list[np.ndarray], most: int) -> None:
    """Drop the oldest whole batches until at most ``most`` samples remain."""
    total = sum(len(x) for x in inputs)
    while len(inputs) > 1 and total > most:
        total -= len(inputs.pop(0))
        labels.pop(0)
