"""Waypoint missions: mission files, minimum-snap trajectories, the runner, reports, sweeps."""

from .errors import MissionError
from .flight_log import FlightLog
from .guidance import FixedwingGuidance, GuidanceGains, leg_errors, passed
from .minimum_derivative import solve_minimum_derivative
from .mission import Mission, VehicleSpec, Waypoint
from .output_files import ReportError
from .piecewise_polynomial import PiecewisePolynomial
from .report import (
    format_summary_table,
    write_flight_log,
    write_outputs,
    write_plots,
    write_summary,
)
from .runner import MissionResult, VehicleResult, run_mission
from .sweep import (
    SweepError,
    SweepParameter,
    SweepPoint,
    grid_points,
    run_sweep,
    sweep_columns,
    write_sweep_csv,
)
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
    "SweepError",
    "SweepParameter",
    "SweepPoint",
    "VehicleResult",
    "VehicleSpec",
    "Waypoint",
    "format_summary_table",
    "grid_points",
    "leg_errors",
    "passed",
    "run_mission",
    "run_sweep",
    "sweep_columns",
    "write_flight_log",
    "write_outputs",
    "write_plots",
    "write_summary",
    "write_sweep_csv",
    "MinimumSnapTrajectory",
    "PiecewisePolynomial",
    "TrajectoryPoint",
    "TrajectorySamples",
    "allocate_durations",
    "solve_minimum_derivative",
]
