"""DogfightRecorder: Tacview ACMI replays of MAFixedwingDogfight episodes."""

from __future__ import annotations

import math
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

from .dogfight_rules import hit_matrix, ranges_and_ahead
from .fixedwing_dogfight import MAFixedwingDogfightEnv

TEAM_COLORS = ("Red", "Blue")  # team 0, team 1
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
      text: the number of physics-step hits and the target's health), at the time of the
      first of those hits;
    - ``Event=Destroyed`` when an aircraft is shot down (health 0) or crashes,
      ``Event=LeftArea`` when it leaves the flight dome; it is then removed (``-<id>``);
    - ``Event=Bookmark`` ``team <t> wins`` when a team wins.

    The file is written (atomically) when the episode ends (no agents left), on the next
    ``reset`` (the episode so far) or on :meth:`close`. ``path`` may hold ``{episode}``,
    replaced by the episode's number (0, 1, ...); without it every episode replaces the
    file. :attr:`written` lists the files written.

    Who hit whom is not in the env's infos (only each agent's totals), so the recorder
    scores the pairs itself after every aviary step with the env's own rule
    (:func:`~.dogfight_rules.hit_matrix` on the same positions and noses, enemies in play
    at the step's start): it wraps the env's ``after_aviary_step`` hook on the instance
    while open, and restores it on :meth:`close`.

    Args:
        env: a MAFixedwingDogfightEnv (or a wrapper whose ``unwrapped`` is one).
        path: the ``.acmi`` file to write, in an existing writable folder.
        reference_latitude, reference_longitude: the geographic point of the env's origin
            [deg] (see :class:`~pyflyt_like.common.acmi.AcmiWriter`).
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
        n = dogfight.num_drones
        self._names = [f"team {dogfight.team[i]} / uav {i}" for i in range(n)]
        self._enemies = dogfight.team[:, None] != dogfight.team[None, :]
        self._step_hits = np.zeros((n, n), dtype=np.int64)
        self._first_hit = np.full((n, n), math.inf)
        self._last_shooter = np.full(n, -1)
        self._health = np.ones(n)
        self._writer: AcmiWriter | None = None
        self._original_hook = dogfight.after_aviary_step
        dogfight.after_aviary_step = self._after_aviary_step

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
        self._writer = writer = AcmiWriter(self._episode_path(self.episode), title=title,
                                           properties=comments, **self._options)
        for i, name in enumerate(self._names):
            team = int(dogfight.team[i])
            writer.add_object(i + 1, name, "Air+FixedWing", color=TEAM_COLORS[team],
                              coalition=f"team {team}")
        self._health = dogfight.health.copy()
        self._last_shooter[:] = -1
        self._write_frame(np.flatnonzero(dogfight.in_play))
        return observations, infos

    def step(self, actions: dict[str, Any]):
        """Step the env and record the step (see the class docstring)."""
        dogfight = self._dogfight
        in_play_before = dogfight.in_play.copy()
        self._step_hits[:] = 0
        self._first_hit[:] = math.inf
        result = self.env.step(actions)
        if self._writer is not None:
            self._record_step(np.flatnonzero(in_play_before), result[4])
            if not self.env.agents:
                self._finish()
        return result

    def close(self) -> None:
        """Write the episode in progress, give the env its hook back and close it."""
        self._finish()
        dogfight = self._dogfight
        if vars(dogfight).get("after_aviary_step") == self._after_aviary_step:
            del dogfight.after_aviary_step
        self.env.close()

    # ----------------------------------------------------------------- recording
    def _episode_path(self, episode: int) -> Path:
        return Path(str(self.path).replace(EPISODE_FIELD, str(episode)))

    def _after_aviary_step(self) -> None:
        """The env's hook, then the hits of this aviary step by shooter and target."""
        dogfight = self._dogfight
        in_play = dogfight.in_play.copy()  # the hook may take destroyed aircraft out
        self._original_hook()
        if self._writer is None:
            return
        can_hit = self._enemies & in_play[:, None] & in_play[None, :]
        positions = dogfight.gather_positions()
        gaps = positions[None, :, :] - positions[:, None, :]
        if not np.any(can_hit & (np.einsum("ijk,ijk->ij", gaps, gaps)
                                 < dogfight.lethal_distance ** 2)):
            return  # nobody in gun range: most steps end here, cheaply
        forwards = np.array([drone.rotation_matrix[:, 0] for drone in dogfight.drones])
        distance_sq, ahead = ranges_and_ahead(positions, forwards)
        hits = hit_matrix(distance_sq, ahead, dogfight.lethal_distance,
                          dogfight.lethal_angle_radians, can_hit)
        if hits.any():
            # As the env counts them: one hit per physics step of the aviary step.
            self._step_hits += dogfight.aviary.updates_per_step * hits
            np.minimum(self._first_hit, np.where(hits, dogfight.aviary.elapsed_time, math.inf),
                       out=self._first_hit)

    def _record_step(self, stepped: np.ndarray, infos: dict[str, dict]) -> None:
        dogfight, writer = self._dogfight, self._writer
        time = dogfight.aviary.elapsed_time
        shooters, targets = np.nonzero(self._step_hits)
        for k in np.argsort(self._first_hit[shooters, targets], kind="stable"):
            i, j = int(shooters[k]), int(targets[k])
            writer.event(float(self._first_hit[i, j]), "Message", [i + 1, j + 1],
                         f"{self._names[i]} hit {self._names[j]}: {self._step_hits[i, j]} "
                         f"hits; health {dogfight.health[j]:.3f}")
        for j in set(targets.tolist()):
            self._last_shooter[j] = int(np.argmax(self._step_hits[:, j]))
        self._write_frame(stepped)
        for i in stepped:
            if dogfight.health[i] != self._health[i]:
                writer.set_properties(time, int(i) + 1, {"Health": round(dogfight.health[i], 4)})
                self._health[i] = dogfight.health[i]
        for i in stepped[~dogfight.in_play[stepped]]:
            info = infos.get(dogfight.possible_agents[i], {})
            name = self._names[i]
            if info.get("out_of_bounds"):
                writer.event(time, "LeftArea", [i + 1], f"{name} left the flight dome")
            elif info.get("collision"):
                writer.event(time, "Destroyed", [i + 1], f"{name} crashed")
            else:
                shooter = self._last_shooter[i]
                by = f" by {self._names[shooter]}" if shooter >= 0 else ""
                writer.event(time, "Destroyed", [i + 1], f"{name} shot down{by}")
            writer.remove(time, int(i) + 1)
        if dogfight.team_win is not None and not self.env.agents:
            writer.event(time, "Bookmark", (), f"team {dogfight.team_win} wins")

    def _write_frame(self, indices: np.ndarray) -> None:
        drones = self._dogfight.drones
        self._writer.frame(self._dogfight.aviary.elapsed_time, [int(i) + 1 for i in indices],
                           [drones[i].state[3] for i in indices],
                           [drones[i].state[1] for i in indices])

    def _finish(self) -> None:
        """Write the episode being recorded, if any."""
        writer, self._writer = self._writer, None
        if writer is not None:
            self.written.append(writer.close())
