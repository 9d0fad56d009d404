"""Two changes to numba's inliner (``inline="always"``) that make the fused kernels
compile in about half the time, the machine code unchanged.

The fused kernels inline whole stages that inline their own helpers: hundreds of blocks,
thousands of variables, in one function. numba 0.68's inliner spends most of their compile
on two things, both fixed here for the duration of its own calls only:

1. **Copying.** It copies the callee's IR before splicing it in
   (``InlineWorker.inline_ir``), deep-copying each block on its own; every variable of a
   block refers to the function's scope, which holds every variable of the function, so
   each block copies the whole scope again: the cost grows as blocks x variables (10 s of
   the engine's 23 s on 2 cores). :func:`share_scope_copies` makes the blocks of one copy
   share one copy of the scope, the structure the function had before the copy. The
   inliner uses the first block's scope and renames variables by name, so the IR it
   splices in is the same.
2. **Inlining what is then pruned.** The kernels' optional stages are branches on
   arguments that are None when a stage is unused (``if sensing is not None:``); numba
   prunes a branch on an argument of type None. But it prepares a callee for inlining
   without its argument types (``InlineWorker.run_untyped_passes`` types them all as
   objects), so a stage's callee inlines every optional stage and the branch is pruned
   only after the splice: the compile pays for copying and renaming what it throws away
   (2.5 s of the engine's 13 s, more in the tasks). :func:`prune_none_arguments` tells
   the callee which of its arguments are None at this call (:func:`switch_arguments`: the
   constant None, an argument of the caller of type None, or of a tuple of such switches,
   ``sensing = (points, rays)``, or an item of one), so numba's own branch pruning drops
   those branches before they inline theirs, at every depth.

Each change is made once, only if numba's inliner is laid out as expected (another numba
version: nothing is changed, and the kernels compile as before, slower).
"""

from __future__ import annotations

import copy
import functools

from numba.core import inline_closurecall, ir, types, untyped_passes
from numba.core.ir_utils import get_definition, guard


class _ScopeSharingCopy:
    """Stands for the ``copy`` module inside numba's inliner during one ``inline_ir``."""

    def __init__(self):
        self._scopes: dict[int, tuple[ir.Scope, ir.Scope]] = {}  # id: (original, copy)

    def deepcopy(self, value, memo=None):
        if memo is not None or not isinstance(value, ir.Block):
            return copy.deepcopy(value, memo)
        scope = value.scope
        memo = {}
        known = self._scopes.get(id(scope))
        if known is not None and known[0] is scope:
            memo[id(scope)] = known[1]
        block = copy.deepcopy(value, memo)
        if known is None:
            self._scopes[id(scope)] = (scope, block.scope)
        return block

    def __getattr__(self, name):
        return getattr(copy, name)


def share_scope_copies() -> bool:
    """Wrap numba's ``InlineWorker.inline_ir`` (once) so that the blocks of a copied IR
    share one copy of its scope. Returns whether numba's inliner is patched."""
    worker = getattr(inline_closurecall, "InlineWorker", None)
    inline_ir = getattr(worker, "inline_ir", None)
    if getattr(inline_ir, "shares_scope_copies", False):
        return True
    if inline_ir is None or getattr(inline_closurecall, "copy", None) is not copy:
        return False

    @functools.wraps(inline_ir)
    def sharing_inline_ir(self, *args, **kwargs):
        inline_closurecall.copy = _ScopeSharingCopy()
        try:
            return inline_ir(self, *args, **kwargs)
        finally:
            inline_closurecall.copy = copy

    sharing_inline_ir.shares_scope_copies = True
    worker.inline_ir = sharing_inline_ir
    return True


def _holds_none(numba_type) -> bool:
    """Whether a value of this type is None or a tuple holding None (at any depth)."""
    if isinstance(numba_type, types.NoneType):
        return True
    return isinstance(numba_type, types.BaseTuple) and any(
        _holds_none(member) for member in numba_type.types)


def switch_arguments(state, call: ir.Expr) -> dict[int, types.Type]:
    """The arguments of ``call`` (a call in the function that ``state`` compiles) whose
    None-ness is known whatever the call, by position: the constant None; an argument of
    that function whose type is None or a tuple holding None (then its type); an item of
    such a tuple (``switches[0]``) whose type is None or such a tuple."""
    argument_types = state.args or ()

    def type_of_argument(definition):
        if isinstance(definition, ir.Arg) and definition.index < len(argument_types):
            return argument_types[definition.index]
        return None

    known = {}
    for position, var in enumerate(call.args):
        definition = guard(get_definition, state.func_ir, var)
        if isinstance(definition, ir.Const):
            if definition.value is None:
                known[position] = types.none
            continue
        if isinstance(definition, ir.Expr) and definition.op in ("getitem", "static_getitem"):
            index = definition.index  # a variable for getitem, an int for static_getitem
            if isinstance(index, ir.Var):
                constant = guard(get_definition, state.func_ir, index)
                index = constant.value if isinstance(constant, ir.Const) else None
            tuple_type = type_of_argument(guard(get_definition, state.func_ir,
                                                definition.value))
            if not (isinstance(tuple_type, types.BaseTuple) and isinstance(index, int)
                    and -len(tuple_type.types) <= index < len(tuple_type.types)):
                continue
            argument_type = tuple_type.types[index]
        else:
            argument_type = type_of_argument(definition)
        if argument_type is not None and _holds_none(argument_type):
            known[position] = argument_type
    return known


def prune_none_arguments() -> bool:
    """Wrap numba's ``InlineInlinables._do_work`` (once) so that a callee is prepared for
    inlining knowing which of its arguments are None at that call. Returns whether numba's
    inliner is patched."""
    inliner = getattr(untyped_passes, "InlineInlinables", None)
    do_work = getattr(inliner, "_do_work", None)
    if getattr(do_work, "prunes_none_arguments", False):
        return True
    if do_work is None or not hasattr(inline_closurecall.InlineWorker, "run_untyped_passes"):
        return False

    @functools.wraps(do_work)
    def pruning_do_work(self, state, work_list, block, i, expr, inline_worker):
        known = switch_arguments(state, expr)
        pipeline = getattr(inline_worker, "_compiler_pipeline", None)
        if not known or pipeline is None:
            return do_work(self, state, work_list, block, i, expr, inline_worker)

        def pipeline_knowing_switches(callee_state, *args, **kwargs):
            # run_untyped_passes has just typed every argument as an object
            callee_state.args = tuple(known.get(position, argument)
                                      for position, argument in enumerate(callee_state.args))
            return pipeline(callee_state, *args, **kwargs)

        inline_worker._compiler_pipeline = pipeline_knowing_switches
        try:
            return do_work(self, state, work_list, block, i, expr, inline_worker)
        finally:
            inline_worker._compiler_pipeline = pipeline

    pruning_do_work.prunes_none_arguments = True
    inliner._do_work = pruning_do_work
    return True
