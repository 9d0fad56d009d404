"""The ``pyflyt-like replay`` subcommand: mission flight logs (CSV) into a Rerun recording.

Importing this module needs nothing beyond the package: without the viz extra the command
still parses its arguments and then says (exit 2, one line) which extra to install.
"""

from __future__ import annotations

import argparse
from typing import TextIO

from ._sdk import INSTALL_HINT


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``pyflyt-like replay``."""
    parser.add_argument("logs", nargs="+", metavar="LOG.csv",
                        help="flight logs written by `pyflyt-like fly` (log_<vehicle>.csv)")
    parser.add_argument("--rerun", metavar="FILE.rrd", nargs="?", const="", required=True,
                        help="write the recording to FILE.rrd, or, with no file, send it to "
                             "the running Rerun viewer (needs the viz extra)")


def run(args: argparse.Namespace, usage_error: type[Exception],
        command_error: type[Exception], out: TextIO) -> int:
    """Write the recording; exit 0. Bad input (a missing or malformed log, a bad
    destination, the viz extra missing) raises ``usage_error`` before anything is written;
    a failed write ``command_error``."""
    try:
        from .mission_recorder import read_flight_log, replay_flight_logs
    except ImportError:
        raise usage_error(f"--rerun: {INSTALL_HINT}") from None
    from ._sdk import check_rrd_path, check_viewer

    try:
        for path in args.logs:
            read_flight_log(path)
        if args.rerun:
            check_rrd_path(args.rerun, "--rerun")
        else:
            check_viewer(name="--rerun")
    except (OSError, ValueError) as error:
        raise usage_error(str(error)) from None
    try:
        written = replay_flight_logs(args.logs, args.rerun or None, name="--rerun")
    except OSError as error:
        raise command_error(f"cannot write the Rerun recording: {error}") from None
    where = written if written is not None else "the Rerun viewer"
    print(f"replayed {len(args.logs)} flight log{'s' * (len(args.logs) > 1)} into {where}",
          file=out)
    return 0
