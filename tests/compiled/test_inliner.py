"""numba's inliner as pyflyt_like.compiled.inliner changes it: the same IR spliced in, one
scope for the blocks of a copy, no callee prepared for a branch pruned on a None argument,
results unchanged."""

from __future__ import annotations

import copy

import numpy as np
from numba import njit
from numba.core import inline_closurecall, ir, types, untyped_passes
from numba.core.compiler import run_frontend

import pyflyt_like.compiled  # noqa: F401 (applies the patch)
from pyflyt_like.compiled.inliner import (
    _ScopeSharingCopy,
    prune_none_arguments,
    share_scope_copies,
    switch_arguments,
)


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


def test_the_pruning_patch_is_applied_once():
    assert prune_none_arguments() is True
    do_work = untyped_passes.InlineInlinables._do_work
    assert do_work.prunes_none_arguments
    assert prune_none_arguments() is True  # again: not wrapped twice
    assert not getattr(do_work.__wrapped__, "prunes_none_arguments", False)


def _calls(a, b, c, switches):
    return (_inlined_step(a, None) + _inlined_step(b, c)
            + _inlined_step(switches[0], switches[1]))


def _dynamic_item(switches, i):
    return _inlined_step(switches[i], None)  # an index known at run time only


class _State:
    """The two fields of a compile state that switch_arguments reads."""

    def __init__(self, function, args):
        self.func_ir = run_frontend(function)
        self.args = args


def _call_expressions(function_ir):
    return [statement.value for block in function_ir.blocks.values()
            for statement in block.body
            if isinstance(statement, ir.Assign) and isinstance(statement.value, ir.Expr)
            and statement.value.op == "call"]


def test_switch_arguments_are_none_constants_and_arguments_typed_none_or_tuples_of_them():
    switches = types.Tuple((types.none, types.boolean))
    state = _State(_calls, (types.float64, types.float64, types.none, switches))
    first, second, third = _call_expressions(state.func_ir)
    assert switch_arguments(state, first) == {1: types.none}  # the constant; a is a float
    assert switch_arguments(state, second) == {1: types.none}  # c is typed None; b is not
    assert switch_arguments(state, third) == {0: types.none}  # switches[1] is a bool
    state.args = (types.float64, types.float64, types.none,
                  types.Tuple((types.none, switches)))  # nested: the item is passed on
    assert switch_arguments(state, third) == {0: types.none, 1: switches}
    dynamic = _State(_dynamic_item, (switches, types.int64))
    assert switch_arguments(dynamic, _call_expressions(dynamic.func_ir)[0]) == {1: types.none}
    state.args = (types.pyobject,) * 4  # as numba types a callee: nothing known
    assert switch_arguments(state, first) == {1: types.none}
    assert switch_arguments(state, second) == {}
    assert switch_arguments(state, third) == {}


# a switch two inlined calls deep, whose branch inlines a function of its own
@njit(inline="always")
def _only_when_switched(x):
    return x * 10.0


@njit(inline="always")
def _switched(x, switch):
    if switch is not None:
        return _only_when_switched(x)
    return x + 1.0


@njit(inline="always")
def _passes_on(x, switch):
    return _switched(x, switch) * 2.0


def _prepared_for_inlining(monkeypatch) -> list[str]:
    """The names of the functions numba's inliner prepares from now on."""
    prepared = []
    worker = inline_closurecall.InlineWorker
    run_untyped_passes = worker.run_untyped_passes

    def spy(self, function, *args, **kwargs):
        prepared.append(function.__name__)
        return run_untyped_passes(self, function, *args, **kwargs)

    monkeypatch.setattr(worker, "run_untyped_passes", spy)
    return prepared


def test_a_branch_on_a_none_argument_inlines_nothing_at_any_depth(monkeypatch):
    prepared = _prepared_for_inlining(monkeypatch)

    @njit  # a new function: compiled now, not loaded from a cache
    def outer(x, switch):
        return _passes_on(x, switch)

    assert outer(1.0, None) == 4.0
    assert prepared == ["_passes_on", "_switched"]  # not _only_when_switched
    assert outer(1.0, True) == 20.0
    assert prepared[2:] == ["_passes_on", "_switched", "_only_when_switched"]


def test_an_item_of_a_tuple_of_switches_prunes_as_an_argument_does(monkeypatch):
    prepared = _prepared_for_inlining(monkeypatch)

    @njit
    def outer(x, switches):
        return _passes_on(x, switches[0]) + _passes_on(x, switches[1])

    assert outer(1.0, (None, None)) == 8.0
    assert "_only_when_switched" not in prepared
    assert outer(1.0, (None, True)) == 24.0
    assert prepared.count("_only_when_switched") == 1  # the second call's only
