"""The flyable path (corners rounded to the turn radius) and L1 guidance on it."""

import math

import numpy as np
import pytest

from pyflyt_like.missions.path_following import FlyablePath, PathGuidance

SQUARE_CORNER = np.array([[0.0, 0.0, 40.0], [200.0, 0.0, 40.0], [200.0, 150.0, 60.0]])


def test_a_corner_becomes_an_arc_of_the_turn_radius_tangent_to_both_legs():
    radius = 50.0
    path = FlyablePath(SQUARE_CORNER, radius, spacing=0.5)
    centre = np.array((150.0, 50.0))  # 90 deg left turn at (200, 0): tangent distance R
    on_arc = np.abs(np.hypot(*(path.samples[:, :2] - centre).T) - radius) < 1e-6
    arc = path.samples[on_arc]
    assert arc[:, 0].min() == pytest.approx(150.0, abs=0.5)  # enters at the tangent point
    assert arc[:, 1].max() == pytest.approx(50.0, abs=0.5)   # leaves at the other one
    # Length: 150 m straight, a quarter circle, 100 m straight.
    assert path.length == pytest.approx(150.0 + math.pi / 2 * radius + 100.0, rel=1e-3)
    # The waypoint's sample is the arc's middle, nearest to the corner.
    middle = path.samples[path.waypoint_index[0], :2]
    assert np.hypot(*(middle - centre)) == pytest.approx(radius, abs=1e-6)
    assert np.hypot(*(middle - (200.0, 0.0))) == pytest.approx(radius * (math.sqrt(2) - 1),
                                                               abs=1.0)
    assert path.waypoint_index[-1] == len(path.samples) - 1
    np.testing.assert_allclose(path.samples[-1], SQUARE_CORNER[-1])
    # Altitude: 40 m along the first leg, rising to 60 m along the second.
    assert np.all(path.samples[path.leg_of == 0, 2] == 40.0)
    assert np.all(np.diff(path.samples[:, 2]) >= -1e-9)


def test_corners_on_a_short_leg_shrink_to_share_it():
    points = np.array([[0.0, 0.0, 10.0], [100.0, 0.0, 10.0], [100.0, 20.0, 10.0],
                       [0.0, 20.0, 10.0]])
    path = FlyablePath(points, 80.0, spacing=0.5)
    # Each corner may use half of the 20 m leg: tangent 10 m, so radius 10 m.
    assert path.length == pytest.approx(90.0 + 2 * math.pi / 2 * 10.0 + 90.0, rel=1e-3)


@pytest.mark.parametrize("points, message", [
    (np.zeros((1, 3)), r"points must be \(n >= 2, 3\)"),
    (np.array([[0.0, 0.0, 1.0], [0.0, 0.0, 5.0]]), "differ horizontally"),
])
def test_bad_paths_are_refused(points, message):
    with pytest.raises(ValueError, match=message):
        FlyablePath(points, 50.0)


def test_nearest_only_searches_ahead_so_a_crossing_path_is_not_short_cut():
    figure = np.array([[0.0, 0.0, 10.0], [100.0, 100.0, 10.0], [100.0, 0.0, 10.0],
                       [0.0, 100.0, 10.0]])
    path = FlyablePath(figure, 20.0)
    crossing = (50.0, 50.0, 10.0)  # on the first and the last leg
    first, _ = path.nearest(crossing, 0, 100)
    late, _ = path.nearest(crossing, path.waypoint_index[1], None)
    assert path.leg_of[first] == 0 and path.leg_of[late] == 2


def test_l1_on_the_path_heads_along_it_and_back_onto_it():
    path = FlyablePath(np.array([[0.0, 0.0, 40.0], [500.0, 0.0, 40.0]]), 60.0)
    guidance = PathGuidance(path, heading_kp=0.8, altitude_kp=0.4)
    guidance.locate(np.array((100.0, 0.0, 40.0)))
    on_track = guidance.step(np.array((100.0, 0.0, 40.0)), np.array((20.0, 0.0, 0.0)), 20.0,
                             20.0)
    np.testing.assert_allclose(on_track, (0.0, 20.0, 0.0, 40.0), atol=1e-9)
    guidance.locate(np.array((120.0, 10.0, 40.0)))
    left_of_it = guidance.step(np.array((120.0, 10.0, 40.0)), np.array((20.0, 0.0, 0.0)),
                               20.0, 20.0)
    assert left_of_it[0] < 0.0 and guidance.cross_track == pytest.approx(10.0)  # turn right
