"""The ``pyflyt-like fly`` subcommand: load a mission, fly it, print and write the report."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TextIO

import yaml

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


def load(path: str | None) -> Mission:
    """The mission of ``path``, or the bundled default mission."""
    if path is None:
        from .default_mission import DEFAULT_MISSION_YAML
        return Mission.from_dict(yaml.safe_load(DEFAULT_MISSION_YAML), source="<default>")
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
        command_error: type[Exception], out: TextIO, err: TextIO) -> int:
    """Fly the mission; exit 0 when completed, 1 when a vehicle failed or crashed.

    Reports go to ``out`` and the progress bar to ``err`` (when it is a terminal).
    """
    from ..core.utils.display import display_available
    from .report import format_summary_table
    from .runner import run_mission

    if args.gui and not display_available():
        raise command_error("--gui needs a display, but DISPLAY is not set")
    if args.seed < 0:
        raise usage_error(f"--seed must be >= 0, got {args.seed}")
    if args.video is not None:
        from .video import check_video_support
        try:
            check_video_support()
        except ImportError as error:
            raise usage_error(str(error)) from None
        if not args.video.endswith(".mp4"):
            raise usage_error(f"--video must name an .mp4 file, got {args.video!r}")
    try:
        mission = load(args.mission)
        output = Path(args.output) if args.output else Path("output") / mission.name
        progress = None if args.no_progress else _progress_bar(err)
        result = run_mission(mission, output_dir=output, gui=args.gui, seed=args.seed,
                             progress=progress, video=args.video)
    except MissionError as error:
        raise usage_error(str(error)) from None
    except OSError as error:
        raise command_error(f"cannot write the report: {error}") from None
    if progress is not None:
        err.write("\n")
    print(f"mission {mission.name!r}: "
          f"{'completed' if result.completed else 'NOT completed'} in {result.duration:.1f} s",
          file=out)
    print(format_summary_table(result.summary()), file=out)
    print(f"wrote {len(result.files)} files to {output}", file=out)
    out.flush()
    return result.exit_code
