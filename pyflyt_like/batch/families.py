"""Which vehicle family a ``drone_model`` belongs to, for the batched engine.

One family per :class:`~.aviary.BatchedAviary`: the multirotors of ``models/multirotors``
(:class:`~.multirotor_family.MultirotorFamily`) or the fixed-wings whose YAML has lifting
``surfaces`` and one forward motor (:class:`~.fixedwing.family.FixedwingFamily`). The other
vehicles (quadplane, rocket, QuadX) fly on the PyBullet ``Aviary`` only.
"""

from __future__ import annotations

from pyflyt_like.common.loading import VEHICLES_DIR, load_yaml, model_files
from pyflyt_like.common.multirotor_model import MULTIROTORS_DIR, load_multirotor_model
from pyflyt_like.physics.fixedwing_model import is_fixedwing_params, load_fixedwing_model

from .fixedwing.family import FixedwingFamily
from .multirotor_family import MultirotorFamily
from .options import BatchedAviaryOptions


def _fixedwing_yaml(drone_model: str, model_dir) -> dict | None:
    """The YAML of ``drone_model`` if it is a fixed-wing in ``model_dir`` (default: the
    package's vehicles), else None; raises ValueError for a vehicle of another family."""
    root = VEHICLES_DIR if model_dir is None else model_dir
    try:
        _, yaml_path = model_files(drone_model, root)
    except FileNotFoundError:
        return None
    if not yaml_path.is_file():
        return None
    params = load_yaml(yaml_path)
    if is_fixedwing_params(params):
        return params
    if model_dir is None or "surfaces" in params:  # a package vehicle or a quadplane
        raise ValueError(f"drone_model={drone_model!r} flies on the PyBullet Aviary only; the "
                         "batched engine flies multirotors and fixed-wings (docs/batch.md)")
    return None


def vehicle_family(options: BatchedAviaryOptions) -> MultirotorFamily | FixedwingFamily:
    """The family of ``options.drone_model``, its model loaded and checked against the
    options (``physics_hz`` ``None`` becomes the family's default: 500 Hz for multirotors,
    240 Hz for fixed-wings, the PyBullet ``Aviary``'s).

    Raises:
        FileNotFoundError: an unknown model, listing the multirotor sets and fixed-wings.
        ValueError: a vehicle the batched engine does not fly, or options its family
            refuses, naming them.
    """
    name, model_dir = options.drone_model, options.model_dir
    if model_dir is None and (MULTIROTORS_DIR / name).is_dir():
        options = options.with_physics_hz(MultirotorFamily.default_physics_hz)
        return MultirotorFamily(load_multirotor_model(name, None, options.gravity), options)
    if _fixedwing_yaml(name, model_dir) is not None:
        options = options.with_physics_hz(FixedwingFamily.default_physics_hz)
        return FixedwingFamily(load_fixedwing_model(name, model_dir), options)
    options = options.with_physics_hz(MultirotorFamily.default_physics_hz)
    try:
        model = load_multirotor_model(name, model_dir, options.gravity)
    except FileNotFoundError as error:
        if model_dir is not None:
            raise
        fixedwings = sorted(p.name for p in VEHICLES_DIR.iterdir() if p.is_dir() and (
            p / f"{p.name}.yaml").is_file() and is_fixedwing_params(
                load_yaml(p / f"{p.name}.yaml")))
        raise FileNotFoundError(f"{error}; fixed-wings: {fixedwings}") from None
    return MultirotorFamily(model, options)
