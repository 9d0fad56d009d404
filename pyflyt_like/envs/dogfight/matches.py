"""Matches: two pilots flown against each other in the dogfight, on either engine.

A *pilot factory* is a callable ``factory(env) -> pilot``: given the env it will fly in
(the PettingZoo scene :class:`~pyflyt_like.envs.MAFixedwingDogfightEnv` or the batched
:class:`~pyflyt_like.envs.DogfightVectorEnv`) it returns the *pilot*, a callable mapping
the (N, obs) flattened observations of N of its aircraft to their (N, act) normalised
actions (numbers, finite; the env clips them into its action space). For example::

    from pyflyt_like.envs import PursuitPilot
    from pyflyt_like.envs.dogfight.matches import batched_matches, scene_matches

    scripted = lambda env: PursuitPilot(env)
    patient = lambda env: PursuitPilot(env, follow_distance=20.0)
    result = scene_matches(patient, scripted, episodes=10, seed=0)
    print(result.as_dict())             # wins, draws, losses of the patient pilot ...
    batched_matches(patient, scripted, worlds=256, seed=0).score

A trained policy plays through its ``act`` method, ``lambda env: policy.act`` (this
module imports no torch). The factory is called once per match (per env), so a pilot may
keep per-env set-up; it is called with every aircraft of its side that is in play, in
one call per step, and must not rely on seeing the same aircraft in each call.

:func:`scene_matches` flies episodes of the PettingZoo scene, alternating the sides;
:func:`batched_matches` one episode in each world of the batched engine (side A on team
0, as that engine's learning side always is). Both count from side A's point of view in
a :class:`MatchResult`.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from pyflyt_like.common.validation import (
    MAX_SEED,
    as_float_array,
    check_positive_int,
    describe_value,
)

from .options import MAX_TEAM_SIZE

__all__ = ["MatchResult", "Pilot", "PilotFactory", "batched_matches", "scene_matches"]

#: A pilot: (N, obs) observations of N aircraft of its side -> (N, act) actions.
Pilot = Callable[[np.ndarray], np.ndarray]
#: A pilot factory: the env the pilot flies in -> the pilot.
PilotFactory = Callable[[Any], Pilot]

_SIDES = ("pilot_a", "pilot_b")


@dataclass(frozen=True)
class MatchResult:
    """The outcome of a series of dogfight episodes, from side A's point of view.

    Attributes:
        episodes: episodes flown (>= 1).
        wins: episodes that A's team won (every aircraft of B's team out of play first).
        draws: episodes nobody won: the time limit, both teams' last aircraft out on the
            same step, or (batched engine) a world whose physics diverged.
        losses: episodes that B's team won.
        own_crashes: A's aircraft that crashed (hit the ground, another aircraft in the
            scene, or diverged in the batched engine), over all episodes; with team_size
            K up to K per episode.
        own_dome_exits: A's aircraft that left the flight dome, over all episodes.
        mean_length_steps: the mean episode length [agent steps] (1/30 s each by default).
    """

    episodes: int
    wins: int
    draws: int
    losses: int
    own_crashes: int
    own_dome_exits: int
    mean_length_steps: float

    def __post_init__(self):
        if self.wins + self.draws + self.losses != self.episodes or min(
                self.wins, self.draws, self.losses, self.own_crashes,
                self.own_dome_exits) < 0 or self.episodes < 1:
            raise ValueError(f"a MatchResult needs episodes >= 1 = wins + draws + losses "
                             f"and counts >= 0, got {self!r}")

    @property
    def score(self) -> float:
        """(wins + draws / 2) / episodes, in [0, 1]: 1 is every episode won."""
        return (self.wins + 0.5 * self.draws) / self.episodes

    def as_dict(self) -> dict[str, int | float]:
        """The fields as plain ints and floats (ready for ``json.dump``), with the shares
        ``win_share``, ``draw_share``, ``loss_share`` (of the episodes) and ``score``."""
        out: dict[str, int | float] = {key: (float(value) if key == "mean_length_steps"
                                             else int(value))
                                       for key, value in asdict(self).items()}
        out.update(win_share=self.wins / self.episodes, draw_share=self.draws / self.episodes,
                   loss_share=self.losses / self.episodes, score=self.score)
        return out


# ----------------------------------------------------------------- the PettingZoo scene
def scene_matches(pilot_a: PilotFactory, pilot_b: PilotFactory, *, team_size: int = 1,
                  episodes: int, seed: int, record_first: str | os.PathLike | None = None,
                  **scene_options: Any) -> MatchResult:
    """Fly ``episodes`` episodes of :class:`~pyflyt_like.envs.MAFixedwingDogfightEnv`
    between two pilots, alternating the sides.

    One scene, ``MAFixedwingDogfightEnv(team_size=team_size, **scene_options)``, is built
    for all episodes (and closed at the end, also on an error); each factory is called
    once with it. Episode k is reset with seed ``seed + k``; in even episodes side A flies
    team 0 (``uav_0`` .. ``uav_<team_size-1>``) and B team 1, in odd ones the other way
    round, so that with an even number of episodes each side starts from each team's
    spawn points equally often. Each step, each side's pilot gets the stacked
    observations of its aircraft in play, (N, obs) with 1 <= N <= team_size, in one call.

    An episode is a win for A when its last step's ``team_win`` is A's team, a loss when
    it is B's, a draw when None; A's aircraft with ``info["collision"]`` count as crashes,
    with ``info["out_of_bounds"]`` as dome exits.

    Args:
        pilot_a: side A's pilot factory (module docstring).
        pilot_b: side B's pilot factory.
        team_size: aircraft per team, in [1, 128].
        episodes: episodes to fly, >= 1.
        seed: seed of the first episode, an int >= 0 (``seed + episodes - 1`` < 2**63).
        record_first: None, or a ``.acmi`` path: the first episode is also written there
            as a Tacview replay (:class:`~.scene_recorder.DogfightRecorder`; side A red,
            B blue). Checked before anything is flown.
        **scene_options: the scene's options (its defaults where not given; e.g. a short
            ``max_duration_seconds``). ``flatten_observation`` must stay True.

    Returns:
        The :class:`MatchResult` of side A.

    Raises:
        TypeError, ValueError: a bad argument, naming it (the scene's own options are
            checked by the scene); a pilot's actions of the wrong shape or not finite.
        FileWriteError: ``record_first``'s folder is missing or not writable.
    """
    factories = _check_factories(pilot_a, pilot_b)
    team_size = check_positive_int("team_size", team_size, maximum=MAX_TEAM_SIZE)
    episodes = check_positive_int("episodes", episodes)
    seed = _check_seed(seed, last=episodes - 1)
    flatten = scene_options.get("flatten_observation", True)
    if flatten is not True:
        raise ValueError(f"flatten_observation must be True (pilots get stacked Box "
                         f"observations), got {describe_value(flatten)}")
    if record_first is not None:
        from pyflyt_like.common.acmi import check_acmi_path

        check_acmi_path(record_first, "record_first")

    from .scene import MAFixedwingDogfightEnv

    scene = MAFixedwingDogfightEnv(team_size=team_size, **scene_options)
    closer: Any = scene
    try:
        first = scene
        if record_first is not None:
            from .scene_recorder import DogfightRecorder

            first = closer = DogfightRecorder(scene, record_first,
                                              title="side A (red) vs side B (blue)")
        pilots = tuple(_make_pilot(name, factory, scene)
                       for name, factory in zip(_SIDES, factories))
        outcomes = [_scene_episode(first if k == 0 else scene, scene, pilots, k % 2, seed + k)
                    for k in range(episodes)]
    finally:
        closer.close()  # the recorder writes an unfinished first episode, then closes
    return _result(outcomes)


def _scene_episode(env: Any, scene: Any, pilots: tuple[Pilot, Pilot], team_a: int,
                   seed: int) -> tuple[int, int, int, int]:
    """One episode of ``env`` (the scene or its recorder): side A (``pilots[0]``) on team
    ``team_a``. Returns (outcome: 0 win, 1 draw, 2 loss; A's crashes; A's dome exits;
    steps)."""
    observations, _ = env.reset(seed=seed)
    team_of = {agent: int(scene.team[i]) for agent, i in scene.agent_index.items()}
    act_size = scene.action_space(scene.possible_agents[0]).shape[0]
    sides = ((team_a, pilots[0], _SIDES[0]), (1 - team_a, pilots[1], _SIDES[1]))
    steps = crashes = exits = 0
    team_win = None
    while env.agents:
        actions: dict[str, np.ndarray] = {}
        for team, pilot, name in sides:
            agents = [agent for agent in env.agents if team_of[agent] == team]
            if agents:
                stacked = np.stack([observations[agent] for agent in agents])
                flown = as_float_array(f"{name}'s actions", pilot(stacked),
                                       (len(agents), act_size))
                actions.update(zip(agents, flown))
        observations, _, _, _, infos = env.step(actions)
        steps += 1
        for agent, info in infos.items():
            if team_of[agent] == team_a:
                crashes += bool(info.get("collision"))
                exits += bool(info.get("out_of_bounds"))
            team_win = info["team_win"]
    outcome = 1 if team_win is None else 0 if team_win == team_a else 2
    return outcome, crashes, exits, steps


# ----------------------------------------------------------------- the batched engine
def batched_matches(pilot_a: PilotFactory, pilot_b: PilotFactory, *, team_size: int = 1,
                    worlds: int | None = None, seed: int, env: Any = None,
                    **options: Any) -> MatchResult:
    """One episode in each of ``worlds`` worlds of the batched ``Dogfight-v0`` between two
    pilots: side A on team 0 (the env's learning side), B on team 1 (the env's opponent).

    Side A's pilot gets the (W * team_size, obs) observations of every env each step (the
    aircraft of worlds already decided and those out of play too, as the env returns
    them), B's the env's :meth:`~.vector_env.DogfightVectorEnv.opponent_observations`.
    The env is reset with ``seed``, then stepped until every world's first episode has
    ended; later episodes are not counted. Outcomes are read from the infos' ``team_win``
    on each world's last step (-1: a draw); crashes and dome exits of A's aircraft from
    the env's task arrays (``env.task.failed`` and ``env.task.lost`` of the step, the
    flags the Tacview recorder reads), a diverged world's aircraft as crashes.

    The sides are not alternated: the batched engine always flies its learning side on
    team 0. The spawn rule is symmetric in the teams (every aircraft's bearing, radius and
    height are drawn alike), so this matters only through the seeds; a rating plays both
    orders (``batched_matches(b, a, ...)`` too) and combines them.

    Args:
        pilot_a: side A's pilot factory (module docstring); called once per call, with
            the env.
        pilot_b: side B's pilot factory, likewise.
        team_size: aircraft per team, in [1, 128].
        worlds: worlds (episodes), >= 1: ``num_envs = worlds * team_size``. May be left
            out with ``env``.
        seed: the reset seed, an int in [0, 2**63).
        env: None (a new env is built and closed) or an existing
            :class:`~pyflyt_like.envs.DogfightVectorEnv` with a callable opponent
            (``opponent="scripted"`` or a callable, not "self"), reused so that repeated
            matches neither rebuild nor recompile: its ``team_size`` (and ``n_worlds``, if
            ``worlds`` is given) must match, no ``options`` may be given, and its
            ``opponent`` is swapped for B's pilot during the call and restored afterwards.
        **options: the env's options (:class:`~pyflyt_like.envs.DogfightVectorEnv`:
            ``drone_model`` and the scene's options) when it is built here.

    Returns:
        The :class:`MatchResult` of side A.

    Raises:
        TypeError, ValueError: a bad argument, naming it; a pilot's actions of the wrong
            shape or not finite.
    """
    factories = _check_factories(pilot_a, pilot_b)
    team_size = check_positive_int("team_size", team_size, maximum=MAX_TEAM_SIZE)
    seed = _check_seed(seed, last=0)
    from .vector_env import DogfightVectorEnv

    owned = env is None
    if owned:
        if worlds is None:
            raise TypeError("worlds is required unless env is given")
        worlds = check_positive_int("worlds", worlds)
        env = DogfightVectorEnv(num_envs=worlds * team_size, team_size=team_size,
                                opponent=_no_opponent, **options)
    else:
        _check_env(env, DogfightVectorEnv, team_size, worlds, options)
    previous = env.opponent
    try:
        fly_a = _make_pilot(_SIDES[0], factories[0], env)
        env.opponent = _named_actions(_make_pilot(_SIDES[1], factories[1], env),
                                      f"{_SIDES[1]}'s actions", env.action_size)
        return _result(_batched_episodes(env, fly_a, seed))
    finally:
        env.opponent = previous
        if owned:
            env.close()


def _no_opponent(observations: np.ndarray) -> np.ndarray:
    raise RuntimeError("the opponent is set by batched_matches before the env is stepped")


def _named_actions(pilot: Pilot, name: str, act_size: int) -> Pilot:
    """``pilot`` whose actions are checked as ``name`` (the env's own check would call
    them the opponent's)."""
    def checked(observations: np.ndarray) -> np.ndarray:
        return as_float_array(name, pilot(observations), (len(observations), act_size))
    return checked


def _check_env(env: Any, kind: type, team_size: int, worlds: object, options: dict) -> None:
    if not isinstance(env, kind):
        raise TypeError(f"env must be None or a DogfightVectorEnv, got {describe_value(env)}")
    if env.self_play:
        raise ValueError("env must fly team 1 by an opponent (opponent='scripted' or a "
                         "callable), not opponent='self'")
    if env.team_size != team_size:
        raise ValueError(f"team_size ({team_size}) must be env's team_size "
                         f"({env.team_size})")
    if worlds is not None and check_positive_int("worlds", worlds) != env.n_worlds:
        raise ValueError(f"worlds ({worlds}) must be env's number of worlds "
                         f"({env.n_worlds}), or be left out")
    if options:
        raise TypeError(f"options ({sorted(options)}) cannot be given with env: they are "
                        f"the env's")


def _batched_episodes(env: Any, fly_a: Pilot, seed: int) -> list[tuple[int, int, int, int]]:
    """The first episode of every world of ``env``: (outcome, A's crashes, A's dome exits,
    steps) per world (outcome 0 win, 1 draw, 2 loss)."""
    n_worlds, per_world, task = env.n_worlds, env.team_size, env.task
    observations, _ = env.reset(seed=seed)
    finished = np.zeros(n_worlds, bool)
    outcome, steps = np.zeros(n_worlds, np.int64), np.zeros(n_worlds, np.int64)
    crashes, exits = np.zeros(n_worlds, np.int64), np.zeros(n_worlds, np.int64)
    shape = (env.num_envs, env.action_size)
    step = 0
    while not finished.all():
        actions = as_float_array(f"{_SIDES[0]}'s actions", fly_a(observations), shape)
        observations, _, _, _, infos = env.step(actions)
        step += 1
        playing = ~finished  # these worlds played this step (none restarts before its end)
        lost = task.lost[:, :per_world]  # team 0's aircraft that failed at this step
        failed = task.failed[:, :per_world]
        exits += np.where(playing, lost.sum(axis=1), 0)
        crashes += np.where(playing, (failed & ~lost).sum(axis=1), 0)
        ended = infos["_team_win"].reshape(n_worlds, per_world)[:, 0] & playing
        if ended.any():
            win = infos["team_win"].reshape(n_worlds, per_world)[:, 0]
            outcome[ended] = np.where(win[ended] == 0, 0, np.where(win[ended] == 1, 2, 1))
            steps[ended] = step
            finished |= ended
    return list(zip(outcome.tolist(), crashes.tolist(), exits.tolist(), steps.tolist()))


# ----------------------------------------------------------------- shared
def _check_factories(pilot_a: object, pilot_b: object) -> tuple[PilotFactory, PilotFactory]:
    from .pursuit_pilot import PursuitPilot

    for name, factory in zip(_SIDES, (pilot_a, pilot_b)):
        if isinstance(factory, PursuitPilot):
            raise TypeError(f"{name} must be a pilot factory (env -> pilot), got a "
                            f"PursuitPilot itself: pass lambda env: PursuitPilot(env)")
        if not callable(factory):
            raise TypeError(f"{name} must be a pilot factory, a callable env -> pilot "
                            f"(e.g. lambda env: PursuitPilot(env)), got "
                            f"{describe_value(factory)}")
    return pilot_a, pilot_b  # type: ignore[return-value]


def _make_pilot(name: str, factory: PilotFactory, env: Any) -> Pilot:
    pilot = factory(env)
    if not callable(pilot):
        raise TypeError(f"{name}(env) must return a pilot, a callable (N, obs) observations "
                        f"-> (N, act) actions, got {describe_value(pilot)}")
    return pilot


def _check_seed(seed: object, last: int) -> int:
    """``seed`` as an int in [0, 2**63) with ``seed + last`` in it too, else raise."""
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)):
        raise TypeError(f"seed must be an integer >= 0, got {describe_value(seed)}")
    if not 0 <= seed <= MAX_SEED:
        raise ValueError(f"seed must be an integer in [0, 2**63), got {seed!r}")
    seed = int(seed)
    if seed + last > MAX_SEED:
        raise ValueError(f"seed + episodes - 1 must be < 2**63 (episode k is reset with "
                         f"seed + k), got seed={seed} and {last + 1} episodes")
    return seed


def _result(outcomes: list[tuple[int, int, int, int]]) -> MatchResult:
    counts = np.bincount([outcome for outcome, *_ in outcomes], minlength=3)
    return MatchResult(episodes=len(outcomes), wins=int(counts[0]), draws=int(counts[1]),
                       losses=int(counts[2]),
                       own_crashes=sum(crashes for _, crashes, _, _ in outcomes),
                       own_dome_exits=sum(exits for _, _, exits, _ in outcomes),
                       mean_length_steps=float(np.mean([steps for *_, steps in outcomes])))
