"""DogfightRecorder: Tacview ACMI replays of MAFixedwingDogfight episodes."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import numpy as np
from pettingzoo.utils.wrappers import BaseParallelWrapper

from pyflyt_like.common.acmi import (
    DEFAULT_REFERENCE_LATITUDE,
    DEFAULT_REFERENCE_LONGITUDE,
    DEFAULT_REFERENCE_TIME,
    AcmiWriter,
    check_acmi_path,
)

from .acmi_episode import CRASHED, LEFT_AREA, SHOT_DOWN, AcmiDogfightEpisode
from .scene import MAFixedwingDogfightEnv

EPISODE_FIELD = "{episode}"


class DogfightRecorder(BaseParallelWrapper):
    """Wraps a :class:`~.fixedwing_dogfight.MAFixedwingDogfightEnv` and writes each episode
    as a Tacview ACMI 2.2 file (open it in Tacview: File > Open).

    It is a PettingZoo ``ParallelEnv``: ``reset``, ``step``, ``agents``, spaces and every
    other public attribute are the env's. What is written (see docs/tacview.md):

    - each aircraft as object ``i + 1`` (agent ``uav_<i>``), named ``team <t> / uav <i>``,
      ``Type=Air+FixedWing``, ``Color`` Red (team 0) or Blue (team 1), ``Coalition``
      ``team <t>``;
    - a frame at ``reset`` and after every ``step``: the position and Euler angles of every
      aircraft that was in play when the step began (``drone.state``), at the aviary's
      time; ``Health`` when it changes;
    - per step and shooter-target pair with hits, ``Event=Message`` naming both (ids and
      text: the number of physics-step hits and the target's health), at the step's time;
    - ``Event=Destroyed`` when an aircraft is shot down (health 0) or crashes,
      ``Event=LeftArea`` when it leaves the flight dome; it is then removed (``-<id>``);
    - ``Event=Bookmark`` ``team <t> wins`` when a team wins.

    The file is written (atomically) when the episode ends (no agents left), on the next
    ``reset`` (the episode so far) or on :meth:`close`. ``path`` may hold ``{episode}``,
    replaced by the episode's number (0, 1, ...); without it every episode replaces the
    file. :attr:`written` lists the files written.

    Who hit whom comes from the env's ``pair_hits_total`` (the infos give each agent's
    totals only): the recorder takes its change over each step.

    Args:
        env: a MAFixedwingDogfightEnv (or a wrapper whose ``unwrapped`` is one).
        path: the ``.acmi`` file to write, in an existing writable folder.
        reference_latitude: latitude of the env's origin [deg] (see
            :class:`~pyflyt_like.common.acmi.AcmiWriter`).
        reference_longitude: longitude of the env's origin [deg].
        reference_altitude: altitude of the env's ground plane above sea level [m].
        reference_time: UTC time of the episode's start (ISO 8601, ``...Z``).
        title: the recordings' title (default: ``dogfight episode <n>``).

    Raises:
        TypeError: ``env`` is not a dogfight env; ``path`` is not a path.
        ValueError: ``path`` does not end in ``.acmi``; a bad reference (see AcmiWriter).
        FileWriteError: the folder of ``path`` is missing or not writable.
    """

    def __init__(self, env: Any, path: str | os.PathLike, *,
                 reference_latitude: float = DEFAULT_REFERENCE_LATITUDE,
                 reference_longitude: float = DEFAULT_REFERENCE_LONGITUDE,
                 reference_altitude: float = 0.0,
                 reference_time: str = DEFAULT_REFERENCE_TIME, title: str | None = None):
        dogfight = getattr(env, "unwrapped", env)
        if not isinstance(dogfight, MAFixedwingDogfightEnv):
            raise TypeError(f"env must be a MAFixedwingDogfightEnv (or wrap one), got "
                            f"{type(env).__name__}")
        check_acmi_path(path)
        if title is not None and not isinstance(title, str):
            raise TypeError(f"title must be a str or None, got {title!r}")
        super().__init__(env)
        self.path = Path(path)
        self.written: list[Path] = []
        self.episode = -1
        self._dogfight = dogfight
        self._options = {"reference_latitude": reference_latitude,
                         "reference_longitude": reference_longitude,
                         "reference_altitude": reference_altitude,
                         "reference_time": reference_time}
        self._title = title
        # Fail now, not at the end of the first episode, on a bad reference.
        AcmiWriter(self._episode_path(0), title="check", **self._options)
        self._episode: AcmiDogfightEpisode | None = None

    # ----------------------------------------------------------------- ParallelEnv
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None):
        """Reset the env and start recording a new episode (writing the last one first if
        it was not finished)."""
        self._finish()
        observations, infos = self.env.reset(seed=seed, options=options)
        self.episode += 1
        dogfight = self._dogfight
        title = self._title or f"dogfight episode {self.episode}"
        comments = {} if seed is None else {"Comments": f"reset(seed={seed})"}
        self._episode = AcmiDogfightEpisode(self._episode_path(self.episode), dogfight.team,
                                            title, comments, **self._options)
        self._episode.frame(dogfight.aviary.elapsed_time, np.flatnonzero(dogfight.in_play),
                            *self._poses())
        return observations, infos

    def step(self, actions: dict[str, Any]):
        """Step the env and record the step (see the class docstring)."""
        dogfight = self._dogfight
        in_play_before = dogfight.in_play.copy()
        hits_before = dogfight.pair_hits_total.copy()
        result = self.env.step(actions)
        if self._episode is not None:
            self._record_step(np.flatnonzero(in_play_before),
                              dogfight.pair_hits_total - hits_before, result[4])
            if not self.env.agents:
                self._finish()
        return result

    def close(self) -> None:
        """Write the episode in progress and close the env."""
        self._finish()
        self.env.close()

    # ----------------------------------------------------------------- recording
    def _episode_path(self, episode: int) -> Path:
        return Path(str(self.path).replace(EPISODE_FIELD, str(episode)))

    def _record_step(self, stepped: np.ndarray, step_hits: np.ndarray,
                     infos: dict[str, dict]) -> None:
        dogfight = self._dogfight
        losses = {}
        for i in stepped[~dogfight.in_play[stepped]]:
            info = infos.get(dogfight.possible_agents[i], {})
            losses[int(i)] = (LEFT_AREA if info.get("out_of_bounds") else
                              CRASHED if info.get("collision") else SHOT_DOWN)
        team_win = dogfight.team_win if not self.env.agents else None
        self._episode.step(dogfight.aviary.elapsed_time, stepped, step_hits, dogfight.health,
                           *self._poses(), losses, team_win)

    def _poses(self) -> tuple[np.ndarray, np.ndarray]:
        """(n, 3) positions [m] and Euler angles [rad] of the aircraft (drone.state)."""
        drones = self._dogfight.drones
        return (np.array([drone.state[3] for drone in drones]),
                np.array([drone.state[1] for drone in drones]))

    def _finish(self) -> None:
        """Write the episode being recorded, if any."""
        episode, self._episode = self._episode, None
        if episode is not None:
            self.written.append(episode.close())
