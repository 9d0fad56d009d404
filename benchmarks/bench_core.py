"""Cost of the Aviary loop relative to the bare PyBullet physics it contains.

For 1, 16 and 64 QuadX hovering in mode 7 (DIRECT), chunks of control steps are timed from
a saved world state; the world is then restored to the same state and the bare
``stepSimulation`` calls those control steps contain are timed. Both measurements are
interleaved in one run, so the printed ratio (time per control step) / (time of its bare
physics steps) compares like with like.

A third column times the floor any PyBullet-based loop of this contract pays: per physics
step, per drone, one force and one torque call, one read of pose and one of velocity, and
one contact query, with no Python logic at all. Its ratio to the bare physics shows how much
of the total is pybullet's API rather than our code.

Usage: python benchmarks/bench_core.py [--steps N]
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import pybullet

from pyflyt_like.core import Aviary


def _api_floor(client: int, bodies: list[int], physics_steps: int) -> None:
    """The pybullet calls one loop of this contract cannot avoid, with hover thrust."""
    force, zero, frame = (0.0, 0.0, 0.27), (0.0, 0.0, 0.0), pybullet.LINK_FRAME
    for _ in range(physics_steps):
        for body in bodies:
            pybullet.applyExternalForce(body, -1, force, zero, frame, physicsClientId=client)
            pybullet.applyExternalTorque(body, -1, zero, frame, physicsClientId=client)
        pybullet.stepSimulation(physicsClientId=client)
        for body in bodies:
            pybullet.getBasePositionAndOrientation(body, physicsClientId=client)
            pybullet.getBaseVelocity(body, physicsClientId=client)
        pybullet.getContactPoints(physicsClientId=client)


def measure(num_drones: int, control_steps: int, chunk: int = 50) -> tuple[float, float, float]:
    """Return seconds per control step, of its bare physics steps, and of the API floor."""
    side = int(np.ceil(np.sqrt(num_drones)))
    grid = [(x, y) for x in range(side) for y in range(side)][:num_drones]
    start_pos = np.array([(x, y, 1.0) for x, y in grid], dtype=float)
    with Aviary(start_pos, np.zeros_like(start_pos), seed=0) as aviary:
        aviary.set_mode(7)
        for _ in range(120):  # settle into hover before timing
            aviary.step()
        client, physics_per_step = aviary._client, aviary.updates_per_step
        bodies = [drone.Id for drone in aviary.drones]
        aviary_time = bare_time = floor_time = 0.0
        for _ in range(max(1, control_steps // chunk)):
            snapshot = pybullet.saveState(physicsClientId=client)
            tic = time.perf_counter()
            for _ in range(chunk):
                aviary.step()
            aviary_time += time.perf_counter() - tic
            after = pybullet.saveState(physicsClientId=client)
            pybullet.restoreState(snapshot, physicsClientId=client)
            tic = time.perf_counter()
            for _ in range(chunk * physics_per_step):
                pybullet.stepSimulation(physicsClientId=client)
            bare_time += time.perf_counter() - tic
            pybullet.restoreState(snapshot, physicsClientId=client)
            tic = time.perf_counter()
            _api_floor(client, bodies, chunk * physics_per_step)
            floor_time += time.perf_counter() - tic
            pybullet.restoreState(after, physicsClientId=client)
            pybullet.removeState(snapshot, physicsClientId=client)
            pybullet.removeState(after, physicsClientId=client)
        steps = max(1, control_steps // chunk) * chunk
        return aviary_time / steps, bare_time / steps, floor_time / steps


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=4000, help="control steps for one drone")
    args = parser.parse_args()
    print(f"{'drones':>6} {'control steps/s':>16} {'us/control step':>16} "
          f"{'us bare physics':>16} {'ratio':>6} {'API-floor ratio':>16}")
    for num_drones in (1, 16, 64):
        steps = max(200, args.steps // num_drones)
        per_step, bare, floor = measure(num_drones, steps)
        print(f"{num_drones:>6} {1.0 / per_step:>16.0f} {per_step * 1e6:>16.1f} "
              f"{bare * 1e6:>16.1f} {per_step / bare:>6.2f} {floor / bare:>16.2f}")


if __name__ == "__main__":
    main()
