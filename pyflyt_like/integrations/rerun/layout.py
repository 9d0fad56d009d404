"""The layout a recording opens with (a Rerun blueprint): the 3-D scene from an oblique
eye and from straight above, the time series one view per unit, and the event log."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ._sdk import import_rerun
from .columns import EVENTS, PLOTS, unit_key


def default_blueprint(units: Sequence[str] = ("m", "rad", "m/s", "rad/s", "command"),
                      centre: Sequence[float] = (0.0, 0.0, 1.0), extent: float = 5.0,
                      origin: str = "world") -> Any:
    """The blueprint of a recording.

    Args:
        units: the units of the time-series views, in order (one view each, titled by the
            unit, showing ``plots/<unit>/**``).
        centre: (3,) point [m] the eyes look at (e.g. the middle of the flown area).
        extent: size [m] of the area to frame; the top-down eye sits this high (x 1.5)
            above ``centre``.
        origin: the entity the 3-D views show.
    """
    rrb = import_rerun().blueprint
    cx, cy, cz = (float(v) for v in centre)
    extent = max(float(extent), 1.0)
    oblique = rrb.Spatial3DView(
        origin=origin, name="3-D",
        eye_controls=rrb.EyeControls3D(kind=rrb.Eye3DKind.Orbital,
                                       position=(cx - extent, cy - extent, cz + extent),
                                       look_target=(cx, cy, cz), eye_up=(0.0, 0.0, 1.0)))
    top = rrb.Spatial3DView(
        origin=origin, name="top-down",
        eye_controls=rrb.EyeControls3D(kind=rrb.Eye3DKind.Orbital,
                                       position=(cx, cy - 1e-3, cz + 1.5 * extent),
                                       look_target=(cx, cy, cz), eye_up=(0.0, 1.0, 0.0)))
    plots = [rrb.TimeSeriesView(origin=f"{PLOTS}/{unit_key(unit)}", name=unit)
             for unit in dict.fromkeys(units)]
    right: list[Any] = [rrb.Tabs(*plots) if len(plots) > 3 else rrb.Vertical(*plots)] \
        if plots else []
    right.append(rrb.TextLogView(origin=EVENTS, name="events"))
    return rrb.Blueprint(
        rrb.Horizontal(rrb.Vertical(oblique, top, row_shares=[3, 2]),
                       rrb.Vertical(*right, row_shares=[4, 1]), column_shares=[3, 2]),
        collapse_panels=True)


def framing(points: np.ndarray) -> tuple[np.ndarray, float]:
    """(centre (3,), extent) [m] framing (n, 3) ``points`` (defaults for none)."""
    points = np.asarray(points, dtype=float).reshape(-1, 3)
    points = points[np.isfinite(points).all(axis=1)]
    if not len(points):
        return np.array((0.0, 0.0, 1.0)), 5.0
    low, high = points.min(axis=0), points.max(axis=0)
    return (low + high) / 2, float(max(np.max(high - low), 2.0))
