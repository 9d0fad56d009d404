"""Controllers that are more than a single PID: cascades, mixers, allocation."""

from .mixers import mix_with_attitude_priority
from .quadx_cascade import QuadXCascade

__all__ = ["QuadXCascade", "mix_with_attitude_priority"]
