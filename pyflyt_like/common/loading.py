"""Locating and reading vehicle model files (URDF + YAML)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

MODELS_DIR = Path(__file__).resolve().parents[1] / "models"
VEHICLES_DIR = MODELS_DIR / "vehicles"


def model_files(drone_model: str, model_dir: str | Path | None = None) -> tuple[Path, Path]:
    """Return ``(urdf_path, yaml_path)`` of a vehicle model.

    Args:
        drone_model: model name; files are ``<model_dir>/<drone_model>/<drone_model>.urdf|.yaml``.
        model_dir: folder holding model folders; defaults to the package's ``models/vehicles``.

    Raises:
        FileNotFoundError: when the URDF is missing, naming the path looked at. The YAML is
            optional here (a user's vehicle may keep its parameters elsewhere); vehicles that
            read it check for it.
    """
    if not isinstance(drone_model, str) or not drone_model:
        raise TypeError(f"drone_model must be a non-empty string, got {drone_model!r}")
    root = Path(model_dir) if model_dir is not None else VEHICLES_DIR
    folder = root / drone_model
    urdf, params = folder / f"{drone_model}.urdf", folder / f"{drone_model}.yaml"
    if not urdf.is_file():
        known = sorted(p.name for p in root.iterdir() if p.is_dir()) if root.is_dir() else []
        raise FileNotFoundError(
            f"model file {urdf} not found for drone_model={drone_model!r} "
            f"(models in {root}: {known})"
        )
    return urdf, params


def load_yaml(path: str | Path) -> dict[str, Any]:
    """Read a YAML mapping; raise ValueError naming the file if it is not one (not UTF-8,
    not YAML, or not a mapping at top level)."""
    try:
        with open(path, encoding="utf-8") as handle:
            data = yaml.safe_load(handle)
    except (yaml.YAMLError, UnicodeDecodeError) as error:
        raise ValueError(f"{path} is not a UTF-8 YAML file: {error}") from None
    if not isinstance(data, dict):
        raise ValueError(f"{path} must contain a YAML mapping at top level")
    return data
