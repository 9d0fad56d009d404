"""Seeds of the package's native VectorEnvs: one generator per VectorEnv, seeded by an int or
by a list of per-env ints (as stable-baselines3 and ``SyncVectorEnv`` pass)."""

from __future__ import annotations

import numpy as np
from gymnasium.vector import VectorEnv

from pyflyt_like.common.validation import check_seed, describe_value


def checked_vector_seed(seed: object, num_envs: int) -> int | list[int] | None:
    """``seed`` checked: None, an int in [0, 2**63), or a list (or tuple) of ``num_envs``
    such ints.

    Raises:
        TypeError, ValueError: naming ``seed`` (or ``seed[i]``) and what is allowed.
    """
    if not isinstance(seed, (list, tuple)):
        try:
            return check_seed("seed", seed)
        except (TypeError, ValueError) as error:
            raise type(error)(f"seed must be None, an integer in [0, 2**63) or a list of "
                              f"num_envs={num_envs} such integers, "
                              f"got {describe_value(seed)}") from None
    if len(seed) != num_envs:  # a TypeError, as it always was: callers catch it
        raise TypeError(f"seed must be None, an integer in [0, 2**63) or a list of "
                        f"num_envs={num_envs} such integers, got a list of {len(seed)}")
    return [_checked_list_seed(i, s) for i, s in enumerate(seed)]


def seed_vector_env(env: VectorEnv, seeds: int | list[int] | None) -> None:
    """Seed ``env.np_random`` from checked ``seeds`` (:func:`checked_vector_seed`): as
    ``VectorEnv.reset`` does for None or an int, from the whole list for a list."""
    if isinstance(seeds, list):
        VectorEnv.reset(env)
        env.np_random = np.random.Generator(np.random.PCG64(np.random.SeedSequence(seeds)))
    else:
        VectorEnv.reset(env, seed=seeds)


def _checked_list_seed(index: int, value: object) -> int:
    try:
        if value is None:  # one generator cannot be half seeded
            raise TypeError
        return check_seed(f"seed[{index}]", value)
    except (TypeError, ValueError) as error:
        raise type(error)(f"seed[{index}] must be an integer in [0, 2**63) (a list of seeds "
                          f"holds no None), got {describe_value(value)}") from None
