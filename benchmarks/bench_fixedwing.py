"""The batched fixed-wing engine's throughput beside the PyBullet path and JSBSim, in one run.

Times ``pyflyt_like.batch.BatchedAviary`` flying ``acrowing`` (one aircraft per world, 240 Hz
physics, the model's own control rate) for 1, 64, 1024 and 16 384 worlds in modes -1
(surfaces and throttle), 1 (attitude hold) and 2 (heading, airspeed and altitude hold). An
aircraft-step is one physics step of one aircraft. Each cell runs fused ``sim.step(n)``
calls from a fresh reset at 50 m; ``n`` is sized for about ``--seconds`` of wall time but
capped at ``MAX_FLIGHT_SECONDS`` of flight, so that no aircraft reaches the ground inside a
timed call (mode 1's preset glides with the throttle closed). Resets happen between the
calls, outside the timing.

Beside it, measured in the same run:

- the PyBullet ``Aviary`` with one ``drone_type="fixedwing"`` acrowing in the same modes
  (one ``Aviary.step()`` runs ``updates_per_step`` physics steps; they are counted), reset
  outside the timing when it sinks below 5 m;
- JSBSim (not a dependency) flying its bundled c172x, trimmed at 1500 ft and 100 kt, in a
  side interpreter (``--jsbsim-python``, default ``/tmp/jsbsim-venv/bin/python``), pinned to
  one core. Its model is far richer (coefficient tables, piston engine, propeller, ground
  reactions): its figure is what a user would pick instead, not an equal fight.

Each cell prints batched / PyBullet (same mode) and batched per core / JSBSim, where "per
core" divides the batched figure by ``numba.get_num_threads()`` (PyBullet and JSBSim run on
one core). Also printed: the first call (import, construction, first step) in a fresh
subprocess with the numba cache as found and, unless ``--quick``, empty; and the state memory
per aircraft. Until the batched fixed-wing engine exists its cells print why they are empty.

    python benchmarks/bench_fixedwing.py [--quick] [--seconds 0.5] [--jsbsim-python PATH]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_batch import cache_files  # noqa: E402  (the sibling script, not a package)

HZ = 240
MODEL = "acrowing"
MODES = (-1, 1, 2)
WORLDS = (1, 64, 1024, 16384)
QUICK_WORLDS = (1, 64, 1024)
START_ALTITUDE = 50.0  # [m]
LOW_ALTITUDE = 5.0  # [m] below this an aircraft is reset (PyBullet) or counted (batched)
# Mode -1: surfaces neutral, 40 % throttle: acrowing then climbs gently (no ground contact).
ACTUATOR_SETPOINT = np.array([0.0, 0.0, 0.0, 0.0, 0.0, 0.4])
# Mode 1's preset holds the spawn attitude with the throttle closed: acrowing glides down
# about 2.5 m/s and reaches 5 m after ~18 s from 50 m, so one timed call flies at most 10 s.
MAX_FLIGHT_SECONDS = 10.0
DEFAULT_JSBSIM_PYTHON = Path("/tmp/jsbsim-venv/bin/python")

FIRST_CALL = f"""
import time
tic = time.perf_counter()
import pyflyt_like.batch
imported = time.perf_counter()
sim = pyflyt_like.batch.BatchedAviary(n_worlds=1, n_drones=1, drone_model="{MODEL}", mode=1,
                                      physics_hz={HZ}, start_pos=[[0.0, 0.0, {START_ALTITUDE}]],
                                      seed=0)
built = time.perf_counter()
sim.step(1)
stepped = time.perf_counter()
print(imported - tic, built - imported, stepped - built)
"""

# Run by the JSBSim interpreter as ``python -c JSBSIM_LOOP <seconds>``; prints one JSON line
# last (JSBSim prints its banner to stdout first).
JSBSIM_LOOP = r"""
import json, os, sys, time
import jsbsim

seconds = float(sys.argv[1])
if hasattr(os, "sched_setaffinity"):  # one core, as the per-core ratio assumes
    os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
fdm = jsbsim.FGFDMExec(None)  # None: the aircraft, engines and systems bundled with the package
fdm.set_debug_level(0)
fdm.load_model("c172x")
fdm.disable_output()  # c172x logs a CSV every step by default: not part of flying it


def start():
    fdm["ic/h-sl-ft"] = 1500.0
    fdm["ic/vc-kts"] = 100.0
    fdm["ic/psi-true-deg"] = 0.0
    fdm["propulsion/set-running"] = -1  # every engine running
    fdm["fcs/throttle-cmd-norm"] = 0.7
    fdm["fcs/mixture-cmd-norm"] = 1.0
    fdm.run_ic()
    try:  # level trim (adjusts throttle and elevator); untrimmed it still flies, descending
        fdm.do_trim(1)
        return True
    except Exception:
        return False


trimmed = start()
for _ in range(120):  # warm-up
    fdm.run()
steps, elapsed, restarts, chunk = 0, 0.0, 0, 1000
while elapsed < seconds:
    tic = time.perf_counter()
    for _ in range(chunk):
        fdm.run()
    elapsed += time.perf_counter() - tic
    steps += chunk
    if fdm["position/h-agl-ft"] < 300.0:  # outside the timing: start again before the ground
        start()
        restarts += 1
print(json.dumps(dict(rate=steps / elapsed, dt=fdm.get_delta_t(), trimmed=trimmed,
                      restarts=restarts, version=jsbsim.__version__,
                      altitude_ft=fdm["position/h-sl-ft"], airspeed_kt=fdm["velocities/vc-kts"])))
"""


def short_error(error: BaseException | str, limit: int = 120) -> str:
    """The first line of an error, at most ``limit`` characters, for a table row."""
    text = error if isinstance(error, str) else f"{type(error).__name__}: {error}"
    line = text.strip().splitlines()[0] if text.strip() else "unknown error"
    return line if len(line) <= limit else line[:limit - 3] + "..."


# ---------------------------------------------------------------------- first call, memory
def first_call(cache_dir: str | None) -> tuple[float, float, float, str] | str:
    """Import, construction and first-step times [s] of the batched acrowing in a fresh
    interpreter and whether the numba cache was warm or cold; or the error (a str) if the
    engine refuses the model."""
    env = dict(os.environ)
    folder = None
    if cache_dir is not None:
        env["NUMBA_CACHE_DIR"] = cache_dir
        folder = Path(cache_dir)
    else:
        try:
            from pyflyt_like.compiled import kernel_cache

            folder = kernel_cache.cache_root()
        except Exception as error:  # an engine mid-rewrite: time it anyway, cache unknown
            print(f"  (cache folder unknown: {short_error(error)})")
    before = cache_files(folder) if folder is not None and folder.is_dir() else {}
    done = subprocess.run([sys.executable, "-c", FIRST_CALL], env=env, capture_output=True,
                          text=True)
    if done.returncode != 0:
        lines = done.stderr.strip().splitlines()
        return lines[-1] if lines else f"exit code {done.returncode}"
    imported, built, stepped = (float(x) for x in done.stdout.split()[-3:])
    after = cache_files(folder) if folder is not None and folder.is_dir() else {}
    if before and after == before:
        cache = "warm (cache found, nothing compiled)"
    else:
        cache = f"cold (compiled, {len(set(after) - set(before))} cache files written)"
    return imported, built, stepped, cache


def state_bytes_per_aircraft(sim) -> float:
    """Bytes of engine state per aircraft: every array in ``sim._state`` and ``sim.plant``
    (named tuples of arrays), divided by W * D. Adapt here if the engine keeps them elsewhere."""
    arrays = [a for group in (sim._state, sim.plant) for a in group
              if isinstance(a, np.ndarray)]
    return sum(a.nbytes for a in arrays) / (sim.n_worlds * sim.n_drones)


# ---------------------------------------------------------------------- the batched engine
def batch_sim(n_worlds: int, mode: int):
    """A batched acrowing engine, one aircraft per world at 50 m, ready to fly."""
    from pyflyt_like.batch import BatchedAviary

    sim = BatchedAviary(n_worlds=n_worlds, n_drones=1, drone_model=MODEL, mode=mode,
                        physics_hz=HZ, control_hz=None,
                        start_pos=np.array([[0.0, 0.0, START_ALTITUDE]]), seed=0)
    restart(sim)
    return sim


def restart(sim) -> None:
    """Reset every world; mode -1 then needs its surfaces and throttle (a reset presets
    zeros), modes 1 and 2 keep the preset that holds the current flight."""
    sim.reset()
    if sim.mode == -1:
        sim.set_setpoints(ACTUATOR_SETPOINT)


def batch_rate(n_worlds: int, mode: int, seconds: float) -> tuple[float, int, int]:
    """Aircraft-steps/s of fused ``step(n)`` calls, ``n``, and how many aircraft were below
    ``LOW_ALTITUDE`` at the end of some call (0 means every timed step was in the air)."""
    sim = batch_sim(n_worlds, mode)
    cap = int(MAX_FLIGHT_SECONDS * HZ)
    sim.step(10)  # warm-up (and the first call's dispatch)
    n, elapsed = 10, 0.0
    while elapsed < 0.2 * seconds and n < cap:  # calibrate n for about ``seconds`` a call
        n = min(4 * n, cap)
        restart(sim)
        tic = time.perf_counter()
        sim.step(n)
        elapsed = time.perf_counter() - tic
    n = max(1, min(cap, int(n * seconds / max(elapsed, 1e-9))))
    total, calls, low = 0.0, 0, 0
    while calls < 2 or total < seconds:  # short calls are repeated up to ``seconds``
        restart(sim)
        tic = time.perf_counter()
        sim.step(n)
        total += time.perf_counter() - tic
        calls += 1
        low = max(low, int((sim.pos[..., 2] < LOW_ALTITUDE).sum()))
    return n_worlds * sim.n_drones * n * calls / total, n, low


def numba_threads() -> int:
    """Threads numba runs the batched kernels on (what "per core" divides by)."""
    import numba  # a core dependency of pyflyt_like

    return int(numba.get_num_threads())


# ---------------------------------------------------------------------- PyBullet
def pybullet_rate(mode: int, seconds: float) -> tuple[float, int, int]:
    """Aircraft-steps/s (physics steps x aircraft per second) of the PyBullet Aviary, the
    physics steps one ``Aviary.step()`` runs, and the resets (below 5 m, not timed)."""
    from pyflyt_like.core import Aviary

    aviary = Aviary(start_pos=np.array([[0.0, 0.0, START_ALTITUDE]]), start_orn=np.zeros((1, 3)),
                    drone_type="fixedwing", drone_options=dict(drone_model=MODEL),
                    physics_hz=HZ, seed=0)
    try:
        aviary.set_mode(mode)

        def start() -> None:
            if mode == -1:  # a reset presets zeros in mode -1
                aviary.set_setpoint(0, ACTUATOR_SETPOINT)

        start()
        for _ in range(50):
            aviary.step()
        chunk, count, elapsed, resets = 50, 0, 0.0, 0
        while elapsed < seconds:
            tic = time.perf_counter()
            for _ in range(chunk):
                aviary.step()
            elapsed += time.perf_counter() - tic
            count += chunk
            if aviary.drones[0].state[3][2] < LOW_ALTITUDE:  # outside the timing
                aviary.reset()
                start()
                resets += 1
        per_step = aviary.updates_per_step  # physics steps in one Aviary.step()
        return count * per_step * aviary.num_drones / elapsed, per_step, resets
    finally:
        aviary.close()


# ---------------------------------------------------------------------- JSBSim
def find_jsbsim_python(path: str | None) -> Path | None:
    """The interpreter to run JSBSim in: ``path``, else the default side venv, else None."""
    if path is not None:
        candidate = Path(path)
        if not candidate.is_file():
            raise ValueError(f"--jsbsim-python must be a Python interpreter with jsbsim "
                             f"installed, got {path!r} (no such file)")
        return candidate
    return DEFAULT_JSBSIM_PYTHON if DEFAULT_JSBSIM_PYTHON.is_file() else None


def jsbsim_rate(python: Path, seconds: float) -> dict | str:
    """JSBSim c172x steps/s on one core (dict with ``rate``, ``dt`` [s], ...) or the error."""
    with tempfile.TemporaryDirectory(prefix="bench_fixedwing_jsbsim_") as folder:
        # In a scratch folder: any file JSBSim writes to its working directory lands there.
        done = subprocess.run([str(python), "-c", JSBSIM_LOOP, str(seconds)], cwd=folder,
                              capture_output=True, text=True, timeout=600 + 10 * seconds)
    if done.returncode != 0:
        lines = done.stderr.strip().splitlines()
        return lines[-1] if lines else f"exit code {done.returncode}"
    try:
        return json.loads(done.stdout.strip().splitlines()[-1])
    except (IndexError, json.JSONDecodeError):
        return f"unreadable output: {done.stdout[-200:]!r}"


# ---------------------------------------------------------------------- report
def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true",
                        help="short run: 0.1 s per cell, no 16384 worlds, no cold compile")
    parser.add_argument("--seconds", type=float, default=None,
                        help="wall time per batched cell [s] (default 0.5, quick 0.1); "
                             "PyBullet and JSBSim get 4x")
    parser.add_argument("--jsbsim-python", default=None, metavar="PATH",
                        help="interpreter with jsbsim installed (default "
                             f"{DEFAULT_JSBSIM_PYTHON} if present, else JSBSim is skipped)")
    args = parser.parse_args()
    if args.seconds is not None and not args.seconds > 0:
        parser.error(f"--seconds must be > 0, got {args.seconds}")
    seconds = args.seconds or (0.1 if args.quick else 0.5)
    worlds = QUICK_WORLDS if args.quick else WORLDS
    try:
        jsbsim_python = find_jsbsim_python(args.jsbsim_python)
    except ValueError as error:
        parser.error(str(error))
    threads = numba_threads()
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, python "
          f"{platform.python_version()}, numba threads {threads}; {MODEL}, physics {HZ} Hz, "
          f"the model's control rate, 1 aircraft per world, start {START_ALTITUDE:g} m")

    print("\nfirst call of the batched acrowing in a fresh process [s]: import, construction, "
          "first step")
    cases = [("numba cache as found", None)]
    if not args.quick:
        cases.append(("empty numba cache", tempfile.mkdtemp(prefix="bench_fixedwing_cache_")))
    for label, cache_dir in cases:
        result = first_call(cache_dir)
        if isinstance(result, str):
            print(f"  {label:<21} batched fixed-wing engine not available: {short_error(result)}")
            continue
        imported, built, stepped, cache = result
        print(f"  {label:<21} {imported:6.2f} {built:6.2f} {stepped:6.2f}  total "
              f"{imported + built + stepped:6.2f}  {cache}")

    try:
        memory = f"{state_bytes_per_aircraft(batch_sim(1024, 1)):.0f} bytes " \
                 "(sim._state + sim.plant, 1024 worlds)"
    except Exception as error:
        memory = f"batched fixed-wing engine not available: {short_error(error)}"
    print(f"\nstate memory per aircraft: {memory}")

    pybullet = {}
    for mode in MODES:
        rate, per_step, resets = pybullet_rate(mode, 4 * seconds)
        pybullet[mode] = rate
        print(f"PyBullet mode {mode:>2}: {rate:,.0f} aircraft-steps/s ({per_step} physics steps "
              f"per Aviary.step(), {resets} resets below {LOW_ALTITUDE:g} m, untimed)")

    jsbsim = None
    if jsbsim_python is None:
        print(f"\nJSBSim: skipped (no {DEFAULT_JSBSIM_PYTHON}; make one with `python3 -m venv "
              "/tmp/jsbsim-venv && /tmp/jsbsim-venv/bin/pip install jsbsim numpy` or pass "
              "--jsbsim-python PATH)")
    else:
        result = jsbsim_rate(jsbsim_python, 4 * seconds)
        if isinstance(result, str):
            print(f"\nJSBSim: failed in {jsbsim_python}: {short_error(result)}")
        else:
            jsbsim = result
            trim = "trimmed level" if result["trimmed"] else "untrimmed"
            print(f"\nJSBSim {result['version']} c172x, 1 core, dt {result['dt']:.6f} s "
                  f"({1 / result['dt']:.0f} Hz), {trim} at 1500 ft / 100 kt: "
                  f"{result['rate']:,.0f} steps/s "
                  f"({result['rate'] * result['dt']:,.0f} simulated s per s)")
            print("  JSBSim's model is far richer (coefficient tables, piston engine, "
                  "propeller, ground reactions): its figure is what a user would pick "
                  "instead, not an equal fight. Its steps are also "
                  f"{result['dt'] * HZ:g}x as long as ours (1/{HZ} s).")

    print(f"\nper core = batched figure / {threads} numba threads (conservative where fewer "
          "worlds than threads leave some idle); PyBullet and JSBSim run on one core")
    print(f"{'mode':>4} {'worlds':>6} {'steps/call':>10} {'aircraft-steps/s':>17} "
          f"{'x PyBullet':>10} {'per core':>14} {'x JSBSim/core':>13} {'low':>5}")
    for mode in MODES:
        print(f"{mode:>4} {'PyBul.':>6} {'-':>10} {pybullet[mode]:>17,.0f} {1.0:>10.2f} "
              f"{pybullet[mode]:>14,.0f} "
              f"{(pybullet[mode] / jsbsim['rate'] if jsbsim else float('nan')):>13.2f} "
              f"{'-':>5}")
        for n_worlds in worlds:
            try:
                rate, n, low = batch_rate(n_worlds, mode, seconds)
            except Exception as error:
                print(f"{mode:>4} {n_worlds:>6} batched fixed-wing engine not available: "
                      f"{short_error(error, 80)}")
                continue
            per_core = rate / threads
            versus_jsbsim = per_core / jsbsim["rate"] if jsbsim else float("nan")
            print(f"{mode:>4} {n_worlds:>6} {n:>10} {rate:>17,.0f} "
                  f"{rate / pybullet[mode]:>10.1f} {per_core:>14,.0f} {versus_jsbsim:>13.1f} "
                  f"{low:>5}")
    print(f"low: aircraft below {LOW_ALTITUDE:g} m at the end of a timed call (0: all airborne)")


if __name__ == "__main__":
    main()
