"""Memory estimates of a PPO policy and of a training run, checked before anything is
allocated, so a huge size is refused with the estimate instead of failing inside torch.

The estimates count float32 tensors at 4 bytes and say what they count; they are within a
small factor of what torch allocates (its allocator and Python objects add a little).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from pyflyt_like.common.validation import check_memory

__all__ = ["check_config_memory", "check_imitation_memory", "check_policy_memory",
           "check_training_memory", "imitation_memory_bytes", "parameter_count",
           "policy_memory_bytes", "training_memory_bytes"]

FLOAT_BYTES = 4  # float32, what the networks and the rollout buffers use
INDEX_BYTES = 8  # int64, the minibatch index tensors
# Floats per rollout transition besides its observation and action: log-probability,
# value, reward and the update table's log-probability, advantage and return, plus the
# (T, N) temporaries of GAE and the advantage normalisation (about six).
_FLOATS_PER_TRANSITION = 12
_BOOLS_PER_TRANSITION = 3  # terminated, truncated, valid
_INDICES_PER_TRANSITION = 2  # the valid index and its permutation
# A hidden layer's forward and backward pass keep about three tensors of its width per
# sample: the linear output, the activation output and the gradient flowing back.
_ACTIVATION_COPIES = 3
# Training keeps four copies of each parameter: the value, its gradient and Adam's two
# moments.
_TRAINING_COPIES = 4


def parameter_count(obs_dim: int, act_dim: int, hidden_sizes: Sequence[int]) -> int:
    """Trainable parameters of a :class:`~pyflyt_like.training.PPOPolicy`: the actor MLP
    (D -> hidden -> A), the critic MLP (D -> hidden -> 1) and the A log standard deviations.
    """
    def mlp(in_dim: int, out_dim: int) -> int:
        sizes = [in_dim, *hidden_sizes, out_dim]
        return sum((a + 1) * b for a, b in zip(sizes[:-1], sizes[1:]))

    return mlp(obs_dim, act_dim) + mlp(obs_dim, 1) + act_dim


def policy_memory_bytes(obs_dim: int, act_dim: int, hidden_sizes: Sequence[int]) -> int:
    """Bytes of a policy's parameters and buffers (normaliser statistics, action bounds)."""
    buffers = 2 * obs_dim + 2 * act_dim + 2
    return FLOAT_BYTES * (parameter_count(obs_dim, act_dim, hidden_sizes) + buffers)


def training_memory_bytes(n_steps: int, n_envs: int, obs_dim: int, act_dim: int,
                          hidden_sizes: Sequence[int], n_minibatches: int) -> int:
    """Estimated peak bytes of :func:`~pyflyt_like.training.train_ppo`, the env excluded.

    Counts the parameters four times (value, gradient, Adam's two moments), the rollout
    buffers and the update's copies of them (T * N transitions of D + A + 12 floats, 3
    bools and 2 indices each), and the activations of one minibatch's forward and
    backward pass through both MLPs (3 floats per hidden unit and sample).
    """
    batch = n_steps * n_envs
    weights = _TRAINING_COPIES * policy_memory_bytes(obs_dim, act_dim, hidden_sizes)
    per_transition = (FLOAT_BYTES * (2 * (obs_dim + act_dim) + _FLOATS_PER_TRANSITION)
                      + _BOOLS_PER_TRANSITION + INDEX_BYTES * _INDICES_PER_TRANSITION)
    minibatch = math.ceil(batch / n_minibatches)
    activations = (FLOAT_BYTES * _ACTIVATION_COPIES * 2 * sum(hidden_sizes)
                   * max(minibatch, n_envs))  # the rollout's forward pass acts on N at once
    return weights + batch * per_transition + activations


def imitation_memory_bytes(n_samples: int, obs_dim: int, act_dim: int,
                           hidden_sizes: Sequence[int], batch_size: int) -> int:
    """Estimated peak bytes of fitting a policy to ``n_samples`` labelled observations
    (:func:`~pyflyt_like.training.imitation.fit_to_teacher`, and DAgger's rounds).

    Counts the parameters four times (value, gradient, Adam's two moments), four float32
    copies of each observation and three of each action (DAgger's stored samples, their
    concatenation, the fit's inputs and labels and the normalised inputs), the minibatch
    permutation (an int64 per sample), and the activations of one minibatch's forward and
    backward pass through the actor (3 floats per hidden unit and sample).
    """
    weights = _TRAINING_COPIES * policy_memory_bytes(obs_dim, act_dim, hidden_sizes)
    per_sample = FLOAT_BYTES * (4 * obs_dim + 3 * act_dim) + INDEX_BYTES
    activations = (FLOAT_BYTES * _ACTIVATION_COPIES * sum(hidden_sizes)
                   * min(batch_size, n_samples))
    return weights + n_samples * per_sample + activations


def check_imitation_memory(what: str, n_samples: int, obs_dim: int, act_dim: int,
                           hidden_sizes: Sequence[int], batch_size: int, hint: str) -> None:
    """Refuse (ValueError) a fit whose :func:`imitation_memory_bytes` exceed the memory
    limit; ``what`` names the sizes, ``hint`` what to change."""
    check_memory(what, imitation_memory_bytes(n_samples, obs_dim, act_dim, hidden_sizes,
                                              batch_size), hint=hint)


def check_policy_memory(obs_dim: int, act_dim: int, hidden_sizes: Sequence[int]) -> None:
    """Refuse (ValueError) a policy whose parameters alone exceed the memory limit."""
    check_memory(f"a PPOPolicy with obs_dim={obs_dim}, act_dim={act_dim}, "
                 f"hidden_sizes={sizes_text(hidden_sizes)}",
                 policy_memory_bytes(obs_dim, act_dim, hidden_sizes),
                 hint="use fewer or narrower hidden layers")


def check_config_memory(n_steps: int, hidden_sizes: Sequence[int], n_minibatches: int
                        ) -> None:
    """Refuse (ValueError) a config that cannot train even on the smallest env (1 env with
    1-D observations and actions), naming the field that makes it too big."""
    check_memory(f"hidden_sizes={sizes_text(hidden_sizes)}",
                 _TRAINING_COPIES * policy_memory_bytes(1, 1, hidden_sizes),
                 hint="use fewer or narrower hidden layers")
    check_memory(f"n_steps={n_steps}", training_memory_bytes(n_steps, 1, 1, 1, (1,), 1),
                 hint="use a smaller n_steps")
    check_memory(f"n_steps={n_steps} with n_minibatches={n_minibatches} and "
                 f"hidden_sizes={sizes_text(hidden_sizes)}",
                 training_memory_bytes(n_steps, 1, 1, 1, hidden_sizes, n_minibatches),
                 hint="use a smaller n_steps, more n_minibatches or narrower hidden layers")


def check_training_memory(n_steps: int, n_envs: int, obs_dim: int, act_dim: int,
                          hidden_sizes: Sequence[int], n_minibatches: int) -> None:
    """Refuse (ValueError) a training run whose :func:`training_memory_bytes` exceed the
    memory limit, naming the sizes."""
    check_memory(f"training with num_envs={n_envs}, n_steps={n_steps} (obs_dim={obs_dim}, "
                 f"act_dim={act_dim}, hidden_sizes={sizes_text(hidden_sizes)})",
                 training_memory_bytes(n_steps, n_envs, obs_dim, act_dim, hidden_sizes,
                                       n_minibatches),
                 hint="use fewer envs (num_envs) or a smaller n_steps")


def sizes_text(sizes: Sequence[int], most: int = 6) -> str:
    """``sizes`` as a tuple for a message, shortened past ``most`` entries."""
    sizes = tuple(sizes)
    if len(sizes) <= most:
        return str(sizes)
    return f"({', '.join(map(str, sizes[:most]))}, ... {len(sizes)} layers)"
