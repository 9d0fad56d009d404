"""Exporting a trained :class:`~pyflyt_like.training.PPOPolicy` for deployment.

:func:`export_policy` writes the deterministic action of :meth:`PPOPolicy.act
<pyflyt_like.training.PPOPolicy.act>` (observation normalisation and its clip, the actor
MLP's mean, the clip to the action bounds) as either

- an ONNX model (``.onnx``, through torch's exporter; needs the ``export`` extra), input
  ``obs`` (N, D) float32 with a dynamic batch axis N, output ``action`` (N, A) float32; or
- a dependency-free C99 header (``.h``): the weights as ``static const float`` arrays, no
  allocation, only ``<math.h>``, and a reference observation with its action for a self-test.

The critic and the log standard deviation are left out: neither plays a part in a
deterministic action. docs/export.md shows how to run both files.
"""

from __future__ import annotations

import copy
import io
import json
import math
import os
import warnings
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import numpy as np
import torch
from torch import nn

from pyflyt_like.common.atomic_files import check_file_destination, write_atomically

from .networks import ACTIVATIONS
from .policy import OBS_CLIP, OBS_VAR_EPS, PPOPolicy

__all__ = ["EXPORT_SUFFIXES", "ONNX_OPSET", "export_policy"]

EXPORT_SUFFIXES = (".onnx", ".h")
"""The file name suffixes :func:`export_policy` writes, each choosing a format."""

ONNX_OPSET = 17
"""ONNX opset of the exported model (onnxruntime runs it from version 1.13 on)."""

# Activations each format can express, by PPOPolicy.activation name. A name added to
# networks.ACTIVATIONS without an entry here is refused with a clear error rather than
# exported wrongly. In ONNX, FastTanh (a custom autograd function the exporter cannot trace)
# becomes the plain Tanh op: the two agree within 2e-7.
_ONNX_ACTIVATIONS: dict[str, Callable[[], nn.Module]] = {
    "tanh": nn.Tanh, "relu": nn.ReLU, "elu": nn.ELU}
# C expressions of the activation of float ``x`` (ELU with alpha = 1, torch's default).
_C_ACTIVATIONS = {"tanh": "tanhf(x)", "relu": "(x > 0.0f ? x : 0.0f)",
                  "elu": "(x > 0.0f ? x : expm1f(x))"}

_C_PREFIX = "pyflyt_like_policy"
_FLOATS_PER_LINE = 4


def export_policy(policy: PPOPolicy, path: str | os.PathLike[str]) -> Path:
    """Write ``policy``'s deterministic action to ``path``, in the format its suffix names.

    Both formats compute exactly what ``policy.act(obs)`` does (float32): normalise the raw
    observation with the running statistics as they are now, ``(obs - mean) /
    sqrt(var + 1e-8)``, clipped to +-10 (skipped for a policy made with
    ``normalize_observations=False``); the actor MLP's mean; the clip to
    ``[action_low, action_high]`` (infinite bounds: no clip). The statistics and bounds are
    baked in, so re-export after further training.

    Args:
        policy: the policy to export; its weights and statistics must be finite.
        path: the file to write, whose folder must exist: ``*.onnx`` for an ONNX model
            (input ``obs`` (N, D) float32 with a dynamic batch axis N, output ``action``
            (N, A) float32, opset :data:`ONNX_OPSET`), ``*.h`` for a C99 header defining
            ``pyflyt_like_policy_act(const float *obs, float *action)`` for one (D,)
            observation. The file is written atomically: a reader sees the old file or
            the complete new one.

    Returns:
        ``path`` as a :class:`~pathlib.Path`.

    Raises:
        TypeError: ``policy`` is not a PPOPolicy, or ``path`` is not a file name (str or
            os.PathLike).
        ValueError: ``path`` ends in another suffix than ``.onnx`` or ``.h``, is a folder or
            holds a NUL character, or the policy has non-finite weights or statistics or an
            actor this module cannot express.
        ImportError: ``.onnx`` without the onnx package (``pip install
            "pyflyt_like[export]"``).
        FileWriteError: (an ``OSError``) its folder is missing or no file can be created
            there (checked first, by creating and removing a trial file), or the file cannot
            be written; ``path`` is then left as it was.
    """
    if not isinstance(policy, PPOPolicy):
        raise TypeError(f"policy must be a pyflyt_like.training.PPOPolicy, got {policy!r}")
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"path must be a file name (str or os.PathLike), got {path!r}")
    path = Path(path)
    if path.suffix not in EXPORT_SUFFIXES:
        raise ValueError(f"path must end in one of {', '.join(EXPORT_SUFFIXES)} (the suffix "
                         f"chooses the format), got {str(path)!r}")
    # where the file goes, before the model is built: a folder, a missing one, one where no
    # file can be created (a trial file is created and removed there)
    check_file_destination(path, path.suffix, "path")
    if path.suffix == ".onnx":
        try:
            import onnx
        except ImportError as error:
            raise ImportError('exporting a policy to ONNX needs the onnx package: pip install '
                              '"pyflyt_like[export]"') from error
        data = _onnx_bytes(policy, onnx)
        return write_atomically(path, lambda stream: stream.write(data), binary=True)
    text = _c_header(policy)
    return write_atomically(path, lambda stream: stream.write(text))


class _DeterministicAct(nn.Module):
    """The computation of ``PPOPolicy.act(obs)`` (deterministic) as a traceable module:
    (N, D) float32 raw observations -> (N, A) float32 actions."""

    def __init__(self, policy: PPOPolicy, layers: list[tuple[nn.Linear, str | None]]):
        super().__init__()
        self.normalize = policy.normalize_observations
        modules: list[nn.Module] = []
        for linear, activation in layers:
            modules.append(copy.deepcopy(linear).float().cpu())
            if activation is not None:
                modules.append(_ONNX_ACTIVATIONS[activation]())
        self.mlp = nn.Sequential(*modules)
        mean, inv_std = _normaliser(policy)
        self.register_buffer("obs_mean", torch.from_numpy(mean))
        self.register_buffer("obs_inv_std", torch.from_numpy(inv_std))
        low, high = _bounds(policy)
        self.register_buffer("action_low", torch.from_numpy(low))
        self.register_buffer("action_high", torch.from_numpy(high))

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        if self.normalize:
            obs = torch.clamp((obs - self.obs_mean) * self.obs_inv_std, -OBS_CLIP, OBS_CLIP)
        return torch.clamp(self.mlp(obs), self.action_low, self.action_high)


def _onnx_bytes(policy: PPOPolicy, onnx: ModuleType) -> bytes:
    """The checked ONNX model of ``policy``'s deterministic action, serialised."""
    module = _DeterministicAct(policy, _actor_layers(policy)).eval()
    buffer = io.BytesIO()
    with torch.no_grad(), warnings.catch_warnings():
        # The TorchScript exporter (dynamo=False) is chosen on purpose: the dynamo one needs
        # onnxscript as well, for a graph of a few Gemm and activation nodes. torch flags
        # the former as deprecated; the warning is no concern of the caller's.
        warnings.simplefilter("ignore", DeprecationWarning)
        warnings.simplefilter("ignore", FutureWarning)
        torch.onnx.export(module, (torch.zeros(1, policy.obs_dim),), buffer,
                          input_names=["obs"], output_names=["action"],
                          dynamic_axes={"obs": {0: "batch"}, "action": {0: "batch"}},
                          opset_version=ONNX_OPSET, do_constant_folding=True, dynamo=False)
    model = onnx.load_from_string(buffer.getvalue())
    low, high = _bounds(policy)
    metadata = {
        "pyflyt_like.obs_dim": str(policy.obs_dim),
        "pyflyt_like.act_dim": str(policy.act_dim),
        "pyflyt_like.hidden_sizes": json.dumps(list(policy.hidden_sizes)),
        "pyflyt_like.activation": policy.activation,
        "pyflyt_like.normalize_observations": json.dumps(policy.normalize_observations),
        # JSON has no infinity: an infinite bound (no clip) is written as null
        "pyflyt_like.action_low": json.dumps([_json_bound(v) for v in low]),
        "pyflyt_like.action_high": json.dumps([_json_bound(v) for v in high]),
    }
    for key, value in metadata.items():
        entry = model.metadata_props.add()
        entry.key, entry.value = key, value
    model.doc_string = ("Deterministic action of a pyflyt_like PPOPolicy: raw obs (N, D) -> "
                        "action (N, A); see docs/export.md.")
    onnx.checker.check_model(model)
    return model.SerializeToString()


def _json_bound(value: np.float32) -> float | None:
    return float(value) if math.isfinite(value) else None


def _c_header(policy: PPOPolicy) -> str:
    """The text of the C99 header of ``policy``'s deterministic action."""
    layers = _actor_layers(policy)
    mean, inv_std = _normaliser(policy)
    low, high = _bounds(policy)
    test_obs = _test_observation(policy)
    test_action = policy.act(test_obs[None])[0]
    weights = [(linear.weight.detach().cpu().float().numpy(),
                linear.bias.detach().cpu().float().numpy()) for linear, _ in layers]
    width = max([policy.obs_dim, *(w.shape[0] for w, _ in weights)])
    p, guard = _C_PREFIX, _C_PREFIX.upper()

    out: list[str] = []
    emit = out.append
    emit(f"""\
/* {p}.h: the deterministic action of a pyflyt_like PPOPolicy, generated by
 * pyflyt_like.training.export.export_policy. Do not edit; export again instead.
 *
 * C99, no allocation, needs only <math.h> (link with -lm). Everything is static, so the
 * header may be included in several translation units of one program.
 *
 *   static inline void {p}_act(const float *obs, float *action)
 *       obs:    {policy.obs_dim} raw observations, as the env returns them (not normalised)
 *       action: {policy.act_dim} actions, written; clipped to the bounds below
 *   static inline float {p}_self_test(void)
 *       largest |action - reference| over the stored reference pair (NaN if an action is
 *       NaN); a few 1e-6 for actions of order 1 when this build computes what Python did
 *
 * What each observation and action component means, and its units, is the training
 * task's: see the task's page and docs/export.md.
 *
 * actor: {policy.obs_dim} -> {' -> '.join(str(w.shape[0]) for w, _ in weights)}, \
activation {policy.activation} (not after the last layer)
 * observation normalisation: {_normalisation_text(policy)}
 * action_low:  {_bounds_text(low)}
 * action_high: {_bounds_text(high)}
 */
#ifndef {guard}_H
#define {guard}_H

#include <math.h>

#define {guard}_OBS_DIM {policy.obs_dim}
#define {guard}_ACT_DIM {policy.act_dim}
/* the largest layer: the size of the two scratch buffers on the stack, in floats */
#define {guard}_MAX_WIDTH {width}
""")
    if policy.normalize_observations:
        emit(f"#define {guard}_OBS_CLIP {_c_float(OBS_CLIP)}\n")
        emit(_c_array(f"{p}_obs_mean", mean,
                      "running mean of the raw observations, (OBS_DIM,)"))
        emit(_c_array(f"{p}_obs_inv_std", inv_std,
                      "1 / sqrt(running variance + 1e-8), (OBS_DIM,)"))
    for i, (weight, bias) in enumerate(weights):
        rows, cols = weight.shape
        emit(_c_array(f"{p}_w{i}", weight.reshape(-1),
                      f"layer {i} weight, ({rows}, {cols}) row-major: out x in"))
        emit(_c_array(f"{p}_b{i}", bias, f"layer {i} bias, ({rows},)"))
    emit(_c_array(f"{p}_action_low", low, "lower action bounds, (ACT_DIM,)"))
    emit(_c_array(f"{p}_action_high", high, "upper action bounds, (ACT_DIM,)"))
    emit(_c_array(f"{p}_test_obs", test_obs,
                  "self-test: a reference raw observation, (OBS_DIM,)"))
    emit(_c_array(f"{p}_test_action", test_action,
                  "self-test: the action Python computed for it (float32), (ACT_DIM,)"))
    emit(f"""
/* y = W x + b for a row-major (n_out, n_in) W */
static inline void {p}_dense_(const float *w, const float *b, int n_in, int n_out,
{" " * len(f"static inline void {p}_dense_(")}const float *x, float *y)
{{
    int i, j;
    for (i = 0; i < n_out; ++i) {{
        const float *row = w + (long)i * n_in;
        float sum = 0.0f;
        for (j = 0; j < n_in; ++j) {{
            sum += row[j] * x[j];
        }}
        y[i] = sum + b[i];
    }}
}}

static inline void {p}_act(const float *obs, float *action)
{{
    /* two scratch buffers, each layer reads one and writes the other */
    float a[{guard}_MAX_WIDTH];
    float b[{guard}_MAX_WIDTH];
    float x;
    int i;
""")
    if policy.normalize_observations:
        emit(f"""\
    for (i = 0; i < {guard}_OBS_DIM; ++i) {{
        x = (obs[i] - {p}_obs_mean[i]) * {p}_obs_inv_std[i];
        a[i] = x < -{guard}_OBS_CLIP ? -{guard}_OBS_CLIP
             : (x > {guard}_OBS_CLIP ? {guard}_OBS_CLIP : x);
    }}
""")
    else:
        emit(f"""\
    for (i = 0; i < {guard}_OBS_DIM; ++i) {{
        a[i] = obs[i]; /* trained without observation normalisation */
    }}
""")
    source, target = "a", "b"
    for i, ((weight, _), (_, activation)) in enumerate(zip(weights, layers)):
        rows, cols = weight.shape
        emit(f"    {p}_dense_({p}_w{i}, {p}_b{i}, {cols}, {rows}, {source}, {target});\n")
        if activation is not None:
            emit(f"""\
    for (i = 0; i < {rows}; ++i) {{
        x = {target}[i];
        {target}[i] = {_C_ACTIVATIONS[activation]};
    }}
""")
        source, target = target, source
    emit(f"""\
    for (i = 0; i < {guard}_ACT_DIM; ++i) {{
        x = {source}[i];
        x = x < {p}_action_low[i] ? {p}_action_low[i] : x;
        action[i] = x > {p}_action_high[i] ? {p}_action_high[i] : x;
    }}
}}

static inline float {p}_self_test(void)
{{
    float action[{guard}_ACT_DIM];
    float worst = 0.0f;
    int i;
    {p}_act({p}_test_obs, action);
    for (i = 0; i < {guard}_ACT_DIM; ++i) {{
        float error = fabsf(action[i] - {p}_test_action[i]);
        if (!(error <= worst)) {{ /* written so that a NaN action is reported, not skipped */
            worst = error;
        }}
    }}
    return worst;
}}

#endif /* {guard}_H */
""")
    return "".join(out)


def _actor_layers(policy: PPOPolicy) -> list[tuple[nn.Linear, str | None]]:
    """The actor as (linear layer, name of the activation after it or None) pairs, checked
    to be the Linear / activation chain build_mlp makes, with finite weights."""
    name = policy.activation
    if name not in _ONNX_ACTIVATIONS or name not in ACTIVATIONS:
        raise ValueError(f"policy has activation {name!r}, which export_policy cannot write "
                         f"(it writes {', '.join(_ONNX_ACTIVATIONS)})")
    layers: list[tuple[nn.Linear, str | None]] = []
    for module in policy.actor:
        if isinstance(module, nn.Linear) and (not layers or layers[-1][1] is not None):
            layers.append((module, None))
        elif isinstance(module, ACTIVATIONS[name]) and layers and layers[-1][1] is None:
            layers[-1] = (layers[-1][0], name)
        else:
            raise ValueError(f"policy's actor is not the Linear/{name} chain export_policy "
                             f"writes: unexpected {module!r}")
    if not layers or layers[-1][1] is not None:
        raise ValueError("policy's actor must end in a Linear layer")
    for i, (linear, _) in enumerate(layers):
        if not (torch.isfinite(linear.weight).all() and torch.isfinite(linear.bias).all()):
            raise ValueError(f"policy's actor layer {i} has NaN or infinite weights")
    return layers


def _normaliser(policy: PPOPolicy) -> tuple[np.ndarray, np.ndarray]:
    """(D,) float32 mean and 1/sqrt(var + eps), computed as PPOPolicy.normalize does."""
    mean = policy.obs_mean.detach().cpu().float()
    inv_std = torch.rsqrt(policy.obs_var.detach().cpu().float() + OBS_VAR_EPS)
    if policy.normalize_observations and not (
            torch.isfinite(mean).all() and torch.isfinite(inv_std).all()):
        raise ValueError("policy's observation statistics (obs_mean, obs_var) must be finite "
                         "with obs_var >= 0")
    return mean.numpy().copy(), inv_std.numpy().copy()


def _bounds(policy: PPOPolicy) -> tuple[np.ndarray, np.ndarray]:
    """(A,) float32 lower and upper action bounds (+-inf: no clip)."""
    return (policy.action_low.detach().cpu().float().numpy().copy(),
            policy.action_high.detach().cpu().float().numpy().copy())


def _test_observation(policy: PPOPolicy) -> np.ndarray:
    """(D,) float32 reference observation for the self-test: the running mean plus a
    deterministic spread of up to +-0.9 standard deviations (so every input matters and
    none is clipped), or that spread alone without normalisation."""
    spread = 0.9 * np.sin(1.0 + np.arange(policy.obs_dim))
    if not policy.normalize_observations:
        return spread.astype(np.float32)
    mean = policy.obs_mean.detach().cpu().double().numpy()
    std = np.sqrt(policy.obs_var.detach().cpu().double().numpy())
    return (mean + std * spread).astype(np.float32)


def _c_float(value: float) -> str:
    """A C float literal that reads back as exactly float32(``value``)."""
    value = np.float32(value)
    if np.isinf(value):  # an action bound meaning "no clip"; INFINITY is C99 <math.h>
        return "INFINITY" if value > 0 else "-INFINITY"
    return np.format_float_scientific(value, unique=True) + "f"


def _c_array(name: str, values: np.ndarray, comment: str) -> str:
    """A ``static const float`` array definition of the flat ``values``."""
    literals = [_c_float(v) for v in np.asarray(values, dtype=np.float32).reshape(-1)]
    lines = [", ".join(literals[i:i + _FLOATS_PER_LINE])
             for i in range(0, len(literals), _FLOATS_PER_LINE)]
    body = ",\n    ".join(lines)
    return f"\n/* {comment} */\nstatic const float {name}[{len(literals)}] = {{\n    {body}\n}};\n"


def _normalisation_text(policy: PPOPolicy) -> str:
    if not policy.normalize_observations:
        return "none (the policy was trained on raw observations)"
    return (f"(obs - obs_mean) * obs_inv_std, clipped to +-{OBS_CLIP:g} "
            f"(obs_inv_std = 1 / sqrt(var + {OBS_VAR_EPS:g}))")


def _bounds_text(values: np.ndarray) -> str:
    return "[" + ", ".join(f"{float(v):.9g}" for v in values) + "]"
