"""The air both engines fly in: its density and the quadratic drag of a bluff body."""

from __future__ import annotations

AIR_DENSITY = 1.225  # kg/m^3, sea-level ISA


def quadratic_drag(velocity: float, half_rho_cd_area: float) -> float:
    """Drag force [N] along one axis of a body moving at ``velocity`` [m/s] through the air
    along it: ``-sign(v) rho Cd A v^2 / 2`` (PyFlyt's BoringBodies, per axis)."""
    return -half_rho_cd_area * velocity * abs(velocity)
