"""PPO for continuous-action Gymnasium 1.x vector envs (NEXT_STEP autoreset), in PyTorch.

Importing this package imports torch; nothing else in ``pyflyt_like`` does. Without torch
it raises ImportError naming the ``rl`` extra.
"""

try:
    import torch  # noqa: F401  (only to fail early, with the install line)
except ImportError as error:
    raise ImportError('pyflyt_like.training needs PyTorch: pip install "pyflyt_like[rl]"'
                      ) from error

from .algorithm import train_ppo
from .config import PPOConfig
from .evaluation import evaluate_policy
from .export import export_policy
from .policy import CheckpointError, PPOPolicy
from .rollout import compute_gae

__all__ = ["CheckpointError", "PPOConfig", "PPOPolicy", "compute_gae", "evaluate_policy",
           "export_policy", "train_ppo"]
