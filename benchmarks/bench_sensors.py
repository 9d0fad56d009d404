"""Cost of sensors and the EKF on both engines, measured side by side in one run.

PyBullet path: one QuadX hovering in mode 7 at the Aviary's default rates; the time of an
``aviary.step()`` (one control step and its physics steps) with no sensors against one with
an IMU (BMI088 preset), GNSS and barometer (default presets) and the EKF fed by them
(``drone_options["estimator"] = "ekf"``; the controllers still fly on the truth, so both
aviaries fly the same hover). Batched engine: ``BatchedAviary`` of 16 384 worlds of
Crazyflie 2.1s in mode 1 at 500 Hz; the time of a physics step with no sensors against one
with the same three sensors. The two configurations alternate in chunks, several times,
in one process; the medians are compared.

The issue's targets: sensors + EKF add <= 25 % to the QuadX step; IMU + GNSS + baro add
<= 30 % to the batched step at 16 384 worlds.

Usage: python benchmarks/bench_sensors.py [--repeats 5] [--worlds 16384]
[--only pybullet|batched]
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

from pyflyt_like.batch import BatchedAviary
from pyflyt_like.core import Aviary

SENSORS = {"imu": "bmi088", "gnss": "default", "baro": "default"}


def pybullet_seconds(with_sensors: bool, repeats: int, steps: int) -> list[float]:
    """Seconds per aviary step, one figure per repeat."""
    options = {"sensors": SENSORS, "estimator": "ekf"} if with_sensors else {}
    times = []
    with Aviary(np.array([[0.0, 0.0, 1.0]]), np.zeros((1, 3)), seed=0,
                drone_options=options) as aviary:
        aviary.set_mode(7)
        aviary.set_setpoint(0, np.array([0.0, 0.0, 0.0, 1.0]))
        for _ in range(60):
            aviary.step()
        for _ in range(repeats):
            tic = time.perf_counter()
            for _ in range(steps):
                aviary.step()
            times.append((time.perf_counter() - tic) / steps)
    return times


def batched_seconds(sim: BatchedAviary, repeats: int, steps: int) -> list[float]:
    """Seconds per physics step of every world, one figure per repeat."""
    times = []
    for _ in range(repeats):
        tic = time.perf_counter()
        sim.step(steps)
        times.append((time.perf_counter() - tic) / steps)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--worlds", type=int, default=16384)
    parser.add_argument("--only", choices=("pybullet", "batched"), default=None,
                        help="run one engine's half only")
    args = parser.parse_args()
    if args.repeats < 1:
        parser.error(f"--repeats must be >= 1, got {args.repeats}")
    if args.worlds < 1:
        parser.error(f"--worlds must be >= 1, got {args.worlds}")
    if args.only != "batched":
        pybullet_part(args.repeats)
    if args.only != "pybullet":
        batched_part(args.repeats, args.worlds)


def pybullet_part(repeats: int) -> None:
    """The PyBullet QuadX step, bare and with sensors + EKF, alternated; prints the medians."""
    bare, sensed = [], []
    for _ in range(repeats):  # alternate, so drifts of the machine hit both alike
        bare += pybullet_seconds(False, 3, 200)
        sensed += pybullet_seconds(True, 3, 200)
    b, s = statistics.median(bare), statistics.median(sensed)
    print(f"PyBullet QuadX step: {b * 1e6:7.1f} us bare, {s * 1e6:7.1f} us with IMU + GNSS + "
          f"baro + EKF: +{100 * (s / b - 1):.0f} % (target <= 25 %)")


def batched_part(repeats: int, n_worlds: int) -> None:
    """The batched step of ``n_worlds`` worlds, bare and with sensors, alternated; prints
    the medians and each configuration's spread (min and max over the repeats)."""
    sims = {name: BatchedAviary(n_worlds=n_worlds, drone_model="crazyflie21", mode=1,
                                physics_hz=500, seed=0, start_pos=[(0.0, 0.0, 50.0)],
                                sensors=sensors)
            for name, sensors in (("bare", None), ("sensed", SENSORS))}
    hover = sims["bare"].model.mass * sims["bare"].gravity
    for sim in sims.values():
        sim.set_setpoints(np.array([0.0, 0.0, 0.0, hover]))
        sim.step(10)  # compile or load the kernels
    times: dict[str, list[float]] = {"bare": [], "sensed": []}
    for _ in range(repeats):
        for name, sim in sims.items():
            sim.reset()
            times[name] += batched_seconds(sim, 3, 20)
    b, s = (statistics.median(times[name]) for name in ("bare", "sensed"))
    print(f"batched, {n_worlds} worlds, mode 1: {n_worlds / b / 1e6:6.2f} M drone-steps/s "
          f"bare, {n_worlds / s / 1e6:6.2f} M with IMU + GNSS + baro: "
          f"+{100 * (s / b - 1):.0f} % (target <= 30 %)")
    for name in ("bare", "sensed"):  # the spread, so a noisy machine shows
        rates = [n_worlds / t / 1e6 for t in times[name]]
        print(f"  {name:6s} M drone-steps/s over {len(rates)} chunks: min {min(rates):.2f}, "
              f"median {statistics.median(rates):.2f}, max {max(rates):.2f}")


if __name__ == "__main__":
    main()
