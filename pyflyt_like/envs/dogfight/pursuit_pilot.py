"""PursuitPilot: a scripted dogfight pilot, observations in, normalised actions out.

It flies the fixed-wing dogfight scenes (:class:`MAFixedwingDogfightEnv` and its batched
twin) from each aircraft's flattened observation alone, vectorised over any number N of
aircraft: ``pilot(observations)`` maps an (N, obs_dim) array to (N, act_dim) float32
actions, with no Python loop over aircraft.

Each call, per aircraft:

1. Target: the enemy in play (ally flag 0, health > 0) of least engagement cost,
   ``distance + TARGET_ANGLE_WEIGHT * angle off the nose`` (the env's dense-shaping cost,
   scaled to metres), so a close target well off the nose can lose to one nearly lined up.
2. Lead: the guns are instantaneous, so there is no bullet flight to lead; the aim point is
   where the target will be relative to us after a short "time to close" horizon,
   ``p + v_rel * tau`` (body frame), ``tau = clip(distance / airspeed, tau_min, tau_max)``.
   This also covers the lag of the nose behind the commands.
3. Guidance as a wanted nose direction in the ground frame, then reshaped by the safety
   layers: dome avoidance (blend toward the origin near ``flight_dome_size``), floor
   avoidance (a climb angle floor that rises as the altitude, or the altitude a few seconds
   ahead on the current velocity, drops below ``floor_altitude``; the bank is faded out
   there so the lift points up) and collision avoidance (when another aircraft, of either
   team, will pass within ``min_separation`` in the next 1.5 s on straight lines, turn away
   from where it will be; head-on, break right).
4. Bank to turn with the fixed-wing autopilot's course law (mode 2's
   :func:`~pyflyt_like.control.fixedwing_autopilot.bank_for_course_error`, vectorised): the
   heading error asks for a turn rate, limited by the largest bank, and a coordinated turn at
   that rate needs the bank ``-atan(V psi_dot / g)``. The pitch setpoint points the nose at
   the aim's elevation, biased nose-up by the pitch-rate a steady turn needs (the
   attitude controller gets no pitch feed-forward, so it would otherwise sag). The yaw-rate
   command is the turn's coordination rate plus a rudder term on the aim's azimuth in the
   body frame, which does the fine aiming the bank loop is too slow for.
5. Energy: throttle (the level-flight throttle of the wanted airspeed plus proportional
   feedback) holds an airspeed setpoint in ``[min_airspeed, max_airspeed]``: the target's
   speed plus a closing term toward ``follow_distance`` (fast while far), eased down to the
   corner speed while the aim is well off the nose or the pilot is turning home from the
   dome's edge (a bank turns faster the slower one flies); below ``min_airspeed`` full
   throttle and no nose-up pitch (no stall).

Flight mode 1 outputs the (roll, pitch, yaw rate, throttle) setpoints directly; mode 0
runs them through a stateless attitude and rate law (the attitude controller's SO(3) error
on roll and pitch, proportional rate feedback to the surface commands). Mode -1 is not
supported.

Sign conventions (FLU body, ENU ground, PyBullet Euler order R = Rz(yaw) Ry(pitch) Rx(roll)):
positive roll is right wing down (turns right, heading decreasing), positive pitch is nose
down, positive yaw rate is nose left.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from pyflyt_like.common.angles import wrap_angle
from pyflyt_like.envs.base.vehicle_actions import (
    FIXEDWING_PITCH_LIMIT,
    FIXEDWING_ROLL_LIMIT,
    FIXEDWING_YAW_RATE_LIMIT,
    fixedwing_action_mapping,
)

from .options import observation_layout
from .pilot_attitudes import (
    desired_matrices,
    euler_to_matrices,
    heading_references,
    quaternions_to_matrices,
    rotation_errors,
)

GRAVITY = 9.81  # m/s^2
SUPPORTED_MODES = (0, 1)
MIN_AIRSPEED = 13.0  # m/s, the default floor under which the pilot only regains speed
TARGET_ANGLE_WEIGHT = 10.0  # m/rad: the env's 0.1 d + 1.0 angle cost, in metres
# The acrowing's attitude controller (acrowing.yaml attitude_controller): mode 0 mimics it.
ATTITUDE_ANGLE_KP = 6.0  # 1/s, rate setpoint per rad of roll/pitch error
RATE_LIMITS = np.array((5.0, 1.5, 1.0))  # rad/s, roll, pitch, yaw rate setpoints
# Mode 0 rate feedback [command per rad/s]: the YAML's proportional gains (stateless: the
# pilot keeps no integrators, so one pilot can serve changing sets of aircraft).
MODE0_RATE_GAINS = np.array((0.3, 0.5, 0.4))
# Guidance and energy gains (tuned on 1v1 acrowing duels, scripts/evaluate_pursuit_pilot.py)
HEADING_KP = 2.0  # 1/s, turn rate per rad of heading error (mode 2 uses 0.8: we fight)
RUDDER_KP = 2.0  # 1/s, yaw rate per rad of aim azimuth off the nose
CRUISE_AIRSPEED = 18.0  # m/s, with no target
# m/s: the 60 deg bank's 2 g are within the wing's reach above ~15 m/s, and slower turns
# tighter (0.85 rad/s at 20 m/s, 0.42 at 40)
CORNER_AIRSPEED = 20.0
AVOID_HORIZON = 1.5  # s, look-ahead of the collision check
DOME_BLEND = (0.7, 0.85)  # fractions of flight_dome_size: start and end of the turn home
TRIM_AIRSPEED = 14.0  # m/s, acrowing.yaml trim
TRIM_THROTTLE = 0.36  # acrowing.yaml trim throttle at 14 m/s level
# Steady airspeed of the acrowing grows about linearly with throttle: 26.5 m/s at 0.5,
# 42.7 at 0.7, 64.8 at 1.0 (measured, near-level flight), about 85 m/s per unit throttle.
THROTTLE_PER_SPEED = 1.0 / 85.0
THROTTLE_KP = 0.05  # throttle per m/s of airspeed error, on top of the feed-forward
CLIMB_THROTTLE = 0.5  # extra throttle per rad of wanted climb angle


def _option(env: Any, name: str) -> Any:
    """``env.<name>``, looked up on ``env.unwrapped`` too (wrappers); TypeError if absent."""
    for holder in (env, getattr(env, "unwrapped", None)):
        if holder is not None and hasattr(holder, name):
            return getattr(holder, name)
    raise TypeError(f"env must be a fixed-wing dogfight env with a {name!r} attribute "
                    f"(MAFixedwingDogfightEnv or Dogfight-v0), got {type(env).__name__}")


class PursuitPilot:
    """Scripted lead-pursuit pilot for the fixed-wing dogfight scenes (module docstring).

    Args:
        env: a :class:`~pyflyt_like.envs.MAFixedwingDogfightEnv` or the batched
            "Dogfight-v0" VectorEnv (wrappers are looked through via ``unwrapped``). Read:
            ``team_size``, ``flight_mode`` (0 or 1), ``angle_representation``,
            ``flatten_observation`` (must be True), ``flight_dome_size``,
            ``lethal_distance``, ``lethal_angle_radians`` and, if present, ``num_drones``
            (must be ``2 * team_size``).
        floor_altitude: below this altitude [m] (now, or ``floor_lookahead`` seconds ahead
            on the current velocity) the pilot climbs and levels its wings.
        floor_lookahead: horizon of the ground-proximity prediction [s].
        min_airspeed: airspeed [m/s] under which the pilot only regains speed.
        max_airspeed: the fastest airspeed setpoint [m/s] (chasing a far target).
        follow_distance: range [m] the pilot tries to sit at behind its target; defaults to
            half ``lethal_distance``.
        min_separation: predicted closest approach [m] to another aircraft under which the
            pilot turns away (no mid-air collisions).
        lead_time_limits: (tau_min, tau_max) [s] of the lead horizon.

    Raises:
        TypeError: ``env`` lacks one of the options.
        ValueError: an unsupported option (``flatten_observation=False``, flight mode -1,
            ``num_drones != 2 * team_size``) or a bad tuning argument.
    """

    def __init__(self, env: Any, *, floor_altitude: float = 30.0, floor_lookahead: float = 3.0,
                 min_airspeed: float = MIN_AIRSPEED, max_airspeed: float = 40.0,
                 follow_distance: float | None = None, min_separation: float = 5.0,
                 lead_time_limits: tuple[float, float] = (0.2, 1.0)):
        if not bool(_option(env, "flatten_observation")):
            raise ValueError("PursuitPilot needs flatten_observation=True (one Box per "
                             "aircraft); the Dict observation is not supported")
        mode = _option(env, "flight_mode")
        if isinstance(mode, bool) or mode not in SUPPORTED_MODES:
            raise ValueError(f"PursuitPilot supports flight_mode 1 (attitude hold) and 0 "
                             f"(raw roll/pitch/yaw commands), got flight_mode={mode!r} "
                             "(mode -1, surface commands, is not supported)")
        self.flight_mode = int(mode)
        representation = _option(env, "angle_representation")
        if representation not in ("quaternion", "euler"):
            raise ValueError(f"angle_representation must be 'quaternion' or 'euler', got "
                             f"{representation!r}")
        self.angle_representation = str(representation)
        team_size = _option(env, "team_size")
        if isinstance(team_size, bool) or not isinstance(team_size, (int, np.integer)) or (
                team_size < 1):
            raise ValueError(f"team_size must be an int >= 1, got {team_size!r}")
        self.team_size = int(team_size)
        self.num_drones = 2 * self.team_size
        for holder in (env, getattr(env, "unwrapped", None)):
            drones = getattr(holder, "num_drones", None)
            if drones is not None and int(drones) != self.num_drones:
                raise ValueError(f"num_drones ({drones}) must be 2 * team_size "
                                 f"({self.num_drones}): two teams per world")
        self.flight_dome_size = _positive("flight_dome_size", _option(env, "flight_dome_size"))
        self.lethal_distance = _positive("lethal_distance", _option(env, "lethal_distance"))
        self.lethal_angle = _positive("lethal_angle_radians",
                                      _option(env, "lethal_angle_radians"))
        self.floor_altitude = _positive("floor_altitude", floor_altitude)
        self.floor_lookahead = _positive("floor_lookahead", floor_lookahead)
        self.min_airspeed = _positive("min_airspeed", min_airspeed)
        self.max_airspeed = _positive("max_airspeed", max_airspeed)
        if self.max_airspeed <= self.min_airspeed:
            raise ValueError(f"max_airspeed ({max_airspeed!r}) must exceed min_airspeed "
                             f"({min_airspeed!r})")
        self.follow_distance = _positive(
            "follow_distance",
            0.5 * self.lethal_distance if follow_distance is None else follow_distance)
        self.min_separation = _positive("min_separation", min_separation)
        lead = tuple(lead_time_limits)
        if len(lead) != 2 or not 0.0 <= float(lead[0]) <= float(lead[1]) or not math.isfinite(
                float(lead[1])):
            raise ValueError(f"lead_time_limits must be (tau_min, tau_max) with 0 <= tau_min "
                             f"<= tau_max, finite, got {lead_time_limits!r}")
        self.lead_time_limits = (float(lead[0]), float(lead[1]))

        self.mapping = fixedwing_action_mapping(self.flight_mode)
        self.act_dim = self.mapping.size
        self.layout = observation_layout(self.angle_representation, self.act_dim,
                                         self.num_drones)
        self.obs_dim = self.layout.size
        for holder in (env, getattr(env, "unwrapped", None)):
            space = getattr(holder, "single_observation_space", None)
            if space is not None and getattr(space, "shape", None) != (self.obs_dim,):
                raise ValueError(f"env's observation shape {space.shape} is not the "
                                 f"({self.obs_dim},) this pilot reads")

    # ----------------------------------------------------------------- public API
    def __call__(self, observations: np.ndarray) -> np.ndarray:
        """Actions for a batch of aircraft.

        Args:
            observations: (N, obs_dim) flattened observations (float32 or float64), or one
                (obs_dim,) observation.

        Returns:
            (N, act_dim) float32 normalised actions within the action space (or (act_dim,)
            for one observation).
        """
        obs = np.asarray(observations)
        if obs.dtype.kind not in "fiu":
            raise TypeError(f"observations must be a numeric array, got dtype {obs.dtype}")
        single = obs.ndim == 1
        if single:
            obs = obs[None, :]
        if obs.ndim != 2 or obs.shape[1] != self.obs_dim:
            raise ValueError(f"observations must have shape (N, {self.obs_dim}) or "
                             f"({self.obs_dim},), got {np.shape(observations)}")
        obs = obs.astype(np.float64)
        if not np.all(np.isfinite(obs)):
            raise ValueError("observations must be finite (no NaN or inf)")
        roll, pitch, yaw_rate, throttle = self._setpoints(obs)
        if self.flight_mode == 1:
            setpoint = np.stack((roll, pitch, yaw_rate, throttle), axis=1)
        else:
            setpoint = self._mode0_commands(obs, roll, pitch, yaw_rate, throttle)
        actions = self.mapping.to_action(setpoint).astype(np.float32)
        return actions[0] if single else actions

    def act_dict(self, observations: dict[Any, np.ndarray]) -> dict[Any, np.ndarray]:
        """PettingZoo convenience: ``{agent: observation}`` -> ``{agent: action}``.

        Args:
            observations: each value a (obs_dim,) flattened observation.

        Returns:
            each agent's (act_dim,) float32 action, for ``env.step``.
        """
        if not isinstance(observations, dict):
            raise TypeError(f"observations must be a dict agent -> observation, got "
                            f"{type(observations).__name__}")
        if not observations:
            return {}
        agents = list(observations)
        actions = self(np.stack([np.asarray(observations[a]) for a in agents]))
        return dict(zip(agents, actions))

    # ----------------------------------------------------------------- guidance
    def _setpoints(self, obs: np.ndarray
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(N,) roll [rad], pitch [rad], yaw rate [rad/s] and throttle [0, 1] setpoints."""
        n = obs.shape[0]
        layout = self.layout
        angles = obs[:, layout.angles]
        rotations = (quaternions_to_matrices(angles) if angles.shape[1] == 4
                     else euler_to_matrices(angles))
        velocity_body = obs[:, layout.velocity]
        position = obs[:, layout.position]
        airspeed = np.linalg.norm(velocity_body, axis=1)
        velocity = np.einsum("nij,nj->ni", rotations, velocity_body)
        roll = np.arctan2(rotations[:, 2, 1], rotations[:, 2, 2])
        pitch = -np.arcsin(np.clip(rotations[:, 2, 0], -1.0, 1.0))

        # --- target: least-cost enemy in play
        blocks = layout.other_blocks(obs)
        rel_pos, rel_vel = blocks[:, :, 0:3], blocks[:, :, 3:6]
        health, ally = blocks[:, :, -2], blocks[:, :, -1]
        distance = np.linalg.norm(rel_pos, axis=2)
        off_nose = np.arccos(np.clip(rel_pos[:, :, 0] / np.maximum(distance, 1e-9), -1.0, 1.0))
        candidate = (ally < 0.5) & (health > 0.0)
        cost = np.where(candidate, distance + TARGET_ANGLE_WEIGHT * off_nose, np.inf)
        pick = np.argmin(cost, axis=1)
        rows = np.arange(n)
        engaged = candidate[rows, pick]
        target_pos, target_vel = rel_pos[rows, pick], rel_vel[rows, pick]
        target_distance = distance[rows, pick]

        # --- lead: where the target will be relative to us after the time to close
        tau = np.clip(target_distance / np.maximum(airspeed, 1.0), *self.lead_time_limits)
        aim_body = target_pos + target_vel * tau[:, None]
        aim = np.einsum("nij,nj->ni", rotations, aim_body)
        # Nobody to chase: fly toward the middle of the dome at the current height.
        aim = np.where(engaged[:, None], aim, _level(-position))
        aim_dir = _unit(aim, fallback=rotations[:, :, 0])

        # --- collision avoidance: the most urgent aircraft in play (either team) that will
        # pass within min_separation in the next AVOID_HORIZON seconds, on straight lines
        closing_speed_sq = np.einsum("nkj,nkj->nk", rel_vel, rel_vel)
        t_closest = np.clip(-np.einsum("nkj,nkj->nk", rel_pos, rel_vel)
                            / np.maximum(closing_speed_sq, 1e-9), 0.0, None)
        miss = rel_pos + rel_vel * t_closest[:, :, None]
        miss_distance = np.linalg.norm(miss, axis=2)
        threat = (health > 0.0) & (t_closest < AVOID_HORIZON) & (
            miss_distance < self.min_separation)
        urgency = np.where(threat, t_closest, np.inf)
        worst = np.argmin(urgency, axis=1)
        avoiding = threat[rows, worst]
        # turn away from where the other will be at the closest approach; dead ahead (both
        # on one line, e.g. head-on), break right (-y), as the rules of the air: two pilots
        # then pass left side to left side
        right = np.broadcast_to(np.array((0.0, -1.0, 0.0)), (n, 3))
        away = _unit(-miss[rows, worst] + right * (miss_distance[rows, worst] < 0.5)[:, None],
                     fallback=right)
        away = np.einsum("nij,nj->ni", rotations, away)
        aim_dir = np.where(avoiding[:, None], _unit(0.2 * aim_dir + away, away), aim_dir)

        # --- dome avoidance: blend toward the origin over the outer part of the dome
        radius = np.linalg.norm(position, axis=1)
        home = np.clip((radius / self.flight_dome_size - DOME_BLEND[0])
                       / (DOME_BLEND[1] - DOME_BLEND[0]), 0.0, 1.0)
        inward = _unit(_level(-position), fallback=aim_dir)
        aim_dir = _unit((1.0 - home[:, None]) * aim_dir + 2.0 * home[:, None] * inward, aim_dir)

        # --- floor avoidance: a climb-angle floor growing as the (predicted) altitude drops
        altitude = position[:, 2]
        predicted = altitude + np.minimum(velocity[:, 2], 0.0) * self.floor_lookahead
        danger = np.clip((self.floor_altitude - np.minimum(altitude, predicted))
                         / (0.5 * self.floor_altitude), 0.0, 1.0)
        horizontal = np.hypot(aim_dir[:, 0], aim_dir[:, 1])
        elevation = np.arctan2(aim_dir[:, 2], horizontal)
        # the lowest allowed climb angle: the steepest dive when safe, the steepest climb
        # when in danger
        elevation = np.maximum(elevation, (2.0 * danger - 1.0) * FIXEDWING_PITCH_LIMIT)

        # --- lateral: mode 2's course law (bank_for_course_error), vectorised
        heading = heading_references(rotations)
        wanted_heading = np.arctan2(aim_dir[:, 1], aim_dir[:, 0])
        heading_error = wrap_angle(wanted_heading - heading)
        speed = np.maximum(airspeed, self.min_airspeed)
        max_turn = GRAVITY * math.tan(FIXEDWING_ROLL_LIMIT) / speed
        turn_rate = np.clip(HEADING_KP * heading_error, -max_turn, max_turn)
        bank = -np.arctan(speed * turn_rate / GRAVITY)
        bank *= 1.0 - danger  # near the ground the lift points up
        # the rudder aims finely: azimuth of the aim point off the nose, body frame
        aim_in_body = np.einsum("nji,nj->ni", rotations, aim_dir)
        azimuth = np.arctan2(aim_in_body[:, 1], np.maximum(aim_in_body[:, 0], 1e-3))
        steady_turn = -GRAVITY * np.tan(roll) / speed  # heading rate of the current bank
        yaw_rate = (steady_turn * np.cos(pitch) * np.cos(roll)
                    + RUDDER_KP * np.clip(azimuth, -0.5, 0.5) * (aim_in_body[:, 0] > 0.0))

        # --- longitudinal: nose at the aim's elevation, plus the steady turn's pitch rate
        pitch_rate = steady_turn * np.cos(pitch) * np.sin(roll)  # body y, < 0: nose up
        pitch_setpoint = -elevation + pitch_rate / ATTITUDE_ANGLE_KP
        slow = airspeed < self.min_airspeed
        pitch_setpoint = np.where(slow, np.maximum(pitch_setpoint, 0.0), pitch_setpoint)

        # --- energy: airspeed setpoint from range, throttle by proportional feedback
        target_speed = np.linalg.norm(velocity_body + target_vel, axis=1)
        closing_wanted = np.clip(0.5 * (target_distance - self.follow_distance), -5.0, 15.0)
        wanted_speed = np.where(engaged, target_speed + closing_wanted, CRUISE_AIRSPEED)
        wanted_speed = np.clip(wanted_speed, self.min_airspeed + 1.0, self.max_airspeed)
        # turning hard (aim well off the nose, or heading home from the dome's edge): slow to
        # the corner speed, as the turn rate of a bank is g tan(bank) / V
        off_aim = np.arccos(np.clip(aim_in_body[:, 0], -1.0, 1.0))
        turning = np.maximum(np.clip((off_aim - 0.3) / 0.5, 0.0, 1.0), home)
        wanted_speed += turning * (np.minimum(wanted_speed, CORNER_AIRSPEED) - wanted_speed)
        wanted_speed = np.maximum(wanted_speed, self.min_airspeed + 4.0 * danger)
        # feed-forward: the level-flight throttle of the wanted speed, nearly linear in it
        throttle = np.clip(TRIM_THROTTLE + THROTTLE_PER_SPEED * (wanted_speed - TRIM_AIRSPEED)
                           + THROTTLE_KP * (wanted_speed - airspeed)
                           + CLIMB_THROTTLE * np.maximum(elevation, 0.0), 0.0, 1.0)
        throttle = np.where(slow, 1.0, throttle)
        return (np.clip(bank, -FIXEDWING_ROLL_LIMIT, FIXEDWING_ROLL_LIMIT),
                np.clip(pitch_setpoint, -FIXEDWING_PITCH_LIMIT, FIXEDWING_PITCH_LIMIT),
                np.clip(yaw_rate, -FIXEDWING_YAW_RATE_LIMIT, FIXEDWING_YAW_RATE_LIMIT),
                throttle)

    def _mode0_commands(self, obs: np.ndarray, roll: np.ndarray, pitch: np.ndarray,
                        yaw_rate: np.ndarray, throttle: np.ndarray) -> np.ndarray:
        """(N, 4) mode-0 [roll, pitch, yaw, thrust] commands flying the attitude setpoints.

        The attitude controller's law without its integrators: body-rate setpoints from the
        SO(3) roll/pitch error about the nose's heading, the yaw rate as given, then
        proportional rate feedback.
        """
        angles = obs[:, self.layout.angles]
        rotations = (quaternions_to_matrices(angles) if angles.shape[1] == 4
                     else euler_to_matrices(angles))
        desired = desired_matrices(roll, pitch, heading_references(rotations))
        error = rotation_errors(rotations, desired)
        rates = np.stack((-ATTITUDE_ANGLE_KP * error[:, 0], -ATTITUDE_ANGLE_KP * error[:, 1],
                          yaw_rate), axis=1)
        rates = np.clip(rates, -RATE_LIMITS, RATE_LIMITS)
        commands = np.clip(MODE0_RATE_GAINS * (rates - obs[:, 0:3]), -1.0, 1.0)
        return np.concatenate((commands, throttle[:, None]), axis=1)


def _positive(name: str, value: object) -> float:
    if isinstance(value, bool):
        raise TypeError(f"{name} must be a number > 0, got {value!r}")
    try:
        number = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be a number > 0, got {value!r}") from None
    if not math.isfinite(number) or number <= 0.0:
        raise ValueError(f"{name} must be a finite number > 0, got {value!r}")
    return number


def _level(vectors: np.ndarray) -> np.ndarray:
    """(N, 3) ``vectors`` with the vertical part removed."""
    out = vectors.copy()
    out[:, 2] = 0.0
    return out


def _unit(vectors: np.ndarray, fallback: np.ndarray) -> np.ndarray:
    """(N, 3) unit vectors along ``vectors``; ``fallback`` rows where a vector is ~0."""
    norm = np.linalg.norm(vectors, axis=1, keepdims=True)
    return np.where(norm > 1e-9, vectors / np.maximum(norm, 1e-9), fallback)
