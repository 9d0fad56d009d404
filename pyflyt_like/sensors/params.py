"""What every sensor's parameters share: the table of their names, kinds and units, and the
frozen dataclass base of the resolved parameters (its rate and sample period)."""

from __future__ import annotations

from collections import namedtuple
from dataclasses import dataclass

import numpy as np

#: One parameter of a sensor: ``kind`` is how :mod:`pyflyt_like.sensors.config` checks it
#: ("rate": a positive integer [Hz] dividing the physics rate, or None for every physics
#: step; "number": a finite float in [low, high]; "positive": a finite float > 0;
#: "vector": 3 finite floats; "count": an int >= 0), ``unit`` its unit as text,
#: ``meaning`` one line for the docs, ``low`` / ``high`` the bounds of a "number" (None:
#: unbounded).
Parameter = namedtuple("Parameter", ["kind", "unit", "meaning", "low", "high"],
                       defaults=(None, None))

#: The sample rate, shared by every sensor: None samples at every physics step.
UPDATE_RATE = Parameter("rate", "Hz", "sample rate, an integer dividing the physics rate; "
                        "null: every physics step")

#: Keys a parameter dict may hold besides the sensor's parameters.
EXTRA_KEYS = ("preset", "source")


@dataclass(frozen=True, eq=False, kw_only=True)
class SensorParams:
    """The resolved parameters of one sensor (made by
    :func:`~pyflyt_like.sensors.config.resolve_sensors`, which checks them).

    Attributes:
        physics_hz: the physics rate [Hz] they were resolved for.
        update_rate: the sensor's sample rate [Hz], a divisor of ``physics_hz``.
        source: where the figures come from (the preset's ``source``), or "".
    """

    physics_hz: int
    update_rate: int
    source: str = ""

    @property
    def period_steps(self) -> int:
        """Physics steps between two samples."""
        return self.physics_hz // self.update_rate

    @property
    def dt(self) -> float:
        """Time between two samples [s]."""
        return 1.0 / self.update_rate

    @property
    def coefficients(self) -> np.ndarray:
        """The float array the per-sample functions take (read-only; layout in the
        sensor's module)."""
        array = self._coefficients()
        array.flags.writeable = False
        return array

    def _coefficients(self) -> np.ndarray:  # pragma: no cover - every sensor overrides it
        raise NotImplementedError
