"""Throughput and reset cost of the PettingZoo scenes under random actions.

For a 4-drone MAQuadXHover and a 2v2 MAFixedwingDogfight: parallel env steps per second
(one step = every live agent acts once; resets included, as in training), the mean number
of live agents, the median cost of ``reset()``, and where the time goes: the share spent
inside ``Aviary.step()`` (timed by wrapping it on the same run) against the env layer.

Random actions crash hover drones within a second or so, and a crashed drone costs
nothing, so the hover is also timed with every drone flying (scripted mode-7 hold).

With ``--pyflyt`` (and PyFlyt installed in this Python) PyFlyt's two scenes are timed the
same way in the same run, with their defaults, and the ratios printed.

Usage: python benchmarks/bench_ma_envs.py [--steps N] [--pyflyt]
"""

from __future__ import annotations

import argparse
import time

from env_timing import reset_milliseconds, time_inside_aviary_step

from pyflyt_like.envs import MAFixedwingDogfightEnv, MAQuadXHoverEnv

# The targets on this machine: 3x PyFlyt's (~270 hover, ~230 dogfight steps/s).
TARGETS = {"hover": 810, "dogfight": 690}


def random_actions(env, steps: int) -> list[dict]:
    """Random actions of every agent, drawn ahead: sampling is the trainer's cost."""
    for i, agent in enumerate(env.possible_agents):
        env.action_space(agent).seed(i)
    return [{agent: env.action_space(agent).sample() for agent in env.possible_agents}
            for _ in range(steps)]


def hold_actions(env, steps: int) -> list[dict]:
    """Mode-7 actions holding every drone at its start point."""
    hold = {agent: env.action_mappings[i].to_action((*env.start_pos[i, :2], 0.0,
                                                     env.start_pos[i, 2]))
            for i, agent in enumerate(env.possible_agents)}
    return [hold] * steps


def run(env, actions: list[dict]) -> tuple[float, float, float]:
    """(parallel steps per second, mean live agents, fraction of time inside Aviary.step)."""
    env.reset(seed=0)
    live = 0
    with time_inside_aviary_step(env.aviary) as inside:
        start = time.perf_counter()
        for step_actions in actions:
            live += len(env.agents)
            env.step({agent: step_actions[agent] for agent in env.agents})
            if not env.agents:
                env.reset()
        elapsed = time.perf_counter() - start
    return len(actions) / elapsed, live / len(actions), inside[0] / elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=3000, help="parallel steps per scene")
    parser.add_argument("--pyflyt", action="store_true", help="also time PyFlyt's scenes")
    args = parser.parse_args()
    ours = {}
    scenes = [
        ("MAQuadXHover, random", "hover", lambda: MAQuadXHoverEnv(), random_actions),
        ("MAQuadXHover, mode-7 hold", "hover", lambda: MAQuadXHoverEnv(flight_mode=7),
         hold_actions),
        ("MAFixedwingDogfight 2v2, random", "dogfight", MAFixedwingDogfightEnv,
         random_actions),
    ]
    print(f"{'scene':32s} {'steps/s':>8s} {'target':>7s} {'live':>5s} {'reset ms':>9s} "
          f"{'in Aviary.step':>15s}")
    for name, kind, make, policy in scenes:
        env = make()
        try:
            rate, live, inside = run(env, policy(env, args.steps))
            reset_ms = reset_milliseconds(env)
        finally:
            env.close()
        print(f"{name:32s} {rate:8.0f} {TARGETS[kind]:7d} {live:5.2f} {reset_ms:9.3f} "
              f"{100.0 * inside:14.1f}%")
        ours.setdefault(kind, rate)  # the random-action figure of each scene
    if args.pyflyt:
        compare_with_pyflyt(ours, min(args.steps, 1000))


def compare_with_pyflyt(ours: dict[str, float], steps: int) -> None:
    """Time PyFlyt's hover and dogfight under random actions and print our ratio to them."""
    try:
        from PyFlyt.pz_envs import MAFixedwingDogfightEnvV2, MAQuadXHoverEnvV2
    except ImportError:
        print("PyFlyt is not installed in this Python; skipped the comparison")
        return
    for kind, make in (("hover", MAQuadXHoverEnvV2), ("dogfight", MAFixedwingDogfightEnvV2)):
        env = make()
        env.reset(seed=0)
        start = time.perf_counter()
        for _ in range(steps):
            if not env.agents:
                env.reset()
            env.step({agent: env.action_space(agent).sample() for agent in env.agents})
        theirs = steps / (time.perf_counter() - start)
        env.close()
        print(f"PyFlyt {kind}: {theirs:.0f} steps/s; ours / theirs = {ours[kind] / theirs:.1f}")


if __name__ == "__main__":
    main()
