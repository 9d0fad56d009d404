"""Flying a sweep's points: in this process one after another, or as Ray tasks."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from pyflyt_like.common.validation import check_bool

from .errors import short_repr
from .sweep_grid import SweepPoint
from .sweep_parameters import SEED, SweepError, SweepTypeError

RESULT_COLUMNS = ("completed", "duration", "vehicle", "type", "waypoints_reached",
                  "waypoints_total", "completion_time", "rms_error", "max_error", "collisions",
                  "crashed", "error")
"""Columns of the table after ``point``, the parameters and ``seed``: the mission's
``completed`` and ``duration`` [s], then the vehicle's results (:class:`VehicleResult`;
errors in m, times in s) and ``error``, the exception of a point that could not be flown."""


def fly_point(point: SweepPoint) -> list[dict[str, Any]]:
    """Fly one point headless and return its table rows (one per vehicle).

    A point that cannot be flown (a mission error found while building or flying it, a
    simulation error) gives one row with ``error`` set; nothing is raised.
    """
    from ..core.utils.quiet import quiet_native_output

    try:
        with quiet_native_output():
            from .runner import fly_mission

            result = fly_mission(point.mission, seed=point.seed).result
    except Exception as error:  # noqa: BLE001 - a failed point is a row of the table
        return [_row(point, {"error": f"{type(error).__name__}: {error}"})]
    return [_row(point, {"completed": result.completed, "duration": result.duration,
                         **vars(vehicle)}) for vehicle in result.vehicles]


def _row(point: SweepPoint, results: dict[str, Any]) -> dict[str, Any]:
    row: dict[str, Any] = {"point": point.index, **dict(point.values), SEED: point.seed}
    row.update({column: results.get(column, "" if column == "error" else None)
                for column in RESULT_COLUMNS})
    row["vehicle"] = results.get("name")
    return row


def run_sweep(points: Sequence[SweepPoint], address: str | None = None, serial: bool = False,
              on_point: Callable[[SweepPoint, list[dict[str, Any]]], None] | None = None,
              ) -> list[dict[str, Any]]:
    """Fly every point and return the rows, ordered by point then vehicle.

    Args:
        points: from :func:`grid_points`.
        address: a Ray cluster to join (``"auto"``, ``"127.0.0.1:6379"``); None: the Ray
            instance already initialised in this process, else a new local one (shut down
            again when the sweep ends). See :func:`check_ray_address`.
        serial: fly in this process, one point after another, without Ray.
        on_point: called with each point and its rows as it finishes (in finishing order).

    Raises:
        SweepTypeError: ``points`` is not a sequence of :class:`SweepPoint`, ``serial`` not
            a bool, ``on_point`` not callable.
        SweepError: an ``address`` Ray cannot mean.
        ImportError: Ray is needed (``serial=False``) but the ``ray`` extra is absent.
    """
    if not isinstance(points, (list, tuple)) or not all(
            isinstance(p, SweepPoint) for p in points):
        raise SweepTypeError(f"points must be a list of SweepPoint (from grid_points), got "
                             f"{short_repr(points)}")
    try:
        serial = check_bool("serial", serial)
    except TypeError as error:
        raise SweepTypeError(str(error)) from None
    if on_point is not None and not callable(on_point):
        raise SweepTypeError(f"on_point must be None or callable, got {short_repr(on_point)}")
    if serial:
        finished = ((point, fly_point(point)) for point in points)
    else:
        finished = _fly_on_ray(points, check_ray_address("address", address))
    rows_of: dict[int, list[dict[str, Any]]] = {}
    for point, rows in finished:
        rows_of[point.index] = rows
        if on_point is not None:
            on_point(point, rows)
    return [row for index in sorted(rows_of) for row in rows_of[index]]


def check_ray_address(where: str, address: Any) -> str | None:
    """``address`` if Ray can mean it: None, ``"auto"``, ``"local"`` or ``[ray://]HOST:PORT``
    with a port 1 to 65535; else a one-line error naming ``where``.

    Whether a cluster answers there is found out only when joining it.
    """
    if address is None:
        return None
    allowed = "'auto', 'local' or HOST:PORT (e.g. 127.0.0.1:6379, ray://HOST:10001)"
    if not isinstance(address, str):
        raise SweepTypeError(f"{where} must be {allowed}, got {short_repr(address)}")
    host, colon, port = address.removeprefix("ray://").rpartition(":")
    well_formed = address in ("auto", "local") or (
        colon and host and re.fullmatch("[0-9]{1,5}", port) and 0 < int(port) < 65536
        and address.isprintable() and not re.search(r"\s", address))
    if not well_formed:
        raise SweepError(f"{where} must be {allowed}, got {short_repr(address)}")
    return address


def _fly_on_ray(points: Sequence[SweepPoint], address: str | None,
                ) -> Iterable[tuple[SweepPoint, list[dict[str, Any]]]]:
    try:
        import ray
    except ImportError:
        raise ImportError('a sweep on Ray needs the ray extra: pip install "pyflyt_like[ray]" '
                          "(or fly the points in this process with serial=True / --serial)"
                          ) from None
    started = not ray.is_initialized()
    if started:
        ray.init(address=address, log_to_driver=False, include_dashboard=False,
                 logging_level="WARNING")
    try:
        # One CPU per point; a worker lost with its node is retried once, elsewhere.
        fly = ray.remote(num_cpus=1, max_retries=1)(fly_point)
        pending = {fly.remote(point): point for point in points}
        while pending:
            done, _ = ray.wait(list(pending), num_returns=1)
            point = pending.pop(done[0])
            try:
                rows = ray.get(done[0])
            except ray.exceptions.RayError as error:  # the worker died twice
                rows = [_row(point, {"error": f"{type(error).__name__}: "
                                              f"{str(error).splitlines()[0]}"})]
            yield point, rows
    finally:
        if started:
            ray.shutdown()
