"""PPOConfig refuses every bad field with an error naming it: wrong kinds, out-of-range
values, seeds, and sizes too big to train (refused with the memory estimate)."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest

from tests.extras import require_extra

torch = require_extra("rl", "torch")

from pyflyt_like.training import PPOConfig  # noqa: E402
from pyflyt_like.training.config import LOG_STD_LIMIT  # noqa: E402

INT_FIELDS = ("n_steps", "total_steps", "n_epochs", "n_minibatches")
FLOAT_FIELDS = ("learning_rate", "gamma", "gae_lambda", "clip_range", "ent_coef", "vf_coef",
                "max_grad_norm", "init_log_std", "reward_scale")
BOOL_FIELDS = ("anneal_lr", "normalize_observations", "normalize_advantages")


@pytest.mark.parametrize("field", INT_FIELDS)
@pytest.mark.parametrize(("value", "error"), [
    (0, ValueError), (-1, ValueError), (2.0, TypeError), ("32", TypeError), (True, TypeError),
    (None, TypeError), (np.float64(3.0), TypeError), (1 + 0j, TypeError), ([32], TypeError),
], ids=["zero", "negative", "float", "str", "bool", "none", "np-float", "complex", "list"])
def test_int_fields_refuse_naming_the_field(field, value, error):
    with pytest.raises(error, match=field):
        PPOConfig(**{field: value})


@pytest.mark.parametrize("field", FLOAT_FIELDS)
@pytest.mark.parametrize(("value", "error"), [
    (math.nan, ValueError), (math.inf, ValueError), (-math.inf, ValueError),
    ("0.5", TypeError), (True, TypeError), (0.5 + 0j, TypeError), (np.complex64(1), TypeError),
    ([0.5], TypeError),
], ids=["nan", "inf", "-inf", "str", "bool", "complex", "np-complex", "list"])
def test_float_fields_refuse_naming_the_field(field, value, error):
    with pytest.raises(error, match=field):
        PPOConfig(**{field: value})


@pytest.mark.parametrize("field", BOOL_FIELDS)
@pytest.mark.parametrize("value", [1, 0, "yes", None, 1.0])
def test_bool_fields_take_only_bools(field, value):
    with pytest.raises(TypeError, match=field):
        PPOConfig(**{field: value})


@pytest.mark.parametrize(("field", "value"), [
    ("learning_rate", 0.0), ("learning_rate", -1e-3), ("gamma", 1.01), ("gamma", -0.01),
    ("gae_lambda", 1.5), ("clip_range", 0.0), ("ent_coef", -0.1), ("vf_coef", -1.0),
    ("max_grad_norm", -1.0), ("reward_scale", 0.0), ("reward_scale", -2.0),
    ("init_log_std", LOG_STD_LIMIT + 0.1), ("init_log_std", -LOG_STD_LIMIT - 0.1),
    ("init_log_std", 1e6),
])
def test_out_of_range_values_refuse_naming_the_field(field, value):
    with pytest.raises(ValueError, match=field):
        PPOConfig(**{field: value})


@pytest.mark.parametrize(("value", "error", "pattern"), [
    ("64", TypeError, "hidden_sizes"), (64, TypeError, "hidden_sizes"),
    ((), ValueError, "hidden_sizes"), ((64, 0), ValueError, r"hidden_sizes\[1\]"),
    ((64, -3), ValueError, r"hidden_sizes\[1\]"), ((64.0,), TypeError, r"hidden_sizes\[0\]"),
    ((True, 8), TypeError, r"hidden_sizes\[0\]"), (("64",), TypeError, r"hidden_sizes\[0\]"),
    ({64: 1}, TypeError, "hidden_sizes"), (None, TypeError, "hidden_sizes"),
])
def test_hidden_sizes_refuse_naming_the_entry(value, error, pattern):
    with pytest.raises(error, match=pattern):
        PPOConfig(hidden_sizes=value)


@pytest.mark.parametrize("value", ["sigmoid", "Tanh", "", None, 1, ("tanh",)])
def test_activation_must_be_one_of_the_names(value):
    with pytest.raises(ValueError, match=r"activation must be one of \['elu', 'relu', 'tanh'\]"):
        PPOConfig(activation=value)


# ------------------------------------------------------------------------------ seeds
@pytest.mark.parametrize(("value", "error"), [
    (-1, ValueError), (2**63, ValueError), (1.5, TypeError), (1.0, TypeError), ("a", TypeError),
    ("3", TypeError), (True, TypeError), (False, TypeError), (np.bool_(True), TypeError),
    (3 + 0j, TypeError), ([3], TypeError),
])
def test_seed_refuses_naming_the_field(value, error):
    with pytest.raises(error, match="seed"):
        PPOConfig(seed=value)


@pytest.mark.parametrize("value", [0, 7, np.int64(3), np.uint64(2**63 - 1), None])
def test_seed_accepts_none_and_ints_in_range(value):
    seed = PPOConfig(seed=value).seed
    assert seed == (None if value is None else int(value))
    assert seed is None or type(seed) is int


# --------------------------------------------------------------------------- huge sizes
@pytest.mark.parametrize(("fields", "pattern"), [
    (dict(hidden_sizes=(10**12,)), r"hidden_sizes=\(1000000000000,\) needs about .* GiB"),
    (dict(hidden_sizes=(10**6, 10**6)), r"hidden_sizes=\(1000000, 1000000\) needs about"),
    (dict(hidden_sizes=(64,) * 3 + (10**7,) * 4),
     r"hidden_sizes=\(64, 64, 64, 10000000, 10000000, 10000000, \.\.\. 7 layers\)"),
    (dict(n_steps=10**12), r"n_steps=1000000000000 needs about .* GiB.*smaller n_steps"),
    (dict(n_steps=10**7, n_minibatches=1, hidden_sizes=(4096,)),
     r"n_steps=10000000 with n_minibatches=1 and hidden_sizes=\(4096,\) needs about"),
], ids=["one-huge-layer", "two-wide-layers", "many-layers", "n-steps", "activations"])
def test_sizes_too_big_to_train_are_refused_with_the_estimate(fields, pattern):
    with pytest.raises(ValueError, match=pattern):
        PPOConfig(**fields)


def test_big_but_feasible_sizes_are_accepted():
    config = PPOConfig(hidden_sizes=(1024, 1024), n_steps=10_000)
    assert config.hidden_sizes == (1024, 1024)


def test_replace_with_a_bad_value_leaves_the_original_as_it_was():
    config = PPOConfig(seed=3, hidden_sizes=(16,))
    before = dataclasses.asdict(config)
    for field, value in (("seed", -1), ("hidden_sizes", (10**12,)), ("init_log_std", 50.0)):
        with pytest.raises(ValueError, match=field):
            dataclasses.replace(config, **{field: value})
    assert dataclasses.asdict(config) == before
