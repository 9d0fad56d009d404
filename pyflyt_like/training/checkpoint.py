"""The checkpoint file of a :class:`~pyflyt_like.training.PPOPolicy`: writing it, and reading
it back with every way a file can be wrong reported as one :class:`CheckpointError`.

Format 1 (written by :meth:`PPOPolicy.save`, read by :meth:`PPOPolicy.load`): a
``torch.save`` of a dict holding only tensors, numbers, strings and lists, so it loads with
``weights_only=True`` (a crafted file cannot run code on load):

* ``format``: 1;
* ``obs_dim``, ``act_dim``: ints D and A;
* ``hidden_sizes``: list of ints; ``activation``: str; ``normalize_observations``: bool;
* ``action_low``, ``action_high``: (A,) float32 tensors;
* ``state_dict``: the module's parameters and buffers, on the CPU.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

import torch

from pyflyt_like.common.atomic_files import write_atomically

__all__ = ["SAVE_FORMAT", "CheckpointError", "check_checkpoint_path", "check_state_dict",
           "read_checkpoint", "write_checkpoint"]

SAVE_FORMAT = 1
REQUIRED_KEYS = ("obs_dim", "act_dim", "hidden_sizes", "activation", "normalize_observations",
                 "action_low", "action_high", "state_dict")
# Buffers that may legitimately be infinite (an unbounded action space).
_MAY_BE_INFINITE = ("action_low", "action_high")
_MOST_LISTED = 3  # mismatched state_dict entries named in a message


class CheckpointError(ValueError):
    """A file is not a readable PPOPolicy checkpoint: empty, truncated, of another kind or
    format, incomplete, or with weights that do not fit its sizes. The message names the
    file and what is wrong; the underlying error, if any, is chained as ``__cause__``."""


def check_checkpoint_path(path: object) -> str | bytes:
    """``path`` through :func:`os.fspath` if it is a str, bytes or os.PathLike, else raise
    TypeError (an int would be taken as an open file descriptor)."""
    if not isinstance(path, (str, bytes, os.PathLike)):
        raise TypeError(f"path must be a file name (str or os.PathLike), got {path!r}")
    return os.fspath(path)


def write_checkpoint(path: str | os.PathLike[str], payload: dict[str, Any]) -> None:
    """``torch.save`` ``payload`` to ``path`` atomically (FileWriteError, an OSError, if the
    file cannot be written; ``path`` is then left as it was)."""
    write_atomically(check_checkpoint_path(path), lambda file: torch.save(payload, file),
                     binary=True)


def read_checkpoint(path: str | os.PathLike[str]) -> dict[str, Any]:
    """The payload of a format-1 checkpoint, with every key present and the tensors and the
    state dict of the right kind (the sizes and names are checked by the caller).

    Raises:
        FileNotFoundError, IsADirectoryError, PermissionError: ``path`` cannot be opened
            (the OSError names it).
        CheckpointError: the file is empty, is not a weights-only ``torch.save`` file (also
            a truncated one, or one that holds code), or is not a complete PPOPolicy file of
            format 1. Any error of ``torch.load`` is chained as ``__cause__``.
    """
    path = check_checkpoint_path(path)
    with open(path, "rb") as file:
        if os.fstat(file.fileno()).st_size == 0:
            raise CheckpointError(f"{path!r} is not a PPOPolicy checkpoint: the file is empty")
        try:
            payload = torch.load(file, map_location="cpu", weights_only=True)
        # torch.load raises errors of any kind on bad bytes, OSError included (a truncated
        # archive makes it seek past the end); the file itself opened fine above.
        except Exception as error:
            # torch's own message is left to __cause__: for a refused object it suggests
            # weights_only=False, which is exactly what must not be done with such a file.
            raise CheckpointError(
                f"{path!r} is not a PPOPolicy checkpoint: torch.load cannot read it as "
                f"weights only ({type(error).__name__}); it is not a torch.save file, is "
                f"truncated or corrupt, or holds objects other than tensors and plain data, "
                f"which are refused rather than run") from error
    return _check_payload(path, payload)


def check_state_dict(path: str | bytes, found: Mapping[str, object],
                     expected: Mapping[str, torch.Tensor], sizes: str) -> None:
    """Raise CheckpointError unless ``found`` has exactly ``expected``'s names and shapes and
    finite floating-point values (the action bounds may be infinite).

    Args:
        path: the file, for the message.
        found: the checkpoint's state dict.
        expected: the state dict of a policy built from the checkpoint's sizes.
        sizes: the checkpoint's sizes as text, for the message.
    """
    problems = [f"{name!r} is missing" for name in expected if name not in found]
    problems += [f"{name!r} is not a parameter of that policy" for name in found
                 if name not in expected]
    for name, want in expected.items():
        got = found.get(name)
        if not isinstance(got, torch.Tensor):
            continue  # missing: listed above
        if not got.is_floating_point():
            problems.append(f"{name!r} holds {got.dtype}, not floating-point numbers")
        elif got.shape != want.shape:
            problems.append(f"{name!r} has shape {tuple(got.shape)}, expected "
                            f"{tuple(want.shape)}")
        elif name not in _MAY_BE_INFINITE and not bool(torch.isfinite(got).all()):
            problems.append(f"{name!r} holds NaN or inf")
    if problems:
        more = len(problems) - _MOST_LISTED
        listed = "; ".join(problems[:_MOST_LISTED]) + (f"; and {more} more" if more > 0
                                                       else "")
        raise CheckpointError(f"{path!r}: its weights do not fit its {sizes}: {listed}")


def _check_payload(path: str | bytes, payload: object) -> dict[str, Any]:
    """``payload`` if it is a complete format-1 dict, else raise CheckpointError."""
    if not isinstance(payload, dict):
        raise CheckpointError(f"{path!r} is not a PPOPolicy file of format {SAVE_FORMAT}: it "
                              f"holds a {type(payload).__name__}, not a dict")
    found_format = payload.get("format")
    if isinstance(found_format, bool) or found_format != SAVE_FORMAT:
        raise CheckpointError(f"{path!r} is not a PPOPolicy file of format {SAVE_FORMAT}: its "
                              f"format is {found_format!r}")
    missing = [key for key in REQUIRED_KEYS if key not in payload]
    if missing:
        raise CheckpointError(f"{path!r} is an incomplete PPOPolicy checkpoint: it lacks "
                              f"{', '.join(map(repr, missing))}")
    for key in ("action_low", "action_high"):
        bound = payload[key]
        if not (isinstance(bound, torch.Tensor) and bound.is_floating_point()
                and bound.ndim == 1):
            raise CheckpointError(f"{path!r}: its {key!r} must be a 1-D float tensor, got "
                                  f"{_short(bound)}")
    state_dict = payload["state_dict"]
    if not (isinstance(state_dict, dict)
            and all(isinstance(k, str) and isinstance(v, torch.Tensor)
                    for k, v in state_dict.items())):
        raise CheckpointError(f"{path!r}: its 'state_dict' must map parameter names to "
                              f"tensors, got {_short(state_dict)}")
    return payload


def _short(value: object, most: int = 60) -> str:
    text = " ".join(repr(value).split())  # one line, also for a tensor's repr
    return text if len(text) <= most else f"{type(value).__name__} {text[:most - 3]}..."
