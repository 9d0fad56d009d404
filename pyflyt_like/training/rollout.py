"""Collecting one PPO rollout from a NEXT_STEP vector env, and its advantages (GAE).

One rollout of ``n_steps`` steps of all ``num_envs`` envs is written into preallocated
(T, N, ...) tensors (T = ``n_steps``, N = ``num_envs``). Every operation works on the whole
batch; nothing loops over envs in Python.

NEXT_STEP autoreset, and what it means for the rollout
------------------------------------------------------
If env i reports ``terminated`` or ``truncated`` at step t, its step t + 1 ignores the action
and returns the reset observation with reward 0 and ``terminated = truncated = False``. So in
the rollout, with ``obs[t]`` the observation the action of step t was chosen from:

* step t + 1 is a *reset transition*: it is marked invalid (``valid[t + 1] = False``) and
  takes no part in the advantages, the returns, the losses or the episode statistics;
* ``obs[t + 1]`` is the *final* observation of the episode that ended at step t (the reset
  observation only arrives with ``obs[t + 2]``), so ``values[t + 1] = V(obs[t + 1])``, which
  the rollout computes anyway to act at step t + 1, is exactly the bootstrap value a
  truncation at step t needs. At the last step, ``values[T]`` is V of the observation the
  last step returned, which is again the final observation if that step truncated.

:func:`compute_gae` therefore uses ``values[t + 1]`` as the next-state value of every step,
zeroes it on termination, cuts the GAE recursion on termination or truncation, and zeroes
the advantage of invalid steps.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch
from gymnasium.vector import VectorEnv

from .policy import LOG_SQRT_2PI, PPOPolicy

__all__ = ["EnvCursor", "RolloutBuffers", "RolloutSummary", "collect_rollout", "compute_gae"]


@dataclass
class RolloutBuffers:
    """The preallocated tensors one rollout is written into, reused by every rollout.

    Attributes:
        observations: (T, N, D) normalised observations, as the networks saw them.
        actions: (T, N, A) the sampled actions, unclipped.
        log_probs: (T, N) log-density of each sampled action under the acting policy.
        values: (T + 1, N) critic values; ``values[T]`` is V of the observation the last
            step returned.
        rewards: (T, N) rewards times ``reward_scale``.
        terminated: (T, N) bool, as the env reported.
        truncated: (T, N) bool, as the env reported.
        valid: (T, N) bool, False for the reset transitions.
    """

    observations: torch.Tensor
    actions: torch.Tensor
    log_probs: torch.Tensor
    values: torch.Tensor
    rewards: torch.Tensor
    terminated: torch.Tensor
    truncated: torch.Tensor
    valid: torch.Tensor

    @classmethod
    def allocate(cls, n_steps: int, n_envs: int, obs_dim: int, act_dim: int) -> RolloutBuffers:
        """Zeroed float32 / bool buffers for T = ``n_steps``, N = ``n_envs``, D = ``obs_dim``
        and A = ``act_dim``."""
        def flags() -> torch.Tensor:
            return torch.zeros(n_steps, n_envs, dtype=torch.bool)

        return cls(observations=torch.zeros(n_steps, n_envs, obs_dim),
                   actions=torch.zeros(n_steps, n_envs, act_dim),
                   log_probs=torch.zeros(n_steps, n_envs),
                   values=torch.zeros(n_steps + 1, n_envs),
                   rewards=torch.zeros(n_steps, n_envs),
                   terminated=flags(), truncated=flags(), valid=flags())


@dataclass
class EnvCursor:
    """Where each env of the vector env stands between rollouts.

    Attributes:
        observations: (N, D) what the env last returned; the next step acts on it.
        ended: (N,) bool, True where the env's last step ended an episode, so that its next
            step is a reset transition.
        episode_returns: (N,) float64 unscaled return so far of each env's running episode.
        episode_lengths: (N,) int64 steps so far of each env's running episode.
    """

    observations: np.ndarray
    ended: np.ndarray
    episode_returns: np.ndarray
    episode_lengths: np.ndarray

    @classmethod
    def reset(cls, vector_env: VectorEnv, seed: int) -> EnvCursor:
        """Reset ``vector_env`` with ``seed`` and start every env's first episode."""
        observations, _ = vector_env.reset(seed=seed)
        n_envs = int(vector_env.num_envs)
        return cls(observations, np.zeros(n_envs, dtype=bool), np.zeros(n_envs),
                   np.zeros(n_envs, dtype=np.int64))


@dataclass
class RolloutSummary:
    """What a rollout saw besides the buffers.

    Attributes:
        obs_sum: (D,) float64 sum of the raw observations acted on (zeros if not tracked).
        obs_sq_sum: (D,) float64 sum of their squares (zeros if not tracked).
        obs_count: number of observations acted on, T * N.
        episode_returns: (E,) float64 unscaled returns of the E episodes that ended.
        episode_lengths: (E,) int64 lengths [env steps] of those episodes.
    """

    obs_sum: torch.Tensor
    obs_sq_sum: torch.Tensor
    obs_count: int
    episode_returns: np.ndarray
    episode_lengths: np.ndarray

    def observation_moments(self) -> tuple[torch.Tensor, torch.Tensor]:
        """(D,) mean and population variance of the raw observations acted on (float64)."""
        mean = self.obs_sum / float(self.obs_count)
        var = (self.obs_sq_sum / float(self.obs_count) - mean.square()).clamp_(min=0.0)
        return mean, var


@torch.no_grad()
def collect_rollout(vector_env: VectorEnv, policy: PPOPolicy, buffers: RolloutBuffers,
                    cursor: EnvCursor, generator: torch.Generator, *, reward_scale: float,
                    track_obs_stats: bool) -> RolloutSummary:
    """Step all N envs T times with actions sampled from ``policy``, filling ``buffers``.

    Args:
        vector_env: the NEXT_STEP env, N = ``num_envs``; T is the buffers' length.
        policy: acts on ``policy.normalize`` of each observation; its statistics are not
            updated here.
        buffers: written in full, ``values[T]`` included.
        cursor: where the envs stand; advanced to where they stand after the rollout.
        generator: draws the Gaussian action noise.
        reward_scale: multiplies the rewards stored in ``buffers.rewards``.
        track_obs_stats: sum the raw observations (and their squares) for the normaliser.

    Returns:
        The observation sums and the episodes that ended during the rollout.
    """
    n_steps, n_envs, obs_dim = buffers.observations.shape
    action_dtype = vector_env.single_action_space.dtype
    obs_sum = torch.zeros(obs_dim, dtype=torch.float64)
    obs_sq_sum = torch.zeros(obs_dim, dtype=torch.float64)
    finished_returns: list[np.ndarray] = []
    finished_lengths: list[np.ndarray] = []
    std = torch.exp(policy.log_std)
    for t in range(n_steps):
        raw = torch.as_tensor(cursor.observations, dtype=torch.float32)
        if track_obs_stats:
            raw64 = raw.double()
            obs_sum += raw64.sum(0)
            obs_sq_sum += raw64.square().sum(0)
        norm = policy.normalize(raw)
        mean = policy.actor(norm)
        noise = torch.randn(mean.shape, generator=generator)
        action = mean + std * noise
        buffers.observations[t] = norm
        buffers.actions[t] = action
        # log-density of the *unclipped* sample: the env clips below, but the policy that is
        # optimised is the Gaussian, so its ratio must use its own density.
        buffers.log_probs[t] = (-0.5 * noise.square() - policy.log_std - LOG_SQRT_2PI).sum(-1)
        buffers.values[t] = policy.critic(norm).squeeze(-1)
        valid = ~cursor.ended
        buffers.valid[t] = torch.from_numpy(valid)
        env_action = torch.clamp(action, policy.action_low, policy.action_high)
        cursor.observations, reward, terminated, truncated, _ = vector_env.step(
            env_action.numpy().astype(action_dtype, copy=False))
        reward = np.asarray(reward, dtype=np.float64)
        terminated = np.asarray(terminated, dtype=bool)
        truncated = np.asarray(truncated, dtype=bool)
        buffers.rewards[t] = torch.from_numpy(reward * reward_scale)
        buffers.terminated[t] = torch.from_numpy(terminated)
        buffers.truncated[t] = torch.from_numpy(truncated)
        # A reset transition's reward (0 by the NEXT_STEP contract) never counts.
        cursor.episode_returns += np.where(valid, reward, 0.0)
        cursor.episode_lengths += valid
        done = (terminated | truncated) & valid
        if done.any():
            finished_returns.append(cursor.episode_returns[done])
            finished_lengths.append(cursor.episode_lengths[done])
            cursor.episode_returns[done] = 0.0
            cursor.episode_lengths[done] = 0
        cursor.ended = terminated | truncated
    # V of the observation the last step returned; the final observation of the episode
    # where that step truncated, so the bootstrap is right there too.
    buffers.values[n_steps] = policy.critic(
        policy.normalize(torch.as_tensor(cursor.observations, dtype=torch.float32))
    ).squeeze(-1)
    return RolloutSummary(
        obs_sum, obs_sq_sum, n_steps * n_envs,
        np.concatenate(finished_returns) if finished_returns else np.empty(0),
        np.concatenate(finished_lengths) if finished_lengths else np.empty(0))


def compute_gae(rewards: torch.Tensor, values: torch.Tensor, terminated: torch.Tensor,
                truncated: torch.Tensor, valid: torch.Tensor, gamma: float,
                lam: float) -> tuple[torch.Tensor, torch.Tensor]:
    """Generalised advantage estimates of a NEXT_STEP rollout.

    Args:
        rewards: (T, N) reward of step t.
        values: (T + 1, N) ``V(obs[t])`` with ``obs[t]`` the observation step t acted on,
            and ``values[T]`` V of the observation the last step returned. After a step that
            ended an episode, the next observation is that episode's final observation
            (NEXT_STEP), so ``values[t + 1]`` is the truncation bootstrap value.
        terminated: (T, N) bool, episode ended at step t in a terminal state (no bootstrap).
        truncated: (T, N) bool, episode was cut at step t (bootstrap ``values[t + 1]``).
        valid: (T, N) bool, False for the reset transitions (the step after an episode end).
        gamma: discount per step.
        lam: GAE lambda.

    Returns:
        advantages (T, N) and returns (T, N) = advantages + ``values[:T]``; both 0 at
        invalid steps.
    """
    n_steps = rewards.shape[0]
    next_value = values[1:] * (~terminated).to(values.dtype)
    deltas = rewards + gamma * next_value - values[:-1]
    # Two guards keep the next episode's advantage out of an episode that ended at t: the
    # carry is cut there, and the reset transition at t + 1 has advantage 0. Under NEXT_STEP
    # either suffices; both are kept so neither alone has to be right.
    carry = gamma * lam * (~(terminated | truncated)).to(values.dtype)
    valid_f = valid.to(values.dtype)
    advantages = torch.empty_like(rewards)
    running = torch.zeros_like(rewards[0])
    for t in range(n_steps - 1, -1, -1):
        running = (deltas[t] + carry[t] * running) * valid_f[t]
        advantages[t] = running
    returns = (advantages + values[:-1]) * valid_f
    return advantages, returns
