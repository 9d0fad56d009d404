"""Rays per second of the compiled grid cast against PyBullet's rayTestBatch, in one run.

The world: a forest of 0.1 trees/m^2, trunk radii 0.1-0.3 m, 6 m tall, over a 50 m square
(``Forest(density=0.1, radius=(0.1, 0.3), extent=50.0)``, about 250 trees). The rays: from
``--origins`` points uniform in the middle 10 m square at 0.5-3 m height, 0.2 m clear of
the trunks (every 20 m disc around one lies in the forest: over 100 trees within range),
each a spinning
LiDAR's scan of 16 channels from -15 to +15 degrees of elevation times 64 azimuths (1024
rays), 20 m long.

- **Grid**: :func:`pyflyt_like.compiled.scene.cast_rays` over a
  :func:`~pyflyt_like.worlds.pack_layouts` pool of the one world, on numba's threads (all of
  them, then one).
- **Brute force**: :func:`pyflyt_like.compiled.scene.cast_rays_brute` (every tree tested per
  ray, ``scene_ray_distance`` compiled), on numba's threads: the grid's gain.
- **PyBullet**: the world spawned with :func:`pyflyt_like.core.world_bodies.spawn_world`
  (triangle-mesh trunks) in a DIRECT client; ``rayTestBatch`` in batches of at most
  16 383 rays, with ``numThreads=1`` and ``numThreads=0`` (Bullet's own threads, where the
  build has them); the ray lists are made before the clock starts, the results are not
  converted (both in PyBullet's favour).

Each configuration runs ``--repeats`` times, interleaved; the medians are compared. The
grid's ranges are checked against PyBullet's (hits agree, ranges within a few mm) and
against the brute force (equal), so the rates compare the same answers.

Usage: python benchmarks/bench_rays.py [--repeats 5] [--origins 64] [--seed 0]
[--cell-size 3.0]
"""

from __future__ import annotations

import argparse
import math
import statistics
import time

import numba
import numpy as np
import pybullet

from pyflyt_like.compiled import scene
from pyflyt_like.core.world_bodies import spawn_world
from pyflyt_like.worlds import Forest, pack_layouts

RANGE = 20.0  # [m]
CHANNELS, AZIMUTHS = 16, 64
MAX_BATCH = pybullet.MAX_RAY_INTERSECTION_BATCH_SIZE - 1  # a full batch loses a result


def scan_directions() -> np.ndarray:
    """(CHANNELS * AZIMUTHS, 3) unit vectors of one LiDAR scan."""
    elevation = np.radians(np.linspace(-15.0, 15.0, CHANNELS))
    azimuth = np.linspace(-math.pi, math.pi, AZIMUTHS, endpoint=False)
    el, az = np.meshgrid(elevation, azimuth, indexing="ij")
    return np.stack([np.cos(el) * np.cos(az), np.cos(el) * np.sin(az), np.sin(el)],
                    axis=-1).reshape(-1, 3)


def call_seconds(call, repeats: int) -> list[float]:
    """Seconds of ``repeats`` calls (after one warm-up call)."""
    call()
    times = []
    for _ in range(repeats):
        tic = time.perf_counter()
        call()
        times.append(time.perf_counter() - tic)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--origins", type=int, default=64,
                        help="scan positions (1024 rays each)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--cell-size", type=float, default=None,
                        help="the grid's cell [m] (default: pack_layouts' choice)")
    args = parser.parse_args()
    if args.repeats < 1:
        parser.error(f"--repeats must be >= 1, got {args.repeats}")
    if args.origins < 1:
        parser.error(f"--origins must be >= 1, got {args.origins}")

    world = Forest(density=0.1, radius=(0.1, 0.3), extent=50.0).generate(args.seed)
    rng = np.random.default_rng(args.seed)
    points = np.empty((args.origins, 3))
    for i in range(args.origins):  # where a drone could be: 0.2 m clear of every trunk
        points[i] = np.append(rng.uniform(-5.0, 5.0, 2), rng.uniform(0.5, 3.0))
        while not world.free_start(points[i], 0.2):
            points[i] = np.append(rng.uniform(-5.0, 5.0, 2), rng.uniform(0.5, 3.0))
    scan = scan_directions()
    origins = np.ascontiguousarray(np.repeat(points, len(scan), axis=0))
    directions = np.ascontiguousarray(np.tile(scan, (args.origins, 1)))
    n = origins.shape[0]
    trunks = world.to_arrays()["cylinders"]
    near = [int(np.sum(np.hypot(*(trunks[:, :2] - p[:2]).T) < RANGE)) for p in points]
    print(f"forest: {len(world)} trees over 50 m x 50 m; {args.origins} scan positions x "
          f"{len(scan)} rays = {n} rays of {RANGE:g} m; trees within range of a position: "
          f"{min(near)}-{max(near)}")

    pool = pack_layouts([world], args.cell_size)
    layouts = np.zeros(n, dtype=np.int64)
    grid_out, brute_out = np.empty(n), np.empty(n)
    tables = (trunks, world.to_arrays()["boxes"], world.to_arrays()["spheres"])
    threads = numba.get_num_threads()
    print(f"grid: cells of {pool.cell_size:.2f} m, {int(pool.cells[0, 0])} x "
          f"{int(pool.cells[0, 1])}, {pool.items.shape[0] / (pool.cell_start.shape[0] - 1):.2f} "
          f"trees listed per cell")

    def grid_cast() -> None:
        scene.cast_rays(*pool, layouts, origins, directions, RANGE, grid_out)

    def brute_cast() -> None:
        scene.cast_rays_brute(*tables, origins, directions, RANGE, brute_out)

    client = pybullet.connect(pybullet.DIRECT)
    try:
        spawn_world(client, world)
        ends = origins + RANGE * directions
        batches = [(origins[i:i + MAX_BATCH].tolist(), ends[i:i + MAX_BATCH].tolist())
                   for i in range(0, n, MAX_BATCH)]
        results: list = []

        def bullet_cast(bullet_threads: int) -> None:
            results.clear()
            for starts, stops in batches:
                results.extend(pybullet.rayTestBatch(starts, stops, numThreads=bullet_threads,
                                                     physicsClientId=client))

        times: dict[str, list[float]] = {key: [] for key in (
            "grid", "grid1", "brute", "bullet1", "bullet0")}
        for _ in range(args.repeats):  # interleaved: a drift of the machine hits all alike
            numba.set_num_threads(threads)
            times["grid"] += call_seconds(grid_cast, 3)
            times["brute"] += call_seconds(brute_cast, 1)
            numba.set_num_threads(1)
            times["grid1"] += call_seconds(grid_cast, 3)
            numba.set_num_threads(threads)
            times["bullet1"] += call_seconds(lambda: bullet_cast(1), 1)
            times["bullet0"] += call_seconds(lambda: bullet_cast(0), 1)
        bullet_out = np.array([r[2] * RANGE if r[0] >= 0 else math.inf for r in results])
    finally:
        pybullet.disconnect(client)

    # the same answers: the grid is the brute force to the bit; PyBullet's meshes lie up to
    # 0.1 mm outside the trunks, so its ranges are a little shorter, within a few mm
    assert np.array_equal(grid_out, brute_out), "the grid differs from the brute force"
    both = np.isfinite(grid_out) & np.isfinite(bullet_out)
    agree = np.mean(np.isfinite(grid_out) == np.isfinite(bullet_out))
    error = np.abs(grid_out[both] - bullet_out[both])
    print(f"answers: {np.mean(np.isfinite(grid_out)):.0%} of the rays hit; hit or miss the "
          f"same as PyBullet for {agree:.3%} (the rest graze a trunk's side or "
          f"rim within PyBullet's 0.1 mm facets); where both hit, the ranges differ by "
          f"{np.median(error) * 1e3:.3f} mm (median), less than 1 mm for "
          f"{np.mean(error < 1e-3):.3%}")

    rate = {key: n / statistics.median(value) for key, value in times.items()}
    spread = {key: (n / max(value), n / min(value)) for key, value in times.items()}
    labels = {
        "grid": f"grid, compiled cast_rays, {threads} numba threads "
                f"({numba.threading_layer()})",
        "grid1": "grid, compiled cast_rays, 1 numba thread",
        "brute": f"brute force, compiled scene_ray_distance, {threads} numba threads",
        "bullet1": "PyBullet rayTestBatch, numThreads=1",
        "bullet0": "PyBullet rayTestBatch, numThreads=0 (Bullet's threads)",
    }
    for key, label in labels.items():
        low, high = spread[key]
        print(f"{label:62s} {rate[key] / 1e6:7.3f} M rays/s (min {low / 1e6:.3f}, max "
              f"{high / 1e6:.3f})")
    bullet = max(rate["bullet1"], rate["bullet0"])
    print(f"grid / PyBullet, each side at its best: {rate['grid'] / bullet:.1f}x "
          f"(target >= 20x)")
    print(f"grid / PyBullet, one thread each: {rate['grid1'] / rate['bullet1']:.1f}x")
    print(f"grid / brute force, {threads} threads each: {rate['grid'] / rate['brute']:.1f}x")


if __name__ == "__main__":
    main()
