"""What recording to Rerun costs (the viz extra), in one run:

1. a mission: ``fly_mission`` of the bundled default mission (two vehicles, ~35 s flown)
   with and without a :class:`MissionRecorder` writing an ``.rrd`` (its ``finish``
   included), alternating, best of ``--repeats``; the overhead is the extra wall time as a
   share of the plain flight (the target: <= 20 %). ``import rerun`` is timed apart (a
   fresh interpreter: paid once per process);
2. the batched engine: 64 worlds of one crazyflie21 (500 Hz physics, hover in mode 7)
   flown 10 s, recorded after every physics step with a :class:`BatchedRecorder` (all 64
   worlds drawn); the logging time is the recorder's own (``record`` calls, the
   ``send_columns`` batches and writing the file), apart from the simulation (the target:
   <= 10 s).

    python benchmarks/bench_rerun.py [--repeats 3] [--seconds 10]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np


def time_import() -> float:
    code = "import time; t = time.perf_counter(); import rerun; print(time.perf_counter() - t)"
    return float(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                                check=True).stdout)


def bench_mission(repeats: int, folder: Path) -> None:
    from pyflyt_like.core.utils.quiet import quiet_native_output
    from pyflyt_like.integrations.rerun import MissionRecorder
    from pyflyt_like.missions.command import load
    from pyflyt_like.missions.runner import fly_mission

    mission = load(None)
    plain, recorded = [], []
    path = folder / "mission.rrd"
    with quiet_native_output():
        fly_mission(mission)  # warm-up: first-call costs of both paths
        for _ in range(repeats):
            tic = time.perf_counter()
            flight = fly_mission(mission)
            plain.append(time.perf_counter() - tic)
            tic = time.perf_counter()
            recorder = MissionRecorder(mission, path)
            flight = fly_mission(mission, step_recorder=recorder)
            recorder.finish(flight)
            recorded.append(time.perf_counter() - tic)
    best_plain, best_recorded = min(plain), min(recorded)
    steps = len(flight.result.logs[0].times)
    print(f"mission {mission.name!r}: {flight.result.duration:.1f} s flown, {steps} steps, "
          f"{len(mission.vehicles)} vehicles")
    print(f"  plain     {best_plain:7.3f} s wall (best of {repeats}: "
          f"{', '.join(f'{t:.3f}' for t in plain)})")
    print(f"  recorded  {best_recorded:7.3f} s wall (best of {repeats}: "
          f"{', '.join(f'{t:.3f}' for t in recorded)}), {path.stat().st_size / 1e6:.2f} MB")
    overhead = (best_recorded - best_plain) / best_plain
    print(f"  overhead  {100 * overhead:+6.1f} % of the mission's wall time (target <= 20 %)")


def bench_batch(seconds: float, folder: Path) -> None:
    from pyflyt_like.batch import BatchedAviary
    from pyflyt_like.integrations.rerun import BatchedRecorder

    engine = BatchedAviary(n_worlds=64, n_drones=1, drone_model="crazyflie21", mode=7,
                           physics_hz=500, seed=0)
    steps = int(round(seconds * engine.physics_hz))
    engine.step(1)  # compile
    engine.reset()
    path = folder / "batch.rrd"
    logging = 0.0
    tic = time.perf_counter()
    recorder = BatchedRecorder(engine, path, worlds=range(64))
    logging += time.perf_counter() - tic
    simulation = 0.0
    for _ in range(steps):
        tic = time.perf_counter()
        engine.step(1)
        middle = time.perf_counter()
        recorder.record()
        logging += time.perf_counter() - middle
        simulation += middle - tic
    tic = time.perf_counter()
    recorder.close()
    logging += time.perf_counter() - tic
    print(f"batched: 64 worlds x 1 drone, {seconds:g} s flown = {steps} physics steps, "
          f"recorded every step ({64 * steps} poses)")
    print(f"  simulation {simulation:7.3f} s; logging {logging:7.3f} s (target <= 10 s), "
          f"{path.stat().st_size / 1e6:.1f} MB")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=10.0)
    args = parser.parse_args()
    import rerun

    print(f"rerun-sdk {rerun.__version__}, python {sys.version.split()[0]}, "
          f"{os.cpu_count()} cpus")
    print(f"import rerun: {time_import():.2f} s in a fresh interpreter (once per process)")
    with tempfile.TemporaryDirectory() as folder:
        bench_mission(args.repeats, Path(folder))
        bench_batch(args.seconds, Path(folder))


if __name__ == "__main__":
    np.set_printoptions(precision=3)
    main()
