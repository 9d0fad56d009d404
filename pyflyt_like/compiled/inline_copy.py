"""A faster copy of a function's IR when numba inlines it (``inline="always"``).

numba's inliner copies the callee's IR before splicing it in (``InlineWorker.inline_ir``):
it deep-copies each block on its own, and every variable of a block refers to the
function's scope, which holds every variable of the function. So each block copies the
whole scope again: the cost grows as blocks x variables. The fused kernels inline whole
stages that have inlined their own helpers (hundreds of blocks, thousands of variables),
and this copying was most of their compile: 10 s of the engine's 23 s on 2 cores.

:func:`share_scope_copies` makes the blocks of one copy share one copy of the scope, the
structure the function had before the copy (one scope for all its blocks). The inliner
uses the first block's scope and renames variables by name, so the IR it splices in is
the same; only the time changes. The change is confined to the inliner's own calls: it
wraps ``InlineWorker.inline_ir`` and, for the duration of each call, gives the inliner's
module a ``copy`` whose ``deepcopy`` of a block shares the scope copy. If numba's inliner
is not laid out as expected (another numba version), nothing is changed.
"""

from __future__ import annotations

import copy
import functools

from numba.core import inline_closurecall, ir


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
