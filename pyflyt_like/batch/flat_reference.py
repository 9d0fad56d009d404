"""Flat-output references of the batched engine's mode 7, checked and packed into the
(W, D, 18) layout of ``State.reference`` (:mod:`.arrays`)."""

from __future__ import annotations

import numpy as np

from pyflyt_like.common.validation import as_float_array
from pyflyt_like.control.flatness import MAX_REFERENCE, MIN_HEADING_COSINE, MIN_THRUST_PER_MASS


def flat_reference_array(shape: tuple[int, int], gravity: float, position, velocity=None,
                         acceleration=None, jerk=None, snap=None, yaw=None, yaw_rate=None,
                         yaw_acceleration=None) -> np.ndarray:
    """The (W, D, 18) reference: position, velocity, acceleration, jerk, snap (W, D, 3)
    each, world frame [m, m/s, m/s^2, m/s^3, m/s^4], then yaw, yaw rate, yaw acceleration
    (W, D) each [rad, rad/s, rad/s^2]; ``None`` is zero. All but the yaw saturate at
    ``MAX_REFERENCE`` (1e9, as for ``FlatReference``): a finite 1e308 would overflow the
    controller.

    Args:
        shape: (W, D).
        gravity: [m/s^2], for the thrust direction ``acceleration + gravity e_z``.

    Raises:
        TypeError: a value that is not a numeric array, naming the argument.
        ValueError: a wrong shape, NaN or inf, a reference in free fall or rolled by 90
            degrees (its attitude undefined).
    """
    reference = np.zeros((*shape, 18))
    for offset, (name, value) in enumerate((("position", position), ("velocity", velocity),
                                            ("acceleration", acceleration), ("jerk", jerk),
                                            ("snap", snap))):
        if value is not None:
            reference[..., 3 * offset:3 * offset + 3] = np.clip(
                as_float_array(name, value, (*shape, 3)), -MAX_REFERENCE, MAX_REFERENCE)
    for index, (name, value) in enumerate((("yaw", yaw), ("yaw_rate", yaw_rate),
                                           ("yaw_acceleration", yaw_acceleration))):
        if value is not None:
            values = as_float_array(name, value, shape)
            reference[..., 15 + index] = (values if index == 0
                                          else np.clip(values, -MAX_REFERENCE, MAX_REFERENCE))
    force = reference[..., 6:9] + (0.0, 0.0, gravity)
    norm = np.linalg.norm(force, axis=-1)
    if np.any(norm < MIN_THRUST_PER_MASS):
        raise ValueError("acceleration + gravity*e_z is (near) zero for some drone: the "
                         "reference is in free fall and its attitude undefined")
    heading = np.stack((-np.sin(reference[..., 15]), np.cos(reference[..., 15]),
                        np.zeros(shape)), axis=-1)
    if np.any(np.linalg.norm(np.cross(heading, force / norm[..., None]), axis=-1)
              < MIN_HEADING_COSINE):
        raise ValueError("acceleration + gravity*e_z is parallel to the heading's y axis "
                         "for some drone: the reference rolls by 90 degrees")
    return reference
