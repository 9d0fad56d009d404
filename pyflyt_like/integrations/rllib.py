"""Every pyflyt_like task under its id in Ray RLlib's env registry.

``register_rllib_envs()`` registers, with ``ray.tune.registry.register_env``:

- the PyFlyt-style Gymnasium tasks, ``pyflyt_like/QuadX-Hover-v0`` and the rest;
- the Multirotor tasks and Fixedwing-Reach by their ids: with RLlib's default
  ``gym_env_vectorize_mode`` ("sync") each env-runner slot is the PyBullet twin; with
  ``gym_env_vectorize_mode="vector_entry_point"`` RLlib passes ``num_envs`` in the env config
  and gets the batched VectorEnv (``num_envs_per_env_runner`` worlds per env runner);
- the two PettingZoo scenes as ``pyflyt_like/MAQuadX-Hover-v0`` and
  ``pyflyt_like/MAFixedwing-Dogfight-v0``, wrapped in RLlib's ``ParallelPettingZooEnv``.

RLlib's ``env_config`` passes through as the task's keyword options. Needs the ``ray``
extra: ``pip install "pyflyt_like[ray]"``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pyflyt_like.envs import registry

__all__ = ["MULTI_AGENT_SCENES", "dogfight_policy_mapping", "register_rllib_envs",
           "single_agent_ids"]

MULTI_AGENT_SCENES = {entry.id: registry.attribute_name(entry.parallel_entry_point)
                      for entry in registry.MULTI_AGENT_SCENES}
"""RLlib id of each PettingZoo scene → its class in :mod:`pyflyt_like.envs` (from
:mod:`pyflyt_like.envs.registry`)."""


def _require_ray() -> None:
    try:
        import ray.rllib  # noqa: F401
    except ImportError as error:  # pragma: no cover - the message is the point
        raise ImportError('pyflyt_like.integrations.rllib needs Ray RLlib: '
                          'pip install "pyflyt_like[ray]"') from error


def single_agent_ids() -> list[str]:
    """Ids of every single-agent Gymnasium task (the PyBullet tasks, the Multirotor tasks'
    and Fixedwing-Reach's twins: every id with an ``entry_point``), as ``gymnasium.make``
    takes them."""
    return [entry.id for entry in registry.ENVS if entry.entry_point is not None]


def _gymnasium_creator(env_id: str) -> Callable[[Any], Any]:
    def create(env_config: Any):
        import gymnasium

        import pyflyt_like.envs  # noqa: F401  (registers the ids in the env runner's process)

        options = dict(env_config or {})
        if "num_envs" not in options:
            return gymnasium.make(env_id, **options)
        # RLlib's vector_entry_point mode (the tasks on both engines: Multirotor-*,
        # Fixedwing-Reach): the creator must return the VectorEnv itself.
        return gymnasium.make_vec(env_id, num_envs=options.pop("num_envs"),
                                  vectorization_mode="vector_entry_point", **options)

    return create


def _pettingzoo_creator(entry_point: str) -> Callable[[Any], Any]:
    def create(env_config: Any):
        from ray.rllib.env.wrappers.pettingzoo_env import ParallelPettingZooEnv

        return ParallelPettingZooEnv(registry.load(entry_point)(**dict(env_config or {})))

    return create


def register_rllib_envs() -> list[str]:
    """Registers every task and scene with ``ray.tune.registry.register_env``.

    Returns:
        The registered ids: the single-agent ones first, then the two multi-agent scenes.
        Calling it again re-registers the same ids (harmless).
    """
    _require_ray()
    from ray.tune.registry import register_env

    ids = single_agent_ids()
    for env_id in ids:
        register_env(env_id, _gymnasium_creator(env_id))
    for entry in registry.MULTI_AGENT_SCENES:
        register_env(entry.id, _pettingzoo_creator(entry.parallel_entry_point))
    return ids + list(MULTI_AGENT_SCENES)


def dogfight_policy_mapping(team_size: int = 2) -> Callable[..., str]:
    """RLlib ``policy_mapping_fn`` for the dogfight: ``uav_i`` flies ``"team_0"``'s policy for
    i < ``team_size`` and ``"team_1"``'s otherwise (the scene's own team split)."""
    if isinstance(team_size, bool) or not isinstance(team_size, int) or team_size < 1:
        raise ValueError(f"team_size must be a positive int, got {team_size!r}")

    def policy_of(agent_id: str, *args: Any, **kwargs: Any) -> str:
        return f"team_{int(int(agent_id.rsplit('_', 1)[1]) >= team_size)}"

    return policy_of
