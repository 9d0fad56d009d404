"""Compiling the shared formulas (plain Python in :mod:`pyflyt_like.physics`,
:mod:`pyflyt_like.control`, :mod:`pyflyt_like.common`) for the kernels.

numba compiles a function's calls to other functions only if those are compiled too, but
the shared modules import no numba. :func:`compile_shared` compiles a shared function with
its calls to other shared functions bound to their compiled versions: it makes a copy of
the function whose global names see the compiled callees, the module's own namespace
untouched, so the Python callers keep calling plain Python.
"""

from __future__ import annotations

import types
from collections.abc import Callable

from numba import njit
from numba.core.registry import CPUDispatcher

#: The compiler options of every scalar kernel: no reference-counted allocation, numpy's
#: floating-point semantics (a division by zero gives inf, not an exception).
SCALAR_OPTIONS = dict(cache=True, _nrt=False, error_model="numpy")


#: The options of a function that allocates arrays (numpy's linear algebra on small
#: matrices: the EKF's): numba's reference counting on.
ALLOCATING_OPTIONS = dict(cache=True, error_model="numpy")


def compile_shared(function: Callable, *callees: CPUDispatcher,
                   allocates: bool = False, inline: bool = False) -> CPUDispatcher:
    """``function`` compiled (:data:`SCALAR_OPTIONS`, or :data:`ALLOCATING_OPTIONS` when it
    ``allocates``), its calls to the shared functions that ``callees`` (compiled with this
    function) compile bound to them; with ``inline``, inlined into its compiled callers
    (numba IR, ``inline="always"``: for a function called at every physics step whose
    arguments would cost more to pass than its work, e.g. the IMU's sample).

    The one way the package compiles a plain-Python shared function."""
    namespace = dict(function.__globals__)
    namespace.update({callee.py_func.__name__: callee for callee in callees})
    copy = types.FunctionType(function.__code__, namespace, function.__name__,
                              function.__defaults__, function.__closure__)
    copy.__module__, copy.__qualname__ = function.__module__, function.__qualname__
    copy.__doc__ = function.__doc__
    options = ALLOCATING_OPTIONS if allocates else SCALAR_OPTIONS
    return njit(**options, **({"inline": "always"} if inline else {}))(copy)


def bound_entry(dispatcher: CPUDispatcher, *args) -> Callable:
    """The machine code of ``dispatcher`` for the types of ``args``, compiled (or loaded
    from the cache) now, as a callable taking arguments of those types.

    numba's dispatcher works out the types of every argument at every call, which for the
    engine's named tuples (about ninety arrays) costs ~9 us, more than a step of 64 worlds;
    the compiled entry takes them as they are (~1 us). The caller must pass arguments of
    exactly the types of ``args`` (the same arrays, or arrays of the same dtype, number of
    dimensions and layout): the entry does not check them.
    """
    return dispatcher.compile(tuple(dispatcher.typeof_pyval(value) for value in args))
