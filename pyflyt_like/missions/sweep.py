"""Mission sweeps: one mission flown over a grid of parameter values, one summary table.

A sweep parameter is ``NAME=V1,V2,...``. ``NAME`` is a dotted path into the mission file:

- a top-level field (``duration_limit``, ``arrival_tolerance``, ``physics_hz``,
  ``wind.type``, ``wind.options.velocity``) sets that field; ``wind.X`` with X other than
  ``type`` and ``options`` is short for ``wind.options.X``;
- a vehicle field (``speed``, ``model``, ``controller``, ``start.position``) sets it on every
  vehicle; ``vehicles.N.FIELD`` on vehicle N only (0-based);
- ``seed`` is the seed of the flight (the mission file has none).

The values are read as a YAML list, so ``speed=0.5,1.0`` is two numbers and
``wind.velocity=[0,0,0],[2,0,0]`` two vectors. A value is plain data: numbers, text,
true/false, null, and lists and mappings of them; YAML aliases (``*a``), which could make a
value contain itself or expand to millions of items, are refused
(:mod:`~pyflyt_like.missions.sweep_parameters`). The grid is the Cartesian product of all
parameters, in the order given (the last one varies fastest). Every point's mission is
validated before anything flies, so a bad value is an error naming the point
(:mod:`~pyflyt_like.missions.sweep_grid`).

:func:`run_sweep` flies the points as Ray tasks (one CPU each; ``address`` joins a running
cluster, none starts a local one) or, with ``serial=True``, one after another in this
process (:mod:`~pyflyt_like.missions.sweep_flying`). :func:`write_sweep_csv` writes the
table atomically: one row per point and vehicle (:mod:`~pyflyt_like.missions.sweep_table`).

This module gathers the sweep's public names in one place.
"""

from .sweep_flying import RESULT_COLUMNS, check_ray_address, fly_point, run_sweep
from .sweep_grid import SweepPoint, check_flight_seed, grid_points
from .sweep_parameters import (
    MAX_PARAMETER_CHARS,
    MAX_POINTS,
    MAX_VALUE_ITEMS,
    SEED,
    SweepError,
    SweepParameter,
    SweepTypeError,
)
from .sweep_table import sweep_columns, write_sweep_csv, write_sweep_table

__all__ = [
    "MAX_PARAMETER_CHARS",
    "MAX_POINTS",
    "MAX_VALUE_ITEMS",
    "RESULT_COLUMNS",
    "SEED",
    "SweepError",
    "SweepParameter",
    "SweepPoint",
    "SweepTypeError",
    "check_flight_seed",
    "check_ray_address",
    "fly_point",
    "grid_points",
    "run_sweep",
    "sweep_columns",
    "write_sweep_csv",
    "write_sweep_table",
]
