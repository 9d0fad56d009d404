"""The sensor configuration: presets resolve on the engines' physics rates, dicts override a
preset (without one, the "ideal" preset), and bad input raises errors naming the option."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from pyflyt_like.sensors import (
    SENSOR_NAMES,
    ImuParams,
    load_preset,
    preset_names,
    resolve_sensors,
)
from pyflyt_like.sensors.config import (
    ALL_SENSOR_NAMES,
    BASE_PRESET,
    RAY_SENSOR_MODELS,
    SENSOR_MODELS,
)


@pytest.mark.parametrize("sensor", SENSOR_NAMES)
@pytest.mark.parametrize("physics_hz", [240, 500])  # the Aviary's, the batched multirotors'
def test_every_preset_resolves_on_both_engines_rates(sensor, physics_hz):
    names = preset_names(sensor)
    assert {"ideal", "default"} <= set(names)
    if sensor == "imu":
        assert {"bmi088", "vn100"} <= set(names)
    module = SENSOR_MODELS[sensor][0]
    for name in names:
        raw = load_preset(sensor, name)
        assert set(raw) == set(module.PARAMETERS) | {"source"}, (sensor, name)
        assert isinstance(raw["source"], str) and raw["source"]
        params = resolve_sensors({sensor: name}, physics_hz)[sensor]
        assert params.physics_hz == physics_hz
        assert params.period_steps * params.update_rate == physics_hz
        assert params.coefficients.shape == (module.COEFFICIENT_SIZE,)
        assert np.all(np.isfinite(params.coefficients))


def test_a_dict_overrides_a_preset_or_gives_every_parameter():
    params = resolve_sensors({"imu": {"preset": "bmi088", "update_rate": 100.0}}, 400)["imu"]
    assert isinstance(params, ImuParams) and params.update_rate == 100
    assert params.period_steps == 4 and params.dt == 0.01
    assert params.gyroscope_noise_density == load_preset("imu", "bmi088")[
        "gyroscope_noise_density"]
    full = load_preset("gnss", "default")
    del full["source"]
    params = resolve_sensors({"gnss": full}, 240)["gnss"]
    assert params.latency == 1 and params.source == ""
    assert resolve_sensors(None, 240) == {} and resolve_sensors({}, 240) == {}
    assert list(resolve_sensors({"range": "ideal", "imu": "ideal"}, 240)) == ["imu", "range"]


@pytest.mark.parametrize("sensor", ALL_SENSOR_NAMES)
def test_a_dict_without_a_preset_starts_from_the_ideal_one(sensor):
    ideal = resolve_sensors({sensor: BASE_PRESET}, 240)[sensor]
    assert BASE_PRESET == "ideal" and "ideal" in preset_names(sensor)
    params = resolve_sensors({sensor: {}}, 240)[sensor]
    assert np.array_equal(params.coefficients, ideal.coefficients)
    assert params.update_rate == ideal.update_rate and params.source == ""
    # one parameter given: that one changes, the others stay the ideal preset's
    key = {"imu": "gyroscope_noise_density", "baro": "pressure_noise", "mag": "noise",
           "gnss": "latency", "range": "noise", "lidar": "beams", "depth": "width"}[sensor]
    value = 2 if key in ("latency", "beams", "width") else 0.5
    changed = resolve_sensors({sensor: {key: value, "source": "mine"}}, 240)[sensor]
    assert getattr(changed, key) == value and changed.source == "mine"
    module = {**SENSOR_MODELS, **RAY_SENSOR_MODELS}[sensor][0]
    for name in module.PARAMETERS:
        if name != key:
            assert np.array_equal(getattr(changed, name), getattr(ideal, name)), name


def test_a_lidar_by_its_natural_names_and_a_pasted_kalibr_imu_resolve():
    lidar = resolve_sensors({"lidar": {"channels": 16, "beams": 360,
                                       "horizontal_fov_deg": 360.0, "vertical_fov_deg": 30.0,
                                       "min_range": 0.1, "max_range": 100.0}}, 240)["lidar"]
    assert lidar.shape == (16, 360) and lidar.noise == 0.0 and lidar.dropout == 0.0
    kalibr = {"accelerometer_noise_density": 0.006, "accelerometer_random_walk": 0.0002,
              "gyroscope_noise_density": 0.0004, "gyroscope_random_walk": 4.0e-06,
              "rostopic": "/imu0", "update_rate": 200.0}
    imu = resolve_sensors({"imu": kalibr}, 400)["imu"]
    assert imu.update_rate == 200 and imu.gyroscope_noise_density == 0.0004
    assert imu.accelerometer_turn_on_bias == 0.0 and imu.gyroscope_range == 0.0


def test_null_update_rate_samples_every_physics_step():
    params = resolve_sensors({"imu": "bmi088"}, 500)["imu"]
    assert params.update_rate == 500 and params.period_steps == 1


@pytest.mark.parametrize(("config", "error", "match"), [
    ("bmi088", TypeError, r"sensors must be a dict from sensor name"),
    ({"sonar": "default"}, ValueError, r"sensors has unknown sensor names \['sonar'\]; "
                                       r"sensors are \['imu', 'baro', 'mag', 'gnss', 'range', "
                                       r"'lidar', 'depth'\]"),
    ({"imu": "mpu6050"}, ValueError,
     r'sensors\["imu"\] names an unknown preset \'mpu6050\'; imu presets are \[.*bmi088'),
    ({"imu": 3}, TypeError, r'sensors\["imu"\] must be a preset name'),
    ({"baro": {"preset": "nope"}}, ValueError, r'sensors\["baro"\]\["preset"\] must be one of'),
    ({"gnss": {"preset": "default", "latncy": 2}}, ValueError,
     r'sensors\["gnss"\] has unknown parameters \[\'latncy\'\]; gnss parameters are'),
    ({"imu": {"rostopic": 5}}, TypeError,
     r'sensors\["imu"\]\["rostopic"\] must be a string \(it is ignored\), got 5'),
    ({"gnss": {"rostopic": "/gps"}}, ValueError,
     r'sensors\["gnss"\] has unknown parameters \[\'rostopic\'\]'),
    ({"imu": {"preset": 3}}, ValueError, r'sensors\["imu"\]\["preset"\] must be one of'),
    ({"imu": "x" * 10**6}, ValueError,
     r'sensors\["imu"\] names an unknown preset str \'x{56}\.\.\.; imu presets'),
    ({"imu": list(range(10**5))}, TypeError,
     r'sensors\["imu"\] must be a preset name .* got list \[0, 1, 2, .*\.\.\.$'),
    # GNSS: the latency ring is bounded (10 s of samples, 100 000 at any rate)
    ({"gnss": {"preset": "default", "latency": 10**12}}, ValueError,
     r'sensors\["gnss"\]\["latency"\]=1000000000000 samples at sensors\["gnss"\]'
     r'\["update_rate"\]=10 Hz is more than the 100 allowed: at most '
     r'MAX_LATENCY_SECONDS=10 s of samples and MAX_LATENCY_SAMPLES=100000'),
    ({"gnss": {"preset": "default", "latency": 101}}, ValueError,
     r'sensors\["gnss"\]\["latency"\]=101 samples .* more than the 100 allowed'),
    ({"gnss": {"preset": "ideal", "latency": 2401}}, ValueError,  # every step at 240 Hz
     r'sensors\["gnss"\]\["latency"\]=2401 samples .*=240 Hz is more than the 2400'),
    ({"gnss": {"preset": "ideal", "latency": np.uint64(2**64 - 1)}}, ValueError,
     r'sensors\["gnss"\]\["latency"\]=18446744073709551615 samples'),
    ({"gnss": {"preset": "ideal", "latency": np.bool_(True)}}, TypeError,
     r'sensors\["gnss"\]\["latency"\] must be an integer >= 0'),
    ({"gnss": {"preset": "ideal", "time_to_fix": 1e308}}, ValueError,
     r'sensors\["gnss"\]\["time_to_fix"\] must be at most 3600 \[s\], got 1e\+308'),
    # a number too large to survive the per-sample arithmetic
    ({"imu": {"gyroscope_noise_density": 1e308}}, ValueError,
     r'sensors\["imu"\]\["gyroscope_noise_density"\]=1e\+308 rad/s/sqrt\(Hz\) gives a '
     r'per-sample standard deviation N sqrt\(update_rate\) beyond the largest float'),
    ({"imu": {"accelerometer_noise_density": 10**400}}, ValueError,
     r'sensors\["imu"\]\["accelerometer_noise_density"\] must be a finite number'),
    ({"gnss": {"update_rate": 1e300}}, ValueError,
     r'sensors\["gnss"\]\["update_rate"\]=1e\+300 Hz must be an integer dividing '
     r'physics_hz=240 Hz'),
    ({"lidar": {"channels": np.int64(2**62), "vertical_fov_deg": 10.0}}, ValueError,
     r'sensors\["lidar"\]\["channels"\] x sensors\["lidar"\]\["beams"\] = '
     r'295147905179352825856 rays, more than MAX_RAYS=1048576'),
    ({"depth": {"width": 10**30}}, ValueError,
     r'sensors\["depth"\]\["width"\] x sensors\["depth"\]\["height"\] = \d+ pixels, '
     r'more than MAX_RAYS'),
    ({"depth": {"height": True}}, TypeError, r'sensors\["depth"\]\["height"\] must be an '
                                            r'integer >= 1'),
    ({"mag": {"hard_iron": [True, False, True]}}, TypeError,
     r'sensors\["mag"\]\["hard_iron"\] must be a numeric array'),
    ({"baro": {"pressure_noise": np.bool_(True)}}, TypeError,
     r'sensors\["baro"\]\["pressure_noise"\] must be a finite number, got np.True_'),
    ({"baro": {"drift_time_constant": "1" * 100}}, TypeError,
     r'sensors\["baro"\]\["drift_time_constant"\] must be a finite number, got str '
     r"'1{56}\.\.\.$"),
    ({"imu": {"preset": "ideal", "gyroscope_noise_density": -1e-4}}, ValueError,
     r'sensors\["imu"\]\["gyroscope_noise_density"\] must be a finite number >= 0'),
    ({"baro": {"preset": "ideal", "pressure_noise": -2.0}}, ValueError,
     r'sensors\["baro"\]\["pressure_noise"\] must be a finite number >= 0 \[Pa\]'),
    ({"range": {"preset": "ideal", "noise": math.nan}}, ValueError,
     r'sensors\["range"\]\["noise"\] must be a finite number'),
    ({"gnss": {"preset": "ideal", "horizontal_noise": math.inf}}, ValueError,
     r'sensors\["gnss"\]\["horizontal_noise"\] must be a finite number'),
    ({"gnss": {"preset": "ideal", "horizontal_noise": "0.5"}}, TypeError,
     r'sensors\["gnss"\]\["horizontal_noise"\] must be a finite number'),
    ({"imu": {"preset": "ideal", "accelerometer_range": True}}, TypeError,
     r'sensors\["imu"\]\["accelerometer_range"\]'),
    ({"imu": {"preset": "ideal", "update_rate": 200}}, ValueError,
     r'sensors\["imu"\]\["update_rate"\]=200 Hz must divide physics_hz=240 Hz exactly '
     r'\(allowed: \[1, 2, 3, 4, 5, 6, 8, 10, 12, 15, 16, 20, 24, 30, 40, 48, 60, 80, 120, '
     r'240\], or null'),
    ({"gnss": {"preset": "ideal", "update_rate": 7.5}}, ValueError,
     r'sensors\["gnss"\]\["update_rate"\]=7.5 Hz must be an integer dividing physics_hz'),
    ({"gnss": {"preset": "ideal", "update_rate": 0}}, ValueError,
     r'sensors\["gnss"\]\["update_rate"\] must be a positive integer'),
    ({"gnss": {"preset": "ideal", "latency": -1}}, ValueError,
     r'sensors\["gnss"\]\["latency"\] must be an integer >= 0'),
    ({"gnss": {"preset": "ideal", "latency": 1.0}}, TypeError,
     r'sensors\["gnss"\]\["latency"\] must be an integer >= 0'),
    ({"gnss": {"preset": "ideal", "correlated_time_constant": 0.0}}, ValueError,
     r'sensors\["gnss"\]\["correlated_time_constant"\] must be a finite number > 0 \[s\]'),
    ({"mag": {"preset": "ideal", "inclination": 95.0}}, ValueError,
     r'sensors\["mag"\]\["inclination"\] must be at most 90 \[deg\]'),
    ({"mag": {"preset": "ideal", "hard_iron": [1.0, 2.0]}}, ValueError,
     r'sensors\["mag"\]\["hard_iron"\] must have shape \(3,\)'),
    ({"imu": {"preset": "ideal", "mounting_position": [0.0, math.nan, 0.0]}}, ValueError,
     r'sensors\["imu"\]\["mounting_position"\] must be finite'),
    ({"range": {"preset": "default", "min_range": 20.0}}, ValueError,
     r'sensors\["range"\]\["min_range"\]=20.0 must be at most sensors\["range"\]'
     r'\["max_range"\]=12.0'),
    ({"range": {"preset": "ideal", "source": 3}}, TypeError,
     r'sensors\["range"\]\["source"\] must be a string'),
])
def test_bad_input_names_the_option(config, error, match):
    with pytest.raises(error, match=match):
        resolve_sensors(config, 240)


def test_the_option_name_and_physics_rate_are_checked():
    with pytest.raises(ValueError, match=r'drone_options\["sensors"\]\["imu"\] names an '):
        resolve_sensors({"imu": "x"}, 240, option='drone_options["sensors"]')
    with pytest.raises(ValueError, match="physics_hz must be a positive integer"):
        resolve_sensors({"imu": "ideal"}, 0)
    with pytest.raises(ValueError, match="sensor must be one of"):
        preset_names("sonar")


def test_the_sensors_page_documents_every_parameter():
    page = (Path(__file__).resolve().parents[2] / "docs" / "sensors.md").read_text()
    for sensor, (module, _) in SENSOR_MODELS.items():
        for name in module.PARAMETERS:
            assert f"| `{name}` |" in page, (sensor, name)
