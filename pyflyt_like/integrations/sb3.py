"""Train stable-baselines3 directly on a native Gymnasium 1.x ``VectorEnv``.

``to_sb3_vec_env(vector_env)`` wraps a :class:`gymnasium.vector.VectorEnv` (for example
``gymnasium.make_vec(...)``, a ``SyncVectorEnv``/``AsyncVectorEnv`` or a batched env that
steps all worlds at once) in :class:`SB3VecEnvAdapter`, a
:class:`stable_baselines3.common.vec_env.VecEnv`. The two APIs disagree on three things, and
the adapter bridges each:

* **Autoreset.** Gymnasium's default ``NEXT_STEP`` mode returns the final observation of an
  episode, then spends the *next* ``step`` call on resetting (reward 0, action ignored). SB3
  expects a finished env to be reset within the same step, with the final observation in
  ``infos[i]["terminal_observation"]``. The adapter therefore resets the finished envs itself,
  with one ``reset(options={"reset_mask": done})`` call per step, which also clears the
  vector env's pending autoreset so no reset step ever reaches SB3.
* **Infos.** Gymnasium gives one dict of arrays with ``"_key"`` masks; SB3 wants one dict per
  env. Each env's dict holds only the keys whose mask is true for it (nested dicts are split
  the same way; :func:`~.vector_batches.split_infos`).
* **Episode statistics.** The adapter records them itself, in the format of SB3's ``Monitor``:
  on the step an episode ends, ``infos[i]["episode"] = {"r": return, "l": length, "t":
  seconds since the adapter was made}``, so SB3 logs ``ep_rew_mean``/``ep_len_mean`` with no
  ``VecMonitor``. (Wrapping the adapter in a ``VecMonitor`` still works, e.g. to write a
  monitor.csv; it recomputes the same numbers.)

stable-baselines3 is an optional dependency (the ``rl`` extra): importing this module imports
it, and raises ImportError with the install line where it is missing; nothing else in
``pyflyt_like`` imports it (``pyflyt_like.envs.to_sb3_vec_env`` loads this module on first
use).
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Iterable, Sequence
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, SyncVectorEnv, VectorEnv

from .vector_batches import copy_obs, obs_row, put_rows, split_infos, without_final_keys

try:
    from stable_baselines3.common.vec_env import VecEnv
    from stable_baselines3.common.vec_env.base_vec_env import (
        VecEnvIndices,
        VecEnvObs,
        VecEnvStepReturn,
        tile_images,
    )
except ImportError as error:
    raise ImportError("pyflyt_like.integrations.sb3 needs stable-baselines3, in the rl extra: "
                      'pip install "pyflyt_like[rl]"') from error

__all__ = ["SB3VecEnvAdapter", "to_sb3_vec_env"]

# Spaces whose batch is a plain ndarray with the env index first, so one env's row is
# ``batch[i]``; SB3's policies also accept a Dict of them (MultiInputPolicy).
_ARRAY_SPACES = (spaces.Box, spaces.Discrete, spaces.MultiDiscrete, spaces.MultiBinary)


def to_sb3_vec_env(vector_env: VectorEnv) -> VecEnv:
    """Wrap a Gymnasium 1.x vector env as an SB3 ``VecEnv`` (see :class:`SB3VecEnvAdapter`)."""
    return SB3VecEnvAdapter(vector_env)


class SB3VecEnvAdapter(VecEnv):
    """An SB3 ``VecEnv`` driving a native Gymnasium 1.x ``VectorEnv`` of N envs.

    Shapes (N = ``num_envs``, ``obs_shape`` = ``single_observation_space.shape``):

    * ``reset()`` -> obs ``(N, *obs_shape)`` (a dict of such arrays for a Dict space); the
      per-env reset infos are in ``self.reset_infos`` (a list of N dicts).
    * ``step(actions)`` with actions ``(N, *action_shape)`` -> ``(obs (N, *obs_shape),
      rewards (N,) float32, dones (N,) bool, infos: list of N dicts)``. For each env that
      finished (terminated or truncated) on this step, ``obs[i]`` is already the first
      observation of its next episode and ``infos[i]`` holds ``"terminal_observation"`` (the
      episode's last observation, ``obs_shape``) and ``"episode"`` (``{"r": float, "l": int,
      "t": float}``, as SB3's ``Monitor`` writes it). Every ``infos[i]`` has
      ``"TimeLimit.truncated" = truncated and not terminated``.

    Requirements on ``vector_env``:

    * ``metadata["autoreset_mode"]`` is ``AutoresetMode.NEXT_STEP`` or ``DISABLED``, and
      ``reset(options={"reset_mask": mask})`` (mask a ``(N,)`` bool array) resets only the
      masked envs, returns the whole observation batch and, for NEXT_STEP, clears their
      pending autoreset, as Gymnasium's own Sync/AsyncVectorEnv do. A vector env that ignores
      ``reset_mask`` would silently reset every env. ``SAME_STEP`` is supported too: there the
      vector env resets by itself and ``infos["final_obs"]``/``infos["final_info"]`` give the
      terminal observation and the final step's infos.
    * ``single_observation_space`` is a Box, Discrete, MultiDiscrete or MultiBinary, or a Dict
      of them; ``single_action_space`` is one of those four.

    Per-env access (``get_attr``, ``set_attr``, ``env_method``) goes to the sub-envs when the
    vector env has them: any subset of a ``SyncVectorEnv``; for other vector envs that offer
    ``get_attr``/``set_attr``/``call`` (``AsyncVectorEnv``), reads of any subset but writes and
    method calls only on all envs at once (``call`` and ``set_attr`` have no indices, so a
    subset call would run on the others too). A batched vector env with no sub-envs is one
    object for all N envs: ``get_attr`` returns its attribute once per requested index, while
    ``set_attr`` and ``env_method`` act on it once and need all indices (else
    ``NotImplementedError``).
    ``env_is_wrapped`` is all False: the adapter does not look inside the vector env.

    Args:
        vector_env: the Gymnasium vector env; the adapter owns it from now on (``close()``
            closes it) and expects to be the only caller of its ``step``/``reset``.

    Raises:
        TypeError: ``vector_env`` is not a ``gymnasium.vector.VectorEnv``.
        ValueError: an unsupported autoreset mode or space.
    """

    def __init__(self, vector_env: VectorEnv):
        if isinstance(vector_env, VecEnv):
            raise TypeError(f"{type(vector_env).__name__} is already a stable-baselines3 "
                            "VecEnv; pass it to SB3 directly")
        if isinstance(vector_env, gymnasium.Env):
            raise TypeError(f"expected a gymnasium.vector.VectorEnv, got the single env "
                            f"{vector_env!r}; make a vector env with gymnasium.make_vec(...) "
                            "or use SB3's DummyVecEnv for single envs")
        if not isinstance(vector_env, VectorEnv):
            raise TypeError(f"expected a gymnasium.vector.VectorEnv, got "
                            f"{type(vector_env).__name__}")
        self.autoreset_mode = _autoreset_mode(vector_env)
        obs_space = vector_env.single_observation_space
        action_space = vector_env.single_action_space
        _check_observation_space(obs_space)
        if not isinstance(action_space, _ARRAY_SPACES):
            raise ValueError("single_action_space must be a Box, Discrete, MultiDiscrete or "
                             f"MultiBinary space, got {action_space}")
        num_envs = int(vector_env.num_envs)
        if num_envs < 1:
            raise ValueError(f"the vector env must hold at least one env, got num_envs={num_envs}")

        # Set before VecEnv.__init__, which already reads render_mode through get_attr.
        self.vector_env = vector_env
        super().__init__(num_envs, obs_space, action_space)
        if "render_fps" in vector_env.metadata:  # read by SB3's VecVideoRecorder
            self.metadata["render_fps"] = vector_env.metadata["render_fps"]

        self._actions: np.ndarray | None = None
        self._t_start = time.time()  # Monitor's "t" counts from the monitor's creation
        self._episode_returns = np.zeros(num_envs, dtype=np.float64)
        self._episode_lengths = np.zeros(num_envs, dtype=np.int64)

    # --- stepping ---------------------------------------------------------------------------

    def reset(self) -> VecEnvObs:
        """Reset all N envs, with the seeds of :meth:`seed` and options of ``set_options``.

        Returns:
            The first observations, ``(N, *obs_shape)`` (or a dict of such arrays); the
            reset infos go to ``self.reset_infos``.

        Raises:
            ValueError: ``set_options`` gave the envs different options (a vector env's
                ``reset`` takes one options dict for all of them), or a ``"reset_mask"``.
        """
        seeds = None if all(s is None for s in self._seeds) else list(self._seeds)
        options = self._shared_options()
        obs, infos = self.vector_env.reset(seed=seeds, options=options)
        # SB3 uses seeds and options for one reset only.
        self._reset_seeds()
        self._reset_options()
        self.reset_infos = split_infos(infos, self.num_envs)
        self._episode_returns[:] = 0.0
        self._episode_lengths[:] = 0
        self._actions = None
        # A vector env may return its internal buffer (SyncVectorEnv(copy=False)), which its
        # next step overwrites while SB3 still holds this batch as ``_last_obs``.
        return copy_obs(obs)

    def step_async(self, actions: np.ndarray) -> None:
        """Store the actions, ``(N, *action_shape)``, for :meth:`step_wait`."""
        actions = np.asarray(actions)
        if actions.ndim == 0 or len(actions) != self.num_envs:
            raise ValueError(f"actions must have one row per env, shape ({self.num_envs}, ...); "
                             f"got shape {actions.shape}")
        self._actions = actions

    def step_wait(self) -> VecEnvStepReturn:
        """Step all envs, resetting the finished ones within this step (see the class doc)."""
        if self._actions is None:
            raise RuntimeError("step_wait() called without a pending step_async(actions)")
        actions, self._actions = self._actions, None
        obs, rewards, terminated, truncated, infos = self.vector_env.step(actions)
        obs = copy_obs(obs)  # the reset below may overwrite the vector env's buffer
        rewards = np.asarray(rewards, dtype=np.float32).reshape(self.num_envs)
        terminated = np.asarray(terminated, dtype=bool).reshape(self.num_envs)
        truncated = np.asarray(truncated, dtype=bool).reshape(self.num_envs)
        dones = terminated | truncated
        done_envs = np.flatnonzero(dones)

        if self.autoreset_mode == AutoresetMode.SAME_STEP:
            # The vector env already reset the finished envs: ``obs`` and the top-level infos
            # of those rows belong to the new episode, the old episode's end is under "final_*".
            step_infos = split_infos(without_final_keys(infos), self.num_envs)
            if done_envs.size:
                final_obs = infos.get("final_obs")
                final_infos = split_infos(infos.get("final_info", {}), self.num_envs)
                if final_obs is None:
                    raise RuntimeError("a SAME_STEP vector env finished an episode without "
                                       "infos['final_obs']")
                for i in done_envs:
                    self.reset_infos[i] = step_infos[i]
                    step_infos[i] = final_infos[i]
                    step_infos[i]["terminal_observation"] = copy_obs(final_obs[i])
        else:
            step_infos = split_infos(infos, self.num_envs)
            if done_envs.size:
                for i in done_envs:
                    step_infos[i]["terminal_observation"] = obs_row(obs, i)
                # One partial reset for all finished envs; for NEXT_STEP it also cancels the
                # reset the vector env would otherwise spend its next step on.
                reset_obs, reset_infos = self.vector_env.reset(
                    options={"reset_mask": dones.copy()})
                put_rows(obs, reset_obs, dones)
                reset_infos = split_infos(reset_infos, self.num_envs)
                for i in done_envs:
                    self.reset_infos[i] = reset_infos[i]

        self._episode_returns += rewards
        self._episode_lengths += 1
        for i in range(self.num_envs):
            step_infos[i]["TimeLimit.truncated"] = bool(truncated[i] and not terminated[i])
        for i in done_envs:
            step_infos[i]["episode"] = {"r": round(float(self._episode_returns[i]), 6),
                                        "l": int(self._episode_lengths[i]),
                                        "t": round(time.time() - self._t_start, 6)}
        self._episode_returns[dones] = 0.0
        self._episode_lengths[dones] = 0
        return obs, rewards, dones, step_infos

    def close(self) -> None:
        """Close the vector env."""
        self.vector_env.close()

    def seed(self, seed: int | None = None) -> Sequence[int | None]:
        """Set seeds ``seed, seed + 1, ...`` (random if None) for the next :meth:`reset` only.

        Returns:
            The N seeds.
        """
        return super().seed(seed)

    def _shared_options(self) -> dict[str, Any] | None:
        """The one options dict that ``set_options`` gave every env, or None if it gave none."""
        first = self._options[0]
        try:
            same = all(opts == first for opts in self._options[1:])
        except ValueError:  # == on dicts holding arrays is ambiguous; treat them as different
            same = False
        if not same:
            raise ValueError("a Gymnasium vector env resets all envs with one options dict, so "
                             "set_options() must give every env the same options; got "
                             f"{self._options}")
        if "reset_mask" in first:
            raise ValueError("reset() resets every env: options must not hold 'reset_mask'")
        return dict(first) if first else None

    # --- rendering --------------------------------------------------------------------------

    def render(self, mode: str | None = None) -> np.ndarray | None:
        """Render through the vector env's ``render()``.

        For ``render_mode="rgb_array"``: one image ``(H, W, 3)``, the N per-env frames tiled
        when the vector env returns one per env, or its single frame when it renders one view
        of the batch. For other render modes the vector env renders itself and this returns
        None. ``mode``, if given, must be the vector env's render mode (as SB3 warns and
        returns None otherwise).
        """
        if mode is not None and mode != self.render_mode:
            warnings.warn(f"render(mode={mode!r}) but the vector env was made with "
                          f"render_mode={self.render_mode!r}; render modes are fixed when the "
                          "env is made", stacklevel=2)
            return None
        if self.render_mode is None:
            warnings.warn("render() called but the vector env has no render_mode", stacklevel=2)
            return None
        frames = self.vector_env.render()
        if self.render_mode != "rgb_array":
            return None
        if frames is None:
            return None
        if isinstance(frames, np.ndarray) and frames.ndim == 3:
            return frames  # one view of the whole batch
        return tile_images([np.asarray(frame) for frame in frames])

    def get_images(self) -> Sequence[np.ndarray | None]:
        """The N per-env rgb_array frames; a vector env that renders one view of the batch
        gives it as env 0's frame and None for the others."""
        if self.render_mode != "rgb_array":
            warnings.warn(f"get_images() needs render_mode='rgb_array', the vector env has "
                          f"{self.render_mode!r}", stacklevel=2)
            return [None] * self.num_envs
        frames = self.vector_env.render()
        if frames is None:
            return [None] * self.num_envs
        if isinstance(frames, np.ndarray) and frames.ndim == 3:
            return [frames] + [None] * (self.num_envs - 1)
        return list(frames)

    # --- per-env access ---------------------------------------------------------------------

    def get_attr(self, attr_name: str, indices: VecEnvIndices = None) -> list[Any]:
        """``attr_name`` of each requested env (see the class doc for batched vector envs).

        Raises:
            AttributeError: no such attribute.
        """
        idx = self._indices(indices)
        base = self.vector_env.unwrapped
        if isinstance(base, SyncVectorEnv):
            return [base.envs[i].get_wrapper_attr(attr_name) for i in idx]
        if _has_per_env_api(base):
            values = base.get_attr(attr_name)
            return [values[i] for i in idx]
        value = getattr(self._attr_owner(attr_name), attr_name)
        return [value for _ in idx]

    def set_attr(self, attr_name: str, value: Any, indices: VecEnvIndices = None) -> None:
        """Set ``attr_name`` to ``value`` in each requested env.

        Raises:
            NotImplementedError: a subset of the envs, other than of a SyncVectorEnv.
        """
        idx = self._indices(indices)
        base = self.vector_env.unwrapped
        if isinstance(base, SyncVectorEnv):
            for i in idx:
                base.envs[i].set_wrapper_attr(attr_name, value)
        elif _has_per_env_api(base):
            # Its set_attr takes every env's value; reading the others' first to keep them is
            # no option, as an AttributeError in AsyncVectorEnv.get_attr shuts its workers down.
            self._require_all(idx, f"set_attr({attr_name!r})")
            # A list, since set_attr would take a list or tuple ``value`` as per-env values.
            base.set_attr(attr_name, [value] * self.num_envs)
        else:
            self._require_all(idx, f"set_attr({attr_name!r})")
            setattr(self._attr_owner(attr_name, must_exist=False), attr_name, value)

    def env_method(self, method_name: str, *method_args: Any, indices: VecEnvIndices = None,
                   **method_kwargs: Any) -> list[Any]:
        """Call ``method_name(*method_args, **method_kwargs)`` in each requested env.

        Raises:
            NotImplementedError: a subset of the envs, other than of a SyncVectorEnv.
            AttributeError: no such method.
        """
        idx = self._indices(indices)
        base = self.vector_env.unwrapped
        if isinstance(base, SyncVectorEnv):
            return [base.envs[i].get_wrapper_attr(method_name)(*method_args, **method_kwargs)
                    for i in idx]
        self._require_all(idx, f"env_method({method_name!r})")
        if _has_per_env_api(base):
            return list(base.call(method_name, *method_args, **method_kwargs))
        # A batched env is one object for all envs: call it once, give each env the result.
        result = getattr(self._attr_owner(method_name), method_name)(*method_args,
                                                                     **method_kwargs)
        return [result for _ in idx]

    def env_is_wrapped(self, wrapper_class: type[gymnasium.Wrapper],
                       indices: VecEnvIndices = None) -> list[bool]:
        """All False: the adapter does not look inside the vector env (its own episode
        statistics stand in for a ``Monitor``)."""
        return [False for _ in self._indices(indices)]

    def _indices(self, indices: VecEnvIndices) -> list[int]:
        idx = [int(i) for i in self._get_indices(indices)]
        bad = [i for i in idx if not 0 <= i < self.num_envs]
        if bad:
            raise IndexError(f"env indices {bad} out of range for {self.num_envs} envs")
        return idx

    def _covers_all(self, idx: Iterable[int]) -> bool:
        return set(idx) == set(range(self.num_envs))

    def _require_all(self, idx: list[int], what: str) -> None:
        if not self._covers_all(idx):
            raise NotImplementedError(
                f"{what} for envs {idx}: {type(self.vector_env.unwrapped).__name__} can only "
                f"act on all {self.num_envs} envs at once")

    def _attr_owner(self, name: str, must_exist: bool = True) -> Any:
        """The outermost vector env (wrapper or base) that has ``name``.

        Gymnasium's VectorWrapper does not forward unknown attributes, so a batched env's own
        attributes are only found by walking down to it.
        """
        env: Any = self.vector_env
        while True:
            if hasattr(env, name):
                return env
            inner = getattr(env, "env", None)
            if not isinstance(inner, VectorEnv):
                break
            env = inner
        if must_exist:
            raise AttributeError(f"{type(self.vector_env).__name__} has no attribute {name!r}")
        return self.vector_env.unwrapped


def _autoreset_mode(vector_env: VectorEnv) -> AutoresetMode:
    """The vector env's ``metadata["autoreset_mode"]`` as an AutoresetMode, else ValueError."""
    mode = vector_env.metadata.get("autoreset_mode")
    if mode is None:
        raise ValueError(f"{type(vector_env).__name__}.metadata has no 'autoreset_mode'; "
                         "a Gymnasium 1.x vector env must declare it (AutoresetMode.NEXT_STEP, "
                         "SAME_STEP or DISABLED)")
    try:
        return mode if isinstance(mode, AutoresetMode) else AutoresetMode(mode)
    except ValueError:
        raise ValueError(f"unsupported autoreset_mode {mode!r}; expected one of "
                         f"{[m.value for m in AutoresetMode]}") from None


def _check_observation_space(space: spaces.Space) -> None:
    if isinstance(space, _ARRAY_SPACES):
        return
    if isinstance(space, spaces.Dict) and all(isinstance(sub, _ARRAY_SPACES)
                                              for sub in space.spaces.values()):
        return
    raise ValueError("single_observation_space must be a Box, Discrete, MultiDiscrete or "
                     f"MultiBinary space, or a Dict of them; got {space}")


def _has_per_env_api(env: Any) -> bool:
    """Whether the vector env offers Gymnasium's per-sub-env calls (as AsyncVectorEnv does)."""
    return all(callable(getattr(env, name, None)) for name in ("get_attr", "set_attr", "call"))
