"""Lifting surfaces (wings, tails, control surfaces): the aerodynamics of one surface.

Finite-wing model after Khan & Nahon (2015), "Real-time modeling of agile fixed-wing UAV
aerodynamics" (ICUAS), the thin-airfoil family PyFlyt also uses:

- aspect ratio ``AR = span / chord``; 3-D lift slope
  ``Cla3 = Cla2 * AR / (AR + 2 (AR + 4) / (AR + 2))``;
- a flap of chord fraction ``cf/c`` deflected by ``delta`` shifts the zero-lift angle by
  ``-tau_f * eta * delta`` with ``tau_f = 1 - (theta_f - sin theta_f) / pi``,
  ``theta_f = arccos(2 cf/c - 1)``; the maximum lift coefficient grows by half the flap's
  lift increment (``STALL_LIFT_SHARE``), so the stall angles move by half that shift;
- attached flow: ``Cl = Cla3 (alpha - alpha_0)``, induced angle ``alpha_i = Cl / (pi AR)``,
  effective angle ``alpha_e = alpha - alpha_0 - alpha_i``; tangential ``Ct = Cd0 cos alpha_e``,
  normal ``Cn = (Cl + Ct sin alpha_e) / cos alpha_e``,
  ``Cd = Cn sin(alpha_e + alpha_i) + Ct cos(alpha_e + alpha_i)``;
- stalled flow: flat plate with ``Cd90 = -0.0426 delta^2 + 0.21 delta + 1.98``,
  ``Cn = Cd90 sin(alpha_e) (1 / (0.56 + 0.44 |sin alpha_e|) - 0.41 (1 - exp(-17 / AR)))``,
  ``Ct = 0.5 Cd0 cos alpha_e``; the induced angle fades linearly from its stall value to 0 at
  90 degrees;
- moment about the quarter chord ``Cm = -Cn (0.25 - 0.175 (1 - 2 |alpha_e| / pi))``;
- loads scale with ``Q S`` (``Q = rho V^2 / 2`` of the chordwise airflow) and ``Q S c``.

The deflection follows ``command * deflection_limit`` through a first-order lag (exact
discretisation, like the motors).

Both engines use these functions: the PyBullet ``LiftingSurfaces`` on Python floats, the
batched engine compiled with numba. The scalar ones call no other function of this module
(numba compiles each on its own), so a caller chains :func:`coefficients` and
:func:`surface_loads` itself.
"""

from __future__ import annotations

import math
from collections import namedtuple

import numpy as np

from .air import AIR_DENSITY

# Share of a flap's lift increment that also raises the maximum lift coefficient.
STALL_LIFT_SHARE = 0.5

#: The per-surface constants of the model, each an (n,) float array: flap_gain
#: (tau_f eta), alpha_0_base, stall_p_base, stall_n_base [rad], aspect (AR), cl_alpha (Cla3)
#: [1/rad], cd_0, plate_loss (0.41 (1 - exp(-17 / AR))), half_rho_area (rho S / 2)
#: [kg/m], chord [m], travel (signed deflection limit) [rad].
SurfaceConstants = namedtuple("SurfaceConstants", [
    "flap_gain", "alpha_0_base", "stall_p_base", "stall_n_base", "aspect", "cl_alpha", "cd_0",
    "plate_loss", "half_rho_area", "chord", "travel"])


def surface_constants(Cl_alpha_2D, chord, span, flap_to_chord, eta, alpha_0_base,
                      alpha_stall_P_base, alpha_stall_N_base, Cd_0, deflection_limit,
                      command_sign) -> SurfaceConstants:
    """The model's constants of ``n`` surfaces from their parameters ((n,) each; PyFlyt's
    names and units: angles in degrees, lengths in metres)."""
    chord, span = np.asarray(chord, float), np.asarray(span, float)
    aspect = span / chord
    theta_f = np.arccos(2.0 * np.asarray(flap_to_chord, float) - 1.0)
    return SurfaceConstants(
        flap_gain=(1.0 - (theta_f - np.sin(theta_f)) / np.pi) * np.asarray(eta, float),
        alpha_0_base=np.radians(alpha_0_base), stall_p_base=np.radians(alpha_stall_P_base),
        stall_n_base=np.radians(alpha_stall_N_base), aspect=aspect,
        cl_alpha=np.asarray(Cl_alpha_2D, float) * aspect / (
            aspect + 2.0 * (aspect + 4.0) / (aspect + 2.0)),
        cd_0=np.asarray(Cd_0, float), plate_loss=0.41 * (1.0 - np.exp(-17.0 / aspect)),
        half_rho_area=0.5 * AIR_DENSITY * chord * span, chord=chord,
        travel=np.asarray(command_sign, float) * np.radians(deflection_limit))


def coefficients(alpha: float, deflection: float, flap_gain: float, alpha_0_base: float,
                 stall_p_base: float, stall_n_base: float, aspect: float, cl_alpha: float,
                 cd_0: float, plate_loss: float) -> tuple[float, float, float]:
    """(Cl, Cd, Cm) of one surface at angle of attack ``alpha`` and ``deflection`` [rad]."""
    shift = flap_gain * deflection
    alpha_0 = alpha_0_base - shift
    stall_shift = (1.0 - STALL_LIFT_SHARE) * shift
    stall_p = stall_p_base - stall_shift
    stall_n = stall_n_base - stall_shift
    if stall_n <= alpha <= stall_p:  # attached flow
        cl = cl_alpha * (alpha - alpha_0)
        induced = cl / (math.pi * aspect)
        effective = alpha - alpha_0 - induced
        cos_e = math.cos(effective)
        tangential = cd_0 * cos_e
        normal = (cl + tangential * math.sin(effective)) / cos_e
        total = effective + induced  # not alpha - alpha_0 exactly: kept as the formula's
        cd = normal * math.sin(total) + tangential * math.cos(total)
    else:  # stalled: flat plate; the induced angle fades out towards 90 degrees
        edge = stall_p if alpha > stall_p else stall_n
        edge_induced = cl_alpha * (edge - alpha_0) / (math.pi * aspect)
        fade = (math.pi / 2 - abs(alpha)) / (math.pi / 2 - abs(edge))
        fade = 0.0 if fade < 0.0 else (1.0 if fade > 1.0 else fade)
        effective = alpha - alpha_0 - edge_induced * fade
        sin_e, cos_e = math.sin(effective), math.cos(effective)
        cd90 = -0.0426 * deflection**2 + 0.21 * deflection + 1.98
        normal = cd90 * sin_e * (1.0 / (0.56 + 0.44 * abs(sin_e)) - plate_loss)
        tangential = 0.5 * cd_0 * cos_e
        cl = normal * cos_e - tangential * sin_e
        cd = normal * sin_e + tangential * cos_e
    cm = -normal * (0.25 - 0.175 * (1.0 - 2.0 * abs(effective) / math.pi))
    return cl, cd, cm


def angle_of_attack(forward: float, up: float) -> float:
    """Angle of attack [rad] of a surface meeting air that flows ``forward`` along its
    chord and ``up`` along its lift normal [m/s] (the surface's velocity through the air)."""
    return math.atan2(-up, forward)


def surface_loads(forward: float, up: float, cl: float, cd: float, cm: float,
                  half_rho_area: float, chord: float) -> tuple[float, float, float]:
    """The loads of one surface: force along its forward and its lift axes [N], moment
    about its span axis [N m], from its airflow [m/s] (as :func:`angle_of_attack`) and
    its coefficients."""
    speed2 = forward * forward + up * up
    qs = half_rho_area * speed2
    # sin and cos of alpha straight from the flow (alpha = 0 in still air).
    speed = math.sqrt(speed2)
    sin_a, cos_a = (-up / speed, forward / speed) if speed > 0.0 else (0.0, 1.0)
    return (qs * (cl * sin_a - cd * cos_a), qs * (cl * cos_a + cd * sin_a), qs * chord * cm)


def deflection_step(deflection: float, command: float, travel: float, lag_gain: float
                    ) -> float:
    """The deflection [rad] one physics step later under ``command`` (clipped to [-1, 1],
    times the signed ``travel`` [rad]), through the lag's exact step gain
    ``1 - exp(-dt / tau)``."""
    target = travel * (-1.0 if command < -1.0 else (1.0 if command > 1.0 else command))
    return deflection + lag_gain * (target - deflection)


def surface_maps(offsets: np.ndarray, to_base: np.ndarray, forward_unit: np.ndarray,
                 lift_unit: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The linear maps of ``n`` surfaces fixed rigidly on a base.

    Args:
        offsets: (n, 3) surface origins from the base, base frame [m].
        to_base: (n, 3, 3) surface-to-base rotations.
        forward_unit, lift_unit: (n, 3) unit chordwise-forward and lift-normal directions,
            surface frame.

    Returns:
        flow_map (2n, 6): base body velocity and rates [v; w] -> every surface's forward
        airflow, then every surface's normal airflow [m/s] (airflow at a surface:
        ``v + w x r``; along ``u``: ``v.u + w.(r x u)``);
        wrench_map (6, 3n): per surface (force along forward, force along lift, moment
        about the span axis ``forward x lift``) -> base force and torque, base frame.
    """
    forward = np.einsum("nij,nj->ni", to_base, forward_unit)
    lift = np.einsum("nij,nj->ni", to_base, lift_unit)
    span = np.cross(forward, lift)  # nose-up moment axis
    flow_map = np.vstack((np.hstack((forward, np.cross(offsets, forward))),
                          np.hstack((lift, np.cross(offsets, lift)))))
    columns = []
    for i in range(len(offsets)):
        columns += [np.concatenate((forward[i], np.cross(offsets[i], forward[i]))),
                    np.concatenate((lift[i], np.cross(offsets[i], lift[i]))),
                    np.concatenate((np.zeros(3), span[i]))]
    return flow_map, np.array(columns).T
