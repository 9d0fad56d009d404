"""Cost of an obstacle world on the batched engine, measured side by side in one run.

``BatchedAviary`` of 16 384 worlds of Crazyflie 2.1s in mode 1 at 500 Hz, without a world and
in a forest of 0.1 trees/m^2 (trunk radius 0.1-0.3 m, a 50 m square, 64 layouts): drones in
the clearing, spread among the trees, and spread among the trees gliding at 3 m/s (each
drone's collision query runs whenever it leaves the clearance its last query found). Prints
drone-steps/s per case (the best of a few chunks) and the ratio to the world-free engine.

Usage: python benchmarks/bench_world.py [--worlds 16384] [--threads N] [--repeats 4]
"""

from __future__ import annotations

import argparse
import time

import numba
import numpy as np

from pyflyt_like.batch import BatchedAviary
from pyflyt_like.worlds import Forest

FOREST = Forest(density=0.1, radius=(0.1, 0.3), height=6.0, extent=50.0, clearing=2.0)


def cases(n_worlds: int) -> dict[str, dict]:
    """The configurations measured: keyword options of BatchedAviary."""
    rng = np.random.default_rng(0)
    spread = np.zeros((n_worlds, 1, 3))
    spread[..., :2] = rng.uniform(-25.0, 25.0, (n_worlds, 1, 2))
    spread[..., 2] = 1.0
    heading = rng.uniform(-np.pi, np.pi, n_worlds)
    glide = np.zeros((n_worlds, 1, 3))
    glide[:, 0, 0], glide[:, 0, 1] = 3.0 * np.cos(heading), 3.0 * np.sin(heading)
    return {
        "no world": {},
        "forest, drones in the clearing": {"world": FOREST},
        "forest, drones among the trees": {"world": FOREST, "start_pos": spread},
        "forest, gliding at 3 m/s among the trees": {"world": FOREST, "start_pos": spread,
                                                     "starting_velocity": glide},
    }


def rate(n_worlds: int, options: dict, repeats: int, steps: int = 50) -> float:
    """Drone-steps per second, the best of ``repeats`` chunks of ``steps`` physics steps."""
    sim = BatchedAviary(n_worlds=n_worlds, drone_model="crazyflie21", mode=1,
                        physics_hz=500, seed=0, **options)
    sim.step(1)  # compile or load the kernel
    best = 0.0
    for _ in range(repeats):
        tic = time.perf_counter()
        sim.step(steps)
        best = max(best, n_worlds * steps / (time.perf_counter() - tic))
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--worlds", type=int, default=16384)
    parser.add_argument("--threads", type=int, default=None,
                        help="numba threads (default: all)")
    parser.add_argument("--repeats", type=int, default=4)
    args = parser.parse_args()
    if args.worlds < 1 or args.repeats < 1:
        parser.error("--worlds and --repeats must be >= 1")
    if args.threads is not None:
        if not 1 <= args.threads <= numba.config.NUMBA_NUM_THREADS:
            parser.error(f"--threads must be in [1, {numba.config.NUMBA_NUM_THREADS}]")
        numba.set_num_threads(args.threads)
    base = None
    for name, options in cases(args.worlds).items():
        value = rate(args.worlds, options, args.repeats)
        base = base or value
        print(f"{numba.get_num_threads()} thread(s), {args.worlds} worlds | {name}: "
              f"{value / 1e6:.2f} M drone-steps/s ({value / base:.2f} of no world)",
              flush=True)


if __name__ == "__main__":
    main()
