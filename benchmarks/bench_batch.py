"""The batched engine's throughput: drone-steps/s against the PyBullet path, in one run.

Times ``pyflyt_like.batch.BatchedAviary`` (crazyflie21, one drone per world, 500 Hz physics,
control at the physics rate) for 1, 64, 1024 and 16 384 worlds in modes -1, 1 and 7. Each
cell runs fused steps, ``sim.step(n)`` with ``n`` chosen for about ``--seconds`` of wall
time, from a fresh reset. The PyBullet ``Aviary`` flies the same model, rates and modes with
one ``drone_type="multirotor"`` drone in the same run, and every cell prints its ratio to
the PyBullet figure of the same mode. A drone-step is one physics step of one drone.

Also printed: the first-call time (``import pyflyt_like.batch``, the first construction
and the first step, in a fresh subprocess, with the numba cache as found and, unless
``--quick``, with an empty cache), and the state memory per drone (``sim._state`` and
``sim.plant`` arrays). With ``--crazyflow`` the crazyflow ``Sim`` (attitude control, same
rates) is timed too, if it is installed.

    python benchmarks/bench_batch.py [--quick] [--crazyflow] [--seconds 0.5]
"""

from __future__ import annotations

import argparse
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

HZ = 500
MODEL = "crazyflie21"
MODES = (-1, 1, 7)
WORLDS = (1, 64, 1024, 16384)
QUICK_WORLDS = (1, 64, 1024)

FIRST_CALL = """
import time
tic = time.perf_counter()
import pyflyt_like.batch
imported = time.perf_counter()
sim = pyflyt_like.batch.BatchedAviary(n_worlds=1, drone_model="crazyflie21", mode=1,
                                      physics_hz=500)
built = time.perf_counter()
sim.step(1)
stepped = time.perf_counter()
print(imported - tic, built - imported, stepped - built)
"""


def cache_files(folder: Path) -> dict[str, float]:
    """numba cache files (index and data) under ``folder`` with their modification times."""
    return {str(p): p.stat().st_mtime for p in folder.rglob("*") if p.suffix in (".nbi", ".nbc")}


def first_call(cache_dir: str | None) -> tuple[float, float, float, str]:
    """Import, construction and first-step times [s] in a fresh interpreter, and whether the
    numba cache was warm (nothing written) or cold (kernels compiled and cached)."""
    from pyflyt_like.compiled import kernel_cache

    env = dict(os.environ)
    folder = kernel_cache.cache_root()
    if cache_dir is not None:
        env["NUMBA_CACHE_DIR"] = cache_dir
        folder = Path(cache_dir)
    before = cache_files(folder) if folder.is_dir() else {}
    out = subprocess.run([sys.executable, "-c", FIRST_CALL], env=env, check=True,
                         capture_output=True, text=True).stdout
    imported, built, stepped = (float(x) for x in out.split())
    after = cache_files(folder) if folder.is_dir() else {}
    if before and after == before:
        cache = "warm (cache found, nothing compiled)"
    else:
        cache = f"cold (compiled, {len(set(after) - set(before))} cache files written)"
    return imported, built, stepped, cache


def batch_sim(n_worlds: int, mode: int):
    from pyflyt_like.batch import BatchedAviary

    sim = BatchedAviary(n_worlds=n_worlds, n_drones=1, drone_model=MODEL, mode=mode,
                        physics_hz=HZ, seed=0)
    restart(sim)
    return sim


def restart(sim) -> None:
    """Reset every world and hover: mode -1 at the hover speed (a reset presets zeros);
    modes 1 and 7 keep the preset setpoint, which holds the start pose."""
    sim.reset()
    if sim.mode == -1:
        sim.set_setpoints(np.full(sim.setpoint_size, sim.hover_speed))


def batch_rate(n_worlds: int, mode: int, seconds: float) -> tuple[float, int, int]:
    """Drone-steps/s of fused ``step(n)`` calls, ``n``, and the drones on the floor after."""
    sim = batch_sim(n_worlds, mode)
    sim.step(10)  # warm-up (and the first call's dispatch)
    n, elapsed = 10, 0.0
    while elapsed < 0.2 * seconds:  # calibrate n for about ``seconds`` per call
        n *= 4
        restart(sim)
        tic = time.perf_counter()
        sim.step(n)
        elapsed = time.perf_counter() - tic
    n = max(1, int(n * seconds / elapsed))
    best = float("inf")
    for _ in range(2):
        restart(sim)
        tic = time.perf_counter()
        sim.step(n)
        best = min(best, time.perf_counter() - tic)
    return n_worlds * sim.n_drones * n / best, n, int(sim.contact.sum())


def state_bytes_per_drone(n_worlds: int) -> float:
    sim = batch_sim(n_worlds, 1)
    total = sum(a.nbytes for a in (*sim._state, *sim.plant))
    return total / (sim.n_worlds * sim.n_drones)


def pybullet_rate(mode: int, seconds: float) -> float:
    """Drone-steps/s (physics steps x drones per second) of the PyBullet Aviary."""
    from pyflyt_like.core import Aviary

    aviary = Aviary(np.array([[0.0, 0.0, 1.0]]), np.zeros((1, 3)), drone_type="multirotor",
                    physics_hz=HZ, drone_options=dict(drone_model=MODEL, control_hz=HZ),
                    seed=0)
    try:
        drone = aviary.drones[0]
        aviary.set_mode(mode)
        if mode == -1:
            aviary.set_setpoint(0, np.full(drone.n_propellers, drone.hover_rpm))
        for _ in range(50):
            aviary.step()
        count, tic = 0, time.perf_counter()
        while time.perf_counter() - tic < seconds:
            for _ in range(100):
                aviary.step()
            count += 100
        elapsed = time.perf_counter() - tic
        return count * aviary.updates_per_step * len(aviary.drones) / elapsed
    finally:
        aviary.close()


def crazyflow_rate(n_worlds: int, seconds: float) -> float:
    """Drone-steps/s of crazyflow's Sim with its attitude controller at 500 Hz."""
    import jax
    from crazyflow.control import Control
    from crazyflow.sim import Physics, Sim

    physics = getattr(Physics, "analytical", None) or Physics.first_principles
    sim = Sim(n_worlds=n_worlds, n_drones=1, physics=physics, control=Control.attitude,
              freq=HZ, attitude_freq=HZ, device="cpu")
    sim.reset()
    cmd = np.zeros((n_worlds, 1, 4))  # roll, pitch, yaw, collective thrust [N]
    cmd[..., 3] = float(np.ravel(sim.data.params.mass)[0]) * 9.81
    sim.attitude_control(cmd)

    def run(n):
        sim.step(n)
        jax.block_until_ready(sim.data)

    run(10)  # compile
    n, elapsed = 10, 0.0
    while elapsed < 0.2 * seconds:
        n *= 4
        tic = time.perf_counter()
        run(n)
        elapsed = time.perf_counter() - tic
    n = max(1, int(n * seconds / elapsed))
    tic = time.perf_counter()
    run(n)
    rate = n_worlds * n / (time.perf_counter() - tic)
    sim.close()
    return rate


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true",
                        help="short run: 0.1 s per cell, no 16384 worlds, no cold compile")
    parser.add_argument("--crazyflow", action="store_true", help="also time crazyflow's Sim")
    parser.add_argument("--seconds", type=float, default=None,
                        help="wall time per fused call [s] (default 0.5, quick 0.1)")
    args = parser.parse_args()
    seconds = args.seconds or (0.1 if args.quick else 0.5)
    worlds = QUICK_WORLDS if args.quick else WORLDS
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, python "
          f"{platform.python_version()}; {MODEL}, physics {HZ} Hz, control {HZ} Hz, "
          f"1 drone per world")

    print("\nfirst call in a fresh process [s]: import, construction, first step")
    cases = [("numba cache as found", None)]
    if not args.quick:
        cases.append(("empty numba cache", tempfile.mkdtemp(prefix="bench_batch_cache_")))
    for label, cache_dir in cases:
        imported, built, stepped, cache = first_call(cache_dir)
        print(f"  {label:<21} {imported:6.2f} {built:6.2f} {stepped:6.2f}  total "
              f"{imported + built + stepped:6.2f}  {cache}")

    print(f"\nstate memory per drone: {state_bytes_per_drone(1024):.0f} bytes "
          f"(sim._state + sim.plant, 1024 worlds)")

    pybullet = {mode: pybullet_rate(mode, 4 * seconds) for mode in MODES}
    print(f"\n{'mode':>4} {'worlds':>6} {'steps/call':>10} {'drone-steps/s':>14} "
          f"{'x PyBullet':>10} {'on floor':>8}")
    for mode in MODES:
        print(f"{mode:>4} {'PyBullet':>6} {'1':>10} {pybullet[mode]:>14,.0f} {1.0:>10.2f} "
              f"{'-':>8}")
        for n_worlds in worlds:
            rate, n, floor = batch_rate(n_worlds, mode, seconds)
            print(f"{mode:>4} {n_worlds:>6} {n:>10} {rate:>14,.0f} "
                  f"{rate / pybullet[mode]:>10.1f} {floor:>8}")

    if args.crazyflow:
        try:
            import crazyflow  # noqa: F401
        except ImportError:
            print("\ncrazyflow: not installed, not timed")
        else:
            print(f"\ncrazyflow Sim, attitude control, {HZ} Hz")
            print(f"{'worlds':>6} {'drone-steps/s':>14} {'batch mode 1 / crazyflow':>25}")
            for n_worlds in worlds:
                theirs = crazyflow_rate(n_worlds, seconds)
                mine, _, _ = batch_rate(n_worlds, 1, seconds)
                print(f"{n_worlds:>6} {theirs:>14,.0f} {mine / theirs:>25.2f}")


if __name__ == "__main__":
    main()
