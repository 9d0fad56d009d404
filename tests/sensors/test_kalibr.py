"""A Kalibr ``imu.yaml`` as Kalibr writes it: read by ``load_kalibr_imu`` (or pasted as a
dict, ``rostopic`` and all) it is an IMU with those noise figures and no other error; a file
that is not one is refused naming the file and the key. (Its Allan deviation:
tests/sensors/test_imu_allan.py.)"""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from pyflyt_like.sensors import imu, load_kalibr_imu, resolve_sensors
from pyflyt_like.sensors.kalibr import MAX_FILE_BYTES

# Kalibr's example imu.yaml (an ADIS16448), as the toolbox documents it
KALIBR_YAML = """\
#Accelerometers
accelerometer_noise_density: 0.006   #Noise density (continuous-time)
accelerometer_random_walk:   0.0002  #Bias random walk

#Gyroscopes
gyroscope_noise_density:     0.0004  #Noise density (continuous-time)
gyroscope_random_walk:       4.0e-06 #Bias random walk

rostopic:                    /imu0   #the IMU ROS topic
update_rate:                 200.0   #Hz (for discretization of the values above)
"""
FIGURES = {"accelerometer_noise_density": 0.006, "accelerometer_random_walk": 0.0002,
           "gyroscope_noise_density": 0.0004, "gyroscope_random_walk": 4.0e-06}


def _write(tmp_path: Path, text: str | bytes, name: str = "imu.yaml") -> Path:
    path = tmp_path / name
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


def test_a_kalibr_file_as_written_is_an_imu_with_its_figures(tmp_path):
    path = _write(tmp_path, KALIBR_YAML)
    config = load_kalibr_imu(path)
    assert config == {**FIGURES, "update_rate": 200.0,
                      "source": f"Kalibr imu.yaml {path} (rostopic /imu0)"}
    params = resolve_sensors({"imu": config}, 400)["imu"]
    assert params.update_rate == 200 and params.period_steps == 2
    for key, value in FIGURES.items():
        assert getattr(params, key) == value, key
    # what Kalibr does not give is the ideal preset's: no such error
    for key in ("turn_on_bias", "scale_factor", "misalignment", "range", "resolution"):
        assert getattr(params, f"accelerometer_{key}") == 0.0
        assert getattr(params, f"gyroscope_{key}") == 0.0
    assert params.source.startswith("Kalibr imu.yaml")
    # Kalibr's discretisation: sigma_d = N / sqrt(dt), dt = 1 / update_rate
    white = params.coefficients[imu.GYRO * imu.BLOCK + imu.WHITE]
    assert white == pytest.approx(0.0004 * math.sqrt(200.0), rel=1e-15)
    # a str path too, and the dict pasted as Kalibr writes it, rostopic and all
    assert load_kalibr_imu(str(path)) == config
    pasted = resolve_sensors({"imu": {**FIGURES, "rostopic": "/imu0", "update_rate": 200.0}},
                             400)["imu"]
    assert (pasted.coefficients == params.coefficients).all()
    # another preset under the file's figures: its range and resolution kept
    bmi = resolve_sensors({"imu": {**config, "preset": "bmi088"}}, 400)["imu"]
    assert bmi.gyroscope_noise_density == 0.0004 and bmi.gyroscope_range > 0.0


def test_the_noise_densities_are_continuous_time_as_kalibrs():
    # the units Kalibr documents for imu.yaml are those of our parameters
    units = {"accelerometer_noise_density": "m/s^2/sqrt(Hz)",
             "accelerometer_random_walk": "m/s^3/sqrt(Hz)",
             "gyroscope_noise_density": "rad/s/sqrt(Hz)",
             "gyroscope_random_walk": "rad/s^2/sqrt(Hz)", "update_rate": "Hz"}
    assert set(units) == set(imu.KALIBR_PARAMETERS)
    for key, unit in units.items():
        assert imu.PARAMETERS[key].unit == unit, key


def test_without_rostopic_and_with_an_integer_rate(tmp_path):
    text = "".join(f"{key}: {value:.3e}\n" for key, value in FIGURES.items()) + \
        "update_rate: 100\n"
    config = load_kalibr_imu(_write(tmp_path, text))
    assert config["update_rate"] == 100 and config["source"].endswith("imu.yaml")
    assert resolve_sensors({"imu": config}, 500)["imu"].period_steps == 5


def _without(key: str) -> str:
    return "\n".join(line for line in KALIBR_YAML.splitlines()
                     if not line.startswith(key)) + "\n"


@pytest.mark.parametrize(("text", "error", "match"), [
    (_without("gyroscope_random_walk"), ValueError,
     r"imu.yaml misses the keys \['gyroscope_random_walk'\] of a Kalibr imu.yaml; its keys "
     r"are \['update_rate', 'accelerometer_noise_density', .*'rostopic'\]"),
    (_without("update_rate"), ValueError, r"misses the keys \['update_rate'\]"),
    (KALIBR_YAML.replace("accelerometer_noise_density", "accelerometer_noise_densty"),
     ValueError, r"misses the keys \['accelerometer_noise_density'\]"),
    (KALIBR_YAML + "accelerometer_range: 160.0\n", ValueError,
     r"imu.yaml has keys \['accelerometer_range'\] that a Kalibr imu.yaml does not; its "
     r"keys are .* \(give other IMU parameters in the returned dict\)"),
    (KALIBR_YAML + "T_i_b: [[1, 0], [0, 1]]\n", ValueError, r"has keys \['T_i_b'\]"),
    (KALIBR_YAML.replace("0.0004 ", "true   "), TypeError,
     r"imu.yaml: gyroscope_noise_density must be a finite number, got True"),
    (KALIBR_YAML.replace("0.0004 ", "4e-4   "), TypeError,  # YAML 1.1: a string
     r"imu.yaml: gyroscope_noise_density must be a finite number, got the string '4e-4': "
     r"YAML 1.1 reads a number with an exponent as text unless it has a decimal point "
     r"and a signed exponent \(4.0e-06, 1.0e\+3; not 4e-06, 1.0e3\)"),
    (KALIBR_YAML.replace("0.0004 ", "fast   "), TypeError,
     r"imu.yaml: gyroscope_noise_density must be a finite number, got 'fast'"),
    (KALIBR_YAML.replace("0.0004 ", "-0.004 "), ValueError,
     r"imu.yaml: gyroscope_noise_density must be a finite number >= 0, got -0.004"),
    (KALIBR_YAML.replace("0.0004 ", ".nan   "), ValueError,
     r"imu.yaml: gyroscope_noise_density must be a finite number, got nan"),
    (KALIBR_YAML.replace("0.0002 ", "1.0e+999"), ValueError,
     r"imu.yaml: accelerometer_random_walk must be a finite number, got inf"),
    (KALIBR_YAML.replace("200.0", "0.0  "), ValueError,
     r"imu.yaml: update_rate must be a rate > 0 \[Hz\], got 0.0"),
    (KALIBR_YAML.replace("/imu0", "5    "), TypeError,
     r"imu.yaml: rostopic must be a string, got 5"),
    ("- 0.006\n- 0.0002\n", ValueError, r"imu.yaml must contain a YAML mapping at top level"),
    ("", ValueError, r"imu.yaml must contain a YAML mapping at top level"),
    ("accelerometer_noise_density: [0.006\n", ValueError, r"imu.yaml is not valid YAML: "),
    (b"\xff\xfe\x00binary", ValueError, r"imu.yaml is not a UTF-8 text file"),
    ("# " + "x" * MAX_FILE_BYTES + "\n", ValueError,
     rf"imu.yaml has {MAX_FILE_BYTES + 3} bytes, more than a Kalibr imu.yaml's "
     rf"{MAX_FILE_BYTES} at most"),
])
def test_a_file_that_is_no_kalibr_imu_yaml_is_refused_naming_it(tmp_path, text, error, match):
    with pytest.raises(error, match=match):
        load_kalibr_imu(_write(tmp_path, text))


def test_bad_paths_are_refused(tmp_path):
    with pytest.raises(FileNotFoundError, match=r"Kalibr imu.yaml .*nope.yaml not found"):
        load_kalibr_imu(tmp_path / "nope.yaml")
    with pytest.raises(FileNotFoundError, match=r"not found \(or not a file\)"):
        load_kalibr_imu(tmp_path)  # a folder
    for path in (None, 3, b"imu.yaml", ["imu.yaml"]):
        with pytest.raises(TypeError, match=r"path must be the path of a Kalibr imu.yaml"):
            load_kalibr_imu(path)


def test_a_rate_that_does_not_divide_the_physics_rate_names_the_option(tmp_path):
    config = load_kalibr_imu(_write(tmp_path, KALIBR_YAML))
    with pytest.raises(ValueError, match=r'sensors\["imu"\]\["update_rate"\]=200 Hz must '
                                         r'divide physics_hz=240 Hz exactly'):
        resolve_sensors({"imu": config}, 240)
    # null (every physics step) keeps the densities honoured at any physics rate
    assert resolve_sensors({"imu": {**config, "update_rate": None}}, 240)["imu"].dt == 1 / 240
