"""Command-line options of the training recipes (``examples/train_*.py``) and the evaluation
scripts (``scripts/evaluate_dogfight.py``): errors in one line on stderr with exit status 2,
numbers checked against their ranges before anything is loaded, and where the results go
proved writable before anything is trained."""

from __future__ import annotations

import argparse
import math
import os
from pathlib import Path

MAX_MINUTES = 365 * 24 * 60.0  # a year of training
MAX_SEED = 2**63 - 1  # numpy's and torch's seeds
CPUS = os.cpu_count() or 1  # the most threads or workers: more only slows down


class OneLineParser(argparse.ArgumentParser):
    """An ArgumentParser whose errors are one line on stderr and exit status 2."""

    def error(self, message: str):
        self.exit(2, f"{self.prog}: error: {message} (see --help)\n")


def int_in(low: int, high: int):
    """An argparse type: an integer in [low, high] (no floats, no expressions)."""
    def convert(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            value = None
        if value is None or not low <= value <= high:
            raise argparse.ArgumentTypeError(f"must be an integer in [{low}, {high}], "
                                             f"got {text!r}")
        return value

    return convert


def float_in(low: float, high: float):
    """An argparse type: a finite number in [low, high]."""
    def convert(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            value = math.nan
        if not low <= value <= high:  # also refuses NaN
            raise argparse.ArgumentTypeError(f"must be a number in [{low:g}, {high:g}], "
                                             f"got {text!r}")
        return value

    return convert


def minutes_in(text: str) -> float:
    """An argparse type: a finite number of minutes in (0, MAX_MINUTES]."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not 0.0 < value <= MAX_MINUTES:  # also refuses NaN
        raise argparse.ArgumentTypeError(f"must be a number of minutes in (0, {MAX_MINUTES:g}]"
                                         f", got {text!r}")
    return value


def output_folder(parser: argparse.ArgumentParser, option: str, folder: Path) -> Path:
    """``folder`` (of ``option``, e.g. ``--out``) made with its parents if missing, and
    proved writable by creating and removing a trial file there, before anything is
    trained; else the parser's one-line error (exit 2)."""
    from pyflyt_like.common.atomic_files import FileWriteError, prepare_output_folder

    try:
        return prepare_output_folder(folder, option)
    except FileWriteError as error:
        parser.error(f"argument {error}")


def output_file(parser: argparse.ArgumentParser, option: str, path: Path, suffix: str) -> Path:
    """``path`` (of ``option``) checked to name a ``suffix`` file in a folder (made if
    missing) where a file can be written, before anything is trained; else the parser's
    one-line error (exit 2)."""
    from pyflyt_like.common.atomic_files import (
        FileWriteError,
        check_file_destination,
        prepare_output_folder,
    )

    if path.suffix.lower() != suffix:  # before its folder is made
        parser.error(f"argument {option} must name an {suffix} file, got {str(path)!r}")
    try:
        prepare_output_folder(path.parent, f"{option} {path}: its folder")
        return check_file_destination(path, suffix, option)
    except (FileWriteError, ValueError) as error:
        parser.error(f"argument {error}")
