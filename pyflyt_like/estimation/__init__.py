"""State estimators, engine-independent (numpy only, neither pybullet nor numba): arrays
in, arrays out, fed by :class:`pyflyt_like.sensors.SensorSuite`-layout readings.

- :class:`ErrorStateEkf`: an error-state EKF of position, velocity, attitude and the IMU's
  biases (and the magnetometer's hard-iron residual and the barometer's drift), fusing the
  IMU with GNSS, barometer and magnetometer;
- :class:`ComplementaryFilter`: Mahony's complementary attitude filter, the light
  alternative (attitude and gyro bias only).

See docs/estimation.md.
"""

from .complementary import DEFAULT_GAINS, AttitudeState, ComplementaryFilter
from .ekf import EkfState, ErrorStateEkf

__all__ = ["DEFAULT_GAINS", "AttitudeState", "ComplementaryFilter", "EkfState",
           "ErrorStateEkf"]
