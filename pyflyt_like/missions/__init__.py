"""Missions: trajectory generation (minimum snap) for waypoint missions."""

from .piecewise_polynomial import PiecewisePolynomial, solve_minimum_derivative
from .trajectory import (
    DEFAULT_MIN_SEGMENT_DURATION,
    MinimumSnapTrajectory,
    TrajectoryPoint,
    TrajectorySamples,
    allocate_durations,
)

__all__ = [
    "DEFAULT_MIN_SEGMENT_DURATION",
    "MinimumSnapTrajectory",
    "PiecewisePolynomial",
    "TrajectoryPoint",
    "TrajectorySamples",
    "allocate_durations",
    "solve_minimum_derivative",
]
