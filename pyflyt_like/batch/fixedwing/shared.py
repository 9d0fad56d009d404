"""The shared fixed-wing formulas, compiled for the kernels (:func:`~..compiled.compile_shared`):
the lifting surface's (:mod:`pyflyt_like.physics.lifting_surface`), the drag's, and the
control laws of :mod:`pyflyt_like.control` (attitude on SO(3), TECS, course hold, PID)."""

from __future__ import annotations

from pyflyt_like.common import angles
from pyflyt_like.compiled.control import pid_channel  # noqa: F401 (the families' one copy)
from pyflyt_like.compiled.jit import compile_shared
from pyflyt_like.control import fixedwing_attitude, fixedwing_autopilot, tecs
from pyflyt_like.physics import air, lifting_surface

coefficients = compile_shared(lifting_surface.coefficients)
angle_of_attack = compile_shared(lifting_surface.angle_of_attack)
surface_loads = compile_shared(lifting_surface.surface_loads)
deflection_step = compile_shared(lifting_surface.deflection_step)
quadratic_drag = compile_shared(air.quadratic_drag)

wrap_angle = compile_shared(angles.wrap_angle)
heading_reference = compile_shared(fixedwing_attitude.heading_reference)
desired_rotation_values = compile_shared(fixedwing_attitude.desired_rotation_values)
rotation_error = compile_shared(fixedwing_attitude.rotation_error)
attitude_rates = compile_shared(fixedwing_attitude.attitude_rates, heading_reference,
                                desired_rotation_values, rotation_error)
course_of = compile_shared(fixedwing_autopilot.course_of, heading_reference)
bank_for_course_error = compile_shared(fixedwing_autopilot.bank_for_course_error)
turn_feedforward = compile_shared(fixedwing_autopilot.turn_feedforward)
level_pitch = compile_shared(tecs.level_pitch)
tecs_step = compile_shared(tecs.tecs_step, level_pitch)
