"""The PPO checkpoint file refuses code, saving fails cleanly, the config is frozen, and the
old ``pyflyt_like.training.ppo`` import path still serves every public name."""

from __future__ import annotations

import dataclasses
import pathlib
import pickle

import numpy as np
import pytest

from tests.extras import require_extra

torch = require_extra("rl", "torch")

import pyflyt_like.training as training  # noqa: E402
from pyflyt_like.training import CheckpointError, PPOConfig, PPOPolicy  # noqa: E402


class _TouchOnLoad:
    """Unpickling this creates ``path``: a stand-in for a checkpoint that runs code."""

    def __init__(self, path: pathlib.Path):
        self.path = path

    def __reduce__(self):
        return (pathlib.Path.touch, (self.path,))


def _policy() -> PPOPolicy:
    return PPOPolicy(obs_dim=3, act_dim=2, action_low=-1.0, action_high=1.0,
                     hidden_sizes=(8,), seed=0)


def test_load_refuses_a_checkpoint_that_would_run_code(tmp_path):
    marker = tmp_path / "code_ran"
    path = tmp_path / "crafted.pt"
    torch.save({"format": 1, "payload": _TouchOnLoad(marker)}, path)
    with pytest.raises(CheckpointError, match="refused rather than run") as info:
        PPOPolicy.load(path)
    assert isinstance(info.value.__cause__, pickle.UnpicklingError)
    assert not marker.exists()


def test_load_rejects_a_file_of_another_format(tmp_path):
    path = tmp_path / "other.pt"
    torch.save({"format": 99}, path)
    with pytest.raises(ValueError, match="not a PPOPolicy file of format 1"):
        PPOPolicy.load(path)


def test_save_into_a_missing_folder_raises_and_leaves_nothing(tmp_path):
    with pytest.raises(OSError, match="missing"):
        _policy().save(tmp_path / "missing" / "policy.pt")
    assert list(tmp_path.iterdir()) == []


def test_save_replaces_an_existing_file_whole(tmp_path):
    path = tmp_path / "policy.pt"
    path.write_bytes(b"an older checkpoint")
    policy = _policy()
    policy.save(path)
    obs = np.linspace(-2.0, 2.0, 12, dtype=np.float32).reshape(4, 3)
    np.testing.assert_array_equal(PPOPolicy.load(path).act(obs), policy.act(obs))
    assert [p.name for p in tmp_path.iterdir()] == ["policy.pt"]


def test_config_is_frozen_and_replace_checks_again():
    config = PPOConfig(hidden_sizes=[16, 16])
    assert config.hidden_sizes == (16, 16)
    with pytest.raises(dataclasses.FrozenInstanceError):
        config.gamma = 0.5
    assert dataclasses.replace(config, gamma=0.5).gamma == 0.5
    with pytest.raises(ValueError, match="gamma"):
        dataclasses.replace(config, gamma=2.0)


def test_policy_rejects_an_unknown_activation():
    with pytest.raises(ValueError, match="activation must be one of"):
        PPOPolicy(3, 2, -1.0, 1.0, activation="sigmoid")


def test_package_exports_and_old_module_path():
    from pyflyt_like.training import ppo

    assert training.__all__ == ["CheckpointError", "League", "LeagueEnv", "PPOConfig",
                                "PPOPolicy", "Ratings", "WinGate", "compute_gae",
                                "evaluate_policy", "export_policy", "fit_ratings", "train_ppo"]
    newer = ("CheckpointError", "export_policy", "League", "LeagueEnv", "Ratings", "WinGate",
             "fit_ratings")  # than the old path
    for name in training.__all__:
        if name not in newer:
            assert getattr(ppo, name) is getattr(training, name)
    from pyflyt_like.training.networks import FastTanh

    assert ppo.FastTanh is FastTanh
