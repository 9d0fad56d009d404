"""DogfightVectorRecorder: Tacview ACMI replays of chosen worlds of Dogfight-v0."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from gymnasium.vector import VectorWrapper

from pyflyt_like.common.acmi import (
    DEFAULT_REFERENCE_LATITUDE,
    DEFAULT_REFERENCE_LONGITUDE,
    DEFAULT_REFERENCE_TIME,
    AcmiWriter,
    check_acmi_path,
)
from pyflyt_like.common.angles import quaternions_to_euler

from .acmi_episode import CRASHED, LEFT_AREA, SHOT_DOWN, AcmiDogfightEpisode
from .vector_env import DogfightVectorEnv

FIELDS = ("{world}", "{episode}")


class DogfightVectorRecorder(VectorWrapper):
    """Wraps a :class:`~.vector_env.DogfightVectorEnv` and writes every episode of the
    chosen worlds as a Tacview ACMI 2.2 file, as the PettingZoo scene's
    :class:`~pyflyt_like.envs.DogfightRecorder` does (the same objects, frames, hit
    messages, health, losses and result: docs/tacview.md).

    ``path`` must hold ``{world}`` when more than one world is recorded, and may hold
    ``{episode}`` (the world's episode number, from 0; without it each episode replaces
    the world's file). A file is written when its world's episode ends, and on
    :meth:`close` (the episode so far). :attr:`written` lists the files written.

    Args:
        env: a Dogfight-v0 VectorEnv (or a wrapper whose ``unwrapped`` is one).
        path: the ``.acmi`` file(s) to write, in an existing writable folder.
        worlds: the indices of the worlds to record.
        reference_latitude: latitude of the env's origin [deg] (see
            :class:`~pyflyt_like.common.acmi.AcmiWriter`).
        reference_longitude: longitude of the env's origin [deg].
        reference_altitude: altitude of the env's ground plane above sea level [m].
        reference_time: UTC time of the episodes' start (ISO 8601, ``...Z``).

    Raises:
        TypeError: ``env`` is not Dogfight-v0; ``path`` is not a path.
        ValueError: a bad suffix, world index or reference; several worlds without
            ``{world}`` in ``path``.
    """

    def __init__(self, env: Any, path: str | os.PathLike, worlds: Sequence[int] = (0,), *,
                 reference_latitude: float = DEFAULT_REFERENCE_LATITUDE,
                 reference_longitude: float = DEFAULT_REFERENCE_LONGITUDE,
                 reference_altitude: float = 0.0,
                 reference_time: str = DEFAULT_REFERENCE_TIME):
        dogfight = getattr(env, "unwrapped", env)
        if not isinstance(dogfight, DogfightVectorEnv):
            raise TypeError(f"env must be a DogfightVectorEnv (or wrap one), got "
                            f"{type(env).__name__}")
        check_acmi_path(path)
        indices = np.asarray(worlds)
        if indices.ndim != 1 or indices.size == 0 or indices.dtype.kind not in "iu" or (
                indices.min() < 0 or indices.max() >= dogfight.n_worlds
                or np.unique(indices).size != indices.size):
            raise ValueError(f"worlds must be distinct indices in [0, {dogfight.n_worlds}), "
                             f"got {worlds!r}")
        if indices.size > 1 and FIELDS[0] not in str(path):
            raise ValueError(f"path must hold {FIELDS[0]} to record {indices.size} worlds, "
                             f"got {str(path)!r}")
        super().__init__(env)
        self.path, self.worlds = Path(path), indices.tolist()
        self.written: list[Path] = []
        self._dogfight = dogfight
        self._reference = {"reference_latitude": reference_latitude,
                           "reference_longitude": reference_longitude,
                           "reference_altitude": reference_altitude,
                           "reference_time": reference_time}
        AcmiWriter(self._file(0, 0), title="check", **self._reference)  # fail now if bad
        self._episodes: dict[int, AcmiDogfightEpisode] = {}
        self._counts = dict.fromkeys(self.worlds, -1)

    def reset(self, *, seed: int | list[int] | None = None,
              options: dict[str, Any] | None = None):
        """Reset the env (writing the episodes in progress) and start recording."""
        for world in self.worlds:
            self._finish(world)
        result = self.env.reset(seed=seed, options=options)
        for world in self.worlds:
            self._start(world)
        return result

    def step(self, actions):
        """Step the env and record the chosen worlds' step (see the class docstring)."""
        task, worlds = self._dogfight.task, self.worlds
        in_play = task.in_play[worlds].copy()
        hits_before = task.pair_total[worlds].copy()
        restarting = self._dogfight.restarting[worlds].copy()
        result = self.env.step(actions)
        ended = self._dogfight.ended
        positions, euler = self._poses()
        for k, world in enumerate(worlds):
            if restarting[k]:
                self._start(world)
                continue
            stepped = np.flatnonzero(in_play[k])
            losses = {}
            for i in stepped[~task.in_play[world, stepped]].tolist():
                losses[i] = (LEFT_AREA if task.lost[world, i] else
                             CRASHED if task.failed[world, i] else SHOT_DOWN)
            winner = int(task.team_win[world])
            self._episodes[world].step(
                self._time(world), stepped, task.pair_total[world] - hits_before[k],
                task.health[world], positions[world], euler[world], losses,
                winner if ended[world] and winner >= 0 else None)
            if ended[world]:
                self._finish(world)
        return result

    def close(self, **kwargs: Any) -> None:
        """Write the episodes in progress and close the env."""
        for world in self.worlds:
            self._finish(world)
        self.env.close(**kwargs)

    # ----------------------------------------------------------------- recording
    def _file(self, world: int, episode: int) -> Path:
        text = str(self.path).replace(FIELDS[0], str(world))
        return Path(text.replace(FIELDS[1], str(episode)))

    def _time(self, world: int) -> float:
        return float(self._dogfight.sim.elapsed_time[world])

    def _poses(self) -> tuple[np.ndarray, np.ndarray]:
        sim = self._dogfight.sim
        return sim.pos, quaternions_to_euler(sim.quat)

    def _start(self, world: int) -> None:
        self._finish(world)
        self._counts[world] += 1
        episode = self._counts[world]
        self._episodes[world] = recording = AcmiDogfightEpisode(
            self._file(world, episode), self._dogfight.team,
            f"Dogfight-v0 world {world} episode {episode}", **self._reference)
        positions, euler = self._poses()
        recording.frame(self._time(world), np.flatnonzero(self._dogfight.task.in_play[world]),
                        positions[world], euler[world])

    def _finish(self, world: int) -> None:
        recording = self._episodes.pop(world, None)
        if recording is not None:
            self.written.append(recording.close())
