"""PPOPolicy.load raises one CheckpointError naming the file for every kind of bad file:
empty, truncated, foreign, incomplete, or with weights that do not fit its sizes."""

from __future__ import annotations

import json
import pickle
import re
import zipfile

import numpy as np
import pytest

from tests.extras import require_extra

torch = require_extra("rl", "torch")

from pyflyt_like.training import CheckpointError, PPOPolicy  # noqa: E402
from pyflyt_like.training.checkpoint import REQUIRED_KEYS  # noqa: E402


@pytest.fixture(scope="module")
def payload() -> dict:
    """What a good checkpoint holds (D=3, A=2, hidden (8,)), as torch.load returns it."""
    policy = PPOPolicy(obs_dim=3, act_dim=2, action_low=-1.0, action_high=1.0,
                       hidden_sizes=(8,), seed=0)
    return {"format": 1, "obs_dim": 3, "act_dim": 2, "hidden_sizes": [8], "activation": "tanh",
            "normalize_observations": True, "action_low": policy.action_low.clone(),
            "action_high": policy.action_high.clone(),
            "state_dict": {k: v.clone() for k, v in policy.state_dict().items()}}


@pytest.fixture(scope="module")
def good_bytes(tmp_path_factory, payload) -> bytes:
    path = tmp_path_factory.mktemp("good") / "policy.pt"
    torch.save(payload, path)
    return path.read_bytes()


def _expect_checkpoint_error(path, pattern: str) -> CheckpointError:
    with pytest.raises(CheckpointError, match=pattern) as info:
        PPOPolicy.load(path)
    assert repr(str(path)) in str(info.value)  # the file is named
    assert isinstance(info.value, ValueError)
    assert "\n" not in str(info.value)
    return info.value


def test_a_good_file_loads(tmp_path, good_bytes):
    path = tmp_path / "good.pt"
    path.write_bytes(good_bytes)
    assert PPOPolicy.load(path).obs_dim == 3


# --------------------------------------------------------------- files torch cannot read
NOT_TORCH = "is not a PPOPolicy checkpoint: torch.load cannot read it as weights only"


def test_an_empty_file(tmp_path):
    path = tmp_path / "empty.pt"
    path.write_bytes(b"")
    _expect_checkpoint_error(path, "the file is empty")


@pytest.mark.parametrize("fraction", [0.001, 0.1, 0.5, 0.9, 0.999])
def test_a_truncated_file(tmp_path, good_bytes, fraction):
    path = tmp_path / "truncated.pt"
    path.write_bytes(good_bytes[:max(1, int(fraction * len(good_bytes)))])
    error = _expect_checkpoint_error(path, NOT_TORCH)
    assert error.__cause__ is not None  # torch's own error is kept


def _write_foreign(kind: str, path) -> None:
    if kind == "json":
        path.write_text(json.dumps({"format": 1, "obs_dim": 3}))
    elif kind == "npy":
        with open(path, "wb") as file:
            np.save(file, np.zeros((3, 2)))
    elif kind == "npz":
        with open(path, "wb") as file:
            np.savez(file, a=np.zeros(3))
    elif kind == "text":
        path.write_text("hello\n")
    elif kind == "random":
        path.write_bytes(np.random.default_rng(0).bytes(4096))
    elif kind == "zip":
        with zipfile.ZipFile(path, "w") as archive:
            archive.writestr("data.txt", "not a tensor")
    elif kind == "pickle":
        path.write_bytes(pickle.dumps({"format": 1}))


# torch warns about a plain pickle's protocol before it refuses the file
@pytest.mark.filterwarnings("ignore:Detected pickle protocol:UserWarning")
@pytest.mark.parametrize("kind", ["json", "npy", "npz", "text", "random", "zip", "pickle"])
def test_a_foreign_file(tmp_path, kind):
    path = tmp_path / f"foreign.{kind}"
    _write_foreign(kind, path)
    _expect_checkpoint_error(path, NOT_TORCH)


class _TouchOnLoad:
    """Unpickling this creates ``path``: a stand-in for a checkpoint that runs code."""

    def __init__(self, path):
        self.path = path

    def __reduce__(self):
        import pathlib

        return (pathlib.Path.touch, (self.path,))


def test_a_file_that_would_run_code_is_refused_unrun(tmp_path, payload):
    marker = tmp_path / "code_ran"
    path = tmp_path / "crafted.pt"
    torch.save({**payload, "state_dict": _TouchOnLoad(marker)}, path)
    error = _expect_checkpoint_error(path, NOT_TORCH + r".*refused rather than run")
    assert isinstance(error.__cause__, pickle.UnpicklingError)
    assert not marker.exists()


# ------------------------------------------------------------ torch files of another kind
@pytest.mark.parametrize(("content", "pattern"), [
    ([1, 2], "not a PPOPolicy file of format 1: it holds a list, not a dict"),
    (torch.zeros(3), "not a PPOPolicy file of format 1: it holds a Tensor"),
    ({"weights": torch.zeros(3)}, "not a PPOPolicy file of format 1: its format is None"),
    ({"format": 2}, "its format is 2"),
    ({"format": "1"}, "its format is '1'"),
    ({"format": True}, "its format is True"),
    ({"format": 1.0}, None),  # 1.0 == 1: the format is fine, the content incomplete
])
def test_a_torch_file_of_another_kind(tmp_path, content, pattern):
    path = tmp_path / "other.pt"
    torch.save(content, path)
    _expect_checkpoint_error(path, pattern or "incomplete PPOPolicy checkpoint")


@pytest.mark.parametrize("key", REQUIRED_KEYS)
def test_an_incomplete_file_names_what_it_lacks(tmp_path, payload, key):
    path = tmp_path / "incomplete.pt"
    torch.save({k: v for k, v in payload.items() if k != key}, path)
    _expect_checkpoint_error(path, f"incomplete PPOPolicy checkpoint: it lacks '{key}'")


# ------------------------------------------------------------ fields of the wrong kind
@pytest.mark.parametrize(("key", "value", "pattern"), [
    ("obs_dim", "3", "obs_dim must be a positive integer"),
    ("obs_dim", 0, "obs_dim must be a positive integer"),
    ("obs_dim", True, "obs_dim must be a positive integer"),
    ("act_dim", 2.0, "act_dim must be a positive integer"),
    ("hidden_sizes", "8", "hidden_sizes must be a sequence"),
    ("hidden_sizes", [8, -1], r"hidden_sizes\[1\]"),
    ("activation", "sigmoid", "activation must be one of"),
    ("normalize_observations", 1, "normalize_observations must be a bool"),
    ("action_low", [-1.0, -1.0], "'action_low' must be a 1-D float tensor"),
    ("action_low", torch.zeros(2, dtype=torch.int64), "'action_low' must be a 1-D float"),
    ("action_high", torch.ones(2, 1), "'action_high' must be a 1-D float tensor"),
    ("action_low", torch.full((3,), -1.0), r"action_low must be a number or have shape \(2,\)"),
    ("action_low", torch.tensor([-1.0, float("nan")]), "action_low must not be NaN"),
    ("action_low", torch.full((2,), 2.0), "action_low <= action_high"),
    ("state_dict", [torch.zeros(3)], "'state_dict' must map parameter names to tensors"),
    ("state_dict", {"obs_mean": [0.0, 0.0, 0.0]}, "'state_dict' must map parameter names"),
])
def test_a_field_of_the_wrong_kind(tmp_path, payload, key, value, pattern):
    path = tmp_path / "bad_field.pt"
    torch.save({**payload, key: value}, path)
    _expect_checkpoint_error(path, pattern)


def test_sizes_too_big_for_memory_are_refused_before_allocating(tmp_path, payload):
    path = tmp_path / "huge.pt"
    torch.save({**payload, "obs_dim": 10**12}, path)
    _expect_checkpoint_error(path, r"not a valid PPOPolicy checkpoint: .*obs_dim=1000000000000"
                                   r".* needs about .* GiB")


# --------------------------------------------------------- weights that do not fit
@pytest.mark.parametrize(("change", "pattern"), [
    (dict(obs_dim=5), r"do not fit its obs_dim=5, act_dim=2, hidden_sizes=\(8,\): "
                      r"'obs_mean' has shape \(3,\), expected \(5,\)"),
    (dict(act_dim=1), r"act_dim=1.*'log_std' has shape \(2,\), expected \(1,\)"),
    (dict(hidden_sizes=[16]), r"hidden_sizes=\(16,\).*'actor.0.weight' has shape \(8, 3\), "
                              r"expected \(16, 3\)"),
    (dict(hidden_sizes=[8, 8]), r"'actor.4.weight' is missing"),
])
def test_sizes_that_disagree_with_the_weights(tmp_path, payload, change, pattern):
    path = tmp_path / "mismatch.pt"
    low, high = payload["action_low"], payload["action_high"]
    if "act_dim" in change:
        low, high = low[:change["act_dim"]], high[:change["act_dim"]]
    torch.save({**payload, **change, "action_low": low, "action_high": high}, path)
    _expect_checkpoint_error(path, pattern)


def _with_state(payload, **entries):
    state = dict(payload["state_dict"])
    for name, value in entries.items():
        if value is None:
            del state[name]
        else:
            state[name] = value
    return {**payload, "state_dict": state}


@pytest.mark.parametrize(("entries", "pattern"), [
    ({"obs_var": None}, "'obs_var' is missing"),
    ({"extra.weight": torch.zeros(2)}, "'extra.weight' is not a parameter of that policy"),
    ({"log_std": torch.tensor([float("nan"), 0.0])}, "'log_std' holds NaN or inf"),
    ({"actor.0.weight": torch.full((8, 3), float("inf"))}, "'actor.0.weight' holds NaN or inf"),
    ({"obs_mean": torch.zeros(3, dtype=torch.int64)}, "'obs_mean' holds torch.int64"),
    ({"obs_count": torch.zeros(2, dtype=torch.float64)}, r"'obs_count' has shape \(2,\)"),
    ({"obs_mean": None, "obs_var": None, "log_std": None, "critic.0.bias": None},
     "'log_std' is missing; 'obs_mean' is missing; 'obs_var' is missing; and 1 more"),
])
def test_weights_that_are_missing_extra_or_not_finite(tmp_path, payload, entries, pattern):
    path = tmp_path / "bad_weights.pt"
    torch.save(_with_state(payload, **entries), path)
    _expect_checkpoint_error(path, pattern)


def test_infinite_action_bounds_load(tmp_path, payload):
    path = tmp_path / "unbounded.pt"
    inf = torch.full((2,), float("inf"))
    state = {**payload["state_dict"], "action_low": -inf, "action_high": inf}
    torch.save({**payload, "action_low": -inf, "action_high": inf, "state_dict": state}, path)
    assert PPOPolicy.load(path).action_high.tolist() == [float("inf")] * 2


# ------------------------------------------------------------------------ the path itself
def test_a_missing_file_stays_file_not_found_naming_it(tmp_path):
    path = tmp_path / "missing.pt"
    with pytest.raises(FileNotFoundError, match=re.escape(str(path))):
        PPOPolicy.load(path)


def test_a_folder_is_not_a_file(tmp_path):
    with pytest.raises(IsADirectoryError, match=re.escape(str(tmp_path))):
        PPOPolicy.load(tmp_path)


@pytest.mark.parametrize("path", [3, None, 1.5, ["policy.pt"]])
def test_a_path_of_the_wrong_kind(path):
    policy = PPOPolicy(3, 2, -1.0, 1.0, hidden_sizes=(8,), seed=0)
    with pytest.raises(TypeError, match="path must be a file name"):
        PPOPolicy.load(path)
    with pytest.raises(TypeError, match="path must be a file name"):
        policy.save(path)
