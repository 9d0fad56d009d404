"""The PPO policy: Gaussian actor, critic and observation normaliser, and its checkpoint file.

Checkpoint file format 1 (written by :meth:`PPOPolicy.save`, read by :meth:`PPOPolicy.load`):
a ``torch.save`` of a dict holding only tensors, numbers, strings and lists, so it loads
with ``weights_only=True`` (a crafted file cannot run code on load):

* ``format``: 1;
* ``obs_dim``, ``act_dim``: ints D and A;
* ``hidden_sizes``: list of ints; ``activation``: str; ``normalize_observations``: bool;
* ``action_low``, ``action_high``: (A,) float32 tensors;
* ``state_dict``: the module's parameters and buffers, on the CPU.
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence

import gymnasium as gym
import numpy as np
import torch
from torch import nn

from pyflyt_like.common.atomic_files import write_atomically
from pyflyt_like.common.validation import (
    check_bool,
    check_finite,
    check_positive_int,
    check_positive_int_tuple,
)

from .config import PPOConfig, check_activation
from .networks import build_mlp

__all__ = ["LOG_SQRT_2PI", "OBS_CLIP", "OBS_VAR_EPS", "PPOPolicy", "box_space_sizes"]

OBS_CLIP = 10.0  # normalised observations are clipped to +-this many standard deviations
OBS_VAR_EPS = 1e-8  # added to the running variance so a constant feature does not divide by 0
LOG_SQRT_2PI = 0.5 * math.log(2.0 * math.pi)  # the constant of a unit Gaussian's log-density
_SAVE_FORMAT = 1


class PPOPolicy(nn.Module):
    """Gaussian actor (MLP mean, state-independent log std), MLP critic and observation
    normaliser.

    Args:
        obs_dim: observation length D.
        act_dim: action length A.
        action_low: (A,) lower action bounds; sampled actions are clipped to them when sent
            to an env (infinite bounds are allowed and mean no clipping). The mean is not
            squashed or rescaled, so bounds of order 1 suit the default ``init_log_std``.
        action_high: (A,) upper action bounds, as ``action_low``.
        hidden_sizes: hidden layer widths of both MLPs.
        activation: "tanh", "relu" or "elu".
        init_log_std: initial log standard deviation, the same for every action component.
        normalize_observations: whether :meth:`normalize` uses the running statistics (when
            False it is the identity and the statistics are never updated).
        seed: seeds the weight initialisation without touching torch's global generator;
            None draws from the global generator.

    Buffers: ``obs_mean`` (D,), ``obs_var`` (D,), ``obs_count`` () float64 [samples],
    ``action_low`` / ``action_high`` (A,).
    """

    def __init__(self, obs_dim: int, act_dim: int, action_low: np.ndarray | Sequence[float],
                 action_high: np.ndarray | Sequence[float],
                 hidden_sizes: Sequence[int] = (64, 64), activation: str = "tanh",
                 init_log_std: float = -0.5, normalize_observations: bool = True,
                 seed: int | None = None):
        super().__init__()
        self.obs_dim = check_positive_int("obs_dim", obs_dim)
        self.act_dim = check_positive_int("act_dim", act_dim)
        self.hidden_sizes = check_positive_int_tuple("hidden_sizes", hidden_sizes)
        self.activation = check_activation(activation)
        self.normalize_observations = check_bool("normalize_observations",
                                                 normalize_observations)
        low = np.broadcast_to(np.asarray(action_low, dtype=np.float32), (self.act_dim,))
        high = np.broadcast_to(np.asarray(action_high, dtype=np.float32), (self.act_dim,))
        if np.isnan(low).any() or np.isnan(high).any() or (low > high).any():
            raise ValueError(f"action bounds must satisfy low <= high without NaN, got "
                             f"low={low.tolist()}, high={high.tolist()}")
        with torch.random.fork_rng(devices=[], enabled=seed is not None):
            if seed is not None:
                torch.manual_seed(seed)
            self.actor = build_mlp(self.obs_dim, self.hidden_sizes, self.act_dim, activation,
                                   0.01)
            self.critic = build_mlp(self.obs_dim, self.hidden_sizes, 1, activation, 1.0)
        self.log_std = nn.Parameter(
            torch.full((self.act_dim,), check_finite("init_log_std", init_log_std)))
        self.register_buffer("obs_mean", torch.zeros(self.obs_dim))
        self.register_buffer("obs_var", torch.ones(self.obs_dim))
        # A tiny prior count keeps the first merge well defined; float64 so that millions of
        # samples still add exactly.
        self.register_buffer("obs_count", torch.tensor(1e-4, dtype=torch.float64))
        self.register_buffer("action_low", torch.from_numpy(low.copy()))
        self.register_buffer("action_high", torch.from_numpy(high.copy()))

    @classmethod
    def from_spaces(cls, observation_space: gym.spaces.Space, action_space: gym.spaces.Space,
                    config: PPOConfig | None = None, seed: int | None = None) -> PPOPolicy:
        """A fresh policy for single-env Box spaces, sized and initialised as ``config`` says
        (``PPOConfig()`` if None); ``seed`` defaults to ``config.seed``."""
        config = PPOConfig() if config is None else config
        obs_dim, act_dim = box_space_sizes(observation_space, action_space)
        return cls(obs_dim, act_dim, action_space.low, action_space.high,
                   config.hidden_sizes, config.activation, config.init_log_std,
                   config.normalize_observations, config.seed if seed is None else seed)

    def normalize(self, obs: torch.Tensor) -> torch.Tensor:
        """Raw (..., D) observations -> what the networks see (normalised and clipped)."""
        if not self.normalize_observations:
            return obs
        scaled = (obs - self.obs_mean) * torch.rsqrt(self.obs_var + OBS_VAR_EPS)
        return scaled.clamp_(-OBS_CLIP, OBS_CLIP)

    @torch.no_grad()
    def update_obs_stats(self, batch_mean: torch.Tensor, batch_var: torch.Tensor,
                         batch_count: float) -> None:
        """Merge the (D,) mean and population variance of ``batch_count`` new observations
        into the running statistics (parallel-variance formula, float64 arithmetic)."""
        if not self.normalize_observations or batch_count <= 0:
            return
        mean, var = self.obs_mean.double(), self.obs_var.double()
        count = self.obs_count
        total = count + batch_count
        delta = batch_mean.double() - mean
        new_mean = mean + delta * (batch_count / total)
        m2 = var * count + batch_var.double() * batch_count + delta.square() * (
            count * batch_count / total)
        self.obs_mean.copy_(new_mean)
        self.obs_var.copy_(m2 / total)
        self.obs_count.copy_(total)

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        """Raw (..., D) observations -> (..., A) action means (unclipped)."""
        return self.actor(self.normalize(obs))

    def log_prob_entropy_value(self, norm_obs: torch.Tensor, actions: torch.Tensor
                               ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """For (B, D) *normalised* observations and (B, A) unclipped actions: the (B,) log
        densities, the () entropy per sample (state-independent) and the (B,) values."""
        mean = self.actor(norm_obs)
        z = (actions - mean) * torch.exp(-self.log_std)
        log_prob = (-0.5 * z.square() - self.log_std - LOG_SQRT_2PI).sum(-1)
        entropy = (self.log_std + 0.5 + LOG_SQRT_2PI).sum()
        return log_prob, entropy, self.critic(norm_obs).squeeze(-1)

    @torch.no_grad()
    def act(self, obs: np.ndarray, deterministic: bool = True) -> np.ndarray:
        """Actions for raw observations: (N, D) -> (N, A) or (D,) -> (A,), float32, clipped to
        the action bounds. ``deterministic=False`` samples with torch's global generator."""
        obs_t = torch.as_tensor(np.asarray(obs), dtype=torch.float32,
                                device=self.log_std.device)
        if obs_t.shape[-1:] != (self.obs_dim,) or obs_t.ndim not in (1, 2):
            raise ValueError(f"obs must have shape ({self.obs_dim},) or (N, {self.obs_dim}), "
                             f"got {tuple(obs_t.shape)}")
        action = self.forward(obs_t)
        if not deterministic:
            action = action + torch.randn_like(action) * torch.exp(self.log_std)
        action = torch.clamp(action, self.action_low, self.action_high)
        return action.cpu().numpy()

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write everything :meth:`load` needs to ``path`` (the module docstring's format),
        atomically, so a reader never sees half a file.

        Raises:
            FileWriteError: (an ``OSError``) the file cannot be written; ``path`` is then
                left as it was.
        """
        payload = {
            "format": _SAVE_FORMAT,
            "obs_dim": self.obs_dim,
            "act_dim": self.act_dim,
            "hidden_sizes": list(self.hidden_sizes),
            "activation": self.activation,
            "normalize_observations": self.normalize_observations,
            "action_low": self.action_low.detach().cpu().clone(),
            "action_high": self.action_high.detach().cpu().clone(),
            "state_dict": {k: v.detach().cpu().clone() for k, v in self.state_dict().items()},
        }
        write_atomically(path, lambda file: torch.save(payload, file), binary=True)

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> PPOPolicy:
        """Rebuild a policy written by :meth:`save` (on the CPU).

        Loads with ``weights_only=True``: a file holding anything but tensors and plain data
        is refused instead of executed.
        """
        payload = torch.load(os.fspath(path), map_location="cpu", weights_only=True)
        if not isinstance(payload, dict) or payload.get("format") != _SAVE_FORMAT:
            raise ValueError(f"{os.fspath(path)!r} is not a PPOPolicy file of format "
                             f"{_SAVE_FORMAT}")
        policy = cls(payload["obs_dim"], payload["act_dim"], payload["action_low"].numpy(),
                     payload["action_high"].numpy(), tuple(payload["hidden_sizes"]),
                     payload["activation"],
                     normalize_observations=payload["normalize_observations"], seed=0)
        policy.load_state_dict(payload["state_dict"])
        return policy


def box_space_sizes(observation_space: gym.spaces.Space,
                    action_space: gym.spaces.Space) -> tuple[int, int]:
    """(D, A), the lengths of a single env's observation and action spaces, which must be
    1-D ``gymnasium.spaces.Box`` es (TypeError otherwise)."""
    for name, space in (("observation space", observation_space),
                        ("action space", action_space)):
        if not isinstance(space, gym.spaces.Box) or len(space.shape) != 1:
            raise TypeError(f"the single {name} must be a 1-D gymnasium.spaces.Box, "
                            f"got {space!r}")
    return int(observation_space.shape[0]), int(action_space.shape[0])
