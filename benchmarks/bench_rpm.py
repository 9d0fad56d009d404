"""Rotor-speed actuation (the RL use): steps/s with new rotor speeds set before every step.

Flies 1 and 10 cf2x multirotors at hover RPM, 240 Hz physics and 240 Hz control (one
physics step per ``step()``), setting every rotor speed before each step through
``Aviary.set_all_propellers_rpm``. With ``--gpd`` (gym-pybullet-drones installed) the same
work runs in its ``CtrlAviary`` (PYB physics, same rates) in the same run, and the ratio is
printed; the target is >= 1.5 x gym-pybullet-drones' steps/s at 1 and 10 drones.

    python benchmarks/bench_rpm.py [--gpd] [--seconds 3]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from pyflyt_like.core import Aviary

HZ = 240


def starts(n: int) -> np.ndarray:
    return np.array([[0.5 * i, 0.0, 1.0] for i in range(n)])


def rate(step, seconds: float) -> float:
    """Calls of ``step()`` per second over about ``seconds`` (after a short warm-up)."""
    for _ in range(50):
        step()
    count, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        for _ in range(100):
            step()
        count += 100
    return count / (time.perf_counter() - start)


def ours(n: int, seconds: float) -> float:
    aviary = Aviary(starts(n), np.zeros((n, 3)), drone_type="multirotor", physics_hz=HZ,
                    drone_options=dict(drone_model="cf2x", control_hz=HZ), seed=0)
    rpms = np.full((n, 4), aviary.drones[0].hover_rpm)

    def step():
        aviary.set_all_propellers_rpm(rpms)
        aviary.step()

    try:
        return rate(step, seconds)
    finally:
        aviary.close()


def gym_pybullet_drones(n: int, seconds: float) -> float:
    from gym_pybullet_drones.envs.CtrlAviary import CtrlAviary
    from gym_pybullet_drones.utils.enums import DroneModel, Physics

    env = CtrlAviary(drone_model=DroneModel.CF2X, num_drones=n, initial_xyzs=starts(n),
                     physics=Physics.PYB, pyb_freq=HZ, ctrl_freq=HZ, gui=False)
    env.reset()
    rpms = np.full((n, 4), env.HOVER_RPM)
    try:
        return rate(lambda: env.step(rpms), seconds)
    finally:
        env.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gpd", action="store_true", help="also time gym-pybullet-drones")
    parser.add_argument("--seconds", type=float, default=3.0, help="timing per case [s]")
    args = parser.parse_args()
    print(f"{'drones':>6} {'ours steps/s':>13} {'gpd steps/s':>12} {'ratio':>6}")
    for n in (1, 10):
        mine = ours(n, args.seconds)
        if args.gpd:
            theirs = gym_pybullet_drones(n, args.seconds)
            print(f"{n:>6} {mine:>13.0f} {theirs:>12.0f} {mine / theirs:>6.2f}")
        else:
            print(f"{n:>6} {mine:>13.0f} {'-':>12} {'-':>6}")


if __name__ == "__main__":
    main()
