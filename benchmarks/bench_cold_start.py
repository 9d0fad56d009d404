"""Cold start: how long a new user waits for the first step of each batched engine and task.

Each case runs a snippet (import, construction, reset where there is one, and the first step)
in a new ``python -c`` process and times it there with ``time.perf_counter`` from before its
imports to after its first step; the parent also records the process's wall time (which adds
the interpreter's start and exit). The cold column is the first run of every case, in order,
in one fresh numba cache: ``XDG_CACHE_HOME`` points at a new empty folder (the package caches
its kernels under ``$XDG_CACHE_HOME/pyflyt_like/numba/``, pyflyt_like.compiled.kernel_cache)
and ``NUMBA_CACHE_DIR`` is removed from the children's environment. The cases share that
cache as a user running them in sequence would, so a case may load kernels an earlier one
compiled. The warm column runs every snippet again afterwards, each in a new process, with
the now-warm cache. Also counted: the numba machine-code files (``*.nbc``) each run wrote.
The user's own cache is never read nor written.

    python benchmarks/bench_cold_start.py [--cases hover-64 dogfight-64 ...] [--json FILE]
                                          [--keep-cache DIR] [--skip-warm]

A full run takes several minutes; the cases always run in the order listed below.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

MARKER = "COLD_START_SECONDS"

ENGINE = """\
from pyflyt_like.batch import BatchedAviary
BatchedAviary(n_worlds=64, drone_model={model!r}, mode=1).step(1)
"""

VECTOR = """\
import gymnasium, numpy as np, pyflyt_like.envs
e = gymnasium.make_vec({env_id!r}, num_envs={num_envs},
                       vectorization_mode="vector_entry_point")
e.reset(seed=0)
e.step(e.action_space.sample())
"""

MA_DOGFIGHT = """\
from pyflyt_like.envs.dogfight.scene import MAFixedwingDogfightEnv
env = MAFixedwingDogfightEnv(team_size=2)
env.reset(seed=0)
env.step({agent: env.action_space(agent).sample() for agent in env.agents})
"""


@dataclass(frozen=True)
class Case:
    """One measured snippet: a short name for ``--cases``, a label for the table, the code."""

    slug: str
    label: str
    snippet: str


def vector_case(slug: str, name: str, num_envs: int) -> Case:
    """The ``gymnasium.make_vec`` case of the registered id ``pyflyt_like/<name>-v0``."""
    env_id = f"pyflyt_like/{name}-v0"
    return Case(slug, f"{name}-v0, {num_envs} envs",
                VECTOR.format(env_id=env_id, num_envs=num_envs))


CASES = (
    Case("engine-multirotor", "BatchedAviary multirotor, 64 worlds",
         ENGINE.format(model="crazyflie21")),
    Case("engine-fixedwing", "BatchedAviary fixed-wing, 64 worlds",
         ENGINE.format(model="acrowing")),
    vector_case("hover-64", "Multirotor-Hover", 64),
    vector_case("hover-4096", "Multirotor-Hover", 4096),
    vector_case("reach-64", "Multirotor-Reach", 64),
    vector_case("track-64", "Multirotor-Track", 64),
    vector_case("land-64", "Multirotor-Land", 64),
    vector_case("navigate-64", "Multirotor-Navigate", 64),
    # self-play with the default team_size=2: 4 learning aircraft per world, 16 worlds
    vector_case("dogfight-64", "Dogfight", 64),
    vector_case("fixedwing-reach-64", "Fixedwing-Reach", 64),
    Case("ma-dogfight", "MAFixedwingDogfightEnv(team_size=2) reset + step", MA_DOGFIGHT),
)
"""Every case, in the order they run (a later one may reuse an earlier one's kernels)."""


class ChildFailed(RuntimeError):
    """A case's process exited non-zero or printed no time."""


def child_code(snippet: str) -> str:
    """``snippet`` between two ``time.perf_counter`` reads, printing the difference [s]."""
    return (f"import time as _time\n_tic = _time.perf_counter()\n{snippet}"
            f"print({MARKER!r}, repr(_time.perf_counter() - _tic), flush=True)\n")


def child_env(cache_home: Path) -> dict[str, str]:
    """The environment of a child: ours with ``XDG_CACHE_HOME`` set to ``cache_home`` and
    without ``NUMBA_CACHE_DIR`` (which would take precedence over the package's cache)."""
    env = dict(os.environ)
    env.pop("NUMBA_CACHE_DIR", None)
    env["XDG_CACHE_HOME"] = str(cache_home)
    return env


def machine_code_files(cache_home: Path) -> dict[str, tuple[float, int]]:
    """numba machine-code files (``*.nbc``) of the package's cache under ``cache_home``, with
    their modification times and sizes."""
    folder = cache_home / "pyflyt_like" / "numba"
    if not folder.is_dir():
        return {}
    return {str(p): (p.stat().st_mtime, p.stat().st_size) for p in folder.rglob("*.nbc")}


def run_case(case: Case, cache_home: Path) -> dict[str, float | int]:
    """Run ``case`` in a new process with its cache in ``cache_home``.

    Returns the child's own time (``seconds``, imports to first step), the process's wall
    time (``wall``) and the machine-code files it wrote or rewrote (``written``).

    Raises:
        ChildFailed: the process failed; the message is the last line of its stderr.
    """
    before = machine_code_files(cache_home)
    tic = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", child_code(case.snippet)],
                          env=child_env(cache_home), capture_output=True, text=True)
    wall = time.perf_counter() - tic
    after = machine_code_files(cache_home)
    if proc.returncode != 0:
        lines = proc.stderr.strip().splitlines() or [f"exit status {proc.returncode}"]
        raise ChildFailed(f"{case.slug}: {lines[-1]}")
    seconds = [line.split()[1] for line in proc.stdout.splitlines() if line.startswith(MARKER)]
    if not seconds:
        raise ChildFailed(f"{case.slug}: the child printed no {MARKER} line")
    written = sum(1 for path, stamp in after.items() if before.get(path) != stamp)
    return {"seconds": float(seconds[-1]), "wall": wall, "written": written}


def write_json_atomic(path: Path, data: dict) -> None:
    """Write ``data`` to ``path`` through a temporary file in the same folder and
    ``os.replace``, so a reader never sees a partial file."""
    path = path.resolve()
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w") as f:
            json.dump(data, f, indent=2)
            f.write("\n")
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def print_table(rows: list[dict], warm: bool) -> None:
    """The results: child time and wall time, cold and warm, and the files written."""
    width = max(len("case"), *(len(row["label"]) for row in rows))
    header = f"{'case':<{width}} {'cold [s]':>9} {'wall':>7} {'.nbc':>5}"
    if warm:
        header += f" {'warm [s]':>9} {'wall':>7} {'.nbc':>5}"
    print(header)
    for row in rows:
        cold = row["cold"]
        line = (f"{row['label']:<{width}} {cold['seconds']:>9.2f} {cold['wall']:>7.2f} "
                f"{cold['written']:>5}")
        if warm:
            hot = row["warm"]
            line += f" {hot['seconds']:>9.2f} {hot['wall']:>7.2f} {hot['written']:>5}"
        print(line)
    total = sum(row["cold"]["seconds"] for row in rows)
    total_wall = sum(row["cold"]["wall"] for row in rows)
    line = f"{'total':<{width}} {total:>9.2f} {total_wall:>7.2f}"
    if warm:
        warm_total = sum(row["warm"]["seconds"] for row in rows)
        warm_wall = sum(row["warm"]["wall"] for row in rows)
        line += f" {'':>5} {warm_total:>9.2f} {warm_wall:>7.2f}"
    print(line)


def run_reported(case: Case, cache_home: Path, phase: str) -> dict[str, float | int]:
    """:func:`run_case` with a progress line (``phase`` is "cold" or "warm")."""
    print(f"{phase} {case.slug} ...", end=" ", flush=True)
    try:
        result = run_case(case, cache_home)
    except ChildFailed:
        print("failed", flush=True)
        raise
    print(f"{result['seconds']:.2f} s", flush=True)
    return result


def measure(cases: list[Case], cache_home: Path, warm: bool) -> list[dict]:
    """Every case cold, in order, then (``warm``) every case again; one row per case."""
    rows = [{"slug": case.slug, "label": case.label,
             "cold": run_reported(case, cache_home, "cold")} for case in cases]
    if warm:
        for case, row in zip(cases, rows):
            row["warm"] = run_reported(case, cache_home, "warm")
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    slugs = [case.slug for case in CASES]
    parser.add_argument("--cases", nargs="+", metavar="NAME", choices=slugs,
                        help=f"run only these cases (always in the listed order): "
                             f"{', '.join(slugs)}")
    parser.add_argument("--json", type=Path, metavar="FILE",
                        help="also write the results as JSON to FILE")
    parser.add_argument("--keep-cache", type=Path, metavar="DIR",
                        help="use DIR as XDG_CACHE_HOME and keep it (default: a new "
                             "temporary folder, deleted after the run)")
    parser.add_argument("--skip-warm", action="store_true",
                        help="only the cold runs")
    args = parser.parse_args()
    if args.json is not None:  # proved writable before minutes of measuring, not after
        from pyflyt_like.common.atomic_files import check_file_destination

        try:
            check_file_destination(args.json, ".json", "--json")
        except (OSError, ValueError) as error:
            parser.exit(2, f"{parser.prog}: error: {error}\n")  # one line, as argparse's
    cases = [case for case in CASES if args.cases is None or case.slug in args.cases]
    warm = not args.skip_warm

    if args.keep_cache is not None:
        cache_home = args.keep_cache.resolve()
        cache_home.mkdir(parents=True, exist_ok=True)
    else:
        cache_home = Path(tempfile.mkdtemp(prefix="bench_cold_start_"))
    date = datetime.datetime.now().astimezone().isoformat(timespec="seconds")
    print(f"date: {date}; machine: {platform.machine()}, {os.cpu_count()} cores, python "
          f"{platform.python_version()}")
    print(f"cache (XDG_CACHE_HOME): {cache_home}"
          f"{'' if args.keep_cache is not None else ' (temporary)'}")
    existing = len(machine_code_files(cache_home))
    if existing:
        print(f"note: the cache already holds {existing} machine-code files; the cold column "
              f"is not from an empty cache")
    try:
        rows = measure(cases, cache_home, warm)
    except ChildFailed as error:
        sys.exit(f"case failed: {error}")
    finally:
        if args.keep_cache is None:
            shutil.rmtree(cache_home, ignore_errors=True)

    print("\nimport + construct + first step, each in a new process [s]; wall: the whole "
          "process; .nbc: machine-code files written")
    print_table(rows, warm)
    if args.json is not None:
        write_json_atomic(args.json, {
            "date": date, "cores": os.cpu_count(), "machine": platform.machine(),
            "python": platform.python_version(), "cache_home": str(cache_home),
            "cache_kept": args.keep_cache is not None, "preexisting_nbc_files": existing,
            "cases": rows,
            "total_cold_seconds": sum(row["cold"]["seconds"] for row in rows),
        })
        print(f"\nwrote {args.json}")


if __name__ == "__main__":
    main()
