"""The ACMI file format's constants and the conversions between the simulator's frames and
Tacview's (the package docstring derives them)."""

from __future__ import annotations

import math
import os
import re
from pathlib import Path

import numpy as np

from ..angles import wrap_angle
from ..atomic_files import check_file_destination
from ..validation import as_float_array, check_finite, check_float_in, check_int

FILE_TYPE = "text/acmi/tacview"
FILE_VERSION = "2.2"
ACMI_SUFFIX = ".acmi"
#: ``Color`` values Tacview draws (the ACMI 2.2 list).
COLORS = ("Red", "Orange", "Yellow", "Green", "Cyan", "Blue", "Violet")
#: Event kinds of ACMI 2.2.
EVENT_KINDS = ("Message", "Bookmark", "Debug", "LeftArea", "Destroyed", "TakenOff", "Landed",
               "Timeout")
# On the equator the flat-earth map is best (no convergence of meridians), over the open
# Atlantic so that altitude 0 is the sea surface and nothing flies under Tacview's terrain.
DEFAULT_REFERENCE_LATITUDE = 0.0  # deg
DEFAULT_REFERENCE_LONGITUDE = -25.0  # deg
DEFAULT_REFERENCE_TIME = "2026-01-01T00:00:00Z"
MAX_REFERENCE_LATITUDE = 89.0  # deg; the map's east scale 1 / cos(lat) blows up at the poles

WGS84_SEMI_MAJOR_AXIS = 6378137.0  # m
WGS84_FLATTENING = 1.0 / 298.257223563
_E2 = WGS84_FLATTENING * (2.0 - WGS84_FLATTENING)  # first eccentricity squared

# Decimals written: 1e-8 deg is 1.1 mm of latitude, so positions round-trip within ~1 mm;
# altitude to the millimetre; angles to 0.01 deg (half of it at most is lost in rounding).
_DEGREE_DECIMALS = 8
_ALTITUDE_DECIMALS = 3
_ANGLE_DECIMALS = 2
_TIME_DECIMALS = 6
_MAX_OBJECT_ID = 2**64 - 1
_PROPERTY_NAME = re.compile(r"[A-Za-z][A-Za-z0-9]*\Z")
_REFERENCE_TIME = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z\Z")
_HEX_ID = re.compile(r"[0-9A-Fa-f]{1,16}\Z")
_UNESCAPED_COMMA = re.compile(r"(?<!\\),")
_RESERVED = ("T", "Event")


# ------------------------------------------------------------------ conversions
def radii_of_curvature(latitude: float) -> tuple[float, float]:
    """WGS-84 meridional (M) and prime-vertical (N) radii of curvature [m] at ``latitude``
    [deg]: a metre north is ``1 / M`` rad of latitude, a metre east ``1 / (N cos lat)`` rad
    of longitude."""
    sine = math.sin(math.radians(latitude))
    w = 1.0 - _E2 * sine * sine
    return WGS84_SEMI_MAJOR_AXIS * (1.0 - _E2) / w**1.5, WGS84_SEMI_MAJOR_AXIS / math.sqrt(w)


def _degrees_per_metre(reference_latitude: float) -> tuple[float, float]:
    """(deg of longitude per metre east, deg of latitude per metre north) at the reference."""
    meridional, normal = radii_of_curvature(reference_latitude)
    return (math.degrees(1.0 / (normal * math.cos(math.radians(reference_latitude)))),
            math.degrees(1.0 / meridional))


def enu_to_geodetic(positions: object, reference_latitude: float,
                    reference_longitude: float, reference_altitude: float = 0.0) -> np.ndarray:
    """(n, 3) longitude [deg], latitude [deg], altitude [m] of (n, 3) ENU ``positions`` [m]
    about the reference point, by the flat-earth map of this module's docstring."""
    positions = as_float_array("positions", positions, (None, 3))
    latitude = _check_reference_latitude(reference_latitude)
    per_east, per_north = _degrees_per_metre(latitude)
    return np.column_stack((check_finite("reference_longitude", reference_longitude)
                            + positions[:, 0] * per_east,
                            latitude + positions[:, 1] * per_north,
                            check_finite("reference_altitude", reference_altitude)
                            + positions[:, 2]))


def geodetic_to_enu(coordinates: object, reference_latitude: float,
                    reference_longitude: float, reference_altitude: float = 0.0) -> np.ndarray:
    """(n, 3) ENU positions [m] of (n, 3) longitude [deg], latitude [deg], altitude [m]: the
    inverse of :func:`enu_to_geodetic`."""
    coordinates = as_float_array("coordinates", coordinates, (None, 3))
    latitude = _check_reference_latitude(reference_latitude)
    per_east, per_north = _degrees_per_metre(latitude)
    return np.column_stack(
        ((coordinates[:, 0] - check_finite("reference_longitude", reference_longitude))
         / per_east,
         (coordinates[:, 1] - latitude) / per_north,
         coordinates[:, 2] - check_finite("reference_altitude", reference_altitude)))


def euler_to_tacview(euler: object) -> np.ndarray:
    """(n, 3) Tacview roll, pitch, yaw [deg] of (n, 3) PyBullet Euler angles [rad] of the FLU
    body: ``(roll, -pitch, 90 - yaw)``, yaw (the heading) in [0, 360)."""
    return _tacview_angles(as_float_array("euler", euler, (None, 3)))


def _tacview_angles(euler: np.ndarray) -> np.ndarray:
    degrees = np.degrees(euler)
    return np.column_stack((degrees[:, 0], -degrees[:, 1], np.mod(90.0 - degrees[:, 2], 360.0)))


def tacview_to_euler(angles: object) -> np.ndarray:
    """(n, 3) PyBullet roll, pitch, yaw [rad] (yaw in [-pi, pi)) of (n, 3) Tacview roll,
    pitch, yaw [deg]: the inverse of :func:`euler_to_tacview`."""
    angles = as_float_array("angles", angles, (None, 3))
    radians = np.radians(angles)
    return np.column_stack((radians[:, 0], -radians[:, 1],
                            wrap_angle(math.pi / 2.0 - radians[:, 2])))


def _check_reference_latitude(value: object) -> float:
    return check_float_in("reference_latitude", value, -MAX_REFERENCE_LATITUDE,
                          MAX_REFERENCE_LATITUDE, unit=" deg")


# ------------------------------------------------------------------ paths
def check_acmi_path(path: object, name: str = "path") -> Path:
    """Check, leaving nothing behind, that an ACMI file can be written to ``path``; return
    it. A trial file is created and removed in its folder
    (:func:`~pyflyt_like.common.atomic_files.check_file_destination`).

    ``name`` is how the path is called in messages (e.g. ``--acmi``).

    Raises:
        TypeError: ``path`` is not a str or os.PathLike.
        ValueError: it does not end in ``.acmi`` or is an existing folder.
        FileWriteError: its folder does not exist, is not a folder or no file can be created
            there.
    """
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"{name} must be a str or os.PathLike, got {path!r}")
    return check_file_destination(path, ACMI_SUFFIX, name)


# ------------------------------------------------------------------ writing
def _number(value: float, decimals: int) -> str:
    """``value`` with at most ``decimals`` decimals, trailing zeros dropped, no ``-0``."""
    text = f"{value:.{decimals}f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def _escape(name: str, value: object) -> str:
    """A property value as ACMI text: numbers as written, text with ``,`` escaped as ``\\,``
    and line breaks as ``\\`` + line feed."""
    if isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be a str or a number, got {value!r}")
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    if isinstance(value, (float, np.floating)):
        return _number(check_finite(name, value), 9)
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a str or a number, got {value!r}")
    if "\r" in value:
        raise ValueError(f"{name} must not hold a carriage return, got {value!r}")
    return value.replace(",", "\\,").replace("\n", "\\\n")


def _check_property_name(name: object, argument: str) -> str:
    if not isinstance(name, str) or not _PROPERTY_NAME.match(name) or name in _RESERVED:
        raise ValueError(f"{argument} must be ACMI property names (letters and digits, "
                         f"starting with a letter, not {' or '.join(_RESERVED)}), got {name!r}")
    return name


def _check_object_id(name: str, value: object) -> int:
    object_id = check_int(name, value)
    if not 1 <= object_id <= _MAX_OBJECT_ID:
        raise ValueError(f"{name} must be in [1, 2**64 - 1] (0 is the global object), got "
                         f"{object_id}")
    return object_id


