"""Tacview flight recordings: writing and reading text ACMI 2.2 files.

Tacview (free version: File > Open) replays ``.acmi`` files. The text format is UTF-8 lines:
a header (``FileType=text/acmi/tacview``, ``FileVersion=2.2``), global properties of object
0 (``0,ReferenceTime=...``), time frames ``#<seconds since ReferenceTime>``, object lines
``<hex id>,T=lon|lat|alt|roll|pitch|yaw,Name=...`` (a component left empty keeps its last
value), removals ``-<hex id>`` and events ``0,Event=<kind>|<ids>|<text>``.

Frames and conversions (see docs/tacview.md):

- **Position.** The simulator's ground frame is ENU (x east, y north, z up) in metres about
  a reference point. Longitude and latitude come from a local flat-earth (equirectangular)
  map about that point with the WGS-84 radii of curvature at its latitude:
  ``latitude = lat0 + y / M(lat0)``, ``longitude = lon0 + x / (N(lat0) cos lat0)``,
  ``altitude = reference_altitude + z``. Distances along a parallel at northing y are scaled
  by about ``1 - y tan(lat0) / R``, so the error of an east-west separation dx is about
  ``|dx| |y| tan|lat0| / R`` (R ~ 6371 km); north-south ones are off by about
  ``0.75 e^2 |sin 2 lat0| |y1^2 - y2^2| / R`` (e^2 = 0.0067: the meridian's radius changes
  with latitude; 2 cm for 5 km north at 45 deg). Measured against the WGS-84 ellipsoid, the
  worst distance error between two points of a square centred on the reference is, on the
  equator (the default reference), below 1 cm for a 10 km square; at 45 deg 0.8 mm for a
  100 m square, 8 cm for 1 km, 7.8 m for 10 km. The file holds offsets from
  ``ReferenceLongitude``/``ReferenceLatitude``.
- **Attitude.** The simulator's Euler angles are PyBullet's, of the FLU body frame:
  ``R = Rz(yaw) Ry(pitch) Rx(roll)``, so positive roll lowers the right wing, positive pitch
  lowers the nose and yaw is the nose's angle counter-clockwise from east. Tacview's are the
  aerospace ones of the FRD body in NED: roll positive right wing down, pitch positive nose
  up, yaw the heading clockwise from north, in degrees. So Tacview's (roll, pitch, yaw) is
  ``(roll, -pitch, 90 deg - yaw)``, exact for every attitude, not only small angles: with A
  taking ENU to NED (swap x and y, flip z) and B taking FRD to FLU (flip y and z),
  ``A Rz(yaw) Ry(pitch) Rx(roll) B = Rz(90 deg - yaw) Ry(-pitch) Rx(roll)`` (the tests check
  nose and right-wing directions against PyBullet's matrices).

Only numpy and the standard library are used (no pybullet, no numba).
"""


from .conventions import (  # noqa: F401
    ACMI_SUFFIX,
    COLORS,
    DEFAULT_REFERENCE_LATITUDE,
    DEFAULT_REFERENCE_LONGITUDE,
    DEFAULT_REFERENCE_TIME,
    EVENT_KINDS,
    FILE_TYPE,
    FILE_VERSION,
    MAX_REFERENCE_LATITUDE,
    WGS84_FLATTENING,
    WGS84_SEMI_MAJOR_AXIS,
    check_acmi_path,
    enu_to_geodetic,
    euler_to_tacview,
    geodetic_to_enu,
    radii_of_curvature,
    tacview_to_euler,
)
from .reader import AcmiEvent, AcmiRecording, read_acmi  # noqa: F401
from .writer import AcmiWriter  # noqa: F401
