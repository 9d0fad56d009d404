"""GateCourse: a race course of gates, its random layout and the test for passing a gate.

A gate (``models/scene/gate/gate.urdf``) is a square frame in its local y-z plane; its local
+x axis (its heading, a yaw about world z) is the direction it must be passed in. A gate is
passed when the drone's path over one env step crosses the gate's plane going forward at a
point inside the opening. Testing the segment between two positions, not the positions
themselves, means a fast drone cannot jump over the plane between two steps unnoticed.
"""

from __future__ import annotations

import math

import numpy as np
import pybullet

from pyflyt_like.common.loading import MODELS_DIR
from pyflyt_like.common.validation import check_positive_float, check_positive_int

from ..targets.waypoints import PROGRESS_GAIN, TARGET_BONUS, body_frame_deltas

GATE_URDF = MODELS_DIR / "scene" / "gate" / "gate.urdf"
PARKING_POSITION = (0.0, 0.0, -10.0)  # m, below the ground: gates wait here until placed
MIN_GATE_HEIGHT = 1.0  # m, default lowest gate centre (PyFlyt's min_gate_height)
GATE_HEIGHT_SPAN = 1.0  # m, gate centres lie in [min_gate_height, min_gate_height + this]
MAX_GATE_HEIGHT = MIN_GATE_HEIGHT + GATE_HEIGHT_SPAN  # m, default highest gate centre
DEFAULT_DOME = 10.0  # m, the flight dome when none is given, unless the course needs more
MAX_HEIGHT_STEP = 0.4  # m, largest height change from one gate (or the spawn) to the next
MAX_GATE_ANGLE_LIMIT = math.pi / 3  # rad, beyond this a gate is barely passable from the last
COURSE_MARGIN = 1.0  # m, the course's farthest possible gate stays this far inside the dome

PASSED, MISSED, NOT_CROSSED = 1, -1, 0  # outcomes of :func:`crossing`


def gate_opening(client_id: int, gate_id: int) -> tuple[float, float]:
    """Half-width and half-height [m] of the open centre of a loaded gate.

    Read from the collision boxes of the gate's base, so the URDF is the one source of the
    gate's size: bars spanning the centre line horizontally bound the opening's height, bars
    spanning it vertically bound its width.

    Raises:
        ValueError: if the gate is not made of axis-aligned boxes around an open centre.
    """
    half_width = half_height = math.inf
    for shape in pybullet.getCollisionShapeData(gate_id, -1, physicsClientId=client_id):
        geometry, size, position, orientation = shape[2], shape[3], shape[5], shape[6]
        if geometry != pybullet.GEOM_BOX or not np.allclose(orientation, (0, 0, 0, 1)):
            raise ValueError(f"{GATE_URDF}: gate bars must be axis-aligned boxes")
        (_, y, z), (_, hy, hz) = position, (0.5 * s for s in size)
        if abs(y) < hy:  # top or bottom bar
            half_height = min(half_height, abs(z) - hz)
        if abs(z) < hz:  # side bar
            half_width = min(half_width, abs(y) - hy)
    if not (0 < half_width < math.inf and 0 < half_height < math.inf):
        raise ValueError(f"{GATE_URDF}: expected four bars around an open centre")
    return half_width, half_height


def draw_course(rng: np.random.Generator, num_gates: int, start: np.ndarray, start_yaw: float,
                min_distance: float, max_distance: float, max_angle: float,
                min_height: float = MIN_GATE_HEIGHT,
                max_height: float = MAX_GATE_HEIGHT) -> tuple[np.ndarray, np.ndarray]:
    """Lay out a course of gates ahead of a drone at ``start`` (3,) [m] heading ``start_yaw``.

    Each gate lies ``U(min_distance, max_distance)`` [m] horizontally from the previous one
    (the first from the start), along a direction within ``max_angle`` [rad] of the previous
    gate's heading; its own heading is within ``max_angle`` of that direction. So every gate
    is ahead of the previous gate's plane and the previous gate behind its own: each is
    reachable from the last. Heights step by at most ``MAX_HEIGHT_STEP`` within
    [``min_height``, ``max_height``] [m].

    Returns:
        centres (num_gates, 3) [m] and headings (num_gates,) [rad, in (-pi, pi]].
    """
    distances = rng.uniform(min_distance, max_distance, num_gates)
    turns = rng.uniform(-max_angle, max_angle, (num_gates, 2))
    climbs = rng.uniform(-MAX_HEIGHT_STEP, MAX_HEIGHT_STEP, num_gates)
    centres = np.empty((num_gates, 3))
    headings = np.empty(num_gates)
    x, y, z = start
    heading = start_yaw
    for i in range(num_gates):
        direction = heading + turns[i, 0]
        x += distances[i] * math.cos(direction)
        y += distances[i] * math.sin(direction)
        z = min(max(z + climbs[i], min_height), max_height)
        heading = direction + turns[i, 1]
        centres[i] = x, y, z
        headings[i] = heading
    return centres, np.angle(np.exp(1j * headings))


def crossing(start: np.ndarray, end: np.ndarray, centre: np.ndarray, normal: np.ndarray,
             half_width: float, half_height: float, reach: float = math.inf) -> int:
    """How the segment ``start`` -> ``end`` (3,) [m] meets a vertical gate.

    Args:
        centre: (3,) centre of the opening [m].
        normal: (3,) horizontal unit vector the gate is passed along.
        half_width, half_height: half-size of the opening [m].
        reach: the crossing point must also lie within this distance of the centre [m].

    Returns:
        ``PASSED`` if the segment crosses the gate's plane forward inside the opening
        (and within ``reach`` of its centre),
        ``MISSED`` if it crosses forward outside it, else ``NOT_CROSSED`` (no crossing, or a
        backward one).
    """
    before = float((start - centre) @ normal)
    after = float((end - centre) @ normal)
    if not before < 0.0 <= after:
        return NOT_CROSSED
    offset = start + (before / (before - after)) * (end - start) - centre
    lateral = offset[1] * normal[0] - offset[0] * normal[1]  # along normal rotated +90 deg
    inside = (abs(lateral) < half_width and abs(offset[2]) < half_height
              and math.hypot(lateral, offset[2]) < reach)
    return PASSED if inside else MISSED


class GateCourse:
    """``num_gates`` gate bodies in an aviary, relaid each episode, passed in order.

    Args:
        num_gates: gates per course.
        min_distance, max_distance: range of the horizontal spacing of gates [m].
        max_angle: bound on the course's turns at each gate [rad], see :func:`draw_course`.
        dome_radius: the flight dome's radius [m]; the course must fit well inside it. None:
            ``DEFAULT_DOME``, or as large as the longest possible course needs.
        min_height: lowest gate centre [m]; centres lie in [min_height, min_height + 1].
        reach: a gate counts only if crossed within this distance of its centre [m]; None:
            anywhere in the opening.
        angle_option: the user's option that ``max_angle`` came from (for error messages).

    Attributes:
        dome_radius: the flight dome's radius [m] (as given, or as chosen for None).
        delta_bounds: (4,) bound of each column of a gate delta: 2 x dome [m], pi [rad].

    Raises:
        ValueError: on a bad argument, or if the longest possible course
            (``num_gates * max_distance``) does not fit inside a given dome.
    """

    def __init__(self, num_gates: int, min_distance: float, max_distance: float,
                 max_angle: float, dome_radius: float | None = None,
                 min_height: float = MIN_GATE_HEIGHT, reach: float | None = None,
                 angle_option: str = "max_gate_angle"):
        self.num_gates = check_positive_int("num_targets", num_gates)
        self.min_distance = check_positive_float("min_gate_distance", min_distance)
        self.max_distance = check_positive_float("max_gate_distance", max_distance)
        if self.max_distance < self.min_distance:
            raise ValueError(f"max_gate_distance ({max_distance}) must be >= min_gate_distance "
                             f"({min_distance})")
        if isinstance(max_angle, bool) or not isinstance(max_angle, (int, float, np.number)) \
                or not 0.0 <= max_angle <= MAX_GATE_ANGLE_LIMIT:
            raise ValueError(f"{angle_option} must be a number in [0, {MAX_GATE_ANGLE_LIMIT:.4f}] "
                             f"rad, got {max_angle!r}")
        self.max_angle = float(max_angle)
        self.min_height = check_positive_float("min_gate_height", min_height)
        self.max_height = self.min_height + GATE_HEIGHT_SPAN
        self.reach = math.inf if reach is None else check_positive_float(
            "goal_reach_distance", reach)
        farthest = math.hypot(self.num_gates * self.max_distance, self.max_height) + COURSE_MARGIN
        if dome_radius is None:
            dome_radius = max(DEFAULT_DOME, farthest)
        dome_radius = check_positive_float("flight_dome_size", dome_radius)
        if farthest > dome_radius:
            raise ValueError(
                f"a course of num_targets={self.num_gates} gates up to max_gate_distance="
                f"{self.max_distance} m apart may reach {farthest:.2f} m from the origin (with a "
                f"{COURSE_MARGIN} m margin), beyond flight_dome_size={dome_radius} m; use "
                f"fewer or closer gates, a larger dome, or flight_dome_size=None to fit it")
        self.dome_radius = dome_radius
        self.delta_bounds = np.array([2.0 * dome_radius] * 3 + [math.pi])
        self.centres = np.zeros((self.num_gates, 3))
        self.headings = np.zeros(self.num_gates)
        self.normals = np.zeros((self.num_gates, 3))
        self.ids: list[int] = []
        self.client_id = -1
        self.half_width = self.half_height = 0.0
        self.index = 0
        self.distance = 0.0

    def load(self, client_id: int) -> None:
        """Load the gate bodies once, parked below the ground, into client ``client_id``.

        Raises:
            ValueError: if a gate at ``min_gate_height`` would reach into the ground.
        """
        self.client_id = client_id
        self.ids = [pybullet.loadURDF(str(GATE_URDF), PARKING_POSITION, useFixedBase=True,
                                      physicsClientId=client_id)
                    for _ in range(self.num_gates)]
        self.half_width, self.half_height = gate_opening(client_id, self.ids[0])
        lowest = pybullet.getAABB(self.ids[0], -1, physicsClientId=client_id)[0][2]
        below_centre = PARKING_POSITION[2] - lowest  # the frame's extent below its centre
        if self.min_height <= below_centre:
            raise ValueError(f"min_gate_height must be > {below_centre:.2f} m, so that the "
                             f"gate's frame clears the ground, got {self.min_height!r}")

    # ----------------------------------------------------------------- episode
    def reset(self, rng: np.random.Generator, start: np.ndarray, start_yaw: float) -> None:
        """Lay a new course ahead of ``start`` (3,) [m] facing ``start_yaw`` [rad]; move gates."""
        self.centres[:], self.headings[:] = draw_course(
            rng, self.num_gates, start, start_yaw, self.min_distance, self.max_distance,
            self.max_angle, self.min_height, self.max_height)
        self.normals[:, 0] = np.cos(self.headings)
        self.normals[:, 1] = np.sin(self.headings)
        for gate, centre, heading in zip(self.ids, self.centres, self.headings):
            pybullet.resetBasePositionAndOrientation(
                gate, centre.tolist(), (0.0, 0.0, math.sin(heading / 2), math.cos(heading / 2)),
                physicsClientId=self.client_id)
        self.index = 0
        self.distance = self._distance(start)

    @property
    def all_passed(self) -> bool:
        """True once every gate has been passed."""
        return self.index >= self.num_gates

    def _distance(self, position: np.ndarray) -> float:
        delta = self.centres[min(self.index, self.num_gates - 1)] - position
        return math.sqrt(float(delta @ delta))

    # ----------------------------------------------------------------- per step
    def update(self, start: np.ndarray, end: np.ndarray, sparse: bool) -> tuple[float, bool]:
        """Advance over the drone's move ``start`` -> ``end`` (3,) [m]; return (reward, missed).

        Reward: ``TARGET_BONUS`` (100) per gate passed in order; dense adds
        ``PROGRESS_GAIN`` (3) x the decrease of the distance to the next gate's centre [m]
        (potential-based, so flying away costs what approaching earned). Only the next gate
        counts: crossing a later one first does nothing. ``missed`` is True when the move
        crossed the next gate's plane forward outside its opening; that gate stays next.
        """
        reward = 0.0
        missed = False
        while not self.all_passed:
            outcome = crossing(start, end, self.centres[self.index], self.normals[self.index],
                               self.half_width, self.half_height, self.reach)
            if outcome != PASSED:
                missed = outcome == MISSED
                break
            reward += TARGET_BONUS
            self.index += 1
            # Progress toward the new gate is measured from the gate just passed.
            self.distance = self._distance(self.centres[self.index - 1])
        distance = self._distance(end)
        if not sparse:
            reward += PROGRESS_GAIN * (self.distance - distance)
        self.distance = distance
        return reward, missed

    def deltas(self, position: np.ndarray, rotation: np.ndarray, yaw: float) -> np.ndarray:
        """(remaining, 4): each gate still to pass, relative to the drone.

        Columns: the gate centre in the drone's body frame [m] (3), and the gate's heading
        minus the drone's yaw, wrapped to [-pi, pi] [rad] (1).

        Args:
            position: (3,) drone position [m].
            rotation: (3, 3) body-to-ground rotation matrix.
            yaw: drone heading [rad].
        """
        return body_frame_deltas(self.centres[self.index:], self.headings[self.index:],
                                 position, rotation, yaw, self.delta_bounds)
