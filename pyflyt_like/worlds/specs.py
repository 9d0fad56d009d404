"""The ``world`` argument both engines take (``Aviary(world=...)``,
``BatchedAviary(world=...)``): its accepted forms, checked in one place.

A world spec is ``None`` (no obstacles), a :class:`~.world.World` (one layout, kept), a
generator (:class:`~.forest.Forest`, :class:`~.rooms.Rooms`, :class:`~.clutter.Clutter`:
layouts drawn by the engine from its own generator), or a world file (a shipped name, a
``.yaml`` path, or its content as a mapping), read with :func:`~.files.load_spec`. Pure
Python: either engine imports it without pybullet or numba.
"""

from __future__ import annotations

import os
import reprlib
from collections.abc import Mapping

from pyflyt_like.common.validation import prefixed_error

from .clutter import Clutter
from .files import load_spec, world_names
from .forest import Forest
from .rooms import Rooms
from .world import World

#: The generators a world may be drawn from (``world=`` of either engine, ``add_world``).
WORLD_GENERATORS = (Forest, Rooms, Clutter)
WorldSpec = World | Forest | Rooms | Clutter


def check_world_spec(name: str, value: object) -> WorldSpec | None:
    """A world argument normalised: ``None``, a :class:`~.world.World` or a generator.

    ``None``, a World and a generator (``Forest``, ``Rooms``, ``Clutter``) are returned as
    they are. A world file, the name of a shipped world or the path of a ``.yaml`` file (or
    its content as a mapping), is read with :func:`~.files.load_spec`: explicit primitives
    give their World; a generator with a ``seed`` in the file gives the World of that seed
    (the file pins it); a generator without one gives the generator.

    Args:
        name: the argument's name, for the messages (``"world"``, ``"spec"``).
        value: what was given.

    Raises:
        TypeError: any other type, naming ``name`` and what is allowed.
        ValueError, FileNotFoundError: a file that is not a world (unknown name, missing
            file, bad content), the message naming ``name``.
    """
    if value is None or isinstance(value, (World, *WORLD_GENERATORS)):
        return value
    if isinstance(value, (str, os.PathLike, Mapping)):
        try:
            spec, seed = load_spec(value)
        except (TypeError, ValueError, FileNotFoundError, PermissionError) as error:
            raise prefixed_error(name, error) from None
        if isinstance(spec, World) or seed is None:
            return spec
        return spec.generate(seed)
    raise TypeError(f"{name} must be None, a World, a Forest, Rooms or Clutter generator, or "
                    f"a world file (a shipped name {world_names()} or a .yaml path), got "
                    f"{reprlib.repr(value)}")
