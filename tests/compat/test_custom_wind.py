"""A user wind class written the way PyFlyt's docs write one: its own parameters first,
``np_random`` as a keyword, built by the Aviary as ``wind_type(np_random=..., **wind_options)``."""

from __future__ import annotations

import numpy as np
import pytest

from pyflyt_like.core import Aviary
from pyflyt_like.core.abstractions import WindFieldClass
from pyflyt_like.core.abstractions.boring_bodies import AIR_DENSITY


class MyWindField(WindFieldClass):
    """Wind along +x of ``my_parameter`` m/s, growing with log height, plus gusts in y."""

    def __init__(self, my_parameter=1.0, gustiness=0.0, np_random=None):
        super().__init__(np_random)
        self.strength = my_parameter
        self.gustiness = gustiness

    def __call__(self, time, position):
        wind = np.zeros_like(position)
        wind[:, 0] = self.strength * (1.0 + np.log(position[:, 2] / 5.0) / 10.0)
        wind[:, 1] = self.gustiness * self.np_random.standard_normal(len(position))
        return wind


def _hover(wind_options, seed=0) -> Aviary:
    aviary = Aviary(start_pos=np.array([[0.0, 0.0, 5.0]]), start_orn=np.zeros((1, 3)),
                    wind_type=MyWindField, wind_options=wind_options,
                    drone_options=dict(noise=0.0), seed=seed)
    aviary.set_mode(-1)
    aviary.set_setpoint(0, [aviary.drones[0].hover_throttle] * 4)
    return aviary


def test_user_wind_class_gets_its_options_and_the_aviarys_generator():
    aviary = _hover(dict(my_parameter=3.0))
    assert isinstance(aviary.wind_field, MyWindField)
    assert aviary.wind_field.strength == 3.0
    assert aviary.wind_field.np_random is aviary.np_random
    aviary.close()


def test_user_wind_drifts_the_drone_by_quadratic_drag():
    """At z = 5 m the field blows W = my_parameter; from rest v(t) = W s / (1 + s),
    s = k W t / m."""
    wind_speed = 2.0
    aviary = _hover(dict(my_parameter=wind_speed))
    drone = aviary.drones[0]
    drag = drone.params["drag_params"]
    k = 0.5 * AIR_DENSITY * drag["drag_coefs"][0][0] * drag["normal_areas"][0][0]
    for _ in range(2 * 120):
        aviary.step()
    s = k * wind_speed * aviary.elapsed_time / drone.mass
    assert drone.world_velocity[0] == pytest.approx(wind_speed * s / (1.0 + s), rel=0.02)
    aviary.close()


def test_user_wind_randomness_follows_the_aviary_seed():
    def flight(seed):
        aviary = _hover(dict(my_parameter=1.0, gustiness=1.0), seed=seed)
        for _ in range(60):
            aviary.step()
        position = aviary.state(0)[3].copy()
        aviary.close()
        return position

    assert np.array_equal(flight(1), flight(1))
    assert not np.array_equal(flight(1), flight(2))


def test_user_wind_with_a_wrong_output_shape_is_refused_at_construction():
    class FlatWind(MyWindField):
        def __call__(self, time, position):
            return np.zeros(3)

    with pytest.raises(ValueError, match=r"FlatWind must return an \(n, 3\) array"):
        Aviary(start_pos=np.array([[0.0, 0.0, 5.0]]), start_orn=np.zeros((1, 3)),
               wind_type=FlatWind)
