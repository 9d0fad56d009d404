"""BatchedRecorder: chosen worlds of a :class:`~pyflyt_like.batch.BatchedAviary` side by
side in one Rerun recording, logged in bulk (``send_columns``, one call per vehicle per
batch of records, never one per vehicle per step)."""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from pyflyt_like.common.loading import MODELS_DIR, model_files

from ._sdk import Sink, import_rerun
from .columns import send_poses, send_series
from .geometry import VehicleShapes, load_vehicle_shapes
from .layout import default_blueprint

rr = import_rerun()

BATCH = "batch"
DEFAULT_WORLDS = 16  # worlds drawn when none are chosen
DEFAULT_FLUSH_EVERY = 500


def grid_offsets(count: int, spacing: float) -> np.ndarray:
    """(count, 3) offsets [m] of ``count`` worlds on a square grid ``spacing`` apart, row
    by row along +x then +y."""
    columns = max(1, math.ceil(math.sqrt(count)))
    index = np.arange(count)
    return np.column_stack(((index % columns) * spacing, (index // columns) * spacing,
                            np.zeros(count)))


def _shapes(engine: Any) -> VehicleShapes:
    options = getattr(engine, "options", None)
    model = getattr(options, "drone_model", None)
    folders = [getattr(options, "model_dir", None)] if getattr(options, "model_dir", None) \
        else [MODELS_DIR / "multirotors", MODELS_DIR / "vehicles"]
    for folder in folders:
        try:
            return load_vehicle_shapes(model_files(model, folder)[0])
        except (FileNotFoundError, TypeError, ValueError):
            continue
    return VehicleShapes.placeholder()


class BatchedRecorder:
    """Records chosen worlds of a batched engine side by side: world ``worlds[k]`` is drawn
    at grid cell ``k`` (``batch/world_<w>``, moved by its grid offset), each of its drones
    as ``batch/world_<w>/drone_<d>`` with the model's look; the wind of each chosen world
    as ``plots/m_s/world_<w>/wind``.

    Call :meth:`record` after ``engine.step(...)``: it copies the chosen worlds' positions
    and attitudes (cheap), and every ``flush_every`` records they are sent as columns. Time
    is the recorder's own ``sim_time`` [s], advanced by the first chosen world's
    ``elapsed_time`` (which restarts when that world is reset).

    Args:
        engine: a BatchedAviary.
        destination: an ``.rrd`` file (written atomically by :meth:`close`), a
            ``rerun.RecordingStream`` you own, or None for the running viewer.
        worlds: the world indices to draw (default the first 16).
        spacing: grid spacing [m]; default the spread of the start positions plus 4 m.
        flush_every: records per batch (>= 1).

    Raises:
        TypeError, ValueError: a bad argument (naming it); see :class:`.AviaryRecorder` for
            the destination.
    """

    def __init__(self, engine: Any, destination: str | os.PathLike | Any = None, *,
                 worlds: Sequence[int] | None = None, spacing: float | None = None,
                 flush_every: int = DEFAULT_FLUSH_EVERY):
        n_worlds = getattr(engine, "n_worlds", None)
        if not isinstance(n_worlds, int) or not hasattr(engine, "pos"):
            raise TypeError(f"engine must be a BatchedAviary, got {type(engine).__name__}")
        chosen = list(range(min(n_worlds, DEFAULT_WORLDS))) if worlds is None else worlds
        try:
            chosen = [int(w) for w in chosen]
        except (TypeError, ValueError):
            raise TypeError(f"worlds must be a list of ints, got {worlds!r}") from None
        if not chosen or len(set(chosen)) != len(chosen) or \
                not all(0 <= w < n_worlds for w in chosen):
            raise ValueError(f"worlds must be distinct indices in [0, {n_worlds}), got {worlds!r}")
        if isinstance(flush_every, bool) or not isinstance(flush_every, int) or flush_every < 1:
            raise ValueError(f"flush_every must be an int >= 1, got {flush_every!r}")
        start = np.asarray(engine.pos, dtype=float)[chosen].reshape(-1, 3)
        if spacing is None:
            spread = np.ptp(start[:, :2], axis=0).max() if len(start) else 0.0
            spacing = float(spread) + 4.0
        if not (isinstance(spacing, (int, float)) and math.isfinite(spacing) and spacing > 0):
            raise ValueError(f"spacing must be a finite number > 0 [m], got {spacing!r}")
        self.engine = engine
        self.worlds = np.array(chosen)
        self.offsets = grid_offsets(len(chosen), float(spacing))
        self.flush_every = flush_every
        self.sink = Sink(stream=destination) if isinstance(destination, rr.RecordingStream) \
            else Sink(destination, name="destination")
        self.stream = stream = self.sink.stream
        stream.log(BATCH, rr.ViewCoordinates.RIGHT_HAND_Z_UP, static=True)
        shapes = _shapes(engine)
        for k, world in enumerate(chosen):
            stream.log(f"{BATCH}/world_{world}", rr.Transform3D(translation=self.offsets[k]),
                       static=True)
            stream.log(f"{BATCH}/world_{world}/label", rr.Points3D(
                [[0.0, 0.0, 0.0]], labels=[f"world {world}"], radii=[0.02]), static=True)
            for drone in range(engine.n_drones):
                shapes.log(stream, f"{BATCH}/world_{world}/drone_{drone}/body")
        self.time = 0.0
        self._last_elapsed = float(np.asarray(engine.elapsed_time)[chosen[0]])
        self._times: list[float] = []
        self._pos: list[np.ndarray] = []
        self._quat: list[np.ndarray] = []
        self._wind: list[np.ndarray] = []
        self._closed = False

    def record(self) -> None:
        """Buffer the chosen worlds as they are now."""
        if self._closed:
            raise RuntimeError("the recorder is closed")
        engine, worlds = self.engine, self.worlds
        elapsed = float(engine.elapsed_time[worlds[0]])
        # A reset world restarts its clock: the recording's time keeps going.
        self.time += elapsed - self._last_elapsed if elapsed >= self._last_elapsed else elapsed
        self._last_elapsed = elapsed
        self._times.append(self.time)
        self._pos.append(engine.pos[worlds])  # fancy indexing: copies
        self._quat.append(engine.quat[worlds])
        self._wind.append(engine.wind[worlds])
        if len(self._times) >= self.flush_every:
            self.flush()

    def flush(self) -> None:
        """Send the buffered records: one ``send_columns`` per drone and per world."""
        if not self._times:
            return
        times = np.array(self._times)
        pos, quat, wind = np.stack(self._pos), np.stack(self._quat), np.stack(self._wind)
        self._times, self._pos, self._quat, self._wind = [], [], [], []
        log_batch(self.stream, times, pos, quat, self.worlds, wind)

    def close(self) -> Path | None:
        """Flush, send the layout, finish; return the ``.rrd`` written (None for a viewer or
        your own stream)."""
        if self._closed:
            return self.sink.path
        self.flush()
        centre = np.append(self.offsets[:, :2].mean(axis=0), 1.0)
        extent = float(np.ptp(self.offsets[:, :2], axis=0).max()) + 4.0
        self.stream.send_blueprint(default_blueprint(("m/s",), centre, extent, origin=BATCH))
        self._closed = True
        return self.sink.close()

    def __enter__(self) -> BatchedRecorder:
        return self

    def __exit__(self, kind, value, traceback) -> None:
        if kind is None:
            self.close()
        else:
            self._closed = True
            self.sink.discard()


def log_batch(stream: Any, times: np.ndarray, positions: np.ndarray, quaternions: np.ndarray,
              worlds: Sequence[int], wind: np.ndarray | None = None) -> None:
    """Log (T,) ``times`` [s] of the (T, K, D, 3) positions [m] and (T, K, D, 4) x, y, z, w
    attitudes of K worlds (``worlds``: their indices, drawn under ``batch/world_<w>``) in
    bulk: one ``send_columns`` per drone; (T, K, 3) ``wind`` [m/s] one per world."""
    for k, world in enumerate(worlds):
        for drone in range(positions.shape[2]):
            send_poses(stream, f"{BATCH}/world_{world}/drone_{drone}", times,
                       positions[:, k, drone], quaternions[:, k, drone])
        if wind is not None:
            send_series(stream, f"plots/m_s/world_{world}/wind", times, wind[:, k],
                        ("wind_x", "wind_y", "wind_z"))
