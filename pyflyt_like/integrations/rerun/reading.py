"""Reading a recording back with Rerun's own chunk API (``rerun.chunk.RrdReader``): what
the tests compare with the flights, and what docs/rerun.md draws its pictures from."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ._sdk import TIMELINE, import_rerun

import_rerun()


@dataclass
class EntityData:
    """What one entity holds: ``static`` component -> value (as Python lists) and, on the
    ``sim_time`` timeline, ``times`` (n,) [s] with ``columns`` component -> list of n
    values, sorted by time."""

    static: dict[str, Any] = field(default_factory=dict)
    times: np.ndarray = field(default_factory=lambda: np.zeros(0))
    columns: dict[str, list] = field(default_factory=dict)

    def array(self, component: str) -> np.ndarray:
        """The temporal ``component`` as an array (one row per time; a batch of one value,
        e.g. a transform's translation, is unwrapped)."""
        rows = [row[0] if isinstance(row, list) and len(row) == 1 and isinstance(row[0], list)
                else row for row in self.columns[component]]
        return np.array(rows, dtype=float)


def read_rrd(path: str | os.PathLike) -> dict[str, EntityData]:
    """Entity path (without the leading ``/``) -> :class:`EntityData` of the first
    recording in the ``.rrd`` at ``path``."""
    import pyarrow as pa
    from rerun.chunk import RrdReader

    entities: dict[str, EntityData] = {}
    pieces: dict[str, list[tuple[np.ndarray, dict[str, list]]]] = {}
    for chunk in RrdReader(path).stream():
        batch = chunk.to_record_batch()
        entity = chunk.entity_path.lstrip("/")
        data = entities.setdefault(entity, EntityData())
        components = [n for n in batch.schema.names if ":" in n]
        if chunk.is_static:
            for name in components:
                data.static[name] = batch.column(name).to_pylist()[-1]
            continue
        if TIMELINE not in batch.schema.names:
            continue
        times = batch.column(TIMELINE).cast(pa.int64()).to_numpy() / 1e9
        pieces.setdefault(entity, []).append(
            (times, {name: batch.column(name).to_pylist() for name in components}))
    for entity, parts in pieces.items():
        times = np.concatenate([t for t, _ in parts])
        order = np.argsort(times, kind="stable")
        names = {name for _, columns in parts for name in columns}
        columns = {name: [v for t, c in parts for v in c.get(name, [None] * len(t))]
                   for name in names}
        entities[entity].times = times[order]
        entities[entity].columns = {name: [values[i] for i in order]
                                    for name, values in columns.items()}
    return entities
