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
    prefixed_error,
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


# ---------------------------------------------------------------------------- bounded numbers
@pytest.mark.parametrize(("value", "expected"), [
    (0, 0.0), (100, 100.0), (np.float32(9.5), 9.5), (np.int64(3), 3.0), (np.uint8(7), 7.0)])
def test_check_float_in_accepts_real_numbers_in_the_interval(value, expected):
    from pyflyt_like.common.validation import check_float_in

    result = check_float_in("gravity", value, 0.0, 100.0)
    assert isinstance(result, float) and result == expected


@pytest.mark.parametrize(("value", "error"), [
    (True, TypeError), (np.bool_(False), TypeError), ("9.81", TypeError), (1j, TypeError),
    (None, TypeError), ([1.0], TypeError), (np.array(1.0), TypeError),
    (-1e-9, ValueError), (100.5, ValueError), (math.nan, ValueError), (math.inf, ValueError),
    (-math.inf, ValueError), (10**400, ValueError), (1e300, ValueError)])
def test_check_float_in_refuses_naming_the_argument_and_interval(value, error):
    from pyflyt_like.common.validation import check_float_in

    with pytest.raises(error, match=r"gravity must be a number in \[0, 100\] m/s"):
        check_float_in("gravity", value, 0.0, 100.0, unit=" m/s")


def test_check_float_in_with_an_open_lower_end():
    from pyflyt_like.common.validation import check_float_in

    assert check_float_in("airspeed", 1e-300, 0.0, 340.0, low_open=True) == 1e-300
    with pytest.raises(ValueError, match=r"airspeed must be a number in \(0, 340\]"):
        check_float_in("airspeed", 0.0, 0.0, 340.0, low_open=True)


# ---------------------------------------------------------------------------- arrays of shapes
SHAPES = ((2, 3), (4, 2, 3))


@pytest.mark.parametrize("value", [
    np.zeros((2, 3)), np.ones((4, 2, 3), np.float32), [[0, 0, 1], [1, 0, 1]],
    [[np.int64(1), np.float32(0.5), 2.0]] * 2, np.zeros((2, 3), object)])
def test_as_float_array_in_shapes_accepts_each_allowed_shape(value):
    from pyflyt_like.common.validation import as_float_array_in_shapes

    array = as_float_array_in_shapes("start_pos", value, SHAPES)
    assert array.dtype == np.float64 and array.shape in SHAPES
    np.testing.assert_array_equal(array, np.asarray(value, float))


@pytest.mark.parametrize(("value", "error", "pattern"), [
    ([[0, 0, 1], [0, 1]], TypeError, r"start_pos must be a numeric array of shape \(2, 3\) "
                                      r"or \(4, 2, 3\), got the ragged"),
    ([[[0, 0, 1]], [[0, 1, 2], [3]]], TypeError, "ragged"),
    ([[True, 0, 1], [0, 0, 1]], TypeError, "start_pos must be a numeric array"),
    (np.ones((2, 3), bool), TypeError, "start_pos"),
    ([["0", "0", "1"], ["1", "0", "1"]], TypeError, "start_pos"),
    ([[1j, 0, 1], [0, 0, 1]], TypeError, "start_pos"),
    ("abc", TypeError, "start_pos"),
    (None, TypeError, "start_pos"),
    ({"x": 1}, TypeError, "start_pos"),
    ([[10**400, 0, 1], [0, 0, 1]], ValueError, "start_pos must be finite"),
    ([[math.nan, 0, 1], [0, 0, 1]], ValueError, "start_pos must be finite"),
    (np.zeros((3, 3)), ValueError, r"start_pos must have shape \(2, 3\) or \(4, 2, 3\), "
                                   r"got \(3, 3\)"),
    (np.zeros(3), ValueError, "start_pos must have shape"),
    (np.zeros((1, 2, 3)), ValueError, "start_pos must have shape"),
])
def test_as_float_array_in_shapes_refuses_naming_the_argument(value, error, pattern):
    from pyflyt_like.common.validation import as_float_array_in_shapes

    with pytest.raises(error, match=pattern):
        as_float_array_in_shapes("start_pos", value, SHAPES)


def test_as_float_array_in_shapes_takes_any_length_for_none():
    from pyflyt_like.common.validation import as_float_array_in_shapes

    assert as_float_array_in_shapes("wind", np.zeros((7, 3)), ((3,), (None, 3))).shape == (7, 3)


def test_check_float_in_refuses_infinity_even_below_an_infinite_bound():
    from pyflyt_like.common.validation import check_float_in

    assert check_float_in("crash_speed", 1e300, 0.0, math.inf) == 1e300
    for value in (math.inf, 10**400):
        with pytest.raises(ValueError, match="crash_speed"):
            check_float_in("crash_speed", value, 0.0, math.inf)


@pytest.mark.parametrize("check", ["check_finite", "check_positive_float",
                                   "check_non_negative_float"])
def test_ints_beyond_float64_are_not_finite_numbers(check):
    from pyflyt_like.common import validation

    with pytest.raises(ValueError, match="speed must be a finite number"):
        getattr(validation, check)("speed", 10**400)


def test_as_float_array_names_an_int_beyond_float64():
    from pyflyt_like.common.validation import as_float_array

    with pytest.raises(ValueError, match="start_pos must be finite"):
        as_float_array("start_pos", [10**400, 0, 1], (3,))


@pytest.mark.parametrize(("error", "kind"), [
    (ValueError("bad"), ValueError), (TypeError("bad"), TypeError),
    (FileNotFoundError("bad"), FileNotFoundError), (PermissionError("bad"), PermissionError),
    # a subclass whose constructor takes five arguments: type(error)(message) raised a
    # TypeError about the constructor ("function takes exactly 5 arguments")
    (UnicodeDecodeError("utf-8", b"\x80", 0, 1, "invalid start byte"), ValueError),
    (np.linalg.LinAlgError("bad"), ValueError),  # another library's error: a ValueError
])
def test_prefixed_error_keeps_the_kind_and_the_message(error, kind):
    prefixed = prefixed_error("world", error)
    assert type(prefixed) is kind and str(prefixed) == f"world: {error}"
