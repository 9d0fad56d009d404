"""The contract of a wind field."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable

import numpy as np

from pyflyt_like.common.validation import check_rng

# Where a new wind field is tried once to check its output: five points, (5, 3) [m], all
# above the ground (a log-profile wind such as log(z) is undefined at z = 0).
PROBE_POSITIONS = np.array([[0.0, 0.0, 1.0], [1.0, -2.0, 0.5], [-3.0, 4.0, 10.0],
                            [50.0, 50.0, 100.0], [0.0, 0.0, 2.0]])


class WindFieldClass(ABC):
    """A wind field: ground-frame air velocity as a function of time and position.

    Args:
        np_random: the aviary's random generator; the only source of randomness allowed
            (a new unseeded one when ``None``). The Aviary builds a field as
            ``wind_type(np_random=..., **wind_options)``, so a subclass may take its own
            parameters first: ``def __init__(self, my_parameter=1.0, np_random=None)``.
    """

    def __init__(self, np_random: np.random.Generator | None = None):
        self.np_random = check_rng("np_random", np_random)

    @abstractmethod
    def __call__(self, time: float, position: np.ndarray) -> np.ndarray:
        """Return (n, 3) wind velocity in m/s (ground frame) at (n, 3) positions in m."""

    def reset(self) -> None:  # noqa: B027 - optional hook, most fields are memoryless
        """Restart any internal state (e.g. a turbulence filter); called by ``Aviary.reset``."""


class FunctionWindField(WindFieldClass):
    """Adapts a plain function ``f(time, position) -> velocity`` to :class:`WindFieldClass`."""

    def __init__(self, function: Callable[[float, np.ndarray], np.ndarray],
                 np_random: np.random.Generator):
        if not callable(function):
            raise TypeError(f"wind field function must be callable, got {function!r}")
        super().__init__(np_random)
        self.function = function

    def __call__(self, time: float, position: np.ndarray) -> np.ndarray:
        return self.function(time, position)


def check_wind_field_output(wind_field: WindFieldClass) -> None:
    """Call ``wind_field`` once at five probe points and raise unless it returns a finite
    (5, 3) array; the generator's state is restored afterwards, so seeding is unaffected."""
    rng = wind_field.np_random
    saved = rng.bit_generator.state if isinstance(rng, np.random.Generator) else None
    try:
        wind = np.asarray(wind_field(0.0, PROBE_POSITIONS.copy()), dtype=float)
    except (TypeError, ValueError) as error:
        raise ValueError(f"wind field {type(wind_field).__name__} failed on a (5, 3) array of "
                         f"positions: {error}") from error
    finally:
        if saved is not None:
            rng.bit_generator.state = saved
    if wind.shape != (5, 3):
        raise ValueError(f"wind field {type(wind_field).__name__} must return an (n, 3) array "
                         f"for (n, 3) positions; for 5 positions it gave shape {wind.shape}")
    if not np.all(np.isfinite(wind)):
        raise ValueError(f"wind field {type(wind_field).__name__} must return finite values; "
                         f"at positions {PROBE_POSITIONS.tolist()} it gave {wind.tolist()}")
    wind_field.reset()
