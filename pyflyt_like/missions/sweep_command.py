"""The ``pyflyt-like sweep`` subcommand: fly a mission over a parameter grid, write a CSV."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any, TextIO

from .default_mission import DEFAULT_MISSION_YAML
from .mission import Mission, MissionError
from .mission_yaml import load_mission_file, load_mission_text
from .output_files import ReportError, check_output_folder, prepare_folder
from .sweep import SweepError, SweepParameter, grid_points, run_sweep, write_sweep_csv


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
                        help="seed of every flight unless seed is a --param (default: 0)")
    parser.add_argument("--address", metavar="ADDRESS", default=None,
                        help="join this Ray cluster ('auto', 'HOST:PORT'); default: start a "
                             "local Ray instance for the sweep")
    parser.add_argument("--serial", action="store_true",
                        help="fly the points one after another in this process, without Ray")


def run(args: argparse.Namespace, usage_error: type[Exception],
        command_error: type[Exception], out: TextIO, err: TextIO) -> int:
    """Fly the grid; exit 0 when every point flew (completed or not), 1 when a point could
    not be flown (its row holds the error). Bad input raises ``usage_error`` (exit 2) before
    anything flies; a table that cannot be written raises ``command_error`` (exit 1)."""
    if args.seed < 0:
        raise usage_error(f"--seed must be >= 0, got {args.seed}")
    if args.serial and args.address is not None:
        raise usage_error("--serial flies without Ray; it cannot be combined with --address")
    if not args.param:
        raise usage_error("give at least one --param NAME=V1,V2,...")
    try:
        if args.mission is None:
            data, source = load_mission_text(DEFAULT_MISSION_YAML, "<default>"), "<default>"
        else:
            data, source = load_mission_file(args.mission), args.mission
        mission = Mission.from_dict(data, source=source)  # the file itself, before the grid
        parameters = [SweepParameter.parse(text) for text in args.param]
        points = grid_points(data, parameters, seed=args.seed, source=source)
    except (MissionError, SweepError) as error:
        raise usage_error(str(error)) from None
    output = Path(args.output) if args.output else Path("output") / f"{mission.name}_sweep.csv"
    if output.suffix.lower() != ".csv" or output.is_dir():
        raise usage_error(f"--output must be a .csv file, got {str(output)!r}")
    try:
        check_output_folder(output.parent)
    except ReportError as error:
        raise usage_error(str(error)) from None
    if not args.serial:
        try:
            import ray  # noqa: F401
        except ImportError:
            raise usage_error('sweeping on Ray needs the ray extra: pip install '
                              '"pyflyt_like[ray]" (or add --serial)') from None

    where = "in this process" if args.serial else (
        f"on the Ray cluster at {args.address}" if args.address else "on a local Ray instance")
    print(f"sweep of mission {mission.name!r}: {len(points)} points {where}", file=out)
    out.flush()
    finished = [0]

    def report(point: Any, rows: list[dict[str, Any]]) -> None:
        finished[0] += 1
        print(f"[{finished[0]}/{len(points)}] {point.label}: {_outcome(rows)}", file=err)
        err.flush()

    rows = run_sweep(points, address=args.address, serial=args.serial, on_point=report)
    failed = sorted({row["point"] for row in rows if row["error"]})
    completed = len({row["point"] for row in rows if row["completed"]})
    print(f"{completed} of {len(points)} points completed the mission"
          + (f"; {len(failed)} could not be flown: points {failed}" if failed else ""),
          file=out)
    try:
        prepare_folder(output.parent)
        write_sweep_csv(rows, parameters, output)
    except OSError as error:
        raise command_error(f"cannot write the table: {error}") from None
    print(f"wrote {output}", file=out)
    return 1 if failed else 0


def _outcome(rows: list[dict[str, Any]]) -> str:
    if rows[0]["error"]:
        return f"failed: {rows[0]['error']}"
    status = "completed" if rows[0]["completed"] else "NOT completed"
    worst = max(row["max_error"] for row in rows)
    return f"{status} in {rows[0]['duration']:.1f} s, max error {worst:.3f} m"
