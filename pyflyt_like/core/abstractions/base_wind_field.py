"""The contract of a wind field."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable

import numpy as np


class WindFieldClass(ABC):
    """A wind field: ground-frame air velocity as a function of time and position.

    Args:
        np_random: the aviary's random generator; the only source of randomness allowed.
    """

    def __init__(self, np_random: np.random.Generator):
        self.np_random = np_random

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
