"""The memory a vector task asks for, estimated before anything is allocated.

A task on the batched engine (``Multirotor-*-v0``, ``Fixedwing-Reach-v0``, ``Dogfight-v0``)
allocates, besides its engine: its kernel's per-world task arrays (targets, counters, the
ring of delayed actions, noise draws, pair tables), the buffers the kernel writes
(observations, actions, rewards, flags), what each step returns (copies of them and the
infos) and the batched observation and action spaces (gymnasium's ``batch_space`` tiles the
single space's bounds once per env). :func:`check_task_memory` adds all of them to the
engine's own estimate (its family's ``memory_bytes``, :mod:`pyflyt_like.batch.memory`) and
refuses, naming ``num_envs``, a task that would need more than
:func:`~pyflyt_like.common.validation.memory_limit_bytes`, before the engine or any of these
arrays exists: the task arrays are measured on one world's layout, the spaces on the
single spaces, so nothing sized by ``num_envs`` is allocated to estimate it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import numpy as np
from gymnasium import spaces

from pyflyt_like.batch.families import vehicle_family
from pyflyt_like.batch.options import BatchedAviaryOptions
from pyflyt_like.common.validation import check_memory

#: Bytes per env of the info arrays a step returns: a few (num_envs,) arrays of 8 bytes
#: (the tasks return at most four, and their ``_key`` masks).
INFO_BYTES_PER_ENV = 8 * 8
#: Bytes per world of the kernel's flags (terminated, truncated, ended, restart, all) and
#: the two random streams a reset draws.
FLAG_BYTES_PER_WORLD = 5 + 2 * 8


def num_envs_text(num_envs: int, delay: int = 0, more: str = "") -> tuple[str, str]:
    """``(what, hint)`` of :func:`check_task_memory` for a task sized by ``num_envs`` and
    ``delay`` agent steps of action delay (``more``: what else could shrink, e.g. ``"a
    smaller team_size"``)."""
    what = f"num_envs={num_envs}" + (f" with action_delay_steps={delay}" if delay else "")
    options = ["a shorter delay"] * bool(delay) + [more] * bool(more)
    hint = "use fewer envs" + "".join(f" or {option}" for option in options)
    return what, hint


def engine_family(**engine_options: Any):
    """The vehicle family (model loaded and checked) that a
    :class:`~pyflyt_like.batch.BatchedAviary` of ``engine_options`` would fly, without
    allocating any of its arrays: its ``model`` gives the task's spaces and its
    ``memory_bytes`` the engine's estimate before the engine is built.

    Raises:
        TypeError, ValueError: a bad engine option, as the engine would.
        FileNotFoundError: an unknown ``drone_model``.
    """
    return vehicle_family(BatchedAviaryOptions(**engine_options))


def box_bytes(space: spaces.Box) -> int:
    """Bytes of a Box's bounds: ``low`` and ``high`` in its dtype and the
    ``bounded_below``/``bounded_above`` flags."""
    return sum(np.asarray(getattr(space, name)).nbytes
               for name in ("low", "high", "bounded_below", "bounded_above"))


def arrays_bytes(arrays: Iterable[Any]) -> int:
    """Bytes of the numpy arrays among ``arrays`` (a NamedTuple of arrays and numbers)."""
    return sum(array.nbytes for array in arrays if isinstance(array, np.ndarray))


def task_bytes(*, num_envs: int, n_worlds: int, n_drones: int,
               world_arrays: Callable[[int], Iterable[Any]],
               observation_space: spaces.Box, action_space: spaces.Box,
               transient_per_env: float = 0.0) -> float:
    """Estimated memory [bytes] of a vector task's own arrays (its engine's not included).

    Args:
        num_envs: the envs; n_worlds: the engine's worlds; n_drones: the vehicles per world.
        world_arrays: the task's arrays for ``n`` worlds (its kernels' ``zeros_arrays``),
            measured on one world.
        observation_space, action_space: the single (per-env, per-vehicle) spaces.
        transient_per_env: bytes per env that a step builds for a moment besides what it
            returns (e.g. a scripted opponent's inputs and temporaries).

    Per world: the task arrays and, per vehicle, the kernel's observation, action and reward
    buffers, and the flags. Per env: the batched spaces, what a step returns (observation,
    reward, terminated, truncated and the infos) twice (a training loop still holds the
    last step's while the next one is built), the checked copy of its actions and
    ``transient_per_env``.
    """
    size, k = observation_space.shape[0], action_space.shape[0]
    observation = observation_space.dtype.itemsize * size
    per_vehicle = observation + 8 * k + 8
    per_world = arrays_bytes(world_arrays(1)) + n_drones * per_vehicle + FLAG_BYTES_PER_WORLD
    returned = observation + 8 + 2 + INFO_BYTES_PER_ENV
    per_env = (box_bytes(observation_space) + box_bytes(action_space) + 2 * returned + 8 * k
               + transient_per_env)
    return float(n_worlds) * per_world + float(num_envs) * per_env  # floats: no overflow


def check_task_memory(what: str, hint: str, family, *, num_envs: int, n_worlds: int,
                      n_drones: int, world_arrays: Callable[[int], Iterable[Any]],
                      observation_space: spaces.Box, action_space: spaces.Box,
                      transient_per_env: float = 0.0) -> float:
    """Refuse a vector task whose arrays and engine together would need more than half this
    machine's memory, before either is allocated; return the estimate [bytes].

    Args:
        what: the arguments that size it, named as the user gave them
            (``"num_envs=4096 with action_delay_steps=10"``).
        hint: what to change, appended to the message.
        family: the engine's :func:`engine_family` (its ``memory_bytes``, with the sensors
            of its options).
        num_envs, n_worlds, n_drones, world_arrays, observation_space, action_space,
        transient_per_env: as :func:`task_bytes`.

    Raises:
        ValueError: naming ``what``, the estimate and the limit in GiB.
    """
    engine, _ = family.memory_bytes(n_worlds, n_drones, family.options.sensor_params())
    estimate = engine + task_bytes(num_envs=num_envs, n_worlds=n_worlds, n_drones=n_drones,
                                   world_arrays=world_arrays,
                                   observation_space=observation_space,
                                   action_space=action_space,
                                   transient_per_env=transient_per_env)
    check_memory(what, estimate, hint)
    return estimate
