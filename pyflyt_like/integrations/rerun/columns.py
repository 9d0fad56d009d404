"""Logging whole time series at once with Rerun's columnar API (``send_columns``), and the
entity paths every recording of this package uses.

Entity paths:

- ``world/<vehicle>``: the vehicle's pose over time (``Transform3D``); its look under
  ``world/<vehicle>/body`` (static, see :mod:`.geometry`);
- ``world/paths/<vehicle>/flown`` and ``.../reference``: the flown and reference paths;
  ``world/waypoints/<vehicle>``: the waypoints; ``world/wind/<vehicle>``: the wind at the
  vehicle (an arrow); ``world/contacts/<vehicle>``: where it touched something;
- ``plots/<unit>/<vehicle>/<quantity>``: time series, one folder per unit (``m``, ``rad``,
  ``m_s`` for m/s ...), each entity one or more named series (e.g. ``x`` with ``sp_x``);
- ``events``: text messages (crashes, waypoints reached, episode ends).

Time is the ``sim_time`` timeline: simulated seconds.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import numpy as np

from ._sdk import TIMELINE, import_rerun

WORLD = "world"
PLOTS = "plots"
EVENTS = "events"
#: Units of the state columns (pyflyt_like.missions.flight_log.STATE_COLUMNS).
STATE_UNITS = {"p": "rad/s", "q": "rad/s", "r": "rad/s", "roll": "rad", "pitch": "rad",
               "yaw": "rad", "u": "m/s", "v": "m/s", "w": "m/s", "x": "m", "y": "m", "z": "m"}
#: Setpoint names that are not ``sp_<state>`` but whose unit is known.
OTHER_UNITS = {"sp_heading": "rad", "sp_airspeed": "m/s", "error": "m", "wind": "m/s",
               "reward": "reward"}
COMMAND_UNIT = "command"  # a column whose unit is not known (e.g. a generic setpoint)


def unit_key(unit: str) -> str:
    """An entity-path part for ``unit``: ``m/s`` -> ``m_s``, ``throttle 0…1`` ->
    ``throttle_0_1``."""
    key = re.sub(r"[^A-Za-z0-9]+", "_", unit).strip("_")
    return key or COMMAND_UNIT


def entity_name(name: str) -> str:
    """``name`` as one entity-path part (what Rerun would otherwise split or escape)."""
    return re.sub(r"[^A-Za-z0-9_.\-]+", "_", str(name)).strip("_") or "unnamed"


def column_unit(name: str) -> str:
    """The unit of a log column by its name (``x``, ``sp_x``, ``x_ref``: m; ...), or
    :data:`COMMAND_UNIT`."""
    if name in OTHER_UNITS:
        return OTHER_UNITS[name]
    base = name.removeprefix("sp_").removesuffix("_ref").removesuffix("_est")
    return STATE_UNITS.get(base, COMMAND_UNIT)


def euler_to_quaternions(euler: np.ndarray) -> np.ndarray:
    """(n, 4) quaternions x, y, z, w of (n, 3) Euler roll, pitch, yaw [rad] (PyBullet's
    convention, ``R = Rz(yaw) Ry(pitch) Rx(roll)``), vectorised."""
    half = 0.5 * np.asarray(euler, dtype=float).reshape(-1, 3)
    cr, cp, cy = np.cos(half).T
    sr, sp, sy = np.sin(half).T
    return np.column_stack((sr * cp * cy - cr * sp * sy, cr * sp * cy + sr * cp * sy,
                            cr * cp * sy - sr * sp * cy, cr * cp * cy + sr * sp * sy))


def time_column(times: np.ndarray) -> Any:
    """The ``sim_time`` index of ``times`` [s] (Rerun keeps durations in whole ns)."""
    rr = import_rerun()
    return rr.TimeColumn(TIMELINE, duration=np.asarray(times, dtype=float))


def send_poses(stream: Any, entity: str, times: np.ndarray, positions: np.ndarray,
               quaternions: np.ndarray) -> None:
    """Log (n,) ``times`` [s] of (n, 3) positions [m] and (n, 4) x, y, z, w quaternions as
    the ``Transform3D`` of ``entity``, in one ``send_columns`` call."""
    if not len(times):
        return
    rr = import_rerun()
    stream.send_columns(entity, indexes=[time_column(times)], columns=rr.Transform3D.columns(
        translation=np.asarray(positions, dtype=float),
        quaternion=np.asarray(quaternions, dtype=float)))


def send_series(stream: Any, entity: str, times: np.ndarray, values: np.ndarray,
                names: Sequence[str]) -> None:
    """Log an (n, k) block of scalars (k named series) on ``entity`` over (n,) ``times``
    [s]: the names once (static ``SeriesLines``), the values in one ``send_columns``."""
    rr = import_rerun()
    values = np.asarray(values, dtype=float).reshape(len(times), len(names))
    stream.log(entity, rr.SeriesLines(names=list(names)), static=True)
    if len(times):
        stream.send_columns(entity, indexes=[time_column(times)],
                            columns=rr.Scalars.columns(scalars=values))


def send_table(stream: Any, vehicle: str, times: np.ndarray, table: dict[str, np.ndarray],
               units: dict[str, str] | None = None) -> list[str]:
    """Log a vehicle's named columns as time series grouped by unit; return the units.

    A state column (``x``, ``roll``, ...) is one entity with its setpoint ``sp_<name>`` and
    reference ``<name>_ref`` beside it where the table has them (setpoint against state);
    the other columns are entities of their own, except columns of one unit listed in
    ``units`` (e.g. actuators), which share an entity ``<unit>`` per vehicle.

    Args:
        times: (n,) [s]; table: column name -> (n,) values; units: column name -> unit
            for columns whose unit the name does not tell.
    """
    units = dict(units or {})
    done: set[str] = set()
    used: list[str] = []
    vehicle = entity_name(vehicle)

    def send(unit: str, name: str, columns: list[str]) -> None:
        send_series(stream, f"{PLOTS}/{unit_key(unit)}/{vehicle}/{entity_name(name)}", times,
                    np.column_stack([table[c] for c in columns]), columns)
        done.update(columns)
        if unit not in used:
            used.append(unit)

    for state, unit in STATE_UNITS.items():
        if state in table:
            send(unit, state, [c for c in (state, f"sp_{state}", f"{state}_ref", f"{state}_est")
                                   if c in table])
    grouped: dict[str, list[str]] = {}
    for name in table:
        if name in units and name not in done:
            grouped.setdefault(units[name], []).append(name)
    for unit, columns in grouped.items():
        send(unit, "actuators" if len(columns) > 1 else columns[0], columns)
    for name in table:
        if name not in done:
            send(column_unit(name), name, [name])
    return used


def log_event(stream: Any, time: float, text: str, level: str = "INFO") -> None:
    """A text message on the ``events`` entity at ``time`` [s]."""
    rr = import_rerun()
    stream.set_time(TIMELINE, duration=float(time))
    stream.log(EVENTS, rr.TextLog(text, level=level))
