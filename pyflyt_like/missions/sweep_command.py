"""The ``pyflyt-like sweep`` subcommand: fly a mission over a parameter grid, write a CSV.

Everything that can be known before flying is checked first, each problem a one-line usage
error (exit 2): the options, the mission, every grid point, where the table goes (the
folder is created and a trial file written there), whether Ray is there. Flown results are
never dropped: a table that cannot be written at the end goes to a fallback file (or, if
none can be written, to stdout), and a sweep stopped early (Ctrl-C, Ray failing) writes
the rows of the points that finished before it stops.
"""

from __future__ import annotations

import argparse
import contextlib
from pathlib import Path
from typing import Any, TextIO

from .default_mission import DEFAULT_MISSION_YAML
from .mission import Mission, MissionError
from .mission_yaml import load_mission_file, load_mission_text
from .sweep_flying import check_ray_address, run_sweep
from .sweep_grid import SweepPoint, check_flight_seed, grid_points
from .sweep_parameters import SweepError, SweepParameter
from .sweep_table import (
    check_table_path,
    claim_table_path,
    path_text,
    save_table,
    write_sweep_table,
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``pyflyt-like sweep``."""
    parser.add_argument("mission", nargs="?", metavar="MISSION.yaml",
                        help="mission file (default: the bundled default mission)")
    parser.add_argument("--param", action="append", default=[], metavar="NAME=V1,V2",
                        help="a grid axis, repeatable: a mission field (duration_limit, "
                             "wind.velocity), a vehicle field set on every vehicle (speed, "
                             "model), vehicles.N.FIELD, or seed; values as a YAML list")
    parser.add_argument("--output", metavar="FILE.csv", default=None,
                        help="the summary table (default: output/<mission name>_sweep.csv)")
    parser.add_argument("--seed", type=int, default=0, metavar="N",
                        help="seed of every flight unless seed is a --param: an integer in "
                             "[0, 2**63) (default: 0)")
    parser.add_argument("--address", metavar="ADDRESS", default=None,
                        help="join this Ray cluster ('auto', 'HOST:PORT'); default: start a "
                             "local Ray instance for the sweep")
    parser.add_argument("--serial", action="store_true",
                        help="fly the points one after another in this process, without Ray")


def run(args: argparse.Namespace, usage_error: type[Exception],
        command_error: type[Exception], out: TextIO, err: TextIO) -> int:
    """Fly the grid; exit 0 when every point flew (completed or not), 1 when a point could
    not be flown (its row holds the error). Bad input raises ``usage_error`` (exit 2) before
    anything flies; a table that cannot be written where asked raises ``command_error``
    (exit 1) once it has been saved elsewhere."""
    try:
        check_flight_seed("--seed", args.seed)
        if args.serial and args.address is not None:
            raise SweepError("--serial flies without Ray; it cannot be combined with --address")
        check_ray_address("--address", args.address)
        if not args.param:
            raise SweepError("give at least one --param NAME=V1,V2,...")
        if args.mission is None:
            data, source = load_mission_text(DEFAULT_MISSION_YAML, "<default>"), "<default>"
        else:
            data, source = load_mission_file(args.mission), args.mission
        mission = Mission.from_dict(data, source=source)  # the file itself, before the grid
        parameters = [SweepParameter.parse(text) for text in args.param]
        points = grid_points(data, parameters, seed=args.seed, source=source)
        output = check_table_path("--output", Path("output") / f"{mission.name}_sweep.csv"
                                  if args.output is None else args.output)
    except (MissionError, SweepError) as error:
        raise usage_error(str(error)) from None
    if not args.serial:
        try:
            import ray  # noqa: F401
        except ImportError:
            raise usage_error('sweeping on Ray needs the ray extra: pip install '
                              '"pyflyt_like[ray]" (or add --serial)') from None
    try:
        claim_table_path("--output", output)
    except SweepError as error:
        raise usage_error(str(error)) from None

    where = "in this process" if args.serial else (
        f"on the Ray cluster at {args.address}" if args.address else "on a local Ray instance")
    _say(out, f"sweep of mission {mission.name!r}: {len(points)} points {where}")
    finished: dict[int, list[dict[str, Any]]] = {}

    def report(point: SweepPoint, rows: list[dict[str, Any]]) -> None:
        finished[point.index] = rows
        _say(err, f"[{len(finished)}/{len(points)}] {point.label}: {_outcome(rows)}")

    try:
        rows = run_sweep(points, address=args.address, serial=args.serial, on_point=report)
    except BaseException:  # Ctrl-C, Ray failing: keep what flew, then stop as asked
        if finished:
            _save_partial(finished, len(points), parameters, output, out, err)
        raise
    failed = sorted({row["point"] for row in rows if row["error"]})
    completed = len({row["point"] for row in rows if row["completed"]})
    _say(out, f"{completed} of {len(points)} points completed the mission"
              + (f"; {len(failed)} could not be flown: points {failed}" if failed else ""))
    saved = save_table(rows, parameters, output)
    if saved.failure is None:
        _say(out, f"wrote {path_text(output)}")
        return 1 if failed else 0
    if saved.path is None:
        write_sweep_table(out, rows, parameters)
        out.flush()
        raise command_error(f"cannot write the table to {path_text(output)} "
                            f"({saved.failure}), nor to a file in the current or the "
                            "temporary folder: it is printed on stdout")
    raise command_error(f"cannot write the table to {path_text(output)} ({saved.failure}); "
                        f"saved it to {path_text(saved.path)} instead")


def _save_partial(finished: dict[int, list[dict[str, Any]]], count: int,
                  parameters: list[SweepParameter], output: Path, out: TextIO,
                  err: TextIO) -> None:
    rows = [row for index in sorted(finished) for row in finished[index]]
    saved = save_table(rows, parameters, output)
    if saved.path is None:
        write_sweep_table(out, rows, parameters)
        where = "stdout (no file could be written)"
    else:
        where = path_text(saved.path)
    _say(err, f"the sweep stopped after {len(finished)} of {count} points; their rows are "
              f"in {where}")


def _say(stream: TextIO, line: str) -> None:
    """Print a line, best effort: a closed pipe or an unencodable character in a progress
    line must not stop a sweep and lose its results."""
    line = line.encode("utf-8", "backslashreplace").decode("utf-8")  # a file name's bytes
    with contextlib.suppress(OSError, ValueError):  # a closed stream raises ValueError
        print(line, file=stream)
        stream.flush()


def _outcome(rows: list[dict[str, Any]]) -> str:
    if rows[0]["error"]:
        return f"failed: {rows[0]['error']}"
    status = "completed" if rows[0]["completed"] else "NOT completed"
    worst = max(row["max_error"] for row in rows)
    return f"{status} in {rows[0]['duration']:.1f} s, max error {worst:.3f} m"
