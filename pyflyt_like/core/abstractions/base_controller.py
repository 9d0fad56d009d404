"""The contract of a user flight controller."""

from __future__ import annotations

from abc import ABC, abstractmethod

import numpy as np


class ControlClass(ABC):
    """A controller that maps a drone state and a setpoint to a command.

    Registered on a drone with ``drone.register_controller(id, ControlClass, base_mode)``,
    its output becomes the setpoint of the built-in ``base_mode``. Constructed with no
    arguments by the drone; keep any tuning in the class itself.
    """

    @abstractmethod
    def reset(self) -> None:
        """Clear internal state (integrators, filters)."""

    @abstractmethod
    def step(self, state: np.ndarray, setpoint: np.ndarray) -> np.ndarray:
        """Return the base mode's setpoint.

        Args:
            state: (4, 3) drone state (see ``Aviary.state``).
            setpoint: this mode's setpoint as given by the user.
        """
