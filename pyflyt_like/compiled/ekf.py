"""The error-state EKF's maths (:mod:`pyflyt_like.estimation.ekf_maths`), compiled.

The same functions as :class:`~pyflyt_like.estimation.ErrorStateEkf` calls, arguments and
results alike; numba's reference counting is on (they allocate small matrices, and the
products go to BLAS through scipy, a dependency of the package)."""

from __future__ import annotations

from pyflyt_like.estimation import ekf_maths

from . import rotations as r
from .jit import compile_shared

_turn = compile_shared(ekf_maths.turn, r.quat_times_rotation)
_transition_times = compile_shared(ekf_maths._transition_times)
predict = compile_shared(ekf_maths.predict, r.times_vector, r.quat_to_matrix,
                         r.quat_times_rotation, _turn, _transition_times, allocates=True)
update = compile_shared(ekf_maths.update, _turn, allocates=True)
update_gnss = compile_shared(ekf_maths.update_gnss, update, allocates=True)
update_baro = compile_shared(ekf_maths.update_baro, update, allocates=True)
update_mag = compile_shared(ekf_maths.update_mag, r.quat_to_matrix, r.transpose_times_vector,
                            update, allocates=True)
