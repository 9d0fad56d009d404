"""What the env layer needs to know about a vehicle family, for single- and multi-agent envs.

A :class:`VehicleFamily` names the Aviary drone type, bounds the attitude observation, says
what a normalised action means in each flight mode and bounds the vehicle's aux state. Both the
single-agent family bases (``QuadXBaseEnv``, ``FixedwingBaseEnv``, ``RocketBaseEnv``) and
the multi-agent scenes take these facts from here.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from .vehicle_actions import (
    AffineActionMapping,
    fixedwing_action_mapping,
    quadx_action_mapping,
    rocket_action_mapping,
)


@dataclass(frozen=True)
class VehicleFamily:
    """The env-layer facts of one vehicle family.

    Attributes:
        drone_type: the Aviary's drone type name.
        max_rate: bound on body rates in the attitude observation [rad/s].
        max_speed: bound on body-frame velocity in the attitude observation [m/s].
        action_mapping: ``(flight_mode, flight_dome_size [m]) -> AffineActionMapping``;
            raises ``ValueError`` for a mode the family does not fly.
        aux_bounds: ``drone -> (low, high)``, the bounds of that drone's aux state.
    """

    drone_type: str
    max_rate: float
    max_speed: float
    action_mapping: Callable[[int, float], AffineActionMapping]
    aux_bounds: Callable[[object], tuple[np.ndarray, np.ndarray]]


def _throttle_bounds(drone) -> tuple[np.ndarray, np.ndarray]:
    """QuadX aux state: the four motor throttles, in [-1, 1] (reversible motors)."""
    return np.full(4, -1.0), np.full(4, 1.0)


def _surface_bounds(drone) -> tuple[np.ndarray, np.ndarray]:
    """Fixed-wing aux state: five surface deflections [rad] within their limits, throttle."""
    limits = drone.surfaces.deflection_limit
    return np.append(-limits, 0.0), np.append(limits, 1.0)


QUADX = VehicleFamily(drone_type="quadx", max_rate=50.0, max_speed=30.0,
                      action_mapping=quadx_action_mapping, aux_bounds=_throttle_bounds)

# 80 m/s is well above a dive's speed for the shipped aircraft.
FIXEDWING = VehicleFamily(drone_type="fixedwing", max_rate=50.0, max_speed=80.0,
                          action_mapping=lambda mode, _dome: fixedwing_action_mapping(mode),
                          aux_bounds=_surface_bounds)


def _rocket_bounds(drone) -> tuple[np.ndarray, np.ndarray]:
    """Rocket aux state: fin deflections [rad], ignition, fuel ratio, throttle, gimbals [rad]."""
    fins = drone.finlets.deflection_limit
    gimbals = drone.gimbals.range[0]
    return (np.concatenate([-fins, np.zeros(3), -gimbals]),
            np.concatenate([fins, np.ones(3), gimbals]))


# A stage falling from a 500 m ceiling reaches ~100 m/s; with its spawn speed and a
# full-throttle climb 150 m/s bounds any flight in the box. The 5 degree gimbal gives at most
# ~2.5 rad/s^2 on the stage: 10 rad/s is a tumble.
ROCKET = VehicleFamily(drone_type="rocket", max_rate=10.0, max_speed=150.0,
                       action_mapping=lambda mode, _dome: rocket_action_mapping(mode),
                       aux_bounds=_rocket_bounds)
