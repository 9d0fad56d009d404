"""Lifting surfaces (wings, tails, control surfaces) on a rigid airframe.

Finite-wing model after Khan & Nahon (2015), the thin-airfoil family PyFlyt also uses:

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
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Literal

import numpy as np
import pybullet

from pyflyt_like.common.validation import (
    as_float_array,
    check_finite,
    check_int,
    check_positive_float,
)

from .boring_bodies import AIR_DENSITY, base_air_velocity
from .rigid_links import link_geometry

# Share of a flap's lift increment that also raises the maximum lift coefficient.
STALL_LIFT_SHARE = 0.5


class LiftingSurface:
    """Parameters of one lifting surface, with PyFlyt's constructor.

    A surface is stepped as part of a :class:`LiftingSurfaces` set, which works out all
    surfaces of a drone at once; it keeps the aviary context (``p``, ``physics_period``,
    ``np_random``, ``uav_id``) for that set.

    Args:
        p: the aviary (a pybullet BulletClient).
        physics_period: seconds per physics step, > 0.
        np_random: the aviary's random generator (unused: the model is deterministic).
        uav_id: pybullet body id of the drone.
        surface_id: link id of the surface (its centre of pressure sits at the link origin).
        lifting_unit: (3,) lift-normal direction in the link frame.
        forward_unit: (3,) chordwise forward direction in the link frame (⟂ lifting_unit).
        Cl_alpha_2D: 2-D lift slope [1/rad], > 0.
        chord: chord length c [m], > 0.
        span: span b [m], > 0.
        flap_to_chord: flap chord fraction in (0, 1].
        eta: flap effectiveness correction in (0, 1].
        alpha_0_base: zero-lift angle of attack [deg] (degrees, as PyFlyt's).
        alpha_stall_P_base: positive stall angle [deg], > alpha_0_base.
        alpha_stall_N_base: negative stall angle [deg], < alpha_0_base.
        Cd_0: zero-lift drag coefficient, >= 0.
        deflection_limit: maximum deflection [deg], in [0, 90).
        tau: deflection lag time constant [s], > 0.
        command_id: which entry of the set's command vector deflects this surface:
            ``"own"`` (default, PyFlyt's rule) its own index in the :class:`LiftingSurfaces`
            list; an int, that entry (e.g. two ailerons on one roll command); ``None``, never
            deflected.
        command_sign: +1 or -1, multiplies the command (mirrored ailerons).
    """

    def __init__(self, p, physics_period: float, np_random: np.random.Generator | None,
                 uav_id: int, surface_id: int, lifting_unit: Sequence[float],
                 forward_unit: Sequence[float], Cl_alpha_2D: float, chord: float, span: float,
                 flap_to_chord: float, eta: float, alpha_0_base: float,
                 alpha_stall_P_base: float, alpha_stall_N_base: float, Cd_0: float,
                 deflection_limit: float, tau: float,
                 command_id: int | None | Literal["own"] = "own", command_sign: float = 1.0):
        self.p = p
        self.physics_period = check_positive_float("physics_period", physics_period)
        self.np_random = np_random
        self.uav_id = check_int("uav_id", uav_id)
        self.surface_id = check_int("surface_id", surface_id)
        for name, value in (("Cl_alpha_2D", Cl_alpha_2D), ("chord", chord), ("span", span),
                            ("tau", tau)):
            check_positive_float(name, value)
        numbers = {name: check_finite(name, value) for name, value in (
            ("flap_to_chord", flap_to_chord), ("eta", eta), ("alpha_0_base", alpha_0_base),
            ("alpha_stall_P_base", alpha_stall_P_base),
            ("alpha_stall_N_base", alpha_stall_N_base), ("Cd_0", Cd_0),
            ("deflection_limit", deflection_limit), ("command_sign", command_sign))}
        if not 0 < numbers["flap_to_chord"] <= 1:
            raise ValueError(f"flap_to_chord must be in (0, 1], got {flap_to_chord!r}")
        if not 0 < numbers["eta"] <= 1:
            raise ValueError(f"eta must be in (0, 1], got {eta!r}")
        if not 0 <= numbers["deflection_limit"] < 90:
            raise ValueError(f"deflection_limit must be in [0, 90) degrees, got "
                             f"{deflection_limit!r}")
        if numbers["Cd_0"] < 0:
            raise ValueError(f"Cd_0 must be >= 0, got {Cd_0!r}")
        if not alpha_stall_N_base < alpha_0_base < alpha_stall_P_base:
            raise ValueError("stall angles must bracket alpha_0_base: need alpha_stall_N_base < "
                             "alpha_0_base < alpha_stall_P_base, got "
                             f"{alpha_stall_N_base}, {alpha_0_base}, {alpha_stall_P_base}")
        if numbers["command_sign"] not in (1.0, -1.0):
            raise ValueError(f"command_sign must be +1 or -1, got {command_sign!r}")
        if not (command_id is None or command_id == "own" or (
                isinstance(command_id, (int, np.integer)) and not isinstance(command_id, bool)
                and command_id >= 0)):
            raise ValueError(f"command_id must be 'own', None or an int >= 0, got "
                             f"{command_id!r}")
        lift = as_float_array("lifting_unit", lifting_unit, (3,))
        forward = as_float_array("forward_unit", forward_unit, (3,))
        if np.linalg.norm(lift) < 1e-9 or np.linalg.norm(forward) < 1e-9:
            raise ValueError("lifting_unit and forward_unit must be non-zero")
        lift, forward = lift / np.linalg.norm(lift), forward / np.linalg.norm(forward)
        if abs(lift @ forward) > 1e-6:
            raise ValueError("lifting_unit must be perpendicular to forward_unit")
        self.lifting_unit, self.forward_unit = lift, forward
        self.Cl_alpha_2D, self.chord, self.span = float(Cl_alpha_2D), float(chord), float(span)
        self.tau = float(tau)
        self.flap_to_chord, self.eta = numbers["flap_to_chord"], numbers["eta"]
        self.alpha_0_base = numbers["alpha_0_base"]
        self.alpha_stall_P_base = numbers["alpha_stall_P_base"]
        self.alpha_stall_N_base = numbers["alpha_stall_N_base"]
        self.Cd_0, self.deflection_limit = numbers["Cd_0"], numbers["deflection_limit"]
        self.command_id = command_id if command_id in (None, "own") else int(command_id)
        self.command_sign = numbers["command_sign"]


class LiftingSurfaces:
    """A set of lifting surfaces on one drone.

    Args:
        lifting_surfaces: the :class:`LiftingSurface` parameters, one per link, all of one
            drone in one aviary (PyFlyt's constructor). The links must be fixed rigidly to
            the base (their offsets are taken once, here).

    Because the surfaces are rigid on the base, everything between the base's motion and
    its load is linear apart from the aerodynamic coefficients: the chordwise and normal
    airflow of every surface is one (2n, 6) map of the base's body velocity and rates, and
    the loads of all surfaces reach the base as one force and one torque through a
    (6, 3n) map. Both maps are built once; the coefficients are computed on Python floats,
    which beats numpy's per-call overhead for the handful of surfaces a vehicle has.
    Applying the loads on the base also keeps them in the current frame: PyBullet's cached
    link frames lag one physics step behind the base, so loads given per link in
    LINK_FRAME were rotated by the previous step's attitude.
    """

    def __init__(self, lifting_surfaces: Sequence[LiftingSurface]):
        surfaces = list(lifting_surfaces) if isinstance(lifting_surfaces, (list, tuple)) else []
        if not surfaces or not all(isinstance(s, LiftingSurface) for s in surfaces):
            raise TypeError("lifting_surfaces must be a non-empty list of LiftingSurface, got "
                            f"{lifting_surfaces!r}")
        first = surfaces[0]
        if any((s.p, s.uav_id, s.physics_period) != (first.p, first.uav_id, first.physics_period)
               for s in surfaces):
            raise ValueError("lifting_surfaces must all belong to one drone: the same p, uav_id "
                             "and physics_period")
        self.p = first.p
        self.client_id = first.p._client
        self.uav_id = first.uav_id
        self.surfaces = surfaces
        self.ids = [s.surface_id for s in surfaces]
        n = len(surfaces)
        physics_period = first.physics_period

        def column(name: str) -> np.ndarray:
            return np.array([getattr(s, name) for s in surfaces], dtype=float)

        self.command_ids = [i if s.command_id == "own" else s.command_id
                            for i, s in enumerate(surfaces)]
        self.command_sign = column("command_sign")
        self.lift_unit = np.array([s.lifting_unit for s in surfaces])
        self.forward_unit = np.array([s.forward_unit for s in surfaces])
        self.span_unit = np.cross(self.forward_unit, self.lift_unit)  # nose-up moment axis
        self.chord, span = column("chord"), column("span")
        self.area = self.chord * span
        self.aspect = span / self.chord
        self.cl_alpha = column("Cl_alpha_2D") * self.aspect / (
            self.aspect + 2.0 * (self.aspect + 4.0) / (self.aspect + 2.0))
        theta_f = np.arccos(2.0 * column("flap_to_chord") - 1.0)
        self.flap_gain = (1.0 - (theta_f - np.sin(theta_f)) / np.pi) * column("eta")
        self.alpha_0_base = np.radians(column("alpha_0_base"))
        self.alpha_stall_p_base = np.radians(column("alpha_stall_P_base"))
        self.alpha_stall_n_base = np.radians(column("alpha_stall_N_base"))
        self.cd_0 = column("Cd_0")
        self.deflection_limit = np.radians(column("deflection_limit"))
        self._lag_gain = 1.0 - np.exp(-physics_period / column("tau"))
        self._plate_loss = 0.41 * (1.0 - np.exp(-17.0 / self.aspect))
        self.deflection = np.zeros(n)
        self._build_maps(*link_geometry(self.client_id, self.uav_id, self.ids))
        # Per surface, the constants of the hot path as plain floats.
        self._constants = list(zip(
            self.flap_gain.tolist(), self.alpha_0_base.tolist(),
            self.alpha_stall_p_base.tolist(), self.alpha_stall_n_base.tolist(),
            self.aspect.tolist(), self.cl_alpha.tolist(), self.cd_0.tolist(),
            self._plate_loss.tolist()))
        # Everything the hot loop needs about surface i, in one tuple of floats: command
        # index (-1: fixed), signed travel [rad], lag gain, rho S / 2, chord, coefficients.
        self._per_surface = list(zip(
            [-1 if c is None else int(c) for c in self.command_ids],
            (self.command_sign * self.deflection_limit).tolist(), self._lag_gain.tolist(),
            (0.5 * AIR_DENSITY * self.area).tolist(), self.chord.tolist(), self._constants))
        self._scales = [0.0] * (3 * n)
        self._flow = [0.0] * (2 * n)  # chordwise-forward then normal airflow [m/s]
        self._load_scales = np.zeros(3 * n)  # per surface: along forward, along lift, moment

    def _build_maps(self, offsets: np.ndarray, to_base: np.ndarray) -> None:
        """The linear maps: base motion -> surface airflow, and surface loads -> base wrench.

        Args:
            offsets: (n, 3) surface origins from the base, base frame [m].
            to_base: (n, 3, 3) surface-to-base rotations.
        """
        forward = np.einsum("nij,nj->ni", to_base, self.forward_unit)  # base frame
        lift = np.einsum("nij,nj->ni", to_base, self.lift_unit)
        span = np.einsum("nij,nj->ni", to_base, self.span_unit)
        # Airflow at a surface: v + w x r; its component along u is v.u + w.(r x u).
        self._flow_map = np.vstack((np.hstack((forward, np.cross(offsets, forward))),
                                    np.hstack((lift, np.cross(offsets, lift)))))
        # Load of a surface: a force along forward and lift at r, plus a moment along span.
        columns = []
        for i in range(len(self.ids)):
            columns += [np.concatenate((forward[i], np.cross(offsets[i], forward[i]))),
                        np.concatenate((lift[i], np.cross(offsets[i], lift[i]))),
                        np.concatenate((np.zeros(3), span[i]))]
        self._wrench_map = np.array(columns).T

    def reset(self) -> None:
        """Centre every surface and forget the airflow."""
        self.deflection[:] = 0.0
        self._flow = [0.0] * (2 * len(self.ids))
        self._load_scales[:] = 0.0

    def get_states(self) -> np.ndarray:
        """Return a copy of the (n,) deflections [rad]."""
        return self.deflection.copy()

    @property
    def forces(self) -> np.ndarray:
        """(n, 3) aerodynamic force of each surface in its link frame [N], last physics step."""
        scales = self._load_scales.reshape(-1, 3)
        return scales[:, :1] * self.forward_unit + scales[:, 1:2] * self.lift_unit

    @property
    def angles_of_attack(self) -> np.ndarray:
        """(n,) angle of attack of each surface [rad], from the last :meth:`state_update`
        (0 in still air)."""
        n = len(self.ids)
        flow = np.array(self._flow)
        return np.arctan2(-flow[n:], flow[:n])

    @property
    def stall_margins(self) -> np.ndarray:
        """(n,) how far each surface's angle of attack is from its nearer stall angle [rad]
        at its present deflection; negative: the surface is stalled."""
        shift = (1.0 - STALL_LIFT_SHARE) * self.flap_gain * self.deflection
        alpha = self.angles_of_attack
        return np.minimum(self.alpha_stall_p_base - shift - alpha,
                          alpha - (self.alpha_stall_n_base - shift))

    @property
    def torques(self) -> np.ndarray:
        """(n, 3) pitching moment of each surface in its link frame [N m], last physics step."""
        return self._load_scales.reshape(-1, 3)[:, 2:] * self.span_unit

    def state_update(self, rotation_matrix: np.ndarray, air_velocity: np.ndarray | None = None,
                     angular_velocity: np.ndarray | None = None) -> None:
        """Work out each surface's chordwise and normal airflow.

        Args:
            rotation_matrix: (3, 3) ground-to-body rotation of the base (PyFlyt's convention:
                it takes a ground-frame vector into the body frame; the transpose of
                ``drone.rotation_matrix``).
            air_velocity: (3,) ground-frame air velocity of the base [m/s] (velocity − wind).
                ``None`` (PyFlyt's call) reads the base velocity from pybullet and subtracts
                the aviary's wind at the base.
            angular_velocity: (3,) body-frame angular velocity of the base [rad/s]; ``None``
                reads it from pybullet.
        """
        rotation = _check_rotation(rotation_matrix)
        if air_velocity is None or angular_velocity is None:
            air, spin = base_air_velocity(self.p, self.uav_id)
            air_velocity = air if air_velocity is None else air_velocity
            angular_velocity = rotation @ spin if angular_velocity is None else angular_velocity
        motion = np.concatenate((rotation @ air_velocity, angular_velocity))
        self._flow = (self._flow_map @ motion).tolist()

    def aerodynamics(self, alpha: np.ndarray, deflection: np.ndarray
                     ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Return (Cl, Cd, Cm), each (n,), at angles of attack ``alpha`` and deflection [rad]."""
        values = [_coefficients(a, d, *c) for a, d, c in
                  zip(np.asarray(alpha, float).tolist(), np.asarray(deflection, float).tolist(),
                      self._constants)]
        return tuple(np.array(v) for v in zip(*values))

    def physics_update(self, command: np.ndarray) -> None:
        """Advance deflections under ``command`` (values in [-1, 1]) and apply the loads.

        Args:
            command: the drone's surface command vector; surface i reads
                ``command[command_id_i] * command_sign_i``.
        """
        commands = command.tolist() if isinstance(command, np.ndarray) else list(command)
        deflections = self.deflection.tolist()
        flow, n = self._flow, len(deflections)
        atan2, sqrt = math.atan2, math.sqrt
        scales = self._scales
        for i, (index, travel, gain, half_rho_area, chord, constants) in enumerate(
                self._per_surface):
            target = 0.0
            if index >= 0:
                c = commands[index]
                target = travel * (-1.0 if c < -1.0 else (1.0 if c > 1.0 else c))
            deflection = deflections[i] + gain * (target - deflections[i])
            deflections[i] = deflection
            forward, up = flow[i], flow[n + i]
            speed2 = forward * forward + up * up
            alpha = atan2(-up, forward)
            cl, cd, cm = _coefficients(alpha, deflection, *constants)
            qs = half_rho_area * speed2
            # sin and cos of alpha straight from the flow (alpha = 0 in still air).
            speed = sqrt(speed2)
            sin_a, cos_a = (-up / speed, forward / speed) if speed > 0.0 else (0.0, 1.0)
            scales[3 * i] = qs * (cl * sin_a - cd * cos_a)
            scales[3 * i + 1] = qs * (cl * cos_a + cd * sin_a)
            scales[3 * i + 2] = qs * chord * cm
        self.deflection[:] = deflections
        self._load_scales[:] = scales
        fx, fy, fz, tx, ty, tz = (self._wrench_map @ self._load_scales).tolist()
        uav, client, frame = self.uav_id, self.client_id, pybullet.LINK_FRAME
        pybullet.applyExternalForce(uav, -1, (fx, fy, fz), (0.0, 0.0, 0.0), frame,
                                    physicsClientId=client)
        pybullet.applyExternalTorque(uav, -1, (tx, ty, tz), frame, physicsClientId=client)


def _coefficients(alpha: float, deflection: float, flap_gain: float, alpha_0_base: float,
                  stall_p_base: float, stall_n_base: float, aspect: float, cl_alpha: float,
                  cd_0: float, plate_loss: float) -> tuple[float, float, float]:
    """(Cl, Cd, Cm) of one surface at angle of attack ``alpha`` and ``deflection`` [rad]."""
    shift = flap_gain * deflection
    alpha_0 = alpha_0_base - shift
    stall_p = stall_p_base - (1.0 - STALL_LIFT_SHARE) * shift
    stall_n = stall_n_base - (1.0 - STALL_LIFT_SHARE) * shift
    if stall_n <= alpha <= stall_p:  # attached flow
        cl = cl_alpha * (alpha - alpha_0)
        induced = cl / (math.pi * aspect)
        effective = alpha - alpha_0 - induced
        cos_e = math.cos(effective)
        tangential = cd_0 * cos_e
        normal = (cl + tangential * math.sin(effective)) / cos_e
        cd = normal * math.sin(effective + induced) + tangential * math.cos(effective + induced)
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


def _check_rotation(rotation_matrix: object) -> np.ndarray:
    rotation = np.asarray(rotation_matrix)
    if rotation.shape != (3, 3):
        raise ValueError(f"rotation_matrix must have shape (3, 3), got {rotation.shape}")
    return rotation
