"""The sensor configuration: a dict from sensor name to a preset name or a parameter dict,
resolved into the frozen parameter objects the models take.

``{"imu": "bmi088", "baro": "default", "gnss": {"preset": "default", "latency": 2},
"range": {"noise": 0.02, "max_range": 12.0}}``: a string names a preset; a dict overrides
some parameters of a ``preset`` it names, or without one of the :data:`BASE_PRESET`
(``"ideal"``: no error terms), so a dict of a sensor's natural parameters (a Kalibr
``imu.yaml``, a LiDAR's channels and beams) is a sensor; an optional ``source`` string says
where the figures come from. Every error names the option, e.g.
``sensors["imu"]["gyroscope_noise_density"]``, and what is allowed.

Two registries: :data:`SENSOR_MODELS`, the five sensors the compiled sensor stages of both
engines sample (:data:`SENSOR_NAMES`, whose length sizes those stages: it stays five), and
:data:`RAY_SENSOR_MODELS`, the sensors that cast rays into the world (the LiDAR, the depth
camera), which each engine runs beside that stage. A resolved configuration lists the former in
:data:`SENSOR_NAMES` order, then the latter (:data:`ALL_SENSOR_NAMES`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from pyflyt_like.common.sensor_readings import SENSOR_ORDER
from pyflyt_like.common.validation import (
    as_float_array,
    check_finite,
    check_positive_int,
    check_rate_divides,
    describe_value,
    divisors_text,
    names_text,
)

from . import barometer, depth, gnss, imu, lidar, magnetometer, rangefinder
from .params import EXTRA_KEYS, SensorParams
from .presets import load_preset, preset_names

_POINT_MODELS = {
    "imu": (imu, imu.ImuParams),
    "baro": (barometer, barometer.BarometerParams),
    "mag": (magnetometer, magnetometer.MagnetometerParams),
    "gnss": (gnss, gnss.GnssParams),
    "range": (rangefinder, rangefinder.RangefinderParams),
}
#: The sensor names of the configuration, in the order the suite samples and draws them
#: (:data:`pyflyt_like.common.sensor_readings.SENSOR_ORDER`), with their model modules and
#: parameter classes.
SENSOR_MODELS = {name: _POINT_MODELS[name] for name in SENSOR_ORDER}
SENSOR_NAMES = SENSOR_ORDER
#: The sensors that cast rays into the world, with their model modules and parameter
#: classes; not in :data:`SENSOR_NAMES` (the compiled stages' five sensors). Each one's
#: parameters have ``directions``, ``scales``, ``cast_range`` and ``coefficients`` in the
#: LiDAR's layout, so the engines cast them all alike.
RAY_SENSOR_MODELS = {
    "lidar": (lidar, lidar.LidarParams),
    "depth": (depth, depth.DepthParams),
}
RAY_SENSOR_NAMES = tuple(RAY_SENSOR_MODELS)
#: Every sensor name of the configuration, in the order a resolved configuration lists
#: them (and :class:`~pyflyt_like.sensors.SensorSuite` spawns their random streams).
ALL_SENSOR_NAMES = SENSOR_NAMES + RAY_SENSOR_NAMES
_MODELS = {**SENSOR_MODELS, **RAY_SENSOR_MODELS}
#: The preset a parameter dict without ``preset`` starts from: every sensor has it, and it
#: has no error terms, so the dict's parameters are the only errors.
BASE_PRESET = "ideal"


def resolve_sensors(config: Mapping[str, Any] | None, physics_hz: int,
                    option: str = "sensors") -> dict[str, SensorParams]:
    """The parameters of every configured sensor, checked.

    Args:
        config: sensor name (:data:`ALL_SENSOR_NAMES`) -> preset name or parameter dict;
            None or {} configures no sensor.
        physics_hz: the physics rate [Hz]; every sensor's ``update_rate`` must divide it.
        option: the option's name in the messages (``drone_options["sensors"]``).

    Returns:
        sensor name -> its :class:`~pyflyt_like.sensors.params.SensorParams`, in the order
        of :data:`ALL_SENSOR_NAMES` (the ray sensors last).

    Raises:
        TypeError: ``config`` is not a mapping, a sensor's value neither a string nor a
            mapping, a parameter of the wrong type (a bool for a number, a float for a
            count).
        ValueError: unknown sensor, preset or parameter names, a negative noise figure, a
            non-finite number, a number beyond its bound (a GNSS latency beyond
            :func:`~pyflyt_like.sensors.gnss.most_latency`, a LiDAR scan or depth image of
            more than :data:`~pyflyt_like.sensors.lidar.MAX_RAYS` rays), an update rate
            that does not divide ``physics_hz`` (the allowed ones listed).
    """
    physics_hz = check_positive_int("physics_hz", physics_hz)
    if config is None:
        return {}
    if not isinstance(config, Mapping):
        raise TypeError(f"{option} must be a dict from sensor name {list(ALL_SENSOR_NAMES)} "
                        f"to a preset name or a parameter dict, got {describe_value(config)}")
    unknown = [key for key in config if key not in _MODELS]
    if unknown:
        raise ValueError(f"{option} has unknown sensor names {names_text(unknown)}; sensors "
                         f"are {list(ALL_SENSOR_NAMES)}")
    return {sensor: resolve_sensor(sensor, config[sensor], physics_hz, option)
            for sensor in ALL_SENSOR_NAMES if sensor in config}


def resolve_sensor(sensor: str, value: object, physics_hz: int,
                   option: str = "sensors") -> SensorParams:
    """The parameters of one ``sensor`` from its configuration ``value`` (see
    :func:`resolve_sensors`): a preset name, or a dict of parameters over the preset it
    names (``"preset"``) or over :data:`BASE_PRESET`."""
    name = f'{option}["{sensor}"]'
    module, params_class = _MODELS[sensor]
    allowed = list(module.PARAMETERS)
    # keys of the sensor's usual file format that are no parameter (Kalibr's rostopic)
    ignored = getattr(module, "KALIBR_EXTRA_KEYS", ())
    presets = preset_names(sensor)
    if isinstance(value, str):
        if value not in presets:
            raise ValueError(f"{name} names an unknown preset {describe_value(value)}; "
                             f"{sensor} presets are {presets}")
        raw = load_preset(sensor, value)
    elif isinstance(value, Mapping):
        unknown = [key for key in value
                   if key not in allowed and key not in EXTRA_KEYS and key not in ignored]
        if unknown:
            extra = ", ".join(repr(key) for key in (*EXTRA_KEYS, *ignored))
            raise ValueError(f"{name} has unknown parameters {names_text(unknown)}; "
                             f"{sensor} parameters are {allowed} (and {extra})")
        given = dict(value)
        for key in ignored:
            if key in given and not isinstance(given.pop(key), str):
                raise TypeError(f'{name}["{key}"] must be a string (it is ignored), got '
                                f"{describe_value(value[key])}")
        preset = given.pop("preset", None)
        if preset is None:
            raw = load_preset(sensor, BASE_PRESET)
            raw["source"] = ""  # the base preset's words do not describe the dict's figures
        elif not isinstance(preset, str) or preset not in presets:
            raise ValueError(f'{name}["preset"] must be one of {presets}, got '
                             f"{describe_value(preset)}")
        else:
            raw = load_preset(sensor, preset)
        raw.update(given)
    else:
        raise TypeError(f"{name} must be a preset name (one of {presets}) or a parameter "
                        f"dict, got {describe_value(value)}")
    source = raw.pop("source", "")
    if not isinstance(source, str):
        raise TypeError(f'{name}["source"] must be a string, got {describe_value(source)}')
    values = {key: _check(f'{name}["{key}"]', spec, raw[key], physics_hz)
              for key, spec in module.PARAMETERS.items()}
    if sensor == "range" and values["min_range"] > values["max_range"]:
        raise ValueError(f'{name}["min_range"]={values["min_range"]} must be at most '
                         f'{name}["max_range"]={values["max_range"]}')
    check_parameters = getattr(module, "check_parameters", None)
    if check_parameters is not None:  # the checks across parameters (imu, gnss, rays)
        check_parameters(values, name)
    return params_class(physics_hz=physics_hz, source=source, **values)


def _check(name: str, spec, value: object, physics_hz: int) -> Any:
    """``value`` checked and converted as its :class:`~pyflyt_like.sensors.params.Parameter`
    ``spec`` says."""
    if spec.kind == "rate":
        return _rate(name, value, physics_hz)
    if spec.kind == "vector":
        array = as_float_array(name, value, (3,))
        array.flags.writeable = False  # the parameters are frozen
        return array
    if spec.kind == "count":
        low = 0 if spec.low is None else int(spec.low)  # a count's least value (default 0)
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
            raise TypeError(f"{name} must be an integer >= {low} [{spec.unit}], got "
                            f"{describe_value(value)}")
        if value < low:
            raise ValueError(f"{name} must be an integer >= {low} [{spec.unit}], got "
                             f"{describe_value(value)}")
        return int(value)
    number = check_finite(name, value)
    if spec.kind == "positive" and not number > 0.0:
        raise ValueError(f"{name} must be a finite number > 0 [{spec.unit}], got "
                         f"{describe_value(value)}")
    if spec.low is not None and number < spec.low:
        bound = "a finite number >= 0" if spec.low == 0.0 else f"at least {spec.low:g}"
        raise ValueError(f"{name} must be {bound} [{spec.unit}], got "
                         f"{describe_value(value)}")
    if spec.high is not None and number > spec.high:
        raise ValueError(f"{name} must be at most {spec.high:g} [{spec.unit}], got "
                         f"{describe_value(value)}")
    return number


def _rate(name: str, value: object, physics_hz: int) -> int:
    """An update rate [Hz]: None -> ``physics_hz``; an integer (or an integral float, as
    Kalibr writes 200.0) dividing ``physics_hz``."""
    if value is None:
        return physics_hz
    if isinstance(value, (float, np.floating)) and math.isfinite(value) and value > 0:
        # a float above physics_hz divides it no more than a fraction does (and 1e300 as
        # an int would print 301 digits)
        if not float(value).is_integer() or value > physics_hz:
            raise ValueError(f"{name}={value:g} Hz must be an integer dividing physics_hz="
                             f"{physics_hz} Hz (allowed: {divisors_text(physics_hz)}, or "
                             f"null for every physics step)")
        value = int(value)
    check_rate_divides(name, value, physics_hz, ", or null for every physics step")
    return int(value)


def sensor_periods(params: Mapping[str, SensorParams]) -> np.ndarray:
    """(5,) int64: each sensor's sample period [physics steps] in :data:`SENSOR_NAMES`
    order, 0 where ``params`` (resolved, :func:`resolve_sensors`) configures none."""
    return np.array([params[name].period_steps if name in params else 0
                     for name in SENSOR_NAMES], np.int64)
