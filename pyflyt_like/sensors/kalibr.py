"""Kalibr's ``imu.yaml``: the IMU noise file of the Kalibr calibration toolbox, read into a
parameter dict of :mod:`pyflyt_like.sensors.imu`.

Kalibr's file holds five numbers and the IMU's ROS topic::

    accelerometer_noise_density: 0.006   # m/s^2/sqrt(Hz)
    accelerometer_random_walk: 0.0002    # m/s^3/sqrt(Hz)
    gyroscope_noise_density: 0.0004      # rad/s/sqrt(Hz)
    gyroscope_random_walk: 4.0e-06       # rad/s^2/sqrt(Hz)
    rostopic: /imu0
    update_rate: 200.0                   # Hz

The names and units are ours (:data:`~pyflyt_like.sensors.imu.PARAMETERS`): the noise
densities are continuous-time, as Kalibr's, and the model discretises them at its own rate
as Kalibr does (``sigma_d = N / sqrt(dt)``). The parameters the file does not give (turn-on
bias, scale factor, misalignment, range, resolution, mounting) are those of the ``"ideal"``
preset: none.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from pyflyt_like.common.loading import load_yaml
from pyflyt_like.common.validation import check_finite, describe_value, names_text

from .imu import KALIBR_EXTRA_KEYS, KALIBR_PARAMETERS

#: The largest ``imu.yaml`` read [bytes]: Kalibr's is a few hundred bytes.
MAX_FILE_BYTES = 64 * 2**10


def load_kalibr_imu(path: str | os.PathLike) -> dict[str, Any]:
    """The IMU parameter dict of a Kalibr ``imu.yaml``, for ``sensors={"imu": ...}``.

    Args:
        path: the file, as Kalibr writes it: ``update_rate`` [Hz],
            ``accelerometer_noise_density`` [m/s^2/sqrt(Hz)], ``accelerometer_random_walk``
            [m/s^3/sqrt(Hz)], ``gyroscope_noise_density`` [rad/s/sqrt(Hz)],
            ``gyroscope_random_walk`` [rad/s^2/sqrt(Hz)], and ``rostopic`` (optional here;
            a string, recorded in ``source``).

    Returns:
        ``{"update_rate": ..., the four noise figures, "source": "Kalibr imu.yaml <path>
        (rostopic <topic>)"}``: a dict without ``preset``, so the other IMU parameters are
        the ``"ideal"`` preset's (none of those errors); add keys to it for more (e.g.
        ``"accelerometer_range"``), or ``"preset"`` to start from another preset. The
        update rate must divide the physics rate when the dict is resolved
        (:func:`~pyflyt_like.sensors.resolve_sensors`).

    Raises:
        TypeError: ``path`` is not a path; a value of the wrong type (a bool or string for
            a number, a non-string ``rostopic``), naming the file and the key.
        FileNotFoundError: no file at ``path``.
        ValueError: a file larger than :data:`MAX_FILE_BYTES`, not UTF-8 YAML, not a
            mapping; a missing or an unknown key (listing Kalibr's); a negative or
            non-finite number, an ``update_rate`` <= 0.
    """
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"path must be the path of a Kalibr imu.yaml (a str or a "
                        f"pathlib.Path), got {describe_value(path)}")
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"Kalibr imu.yaml {path} not found (or not a file)")
    size = path.stat().st_size
    if size > MAX_FILE_BYTES:
        raise ValueError(f"{path} has {size} bytes, more than a Kalibr imu.yaml's "
                         f"{MAX_FILE_BYTES} at most (MAX_FILE_BYTES); is it the right file?")
    data = load_yaml(path)
    keys = (*KALIBR_PARAMETERS, *KALIBR_EXTRA_KEYS)
    missing = [key for key in KALIBR_PARAMETERS if key not in data]
    if missing:
        raise ValueError(f"{path} misses the keys {missing} of a Kalibr imu.yaml; its keys "
                         f"are {list(keys)}")
    unknown = [key for key in data if key not in keys]
    if unknown:
        raise ValueError(f"{path} has keys {names_text(unknown)} that a Kalibr imu.yaml "
                         f"does not; its keys are {list(keys)} (give other IMU parameters "
                         f"in the returned dict)")
    params: dict[str, Any] = {}
    for key in KALIBR_PARAMETERS:
        name = f"{path}: {key}"
        _refuse_number_text(name, data[key])
        number = check_finite(name, data[key])
        if key == "update_rate" and not number > 0.0:
            raise ValueError(f"{name} must be a rate > 0 [Hz], got {describe_value(number)}")
        if number < 0.0:
            raise ValueError(f"{name} must be a finite number >= 0, got "
                             f"{describe_value(number)}")
        params[key] = data[key]
    topic = data.get("rostopic")
    if topic is not None and not isinstance(topic, str):
        raise TypeError(f"{path}: rostopic must be a string, got {describe_value(topic)}")
    params["source"] = f"Kalibr imu.yaml {path}" + (f" (rostopic {topic})" if topic else "")
    return params


def _refuse_number_text(name: str, value: object) -> None:
    """Refuse (TypeError) a string that reads as a number, saying why it is one: YAML 1.1,
    which PyYAML (and Kalibr) reads, takes an exponent without a decimal point (``4e-06``)
    or without a sign (``1.0e5``) for a string."""
    if not isinstance(value, str):
        return
    try:
        float(value)
    except ValueError:
        return
    raise TypeError(f"{name} must be a finite number, got the string {describe_value(value)}: "
                    f"YAML 1.1 reads a number with an exponent as text unless it has a "
                    f"decimal point and a signed exponent (4.0e-06, 1.0e+3; not 4e-06, "
                    f"1.0e3)")
