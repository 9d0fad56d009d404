"""Moved; kept for one release.

The PPO code now lives in :mod:`pyflyt_like.training` (``config``, ``networks``, ``policy``,
``rollout``, ``algorithm``, ``evaluation``); import it from ``pyflyt_like.training``.
"""

from .algorithm import train_ppo
from .config import PPOConfig
from .evaluation import evaluate_policy
from .networks import ACTIVATIONS, FastTanh
from .policy import OBS_CLIP, OBS_VAR_EPS, PPOPolicy
from .rollout import compute_gae

__all__ = ["ACTIVATIONS", "OBS_CLIP", "OBS_VAR_EPS", "FastTanh", "PPOConfig", "PPOPolicy",
           "compute_gae", "evaluate_policy", "train_ppo"]
