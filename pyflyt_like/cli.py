"""The ``pyflyt-like`` command line tool.

Subcommands live in :data:`COMMANDS`: each entry names a function that adds the
subcommand's options to its parser and a function that runs it and returns the exit code.
A new subcommand (e.g. a mission runner) is one more entry. Running ``pyflyt-like`` with no
subcommand, or with options only, runs ``demo``.

Exit codes: 0 success; 1 the run failed (a waypoint was not reached, the GUI could not open,
the simulation raised, the report could not be written after the flight); 2 bad input found
before running (command-line arguments, the mission file, where the results would go).
Errors are one line on stderr.
"""

from __future__ import annotations

import argparse
import contextlib
import math
import os
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from . import __version__
from .core.utils.quiet import quiet_native_output  # loads the core: PyBullet's banner hidden

PROG = "pyflyt-like"
DEFAULT_COMMAND = "demo"


class UsageError(Exception):
    """A mistake in the command line that argparse's own checks do not catch (exit 2)."""


class CommandError(Exception):
    """An expected failure of a run, reported as one line (exit 1)."""


class _Parser(argparse.ArgumentParser):
    """An ArgumentParser whose errors are a single line on stderr and exit code 2."""

    def error(self, message: str):
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def _non_negative_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be an integer >= 0, got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be an integer >= 0, got {value}")
    return value


# --------------------------------------------------------------------------- demo
# Waypoints of the demo: x [m], y [m], z [m], yaw [rad] (ground frame, ENU).
DEMO_START = (0.0, 0.0, 1.0)
DEMO_WAYPOINTS = (
    (1.0, 0.0, 1.0, 0.0),
    (1.0, 1.0, 1.5, 0.0),
    (0.0, 1.0, 1.0, 1.57),
    (0.0, 0.0, 1.0, 0.0),
)
DEMO_TOLERANCE = 0.1  # m, distance at which a waypoint counts as reached
DEMO_TIMEOUT = 5.0  # s of simulated time allowed per waypoint


@dataclass
class WaypointResult:
    """How the drone did on one waypoint."""

    target: tuple[float, float, float, float]  # x, y, z [m], yaw [rad]
    reached: bool
    time: float  # s from commanding the waypoint to reaching it (or to the timeout)
    error: float  # m, distance to the target when the demo moved on


def fly_waypoints(seed: int, render: bool = False,
                  waypoints: Sequence[tuple[float, float, float, float]] = DEMO_WAYPOINTS,
                  tolerance: float = DEMO_TOLERANCE,
                  timeout: float = DEMO_TIMEOUT) -> list[WaypointResult]:
    """Fly one QuadX in mode 7 through ``waypoints`` and report each one.

    The next waypoint is commanded as soon as the drone is within ``tolerance`` metres of
    the current one, or after ``timeout`` seconds of simulated time.
    """
    import numpy as np

    # The GUI's own messages stay visible: PyBullet ends the process if it cannot open a window.
    with contextlib.nullcontext() if render else quiet_native_output():
        import pybullet

        from .core import Aviary

        try:
            aviary = Aviary(start_pos=np.array([DEMO_START]), start_orn=np.zeros((1, 3)),
                            render=render, seed=seed)
        except pybullet.error as error:
            if render:
                raise CommandError(f"could not open PyBullet's GUI window ({error})") from None
            raise
    results = []
    with aviary:
        aviary.set_mode(7)
        for x, y, z, yaw in waypoints:
            target = np.array((x, y, z))
            aviary.set_setpoint(0, np.array((x, y, yaw, z)))  # mode 7 order: x, y, yaw, z
            start = aviary.elapsed_time
            while True:
                aviary.step()
                error = float(np.linalg.norm(aviary.state(0)[3] - target))
                elapsed = aviary.elapsed_time - start
                if error < tolerance or elapsed >= timeout:
                    break
            results.append(WaypointResult((x, y, z, yaw), error < tolerance, elapsed, error))
    return results


def format_results(results: Sequence[WaypointResult]) -> str:
    """Return the demo's table, one row per waypoint, columns right-aligned."""
    header = ("waypoint", "x [m]", "y [m]", "z [m]", "yaw [rad]", "reached", "time [s]",
              "error [m]")
    rows = [header]
    for number, result in enumerate(results, start=1):
        x, y, z, yaw = result.target
        rows.append((str(number), f"{x:.2f}", f"{y:.2f}", f"{z:.2f}", f"{yaw:.2f}",
                     "yes" if result.reached else "no",
                     f"{result.time:.2f}" if result.reached else f">{result.time:.2f}",
                     f"{result.error:.3f}"))
    widths = [max(len(row[i]) for row in rows) for i in range(len(header))]
    return "\n".join("  ".join(cell.rjust(width) for cell, width in zip(row, widths, strict=True))
                     for row in rows)


def _add_demo_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--seed", type=_non_negative_int, default=0, metavar="N",
                        help="seed of the simulation's random generator (default: 0)")
    parser.add_argument("--gui", action="store_true",
                        help="watch the flight in PyBullet's window (runs in real time)")


def _run_demo(args: argparse.Namespace) -> int:
    from .core.utils.display import display_available  # loads pybullet: only when flying

    if args.gui and not display_available():
        raise CommandError("--gui needs a display, but DISPLAY is not set")
    results = fly_waypoints(seed=args.seed, render=args.gui)
    x, y, z = DEMO_START
    print(f"QuadX, flight mode 7 (position), seed {args.seed}, start ({x:g}, {y:g}, {z:g}); "
          f"a waypoint is reached within {DEMO_TOLERANCE:g} m (timeout {DEMO_TIMEOUT:g} s)")
    print(format_results(results))
    reached = sum(r.reached for r in results)
    total_time = math.fsum(r.time for r in results)
    print(f"reached {reached} of {len(results)} waypoints in {total_time:.2f} s of flight")
    return 0 if reached == len(results) else 1


# --------------------------------------------------------------------------- dispatch
@dataclass(frozen=True)
class Command:
    """A subcommand: its name, one-line help, how to add its options, how to run it."""

    name: str
    help: str
    add_arguments: Callable[[argparse.ArgumentParser], None]
    run: Callable[[argparse.Namespace], int]


def _add_fly_arguments(parser: argparse.ArgumentParser) -> None:
    from .missions.command import add_arguments
    add_arguments(parser)


def _run_quietly(run: Callable[..., int], args: argparse.Namespace) -> int:
    """``run`` with PyBullet's C banners hidden: the process's own stdout/stderr go to the
    null device while flying, and the command reports through duplicates of them."""
    sys.stdout.flush()
    with os.fdopen(os.dup(1), "w") as out, os.fdopen(os.dup(2), "w") as err:
        with quiet_native_output():
            return run(args, UsageError, CommandError, out, err)


def _run_fly(args: argparse.Namespace) -> int:
    import functools

    from .missions.command import run

    if args.rerun is not None:  # the viz extra; missions may not import integrations
        try:
            from .integrations.rerun.mission_recorder import MissionRecorder
        except ImportError as error:
            raise UsageError(f"--rerun: {error}") from None
        run = functools.partial(run, rerun_recorder=MissionRecorder)
    if args.gui:
        return run(args, UsageError, CommandError, sys.stdout, sys.stderr)
    return _run_quietly(run, args)


def _add_sweep_arguments(parser: argparse.ArgumentParser) -> None:
    from .missions.sweep_command import add_arguments
    add_arguments(parser)


def _run_sweep(args: argparse.Namespace) -> int:
    from .missions.sweep_command import run

    return _run_quietly(run, args)


def _add_replay_arguments(parser: argparse.ArgumentParser) -> None:
    from .integrations.rerun.replay_command import add_arguments
    add_arguments(parser)


def _run_replay(args: argparse.Namespace) -> int:
    from .integrations.rerun.replay_command import run

    return run(args, UsageError, CommandError, sys.stdout)


def _add_compile_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("names", nargs="*", metavar="NAME",
                        help="kernel targets to compile (see --list)")
    parser.add_argument("--all", action="store_true", help="compile every target")
    parser.add_argument("--list", action="store_true", help="list the targets and exit")


def _run_compile(args: argparse.Namespace) -> int:
    from .compiled import kernel_cache
    from .envs.precompile import TARGETS, check_target_names, compile_targets

    if args.list:
        for target in TARGETS.values():
            print(f"{target.name:28s} {target.used_by}")
        return 0
    if args.all == bool(args.names):
        raise UsageError("give kernel target names or --all (--list shows the targets)")
    try:
        names = list(TARGETS) if args.all else check_target_names(args.names)
    except ValueError as error:
        raise UsageError(str(error)) from None
    kernel_cache.NOTICE.said = True  # this command reports what it compiles itself
    root = kernel_cache.PackageCacheLocator.root

    def progress(i: int, n: int, name: str) -> None:
        bar = "#" * (20 * i // n) + "." * (20 - 20 * i // n)
        print(f"[{bar}] {i + 1}/{n} {name} ...", file=sys.stderr, flush=True)

    results = compile_targets(names, progress)
    print(f"{'target':28s} {'seconds':>8s}  what")
    for result in results:
        what = (f"compiled {result.compiled} functions" if result.compiled
                else "loaded from the cache")
        print(f"{result.name:28s} {result.seconds:8.1f}  {what}")
    total = sum(result.seconds for result in results)
    print(f"{'total':28s} {total:8.1f}  cached in {root or 'a temporary folder (not kept)'}")
    return 0


COMMANDS: tuple[Command, ...] = (
    Command("fly", "fly a waypoint mission file (or the bundled one) and write its report",
            _add_fly_arguments, _run_fly),
    Command("sweep", "fly a mission over a grid of parameter values (on Ray) into one CSV",
            _add_sweep_arguments, _run_sweep),
    Command("replay", "turn mission flight logs (CSV) into a Rerun recording (viz extra)",
            _add_replay_arguments, _run_replay),
    Command("demo", "fly a QuadX through four waypoints (headless unless --gui) and report",
            _add_demo_arguments, _run_demo),
    Command("compile", "compile the batched engine's and tasks' kernels ahead of time",
            _add_compile_arguments, _run_compile),
)


def build_parser() -> argparse.ArgumentParser:
    """Return the parser of ``pyflyt-like`` with every subcommand of :data:`COMMANDS`."""
    parser = _Parser(prog=PROG, description="pyflyt_like: UAV simulation on PyBullet.",
                     epilog=f"With no command, runs '{DEFAULT_COMMAND}'. "
                            "Exit codes: 0 ok, 1 run failed, 2 bad arguments.")
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for command in COMMANDS:
        sub = subparsers.add_parser(command.name, help=command.help, description=command.help)
        command.add_arguments(sub)
        sub.set_defaults(run=command.run)
    return parser


def _with_default_command(argv: list[str]) -> list[str]:
    """Prepend the default command when ``argv`` names none (empty, or options only)."""
    if not argv or (argv[0].startswith("-") and argv[0] not in ("-h", "--help", "--version")):
        return [DEFAULT_COMMAND, *argv]
    return argv


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``pyflyt-like`` with ``argv`` (default: ``sys.argv[1:]``); return the exit code."""
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
    try:
        args = parser.parse_args(_with_default_command(argv))
    except SystemExit as exit_:  # --help, --version, or a parse error already reported
        return exit_.code if isinstance(exit_.code, int) else 2
    try:
        return args.run(args)
    except UsageError as error:
        print(f"{PROG} {args.command}: error: {error}", file=sys.stderr)
        return 2
    except CommandError as error:
        print(f"{PROG} {args.command}: error: {error}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"{PROG} {args.command}: interrupted", file=sys.stderr)
        return 130
    except Exception as error:  # a failed run: one line, no traceback
        print(f"{PROG} {args.command}: error: {type(error).__name__}: {error}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
