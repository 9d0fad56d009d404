"""Moved to :mod:`pyflyt_like.integrations.sb3`; this path is kept for one release."""
from ..integrations.sb3 import SB3VecEnvAdapter, to_sb3_vec_env

__all__ = ["SB3VecEnvAdapter", "to_sb3_vec_env"]
