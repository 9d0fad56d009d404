"""Env-steps/s of our Multirotor-Hover-v0 VectorEnv beside RLtools' L2F ("Learning to
Fly", the ``l2f`` PyPI package), in one run, at equal work and equal threads.

What is measured: env-steps per second (every env's step counted) of

* ours: ``gymnasium.make_vec("pyflyt_like/Multirotor-Hover-v0", num_envs=N,
  vectorization_mode="vector_entry_point", drone_model="crazyflie21", flight_mode=-1,
  agent_hz=100, physics_hz=100)`` in this Python, ``envs.step(actions)`` in a loop;
* L2F: ``l2f.vector<N>`` in the side venv /tmp/l2f-venv, driven by the sibling
  ``l2f_worker.py`` (imports only l2f and numpy) in a subprocess that stays up for the run,
  so the figures exclude process start-up.

Equal work, one env step on either side, for every env:
  a Crazyflie (ours: crazyflie21.yaml; L2F: its default ``crazyflie`` dynamics), commanded
  with four rotor-speed actions in [-1, 1] (uniform random, the same arrays on both sides:
  16 (N, 4) float32 arrays drawn from ``np.random.default_rng(seed)`` before timing and
  cycled), one physics step at 100 Hz, the observation, the reward, the termination and
  the 500-step (5 s) truncation computed, and ended episodes reset automatically:
  - ours: Gymnasium's NEXT_STEP autoreset inside the VectorEnv (an env that ended at step
    t restarts at step t+1, its action ignored, observation = the reset one);
  - L2F: its Python API has no autoreset; ended envs are reset in the same step the way its
    stable-baselines3 wrapper does it (``sample_initial_parameters_if_truncated`` and
    ``sample_initial_state_if_truncated``), then every env is observed once.
  Known differences that remain (read them with the figures): L2F integrates with RK4 in
  float32, ours with semi-implicit Euler in float64; L2F's observation is 82 floats (with a
  16-step action history), ours 22; the two tasks start and end episodes under different
  rules (L2F starts within 0.5 m, tilted up to 90 degrees, at up to 1 m/s, and ends beyond
  1 m, 2 m/s or 35 rad/s; ours as Multirotor-Hover's docstring says), so the reset loads
  differ: "ends" gives the ended episodes per 1000 env-steps of each side. ``pip install
  l2f`` compiles the bindings from source with -Ofast -march=native -fopenmp (~20 min).

Threads: ours runs its one compiled call per step on the calling thread below 1024 envs
(the VectorEnv's choice: starting a parallel region costs more than it saves there) and on
numba's default thread count (the machine's cores) from 1024; L2F runs OpenMP (every
``l2f.vector`` call is an ``omp parallel for``) with ``OMP_NUM_THREADS`` set to the
machine's cores at every size. Unless ``--no-single-thread``, each size is also measured
with one thread on both sides (``numba.set_num_threads(1)``, ``OMP_NUM_THREADS=1``): the per-core
figures. The OpenMP thread count each L2F worker really got is asked of libgomp and
printed.

Timing: per size, the sides alternate (ours, L2F, then L2F, ours on the next repeat...),
each measurement ``--seconds`` long after ``--warmup-steps`` untimed steps; the envs live
through the run (episodes go on). The tables give the median and the best of the repeats,
and ours/L2F as the median of the paired ratios (each pair ran back to back, under nearly
the same load). The load average, the CPU pressure (Linux PSI) and the CPU time each side
got are printed: on a machine shared with other work, a parallel region waits for its
slowest thread, so multi-threaded figures then measure the scheduler more than the code,
and the one-thread figures are the ones to compare. A pair in which either side got less
than 90% of its threads' CPU time (another process held a core) is measured again, up to
``--retries`` times, and the first table keeps only the undisturbed pairs.

Usage:
    python3 -m venv /tmp/l2f-venv && /tmp/l2f-venv/bin/pip install l2f numpy  # once
    python benchmarks/bench_l2f.py [--num-envs 64 256 1024 4096 8192] [--seconds 0.3]
        [--repeats 7] [--retries 1] [--no-single-thread]
        [--l2f-python /tmp/l2f-venv/bin/python]
    python benchmarks/bench_l2f.py --profile 64   # where our step's time goes, no L2F

Exits 2 (and says how to create it) if the L2F venv is missing.
"""

from __future__ import annotations

import argparse
import cProfile
import json
import os
import pstats
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

DEFAULT_L2F_PYTHON = Path("/tmp/l2f-venv/bin/python")
CREATE_VENV = "python3 -m venv /tmp/l2f-venv && /tmp/l2f-venv/bin/pip install l2f numpy"
WORKER = Path(__file__).with_name("l2f_worker.py")
ENV_ID = "pyflyt_like/Multirotor-Hover-v0"
# Crazyflie, rotor-speed actions, one 100 Hz physics step per env step (see the docstring)
OUR_OPTIONS = {"drone_model": "crazyflie21", "flight_mode": -1, "agent_hz": 100,
               "physics_hz": 100}
SIZES = (64, 256, 1024, 4096, 8192)
ACTION_BANK = 16  # the worker draws the same 16 arrays
# A measurement whose process got less CPU than this share of its threads' wall time lost a
# core to another process for a while (spin-waits count as CPU, so an undisturbed run is
# near 1.0 per thread)
UNDISTURBED_CPU_SHARE = 0.9


def our_threads(envs) -> int:
    """The threads our VectorEnv's step runs on: the calling thread alone when a step holds
    too little work to pay for waking the others, one per block of worlds from there
    (pyflyt_like.batch.threads)."""
    loop = envs.unwrapped._loop
    return len(loop.blocks) if loop.parallel() else 1


def undisturbed(ours: dict, l2f: dict, threads: int) -> bool:
    """Whether both sides of a pair got at least :data:`UNDISTURBED_CPU_SHARE` of the CPU
    time of the threads they ran on (ours: ``ours["threads"]``; L2F: ``threads``)."""
    return (ours["cpu"] >= UNDISTURBED_CPU_SHARE * ours["threads"]
            and l2f["cpu"] >= UNDISTURBED_CPU_SHARE * threads)


def random_actions(num_envs: int, seed: int) -> np.ndarray:
    """(ACTION_BANK, num_envs, 4) float32 uniform in [-1, 1]; l2f_worker.py draws the same."""
    actions = np.random.default_rng(seed).uniform(-1.0, 1.0, (ACTION_BANK, num_envs, 4))
    return np.ascontiguousarray(actions, np.float32)


class Ours:
    """Our VectorEnvs by size, built on first use and kept (episodes go on)."""

    def __init__(self, seed: int):
        import gymnasium

        import pyflyt_like.envs  # noqa: F401 (registers the pyflyt_like/ ids)

        self._make = gymnasium.make_vec
        self.seed = seed
        self.envs: dict = {}

    def measure(self, num_envs: int, seconds: float, warmup_steps: int) -> dict:
        """Env-steps/s of ``num_envs`` envs over at least ``seconds`` [s] and 3 steps."""
        if num_envs not in self.envs:
            envs = self._make(ENV_ID, num_envs=num_envs,
                              vectorization_mode="vector_entry_point", **OUR_OPTIONS)
            envs.reset(seed=self.seed)
            self.envs[num_envs] = envs
        envs = self.envs[num_envs]
        actions = random_actions(num_envs, self.seed)
        for i in range(warmup_steps):
            envs.step(actions[i % ACTION_BANK])
        steps = ends = 0
        cpu_start, start = time.process_time(), time.perf_counter()
        while True:
            _, _, terminated, truncated, _ = envs.step(actions[steps % ACTION_BANK])
            ends += np.count_nonzero(terminated) + np.count_nonzero(truncated)
            steps += 1
            elapsed = time.perf_counter() - start
            if elapsed >= seconds and steps >= 3:
                break
        return {"num_envs": num_envs, "steps": steps, "seconds": elapsed,
                "rate": steps * num_envs / elapsed, "ends": int(ends),
                "threads": our_threads(envs),
            "cpu": (time.process_time() - cpu_start) / elapsed}

    def close(self) -> None:
        for envs in self.envs.values():
            envs.close()


class L2FWorker:
    """``l2f_worker.py`` in the L2F venv with ``OMP_NUM_THREADS=threads``, kept up."""

    def __init__(self, python: Path, threads: int):
        env = {**os.environ, "OMP_NUM_THREADS": str(threads)}
        env.pop("PYTHONPATH", None)  # the venv sees l2f and numpy only, never this repo
        self.threads = threads
        self.process = subprocess.Popen([str(python), str(WORKER)], stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, text=True, env=env,
                                        cwd=str(WORKER.parent))

    def ask(self, request: dict) -> dict:
        self.process.stdin.write(json.dumps(request) + "\n")
        self.process.stdin.flush()
        line = self.process.stdout.readline()
        if not line:
            raise RuntimeError(f"l2f_worker.py (OMP_NUM_THREADS={self.threads}) exited with "
                               f"code {self.process.wait()}")
        reply = json.loads(line)
        if "error" in reply:
            raise RuntimeError(f"l2f_worker.py: {reply['error']}")
        return reply

    def measure(self, num_envs: int, seconds: float, warmup_steps: int, seed: int) -> dict:
        return self.ask({"cmd": "measure", "num_envs": num_envs, "seconds": seconds,
                         "seed": seed, "warmup_steps": warmup_steps})

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.stdin.write(json.dumps({"cmd": "quit"}) + "\n")
            self.process.stdin.close()
            self.process.wait(timeout=30)


def cpu_pressure() -> float | None:
    """Linux PSI "some avg10" of the CPU [%]: the share of the last 10 s in which some
    runnable task waited for a core (None where /proc/pressure is missing)."""
    try:
        with open("/proc/pressure/cpu") as file:
            first = file.readline().split()
        return float(first[1].split("=")[1])
    except (OSError, IndexError, ValueError):
        return None


def check_l2f_python(python: Path) -> None:
    """Exit 2 with the one line that creates the venv if ``python`` is missing."""
    if not python.exists():
        print(f"The L2F venv is missing ({python} not found). Create it with:\n"
              f"  {CREATE_VENV}", file=sys.stderr)
        sys.exit(2)


def run(args: argparse.Namespace) -> None:
    import numba

    check_l2f_python(args.l2f_python)
    default_threads = numba.config.NUMBA_NUM_THREADS
    thread_counts = [default_threads] + ([1] if args.single_thread and default_threads > 1
                                         else [])
    workers, infos = {}, {}
    try:
        for threads in thread_counts:
            workers[threads] = L2FWorker(args.l2f_python, threads)
            infos[threads] = workers[threads].ask({"cmd": "info"})
    except RuntimeError as error:
        for worker in workers.values():
            worker.close()
        print(f"{error}\nCreate or repair the venv with:\n  {CREATE_VENV}", file=sys.stderr)
        sys.exit(2)
    info = infos[default_threads]
    ours = Ours(args.seed)
    omp = ", ".join(f"OMP_NUM_THREADS={t} -> {infos[t]['omp_max_threads']}" for t in infos)
    print(f"machine: {os.cpu_count()} cores; ours: numba {numba.__version__}, default "
          f"threads {default_threads}; L2F: l2f {info['l2f_version']}, OpenMP threads "
          f"({omp}), observation {info['observation_dim']} floats, episode limit "
          f"{info['episode_step_limit']} steps")
    print(f"{args.repeats} repeats x {args.seconds:g} s per measurement, sides alternating; "
          f"thread counts: {thread_counts}\n", flush=True)
    # results[(side, threads, num_envs)] = the measurements, repeat by repeat
    results: dict[tuple[str, int, int], list[dict]] = {}
    loads = []
    try:
        for repeat in range(args.repeats):
            for num_envs in args.num_envs:
                for threads in thread_counts:
                    numba.set_num_threads(threads)
                    # ours first on even repeats, L2F first on odd ones: a drift in the
                    # machine's load then favours neither side
                    sides = ("ours", "l2f") if repeat % 2 == 0 else ("l2f", "ours")
                    attempts = 0
                    while True:
                        attempts += 1
                        loads.append((os.getloadavg()[0], cpu_pressure()))
                        pair = {}
                        for side in sides:
                            if side == "ours":
                                pair[side] = ours.measure(num_envs, args.seconds,
                                                          args.warmup_steps)
                            else:
                                pair[side] = workers[threads].measure(
                                    num_envs, args.seconds, args.warmup_steps, args.seed)
                        calm = undisturbed(pair["ours"], pair["l2f"], threads)
                        if calm or attempts > args.retries:
                            break  # else measure the pair again, keeping the last attempt
                    for side in sides:
                        results.setdefault((side, threads, num_envs), []).append(pair[side])
                    print(f"  repeat {repeat + 1}/{args.repeats} N={num_envs:5d} threads="
                          f"{threads}: ours {pair['ours']['rate'] / 1e6:6.3f} M, L2F "
                          f"{pair['l2f']['rate'] / 1e6:6.3f} M   (attempt {attempts}, "
                          f"{'undisturbed' if calm else 'DISTURBED'}; load "
                          f"{loads[-1][0]:.1f}, CPU pressure {loads[-1][1]}%)", flush=True)
        layer = numba.threading_layer()
    finally:
        numba.set_num_threads(default_threads)
        for worker in workers.values():
            worker.close()
        ours.close()
    averages = [load for load, _ in loads]
    pressures = [pressure for _, pressure in loads if pressure is not None]
    print(f"\nnumba threading layer: {layer}; during the run the 1-min load average was "
          f"{min(averages):.1f} to {max(averages):.1f} on {os.cpu_count()} cores"
          + (f", CPU pressure (PSI some avg10) {min(pressures):.0f} to {max(pressures):.0f}%"
             if pressures else ""))
    if max(averages) > os.cpu_count() or (pressures and max(pressures) > 20.0):
        print("WARNING: other processes competed for the cores. Multi-threaded figures then "
              "measure the scheduler (a parallel region waits for its slowest thread); the "
              "1-thread figures and the undisturbed pairs (first table) are the ones to "
              "read.")
    print_tables(results, args.num_envs, thread_counts)


def undisturbed_pairs(results: dict, threads: int, n: int) -> list[tuple[dict, dict]]:
    """The (ours, L2F) measurement pairs in which both sides got at least
    :data:`UNDISTURBED_CPU_SHARE` of their threads' CPU time: no other process held one of
    their cores for long, so the pair compares the code rather than the scheduler."""
    pairs = zip(results["ours", threads, n], results["l2f", threads, n], strict=True)
    return [(ours, l2f) for ours, l2f in pairs if undisturbed(ours, l2f, threads)]


def print_tables(results: dict, sizes: list[int], thread_counts: list[int]) -> None:
    """Three tables of rates: the undisturbed pairs' medians (the figures to quote), the
    medians and the bests of all repeats; then the rate per thread, the CPU each side got
    and the reset load of each side. ours/L2F is the median of the paired ratios (each
    ours over the L2F figure measured next to it, under nearly the same load)."""
    def ratio(pairs):
        return statistics.median(ours["rate"] / l2f["rate"] for ours, l2f in pairs)

    def all_pairs(results, threads, n):
        return list(zip(results["ours", threads, n], results["l2f", threads, n], strict=True))

    def median_rate(pairs, side):
        return statistics.median(pair[side]["rate"] for pair in pairs)

    def best_rate(pairs, side):
        return max(pair[side]["rate"] for pair in pairs)

    tables = (
        (f"median of the undisturbed pairs (both sides got >= "
         f"{UNDISTURBED_CPU_SHARE:.0%} of their threads' CPU; k/n pairs kept)",
         undisturbed_pairs, median_rate),
        ("median of all repeats", all_pairs, median_rate),
        ("best of all repeats", all_pairs, best_rate))
    for title, select, pick in tables:
        print(f"\nM env-steps/s, {title}; ours/L2F = median of the paired ratios")
        header = f"{'num_envs':>9s}"
        for threads in thread_counts:
            label = f"{threads}T" if threads > 1 else "1T (per core)"
            header += (f" | {'ours ' + label:>17s} {'L2F ' + label:>17s} {'ours/L2F':>8s} "
                       f"{'k/n':>5s}")
        print(header)
        for n in sizes:
            row = f"{n:9d}"
            for threads in thread_counts:
                pairs = select(results, threads, n)
                kept = f"{len(pairs)}/{len(results['ours', threads, n])}"
                if pairs:
                    row += (f" | {pick(pairs, 0) / 1e6:17.3f} {pick(pairs, 1) / 1e6:17.3f} "
                            f"{ratio(pairs):8.2f} {kept:>5s}")
                else:
                    row += f" | {'-':>17s} {'-':>17s} {'-':>8s} {kept:>5s}"
            print(row)

    def cpu(side, threads, n):
        return statistics.median(r["cpu"] for r in results[side, threads, n])

    def ends_per_1000(side, threads, n):
        runs = results[side, threads, n]
        return 1000.0 * sum(r["ends"] for r in runs) / sum(r["steps"] * n for r in runs)

    main_threads = thread_counts[0]
    print(f"\nper thread: the {main_threads}-thread median of all repeats / {main_threads} "
          f"[M env-steps/s]; cpu: CPU seconds per wall second the process got, median "
          f"(spin-waits count);\nends: ended episodes per 1000 env-steps (the reset load)")
    for n in sizes:
        ours = statistics.median(r["rate"] for r in results["ours", main_threads, n])
        l2f = statistics.median(r["rate"] for r in results["l2f", main_threads, n])
        cpus = "  ".join(f"{threads}T ours {cpu('ours', threads, n):.2f} L2F "
                         f"{cpu('l2f', threads, n):.2f}" for threads in thread_counts)
        print(f"{n:9d}  per thread: ours {ours / main_threads / 1e6:.3f} L2F "
              f"{l2f / main_threads / 1e6:.3f}   cpu: {cpus}   "
              f"ends: ours {ends_per_1000('ours', main_threads, n):4.1f} "
              f"L2F {ends_per_1000('l2f', main_threads, n):4.1f}")


def profile(num_envs: int, steps: int, seed: int) -> None:
    """Where our step's time goes at ``num_envs``: cProfile of ``steps`` VectorEnv steps,
    then the engine's step alone at the default threads and at one thread."""
    import numba

    from pyflyt_like.batch import BatchedAviary

    ours = Ours(seed)
    ours.measure(num_envs, 0.5, 200)  # builds, compiles, warms
    envs = ours.envs[num_envs]
    actions = random_actions(num_envs, seed)
    profiler = cProfile.Profile()
    start = time.perf_counter()
    profiler.enable()
    for i in range(steps):
        envs.step(actions[i % ACTION_BANK])
    profiler.disable()
    wall = time.perf_counter() - start
    print(f"our VectorEnv.step at {num_envs} envs under cProfile: {1e6 * wall / steps:.1f} "
          f"us/step ({steps} steps; cProfile adds its own cost per Python call)")
    pstats.Stats(profiler).sort_stats("tottime").print_stats(14)
    default_threads = numba.config.NUMBA_NUM_THREADS
    sim = BatchedAviary(n_worlds=num_envs, n_drones=1, drone_model="crazyflie21", mode=-1,
                        physics_hz=100, control_hz=100, seed=seed)
    for threads in sorted({default_threads, 1}, reverse=True):
        numba.set_num_threads(threads)
        for label, fn in (("BatchedAviary.step(1)", lambda: sim.step(1)),
                          ("VectorEnv.step", lambda: envs.step(actions[0]))):
            for _ in range(200):
                fn()
            best = float("inf")
            for _ in range(5):  # best of 5 blocks: the least disturbed by other load
                start = time.perf_counter()
                for _ in range(steps // 5):
                    fn()
                best = min(best, (time.perf_counter() - start) / (steps // 5))
            print(f"{label:22s} at {num_envs} envs, {threads} thread(s): "
                  f"{1e6 * best:8.1f} us/step")
    numba.set_num_threads(default_threads)
    ours.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--num-envs", nargs="*", type=int, default=list(SIZES),
                        help="sizes; L2F compiles powers of two from 1 to 8192")
    parser.add_argument("--seconds", type=float, default=0.3, help="per measurement [s]")
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--warmup-steps", type=int, default=50,
                        help="untimed steps before each measurement")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--retries", type=int, default=1,
                        help="measure a disturbed pair again up to this many times")
    parser.add_argument("--no-single-thread", dest="single_thread", action="store_false",
                        help="skip the one-thread (per-core) measurements")
    parser.add_argument("--l2f-python", type=Path, default=DEFAULT_L2F_PYTHON,
                        help="the Python of the venv that has l2f")
    parser.add_argument("--profile", type=int, metavar="NUM_ENVS", default=None,
                        help="profile our step at NUM_ENVS instead (no L2F)")
    parser.add_argument("--profile-steps", type=int, default=3000)
    args = parser.parse_args()
    if args.seconds <= 0 or args.repeats < 1 or args.warmup_steps < 0 or args.retries < 0:
        parser.error("--seconds must be > 0, --repeats >= 1, --warmup-steps >= 0, "
                     "--retries >= 0")
    bad = [n for n in args.num_envs if n < 1 or n & (n - 1) or n > 8192]
    if bad:
        parser.error(f"--num-envs must be powers of two in [1, 8192] (the sizes the l2f "
                     f"bindings compile), got {bad}")
    if args.profile is not None:
        if args.profile < 1:
            parser.error("--profile takes a positive number of envs")
        profile(args.profile, args.profile_steps, args.seed)
        return
    run(args)


if __name__ == "__main__":
    main()
