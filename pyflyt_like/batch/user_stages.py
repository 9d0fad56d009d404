"""User stages: a user's compiled functions spliced into the batched engine's step and reset.

The engine inlines its named stages (:data:`pyflyt_like.batch.pipeline.STAGES` for
multirotors, :data:`pyflyt_like.batch.fixedwing.pipeline.STAGES` for fixed-wings) into one
compiled loop, which is what makes it fast. A :class:`UserStage` puts a user's
``numba.njit`` function before or after one of them; the engine then compiles a kernel with
it inlined at that place, the same loop otherwise (the default kernel, cached on disk, is
untouched). A stage placed ``after="reset"`` runs on the worlds a reset restarts.

Signatures (the arrays are described in :mod:`pyflyt_like.batch.arrays` and
:mod:`pyflyt_like.batch.fixedwing.arrays`)::

    step stage:  function(state, plant, nominal, config, w)             once per world w and
                                                                        physics step
    reset stage: function(state, plant, nominal, config, worlds, rng)   worlds: int64 (k,)
                                                                        indices; rng: the
                                                                        engine's Generator

A kernel with user stages is compiled when the engine is built (about as long as the
default kernel's first compile, tens of seconds; numba cannot cache a kernel whose
functions are given at run time), and once per process for the same functions.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from numba import njit
from numba.core.dispatcher import Dispatcher

#: The pseudo-stage of :meth:`~pyflyt_like.batch.BatchedAviary.reset`.
RESET = "reset"


@dataclass(frozen=True)
class UserStage:
    """A user's ``numba.njit`` function placed ``before`` or ``after`` a named stage (give
    exactly one), or ``after="reset"`` (module docstring for the signatures)."""

    function: Any
    before: str | None = None
    after: str | None = None

    @property
    def place(self) -> tuple[str, str]:
        """("before" or "after", the stage's name)."""
        return ("before", self.before) if self.before is not None else ("after", self.after)


def check_user_stages(user_stages: object, stage_names: Sequence[str]) -> tuple[UserStage, ...]:
    """The checked user stages of an engine whose stages are ``stage_names``.

    Raises:
        TypeError: not a sequence of :class:`UserStage`, or a function that numba did not
            compile (``numba.njit``).
        ValueError: neither or both of ``before`` and ``after``, an unknown stage name
            (naming the stages there are), ``before="reset"``.
    """
    if user_stages is None:
        return ()
    if not isinstance(user_stages, (list, tuple)) or not all(
            isinstance(stage, UserStage) for stage in user_stages):
        raise TypeError(f"user_stages must be a list of pyflyt_like.batch.UserStage, got "
                        f"{user_stages!r}")
    for stage in user_stages:
        if not isinstance(stage.function, Dispatcher):
            raise TypeError(f"a user stage's function must be compiled with numba.njit, got "
                            f"{stage.function!r}")
        if (stage.before is None) == (stage.after is None):
            raise ValueError(f"a user stage needs exactly one of before= and after=, got "
                             f"before={stage.before!r}, after={stage.after!r}")
        kind, name = stage.place
        allowed = [*stage_names, RESET] if kind == "after" else list(stage_names)
        if name not in allowed:
            raise ValueError(f"user stage {kind}={name!r} names no stage; stages are "
                             f"{allowed}")
    return tuple(user_stages)


_KERNEL = '''
def step_world(state, plant, nominal, config, mode, w, noise, step_index, outer_loop):
{body}

def run_worlds(state, plant, nominal, config, mode, n_steps, noise, sensing, outer_loop,
               first, last):
    for w in range(first, last):
        prepare(state, mode, w)
        for step_index in range(n_steps):
            step_world(state, plant, nominal, config, mode, w, noise, step_index, outer_loop)
'''


#: The kernels built in this process, by pipeline and placed functions: an engine built
#: again with the same user stages compiles nothing.
_BUILT: dict[tuple, Any] = {}


def build_run_worlds(pipeline: ModuleType, user_stages: Sequence[UserStage]):
    """The ``run_worlds`` kernel of ``pipeline`` (a family's pipeline module: its ``STAGES``
    and ``prepare``) with the step stages of ``user_stages`` inlined; the pipeline's own
    ``run_worlds`` if there are none."""
    step_stages = [stage for stage in user_stages if stage.place != ("after", RESET)]
    if not step_stages:
        return pipeline.run_worlds
    key = (pipeline.__name__, *((stage.place, stage.function) for stage in step_stages))
    if key not in _BUILT:
        _BUILT[key] = _compile_run_worlds(pipeline, step_stages)
        print("pyflyt_like: a kernel with user stages compiles at the engine's first step "
              "(about 20-30 s, once per process: numba cannot cache it)", file=sys.stderr,
              flush=True)
    return _BUILT[key]


def _compile_run_worlds(pipeline: ModuleType, step_stages: Sequence[UserStage]):
    # A module name numba can import: compiling the generated kernel compiles (and caches)
    # the shared functions it inlines, and a cache entry made under no module name
    # ("<dynamic>") could not be loaded by a later process.
    namespace: dict[str, Any] = {"__name__": __name__, "prepare": pipeline.prepare}
    lines = []
    for name, function in pipeline.STAGES.items():
        namespace[f"stage_{name}"] = function
        for kind in ("before", "after"):
            if kind == "after":
                lines.append(f"    stage_{name}(state, plant, nominal, config, mode, w, noise, "
                             "step_index, outer_loop)")
            for i, stage in enumerate(step_stages):
                if stage.place == (kind, name):
                    namespace[f"user_{i}"] = stage.function
                    lines.append(f"    user_{i}(state, plant, nominal, config, w)")
    exec(_KERNEL.format(body="\n".join(lines)), namespace)  # noqa: S102 - our own template
    options = dict(_nrt=False, error_model="numpy")
    namespace["step_world"] = njit(inline="always", **options)(namespace["step_world"])
    return njit(nogil=True, **options)(namespace["run_worlds"])


def reset_stages(user_stages: Sequence[UserStage]) -> tuple:
    """The functions of the stages placed after the reset, in order."""
    return tuple(stage.function for stage in user_stages if stage.place == ("after", RESET))
