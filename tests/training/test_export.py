"""export_policy: the ONNX model and the C header compute what PPOPolicy.act does (float32,
within 1e-5), the header's self-test pair is policy.act's, and bad arguments are refused.

Nothing is trained: a small policy gets random weights (a fixed seed) large enough that the
action bounds clip, and normaliser statistics that are far from 0 and 1.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from tests.extras import require_extra

torch = require_extra("rl", "torch")

from pyflyt_like.common.atomic_files import FileWriteError  # noqa: E402
from pyflyt_like.training import export as export_module  # noqa: E402
from pyflyt_like.training.export import export_policy  # noqa: E402
from pyflyt_like.training.policy import OBS_CLIP, PPOPolicy  # noqa: E402

OBS_DIM, ACT_DIM = 7, 3
LOW = [-1.0, -0.5, -np.inf]  # an infinite bound: that component is never clipped
HIGH = [1.0, 0.25, np.inf]
TOLERANCE = 1e-5
C_FLAGS = ["-std=c99", "-O2", "-Wall", "-Wextra", "-Werror", "-pedantic"]
VARIANTS = [("tanh", True), ("relu", True), ("elu", True), ("tanh", False)]
VARIANT_IDS = [f"{a}-{'normalised' if n else 'raw'}" for a, n in VARIANTS]


def make_policy(activation: str = "tanh", normalize: bool = True) -> PPOPolicy:
    policy = PPOPolicy(OBS_DIM, ACT_DIM, LOW, HIGH, hidden_sizes=(32, 16),
                       activation=activation, normalize_observations=normalize, seed=0)
    generator = torch.Generator().manual_seed(1234)
    with torch.no_grad():
        for layer in policy.actor[::2]:
            # The init's scale (gain sqrt(2)) in the hidden layers, and an output layer
            # larger than the init's 0.01 gain so that actions leave the bounds, while
            # staying of order 1 (float32 sums of order 100 differ between two summation
            # orders by about 1e-5).
            gain = (2.0 if layer is policy.actor[-1] else 2.0 ** 0.5) / layer.in_features ** 0.5
            layer.weight.copy_(gain * torch.randn(layer.weight.shape, generator=generator))
            layer.bias.copy_(0.3 * torch.randn(layer.bias.shape, generator=generator))
        # the unbounded component: of order 1 too, also from the clipped extremes
        policy.actor[-1].weight[2] *= 0.2
        if normalize:
            policy.obs_mean.copy_(3.0 * torch.randn(OBS_DIM, generator=generator))
            policy.obs_var.copy_(0.01 + 4.0 * torch.rand(OBS_DIM, generator=generator))
        # centre each action on the test observations, so both bounds clip some of them
        sample = torch.from_numpy(observations(policy, 256, seed=0))
        policy.actor[-1].bias -= policy(sample).median(dim=0).values
    return policy


def observations(policy: PPOPolicy, n: int = 64, seed: int = 7) -> np.ndarray:
    """(n, D) float32: most near the normaliser's range, the last quarter far outside it
    (where the normalised observations are clipped; a policy without normalisation gets
    none: unclipped, sums of such inputs differ between two float32 summation orders by far
    more than 1e-5)."""
    rng = np.random.default_rng(seed)
    mean = policy.obs_mean.numpy().astype(np.float64)
    std = np.sqrt(policy.obs_var.numpy().astype(np.float64))
    obs = mean + std * rng.normal(0.0, 2.0, size=(n, OBS_DIM))
    if not policy.normalize_observations:
        return obs.astype(np.float32)
    far = n - n // 4
    obs[far:] = mean + std * rng.choice([-1.0, 1.0], size=(n - far, OBS_DIM)) * rng.uniform(
        20.0, 1e4, size=(n - far, OBS_DIM))
    return obs.astype(np.float32)


def check_inputs_are_exercised(policy: PPOPolicy, obs: np.ndarray, expected: np.ndarray):
    """The batch hits the observation clip (when normalising) and both finite action
    bounds, and has actions between them."""
    if policy.normalize_observations:
        normalised = policy.normalize(torch.from_numpy(obs)).numpy()
        assert (np.abs(normalised) == OBS_CLIP).any()
        assert (np.abs(normalised) < OBS_CLIP).any()
    for i in range(2):  # the finite bounds
        assert (expected[:, i] == LOW[i]).any() and (expected[:, i] == HIGH[i]).any()
        assert ((expected[:, i] > LOW[i]) & (expected[:, i] < HIGH[i])).any()


# ----------------------------------------------------------------------------- ONNX


@pytest.mark.parametrize(("activation", "normalize"), VARIANTS, ids=VARIANT_IDS)
def test_onnx_matches_act(tmp_path, activation, normalize):
    onnx = require_extra("export", "onnx")
    ort = require_extra("export", "onnxruntime")
    policy = make_policy(activation, normalize)
    path = export_policy(policy, tmp_path / "policy.onnx")
    assert path == tmp_path / "policy.onnx" and isinstance(path, Path)
    assert [p.name for p in tmp_path.iterdir()] == ["policy.onnx"]  # no temporary left

    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    (inp,), (out,) = session.get_inputs(), session.get_outputs()
    assert (inp.name, out.name) == ("obs", "action")
    assert inp.type == out.type == "tensor(float)"
    assert isinstance(inp.shape[0], str) and inp.shape[1] == OBS_DIM  # dynamic batch
    assert isinstance(out.shape[0], str) and out.shape[1] == ACT_DIM

    obs = observations(policy)
    expected = policy.act(obs)
    check_inputs_are_exercised(policy, obs, expected)
    (actions,) = session.run(["action"], {"obs": obs})
    assert actions.dtype == np.float32 and actions.shape == (64, ACT_DIM)
    np.testing.assert_allclose(actions, expected, rtol=0, atol=TOLERANCE)
    for n in (1, 5):  # other batch sizes through the same model
        (few,) = session.run(["action"], {"obs": obs[:n]})
        np.testing.assert_allclose(few, expected[:n], rtol=0, atol=TOLERANCE)

    model = onnx.load(str(path))
    onnx.checker.check_model(model)
    metadata = {p.key: p.value for p in model.metadata_props}
    assert metadata["pyflyt_like.obs_dim"] == str(OBS_DIM)
    assert metadata["pyflyt_like.act_dim"] == str(ACT_DIM)
    assert metadata["pyflyt_like.action_high"] == "[1.0, 0.25, null]"


def test_onnx_overwrites_an_existing_file(tmp_path):
    require_extra("export", "onnx")
    target = tmp_path / "policy.onnx"
    target.write_bytes(b"old")
    export_policy(make_policy(), target)
    assert target.stat().st_size > 1000 and target.read_bytes() != b"old"


# ----------------------------------------------------------------------------- C header

C_MAIN = """\
#include <stdio.h>
#include "policy.h"

static const float observations[{n}][PYFLYT_LIKE_POLICY_OBS_DIM] = {{
{rows}
}};

int main(void)
{{
    float action[PYFLYT_LIKE_POLICY_ACT_DIM];
    int n, i;
    printf("self_test %.9g\\n", (double)pyflyt_like_policy_self_test());
    pyflyt_like_policy_act(pyflyt_like_policy_test_obs, action);
    printf("test");
    for (i = 0; i < PYFLYT_LIKE_POLICY_ACT_DIM; ++i) printf(" %.9g", (double)action[i]);
    printf("\\n");
    for (n = 0; n < {n}; ++n) {{
        pyflyt_like_policy_act(observations[n], action);
        printf("act");
        for (i = 0; i < PYFLYT_LIKE_POLICY_ACT_DIM; ++i) printf(" %.9g", (double)action[i]);
        printf("\\n");
    }}
    return 0;
}}
"""


def c_compiler() -> str:
    compiler = shutil.which("cc")
    if compiler is None:
        pytest.skip("no C compiler: the C header's tests need `cc` on PATH")
    return compiler


def compile_and_run(folder: Path, sources: list[str]) -> str:
    result = subprocess.run([c_compiler(), *C_FLAGS, *sources, "-o", "main", "-lm"],
                            cwd=folder, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr  # warnings are errors
    run = subprocess.run([str(folder / "main")], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    return run.stdout


def header_array(text: str, name: str) -> np.ndarray:
    match = re.search(rf"static const float {name}\[(\d+)\] = \{{(.*?)\}};", text, re.S)
    assert match, f"the header has no array {name}"
    values = [float(v.strip().removesuffix("f")) for v in match.group(2).split(",")]
    assert len(values) == int(match.group(1))
    return np.array(values, dtype=np.float32)


@pytest.mark.parametrize(("activation", "normalize"), VARIANTS, ids=VARIANT_IDS)
def test_c_header_matches_act(tmp_path, activation, normalize):
    c_compiler()
    policy = make_policy(activation, normalize)
    header = export_policy(policy, tmp_path / "policy.h")
    assert [p.name for p in tmp_path.iterdir()] == ["policy.h"]  # no temporary left
    text = header.read_text()
    assert f"#define PYFLYT_LIKE_POLICY_OBS_DIM {OBS_DIM}\n" in text
    assert f"#define PYFLYT_LIKE_POLICY_ACT_DIM {ACT_DIM}\n" in text
    assert re.findall(r"#include <(.*?)>", text) == ["math.h"]
    assert "malloc" not in text and "docs/export.md" in text

    obs = observations(policy)
    expected = policy.act(obs)
    check_inputs_are_exercised(policy, obs, expected)
    rows = ",\n".join("    {" + ", ".join(f"{v!r}f" for v in row.tolist()) + "}"
                      for row in obs)
    (tmp_path / "main.c").write_text(C_MAIN.format(n=len(obs), rows=rows))
    lines = compile_and_run(tmp_path, ["main.c"]).splitlines()

    assert lines[0].startswith("self_test ") and float(lines[0].split()[1]) <= TOLERANCE
    test_obs = header_array(text, "pyflyt_like_policy_test_obs")
    printed = np.array([line.split()[1:] for line in lines[1:]], dtype=np.float64)
    assert [line.split()[0] for line in lines[1:]] == ["test"] + ["act"] * len(obs)
    np.testing.assert_allclose(printed[0], policy.act(test_obs), rtol=0, atol=TOLERANCE)
    np.testing.assert_allclose(printed[1:], expected, rtol=0, atol=TOLERANCE)


@pytest.mark.parametrize(("activation", "normalize"), VARIANTS, ids=VARIANT_IDS)
def test_the_self_test_pair_is_policy_act(tmp_path, activation, normalize):
    policy = make_policy(activation, normalize)
    text = export_policy(policy, tmp_path / "policy.h").read_text()
    test_obs = header_array(text, "pyflyt_like_policy_test_obs")
    test_action = header_array(text, "pyflyt_like_policy_test_action")
    assert test_obs.shape == (OBS_DIM,) and test_action.shape == (ACT_DIM,)
    # the literals read back exactly (float32), and the action is act's for that obs
    np.testing.assert_array_equal(test_action, policy.act(test_obs))
    if normalize:  # near the running mean: no input is clipped
        normalised = policy.normalize(torch.from_numpy(test_obs)).numpy()
        assert (np.abs(normalised) < 1.0).all()


def test_the_weights_are_written_exactly(tmp_path):
    policy = make_policy()
    text = export_policy(policy, tmp_path / "policy.h").read_text()
    for i, index in enumerate((0, 2, 4)):
        layer = policy.actor[index]
        np.testing.assert_array_equal(header_array(text, f"pyflyt_like_policy_w{i}"),
                                      layer.weight.detach().numpy().reshape(-1))
        np.testing.assert_array_equal(header_array(text, f"pyflyt_like_policy_b{i}"),
                                      layer.bias.detach().numpy())
    assert "INFINITY" in text  # the unbounded action component


def test_the_header_links_into_two_translation_units(tmp_path):
    """Everything in it is static: two .c files of one program may both include it."""
    c_compiler()
    export_policy(make_policy(), tmp_path / "policy.h")
    (tmp_path / "other.c").write_text(
        '#include "policy.h"\nfloat other_self_test(void);\n'
        "float other_self_test(void) { return pyflyt_like_policy_self_test(); }\n")
    (tmp_path / "main.c").write_text(
        '#include <stdio.h>\n#include "policy.h"\nfloat other_self_test(void);\n'
        'int main(void) { printf("%.9g\\n", (double)other_self_test()); return 0; }\n')
    assert float(compile_and_run(tmp_path, ["main.c", "other.c"])) <= TOLERANCE


# ----------------------------------------------------------------------------- errors


@pytest.mark.parametrize("name", ["policy.pt", "policy.txt", "policy", "policy.ONNX",
                                  "policy.hpp", "policy.onnx.tmp"])
def test_another_suffix_is_refused(tmp_path, name):
    with pytest.raises(ValueError, match=r"path must end in one of \.onnx, \.h"):
        export_policy(make_policy(), tmp_path / name)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("value", [None, "policy.pt", torch.nn.Linear(3, 2), {"actor": 1}])
def test_something_else_than_a_policy_is_refused(tmp_path, value):
    with pytest.raises(TypeError, match=r"policy must be a pyflyt_like\.training\.PPOPolicy"):
        export_policy(value, tmp_path / "policy.h")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("value", [None, 3, b"policy.h", ["policy.h"]])
def test_a_path_that_is_no_file_name_is_refused(value):
    with pytest.raises(TypeError, match="path must be a file name"):
        export_policy(make_policy(), value)


def test_onnx_without_the_extra_names_the_install_line(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "onnx", None)  # `import onnx` now raises ImportError
    target = tmp_path / "policy.onnx"
    target.write_bytes(b"old")
    with pytest.raises(ImportError, match=re.escape('pip install "pyflyt_like[export]"')):
        export_policy(make_policy(), target)
    assert target.read_bytes() == b"old" and len(list(tmp_path.iterdir())) == 1


def test_non_finite_weights_are_refused(tmp_path):
    policy = make_policy()
    with torch.no_grad():
        policy.actor[2].weight[0, 0] = float("nan")
    with pytest.raises(ValueError, match="layer 1 has NaN or infinite weights"):
        export_policy(policy, tmp_path / "policy.h")
    assert list(tmp_path.iterdir()) == []


def test_a_missing_folder_is_a_file_write_error(tmp_path):
    with pytest.raises(FileWriteError, match="missing"):
        export_policy(make_policy(), tmp_path / "missing" / "policy.h")


@pytest.mark.parametrize(("name", "error", "match"), [
    ("folder.h", ValueError, r"path .*folder\.h is a folder; give the path of an \.h file"),
    ("a\0b.h", ValueError, r"path must not contain a NUL character, got '.*a\\x00b\.h'"),
    ("file/policy.h", FileWriteError, r"path .*policy\.h: .*file is not a folder"),
    ("x" * 300 + ".h", FileWriteError, r"path .*\.h cannot be checked \(File name too long\)"),
    # fits, but not its temporary file: found by the trial, before the model is built
    ("x" * 250 + ".h", FileWriteError, r"path .*\.h: the file name is too long \(File name "
                                       r"too long\) for the temporary file"),
    ("/proc/policy.h", FileWriteError, r"path /proc/policy\.h: no file can be written in its "
                                       r"folder /proc \("),
])
def test_a_destination_that_cannot_take_the_file_is_refused_first(tmp_path, monkeypatch,
                                                                   name, error, match):
    if name.startswith("/proc") and not sys.platform.startswith("linux"):
        pytest.skip("/proc is Linux's")
    (tmp_path / "folder.h").mkdir()
    (tmp_path / "file").write_text("a file")
    before = sorted(tmp_path.iterdir())

    def built(*args, **kwargs):
        raise AssertionError("the model was built before the path was checked")

    monkeypatch.setattr(export_module, "_c_header", built)
    with pytest.raises(error, match=match):
        export_policy(make_policy(), tmp_path / name)
    assert sorted(tmp_path.iterdir()) == before  # nothing left behind
