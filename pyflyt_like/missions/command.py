"""The ``pyflyt-like fly`` subcommand: load a mission, fly it, print and write the report."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path
from typing import Any, TextIO

from .mission import Mission, MissionError


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``pyflyt-like fly``."""
    parser.add_argument("mission", nargs="?", metavar="MISSION.yaml",
                        help="mission file (default: the bundled default mission)")
    parser.add_argument("--output", metavar="DIR", default=None,
                        help="folder for the log, summary.json and plots "
                             "(default: output/<mission name>)")
    parser.add_argument("--seed", type=int, default=0, metavar="N",
                        help="seed of the simulation's random generator (default: 0)")
    parser.add_argument("--gui", action="store_true",
                        help="watch the mission in PyBullet's window (real time)")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    parser.add_argument("--video", metavar="FILE.mp4", default=None,
                        help="record a chase-camera video headless (needs the video extra)")
    parser.add_argument("--acmi", metavar="FILE.acmi", default=None,
                        help="write a Tacview replay (text ACMI 2.2) of every vehicle")
    parser.add_argument("--rerun", metavar="FILE.rrd", nargs="?", const="", default=None,
                        help="record the flight for Rerun into FILE.rrd, or, with no file, "
                             "into the running Rerun viewer (needs the viz extra)")


def load(path: str | None) -> Mission:
    """The mission of ``path``, or the bundled default mission."""
    if path is None:
        from .default_mission import DEFAULT_MISSION_YAML
        return Mission.from_yaml_text(DEFAULT_MISSION_YAML, source="<default>")
    return Mission.from_yaml(path)


def _progress_bar(stream: TextIO, width: int = 30):
    if not stream.isatty():
        return None

    def show(elapsed: float, limit: float) -> None:
        filled = int(width * min(elapsed / limit, 1.0))
        stream.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {elapsed:6.1f} / "
                     f"{limit:.0f} s")
        stream.flush()

    return show


def run(args: argparse.Namespace, usage_error: type[Exception],
        command_error: type[Exception], out: TextIO, err: TextIO,
        rerun_recorder: Callable[..., Any] | None = None) -> int:
    """Fly the mission; exit 0 when completed, 1 when a vehicle failed or crashed.

    Everything that can be checked is checked before flying and raised as ``usage_error``
    (exit 2): the arguments, the mission, the output folder, the video and ACMI paths. If writing
    the report fails after the flight, the outcome and the table are printed first, then
    ``command_error`` (exit 1) is raised. Reports go to ``out`` and the progress bar to
    ``err`` (when it is a terminal).

    ``rerun_recorder(mission, path_or_None, name=...)`` makes the recorder of ``--rerun``
    (the viz extra's ``MissionRecorder``; the command line passes it in, as this layer may
    not import integrations). The recording is finished after the report is written.
    """
    from ..core.utils.display import display_available
    from .report import format_summary_table
    from .runner import check_destinations, fly_mission

    if args.gui and not display_available():
        raise command_error("--gui needs a display, but DISPLAY is not set")
    if args.seed < 0:
        raise usage_error(f"--seed must be >= 0, got {args.seed}")
    rerun_value = getattr(args, "rerun", None)
    if args.mission is None and rerun_value and rerun_value.lower().endswith((".yaml", ".yml")):
        args.mission, args.rerun = rerun_value, ""  # `--rerun MISSION.yaml`: no file given
    try:
        mission = load(args.mission)
    except MissionError as error:
        raise usage_error(str(error)) from None
    output = Path(args.output) if args.output else Path("output") / mission.name
    try:
        check_destinations(output, args.video, video_name="--video", acmi=args.acmi,
                           acmi_name="--acmi")
    except (OSError, ValueError, ImportError) as error:
        raise usage_error(str(error)) from None
    rerun = _rerun_recorder(args, mission, rerun_recorder, usage_error)
    progress = None if args.no_progress else _progress_bar(err)
    try:
        flight = fly_mission(mission, gui=args.gui, seed=args.seed, progress=progress,
                             record_video=args.video is not None, step_recorder=rerun)
    except BaseException as error:
        if rerun is not None:
            rerun.discard()
        if isinstance(error, MissionError):
            raise usage_error(str(error)) from None
        raise
    finally:
        if progress is not None:
            err.write("\n")
    result = flight.result
    print(f"mission {mission.name!r}: "
          f"{'completed' if result.completed else 'NOT completed'} in {result.duration:.1f} s",
          file=out)
    print(format_summary_table(result.summary()), file=out)
    out.flush()
    try:
        written = flight.write_report(output, args.video, args.acmi)
    except OSError as error:
        if rerun is not None:
            rerun.discard()
        raise command_error(f"cannot write the report: {error}") from None
    if rerun is not None:
        try:
            recording = rerun.finish(flight)
        except OSError as error:
            raise command_error(f"cannot write the Rerun recording: {error}") from None
        if recording is not None:
            written.append(recording)
    print(f"wrote {len(written)} files to {output}", file=out)
    out.flush()
    return result.exit_code


def _rerun_recorder(args: argparse.Namespace, mission: Mission,
                    make: Callable[..., Any] | None, usage_error: type[Exception]) -> Any:
    """The recorder of ``--rerun`` (None without the flag), its destination checked."""
    if args.rerun is None:
        return None
    if make is None:
        raise usage_error('--rerun needs the viz extra: pip install "pyflyt_like[viz]"')
    try:
        return make(mission, args.rerun or None, name="--rerun")
    except (OSError, ValueError, ImportError) as error:
        raise usage_error(str(error)) from None
