"""Minimum-snap trajectories through waypoints (Mellinger & Kumar 2011), with yaw and holds.

Position is a piecewise 7th-order polynomial per axis minimising the integrated squared snap;
yaw is a piecewise 5th-order polynomial minimising the integrated squared jerk. Both are
rest-to-rest: they start and end (and stop at every hold) with zero derivatives 1..3 (yaw:
1..2). Segment durations are given, or allocated from a speed. See docs/trajectories.md.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from pyflyt_like.common.angles import wrap_angle

from .minimum_derivative import solve_minimum_derivative
from .piecewise_polynomial import PiecewisePolynomial

__all__ = [
    "DEFAULT_MIN_SEGMENT_DURATION",
    "MinimumSnapTrajectory",
    "TrajectoryPoint",
    "TrajectorySamples",
    "allocate_durations",
]

DEFAULT_MIN_SEGMENT_DURATION = 0.1
"""Shortest segment [s] that speed-based allocation hands out (very close waypoints)."""

_POSITION_ORDER = 4  # minimum snap: degree 7
_YAW_ORDER = 3  # minimum jerk: degree 5


@dataclass(frozen=True)
class TrajectoryPoint:
    """The reference at one time: flat outputs and the derivatives a geometric controller uses.

    Attributes:
        time: [s].
        position, velocity, acceleration, jerk, snap: world (ENU) frame, each (3,)
            [m, m/s, m/s^2, m/s^3, m/s^4].
        yaw: heading [rad], wrapped to [-pi, pi).
        yaw_rate: [rad/s]. yaw_acceleration: [rad/s^2].
    """

    time: float
    position: np.ndarray
    velocity: np.ndarray
    acceleration: np.ndarray
    jerk: np.ndarray
    snap: np.ndarray
    yaw: float
    yaw_rate: float
    yaw_acceleration: float


@dataclass(frozen=True)
class TrajectorySamples:
    """The reference at k times: as ``TrajectoryPoint`` with arrays (k, 3) and (k,)."""

    time: np.ndarray
    position: np.ndarray
    velocity: np.ndarray
    acceleration: np.ndarray
    jerk: np.ndarray
    snap: np.ndarray
    yaw: np.ndarray
    yaw_rate: np.ndarray
    yaw_acceleration: np.ndarray


def _float_array(name: str, value: object, shape: tuple[int | None, ...]) -> np.ndarray:
    """``value`` as a finite float64 array of ``shape`` (None: any length), else raise."""
    items = ["n" if s is None else str(s) for s in shape]
    text = "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"
    if isinstance(value, (str, bytes)) or value is None:
        raise TypeError(f"{name} must be a numeric array of shape {text}, "
                        f"got {type(value).__name__}")
    try:
        array = np.array(value, dtype=np.float64)
    except (TypeError, ValueError) as error:
        raise TypeError(f"{name} must be a numeric array of shape {text}, "
                        f"got {type(value).__name__}") from error
    if array.ndim != len(shape) or any(w is not None and g != w
                                       for g, w in zip(array.shape, shape)):
        raise ValueError(f"{name} must have shape {text}, got {array.shape}")
    if not np.all(np.isfinite(array)):
        raise ValueError(f"{name} must be finite (no NaN or inf), got {array.tolist()}")
    return array


def _positive_scalar(name: str, value: object, unit: str) -> float:
    """``value`` as a finite float > 0, else TypeError/ValueError naming ``name``."""
    if isinstance(value, np.ndarray) and value.ndim == 0:
        value = value.item()
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise TypeError(f"{name} must be a positive number [{unit}], got {value!r}")
    if not np.isfinite(value) or value <= 0:
        raise ValueError(f"{name} must be a finite positive number [{unit}], got {value!r}")
    return float(value)


def _validate_waypoints(waypoints: object) -> np.ndarray:
    array = _float_array("waypoints", waypoints, (None, 3))
    if array.shape[0] < 2:
        raise ValueError(f"waypoints must hold at least 2 points (shape (m, 3), m >= 2), "
                         f"got {array.shape[0]}")
    return array


def _validate_speed(speed: object, n_segments: int) -> np.ndarray:
    if np.ndim(speed) == 0 and not isinstance(speed, (str, bytes)) and speed is not None:
        return np.full(n_segments, _positive_scalar("speed", speed, "m/s"))
    array = _float_array("speed", speed, (n_segments,))
    if np.any(array <= 0):
        raise ValueError(f"speed must be > 0 [m/s] for every segment (a scalar or shape "
                         f"({n_segments},)), got {array.tolist()}")
    return array


def allocate_durations(
    waypoints: np.ndarray,
    speed: float | np.ndarray,
    max_acceleration: float | None = None,
    min_segment_duration: float = DEFAULT_MIN_SEGMENT_DURATION,
    rest: np.ndarray | None = None,
) -> np.ndarray:
    """Segment durations [s], shape (m-1,), from distances and a mean speed.

    Without ``max_acceleration``: ``T_i = |w_i+1 - w_i| / v_i``. With it, a trapezoidal
    speed profile: ramping from (or to) rest at a ``rest`` waypoint costs an extra
    ``v / (2 a)`` per resting end, and a segment too short to reach ``v`` gets the
    triangular-profile time instead (``sqrt(2 d / a)`` with one resting end,
    ``2 sqrt(d / a)`` with two). Every duration is at least ``min_segment_duration``.

    Args:
        waypoints: (m, 3) [m], m >= 2, no two consecutive ones equal.
        speed: mean speed [m/s], scalar or per segment (m-1,), > 0.
        max_acceleration: [m/s^2] > 0, or None.
        min_segment_duration: shortest segment [s] > 0.
        rest: bool (m,), where the vehicle is at rest; default: first and last waypoint.

    Raises:
        ValueError / TypeError: naming the bad argument.
    """
    waypoints = _validate_waypoints(waypoints)
    n_seg = waypoints.shape[0] - 1
    speeds = _validate_speed(speed, n_seg)
    min_segment_duration = _positive_scalar("min_segment_duration", min_segment_duration, "s")
    distance = np.linalg.norm(np.diff(waypoints, axis=0), axis=1)
    repeated = np.flatnonzero(distance == 0.0)
    if repeated.size:
        i = int(repeated[0])
        raise ValueError(f"waypoints {i} and {i + 1} are the same point, so no duration follows "
                         f"from speed; remove the repeat, use hold_times to stop there, or "
                         f"pass explicit durations")
    durations = distance / speeds
    if max_acceleration is not None:
        accel = _positive_scalar("max_acceleration", max_acceleration, "m/s^2")
        if rest is None:
            rest = np.zeros(n_seg + 1, dtype=bool)
            rest[[0, -1]] = True
        rest = np.asarray(rest)
        if rest.shape != (n_seg + 1,) or rest.dtype != bool:
            raise ValueError(f"rest must be a bool array of shape ({n_seg + 1},), "
                             f"got {rest.dtype} {rest.shape}")
        ends = rest[:-1].astype(int) + rest[1:].astype(int)  # resting ends per segment
        reach = distance >= ends * speeds**2 / (2.0 * accel)
        cruise = np.where(reach, distance / speeds + ends * speeds / (2.0 * accel), 0.0)
        triangle = np.where(ends == 2, 2.0 * np.sqrt(distance / accel),
                            np.sqrt(2.0 * distance / accel))
        durations = np.where(reach, cruise, triangle)
    return np.maximum(durations, min_segment_duration)


class MinimumSnapTrajectory:
    """A rest-to-rest minimum-snap trajectory through waypoints, with yaw and holds.

    Args:
        waypoints: positions (m, 3) [m], m >= 2, world (ENU) frame.
        durations: time of each segment (m-1,) [s], all > 0. Give this or ``speed``.
        speed: mean speed [m/s] (> 0), scalar or per segment (m-1,); the durations are then
            allocated by ``allocate_durations`` (which see).
        max_acceleration: [m/s^2] > 0; with ``speed``, adds trapezoidal ramps at the start,
            the end and every hold.
        min_segment_duration: shortest allocated segment [s] > 0 (with ``speed`` only).
        yaw: heading at each waypoint (m,) [rad]; each change takes the short way round.
            Default: zero throughout.
        hold_times: time to stop and stay at each waypoint (m,) [s], >= 0. Default: none.

    Raises:
        TypeError, ValueError: for bad input, naming the argument and what is allowed.
    """

    def __init__(
        self,
        waypoints: np.ndarray,
        durations: np.ndarray | None = None,
        *,
        speed: float | np.ndarray | None = None,
        max_acceleration: float | None = None,
        min_segment_duration: float = DEFAULT_MIN_SEGMENT_DURATION,
        yaw: np.ndarray | None = None,
        hold_times: np.ndarray | None = None,
    ) -> None:
        points = _validate_waypoints(waypoints)
        m = points.shape[0]
        holds = np.zeros(m) if hold_times is None else _float_array("hold_times", hold_times,
                                                                    (m,))
        if np.any(holds < 0):
            raise ValueError(f"hold_times must be >= 0 [s], got {holds.tolist()}")
        yaw_given = np.zeros(m) if yaw is None else _float_array("yaw", yaw, (m,))
        rest = holds > 0
        rest[[0, -1]] = True
        if (durations is None) == (speed is None):
            raise ValueError("give exactly one of durations (shape (m-1,) [s]) or speed "
                             "(scalar or (m-1,) [m/s])")
        if durations is not None:
            if max_acceleration is not None:
                raise ValueError("max_acceleration only applies when durations come from speed; "
                                 "pass speed=... instead of durations")
            segment = _float_array("durations", durations, (m - 1,))
            if np.any(segment <= 0):
                bad = int(np.flatnonzero(segment <= 0)[0])
                raise ValueError(f"durations must be strictly positive [s]; durations[{bad}] = "
                                 f"{segment[bad]!r}")
        else:
            segment = allocate_durations(points, speed, max_acceleration, min_segment_duration,
                                         rest)
        # Unwrap so each yaw change is the short way round (within [-pi, pi)).
        yaw_path = yaw_given[0] + np.concatenate([[0.0], np.cumsum(wrap_angle(np.diff(yaw_given)))])

        self._waypoints = points
        self._segment_durations = segment
        self._holds = holds
        self._yaw_waypoints = yaw_path
        self._build(points, segment, holds, yaw_path)
        for array in (self._waypoints, self._segment_durations, self._holds,
                      self._yaw_waypoints, self._arrival, self._departure):
            array.setflags(write=False)

    def _build(self, points: np.ndarray, segment: np.ndarray, holds: np.ndarray,
               yaw_path: np.ndarray) -> None:
        """Solve each rest-to-rest run between holds and join runs and holds end to end."""
        m = points.shape[0]
        position_pieces: list[PiecewisePolynomial] = []
        yaw_pieces: list[PiecewisePolynomial] = []
        arrival, departure = np.zeros(m), np.zeros(m)
        t, k = 0.0, 0
        while True:
            arrival[k] = t
            if holds[k] > 0:
                position_pieces.append(PiecewisePolynomial.constant(
                    points[k], t, holds[k], 2 * _POSITION_ORDER))
                yaw_pieces.append(PiecewisePolynomial.constant(
                    yaw_path[k:k + 1], t, holds[k], 2 * _YAW_ORDER))
                t += holds[k]
            departure[k] = t
            if k == m - 1:
                break
            end = next(j for j in range(k + 1, m) if j == m - 1 or holds[j] > 0)
            run = slice(k, end + 1)
            position = solve_minimum_derivative(segment[k:end], points[run], _POSITION_ORDER,
                                                start_time=t)
            heading = solve_minimum_derivative(segment[k:end], yaw_path[run, None], _YAW_ORDER,
                                               start_time=t)
            position_pieces.append(position)
            yaw_pieces.append(heading)
            arrival[k + 1:end] = departure[k + 1:end] = position.breaks[1:-1]
            t = float(position.breaks[-1])
            k = end
        self._position = PiecewisePolynomial.concatenate(position_pieces)
        self._yaw = PiecewisePolynomial.concatenate(yaw_pieces)
        self._arrival, self._departure = arrival, departure
        self._duration = t

    # -- description ---------------------------------------------------------------------

    @property
    def waypoints(self) -> np.ndarray:
        """Waypoints (m, 3) [m] (read-only)."""
        return self._waypoints

    @property
    def segment_durations(self) -> np.ndarray:
        """Time spent moving from waypoint i to i+1, (m-1,) [s] (read-only)."""
        return self._segment_durations

    @property
    def hold_times(self) -> np.ndarray:
        """Time stopped at each waypoint, (m,) [s] (read-only)."""
        return self._holds

    @property
    def yaw_waypoints(self) -> np.ndarray:
        """Yaw at each waypoint after unwrapping, (m,) [rad] (read-only)."""
        return self._yaw_waypoints

    @property
    def waypoint_times(self) -> np.ndarray:
        """Time of arrival at each waypoint, (m,) [s] (read-only); waypoint 0 at 0."""
        return self._arrival

    @property
    def departure_times(self) -> np.ndarray:
        """Time of leaving each waypoint (arrival + hold), (m,) [s] (read-only)."""
        return self._departure

    @property
    def duration(self) -> float:
        """Total time [s], holds included; the vehicle is at rest at the end."""
        return self._duration

    @property
    def position_polynomial(self) -> PiecewisePolynomial:
        """The position, piecewise degree 7 per axis (holds are constant pieces)."""
        return self._position

    @property
    def yaw_polynomial(self) -> PiecewisePolynomial:
        """The unwrapped yaw [rad], piecewise degree 5, d = 1."""
        return self._yaw

    def snap_cost(self) -> float:
        """The objective: integral of |snap|^2 over the whole trajectory [m^2/s^7]."""
        return float(np.sum(self._position.derivative_cost(_POSITION_ORDER)))

    def __repr__(self) -> str:
        return (f"MinimumSnapTrajectory({self._waypoints.shape[0]} waypoints, "
                f"duration={self._duration:.6g} s)")

    # -- evaluation ----------------------------------------------------------------------

    def evaluate(self, t: float) -> TrajectoryPoint:
        """The reference at time ``t`` [s] (a finite real scalar).

        Before 0 the vehicle is at rest at the first waypoint; after ``duration`` at rest at
        the last. At a segment boundary the segment that starts there is used.
        """
        if isinstance(t, np.ndarray) and t.ndim == 0:
            t = t.item()
        if isinstance(t, bool) or not isinstance(t, (int, float, np.integer, np.floating)):
            raise TypeError(f"t must be a real number [s] (use evaluate_many for arrays), "
                            f"got {type(t).__name__}")
        if not np.isfinite(t):
            raise ValueError(f"t must be finite [s], got {t!r}")
        t = float(t)
        position = self._position.derivatives_at(t, _POSITION_ORDER)
        heading = self._yaw.derivatives_at(t, 2)[:, 0]
        if t < 0.0 or t > self._duration:
            position[1:] = 0.0
            heading[1:] = 0.0
        return TrajectoryPoint(
            time=t, position=position[0], velocity=position[1], acceleration=position[2],
            jerk=position[3], snap=position[4], yaw=float(wrap_angle(heading[0])),
            yaw_rate=float(heading[1]), yaw_acceleration=float(heading[2]))

    def evaluate_many(self, times: np.ndarray) -> TrajectorySamples:
        """The reference at each of ``times`` (k,) [s]; see ``evaluate``.

        Returns:
            ``TrajectorySamples`` with (k, 3) position..snap and (k,) yaw, yaw_rate,
            yaw_acceleration.
        """
        times = _float_array("times", times, (None,))
        position = self._position.derivatives(times, _POSITION_ORDER)
        heading = self._yaw.derivatives(times, 2)[:, :, 0]
        outside = (times < 0.0) | (times > self._duration)
        position[1:, outside] = 0.0
        heading[1:, outside] = 0.0
        return TrajectorySamples(
            time=times, position=position[0], velocity=position[1],
            acceleration=position[2], jerk=position[3], snap=position[4],
            yaw=wrap_angle(heading[0]), yaw_rate=heading[1], yaw_acceleration=heading[2])
