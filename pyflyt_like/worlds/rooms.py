"""A seeded building: a grid of rooms, optional corridors between its rows, axis-aligned
walls with doors that connect every room."""

from __future__ import annotations

import reprlib
from dataclasses import dataclass
from typing import Any

import numpy as np

from pyflyt_like.common.validation import check_bool, check_unit_interval

from .primitives import Box
from .sampling import MAX_LENGTH, as_generator, check_count, check_length, to_dict
from .world import World

#: The most rooms along one side of the grid. A 100 x 100 building with corridors has
#: 30 298 wall segments of at most three boxes each: within MAX_PRIMITIVES.
MAX_ROOMS_PER_SIDE = 100


@dataclass(frozen=True)
class Rooms:
    """A building of ``grid[0] x grid[1]`` rooms centred on the origin, walls as
    :class:`~pyflyt_like.worlds.primitives.Box` es standing on the floor.

    The rooms form rows along x; when ``corridor_width`` > 0 a corridor runs along x between
    each pair of neighbouring rows, the whole length of the building. Sizes are measured
    between wall centre lines: the free width of a room is its size minus one wall
    thickness. Every wall between two neighbouring spaces (rooms, or a room and a corridor)
    is one segment; the doors are chosen so that every room and corridor is reachable from
    every other (see :meth:`generate`). With an odd number of rooms along each side (and no
    corridor through the middle), the origin is the centre of the middle room.

    Args:
        grid: (columns along x, rows along y), integers in [1, 100].
        room_size: (x, y) [m] a room's size, or one number for square rooms.
        corridor_width: >= 0 [m] the corridors' width (0: no corridors, the rows adjoin);
            if > 0, it must exceed ``wall_thickness``.
        wall_height: [m].
        wall_thickness: [m].
        door_width: [m] a door's free width; a door and a wall thickness at each side
            must fit in a room's side.
        door_height: [m] at most ``wall_height``; the wall above a door (a lintel) is
            a box of its own.
        extra_doors: in [0, 1] the chance that a wall not needed to connect the rooms gets
            a door too (0: exactly one path between any two rooms; 1: a door in every
            inner wall).
        exits: >= 0 doors in the outer walls, on distinct segments.
        ceiling: whether a slab of ``wall_thickness`` covers the building at
            ``wall_height`` (indoor flight: nothing to fly over).

    Lengths lie in [:data:`~.sampling.MIN_SIZE`, :data:`~.sampling.MAX_LENGTH`] = [1 mm,
    100 km] (``corridor_width`` from 0), and so does the building's :attr:`footprint`
    along each axis.

    Raises:
        TypeError, ValueError: naming the field, for any value out of its range.
    """

    grid: tuple[int, int] = (3, 3)
    room_size: tuple[float, float] | float = (6.0, 6.0)
    corridor_width: float = 0.0
    wall_height: float = 3.0
    wall_thickness: float = 0.2
    door_width: float = 1.2
    door_height: float = 2.2
    extra_doors: float = 0.25
    exits: int = 0
    ceiling: bool = False

    def __post_init__(self) -> None:
        grid = self.grid
        if not isinstance(grid, (list, tuple)) or len(grid) != 2:
            raise TypeError(f"Rooms.grid must be a pair (columns, rows) of integers, got "
                            f"{grid!r}")
        grid = tuple(check_count(f"Rooms.grid[{i}]", n, MAX_ROOMS_PER_SIDE) for i, n in
                     enumerate(grid))
        if min(grid) < 1:
            raise ValueError(f"Rooms.grid must have at least one room per side, got {grid}")
        size = self.room_size
        if isinstance(size, (list, tuple)):
            if len(size) != 2:
                raise ValueError(f"Rooms.room_size must be a number or an (x, y) pair [m], "
                                 f"got {reprlib.repr(list(size))}")
            size = tuple(check_length(f"Rooms.room_size[{i}]", s)
                         for i, s in enumerate(size))
        else:
            size = check_length("Rooms.room_size", size)
        corridor = check_length("Rooms.corridor_width", self.corridor_width, 0.0)
        height = check_length("Rooms.wall_height", self.wall_height)
        thickness = check_length("Rooms.wall_thickness", self.wall_thickness)
        door = check_length("Rooms.door_width", self.door_width)
        door_height = check_length("Rooms.door_height", self.door_height)
        extra = check_unit_interval("Rooms.extra_doors", self.extra_doors)
        exits = check_count("Rooms.exits", self.exits, 4 * MAX_ROOMS_PER_SIDE)
        ceiling = check_bool("Rooms.ceiling", self.ceiling)
        sx, sy = size if isinstance(size, tuple) else (size, size)
        if door + 2.0 * thickness > min(sx, sy):
            raise ValueError(f"Rooms.door_width={door:g} m plus a wall_thickness="
                             f"{thickness:g} m at each side must fit in the shorter side of "
                             f"a room, room_size={min(sx, sy):g} m")
        if 0.0 < corridor <= thickness:
            raise ValueError(f"Rooms.corridor_width must be 0 (no corridors) or more than "
                             f"wall_thickness={thickness:g} m, got {corridor:g}")
        footprint = (grid[0] * sx, grid[1] * sy + (grid[1] - 1) * corridor)
        if max(footprint) > MAX_LENGTH:
            raise ValueError(f"Rooms: the building's footprint ({footprint[0]:g}, "
                             f"{footprint[1]:g}) m (grid={grid}, room_size, corridor_width) "
                             f"must be at most MAX_LENGTH={MAX_LENGTH:g} m along each axis")
        if door_height > height:
            raise ValueError(f"Rooms.door_height={door_height:g} m must be at most "
                             f"wall_height={height:g} m")
        # the outer segments a door fits in: every room side; a corridor's ends if wide enough
        outer = 2 * (grid[0] + grid[1])
        if corridor >= door + 2.0 * thickness:
            outer += 2 * (grid[1] - 1)
        if exits > outer:
            raise ValueError(f"Rooms.exits must be at most the {outer} outer wall segments "
                             f"of a {grid[0]} x {grid[1]} building that a door fits in, got "
                             f"{exits}")
        values = dict(grid=grid, room_size=size, corridor_width=corridor, wall_height=height,
                      wall_thickness=thickness, door_width=door, door_height=door_height,
                      extra_doors=extra, exits=exits, ceiling=ceiling)
        for name, value in values.items():
            object.__setattr__(self, name, value)

    @property
    def footprint(self) -> tuple[float, float]:
        """The building's size (x, y) [m] between the outer walls' centre lines."""
        sx, sy = self._size
        columns, rows = self.grid
        return columns * sx, rows * sy + (rows - 1) * self.corridor_width

    @property
    def _size(self) -> tuple[float, float]:
        size = self.room_size
        return size if isinstance(size, tuple) else (size, size)

    def generate(self, seed: int | np.random.Generator) -> World:
        """The building of ``seed`` (an int in [0, 2**63) or a numpy Generator): the same
        seed gives the same world, to the bit.

        The doors: a random spanning tree of the spaces (rooms and corridors, neighbours
        joined by the wall segment between them) gets a door in each of its walls, so every
        space is reachable and, with ``extra_doors=0``, by exactly one path; every other
        inner wall gets one with probability ``extra_doors``; ``exits`` outer segments,
        drawn without replacement among those long enough, get one too. A door's centre is
        uniform along its segment, keeping a wall thickness of wall at each end. A wall
        segment with a door is two boxes beside it and, if ``door_height < wall_height``,
        a lintel above it.
        """
        rng = as_generator(seed)
        segments, n_spaces = self._segments()
        inner = [i for i, s in enumerate(segments) if s[4] is not None]
        # Random spanning tree: Kruskal's algorithm over the inner walls in random order.
        parent = list(range(n_spaces))

        def root(node: int) -> int:
            while parent[node] != node:
                parent[node] = parent[parent[node]]
                node = parent[node]
            return node

        doors = set()
        extra_draws = rng.random(len(inner))
        for order in rng.permutation(len(inner)).tolist():
            a, b = segments[inner[order]][4]
            ra, rb = root(a), root(b)
            if ra != rb:
                parent[ra] = rb
                doors.add(inner[order])
        doors.update(index for index, draw in zip(inner, extra_draws.tolist())
                     if index not in doors and draw < self.extra_doors)
        t, w = self.wall_thickness, self.door_width
        outer = [i for i, s in enumerate(segments) if s[4] is None and s[3] - s[2] >= w + 2 * t]
        if self.exits:  # as many as the construction allowed: len(outer) >= exits
            chosen = rng.choice(len(outer), self.exits, replace=False).tolist()
            doors.update(outer[k] for k in chosen)
        offsets = rng.random(len(segments))
        boxes = []
        for index, segment in enumerate(segments):
            door = None
            if index in doors:
                start, end = segment[2], segment[3]
                slack = (end - start) - w - 2.0 * t
                centre = start + t + 0.5 * w + slack * float(offsets[index])
                door = (centre - 0.5 * w, centre + 0.5 * w)
            boxes.extend(self._wall(segment, door))
        if self.ceiling:
            fx, fy = self.footprint
            boxes.append(Box((0.0, 0.0, self.wall_height + 0.5 * t),
                             (0.5 * (fx + t), 0.5 * (fy + t), 0.5 * t)))
        return World(boxes)

    def to_dict(self) -> dict[str, Any]:
        """The fields as YAML-ready values (see :func:`pyflyt_like.worlds.files.load_world`)."""
        return to_dict(self)

    def _segments(self) -> tuple[list[tuple], int]:
        """The wall segments and the number of spaces. A segment is ``(axis, coordinate,
        start, end, spaces)``: along x (``axis`` 0) at ``y = coordinate`` or along y (1)
        at ``x = coordinate``, from ``start`` to ``end`` [m] between centre lines, between
        the two spaces ``spaces`` (indices: room ``row * columns + column``, then the
        corridors) or ``None`` for an outer wall."""
        columns, rows = self.grid
        sx, sy = self._size
        corridor = self.corridor_width
        fx, fy = self.footprint
        x0, y0 = -0.5 * fx, -0.5 * fy
        n_rooms = columns * rows
        row_y = [y0 + j * (sy + corridor) for j in range(rows)]  # each row's south line
        segments: list[tuple] = []
        for i in range(columns):  # walls along x
            xa, xb = x0 + i * sx, x0 + (i + 1) * sx
            segments.append((0, y0, xa, xb, None))
            for j in range(rows - 1):
                south, north = j * columns + i, (j + 1) * columns + i
                top = row_y[j] + sy
                if corridor > 0.0:
                    segments.append((0, top, xa, xb, (south, n_rooms + j)))
                    segments.append((0, top + corridor, xa, xb, (north, n_rooms + j)))
                else:
                    segments.append((0, top, xa, xb, (south, north)))
            segments.append((0, y0 + fy, xa, xb, None))
        for j in range(rows):  # walls along y
            ya, yb = row_y[j], row_y[j] + sy
            for i in range(columns + 1):
                spaces = None if i in (0, columns) else (j * columns + i - 1,
                                                         j * columns + i)
                segments.append((1, x0 + i * sx, ya, yb, spaces))
            if corridor > 0.0 and j < rows - 1:  # the corridor's two ends
                segments.append((1, x0, yb, yb + corridor, None))
                segments.append((1, x0 + fx, yb, yb + corridor, None))
        return segments, n_rooms + (rows - 1 if corridor > 0.0 else 0)

    def _wall(self, segment: tuple, door: tuple[float, float] | None) -> list[Box]:
        """The boxes of one wall segment, each end lengthened by half a thickness so that
        the corners close; with a ``door`` (its span along the segment), the pieces beside
        it and the lintel above."""
        axis, coordinate, start, end, _ = segment
        t, height = self.wall_thickness, self.wall_height
        spans = [(start - 0.5 * t, end + 0.5 * t, 0.0, height)]
        if door is not None:
            spans = [(start - 0.5 * t, door[0], 0.0, height),
                     (door[1], end + 0.5 * t, 0.0, height)]
            if self.door_height < height:
                spans.append((door[0], door[1], self.door_height, height))
        boxes = []
        for low, high, bottom, top in spans:
            middle, half = 0.5 * (low + high), 0.5 * (high - low)
            centre_z, half_z = 0.5 * (bottom + top), 0.5 * (top - bottom)
            if axis == 0:
                boxes.append(Box((middle, coordinate, centre_z), (half, 0.5 * t, half_z)))
            else:
                boxes.append(Box((coordinate, middle, centre_z), (0.5 * t, half, half_z)))
        return boxes
