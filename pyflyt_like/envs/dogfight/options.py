"""The dogfight's options and spaces, checked and built once for both engines.

The PettingZoo scene (:class:`~pyflyt_like.envs.MAFixedwingDogfightEnv`) and the batched
``Dogfight-v0`` take the same keyword options with the same meaning; this module checks
them (:func:`dogfight_options`) and builds the per-aircraft observation bounds
(:func:`observation_bounds`) so that both envs have equal spaces; :func:`observation_layout`
says where each quantity sits in that observation, for pilots and analyses that read it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from pyflyt_like.common.validation import (
    check_bool,
    check_finite,
    check_float_in,
    check_positive_float,
    check_positive_int,
)
from pyflyt_like.rules.dogfight import TEAMS

from ..base.attitude_observation import check_angle_representation
from ..base.task_options import check_duration, episode_steps

MAX_RATE = 50.0  # rad/s, body-rate bound of the attitude vector
MAX_SPEED = 80.0  # m/s, well above a dive's speed for the shipped aircraft
MAX_RELATIVE_SPEED_FACTOR = 2.0  # relative velocities are bounded by this x the max speed
#: Aircraft per team at most. Each aircraft observes every other and the guns and rewards
#: weigh every pair, so a world costs the square of its aircraft: at 128 a side (256
#: aircraft, observations of 3084 entries) the batched step takes ~4 ms per world and the
#: PyBullet scene builds in ~2.5 s and steps in ~0.15 s (one core); the memory of
#: Dogfight-v0's arrays and spaces is checked against num_envs on top.
MAX_TEAM_SIZE = 128
#: flight_dome_size at most this [m]: 100 km, over a hundred times the default 800 m and
#: beyond an hour's flight of the shipped aircraft at cruise; the observation bounds scale
#: with it (4 x the dome), and 1e308 would make them infinite.
MAX_DOME_SIZE = 100_000.0


@dataclass(frozen=True)
class DogfightOptions:
    """The checked options of a dogfight (see :class:`~pyflyt_like.envs.MAFixedwingDogfightEnv`
    for their meaning).

    Attributes:
        team_size: aircraft per team; num_drones: aircraft per world (two teams).
        flight_mode: the mode the agents fly (1 assisted, else 0 or -1).
        assisted_flight: whether ``flight_mode`` is 1.
        spawn_radius_range, spawn_height_range: (low, high) [m].
        damage_per_hit, lethal_distance [m], lethal_angle_radians [rad].
        aggressiveness, cooperativeness: in [0, 1].
        sparse_reward: no dense shaping.
        flight_dome_size [m], max_duration_seconds [s], agent_hz [Hz].
        angle_representation: "quaternion" or "euler".
    """

    team_size: int
    flight_mode: int
    assisted_flight: bool
    spawn_radius_range: tuple[float, float]
    spawn_height_range: tuple[float, float]
    damage_per_hit: float
    lethal_distance: float
    lethal_angle_radians: float
    aggressiveness: float
    cooperativeness: float
    sparse_reward: bool
    flight_dome_size: float
    max_duration_seconds: float
    agent_hz: int
    angle_representation: str

    @property
    def num_drones(self) -> int:
        return TEAMS * self.team_size

    @property
    def team(self) -> np.ndarray:
        """(num_drones,) int: the team of each aircraft (the first ``team_size`` are 0)."""
        return np.repeat(np.arange(TEAMS), self.team_size)

    def max_steps(self) -> int:
        """Agent steps per episode (at least one)."""
        return episode_steps(self.max_duration_seconds, self.agent_hz)


def dogfight_options(*, team_size: int = 2, spawn_min_radius: float = 10.0,
                     spawn_max_radius: float = 50.0, spawn_min_height: float = 20.0,
                     spawn_max_height: float = 50.0, damage_per_hit: float = 0.003,
                     lethal_distance: float = 20.0, lethal_angle_radians: float = 0.07,
                     assisted_flight: bool = True, aggressiveness: float = 0.5,
                     cooperativeness: float = 0.5, sparse_reward: bool = False,
                     flight_dome_size: float = 800.0, max_duration_seconds: float = 60.0,
                     agent_hz: int = 30, flight_mode: int | None = None,
                     angle_representation: str = "quaternion") -> DogfightOptions:
    """Check the dogfight's options (the defaults are the PettingZoo scene's).

    Raises:
        TypeError, ValueError: a bad option, naming it and what is allowed.
    """
    lethal_angle = check_positive_float("lethal_angle_radians", lethal_angle_radians)
    if lethal_angle >= math.pi / 2:
        raise ValueError(f"lethal_angle_radians must be in (0, pi/2), got "
                         f"{lethal_angle_radians!r}")
    radius_range = _check_range("spawn_min_radius", spawn_min_radius, "spawn_max_radius",
                                spawn_max_radius, 0.0)
    height_range = _check_range("spawn_min_height", spawn_min_height, "spawn_max_height",
                                spawn_max_height, None)
    dome = check_float_in("flight_dome_size", flight_dome_size, 0.0, MAX_DOME_SIZE,
                          low_open=True, unit=" m")
    farthest = math.hypot(radius_range[1], height_range[1])
    if farthest >= dome:
        raise ValueError(f"spawn points reach {farthest:.6g} m from the origin, outside "
                         f"flight_dome_size={dome:g} m: lower spawn_max_radius/"
                         "spawn_max_height or enlarge the dome")
    # two aircraft in the dome are at most its diameter apart: a longer range is no longer
    lethal_range = check_float_in("lethal_distance", lethal_distance, 0.0, 2.0 * dome,
                                  low_open=True, unit=" m (the dome's diameter)")
    return DogfightOptions(
        team_size=check_positive_int("team_size", team_size, maximum=MAX_TEAM_SIZE),
        flight_mode=dogfight_flight_mode(assisted_flight, flight_mode),
        assisted_flight=bool(assisted_flight),
        spawn_radius_range=radius_range, spawn_height_range=height_range,
        # health starts at 1: a hit of 1 destroys, a larger one only inflates the reward
        damage_per_hit=check_float_in("damage_per_hit", damage_per_hit, 0.0, 1.0,
                                      low_open=True),
        lethal_distance=lethal_range,
        lethal_angle_radians=lethal_angle,
        aggressiveness=_check_weight("aggressiveness", aggressiveness),
        cooperativeness=_check_weight("cooperativeness", cooperativeness),
        sparse_reward=check_bool("sparse_reward", sparse_reward),
        flight_dome_size=dome,
        max_duration_seconds=check_duration(max_duration_seconds),
        agent_hz=check_positive_int("agent_hz", agent_hz),
        angle_representation=check_angle_representation(angle_representation))


def dogfight_flight_mode(assisted_flight: object, flight_mode: object) -> int:
    """The fixed-wing mode the agents fly: 1 (attitude hold) when assisted, else 0 or -1.

    ``flight_mode=None`` picks 1 when assisted, 0 otherwise; an explicit mode must agree
    with ``assisted_flight``.
    """
    if not isinstance(assisted_flight, (bool, np.bool_)):
        raise TypeError(f"assisted_flight must be a bool, got {assisted_flight!r}")
    allowed = (1,) if assisted_flight else (0, -1)
    if flight_mode is None:
        return allowed[0]
    if isinstance(flight_mode, bool) or flight_mode not in allowed:
        raise ValueError(f"flight_mode must be one of {list(allowed)} (or None) with "
                         f"assisted_flight={bool(assisted_flight)}, got {flight_mode!r}")
    return int(flight_mode)


def observation_bounds(options: DogfightOptions, action_low: np.ndarray,
                       action_high: np.ndarray, aux_low: np.ndarray, aux_high: np.ndarray
                       ) -> tuple[np.ndarray, np.ndarray]:
    """(size,) low and high of one aircraft's flattened observation
    (:func:`pyflyt_like.rules.dogfight.observe`'s layout).

    Args:
        options: the checked options.
        action_low, action_high: (k,) bounds of the normalised action.
        aux_low, aux_high: (m,) bounds of the aux state (deflections [rad], throttle).
    """
    quaternion = options.angle_representation == "quaternion"
    n_angles, angle_bound = (4, 1.0) if quaternion else (3, math.pi)
    distance = 2.0 * options.flight_dome_size
    attitude_high = np.concatenate((np.full(3, MAX_RATE), np.full(n_angles, angle_bound),
                                    np.full(3, MAX_SPEED), np.full(3, distance)))
    reach = 4.0 * options.flight_dome_size  # two aircraft in (or just out of) the dome
    speed = MAX_RELATIVE_SPEED_FACTOR * MAX_SPEED
    block_high = np.concatenate((np.full(3, reach), np.full(3, speed),
                                 np.full(n_angles, angle_bound), (1.0, 1.0)))
    block_low = np.concatenate((-block_high[:-2], (0.0, 0.0)))
    others = options.num_drones - 1
    low = np.concatenate((-attitude_high, action_low, aux_low, (0.0,),
                          np.tile(block_low, others)))
    high = np.concatenate((attitude_high, action_high, aux_high, (1.0,),
                           np.tile(block_high, others)))
    return low, high


AUX_SIZE = 6  # the fixed-wing's aux state: five surface deflections [rad] and the throttle


@dataclass(frozen=True)
class ObservationLayout:
    """Where each quantity sits in one aircraft's flattened dogfight observation
    (:func:`pyflyt_like.rules.dogfight.observe`'s layout), as indices into its row.

    Attributes:
        angles: the attitude (quaternion x y z w, or roll pitch yaw [rad]).
        velocity: the body-frame velocity [m/s].
        position: the ground-frame position [m].
        throttle: the throttle now, in [0, 1] (the aux state's last entry).
        health: the aircraft's own health.
        others: where the first other aircraft's block starts.
        block: the size of each other aircraft's block: relative position [m] (0:3) and
            velocity [m/s] (3:6) in the body frame, attitude, health (-2), ally flag (-1).
        size: the whole observation's size.
    """

    angles: slice
    velocity: slice
    position: slice
    throttle: int
    health: int
    others: int
    block: int
    size: int

    def other_blocks(self, observations: np.ndarray) -> np.ndarray:
        """(N, num_drones - 1, block) view of the other aircraft's blocks of (N, size)
        observations."""
        return observations[:, self.others:].reshape(observations.shape[0], -1, self.block)


def observation_layout(angle_representation: str, act_dim: int,
                       num_drones: int) -> ObservationLayout:
    """The :class:`ObservationLayout` of a scene with these options.

    Args:
        angle_representation: "quaternion" or "euler".
        act_dim: the size of the normalised action (4 in flight modes 0 and 1, 6 in -1).
        num_drones: aircraft in a world (2 x team size).
    """
    n_angles = 4 if angle_representation == "quaternion" else 3
    own = 9 + n_angles + act_dim + AUX_SIZE  # rates, angles, velocity, position, action, aux
    block = 3 + 3 + n_angles + 2  # position, velocity, attitude, health, ally
    return ObservationLayout(
        angles=slice(3, 3 + n_angles), velocity=slice(3 + n_angles, 6 + n_angles),
        position=slice(6 + n_angles, 9 + n_angles), throttle=own - 1, health=own,
        others=own + 1, block=block, size=own + 1 + (num_drones - 1) * block)


def _check_weight(name: str, value: object) -> float:
    weight = check_finite(name, value)
    if not 0.0 <= weight <= 1.0:
        raise ValueError(f"{name} must be within [0, 1], got {value!r}")
    return weight


def _check_range(low_name: str, low: object, high_name: str, high: object,
                 floor: float | None) -> tuple[float, float]:
    """(low, high) of a spawn range: finite, ``low <= high``, ``low >= floor`` (``None``:
    ``low > 0``)."""
    low_value, high_value = check_finite(low_name, low), check_finite(high_name, high)
    if (low_value < floor) if floor is not None else (low_value <= 0.0):
        bound = f">= {floor:g}" if floor is not None else "> 0"
        raise ValueError(f"{low_name} must be {bound} m, got {low!r}")
    if high_value < low_value:
        raise ValueError(f"{high_name} ({high!r}) must be >= {low_name} ({low!r})")
    return low_value, high_value
