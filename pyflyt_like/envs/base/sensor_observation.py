"""The sensor observation: the attitude vector's place taken by what the vehicle measures.

With ``observation="sensors"`` a task observes its vehicle's sensor readings
(``drone_options["sensors"]``, docs/sensors.md) instead of the true state. Layout (float64),
one block per configured sensor in this order, then the agent's own terms:

- ``imu``: specific force (3) [m/s^2, body], body rates (3) [rad/s, body];
- ``baro``: altitude (1) [m above sea level];
- ``mag``: magnetic field (3) [uT, body];
- ``gnss``: position (3) [m, world], velocity (3) [m/s, world], fix (1, 0 or 1);
- ``range``: range (1) [m], valid (1, 0 or 1);
- the previous normalised action (k) and the vehicle's aux state (m), as in the attitude
  vector: the flight controller's own commands and actuator states.

Values are clipped to the space's bounds, which are generous, as the attitude vector's are.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from gymnasium import spaces

from pyflyt_like.sensors.config import SENSOR_NAMES
from pyflyt_like.sensors.presets import DEFAULT_SENSORS

OBSERVATIONS = ("truth", "sensors")
ACCEL_BOUND = 250.0  # m/s^2, ~25 g: above the BMI088's +-24 g range, used when unsaturated
ALTITUDE_MARGIN = 1000.0  # m, beyond the dome's height: baro noise and drift stay within


def check_observation(observation: object) -> str:
    """Return ``observation`` if it is "truth" or "sensors", else raise ValueError."""
    if observation not in OBSERVATIONS:
        raise ValueError(f"observation must be one of {list(OBSERVATIONS)}, got "
                         f"{observation!r}")
    return str(observation)


def sensor_drone_options(observation: str, sensors: object,
                         drone_options: dict[str, Any] | None) -> dict[str, Any] | None:
    """The drone options with the task's ``sensors`` option merged in.

    ``sensors`` None means the default configuration (:data:`DEFAULT_SENSORS`) when
    ``observation="sensors"`` and no sensors otherwise; given with ``observation="truth"``
    the sensors are mounted and readable (``aviary.read_sensors(0)``) but not observed.

    Raises:
        TypeError: ``sensors`` is not None or a dict.
        ValueError: sensors are given both as ``sensors`` and ``drone_options["sensors"]``.
    """
    if sensors is not None and not isinstance(sensors, Mapping):
        raise TypeError(f"sensors must be None or a dict from sensor name to a preset name or "
                        f"parameter dict, got {sensors!r}")
    options = dict(drone_options or {})
    if sensors is not None and options.get("sensors") is not None:
        raise ValueError("sensors given twice: as the task's sensors option and as "
                         'drone_options["sensors"]; give one')
    if sensors is None and observation == "sensors" and options.get("sensors") is None:
        sensors = DEFAULT_SENSORS
    if sensors is not None:
        options["sensors"] = dict(sensors)
    return options if options or drone_options is not None else None


def sensor_bounds(params: Mapping[str, Any], max_rate: float, max_speed: float,
                  max_distance: float) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """The bounds and labels of the sensed blocks (the module docstring's layout, without
    the action and aux terms) for the resolved sensor ``params`` (sensor name ->
    parameters): (low, high) (n,) float64 and n labels such as ``"imu.accel"``.

    Args:
        params: :func:`pyflyt_like.sensors.resolve_sensors`'s result.
        max_rate: bound on body rates [rad/s] (when the gyroscope does not saturate).
        max_speed: bound on each velocity coordinate [m/s].
        max_distance: bound on each position coordinate [m].
    """
    low: list[np.ndarray] = []
    high: list[np.ndarray] = []
    labels: list[str] = []

    def block(label: str, bound_low, bound_high) -> None:
        bound_low, bound_high = np.atleast_1d(bound_low), np.atleast_1d(bound_high)
        low.append(np.asarray(bound_low, dtype=float))
        high.append(np.asarray(bound_high, dtype=float))
        labels.extend([label] * bound_low.shape[0])

    if "imu" in params:
        imu = params["imu"]
        accel = imu.accelerometer_range or ACCEL_BOUND
        gyro = imu.gyroscope_range or max_rate
        block("imu.accel", np.full(3, -accel), np.full(3, accel))
        block("imu.gyro", np.full(3, -gyro), np.full(3, gyro))
    if "baro" in params:
        ground = params["baro"].ground_altitude
        reach = max_distance + ALTITUDE_MARGIN
        block("baro.altitude", ground - reach, ground + reach)
    if "mag" in params:
        mag = params["mag"]
        reach = (2.0 * mag.field_intensity + float(np.max(np.abs(mag.hard_iron)))
                 + 10.0 * (mag.hard_iron_sigma + mag.noise))
        block("mag.field", np.full(3, -reach), np.full(3, reach))
    if "gnss" in params:
        block("gnss.position", np.full(3, -max_distance), np.full(3, max_distance))
        block("gnss.velocity", np.full(3, -max_speed), np.full(3, max_speed))
        block("gnss.fix", 0.0, 1.0)
    if "range" in params:
        block("range.range", 0.0, params["range"].max_range)
        block("range.valid", 0.0, 1.0)
    return np.concatenate(low), np.concatenate(high), labels


class SensorObserver:
    """Builds the sensor observation of one drone (layout in the module docstring).

    Args:
        drone: the vehicle; its ``sensors`` component must be mounted.
        action_space: the agent's normalised action Box.
        max_rate: bound on body rates [rad/s] (when the gyroscope does not saturate).
        max_speed: bound on each velocity coordinate [m/s].
        max_distance: bound on each position coordinate [m].
        aux_low, aux_high: (m,) bounds of the auxiliary state.

    Raises:
        ValueError: the drone has no sensors, naming the ``sensors`` option.
    """

    def __init__(self, drone, action_space: spaces.Box, max_rate: float, max_speed: float,
                 max_distance: float, aux_low, aux_high):
        component = getattr(drone, "sensors", None)
        if component is None:
            raise ValueError('observation="sensors" needs sensors on the vehicle: give the '
                             'sensors option, e.g. {"imu": "default", "gnss": "default"}')
        self.drone, self.component = drone, component
        params = component.params
        self.names = tuple(name for name in SENSOR_NAMES if name in params)
        sensed_low, sensed_high, labels = sensor_bounds(params, max_rate, max_speed,
                                                        max_distance)
        n_sensed = sensed_low.shape[0]
        k = action_space.shape[0]
        aux_low, aux_high = np.atleast_1d(aux_low), np.atleast_1d(aux_high)
        self.labels = labels + ["action"] * k + ["aux"] * aux_low.shape[0]
        self._low = np.concatenate([sensed_low, action_space.low, aux_low]).astype(float)
        self._high = np.concatenate([sensed_high, action_space.high, aux_high]).astype(float)
        self.space = spaces.Box(self._low, self._high, dtype=np.float64)
        self._action = slice(n_sensed, n_sensed + k)
        self._aux = slice(self._action.stop, self._low.shape[0])
        self._sensed = n_sensed

    @property
    def size(self) -> int:
        """Length of the sensor observation."""
        return self._low.shape[0]

    @property
    def has_gnss(self) -> bool:
        """True if a GNSS receiver is configured (the position source of target terms)."""
        return "gnss" in self.names

    def position(self) -> np.ndarray:
        """(3,) the latest GNSS position [m, world] (a copy), for a task's target terms."""
        return self.component.read()["gnss"]["position"]

    def observe(self, action: np.ndarray) -> np.ndarray:
        """Return a new sensor observation for the latest readings and ``action``."""
        readings = self.component.read()
        parts = []
        for name in self.names:
            reading = readings[name]
            if name == "imu":
                parts += [reading["accel"], reading["gyro"]]
            elif name == "baro":
                parts.append((reading["altitude"],))
            elif name == "mag":
                parts.append(reading["field"])
            elif name == "gnss":
                parts += [reading["position"], reading["velocity"], (float(reading["fix"]),)]
            else:
                parts.append((reading["range"], float(reading["valid"])))
        out = np.empty(self._low.shape[0])
        out[:self._sensed] = np.concatenate(parts)
        out[self._action] = action
        out[self._aux] = self.drone.aux_state
        return np.clip(out, self._low, self._high, out=out)

