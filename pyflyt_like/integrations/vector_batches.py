"""Gymnasium vector-env batches, env by env: copies of observation batches (an array with
the env index first, or a dict of such arrays) and the split of Gymnasium's batched infos
into one dict per env.

Gymnasium's ``VectorEnv`` returns one batch for all N envs; frameworks that think in single
envs (stable-baselines3's ``VecEnv``, :mod:`.sb3`) want a row, or a dict, per env. These
helpers do that conversion and nothing else: they import neither SB3 nor any other
framework, only numpy.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

#: Keys that SAME_STEP vector envs use for the finished episode (the adapter replaces them
#: by SB3's own keys).
FINAL_KEYS = ("final_obs", "_final_obs", "final_info", "_final_info")


def copy_obs(obs: Any) -> Any:
    """A copy of a whole observation batch (an array (N, ...) or a dict of them): a vector env
    may return its own buffer (``SyncVectorEnv(copy=False)``), which its next step
    overwrites."""
    if isinstance(obs, Mapping):
        return {key: np.array(value, copy=True) for key, value in obs.items()}
    return np.array(obs, copy=True)


def obs_row(obs: Any, i: int) -> Any:
    """A copy of env ``i``'s observation from a batch (an array or a dict of arrays)."""
    if isinstance(obs, Mapping):
        return {key: np.array(value[i], copy=True) for key, value in obs.items()}
    return np.array(obs[i], copy=True)


def put_rows(obs: Any, new_obs: Any, mask: np.ndarray) -> None:
    """``obs[mask] = new_obs[mask]`` in place, for an array or a dict of arrays."""
    if isinstance(obs, Mapping):
        for key in obs:
            obs[key][mask] = np.asarray(new_obs[key])[mask]
    else:
        obs[mask] = np.asarray(new_obs)[mask]


def without_final_keys(infos: Mapping[str, Any]) -> dict[str, Any]:
    """``infos`` (a new dict, values shared) without the :data:`FINAL_KEYS` of a SAME_STEP
    vector env."""
    return {key: value for key, value in infos.items() if key not in FINAL_KEYS}


def split_infos(infos: Mapping[str, Any], num_envs: int) -> list[dict[str, Any]]:
    """Gymnasium's batched infos (arrays plus ``"_key"`` masks) as one dict per env.

    Env ``i`` gets ``key`` only where ``infos["_key"][i]`` is true; nested dicts are split
    the same way. A key without a mask (not written by Gymnasium's ``_add_info``) is given to
    every env: row ``i`` if it is an array or list of N entries, else the whole value.
    """
    out: list[dict[str, Any]] = [{} for _ in range(num_envs)]
    for key, value in infos.items():
        if isinstance(key, str) and key.startswith("_") and key[1:] in infos:
            continue  # a mask, used with its key
        mask = infos.get(f"_{key}")
        if isinstance(value, Mapping):
            per_env = split_infos(value, num_envs)
            for i in range(num_envs):
                if (mask[i] if mask is not None else per_env[i]):
                    out[i][key] = per_env[i]
            continue
        batched = (isinstance(value, np.ndarray) and value.ndim >= 1 and len(value) == num_envs
                   or isinstance(value, (list, tuple)) and len(value) == num_envs)
        if mask is not None and not batched:
            raise ValueError(f"info {key!r} has a mask but is not a batch of {num_envs} values: "
                             f"{value!r}")
        for i in range(num_envs):
            if mask is None or mask[i]:
                item = value[i] if batched else value
                out[i][key] = item.copy() if isinstance(item, np.ndarray) else item
    return out
