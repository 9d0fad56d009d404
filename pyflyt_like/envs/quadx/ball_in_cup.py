"""QuadX-Ball-In-Cup: swing a ball hanging on a string up and into a cup on top of the drone."""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces

from pyflyt_like.common.validation import check_positive_float

from .base import QuadXBaseEnv
from .mounted_cup import MountedCup
from .tethered_ball import TetheredBall

STRING_ATTACH_POINT = (0.0, 0.0, -0.01)  # m, body frame: centre of the cf2x frame's underside
CUP_MOUNT_POINT = (0.0, 0.0, 0.01)  # m, body frame: centre of the cf2x frame's top
BALL_HIT_PENALTY = -500.0  # reward of a step in which the ball strikes the drone from below
SUCCESS_BONUS = 500.0  # reward of the step that lands the ball in the cup
BALL_POSITION_MARGIN = 0.05  # m, observation bound beyond the string's reach
BALL_SPEED_BOUND = 60.0  # m/s, observation bound on the ball's speed relative to the drone
ENDING_POSITION = np.array([0.0, 0.0, 1.0])  # m, where goal_reach_distance is measured (PyFlyt's)


def optional_positive(name: str, value: float | None) -> float:
    """``value`` as a float if it is a positive number; None means no limit (inf)."""
    return np.inf if value is None else check_positive_float(name, value)


def ball_in_cup_shaping(ball: np.ndarray, attach_point: np.ndarray, mouth: np.ndarray,
                        string_length: float) -> float:
    """Dense reward in [0, 1] for the ball at ``ball`` (body frame [m], as the other points).

    Half of it is the ball's height above the string's upper end, mapped from
    [-L, L] to [0, 1] (0 hanging straight down, 1 straight up); the other half is closeness
    to the cup's mouth, ``max(0, 1 - d / L)``. Along the swing it rises from 0 (hanging)
    to its maximum at the mouth, 0.5 + (1 + (z_mouth - z_attach) / L) / 4 (0.80 with the
    default geometry): rising a metre gains 0.25 / L, moving a metre away costs 0.5 / L.
    """
    height = (ball[2] - attach_point[2]) / string_length
    height = min(max(height, -1.0), 1.0)
    offset = ball - mouth
    closeness = max(0.0, 1.0 - float(np.sqrt(offset @ offset)) / string_length)
    return 0.25 * (1.0 + height) + 0.5 * closeness


class QuadXBallInCupEnv(QuadXBaseEnv):
    """Swing the ball up and drop it into the cup.

    The drone carries an open cup on top; a 5 g ball hangs below it on a 0.3 m string that
    goes slack (see :mod:`~pyflyt_like.envs.quadx.tethered_ball`). Each episode starts with the
    ball hanging at rest straight below the drone.

    Observation (Box): the attitude vector (see docs/envs.md) followed by the ball's
    position relative to the drone in the body frame (3) [m] and the ball's velocity
    relative to the drone, rotated into the body frame (3) [m/s].

    Reward: ``SUCCESS_BONUS`` (+500) and termination with ``info["env_complete"]`` when the
    ball's centre is inside the cup. ``BALL_HIT_PENALTY`` (-500) and termination with
    ``info["ball_hit"]`` when the ball touches the drone or the cup with its centre below
    the drone's body-frame x-y plane (a strike from below). Otherwise the dense reward is
    :func:`ball_in_cup_shaping` and the sparse reward 0. The ball and the cup are not crash
    bodies for the drone, and the ball on the floor is harmless; the drone or the cup
    touching the floor (or anything else) is a collision (-100, ``info["collision"]``).

    Args:
        goal_reach_distance: if given, a catch counts only with the drone within this
            distance of (0, 0, 1) [m] (PyFlyt's option; default None: anywhere). A ball in
            the cup elsewhere is no success yet: the episode goes on.
        goal_reach_velocity: if given, a catch counts only with the drone slower than this
            [m/s] (PyFlyt's option; default None: any speed).
        **options: see :class:`QuadXBaseEnv` (defaults here: start (0, 0, 4) m, dome 30 m,
            10 s, 30 Hz, mode 0).
    """

    def __init__(self, *, goal_reach_distance: float | None = None,
                 goal_reach_velocity: float | None = None, start_pos=(0.0, 0.0, 4.0),
                 flight_dome_size: float = 30.0, max_duration_seconds: float = 10.0,
                 agent_hz: int = 30, **options: Any):
        self.goal_reach_distance = optional_positive("goal_reach_distance", goal_reach_distance)
        self.goal_reach_velocity = optional_positive("goal_reach_velocity", goal_reach_velocity)
        self._ball_event: str | None = None
        super().__init__(start_pos=start_pos, flight_dome_size=flight_dome_size,
                         max_duration_seconds=max_duration_seconds, agent_hz=agent_hz,
                         **options)

    # ----------------------------------------------------------------- task hooks
    def add_task_bodies(self) -> None:
        self.ball = TetheredBall(self.drone, STRING_ATTACH_POINT)
        self.cup = MountedCup(self.drone, CUP_MOUNT_POINT)

    def harmless_contacts(self) -> list[int]:
        return [self.ball.body_id, self.cup.body_id]

    def make_observation_space(self) -> spaces.Box:
        attitude = self.attitude.space
        reach = (self.ball.string_length + float(np.linalg.norm(STRING_ATTACH_POINT))
                 + BALL_POSITION_MARGIN)
        bound = np.concatenate([np.full(3, reach), np.full(3, BALL_SPEED_BOUND)])
        self._observation_low = np.concatenate([attitude.low, -bound])
        self._observation_high = np.concatenate([attitude.high, bound])
        return spaces.Box(self._observation_low, self._observation_high, dtype=np.float64)

    def reset_task(self) -> None:
        self.cup.reset()
        self.ball.reset()
        self._ball_event = None

    def refresh_task_bodies(self) -> None:
        self.ball.update()  # read again before each use, so this changes no step's outcome

    def crash_contact(self, contact_row: np.ndarray) -> bool:
        """The drone's contacts, and the cup's: the cup is part of the vehicle."""
        return super().crash_contact(contact_row) or super().crash_contact(
            self.aviary.contact_array[self.cup.body_id])

    def after_aviary_step(self) -> None:
        if self._ball_event is not None:
            return
        touches = self.aviary.contact_array[self.ball.body_id]
        if touches[self.drone.Id] or touches[self.cup.body_id]:
            ball = self.ball
            ball.update()
            if self.cup.holds(ball.position):
                self._ball_event = "caught"
            elif ball.position[2] < 0.0:
                self._ball_event = "hit"

    def drone_at_goal(self) -> bool:
        """True if the drone meets ``goal_reach_distance`` and ``goal_reach_velocity``."""
        drone = self.drone
        distance = float(np.linalg.norm(drone.state[3] - ENDING_POSITION))
        speed = float(np.linalg.norm(drone.state[2]))
        return distance < self.goal_reach_distance and speed < self.goal_reach_velocity

    def observe(self) -> np.ndarray:
        """Attitude vector, then the ball's body-frame position and velocity (fresh array)."""
        n = self.attitude.size
        out = np.empty(n + 6)
        out[:n] = self.attitude.observe(self.action)
        out[n:n + 3] = self.ball.position
        out[n + 3:] = self.ball.velocity
        return np.clip(out, self._observation_low, self._observation_high, out=out)

    def task_reward(self) -> float:
        ball = self.ball
        ball.update()  # observe(), called next, reuses this reading
        if self._ball_event == "hit":
            self.termination = True
            self.info["ball_hit"] = True
            return BALL_HIT_PENALTY
        if self._ball_event == "caught" or self.cup.holds(ball.position):
            if self.drone_at_goal():
                self.termination = True
                self.info["env_complete"] = True
                return SUCCESS_BONUS
            self._ball_event = None  # caught away from the goal: judged again while held
        if self.sparse_reward:
            return 0.0
        return ball_in_cup_shaping(ball.position, self.ball.attach_point, self.cup.mouth,
                                   ball.string_length)
