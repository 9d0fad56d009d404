"""numba's inliner with the shared scope copy (pyflyt_like.compiled.inline_copy): the same IR
spliced in, one scope for the blocks of a copy, results unchanged."""

from __future__ import annotations

import copy

import numpy as np
from numba import njit
from numba.core import inline_closurecall, ir
from numba.core.compiler import run_frontend

import pyflyt_like.compiled  # noqa: F401 (applies the patch)
from pyflyt_like.compiled.inline_copy import _ScopeSharingCopy, share_scope_copies


def test_numbas_inliner_is_patched_once():
    assert share_scope_copies() is True
    assert inline_closurecall.InlineWorker.inline_ir.shares_scope_copies
    assert share_scope_copies() is True  # again: not wrapped twice
    wrapped = inline_closurecall.InlineWorker.inline_ir.__wrapped__
    assert not getattr(wrapped, "shares_scope_copies", False)
    assert inline_closurecall.copy is copy  # outside a call: the module itself


def _branchy(x, n):
    total = 0.0
    for i in range(n):
        if x[i] > 0.5:
            total += x[i] * 2.0
        elif x[i] < -0.5:
            total -= x[i]
        else:
            total += 1.0
    return total


def test_the_blocks_of_one_copy_share_one_scope_copy_and_equal_the_old_copies():
    function_ir = run_frontend(_branchy)
    assert len(function_ir.blocks) > 3
    sharing = _ScopeSharingCopy()
    shared = {label: sharing.deepcopy(block) for label, block in function_ir.blocks.items()}
    separate = {label: copy.deepcopy(block) for label, block in function_ir.blocks.items()}
    scopes = {id(block.scope) for block in shared.values()}
    assert len(scopes) == 1 and id(function_ir.blocks[0].scope) not in scopes
    for label, block in shared.items():
        assert block is not function_ir.blocks[label]
        assert [str(s) for s in block.body] == [str(s) for s in separate[label].body]
        assert block.scope == separate[label].scope  # the same variables, one object
    again = sharing.deepcopy(function_ir.blocks[0])  # a second copy: new statements
    assert again is not shared[0] and again.body[0] is not shared[0].body[0]


@njit(inline="always")
def _inlined_step(x, i):
    if x[i] > 0.0:
        return x[i] * 3.0
    return -x[i]


@njit(inline="always")
def _inlined_outer(x, i):
    return _inlined_step(x, i) + _inlined_step(x, i - 1)


@njit
def _inlining_loop(x):
    total = 0.0
    for i in range(1, x.shape[0]):
        total += _inlined_outer(x, i)
    return total


def test_nested_inlined_functions_compute_as_in_python():
    x = np.random.default_rng(0).standard_normal(50)
    expected = sum((v * 3.0 if v > 0 else -v) + (u * 3.0 if u > 0 else -u)
                   for u, v in zip(x[:-1], x[1:], strict=True))
    assert _inlining_loop(x) == expected
    assert isinstance(next(iter(run_frontend(_branchy).blocks.values())), ir.Block)
