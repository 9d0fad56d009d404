"""Waypoint missions: mission files, minimum-snap trajectories, the runner, reports."""

from .flight_log import FlightLog
from .guidance import FixedwingGuidance, GuidanceGains, leg_errors, passed
from .mission import Mission, MissionError, VehicleSpec, Waypoint
from .piecewise_polynomial import PiecewisePolynomial, solve_minimum_derivative
from .report import (
    ReportError,
    format_summary_table,
    write_flight_log,
    write_outputs,
    write_plots,
    write_summary,
)
from .runner import MissionResult, VehicleResult, run_mission
from .trajectory import (
    DEFAULT_MIN_SEGMENT_DURATION,
    MinimumSnapTrajectory,
    TrajectoryPoint,
    TrajectorySamples,
    allocate_durations,
)

__all__ = [
    "DEFAULT_MIN_SEGMENT_DURATION",
    "FixedwingGuidance",
    "FlightLog",
    "GuidanceGains",
    "Mission",
    "MissionError",
    "MissionResult",
    "ReportError",
    "VehicleResult",
    "VehicleSpec",
    "Waypoint",
    "format_summary_table",
    "leg_errors",
    "passed",
    "run_mission",
    "write_flight_log",
    "write_outputs",
    "write_plots",
    "write_summary",
    "MinimumSnapTrajectory",
    "PiecewisePolynomial",
    "TrajectoryPoint",
    "TrajectorySamples",
    "allocate_durations",
    "solve_minimum_derivative",
]
