"""Worlds in YAML: an explicit list of primitives, or a generator and its seed.

Two forms, one per file (or dict)::

    # a generator and the seed that makes the world
    forest: {density: 0.1, radius: [0.1, 0.3], height: 6.0, extent: 40.0, clearing: 2.0}
    seed: 3

    # explicit primitives
    primitives:
      - cylinder: {x: 3.0, y: 0.0, radius: 0.2, height: 5.0}
      - box: {center: [0.0, 6.0, 1.0], half_extents: [2.0, 0.1, 1.0], yaw: 0.3}
      - sphere: {center: [-4.0, 2.0, 2.5], radius: 0.5}

The generator keys are ``forest``, ``rooms`` and ``clutter``, their fields those of
:class:`~pyflyt_like.worlds.forest.Forest`, :class:`~pyflyt_like.worlds.rooms.Rooms` and
:class:`~pyflyt_like.worlds.clutter.Clutter` (pairs as lists). The shipped worlds are in
``pyflyt_like/models/worlds/`` and load by name: ``load_world("forest")``.
"""

from __future__ import annotations

import dataclasses
import os
import reprlib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml

from pyflyt_like.common.atomic_files import check_file_destination, write_atomically
from pyflyt_like.common.loading import MODELS_DIR, read_yaml
from pyflyt_like.common.validation import check_seed, prefixed_error, reject_unknown_keys

from .clutter import Clutter
from .forest import Forest
from .primitives import Box, Cylinder, Sphere
from .rooms import Rooms
from .world import MAX_PRIMITIVES, World

WORLDS_DIR = MODELS_DIR / "worlds"
#: The generator of each key of a world file.
GENERATORS = {"forest": Forest, "rooms": Rooms, "clutter": Clutter}
#: The primitive of each key of an entry of ``primitives``.
PRIMITIVES = {"cylinder": Cylinder, "box": Box, "sphere": Sphere}
TOP_LEVEL_KEYS = ("primitives", *GENERATORS, "seed")

Generator = Forest | Rooms | Clutter


def world_names() -> list[str]:
    """The names of the shipped worlds (``pyflyt_like/models/worlds/<name>.yaml``), sorted."""
    return sorted(path.stem for path in WORLDS_DIR.glob("*.yaml"))


def load_spec(source: str | os.PathLike | Mapping) -> tuple[World | Generator, int | None]:
    """A world file's content: the explicit :class:`~pyflyt_like.worlds.world.World` or the
    generator, and the file's seed (``None`` when it gives none). For an engine that makes
    a new world at each reset from one generator.

    Args:
        source: a mapping, the path of a YAML file, or the name of a shipped world
            (:func:`world_names`; a string without a folder and without a ``.yaml`` or
            ``.yml`` suffix).

    Raises:
        FileNotFoundError: the file does not exist.
        TypeError, ValueError: the content is not one of the two forms; unknown keys (the
            allowed ones listed), missing or invalid fields (named). A message about a
            file starts with its path.
    """
    data, where = _read(source)
    try:
        return _parse(data)
    except (TypeError, ValueError) as error:
        raise prefixed_error(where, error) from None


def load_world(source: str | os.PathLike | Mapping,
               seed: int | None = None) -> World:
    """The world of a file or dict (:func:`load_spec`): its primitives, or its generator's
    world of ``seed`` if given, else of the file's ``seed``.

    ``seed`` (an int in [0, 2**63)) is ignored for explicit primitives, so that a caller
    may pass one whatever the file holds.

    Raises:
        FileNotFoundError, TypeError, ValueError: as :func:`load_spec`; also a generator
            with no seed in the file or the call.
    """
    seed = check_seed("seed", seed)
    spec, file_seed = load_spec(source)
    if isinstance(spec, World):
        return spec
    if seed is None:
        seed = file_seed
    if seed is None:
        raise ValueError(f"the {type(spec).__name__} world of {_name(source)} needs a seed: "
                         f"give 'seed:' in it or load_world(..., seed=...)")
    return spec.generate(seed)


def spec_to_dict(spec: World | Generator, seed: int | None = None) -> dict[str, Any]:
    """The YAML form of a world (its primitives) or of a generator (with ``seed`` if given),
    which :func:`load_spec` reads back to an equal object."""
    if isinstance(spec, World):
        if seed is not None:
            raise ValueError("seed applies to a generator, not to an explicit World")
        return {"primitives": [_primitive_dict(p) for p in spec.primitives]}
    for key, generator in GENERATORS.items():
        if type(spec) is generator:
            data = {key: spec.to_dict()}
            if seed is not None:
                data["seed"] = check_seed("seed", seed)
            return data
    raise TypeError(f"spec must be a World, Forest, Rooms or Clutter, got {spec!r}")


def save_world(spec: World | Generator, path: str | os.PathLike,
               seed: int | None = None) -> Path:
    """Write :func:`spec_to_dict` of ``spec`` to the ``.yaml`` file ``path``, atomically.

    Raises:
        ValueError: a path not ending in ``.yaml``; FileWriteError: its folder is missing
            or not writable, or the write fails.
    """
    path = check_file_destination(path, ".yaml", "path")
    text = yaml.safe_dump(spec_to_dict(spec, seed), sort_keys=False)
    return write_atomically(path, lambda stream: stream.write(text))


def _read(source: object) -> tuple[Any, str]:
    """The content of ``source`` and how messages name it."""
    if isinstance(source, Mapping):
        return source, "world spec"
    if isinstance(source, str) and not _is_path(source):
        names = world_names()
        if source not in names:
            raise ValueError(f"world name {source!r} is not a shipped world; shipped worlds "
                             f"are {names} (or give the path of a .yaml file)")
        source = WORLDS_DIR / f"{source}.yaml"
    if not isinstance(source, (str, os.PathLike)):
        raise TypeError(f"source must be a mapping, a .yaml path or a shipped world name "
                        f"{world_names()}, got {source!r}")
    path = Path(source)
    if not path.is_file():
        raise FileNotFoundError(f"world file {path} not found")
    return read_yaml(path), str(path)  # a binary file or an alias bomb: a ValueError


def _is_path(text: str) -> bool:
    return "/" in text or os.sep in text or text.lower().endswith((".yaml", ".yml"))


def _short(value: object) -> str:
    """``value`` for a message, abbreviated: a file's content may be megabytes."""
    return reprlib.repr(value)


def _name(source: object) -> str:
    return "the world spec" if isinstance(source, Mapping) else repr(str(source))


def _parse(data: object) -> tuple[World | Generator, int | None]:
    if not isinstance(data, Mapping):
        raise TypeError(f"a world must be a mapping with one of the keys {TOP_LEVEL_KEYS[:-1]}"
                        f" (and 'seed' for a generator), got {type(data).__name__}")
    reject_unknown_keys("the world", data, TOP_LEVEL_KEYS, noun="keys")
    forms = [key for key in TOP_LEVEL_KEYS[:-1] if key in data]
    if len(forms) != 1:
        raise ValueError(f"a world must have exactly one of the keys "
                         f"{list(TOP_LEVEL_KEYS[:-1])}, got {forms or 'none'}")
    form = forms[0]
    seed = data.get("seed")
    if form == "primitives":
        if "seed" in data:
            raise ValueError("'seed' applies to a generator (forest, rooms, clutter), not to "
                             "an explicit list of primitives")
        return World(_primitives(data["primitives"])), None
    fields = data[form]
    if fields is None:
        fields = {}  # `rooms:` alone: every default
    if not isinstance(fields, Mapping):
        raise TypeError(f"{form} must be a mapping of its fields, got {_short(fields)}")
    generator = GENERATORS[form]
    _check_fields(form, fields, generator)
    return generator(**fields), check_seed("seed", seed)


def _check_fields(name: str, fields: Mapping, cls: type) -> None:
    """Unknown or missing fields of the dataclass ``cls`` in ``fields``: a ValueError
    naming them and listing the fields."""
    allowed = [f.name for f in dataclasses.fields(cls)]
    reject_unknown_keys(name, fields, allowed, noun="fields")
    missing = [f.name for f in dataclasses.fields(cls)
               if f.default is dataclasses.MISSING and f.name not in fields]
    if missing:
        raise ValueError(f"{name} misses the fields {missing}; fields are {allowed}")


def _primitives(entries: object) -> list:
    if not isinstance(entries, list):
        raise TypeError(f"primitives must be a list of {{kind: fields}} entries, kinds "
                        f"{list(PRIMITIVES)}, got {type(entries).__name__}")
    if len(entries) > MAX_PRIMITIVES:
        raise ValueError(f"primitives holds {len(entries)} entries, more than "
                         f"MAX_PRIMITIVES={MAX_PRIMITIVES}")
    primitives = []
    for i, entry in enumerate(entries):
        name = f"primitives[{i}]"
        if not isinstance(entry, Mapping) or len(entry) != 1:
            raise ValueError(f"{name} must be a mapping of one kind {list(PRIMITIVES)} to its "
                             f"fields, e.g. {{cylinder: {{x: 1, y: 2, radius: 0.2, height: "
                             f"5}}}}, got {_short(entry)}")
        (kind, fields), = entry.items()
        if kind not in PRIMITIVES:
            raise ValueError(f"{name} has unknown kind {_short(kind)}; kinds are "
                             f"{list(PRIMITIVES)}")
        if not isinstance(fields, Mapping):
            raise TypeError(f"{name}.{kind} must be a mapping of its fields, got "
                            f"{_short(fields)}")
        _check_fields(f"{name}.{kind}", fields, PRIMITIVES[kind])
        try:
            primitives.append(PRIMITIVES[kind](**fields))
        except (TypeError, ValueError) as error:
            raise prefixed_error(name, error) from None
    return primitives


def _primitive_dict(primitive: Cylinder | Box | Sphere) -> dict[str, Any]:
    kind = next(key for key, cls in PRIMITIVES.items() if type(primitive) is cls)
    return {kind: {f.name: (list(value) if isinstance(value, tuple) else value)
                   for f in dataclasses.fields(primitive)
                   for value in (getattr(primitive, f.name),)}}
