"""How much memory a :class:`~pyflyt_like.batch.BatchedAviary` needs, known before any of
it is allocated, so that a huge ``n_worlds`` or ``n_drones`` is refused with the estimate
rather than ending in a MemoryError or the kernel's out-of-memory kill.

The engine's arrays are laid out per world and per drone (:mod:`.arrays`), so its memory is
``W * (per_world + D * per_drone)``; both rates are measured on the layout itself (a
one-world, one- and two-drone instance), not written down a second time here. A pool of
obstacle layouts (:mod:`.obstacles`) comes on top, once per engine:
:func:`check_pool_memory` refuses one that does not fit beside the rest.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from functools import cache

import numpy as np

from pyflyt_like.common.validation import check_memory

from .arrays import TURBULENCE_STATES, zeros_plant, zeros_state
from .sensors import sensor_layout_bytes, sensor_read_bytes

#: Floats per drone the facade keeps besides the state and the plant: the start positions,
#: attitudes and velocities (3 + 3 + 3) and the ``Aviary.state`` buffer (4 x 3).
FACADE_FLOATS_PER_DRONE = 3 + 3 + 3 + 12
#: Floats per drone that a call allocates for a moment: ``set_flat_reference`` builds the
#: (W, D, 18) reference and its checks (41 measured with tracemalloc), a reset draws for
#: every world before the mask picks (16).
TRANSIENT_FLOATS_PER_DRONE = 48
#: The largest turbulence noise buffer one compiled call gets [bytes]: ``step(n)`` draws
#: the noise of at most this many bytes' worth of physics steps at a time.
NOISE_CHUNK_BYTES = 32 * 2**20


def layout_bytes(arrays_of: Callable[[int], Iterable[np.ndarray]]) -> tuple[int, int]:
    """(per_world, per_drone) bytes of a family's state and plant arrays, measured on the
    layout itself: ``arrays_of(n_drones)`` allocates them for one world."""
    def total(n_drones: int) -> int:
        return sum(array.nbytes for array in arrays_of(n_drones))

    per_drone = total(2) - total(1)
    return total(1) - per_drone, per_drone


@cache
def _multirotor_layout_bytes(n_rotors: int, setpoint_size: int) -> tuple[int, int]:
    return layout_bytes(lambda n_drones: (*zeros_state(1, n_drones, n_rotors, setpoint_size),
                                          *zeros_plant(1, n_drones)))


def estimated_bytes(n_worlds: int, n_drones: int, per_world: int, per_drone: int) -> float:
    """Estimated peak memory [bytes] of an engine whose arrays take ``per_world`` +
    ``per_drone`` bytes per drone: with the facade's buffers, the largest transient of a
    call and one turbulence noise chunk."""
    per_drone += 8 * (FACADE_FLOATS_PER_DRONE + TRANSIENT_FLOATS_PER_DRONE)
    n_worlds = float(n_worlds)  # floats: 10**12 worlds of 10**12 drones is no overflow
    noise = max(float(NOISE_CHUNK_BYTES), 8.0 * TURBULENCE_STATES * n_worlds)  # >= 1 step
    return n_worlds * (per_world + float(n_drones) * per_drone) + noise


def engine_bytes(n_worlds: int, n_drones: int, n_rotors: int, sensors=None) -> float:
    """Estimated peak memory [bytes] of a multirotor engine (:func:`estimated_bytes`).

    Args:
        n_worlds: W; n_drones: D; n_rotors: rotors per drone (the setpoint is sized for
            mode -1, n values, or 4, whichever is larger, as :meth:`set_mode` may need).
        sensors: the resolved sensor parameters (sensor name -> parameters), None: none;
            their arrays (:mod:`.sensors`) are added, and the copies their
            ``read_sensors`` makes.
    """
    per_world, per_drone = _multirotor_layout_bytes(n_rotors, max(n_rotors, 4))
    if sensors:  # the layout above holds the sensor fields of an engine without sensors
        sensor_world, sensor_drone = sensor_layout_bytes(sensors)
        per_world, per_drone = per_world + sensor_world, per_drone + sensor_drone
    return sensors_read_added(estimated_bytes(n_worlds, n_drones, per_world, per_drone),
                              n_worlds, n_drones, sensors)


def sensors_read_added(estimate: float, n_worlds: int, n_drones: int, sensors) -> float:
    """``estimate`` [bytes] with the copies of a ``read_sensors`` call for ``sensors``
    (resolved parameters; None or {}: none), :func:`~.sensors.sensor_read_bytes`: as large
    as the readings themselves, a large scan's or image's too."""
    per_world, per_drone = sensor_read_bytes(sensors)
    return estimate + float(n_worlds) * (per_world + float(n_drones) * per_drone)


def sensors_text(sensors) -> str:
    """What the sensors (resolved parameters; None or {}: none) add to the vehicles' words
    of a memory message: their names and their arrays' bytes per drone (the GNSS latency
    ring and the ray readings are most of them), "" without sensors."""
    if not sensors:
        return ""
    per_drone = sensor_layout_bytes(sensors)[1]
    size = (f"{per_drone / 2**20:.3g} MiB" if per_drone >= 2**20
            else f"{per_drone / 2**10:.3g} KiB")
    return f", with sensors {list(sensors)} of {size} per drone"


def check_engine_memory(n_worlds: int, n_drones: int, estimate: float, what: str) -> None:
    """Refuse an engine that would need more than half this machine's memory.

    Args:
        estimate: its :func:`estimated_bytes`; what: the vehicles, for the message.

    Raises:
        ValueError: naming ``n_worlds`` and ``n_drones``, the estimate and the limit.
    """
    check_memory(f"n_worlds={n_worlds} x n_drones={n_drones} ({what})", estimate,
                 "use fewer worlds or drones per engine (several engines can run one after "
                 "another or in separate processes)")


def check_pool_memory(what: str, pool_estimate: float, engine_estimate: float) -> None:
    """Refuse a pool that, with the engine, would need more than half this machine's memory.

    Args:
        what: the option that sizes it (``"world_layouts=64"``, ``"world"``);
            pool_estimate: the pool's bytes (estimated before the layouts are drawn, exact
            after); engine_estimate: the engine's other bytes.

    Raises:
        ValueError: naming ``what``, the estimate and the limit.
    """
    check_memory(f"{what} (a pool of obstacle layouts of about "
                 f"{pool_estimate / 2**20:.3g} MiB beside the engine's "
                 f"{engine_estimate / 2**20:.3g} MiB)", pool_estimate + engine_estimate,
                 "use fewer world_layouts, or a smaller or sparser world")
