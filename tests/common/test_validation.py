"""The generic argument checks of pyflyt_like.common.validation."""

from __future__ import annotations

import math

import numpy as np
import pytest

from pyflyt_like.common.validation import (
    check_choice,
    check_memory,
    check_non_negative_float,
    check_positive_int,
    check_positive_int_tuple,
    check_seed,
    check_unit_interval,
    memory_limit_bytes,
)


@pytest.mark.parametrize("value", [0, 0.0, 0.25, 1, np.float32(1.0)])
def test_check_unit_interval_returns_a_float_in_0_1(value):
    result = check_unit_interval("gamma", value)
    assert isinstance(result, float) and result == float(value)


@pytest.mark.parametrize(("value", "error"), [
    (-1e-9, ValueError), (1.0 + 1e-9, ValueError), (math.nan, ValueError),
    (math.inf, ValueError), ("0.5", TypeError), (True, TypeError), (None, TypeError),
])
def test_check_unit_interval_rejects_naming_the_argument(value, error):
    with pytest.raises(error, match="gamma"):
        check_unit_interval("gamma", value)


@pytest.mark.parametrize("value", [0, 0.0, 2.5, np.int64(3)])
def test_check_non_negative_float_accepts_zero_and_up(value):
    result = check_non_negative_float("ent_coef", value)
    assert isinstance(result, float) and result == float(value)


@pytest.mark.parametrize(("value", "error"), [
    (-0.01, ValueError), (math.inf, ValueError), (math.nan, ValueError),
    (False, TypeError), ("1", TypeError),
])
def test_check_non_negative_float_rejects_naming_the_argument(value, error):
    with pytest.raises(error, match="ent_coef"):
        check_non_negative_float("ent_coef", value)


def test_check_positive_int_tuple_returns_a_tuple_of_ints():
    result = check_positive_int_tuple("hidden_sizes", [64, np.int32(32)])
    assert result == (64, 32) and all(type(v) is int for v in result)


@pytest.mark.parametrize(("value", "error", "named"), [
    ((), ValueError, "hidden_sizes"),
    ((64, 0), ValueError, r"hidden_sizes\[1\]"),
    ((64, 2.0), TypeError, r"hidden_sizes\[1\]"),
    ((True,), TypeError, r"hidden_sizes\[0\]"),
    ("64", TypeError, "hidden_sizes"),
    (b"64", TypeError, "hidden_sizes"),
    (64, TypeError, "hidden_sizes"),
    ({64, 32}, TypeError, "hidden_sizes"),
])
def test_check_positive_int_tuple_rejects_naming_the_argument_or_entry(value, error, named):
    with pytest.raises(error, match=named):
        check_positive_int_tuple("hidden_sizes", value)


def test_check_choice_returns_an_allowed_string():
    assert check_choice("activation", "relu", ("tanh", "relu")) == "relu"


@pytest.mark.parametrize("value", ["sigmoid", "", None, 1, ["relu"]])
def test_check_choice_rejects_listing_the_choices(value):
    with pytest.raises(ValueError, match=r"activation must be one of \['relu', 'tanh'\]"):
        check_choice("activation", value, ("tanh", "relu"))


# ---------------------------------------------------------------------------- seeds, sizes
@pytest.mark.parametrize("value", [None, 0, 7, np.int64(3), np.uint32(5), 2**63 - 1])
def test_check_seed_accepts_none_and_non_negative_ints(value):
    assert check_seed("seed", value) == (None if value is None else int(value))


@pytest.mark.parametrize(("value", "error"), [
    (-1, ValueError), (2**63, ValueError), (1.5, TypeError), ("3", TypeError),
    (True, TypeError), (np.bool_(False), TypeError), ([1], TypeError), (3 + 0j, TypeError)])
def test_check_seed_refuses_naming_the_argument(value, error):
    with pytest.raises(error, match="seed"):
        check_seed("seed", value)


def test_check_positive_int_takes_a_maximum():
    assert check_positive_int("n_steps", 5, maximum=5) == 5
    with pytest.raises(ValueError, match=r"n_steps must be a positive integer <= 5"):
        check_positive_int("n_steps", 6, maximum=5)


def test_check_memory_names_the_argument_the_estimate_and_the_limit():
    check_memory("n_worlds=1", 1e3)
    with pytest.raises(ValueError, match=r"n_worlds=10\*\*12 needs about .* GiB, more than the "
                                         r".* GiB allowed.*; use fewer worlds"):
        check_memory("n_worlds=10**12", 1e18, "use fewer worlds")
    assert 0 < memory_limit_bytes() < math.inf
