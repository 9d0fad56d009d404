"""Episodes of the Gymnasium tasks and the PettingZoo scenes, recorded to Rerun.

:class:`RerunRecorder` wraps a Gymnasium env, :class:`RerunParallelRecorder` a PettingZoo
``ParallelEnv``; each records every episode as its own recording (an ``.rrd`` file per
episode, or a new recording in the running viewer) through an :class:`.AviaryRecorder` on
the env's aviary, with the reward of each step (``plots/reward/<agent>/reward``) and a
message when the episode ends.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import gymnasium
import numpy as np
from pettingzoo.utils.wrappers import BaseParallelWrapper

from ._sdk import DEFAULT_VIEWER_URL, Sink, check_rrd_path, check_viewer, import_rerun
from .aviary_recorder import AviaryRecorder
from .columns import entity_name, log_event, send_series

rr = import_rerun()

EPISODE_FIELD = "{episode}"


def find_aviary(env: Any) -> Any:
    """The :class:`~pyflyt_like.core.Aviary` an env flies in (PyBullet envs and the
    multirotor tasks' PyBullet backend).

    Raises:
        TypeError: the env has none (e.g. a batched vector task: record its engine with
            :class:`.BatchedRecorder` instead).
    """
    unwrapped = getattr(env, "unwrapped", env)
    for route in (("aviary",), ("episodes", "backend", "aviary"), ("backend", "aviary")):
        found = unwrapped
        for attribute in route:
            found = getattr(found, attribute, None)
        if found is not None and isinstance(getattr(found, "drones", None), list):
            return found
    raise TypeError(f"env {type(unwrapped).__name__} has no PyBullet Aviary to record (for the "
                    "batched engine use pyflyt_like.integrations.rerun.BatchedRecorder)")


class _Episodes:
    """The recording of one episode after another; shared by both wrappers."""

    def __init__(self, env: Any, path: str | os.PathLike | None, url: str):
        if path is None:
            check_viewer(url, "path")
            self.path = None
        else:
            check_rrd_path(str(path).replace(EPISODE_FIELD, "0"), "path")
            self.path = Path(path)
        self.url = url
        self.env = env
        self.episode = -1
        self.written: list[Path] = []
        self.recorder: AviaryRecorder | None = None
        self._rewards: dict[str, list[tuple[float, float]]] = {}

    def start(self, names: list[str], seed: int | None) -> None:
        self.finish(None)
        self.episode += 1
        aviary = find_aviary(self.env)
        recording_id = f"episode-{self.episode}-{os.getpid()}-{id(self)}"
        if self.path is None:
            destination: Any = Sink(None, url=self.url, recording_id=recording_id).stream
        else:
            destination = Path(str(self.path).replace(EPISODE_FIELD, str(self.episode)))
        self.recorder = AviaryRecorder(aviary, destination, names=names)
        title = f"{type(self.env.unwrapped).__name__} episode {self.episode}"
        self.recorder.stream.send_recording_name(title if seed is None else
                                                 f"{title} (seed {seed})")
        self._rewards = {entity_name(n): [] for n in names}
        self.recorder.record()

    def step(self, rewards: dict[str, float]) -> None:
        if self.recorder is None:
            return
        self.recorder.record()
        time = float(self.recorder.aviary.elapsed_time)
        for name, reward in rewards.items():
            self._rewards.setdefault(entity_name(name), []).append((time, float(reward)))

    def finish(self, text: str | None) -> None:
        recorder, self.recorder = self.recorder, None
        if recorder is None:
            return
        stream = recorder.stream
        for name, rows in self._rewards.items():
            if rows:
                values = np.array(rows)
                send_series(stream, f"plots/reward/{name}/reward", values[:, 0],
                            values[:, 1:], ["reward"])
        if text is not None:
            log_event(stream, float(recorder.aviary.elapsed_time), text)
        stream.send_blueprint(recorder.blueprint(("reward", "command", "m/s")))
        recorder._blueprint = False  # sent above, with the reward view
        written = recorder.close()
        if written is not None:
            self.written.append(written)


class RerunRecorder(gymnasium.Wrapper):
    """Records every episode of a Gymnasium env (one with a PyBullet aviary) to Rerun.

    A recording per episode: started by ``reset``, finished when the episode terminates or
    is truncated, on the next ``reset`` or on :meth:`close`. It holds the aviary as
    :class:`.AviaryRecorder` logs it (the vehicle is ``agent``) and the reward of every
    step.

    Args:
        env: a pyflyt_like Gymnasium env.
        path: the ``.rrd`` file; ``{episode}`` in it is replaced by the episode's number
            (without it every episode replaces the file); None: the running viewer.
        url: the viewer's address when ``path`` is None.

    Attributes:
        written: the files written so far.

    Raises:
        ValueError, FileWriteError: a bad ``path`` (as :func:`._sdk.check_rrd_path`).
        ConnectionError: ``path`` None and no viewer runs at ``url``.
        TypeError: the env has no aviary (see :func:`find_aviary`).
    """

    def __init__(self, env: gymnasium.Env, path: str | os.PathLike | None, *,
                 url: str = DEFAULT_VIEWER_URL):
        super().__init__(env)
        find_aviary(env)
        self._episodes = _Episodes(env, path, url)

    @property
    def written(self) -> list[Path]:
        """The ``.rrd`` files written so far."""
        return self._episodes.written

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        """Reset the env and start recording a new episode."""
        self._episodes.finish(None)
        result = self.env.reset(seed=seed, options=options)
        self._episodes.start(["agent"], seed)
        return result

    def step(self, action: Any):
        """Step the env and record the step."""
        result = self.env.step(action)
        _, reward, terminated, truncated, _ = result
        self._episodes.step({"agent": reward})
        if terminated or truncated:
            self._episodes.finish(f"episode {self._episodes.episode} "
                                  f"{'terminated' if terminated else 'truncated'}")
        return result

    def close(self) -> None:
        """Write the episode in progress and close the env."""
        self._episodes.finish(None)
        self.env.close()


class RerunParallelRecorder(BaseParallelWrapper):
    """Records every episode of a PettingZoo scene (a pyflyt_like ``ParallelEnv``) to
    Rerun, as :class:`RerunRecorder` does: one vehicle per possible agent (named after
    it), the rewards of every agent, and the end of the episode when no agents remain.

    Args and errors as :class:`RerunRecorder`.
    """

    def __init__(self, env: Any, path: str | os.PathLike | None, *,
                 url: str = DEFAULT_VIEWER_URL):
        super().__init__(env)
        find_aviary(env)
        self._episodes = _Episodes(env, path, url)

    @property
    def written(self) -> list[Path]:
        """The ``.rrd`` files written so far."""
        return self._episodes.written

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None):
        """Reset the env and start recording a new episode."""
        self._episodes.finish(None)
        result = self.env.reset(seed=seed, options=options)
        self._episodes.start(list(self.env.possible_agents), seed)
        return result

    def step(self, actions: dict[str, Any]):
        """Step the env and record the step."""
        result = self.env.step(actions)
        self._episodes.step(result[1])
        if not self.env.agents:
            self._episodes.finish(f"episode {self._episodes.episode} ended")
        return result

    def close(self) -> None:
        """Write the episode in progress and close the env."""
        self._episodes.finish(None)
        self.env.close()
