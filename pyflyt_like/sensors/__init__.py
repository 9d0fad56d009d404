"""Sensor models, engine-independent: IMU, barometer, magnetometer, GNSS, a downward
rangefinder, a LiDAR and a depth camera, with YAML presets from datasheets
(``pyflyt_like/models/sensors/``).

Pure maths: the standard library, numpy, pyyaml and :mod:`pyflyt_like.common` only,
neither pybullet nor numba. Each model's per-sample functions (``reset``, ``sample``) are
plain Python on floats and small arrays, without allocation, taking standard normal draws
from the caller, so numba compiles them as they are
(:func:`pyflyt_like.compiled.jit.compile_shared`) for both engines. :class:`SensorSuite`
runs a configured set for one vehicle. The models are the submodules :mod:`.imu`,
:mod:`.barometer`, :mod:`.magnetometer`, :mod:`.gnss`, :mod:`.rangefinder`, :mod:`.lidar`,
:mod:`.depth` (and :mod:`.noise`, their shared error processes); :mod:`.kalibr` reads a
Kalibr ``imu.yaml`` into an IMU parameter dict (:func:`load_kalibr_imu`). The LiDAR and the depth
camera cast rays into a world: they are configured like the others (``"lidar"``,
``"depth"``) but are not among :data:`SENSOR_NAMES`, the five sensors of the engines'
compiled sensor stages (:data:`ALL_SENSOR_NAMES` has all seven). See docs/sensors.md.
"""

from .barometer import BarometerParams, isa_altitude, isa_pressure, isa_temperature
from .config import ALL_SENSOR_NAMES, SENSOR_NAMES, resolve_sensor, resolve_sensors
from .depth import DepthParams
from .gnss import GnssParams
from .imu import ImuParams, specific_force
from .kalibr import load_kalibr_imu
from .lidar import LidarParams
from .magnetometer import MagnetometerParams, earth_field
from .params import Parameter, SensorParams
from .presets import load_preset, preset_names
from .rangefinder import RangefinderParams
from .suite import SensorSuite

__all__ = [
    "ALL_SENSOR_NAMES",
    "SENSOR_NAMES",
    "BarometerParams",
    "DepthParams",
    "GnssParams",
    "ImuParams",
    "LidarParams",
    "MagnetometerParams",
    "Parameter",
    "RangefinderParams",
    "SensorParams",
    "SensorSuite",
    "earth_field",
    "isa_altitude",
    "isa_pressure",
    "isa_temperature",
    "load_kalibr_imu",
    "load_preset",
    "preset_names",
    "resolve_sensor",
    "resolve_sensors",
    "specific_force",
]
