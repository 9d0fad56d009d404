"""Controllers that are more than a single PID: cascades, mixers, allocation, geometric."""

from .allocation import Allocator, actuation_matrix
from .fixedwing_attitude import FixedwingAttitude
from .flatness import (
    FlatReference,
    desired_attitude,
    flat_outputs_to_reference,
    hat,
    reference_to_flat_state,
    vee,
)
from .geometric import (
    GeometricController,
    attitude_error,
    commanded_attitude,
    geometric_control_law,
    lee_control,
    rotation_from_euler,
)
from .mixers import mix_with_attitude_priority
from .multirotor_cascade import MultirotorCascade
from .quadx_cascade import QuadXCascade

__all__ = [
    "Allocator",
    "FixedwingAttitude",
    "FlatReference",
    "GeometricController",
    "MultirotorCascade",
    "QuadXCascade",
    "actuation_matrix",
    "attitude_error",
    "commanded_attitude",
    "desired_attitude",
    "flat_outputs_to_reference",
    "geometric_control_law",
    "hat",
    "lee_control",
    "mix_with_attitude_priority",
    "reference_to_flat_state",
    "rotation_from_euler",
    "vee",
]
