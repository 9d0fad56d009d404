"""AviaryRecorder: any :class:`~pyflyt_like.core.Aviary`, recorded step by step to Rerun."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ._sdk import Sink, import_rerun
from .columns import (
    WORLD,
    entity_name,
    euler_to_quaternions,
    log_event,
    send_poses,
    send_series,
    time_column,
)
from .geometry import VehicleShapes, load_vehicle_shapes
from .layout import default_blueprint, framing

rr = import_rerun()  # the viz extra: an ImportError naming it where it is missing

CONTACT_COLOR = (230, 40, 40)
DEFAULT_FLUSH_EVERY = 120  # records buffered before a send_columns batch (~0.5-1 s flown)


class AviaryRecorder:
    """Records an :class:`~pyflyt_like.core.Aviary` to Rerun: attach it, then call
    :meth:`record` after every ``aviary.step()`` (or :meth:`step`, which does both).

    What is logged (entity paths in :mod:`.columns`), at the aviary's ``elapsed_time`` on
    the ``sim_time`` timeline [s]:

    - each vehicle's look from its URDF (:mod:`.geometry`) and its pose (position and
      Euler angles of ``drone.state``) as ``world/<name>``; its flown path;
    - its setpoint (``plots/command/<name>/setpoint``, mode-dependent units) and its
      ``aux_state`` (``plots/command/<name>/aux_state``: motor commands, surface
      deflections ...);
    - the wind at each vehicle (when the aviary has a wind field): an arrow and
      ``plots/m_s/<name>/wind``;
    - contacts: when a vehicle starts touching another body, a red point where it is and
      a message on ``events``.

    Records are buffered and sent with ``send_columns`` every ``flush_every`` records (a
    running viewer so sees the flight as it goes), and on :meth:`flush` / :meth:`close`.

    Args:
        aviary: a built Aviary.
        destination: an ``.rrd`` file (written atomically on :meth:`close`), a
            ``rerun.RecordingStream`` you made (and own), or None for the viewer running at
            the default address.
        names: one name per drone (default ``drone_<i>``).
        flush_every: records per ``send_columns`` batch (>= 1).
        blueprint: send the default layout (:func:`.layout.default_blueprint`) on close.
        series: log the setpoint and ``aux_state`` series (a mission logs its own).

    Raises:
        TypeError: ``aviary`` has no drones list; a bad ``destination``.
        ValueError: ``names`` of the wrong length or repeated; ``flush_every`` < 1; an
            ``.rrd`` path that is not one.
        FileWriteError: the ``.rrd`` file's folder is missing or not writable.
        ConnectionError: ``destination`` None and no viewer runs.
    """

    def __init__(self, aviary: Any, destination: str | os.PathLike | Any = None, *,
                 names: Sequence[str] | None = None, flush_every: int = DEFAULT_FLUSH_EVERY,
                 blueprint: bool = True, series: bool = True):
        drones = getattr(aviary, "drones", None)
        if not isinstance(drones, list):
            raise TypeError(f"aviary must be a pyflyt_like Aviary, got {type(aviary).__name__}")
        names = [f"drone_{i}" for i in range(len(drones))] if names is None else list(names)
        if len(names) != len(drones) or len({entity_name(n) for n in names}) != len(names):
            raise ValueError(f"names must be {len(drones)} distinct names (one per drone), got "
                             f"{names!r}")
        if isinstance(flush_every, bool) or not isinstance(flush_every, int) or flush_every < 1:
            raise ValueError(f"flush_every must be an int >= 1, got {flush_every!r}")
        self.aviary = aviary
        self.names = [entity_name(n) for n in names]
        self.flush_every = flush_every
        self._blueprint = blueprint
        self._series = series
        if isinstance(destination, rr.RecordingStream):
            self.sink = Sink(stream=destination)
        else:
            self.sink = Sink(destination, name="destination")
        self.stream = self.sink.stream
        self.shapes: list[VehicleShapes] = []
        for name, drone in zip(self.names, drones):
            path = getattr(drone, "drone_path", None)
            shapes = load_vehicle_shapes(path) if path is not None else \
                VehicleShapes.placeholder()
            shapes.log(self.stream, f"{WORLD}/{name}/body")
            self.shapes.append(shapes)
        self.stream.log(WORLD, rr.ViewCoordinates.RIGHT_HAND_Z_UP, static=True)
        self._ids = [d.Id for d in drones]
        self._touching = np.zeros(len(drones), bool)
        self._rows: list[tuple] = []
        self._flown: list[list[np.ndarray]] = [[] for _ in drones]
        self._closed = False
        self.records = 0

    # ----------------------------------------------------------------- recording
    def step(self) -> None:
        """``aviary.step()``, then :meth:`record`."""
        self.aviary.step()
        self.record()

    def record(self) -> None:
        """Buffer the aviary as it is now (sent every ``flush_every`` records)."""
        if self._closed:
            raise RuntimeError("the recorder is closed")
        aviary = self.aviary
        time = float(aviary.elapsed_time)
        states = np.array([d.state for d in aviary.drones], dtype=float)  # (n, 4, 3)
        positions = states[:, 3]
        wind = None
        wind_field = getattr(aviary, "wind_field", None)
        steps = getattr(aviary, "physics_steps", 0)
        if wind_field is not None and steps > 0:
            # The wind of the last physics step (what the vehicles felt): a field that
            # filters noise (Dryden) is not advanced by asking again at the same time.
            last = (steps - 1) * aviary.physics_period
            wind = np.asarray(wind_field(last, positions.copy()), dtype=float)
        setpoints = [np.array(d.setpoint, dtype=float).ravel() for d in aviary.drones]
        aux = [np.array(d.aux_state, dtype=float).ravel() for d in aviary.drones]
        if self._rows and any(a.shape != b.shape for row_a, row_b in
                              ((self._rows[-1][3], setpoints), (self._rows[-1][4], aux))
                              for a, b in zip(row_a, row_b)):
            self.flush()  # a mode change resized a setpoint: a new block of columns
        self._rows.append((time, positions.copy(), states[:, 1].copy(), setpoints, aux, wind))
        contact_array = getattr(aviary, "contact_array", None)
        if contact_array is not None:
            touching = np.array([bool(contact_array[i].any()) for i in self._ids])
            for i in np.flatnonzero(touching & ~self._touching):
                self.stream.set_time("sim_time", duration=time)
                self.stream.log(f"{WORLD}/contacts/{self.names[i]}",
                                rr.Points3D([positions[i]], colors=[CONTACT_COLOR],
                                            radii=[0.05]))
                log_event(self.stream, time, f"{self.names[i]} touched another body",
                          level="WARN")
            self._touching = touching
        self.records += 1
        if len(self._rows) >= self.flush_every:
            self.flush()

    def flush(self) -> None:
        """Send the buffered records (one ``send_columns`` per entity)."""
        rows, self._rows = self._rows, []
        if not rows:
            return
        stream = self.stream
        times = np.array([row[0] for row in rows])
        positions = np.stack([row[1] for row in rows])  # (t, n, 3)
        euler = np.stack([row[2] for row in rows])
        for i, name in enumerate(self.names):
            send_poses(stream, f"{WORLD}/{name}", times, positions[:, i],
                       euler_to_quaternions(euler[:, i]))
            self._flown[i].append(positions[:, i])
            flown = np.concatenate(self._flown[i])
            stream.set_time("sim_time", duration=float(times[-1]))
            stream.log(f"{WORLD}/paths/{name}/flown", rr.LineStrips3D([flown], radii=[0.005]))
            for column, label in ((3, "setpoint"), (4, "aux_state"))[:2 * self._series]:
                block = np.stack([row[column][i] for row in rows])
                if block.shape[1]:
                    send_series(stream, f"plots/command/{name}/{label}", times, block,
                                [f"{label}[{k}]" for k in range(block.shape[1])])
        winds = [(t, row[5]) for t, row in zip(times, rows) if row[5] is not None]
        if winds:
            wind_times = np.array([t for t, _ in winds])
            wind = np.stack([w for _, w in winds])  # (t, n, 3)
            keep = np.array([row[5] is not None for row in rows])
            for i, name in enumerate(self.names):
                send_series(stream, f"plots/m_s/{name}/wind", wind_times, wind[:, i],
                            ("wind_x", "wind_y", "wind_z"))
                stream.send_columns(f"{WORLD}/wind/{name}", indexes=[time_column(wind_times)],
                                    columns=rr.Arrows3D.columns(origins=positions[keep, i],
                                                                vectors=wind[:, i]))

    def close(self) -> Path | None:
        """Flush, send the layout, finish the recording; return the ``.rrd`` written (None
        for a viewer or your own stream). Safe to call twice.

        Raises:
            FileWriteError: the file cannot be written (nothing is left at its path).
        """
        if self._closed:
            return self.sink.path
        self.flush()
        if self._blueprint:
            self.stream.send_blueprint(self.blueprint())
        self._closed = True
        return self.sink.close()

    def discard(self) -> None:
        """Stop recording, writing nothing (for use after a failure)."""
        self._closed = True
        self.sink.discard()

    def blueprint(self, units: Sequence[str] = ("m/s", "command")) -> Any:
        """The layout framing what was flown, with time-series views of ``units``."""
        flown = [np.concatenate(f) for f in self._flown if f]
        centre, extent = framing(np.concatenate(flown) if flown else np.zeros((0, 3)))
        return default_blueprint(units, centre, extent)

    def __enter__(self) -> AviaryRecorder:
        return self

    def __exit__(self, kind, value, traceback) -> None:
        if kind is None:
            self.close()
        else:
            self.discard()
