"""Bad wind options raise ValueError/TypeError naming the option and what is allowed."""

from __future__ import annotations

import numpy as np
import pytest

from pyflyt_like.core import Aviary
from pyflyt_like.core.wind import WIND_FIELDS

GUST = dict(amplitude=[1.0, 0.0, 0.0], start_time=0.0, duration=1.0)
SHEAR = dict(reference_velocity=[3.0, 0.0, 0.0])
LOG = dict(reference_velocity=[3.0, 0.0, 0.0], law="log", roughness_length=0.03)
NAN = float("nan")

BAD = [
    # (wind name, options, exception, pattern the message must contain)
    ("constant", dict(velocity=[1.0, 2.0]), ValueError, r"velocity must have shape \(3,\)"),
    ("constant", dict(velocity=[[1.0, 2.0, 3.0]]), ValueError, r"velocity must have shape"),
    ("constant", dict(velocity=[NAN, 0.0, 0.0]), ValueError, r"velocity must be finite"),
    ("constant", dict(velocity="east"), TypeError, r"velocity must be a numeric array"),
    ("constant", dict(velocity=[True, 0, 0]), TypeError, r"velocity must be a numeric array"),
    ("gust", {**GUST, "amplitude": (0.0, False, 1.0)}, TypeError, r"amplitude must be a numeric"),
    ("constant", dict(speed=3.0), ValueError, r"unknown option\(s\) \['speed'\]; allowed: "
                                              r"\['velocity'\]"),
    ("gust", {**GUST, "duration": -1.0}, ValueError, r"duration must be a finite number > 0"),
    ("gust", {**GUST, "duration": 0.0}, ValueError, r"duration must be a finite number > 0"),
    ("gust", {**GUST, "duration": "1"}, TypeError, r"duration must be"),
    ("gust", {**GUST, "amplitude": [1.0]}, ValueError, r"amplitude must have shape \(3,\)"),
    ("gust", {**GUST, "base_velocity": np.zeros(4)}, ValueError, r"base_velocity must have"),
    ("gust", {**GUST, "start_time": NAN}, ValueError, r"start_time must be a finite number"),
    ("gust", {**GUST, "start_time": None}, TypeError, r"start_time must be a finite number"),
    ("gust", dict(start_time=0.0, duration=1.0), TypeError, r"amplitude"),
    ("gust", {**GUST, "peak": 2.0}, ValueError,
     r"unknown option\(s\) \['peak'\]; allowed: \['amplitude', 'start_time', 'duration', "
     r"'base_velocity'\]"),
    ("shear", {**SHEAR, "law": "linear"}, ValueError,
     r"law must be one of \['log', 'power'\], got 'linear'"),
    ("shear", {**SHEAR, "law": 2}, TypeError, r"law must be one of"),
    ("shear", {**LOG, "roughness_length": -0.1}, ValueError,
     r"roughness_length must be a finite number > 0"),
    ("shear", {**LOG, "roughness_length": 0.0}, ValueError, r"roughness_length must be"),
    ("shear", {**LOG, "roughness_length": 10.0}, ValueError,
     r"roughness_length must be < reference_height"),
    ("shear", {**SHEAR, "law": "log"}, ValueError, r"roughness_length \[m\] is required"),
    ("shear", {**LOG, "exponent": 0.2}, ValueError, r"exponent only applies to law='power'"),
    ("shear", {**SHEAR, "roughness_length": 0.03}, ValueError,
     r"roughness_length only applies to law='log'"),
    ("shear", {**SHEAR, "exponent": 0.0}, ValueError, r"exponent must be a finite number > 0"),
    ("shear", {**SHEAR, "exponent": -0.2}, ValueError, r"exponent must be"),
    ("shear", {**SHEAR, "reference_height": 0.0}, ValueError, r"reference_height must be"),
    ("shear", dict(reference_velocity=[3.0, 0.0, 1.0]), ValueError,
     r"reference_velocity must be horizontal"),
    ("shear", dict(reference_velocity=[3.0, 0.0]), ValueError, r"reference_velocity must have"),
    ("shear", {**SHEAR, "z0": 0.1}, ValueError, r"unknown option\(s\) \['z0'\]; allowed: .*"
                                                r"'roughness_length'"),
    ("dryden", dict(altitude=0.0), ValueError, r"altitude must be a finite number > 0"),
    ("dryden", dict(altitude=-5.0), ValueError, r"altitude must be"),
    ("dryden", dict(altitude=400.0), ValueError, r"altitude must be in \(0, 304.8\] m"),
    ("dryden", dict(airspeed=0.0), ValueError, r"airspeed must be a finite number > 0"),
    ("dryden", dict(airspeed=-10.0), ValueError, r"airspeed must be"),
    ("dryden", dict(airspeed=float("inf")), ValueError, r"airspeed must be"),
    ("dryden", dict(wind_speed_20ft=-1.0), ValueError, r"wind_speed_20ft must be a finite "
                                                       r"number >= 0"),
    ("dryden", dict(sample_period=0.0), ValueError, r"sample_period must be"),
    ("dryden", dict(mean_velocity=[1.0, 2.0]), ValueError, r"mean_velocity must have shape"),
    ("dryden", dict(altitude=True), TypeError, r"altitude must be"),
    ("dryden", dict(intensity=1.0), ValueError,
     r"unknown option\(s\) \['intensity'\]; allowed: \['mean_velocity', 'wind_speed_20ft', "
     r"'airspeed', 'altitude', 'sample_period'\]"),
]


@pytest.mark.parametrize(("name", "options", "error", "pattern"), BAD,
                         ids=[f"{b[0]}-{i}" for i, b in enumerate(BAD)])
def test_bad_options_raise(name, options, error, pattern):
    with pytest.raises(error, match=pattern):
        WIND_FIELDS[name](np.random.default_rng(0), **options)


@pytest.mark.parametrize(("name", "options"), [("constant", {}), ("gust", GUST),
                                               ("shear", SHEAR), ("shear", LOG), ("dryden", {})])
def test_good_options_construct(name, options):
    field = WIND_FIELDS[name](np.random.default_rng(0), **options)
    assert field(0.0, np.array([[0.0, 0.0, 2.0]])).shape == (1, 3)


def test_dryden_needs_a_generator():
    with pytest.raises(TypeError, match="np_random must be a numpy.random.Generator"):
        WIND_FIELDS["dryden"](None)


def test_unknown_wind_name_through_the_aviary():
    with pytest.raises(ValueError, match="wind_type 'nope' is unknown") as info:
        Aviary(start_pos=np.array([[0.0, 0.0, 1.0]]), start_orn=np.zeros((1, 3)),
               wind_type="nope", seed=0)
    for name in ("constant", "dryden", "gust", "shear"):
        assert repr(name) in str(info.value)


def test_bad_option_through_the_aviary():
    with pytest.raises(ValueError, match=r"duration must be a finite number > 0"):
        Aviary(start_pos=np.array([[0.0, 0.0, 1.0]]), start_orn=np.zeros((1, 3)),
               wind_type="gust", wind_options={**GUST, "duration": -2.0}, seed=0)
