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
from .elo import Ratings, fit_ratings
from .evaluation import evaluate_policy
from .export import export_policy
from .league import League, LeagueEnv, WinGate
from .policy import CheckpointError, PPOPolicy
from .rollout import compute_gae

__all__ = ["CheckpointError", "League", "LeagueEnv", "PPOConfig", "PPOPolicy", "Ratings",
           "WinGate", "compute_gae", "evaluate_policy", "export_policy", "fit_ratings",
           "train_ppo"]
