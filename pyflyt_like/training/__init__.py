"""PPO for continuous-action Gymnasium 1.x vector envs (NEXT_STEP autoreset), in PyTorch.

Importing this package imports torch; nothing else in ``pyflyt_like`` does.
"""

from .ppo import PPOConfig, PPOPolicy, compute_gae, evaluate_policy, train_ppo

__all__ = ["PPOConfig", "PPOPolicy", "compute_gae", "evaluate_policy", "train_ppo"]
