"""Compiling the package's kernels ahead of time: ``pyflyt-like compile``.

Each target is the smallest use that compiles (or loads from the cache) one group of
kernels, the same path a user's first call takes: an engine of one world, a vector task of
one env reset and stepped once, a PettingZoo scene reset and stepped. Sizes do not matter to
numba (an array's type is its dtype, dimensions and layout), so one world compiles what
4096 worlds run. The machine code lands in the per-user cache
(:mod:`pyflyt_like.compiled.kernel_cache`), where every later process loads it: a Docker
image, a cluster's shared home or a CI job warms it once. See docs/batch.md.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from numba.core import event


@dataclass(frozen=True)
class Target:
    """A group of kernels: its name, what uses it, and the call that compiles it."""

    name: str
    used_by: str
    run: Callable[[], None]


#: The engine options of each variant of the obstacles and sensors stages
#: (``batch.sensors.sensing_switches``): a world alone, point sensors, ray sensors, both.
SENSING_VARIANTS = ({"world": True}, {"sensors": {"imu": "default"}},
                    {"sensors": {"lidar": "default"}},
                    {"sensors": {"imu": "default", "lidar": "default"}})


def _engine(drone_model: str, full: bool, mode: int = 1) -> Callable[[], None]:
    def run() -> None:
        from pyflyt_like.batch import BatchedAviary
        from pyflyt_like.worlds import World

        # full: every variant of the obstacles and sensors stages, one engine each
        for options in SENSING_VARIANTS if full else ({},):
            if options.get("world"):
                options = {"world": World()}
            BatchedAviary(n_worlds=1, drone_model=drone_model, mode=mode, **options).step(1)
    return run


def _vector_task(env_id: str, num_envs: int = 1, **options) -> Callable[[], None]:
    def run() -> None:
        import gymnasium

        import pyflyt_like.envs  # noqa: F401 (registers the ids)

        envs = gymnasium.make_vec(env_id, num_envs=num_envs,
                                  vectorization_mode="vector_entry_point", **options)
        envs.reset(seed=0)
        envs.step(envs.action_space.sample())
        envs.close()
    return run


def _twin(env_id: str) -> Callable[[], None]:
    def run() -> None:
        import gymnasium

        import pyflyt_like.envs  # noqa: F401 (registers the ids)

        env = gymnasium.make(env_id)
        env.reset(seed=0)
        env.step(env.action_space.sample())
        env.close()
    return run


def _pettingzoo_dogfight() -> None:
    from pyflyt_like.envs.dogfight.scene import MAFixedwingDogfightEnv

    env = MAFixedwingDogfightEnv(team_size=1)
    env.reset(seed=0)
    env.step({agent: env.action_space(agent).sample() for agent in env.agents})
    env.close()


#: Every target, in the order ``--all`` compiles them.
TARGETS: dict[str, Target] = {target.name: target for target in (
    Target("engine-multirotor", "BatchedAviary, multirotors",
           _engine("crazyflie21", full=False)),
    Target("engine-multirotor-full", "BatchedAviary, multirotors with a world or sensors "
           "(each kind)",
           _engine("crazyflie21", full=True)),
    Target("engine-multirotor-position", "BatchedAviary, multirotors in mode 7 (its own "
           "compile: the geometric controller)", _engine("crazyflie21", full=False, mode=7)),
    Target("engine-fixedwing", "BatchedAviary, fixed-wings", _engine("acrowing", full=False)),
    Target("engine-fixedwing-full", "BatchedAviary, fixed-wings with a world or sensors "
           "(each kind)",
           _engine("acrowing", full=True)),
    Target("engine-fixedwing-autopilot", "BatchedAviary, fixed-wings in modes 2 and 3 (the "
           "autopilot)", _engine("acrowing", full=False, mode=2)),
    Target("multirotor-tasks", "Multirotor-Hover/Reach/Track/Land-v0 (vector)",
           _vector_task("pyflyt_like/Multirotor-Hover-v0")),
    Target("multirotor-sensed", "Multirotor-*-v0 (vector) with observation='sensors'",
           _vector_task("pyflyt_like/Multirotor-Hover-v0", observation="sensors")),
    Target("multirotor-navigate", "Multirotor-Navigate-v0 (vector: obstacles, LiDAR)",
           _vector_task("pyflyt_like/Multirotor-Navigate-v0")),
    Target("multirotor-twins", "Multirotor-*-v0 PyBullet twins (gymnasium.make)",
           _twin("pyflyt_like/Multirotor-Hover-v0")),
    Target("fixedwing-reach", "Fixedwing-Reach-v0 (vector)",
           _vector_task("pyflyt_like/Fixedwing-Reach-v0")),
    Target("dogfight", "Dogfight-v0 (vector)",
           _vector_task("pyflyt_like/Dogfight-v0", num_envs=4)),  # a world of 2 v 2
    Target("pettingzoo-dogfight", "MAFixedwingDogfightEnv (PettingZoo)", _pettingzoo_dogfight),
)}


class _CompileCounter(event.Listener):
    """Counts numba's compilations (cache misses) while a target runs."""

    def __init__(self):
        self.count = 0

    def on_start(self, compile_event) -> None:
        self.count += 1

    def on_end(self, compile_event) -> None:
        pass


@dataclass(frozen=True)
class Compiled:
    """What compiling one target did: its name, the seconds it took and how many functions
    numba compiled (0: everything came from the cache)."""

    name: str
    seconds: float
    compiled: int


def check_target_names(names: list[str]) -> list[str]:
    """``names`` checked against :data:`TARGETS`, in the given order without repeats.

    Raises:
        ValueError: an unknown name, naming the targets there are.
    """
    unknown = [name for name in names if name not in TARGETS]
    if unknown:
        raise ValueError(f"unknown kernel target(s) {', '.join(map(repr, unknown))}; the "
                         f"targets are {', '.join(TARGETS)}")
    return list(dict.fromkeys(names))


def compile_targets(names: list[str],
                    progress: Callable[[int, int, str], None] | None = None,
                    ) -> list[Compiled]:
    """Compile (or load) the kernels of the targets ``names`` in order; ``progress(i, n,
    name)`` is called before each (i from 0)."""
    names = check_target_names(names)
    results = []
    for i, name in enumerate(names):
        if progress is not None:
            progress(i, len(names), name)
        counter = _CompileCounter()
        start = time.perf_counter()
        with event.install_listener("numba:compile", counter):
            TARGETS[name].run()
        results.append(Compiled(name, time.perf_counter() - start, counter.count))
    return results
