"""Command-line options of the training recipes (``train_*.py`` beside this file): errors in
one line on stderr with exit status 2, numbers checked against their ranges before anything
is loaded."""

from __future__ import annotations

import argparse
import math
import os

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
