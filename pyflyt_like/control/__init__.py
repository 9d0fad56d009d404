"""The control laws of every vehicle, shared by both engines: PID, the QuadX and multirotor
cascades, mixers and allocation, geometric (SE(3)) control with flatness feed-forward, the
fixed-wing attitude hold and autopilot (TECS). numpy only: neither pybullet nor numba."""

from .allocation import Allocator, actuation_matrix
from .fixedwing_attitude import FixedwingAttitude
from .fixedwing_autopilot import FixedwingAutopilot
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
from .multirotor_modes import MULTIROTOR_MODES, hold_setpoints
from .pid import PID
from .quadx_cascade import QuadXCascade
from .tecs import TECS

__all__ = [
    "MULTIROTOR_MODES",
    "PID",
    "TECS",
    "Allocator",
    "FixedwingAttitude",
    "FixedwingAutopilot",
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
    "hold_setpoints",
    "hat",
    "lee_control",
    "mix_with_attitude_priority",
    "reference_to_flat_state",
    "rotation_from_euler",
    "vee",
]
