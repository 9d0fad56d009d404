"""How much memory a :class:`~pyflyt_like.batch.BatchedAviary` needs, known before any of
it is allocated, so that a huge ``n_worlds`` or ``n_drones`` is refused with the estimate
rather than ending in a MemoryError or the kernel's out-of-memory kill.

The engine's arrays are laid out per world and per drone (:mod:`.arrays`), so its memory is
``W * (per_world + D * per_drone)``; both rates are measured on the layout itself (a
one-world, one- and two-drone instance), not written down a second time here.
"""

from __future__ import annotations

from functools import cache

from pyflyt_like.common.validation import check_memory

from .arrays import TURBULENCE_STATES, zeros_plant, zeros_state

#: Floats per drone the facade keeps besides the state and the plant: the start positions
#: and attitudes (3 + 3) and the ``Aviary.state`` buffer (4 x 3).
FACADE_FLOATS_PER_DRONE = 3 + 3 + 12
#: Floats per drone that a call allocates for a moment: ``set_flat_reference`` builds the
#: (W, D, 18) reference and its checks (41 measured with tracemalloc), a reset draws for
#: every world before the mask picks (16).
TRANSIENT_FLOATS_PER_DRONE = 48
#: The largest turbulence noise buffer one compiled call gets [bytes]: ``step(n)`` draws
#: the noise of at most this many bytes' worth of physics steps at a time.
NOISE_CHUNK_BYTES = 32 * 2**20


@cache
def _layout_bytes(n_rotors: int, setpoint_size: int) -> tuple[int, int]:
    """(per_world, per_drone) bytes of the state and plant arrays."""
    def total(n_drones: int) -> int:
        arrays = (*zeros_state(1, n_drones, n_rotors, setpoint_size),
                  *zeros_plant(1, n_drones))
        return sum(array.nbytes for array in arrays)

    per_drone = total(2) - total(1)
    return total(1) - per_drone, per_drone


def engine_bytes(n_worlds: int, n_drones: int, n_rotors: int) -> float:
    """Estimated peak memory [bytes] of an engine: its arrays (state, plant, the facade's
    buffers), the largest transient of a call and one turbulence noise chunk.

    Args:
        n_worlds: W; n_drones: D; n_rotors: rotors per drone (the setpoint is sized for
            mode -1, n values, or 4, whichever is larger, as :meth:`set_mode` may need).
    """
    per_world, per_drone = _layout_bytes(n_rotors, max(n_rotors, 4))
    per_drone += 8 * (FACADE_FLOATS_PER_DRONE + TRANSIENT_FLOATS_PER_DRONE)
    n_worlds = float(n_worlds)  # floats: 10**12 worlds of 10**12 drones is no overflow
    noise = max(float(NOISE_CHUNK_BYTES), 8.0 * TURBULENCE_STATES * n_worlds)  # >= 1 step
    return n_worlds * (per_world + float(n_drones) * per_drone) + noise


def check_engine_memory(n_worlds: int, n_drones: int, n_rotors: int) -> None:
    """Refuse an engine that would need more than half this machine's memory.

    Raises:
        ValueError: naming ``n_worlds`` and ``n_drones``, the estimate and the limit.
    """
    check_memory(f"n_worlds={n_worlds} x n_drones={n_drones} ({n_rotors} rotors each)",
                 engine_bytes(n_worlds, n_drones, n_rotors),
                 "use fewer worlds or drones per engine (several engines can run one after "
                 "another or in separate processes)")
