"""The PPO policy: Gaussian actor, critic and observation normaliser.

Its checkpoint file (:meth:`PPOPolicy.save`, :meth:`PPOPolicy.load`) is described, written
and read in :mod:`pyflyt_like.training.checkpoint`.
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence

import gymnasium as gym
import numpy as np
import torch
from torch import nn

from pyflyt_like.common.validation import (
    check_bool,
    check_positive_int,
    check_positive_int_tuple,
    check_seed,
)

from .checkpoint import (
    SAVE_FORMAT,
    CheckpointError,
    check_state_dict,
    read_checkpoint,
    write_checkpoint,
)
from .config import PPOConfig, check_activation, check_init_log_std
from .memory import check_policy_memory, sizes_text
from .networks import build_mlp

__all__ = ["LOG_SQRT_2PI", "OBS_CLIP", "OBS_VAR_EPS", "CheckpointError", "PPOPolicy",
           "box_space_sizes"]

OBS_CLIP = 10.0  # normalised observations are clipped to +-this many standard deviations
OBS_VAR_EPS = 1e-8  # added to the running variance so a constant feature does not divide by 0
LOG_SQRT_2PI = 0.5 * math.log(2.0 * math.pi)  # the constant of a unit Gaussian's log-density


class PPOPolicy(nn.Module):
    """Gaussian actor (MLP mean, state-independent log std), MLP critic and observation
    normaliser.

    Args:
        obs_dim: observation length D.
        act_dim: action length A.
        action_low: (A,) lower action bounds, or one number for all; sampled actions are
            clipped to them when sent to an env (infinite bounds are allowed and mean no
            clipping). The mean is not squashed or rescaled, so bounds of order 1 suit the
            default ``init_log_std``.
        action_high: (A,) upper action bounds, as ``action_low``; ``low <= high``.
        hidden_sizes: hidden layer widths of both MLPs.
        activation: "tanh", "relu" or "elu".
        init_log_std: initial log standard deviation, the same for every action component,
            in [-20, 20].
        normalize_observations: whether :meth:`normalize` uses the running statistics (when
            False it is the identity and the statistics are never updated).
        seed: an int in [0, 2**63) seeding the weight initialisation without touching
            torch's global generator; None draws from the global generator.

    Raises:
        TypeError: an argument of the wrong kind (a bool or a string for a number).
        ValueError: a value out of range, ``action_low > action_high``, or sizes whose
            parameters would need more than half the machine's memory.

    Buffers: ``obs_mean`` (D,), ``obs_var`` (D,), ``obs_count`` () float64 [samples],
    ``action_low`` / ``action_high`` (A,).
    """

    def __init__(self, obs_dim: int, act_dim: int, action_low: np.ndarray | Sequence[float],
                 action_high: np.ndarray | Sequence[float],
                 hidden_sizes: Sequence[int] = (64, 64), activation: str = "tanh",
                 init_log_std: float = -0.5, normalize_observations: bool = True,
                 seed: int | None = None):
        super().__init__()
        # Everything is checked first, so a refused call allocates nothing.
        obs_dim = check_positive_int("obs_dim", obs_dim)
        act_dim = check_positive_int("act_dim", act_dim)
        hidden_sizes = check_positive_int_tuple("hidden_sizes", hidden_sizes)
        check_policy_memory(obs_dim, act_dim, hidden_sizes)
        activation = check_activation(activation)
        init_log_std = check_init_log_std(init_log_std)
        normalize_observations = check_bool("normalize_observations", normalize_observations)
        seed = check_seed("seed", seed)
        low = _action_bound("action_low", action_low, act_dim)
        high = _action_bound("action_high", action_high, act_dim)
        if (low > high).any():
            raise ValueError(f"action bounds must satisfy action_low <= action_high, got "
                             f"action_low={low.tolist()}, action_high={high.tolist()}")
        self.obs_dim, self.act_dim, self.hidden_sizes = obs_dim, act_dim, hidden_sizes
        self.activation, self.normalize_observations = activation, normalize_observations
        with torch.random.fork_rng(devices=[], enabled=seed is not None):
            if seed is not None:
                torch.manual_seed(seed)
            self.actor = build_mlp(obs_dim, hidden_sizes, act_dim, activation, 0.01)
            self.critic = build_mlp(obs_dim, hidden_sizes, 1, activation, 1.0)
        self.log_std = nn.Parameter(torch.full((act_dim,), init_log_std))
        self.register_buffer("obs_mean", torch.zeros(self.obs_dim))
        self.register_buffer("obs_var", torch.ones(self.obs_dim))
        # A tiny prior count keeps the first merge well defined; float64 so that millions of
        # samples still add exactly.
        self.register_buffer("obs_count", torch.tensor(1e-4, dtype=torch.float64))
        self.register_buffer("action_low", torch.from_numpy(low))
        self.register_buffer("action_high", torch.from_numpy(high))

    @classmethod
    def from_spaces(cls, observation_space: gym.spaces.Space, action_space: gym.spaces.Space,
                    config: PPOConfig | None = None, seed: int | None = None) -> PPOPolicy:
        """A fresh policy for single-env Box spaces, sized and initialised as ``config`` says
        (``PPOConfig()`` if None); ``seed`` defaults to ``config.seed``."""
        config = PPOConfig() if config is None else config
        if not isinstance(config, PPOConfig):
            raise TypeError(f"config must be a PPOConfig or None, got {config!r}")
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
                               ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor,
                                          torch.Tensor]:
        """For (B, D) *normalised* observations and (B, A) unclipped actions: the (B,) log
        densities, the () entropy per sample (state-independent), the (B,) values and the
        (B, A) mean actions they were computed from."""
        mean = self.actor(norm_obs)
        z = (actions - mean) * torch.exp(-self.log_std)
        log_prob = (-0.5 * z.square() - self.log_std - LOG_SQRT_2PI).sum(-1)
        entropy = (self.log_std + 0.5 + LOG_SQRT_2PI).sum()
        return log_prob, entropy, self.critic(norm_obs).squeeze(-1), mean

    @torch.no_grad()
    def act(self, obs: np.ndarray, deterministic: bool = True) -> np.ndarray:
        """Actions for raw observations: (N, D) -> (N, A) or (D,) -> (A,), float32, clipped to
        the action bounds. ``deterministic=False`` samples with torch's global generator.

        Raises:
            TypeError: ``obs`` is not numeric (strings, bools, complex) or ``deterministic``
                is not a bool.
            ValueError: ``obs`` has another shape or holds NaN or inf.
        """
        deterministic = check_bool("deterministic", deterministic)
        array = np.asarray(obs)
        if array.dtype.kind not in "iuf":
            raise TypeError(f"obs must be a numeric array of shape ({self.obs_dim},) or "
                            f"(N, {self.obs_dim}), got dtype {array.dtype}")
        if array.shape[-1:] != (self.obs_dim,) or array.ndim not in (1, 2):
            raise ValueError(f"obs must have shape ({self.obs_dim},) or (N, {self.obs_dim}), "
                             f"got {array.shape}")
        if not np.isfinite(array).all():
            raise ValueError("obs must be finite (no NaN or inf)")
        obs_t = torch.as_tensor(array, dtype=torch.float32, device=self.log_std.device)
        action = self.forward(obs_t)
        if not deterministic:
            action = action + torch.randn_like(action) * torch.exp(self.log_std)
        action = torch.clamp(action, self.action_low, self.action_high)
        return action.cpu().numpy()

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write everything :meth:`load` needs to ``path`` (format 1 of
        :mod:`pyflyt_like.training.checkpoint`), atomically, so a reader never sees half a
        file.

        Raises:
            TypeError: ``path`` is not a file name (str or os.PathLike).
            FileWriteError: (an ``OSError``) the file cannot be written; ``path`` is then
                left as it was.
        """
        write_checkpoint(path, {
            "format": SAVE_FORMAT,
            "obs_dim": self.obs_dim,
            "act_dim": self.act_dim,
            "hidden_sizes": list(self.hidden_sizes),
            "activation": self.activation,
            "normalize_observations": self.normalize_observations,
            "action_low": self.action_low.detach().cpu().clone(),
            "action_high": self.action_high.detach().cpu().clone(),
            "state_dict": {k: v.detach().cpu().clone() for k, v in self.state_dict().items()},
        })

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> PPOPolicy:
        """Rebuild a policy written by :meth:`save` (on the CPU).

        Loads with ``weights_only=True``: a file holding anything but tensors and plain data
        is refused instead of executed.

        Raises:
            TypeError: ``path`` is not a file name (str or os.PathLike).
            FileNotFoundError: (and other OSErrors) the file cannot be opened.
            CheckpointError: (a ``ValueError``) the file is empty, truncated, not a
                ``torch.save`` file, of another format, incomplete, holds code, or its
                weights do not fit its sizes or are not finite; the message names the file.
        """
        payload = read_checkpoint(path)
        name = os.fspath(path)
        try:
            policy = cls(payload["obs_dim"], payload["act_dim"],
                         payload["action_low"].numpy(), payload["action_high"].numpy(),
                         payload["hidden_sizes"], payload["activation"],
                         normalize_observations=payload["normalize_observations"], seed=0)
        except (TypeError, ValueError) as error:
            raise CheckpointError(f"{name!r} is not a valid PPOPolicy checkpoint: {error}"
                                  ) from error
        sizes = (f"obs_dim={policy.obs_dim}, act_dim={policy.act_dim}, "
                 f"hidden_sizes={sizes_text(policy.hidden_sizes)}")
        check_state_dict(name, payload["state_dict"], policy.state_dict(), sizes)
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


def _action_bound(name: str, value: object, act_dim: int) -> np.ndarray:
    """``value`` (a number or an (A,) sequence of numbers, +-inf allowed) as an (A,) float32
    array; TypeError for bools, strings and complex numbers, ValueError for another shape
    or NaN."""
    try:
        raw = np.asarray(value)
    except ValueError:  # ragged
        raw = np.asarray(None)
    # numpy reads [True, 0.5] as floats: the bool is looked for in the sequence itself.
    holds_bool = isinstance(value, (list, tuple)) and any(
        isinstance(v, (bool, np.bool_)) for v in value)
    if raw.dtype.kind not in "iuf" or holds_bool:
        raise TypeError(f"{name} must be a number or an ({act_dim},) array of numbers "
                        f"(+-inf allowed), got {value!r}")
    if raw.ndim > 1 or (raw.ndim == 1 and raw.shape[0] != act_dim):
        raise ValueError(f"{name} must be a number or have shape ({act_dim},), got shape "
                         f"{raw.shape}")
    bound = np.broadcast_to(raw.astype(np.float32), (act_dim,)).copy()
    if np.isnan(bound).any():
        raise ValueError(f"{name} must not be NaN, got {bound.tolist()}")
    return bound
