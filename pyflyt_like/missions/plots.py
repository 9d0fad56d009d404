"""The report's figures: 3-D path vs reference, position error, actuator commands.

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
    """Each vehicle's flown path (solid) and reference path (dashed) in 3-D, equal axes.

    The start of each flown path is a circle, its end a cross; ``waypoints`` (per vehicle,
    (k, 3) positions), if given, are marked as squares.
    """
    figure = new_figure()
    figure.subplots_adjust(left=0.0, right=1.0, bottom=0.04, top=0.96)
    axes = figure.add_subplot(projection="3d")
    points = []
    for i, log in enumerate(logs):
        color = _color(i)
        if log.times:
            flown = np.asarray(log.states)[:, POSITION]
            reference = np.asarray(log.references)
            axes.plot(*reference.T, color=color, linestyle="--", linewidth=1.0,
                      label=f"{log.vehicle} reference")
            axes.plot(*flown.T, color=color, linewidth=1.6, label=f"{log.vehicle} flown")
            axes.scatter(*flown[0], color=color, marker="o", s=25)
            axes.scatter(*flown[-1], color=color, marker="x", s=35)
            points += [flown, reference]
        if waypoints is not None and i < len(waypoints) and waypoints[i] is not None:
            marks = np.asarray(waypoints[i], dtype=float).reshape(-1, 3)
            axes.scatter(*marks.T, color=color, marker="s", s=30, depthshade=False,
                         label=f"{log.vehicle} waypoints")
            points.append(marks)
    _equal_axes(axes, points)
    axes.set_xlabel("x [m]")
    axes.set_ylabel("y [m]")
    axes.set_zlabel("z [m]")
    figure.suptitle("flown path vs reference (o start, x end)")
    if points:
        axes.legend(loc="upper left", fontsize="small")
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


def actuator_figure(logs: Sequence[FlightLog]) -> Figure:
    """Actuator commands against time, one subplot per vehicle (units differ by vehicle:
    QuadX throttles 0...1, multirotor rotor speeds). The figure is 8 x 6 in, taller when
    there are more than three vehicles."""
    count = max(len(logs), 1)
    figure = new_figure((FIGURE_SIZE[0], max(FIGURE_SIZE[1], SUBPLOT_HEIGHT * count)),
                        layout="constrained")
    grid = figure.subplots(count, 1, sharex=True, squeeze=False)[:, 0]
    for axes, log in zip(grid, logs):
        axes.set_title(log.vehicle, fontsize="medium")
        axes.set_ylabel("command")
        axes.grid(True, alpha=0.3)
        if not log.times or not log.actuator_names:
            axes.text(0.5, 0.5, "no actuator data", transform=axes.transAxes,
                      ha="center", va="center")
            continue
        commands = np.asarray(log.actuators)
        for j, name in enumerate(log.actuator_names):
            axes.plot(log.times, commands[:, j], color=_color(j), linewidth=1.0, label=name)
        columns = 1 + (len(log.actuator_names) - 1) // 6
        axes.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize="x-small",
                    ncol=columns, borderaxespad=0.0)
    grid[-1].set_xlabel("time [s]")
    figure.suptitle("actuator commands")
    return figure
