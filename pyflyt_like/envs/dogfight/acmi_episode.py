"""One dogfight episode as a Tacview ACMI file: what both engines' recorders write.

The PettingZoo recorder (:class:`~pyflyt_like.envs.DogfightRecorder`) and the batched one
(:class:`~pyflyt_like.envs.dogfight.vector_recorder.DogfightVectorRecorder`) read the state of
their engine and hand it here, step by step; this class writes the objects, frames, hit
messages, health changes, losses and the result in one way (docs/tacview.md).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from pyflyt_like.common.acmi import AcmiWriter

TEAM_COLORS = ("Red", "Blue")  # team 0, team 1
LEFT_AREA, CRASHED, SHOT_DOWN = "left", "crashed", "shot down"


class AcmiDogfightEpisode:
    """Writes one episode of ``team`` (n,) aircraft to ``path`` (on :meth:`close`).

    Args:
        path: the ``.acmi`` file.
        team: (n,) int, each aircraft's team (0 or 1).
        title: the recording's title.
        properties: extra global properties (e.g. ``{"Comments": ...}``).
        **reference: the reference point and time (see
            :class:`~pyflyt_like.common.acmi.AcmiWriter`).
    """

    def __init__(self, path: Path, team: np.ndarray, title: str,
                 properties: dict[str, str] | None = None, **reference):
        self.writer = AcmiWriter(path, title=title, properties=properties or {}, **reference)
        self.names = [f"team {team[i]} / uav {i}" for i in range(team.shape[0])]
        for i, name in enumerate(self.names):
            self.writer.add_object(i + 1, name, "Air+FixedWing", color=TEAM_COLORS[team[i]],
                                   coalition=f"team {team[i]}")
        self._health = np.ones(team.shape[0])
        self._last_shooter = np.full(team.shape[0], -1)

    def frame(self, time: float, indices: np.ndarray, positions: np.ndarray,
              euler: np.ndarray) -> None:
        """The poses of the aircraft ``indices``: (n,) positions [m] and Euler angles [rad]
        rows indexed by aircraft."""
        self.writer.frame(time, [int(i) + 1 for i in indices], positions[indices],
                          euler[indices])

    def step(self, time: float, stepped: np.ndarray, step_hits: np.ndarray,
             health: np.ndarray, positions: np.ndarray, euler: np.ndarray,
             losses: dict[int, str], team_win: int | None) -> None:
        """Record one agent step at ``time`` [s].

        Args:
            stepped: indices of the aircraft in play when the step began.
            step_hits: (n, n) physics-step hits of i on j during the step.
            health: (n,) after the step.
            positions, euler: (n, 3) poses after the step.
            losses: aircraft that left play in the step -> LEFT_AREA, CRASHED or SHOT_DOWN.
            team_win: the winning team when the step decided the episode, else None.
        """
        writer = self.writer
        shooters, targets = np.nonzero(step_hits)
        for i, j in zip(shooters.tolist(), targets.tolist()):
            writer.event(time, "Message", [i + 1, j + 1],
                         f"{self.names[i]} hit {self.names[j]}: {step_hits[i, j]} hits; "
                         f"health {health[j]:.3f}")
        for j in set(targets.tolist()):
            self._last_shooter[j] = int(np.argmax(step_hits[:, j]))
        self.frame(time, stepped, positions, euler)
        for i in stepped:
            if health[i] != self._health[i]:
                writer.set_properties(time, int(i) + 1, {"Health": round(float(health[i]), 4)})
                self._health[i] = health[i]
        for i, reason in sorted(losses.items()):
            name = self.names[i]
            if reason == LEFT_AREA:
                writer.event(time, "LeftArea", [i + 1], f"{name} left the flight dome")
            elif reason == CRASHED:
                writer.event(time, "Destroyed", [i + 1], f"{name} crashed")
            else:
                shooter = self._last_shooter[i]
                by = f" by {self.names[shooter]}" if shooter >= 0 else ""
                writer.event(time, "Destroyed", [i + 1], f"{name} shot down{by}")
            writer.remove(time, int(i) + 1)
        if team_win is not None:
            writer.event(time, "Bookmark", (), f"team {team_win} wins")

    def close(self) -> Path:
        """Write the file (atomically); return its path."""
        return self.writer.close()
