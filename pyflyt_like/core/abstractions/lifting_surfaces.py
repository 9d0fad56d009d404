"""Lifting surfaces (wings, tails, control surfaces) on a rigid airframe, in PyBullet.

The aerodynamics of a surface (Khan & Nahon's finite-wing model, its stall and flap terms,
the deflection lag) are :mod:`pyflyt_like.physics.lifting_surface`, shared with the batched
engine; this module applies them to a PyBullet body.
"""

from __future__ import annotations

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
from pyflyt_like.physics.lifting_surface import (
    STALL_LIFT_SHARE,
    angle_of_attack,
    coefficients,
    deflection_step,
    surface_constants,
    surface_loads,
    surface_maps,
)

from .boring_bodies import base_air_velocity
from .rigid_links import link_geometry


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
        constants = surface_constants(*(column(name) for name in (
            "Cl_alpha_2D", "chord", "span", "flap_to_chord", "eta", "alpha_0_base",
            "alpha_stall_P_base", "alpha_stall_N_base", "Cd_0", "deflection_limit",
            "command_sign")))
        self.constants = constants
        self.chord, self.aspect, self.cl_alpha = constants.chord, constants.aspect, \
            constants.cl_alpha
        self.area = self.chord * column("span")
        self.flap_gain, self.cd_0 = constants.flap_gain, constants.cd_0
        self.alpha_0_base = constants.alpha_0_base
        self.alpha_stall_p_base = constants.stall_p_base
        self.alpha_stall_n_base = constants.stall_n_base
        self.deflection_limit = np.radians(column("deflection_limit"))
        self._lag_gain = 1.0 - np.exp(-physics_period / column("tau"))
        self.deflection = np.zeros(n)
        offsets, to_base = link_geometry(self.client_id, self.uav_id, self.ids)
        self._flow_map, self._wrench_map = surface_maps(offsets, to_base, self.forward_unit,
                                                        self.lift_unit)
        # Per surface, the coefficients' constants of the hot path as plain floats.
        self._constants = list(zip(*(getattr(constants, name).tolist() for name in (
            "flap_gain", "alpha_0_base", "stall_p_base", "stall_n_base", "aspect", "cl_alpha",
            "cd_0", "plate_loss"))))
        # Everything the hot loop needs about surface i, in one flat tuple of floats (flat,
        # so the coefficients take positional arguments, not a starred tuple): command
        # index (-1: fixed, which reads the 0.0 appended to the commands), signed travel
        # [rad], lag gain, rho S / 2, chord, then the coefficients' constants.
        self._per_surface = [(index, travel, gain, half_rho_area, chord, *coefficient_constants)
                             for index, travel, gain, half_rho_area, chord, coefficient_constants
                             in zip([-1 if c is None else int(c) for c in self.command_ids],
                                    constants.travel.tolist(), self._lag_gain.tolist(),
                                    constants.half_rho_area.tolist(), self.chord.tolist(),
                                    self._constants)]
        # The length a command vector needs: one past the highest command index read.
        self._command_size = 1 + max(surface[0] for surface in self._per_surface)
        self._flow = [0.0] * (2 * n)  # chordwise-forward then normal airflow [m/s]
        self._load_scales = np.zeros(3 * n)  # per surface: along forward, along lift, moment

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
        self.flow_update(np.concatenate((rotation @ air_velocity, angular_velocity)))

    def flow_update(self, motion: Sequence[float] | np.ndarray) -> None:
        """Work out each surface's chordwise and normal airflow from the base's motion.

        Args:
            motion: (6,) the base's body-frame air velocity [m/s] (velocity − wind, in the
                body frame) then its body-frame angular velocity [rad/s].
        """
        if len(motion) != 6:
            raise ValueError(f"motion must have 6 values (body air velocity, body rates), got "
                             f"{len(motion)}")
        # ndarray.dot on a 6-vector costs half of the @ operator's dispatch.
        self._flow = self._flow_map.dot(np.asarray(motion, dtype=float)).tolist()

    def aerodynamics(self, alpha: np.ndarray, deflection: np.ndarray
                     ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Return (Cl, Cd, Cm), each (n,), at angles of attack ``alpha`` and deflection [rad]."""
        values = [coefficients(a, d, *c) for a, d, c in
                  zip(np.asarray(alpha, float).tolist(), np.asarray(deflection, float).tolist(),
                      self._constants)]
        return tuple(np.array(v) for v in zip(*values))

    def physics_update(self, command: np.ndarray) -> None:
        """Advance deflections under ``command`` (values in [-1, 1]) and apply the loads.

        Args:
            command: the drone's surface command vector; surface i reads
                ``command[command_id_i] * command_sign_i``.
        """
        fx, fy, fz, tx, ty, tz = self.base_wrench(command)
        uav, client, frame = self.uav_id, self.client_id, pybullet.LINK_FRAME
        pybullet.applyExternalForce(uav, -1, (fx, fy, fz), (0.0, 0.0, 0.0), frame,
                                    physicsClientId=client)
        pybullet.applyExternalTorque(uav, -1, (tx, ty, tz), frame, physicsClientId=client)

    def base_wrench(self, command: np.ndarray | Sequence[float]) -> list[float]:
        """Advance deflections under ``command`` and return the loads without applying them.

        The airflow is the last :meth:`state_update`'s (or :meth:`flow_update`'s); a vehicle
        that sums these loads with others on its base applies them once, itself.

        Args:
            command: the drone's surface command vector, as :meth:`physics_update`'s.

        Returns:
            [fx, fy, fz, tx, ty, tz]: the force [N] at the base origin and the torque
            [N m] about it of all surfaces, base frame (PyBullet's ``LINK_FRAME`` of link -1).
        """
        commands = command.tolist() if isinstance(command, np.ndarray) else list(command)
        if len(commands) < self._command_size:
            raise ValueError(f"command must have at least {self._command_size} values (the "
                             f"surfaces' command_id), got {len(commands)}")
        commands.append(0.0)  # what a fixed surface (command index -1) reads
        flow, n = self._flow, len(self._per_surface)
        deflections, scales = [], []
        for deflection, forward, up, (index, travel, gain, half_rho_area, chord, flap_gain,
                                      alpha_0_base, stall_p_base, stall_n_base, aspect, cl_alpha,
                                      cd_0, plate_loss) in zip(
                self.deflection.tolist(), flow[:n], flow[n:], self._per_surface):
            deflection = deflection_step(deflection, commands[index], travel, gain)
            deflections.append(deflection)
            cl, cd, cm = coefficients(angle_of_attack(forward, up), deflection, flap_gain,
                                      alpha_0_base, stall_p_base, stall_n_base, aspect,
                                      cl_alpha, cd_0, plate_loss)
            scales += surface_loads(forward, up, cl, cd, cm, half_rho_area, chord)
        self.deflection[:] = deflections
        # A new array each step (not a copy into the old one): the properties read it.
        self._load_scales = np.array(scales)
        return self._wrench_map.dot(self._load_scales).tolist()


def _check_rotation(rotation_matrix: object) -> np.ndarray:
    rotation = np.asarray(rotation_matrix)
    if rotation.shape != (3, 3):
        raise ValueError(f"rotation_matrix must have shape (3, 3), got {rotation.shape}")
    return rotation
