"""The sensor presets: YAML files in ``pyflyt_like/models/sensors/``, one per sensor, each a
mapping from preset name to a complete parameter mapping (with a ``source:`` string naming
where the figures come from). Every sensor has ``"ideal"`` (no error at all) and
``"default"`` (a typical unit); the IMU also ``"bmi088"`` and ``"vn100"``."""

from __future__ import annotations

import copy
import functools
from typing import Any

from pyflyt_like.common.loading import MODELS_DIR, load_yaml

SENSORS_DIR = MODELS_DIR / "sensors"

#: The preset file of each sensor name of the configuration.
PRESET_FILES = {"imu": "imu.yaml", "baro": "barometer.yaml", "mag": "magnetometer.yaml",
                "gnss": "gnss.yaml", "range": "rangefinder.yaml", "lidar": "lidar.yaml",
                "depth": "depth.yaml"}
#: The sensors a drone flies with when a task or flight asks for "the default sensors":
#: the IMU, barometer, magnetometer and GNSS receiver, each its typical unit.
DEFAULT_SENSORS = {"imu": "default", "baro": "default", "mag": "default", "gnss": "default"}


@functools.cache
def _presets(sensor: str) -> dict[str, Any]:
    path = SENSORS_DIR / PRESET_FILES[sensor]
    presets = load_yaml(path)
    for name, values in presets.items():
        if not isinstance(values, dict):
            raise ValueError(f"{path}: preset {name!r} must be a mapping of parameters")
    return presets


def preset_names(sensor: str) -> list[str]:
    """The preset names of ``sensor`` (a key of :data:`PRESET_FILES`), in file order."""
    if sensor not in PRESET_FILES:
        raise ValueError(f"sensor must be one of {list(PRESET_FILES)}, got {sensor!r}")
    return list(_presets(sensor))


def load_preset(sensor: str, name: str) -> dict[str, Any]:
    """A copy of preset ``name`` of ``sensor``: its parameters as the YAML gives them.

    Raises:
        ValueError: unknown sensor or preset name, listing the known ones.
    """
    names = preset_names(sensor)
    if name not in names:
        raise ValueError(f"unknown {sensor} preset {name!r}; presets are {names}")
    return copy.deepcopy(_presets(sensor)[name])
