"""The report's figures: the path (3-D and top-down) vs reference, altitude, position error,
actuator commands, and, for vehicles flown with an onboard estimator, the estimate's errors
against the truth.

Figures are built with :class:`matplotlib.figure.Figure` on an Agg canvas directly, not
through ``pyplot``: nothing is registered with pyplot's figure manager, no GUI backend is
selected, and a user's interactive session (its backend, its open figures) is not touched.
matplotlib is imported only when a figure is made, so importing this module is cheap.
Writing the figures to files is :func:`pyflyt_like.missions.report.write_plots`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from .flight_log import STATE_COLUMNS, FlightLog

if TYPE_CHECKING:
    from matplotlib.figure import Figure

FIGURE_SIZE = (8.0, 6.0)  # inches
DPI = 100
SUBPLOT_HEIGHT = 2.0  # inches per vehicle in the actuator figure, when 6 in is too little
MIN_HALF_RANGE = 0.5  # m: the 3-D box of a vehicle that barely moves
POSITION = slice(STATE_COLUMNS.index("x"), STATE_COLUMNS.index("z") + 1)
# The estimated path: dash-dot, so that it is told apart from the reference's dashes.
ESTIMATE_STYLE = {"linestyle": "-.", "linewidth": 1.2}
ESTIMATE_PANEL_HEIGHT = 3.0  # inches per vehicle in the estimate figure, when 6 in is too little


def new_figure(size: tuple[float, float] = FIGURE_SIZE, layout: str | None = None) -> Figure:
    """A figure of ``size`` inches at :data:`DPI`, attached to its own Agg canvas."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    figure = Figure(figsize=size, dpi=DPI, layout=layout)
    FigureCanvasAgg(figure)
    return figure


def _color(index: int) -> str:
    return f"C{index % 10}"


def path_figure(logs: Sequence[FlightLog],
                waypoints: Sequence[Any] | None = None) -> Figure:
    """Each vehicle's flown path (solid) and reference path (dashed): in 3-D on the left, seen
    from above (x–y) on the right, both with equal axes.

    The start of each flown path is a large circle drawn over the paths (so that a path
    ending where it started does not hide it), its end a cross; ``waypoints`` (per vehicle,
    (k, 3) positions), if given, are squares. A vehicle whose log has an estimated position
    (the EKF) also shows that estimated path, dash-dot in its colour (not drawn before the
    filter initialised).
    """
    figure = new_figure((2 * FIGURE_SIZE[0] * 0.8, FIGURE_SIZE[1]))
    figure.subplots_adjust(left=0.0, right=0.97, bottom=0.09, top=0.9, wspace=0.15)
    axes = figure.add_subplot(1, 2, 1, projection="3d")
    top = figure.add_subplot(1, 2, 2)
    points = []
    any_estimate = False
    for i, log in enumerate(logs):
        color = _color(i)
        if log.times:
            flown = np.asarray(log.states)[:, POSITION]
            reference = np.asarray(log.references)
            axes.plot(*reference.T, color=color, linestyle="--", linewidth=1.0,
                      label=f"{log.vehicle} reference")
            axes.plot(*flown.T, color=color, linewidth=1.6, label=f"{log.vehicle} flown")
            axes.scatter(*flown[0], color=color, marker="o", s=60, edgecolors="black",
                         depthshade=False, zorder=5)
            axes.scatter(*flown[-1], color=color, marker="x", s=45, depthshade=False)
            top.plot(*reference[:, :2].T, color=color, linestyle="--", linewidth=1.0)
            top.plot(*flown[:, :2].T, color=color, linewidth=1.6)
            top.scatter(*flown[0, :2], color=color, marker="o", s=60, edgecolors="black",
                        zorder=5)
            top.scatter(*flown[-1, :2], color=color, marker="x", s=45, zorder=5)
            points += [flown, reference]
            estimated = _estimated_path(log)
            if estimated is not None:
                axes.plot(*estimated.T, color=color, **ESTIMATE_STYLE,
                          label=f"{log.vehicle} estimate")
                top.plot(*estimated[:, :2].T, color=color, **ESTIMATE_STYLE)
                points.append(estimated)
                any_estimate = True
        if waypoints is not None and i < len(waypoints) and waypoints[i] is not None:
            marks = np.asarray(waypoints[i], dtype=float).reshape(-1, 3)
            axes.scatter(*marks.T, color=color, marker="s", s=30, depthshade=False,
                         label=f"{log.vehicle} waypoints")
            top.scatter(*marks[:, :2].T, color=color, marker="s", s=30, zorder=4)
            points.append(marks)
    _equal_axes(axes, points)
    axes.set_xlabel("x [m]")
    axes.set_ylabel("y [m]")
    axes.set_zlabel("z [m]")
    top.set_xlabel("x [m] (east)")
    top.set_ylabel("y [m] (north)")
    top.set_aspect("equal", adjustable="datalim")
    top.grid(True, alpha=0.3)
    top.set_title("top-down", fontsize="medium")
    figure.suptitle("flown path vs reference (o start, x end, squares waypoints"
                    + (", dash-dot estimate)" if any_estimate else ")"))
    if points:
        axes.legend(loc="upper left", fontsize="small")
    return figure


def _estimated_path(log: FlightLog) -> np.ndarray | None:
    """(m, 3) estimated positions [m] of ``log`` (NaN rows where not estimated, which the
    plots leave as gaps), or None when it has no position estimate at all."""
    if not log.has_estimates or not log.times:
        return None
    estimated = log.estimate_table()[:, :3]
    return estimated if np.isfinite(estimated).all(axis=1).any() else None


def _rms(values: np.ndarray) -> float:
    """RMS of the finite values; NaN when there are none."""
    finite = values[np.isfinite(values)]
    return float(np.sqrt(np.mean(finite**2))) if len(finite) else float("nan")


def _from_zero(axes, values: np.ndarray) -> None:
    """y from 0 to a tenth above the largest finite value (so that a constant error is not
    drawn on the frame's top edge, where autoscaling would put it; a diverged, infinite
    estimate is off the scale rather than an error)."""
    finite = values[np.isfinite(values)]
    top = float(finite.max()) if len(finite) else 0.0
    axes.set_ylim(0.0, 1.1 * top if top > 0.0 else 1.0)


def estimate_figure(logs: Sequence[FlightLog]) -> Figure:
    """The onboard estimate against the truth, one row of two panels per vehicle whose log
    has estimate columns: on the left the position error |p_est - p| [m] (the EKF; the
    complementary filter estimates no position, said in the panel), on the right the
    attitude error [deg] (the angle between the estimated and the true attitude), both
    against time [s] with their RMS over the estimated rows in the legend.

    The figure is 8 x 6 in, taller (3 in per vehicle) beyond two vehicles; vehicles keep
    their colours of the other figures. Rows before the filter initialised are gaps.

    Raises:
        ValueError: no log has estimate columns (the report draws it only when one has).
    """
    rows = [(i, log) for i, log in enumerate(logs) if log.has_estimates]
    if not rows:
        raise ValueError("estimate_figure needs a log with estimate columns (a vehicle "
                         "flown with an estimator); none of the logs has them")
    figure = new_figure((FIGURE_SIZE[0], max(FIGURE_SIZE[1], ESTIMATE_PANEL_HEIGHT * len(rows))),
                        layout="constrained")
    grid = figure.subplots(len(rows), 2, sharex=True, squeeze=False)
    for (position_axes, attitude_axes), (i, log) in zip(grid, rows):
        position_error, attitude_error = log.estimate_errors()
        times = np.asarray(log.times, dtype=float)
        for axes, what in ((position_axes, "position"), (attitude_axes, "attitude")):
            axes.set_title(f"{log.vehicle}: {what}", fontsize="medium")
            axes.grid(True, alpha=0.3)
        position_axes.set_ylabel("|p_est - p| [m]")
        attitude_axes.set_ylabel("attitude error [deg]")
        # An attitude without a position is the complementary filter; neither, a filter
        # that never initialised.
        missing = ("no position estimate\n(complementary filter: attitude only)"
                   if np.isfinite(attitude_error).any() else "not initialised")
        _error_panel(position_axes, times, position_error, _color(i), "{:.3f} m", missing)
        _error_panel(attitude_axes, times, attitude_error, _color(i), "{:.2f}°",
                     "not initialised")
    for axes in grid[-1]:
        axes.set_xlabel("time [s]")
    figure.suptitle("onboard estimate vs truth")
    return figure


def altitude_figure(logs: Sequence[FlightLog]) -> Figure:
    """Each vehicle's altitude z (solid) and reference altitude (dashed) [m] against time [s].

    The axis spans the data with a margin of a tenth of its range, and at least 1 m, so a
    vehicle holding 40 m within centimetres shows a flat line rather than amplified noise.
    """
    figure = new_figure(layout="constrained")
    axes = figure.add_subplot()
    values = []
    for i, log in enumerate(logs):
        if not log.times:
            continue
        z = np.asarray(log.states)[:, POSITION][:, 2]
        z_ref = np.asarray(log.references)[:, 2]
        axes.plot(log.times, z_ref, color=_color(i), linestyle="--", linewidth=1.0)
        axes.plot(log.times, z, color=_color(i), linewidth=1.4, label=log.vehicle)
        values += [z, z_ref]
    finite = np.concatenate(values) if values else np.zeros(0)
    finite = finite[np.isfinite(finite)]
    if len(finite):
        low, high = float(finite.min()), float(finite.max())
        margin = max(0.1 * (high - low), 0.5 * max(1.0 - (high - low), 0.0))
        axes.set_ylim(low - margin, high + margin)
    axes.set_xlabel("time [s]")
    axes.set_ylabel("altitude z [m]")
    axes.set_title("altitude (dashed: reference)")
    axes.grid(True, alpha=0.3)
    if values:
        axes.legend(loc="best", fontsize="small")
    return figure


def _equal_axes(axes, points: list[np.ndarray]) -> None:
    """A cube around every finite point, so that a metre is as long on every axis."""
    stacked = np.concatenate(points) if points else np.zeros((0, 3))
    stacked = stacked[np.all(np.isfinite(stacked), axis=1)]
    if len(stacked):
        low, high = stacked.min(axis=0), stacked.max(axis=0)
    else:
        low = high = np.zeros(3)
    center = (low + high) / 2
    half = 1.05 * max(float(np.max(high - low)) / 2, MIN_HALF_RANGE)
    axes.set_xlim(center[0] - half, center[0] + half)
    axes.set_ylim(center[1] - half, center[1] + half)
    axes.set_zlim(center[2] - half, center[2] + half)
    axes.set_box_aspect((1.0, 1.0, 1.0))


def error_figure(logs: Sequence[FlightLog]) -> Figure:
    """Each vehicle's position error to its reference [m] against time [s]."""
    figure = new_figure(layout="constrained")
    axes = figure.add_subplot()
    for i, log in enumerate(logs):
        if not log.times:
            continue
        errors = np.asarray(log.errors)
        finite = errors[np.isfinite(errors)]
        rms = float(np.sqrt(np.mean(finite**2))) if len(finite) else float("nan")
        axes.plot(log.times, errors, color=_color(i), linewidth=1.2,
                  label=f"{log.vehicle} (RMS {rms:.3f} m)")
    axes.set_xlabel("time [s]")
    axes.set_ylabel("position error [m]")
    axes.set_title("distance to the reference")
    axes.set_ylim(bottom=0.0)
    axes.grid(True, alpha=0.3)
    if any(log.times for log in logs):
        axes.legend(loc="upper right", fontsize="small")
    return figure


def _error_panel(axes, times: np.ndarray, error: np.ndarray, color: str, rms_format: str,
                 missing: str) -> None:
    """Draw ``error`` (m,) against ``times`` (m,) [s] with its RMS in the legend, or the
    ``missing`` text where it has no finite value."""
    if np.isfinite(error).any():
        axes.plot(times, error, color=color, linewidth=1.2,
                  label="RMS " + rms_format.format(_rms(error)))
        axes.legend(loc="best", fontsize="small")
        _from_zero(axes, error)
    else:
        axes.text(0.5, 0.5, missing, transform=axes.transAxes, ha="center", va="center")


def _unit_groups(log: FlightLog) -> list[tuple[str, list[int]]]:
    """The log's actuator columns grouped by unit, in first-appearance order."""
    units = log.actuator_units or ("command",) * len(log.actuator_names)
    groups: dict[str, list[int]] = {}
    for j, unit in enumerate(units):
        groups.setdefault(unit, []).append(j)
    return list(groups.items())


def actuator_figure(logs: Sequence[FlightLog]) -> Figure:
    """Actuator commands against time: one panel per vehicle and unit, so that quantities of
    different units (surface deflections in rad, throttles 0…1, rotor speeds in rad/s or
    RPM) never share an axis. The figure is 8 x 6 in, taller when there are more than three
    panels."""
    panels = [(log, unit, columns) for log in logs for unit, columns in
              (_unit_groups(log) if log.times and log.actuator_names else [("command", [])])]
    panels = panels or [(None, "command", [])]
    figure = new_figure((FIGURE_SIZE[0], max(FIGURE_SIZE[1], SUBPLOT_HEIGHT * len(panels))),
                        layout="constrained")
    grid = figure.subplots(len(panels), 1, sharex=True, squeeze=False)[:, 0]
    for axes, (log, unit, columns) in zip(grid, panels):
        axes.set_ylabel(unit)
        axes.grid(True, alpha=0.3)
        if log is None or not columns:
            if log is not None:
                axes.set_title(log.vehicle, fontsize="medium")
            axes.text(0.5, 0.5, "no actuator data", transform=axes.transAxes,
                      ha="center", va="center")
            continue
        axes.set_title(log.vehicle, fontsize="medium")
        commands = np.asarray(log.actuators)
        for k, j in enumerate(columns):
            axes.plot(log.times, commands[:, j], color=_color(k), linewidth=1.0,
                      label=log.actuator_names[j])
        ncol = 1 + (len(columns) - 1) // 6
        axes.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize="x-small",
                    ncol=ncol, borderaxespad=0.0)
    grid[-1].set_xlabel("time [s]")
    figure.suptitle("actuator commands")
    return figure
