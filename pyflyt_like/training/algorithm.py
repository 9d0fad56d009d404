"""PPO for continuous actions on a Gymnasium 1.x ``VectorEnv`` with NEXT_STEP autoreset.

Each iteration collects one rollout of ``n_steps`` steps of all ``num_envs`` envs
(:mod:`pyflyt_like.training.rollout`, which also explains how NEXT_STEP reset transitions
and truncation bootstrapping are handled), then makes ``n_epochs`` passes of
``n_minibatches`` clipped-surrogate updates over it (Schulman et al. 2017, "Proximal Policy
Optimization Algorithms", arXiv:1707.06347).
"""

from __future__ import annotations

import math
import secrets
import time
from collections.abc import Callable
from typing import Any

import torch
from gymnasium.vector import AutoresetMode, VectorEnv
from torch import nn

from pyflyt_like.common.validation import NumericalError, check_positive_int

from .config import PPOConfig
from .memory import check_training_memory
from .policy import OBS_VAR_EPS, PPOPolicy, box_space_sizes
from .rollout import EnvCursor, RolloutBuffers, RolloutSummary, collect_rollout, compute_gae

__all__ = ["train_ppo"]

_STAT_NAMES = ("policy_loss", "value_loss", "entropy", "approx_kl", "clip_fraction",
               "bc_loss")


def train_ppo(vector_env: VectorEnv, config: PPOConfig,
              callback: Callable[[dict[str, Any]], bool | None] | None = None,
              policy: PPOPolicy | None = None, reference: PPOPolicy | None = None,
              ) -> tuple[PPOPolicy, list[dict[str, Any]]]:
    """Train a :class:`PPOPolicy` on ``vector_env``.

    The env must be a Gymnasium 1.x ``VectorEnv`` with 1-D Box single observation and action
    spaces and ``metadata["autoreset_mode"] == AutoresetMode.NEXT_STEP``. It is reset once,
    with ``seed=config.seed``, and then only stepped. Training uses torch's current thread
    count and leaves torch's global generator untouched (a private one is seeded from
    ``config.seed``), so the same seed and env give the same run (``seed=None``: a seed
    drawn from the OS).

    Args:
        vector_env: the env, N = ``num_envs``.
        config: hyperparameters.
        callback: None, or called with each history row after its iteration; returning
            False stops training (None or anything else continues).
        policy: None for a fresh policy (``config``'s sizes, seeded from ``config.seed``),
            or a policy to train further, in place (its sizes must fit the env; the
            optimiser starts afresh). Self-play passes its own, to snapshot it for the
            opponents while it trains.
        reference: the policy the behaviour-cloning term pulls the actor's mean toward
            (``config.bc_coef``; needed when it is > 0), e.g. a frozen copy of an imitated
            policy being fine-tuned; it is only read.

    Returns:
        The trained policy and one history dict per iteration with ``iteration`` (from 1),
        ``env_steps`` (cumulative, N * T per iteration, reset transitions included),
        ``wall_time_s`` (cumulative since the call), ``mean_return`` / ``mean_length`` (of the
        episodes that ended in this iteration, unscaled rewards; NaN if none), ``n_episodes``,
        ``policy_loss``, ``value_loss`` (0.5 * mean squared error, scaled rewards),
        ``entropy`` (per sample, nats), ``approx_kl`` and ``clip_fraction`` (means over the
        minibatches), ``bc_loss`` (mean squared distance to the reference's mean actions;
        NaN without a reference), ``epochs`` (run before ``target_kl`` stopped them) and
        ``actor_updated`` (False in the critic's warm-up).

    Raises:
        TypeError: ``vector_env``, ``config`` or ``callback`` of the wrong kind, or spaces
            that are not 1-D Boxes.
        ValueError: another autoreset mode, ``n_minibatches`` above ``num_envs * n_steps``,
            or a run whose estimated memory
            (:func:`~pyflyt_like.training.memory.training_memory_bytes`) exceeds half the
            machine's. All of these are raised before the env is reset or anything is
            allocated.
        NumericalError: the env returned NaN or inf observations or rewards, or the policy's
            parameters stopped being finite (training diverged); checked once per
            iteration.
    """
    if not isinstance(config, PPOConfig):
        raise TypeError(f"config must be a PPOConfig, got {config!r}")
    if callback is not None and not callable(callback):
        raise TypeError(f"callback must be None or a callable taking a history row, "
                        f"got {callback!r}")
    obs_dim, act_dim = _check_vector_env(vector_env)
    n_envs = check_positive_int("vector_env.num_envs", vector_env.num_envs)
    n_steps = config.n_steps
    batch = n_envs * n_steps
    if config.n_minibatches > batch:
        raise ValueError(f"n_minibatches={config.n_minibatches} exceeds the rollout size "
                         f"num_envs * n_steps = {batch}")
    check_training_memory(n_steps, n_envs, obs_dim, act_dim, config.hidden_sizes,
                          config.n_minibatches)
    n_iterations = math.ceil(config.total_steps / batch)
    seed = secrets.randbits(63) if config.seed is None else config.seed

    if policy is None:
        policy = PPOPolicy.from_spaces(vector_env.single_observation_space,
                                       vector_env.single_action_space, config, seed=seed)
    elif not isinstance(policy, PPOPolicy):
        raise TypeError(f"policy must be None or a PPOPolicy, got {policy!r}")
    elif (policy.obs_dim, policy.act_dim) != (obs_dim, act_dim):
        raise ValueError(f"policy has obs_dim={policy.obs_dim}, act_dim={policy.act_dim}; "
                         f"the env has {obs_dim} and {act_dim}")
    _check_reference(reference, config, obs_dim, act_dim)
    gen = torch.Generator().manual_seed(seed)
    optimizer = _make_adam(policy, config.learning_rate)
    buffers = RolloutBuffers.allocate(n_steps, n_envs, obs_dim, act_dim)
    cursor = EnvCursor.reset(vector_env, seed)
    history: list[dict[str, Any]] = []
    start = time.perf_counter()

    for iteration in range(1, n_iterations + 1):
        if config.anneal_lr:
            for group in optimizer.param_groups:
                group["lr"] = config.learning_rate * (1.0 - (iteration - 1) / n_iterations)
        summary = collect_rollout(vector_env, policy, buffers, cursor, gen,
                                  reward_scale=config.reward_scale,
                                  track_obs_stats=config.normalize_observations)
        _check_rollout_finite(buffers, summary, iteration, config.reward_scale)
        advantages, returns = compute_gae(buffers.rewards, buffers.values, buffers.terminated,
                                          buffers.truncated, buffers.valid, config.gamma,
                                          config.gae_lambda)
        observations = buffers.observations.view(batch, obs_dim)
        stats = _update(policy, optimizer, config, gen, observations,
                        buffers.actions.view(batch, act_dim), buffers.log_probs.view(batch),
                        advantages.view(batch), returns.view(batch), buffers.valid.view(batch),
                        update_actor=iteration > config.critic_warmup_iterations,
                        bc_weight=config.bc_weight(iteration),
                        reference_means=_reference_means(reference, policy, observations))
        _check_parameters_finite(policy, iteration)
        if config.normalize_observations:
            # After the update, so the update sees the normalisation the rollout used.
            policy.update_obs_stats(*summary.observation_moments(), float(summary.obs_count))
        row = _history_row(iteration, iteration * batch, time.perf_counter() - start,
                           summary, stats)
        history.append(row)
        if callback is not None and callback(row) is False:
            break
    return policy, history


def _check_vector_env(vector_env: object) -> tuple[int, int]:
    """(D, A) of a NEXT_STEP ``VectorEnv`` with 1-D Box single spaces, else raise."""
    if not isinstance(vector_env, VectorEnv):
        raise TypeError(f"vector_env must be a gymnasium.vector.VectorEnv, got {vector_env!r}")
    mode = vector_env.metadata.get("autoreset_mode")
    if mode != AutoresetMode.NEXT_STEP and mode != AutoresetMode.NEXT_STEP.value:
        raise ValueError(f"vector_env.metadata['autoreset_mode'] must be "
                         f"AutoresetMode.NEXT_STEP, got {mode!r}")
    return box_space_sizes(vector_env.single_observation_space,
                           vector_env.single_action_space)


def _check_rollout_finite(buffers: RolloutBuffers, summary: RolloutSummary,
                          iteration: int, reward_scale: float) -> None:
    """Raise NumericalError if the env returned NaN or inf: one vectorised pass over the
    rollout per iteration (the raw observation sums catch an inf the normaliser clipped).
    Observations first: a NaN observation makes NaN actions, and those NaN rewards."""
    if not (bool(torch.isfinite(buffers.observations).all())
            and bool(torch.isfinite(summary.obs_sum).all())):
        raise NumericalError(f"vector_env returned non-finite observations (NaN or inf) in "
                             f"iteration {iteration}")
    if not bool(torch.isfinite(buffers.rewards).all()):
        scaled = (f", or reward_scale={reward_scale:g} made them overflow float32"
                  if reward_scale != 1.0 else "")
        raise NumericalError(f"vector_env returned non-finite rewards (NaN or inf) in "
                             f"iteration {iteration}{scaled}")


def _check_parameters_finite(policy: PPOPolicy, iteration: int) -> None:
    """Raise NumericalError if an update made a parameter NaN or inf (training diverged)."""
    if not all(bool(torch.isfinite(p).all()) for p in policy.parameters()):
        raise NumericalError(f"PPO diverged in iteration {iteration}: the policy's parameters "
                             f"are no longer finite; lower learning_rate, reward_scale, "
                             f"vf_coef or ent_coef")


def _check_reference(reference: object, config: PPOConfig, obs_dim: int, act_dim: int) -> None:
    """Raise unless ``reference`` is None or a PPOPolicy of the env's sizes, and is given
    when ``config.bc_coef`` needs one."""
    if reference is None:
        if config.bc_coef > 0.0:
            raise ValueError(f"config.bc_coef={config.bc_coef!r} needs a reference policy: "
                             f"pass train_ppo(..., reference=...) or set bc_coef=0")
        return
    if not isinstance(reference, PPOPolicy):
        raise TypeError(f"reference must be None or a PPOPolicy, got {reference!r}")
    if (reference.obs_dim, reference.act_dim) != (obs_dim, act_dim):
        raise ValueError(f"reference has obs_dim={reference.obs_dim}, "
                         f"act_dim={reference.act_dim}; the env has {obs_dim} and {act_dim}")


@torch.no_grad()
def _reference_means(reference: PPOPolicy | None, policy: PPOPolicy,
                     observations: torch.Tensor) -> torch.Tensor | None:
    """(B, A) the reference's mean actions on the rollout's (B, D) observations, which the
    buffers hold normalised by ``policy`` (undone here, exactly but for values its clip
    cut); None without a reference."""
    if reference is None:
        return None
    raw = observations
    if policy.normalize_observations:
        raw = observations * torch.sqrt(policy.obs_var + OBS_VAR_EPS) + policy.obs_mean
    return reference(raw.float())


def _make_adam(policy: PPOPolicy, lr: float) -> torch.optim.Adam:
    # The fused CPU kernel updates all parameters in one call instead of ~10 small ops per
    # tensor, which matters at ~20 optimiser steps per iteration; older torch lacks it.
    try:
        return torch.optim.Adam(policy.parameters(), lr=lr, eps=1e-5, fused=True)
    except (RuntimeError, TypeError):
        return torch.optim.Adam(policy.parameters(), lr=lr, eps=1e-5, foreach=True)


def _update(policy: PPOPolicy, optimizer: torch.optim.Optimizer, config: PPOConfig,
            gen: torch.Generator, obs: torch.Tensor, actions: torch.Tensor,
            old_logp: torch.Tensor, advantages: torch.Tensor, returns: torch.Tensor,
            valid: torch.Tensor, *, update_actor: bool, bc_weight: float,
            reference_means: torch.Tensor | None) -> dict[str, float]:
    """Up to ``n_epochs`` x ``n_minibatches`` clipped-surrogate steps over the flattened
    (B, ...) rollout; reset transitions are dropped before minibatching, so every mean in the
    losses is over real transitions only. Without ``update_actor`` only the value loss is
    minimised; ``bc_weight`` weighs the squared distance of the actor's mean to the (B, A)
    ``reference_means``. Returns the minibatch-mean statistics."""
    index = torch.nonzero(valid).squeeze(1)
    n_valid = int(index.numel())
    if n_valid == 0:
        return {**dict.fromkeys(_STAT_NAMES, math.nan), "epochs": 0,
                "actor_updated": update_actor}
    if config.normalize_advantages and n_valid > 1:
        adv_valid = advantages[index]
        advantages = (advantages - adv_valid.mean()) / (adv_valid.std() + 1e-8)
    n_minibatches = min(config.n_minibatches, n_valid)
    obs_dim, act_dim = obs.shape[1], actions.shape[1]
    # One (B, D + A + 3) table, so each minibatch is a single index_select (much cheaper
    # than five advanced-indexing gathers) and the views below cost nothing.
    columns = [obs, actions, old_logp[:, None], advantages[:, None], returns[:, None]]
    if reference_means is not None:
        columns.append(reference_means)
    table = torch.cat(columns, dim=1)
    sums = torch.zeros(len(_STAT_NAMES), dtype=torch.float64)
    clip = config.clip_range
    params = [p for p in policy.parameters() if p.requires_grad]
    epochs = 0
    for _ in range(config.n_epochs):
        order = index[torch.randperm(n_valid, generator=gen)]
        epoch_kl = 0.0
        for mb in order.tensor_split(n_minibatches):
            rows = table.index_select(0, mb)
            mb_obs, mb_act = rows[:, :obs_dim], rows[:, obs_dim:obs_dim + act_dim]
            mb_old_logp, adv, ret = rows[:, obs_dim + act_dim:obs_dim + act_dim + 3].unbind(1)
            logp, entropy, value, mean = policy.log_prob_entropy_value(mb_obs, mb_act)
            log_ratio = logp - mb_old_logp
            ratio = torch.exp(log_ratio)
            policy_loss = -torch.min(ratio * adv, ratio.clamp(1.0 - clip, 1.0 + clip) * adv
                                     ).mean()
            value_loss = 0.5 * (value - ret).square().mean()
            bc_loss = torch.full((), math.nan)
            if reference_means is not None:
                bc_loss = (mean - rows[:, obs_dim + act_dim + 3:]).square().sum(-1).mean()
            loss = config.vf_coef * value_loss
            if update_actor:
                loss = loss + policy_loss - config.ent_coef * entropy
                if bc_weight > 0.0:
                    loss = loss + bc_weight * bc_loss
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            if config.max_grad_norm is not None:
                nn.utils.clip_grad_norm_(params, config.max_grad_norm, foreach=True)
            optimizer.step()
            with torch.no_grad():
                approx_kl = ((ratio - 1.0) - log_ratio).mean()  # low-variance KL(old || new)
                epoch_kl += float(approx_kl) / n_minibatches
                sums += torch.stack([
                    policy_loss, value_loss, entropy, approx_kl,
                    ((ratio - 1.0).abs() > clip).float().mean(), bc_loss.detach(),
                ]).double()
        epochs += 1
        if config.target_kl is not None and epoch_kl > 1.5 * config.target_kl:
            break  # the step has gone far enough from the acting policy
    means = (sums / (epochs * n_minibatches)).tolist()
    return {**dict(zip(_STAT_NAMES, means)), "epochs": epochs, "actor_updated": update_actor}


def _history_row(iteration: int, env_steps: int, wall_time_s: float, summary: RolloutSummary,
                 stats: dict[str, float]) -> dict[str, Any]:
    """The history row of one iteration (the keys :func:`train_ppo` documents)."""
    returns, lengths = summary.episode_returns, summary.episode_lengths
    return {
        "iteration": iteration,
        "env_steps": env_steps,
        "wall_time_s": wall_time_s,
        "mean_return": float(returns.mean()) if returns.size else math.nan,
        "mean_length": float(lengths.mean()) if lengths.size else math.nan,
        "n_episodes": int(returns.size),
        **stats,
    }
