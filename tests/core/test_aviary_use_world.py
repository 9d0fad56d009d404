"""Aviary.use_world (the twin's obstacle world, one layout per episode): it spawns the
world's bodies, a reset keeps the same world (its bodies spawned again, ids to re-read), a
second call replaces the first, and bad arguments raise naming what is wrong before
anything changes."""

from __future__ import annotations

import numpy as np
import pybullet
import pytest

from pyflyt_like.core.world_bodies import FACET_TOLERANCE
from pyflyt_like.worlds import Box, Cylinder, Forest, Sphere, World

START = ((0.0, 0.0, 1.0),)
TREES = World([Cylinder(3.0, 0.0, 0.3, 5.0), Cylinder(-2.0, 2.0, 0.2, 4.0),
               Sphere((0.0, -3.0, 2.0), 0.4)])
WALL = World([Box((0.0, 4.0, 1.0), (2.0, 0.1, 1.0), 0.2)])


def _bodies(av) -> int:
    return pybullet.getNumBodies(physicsClientId=av._client)


def _ray_along_x(av) -> tuple[int, float]:
    """The body id a ray along +x at the drone's height meets, and the distance [m] to it
    from x = 0.2 m (-1 and 10 m: nothing within 10 m)."""
    hit = pybullet.rayTest((0.2, 0.0, 1.0), (10.2, 0.0, 1.0), physicsClientId=av._client)[0]
    return hit[0], hit[2] * 10.0


def test_use_world_spawns_its_bodies(make_aviary):
    av = make_aviary(START)
    assert av.world is None and _bodies(av) == 2  # the floor and the drone
    ids = av.use_world(TREES)
    assert av.world == TREES and av.world_body_ids == ids and len(ids) == len(TREES)
    assert _bodies(av) == 2 + len(TREES)
    assert av.contact_array.shape[0] > max(ids)  # contacts with every tree can be noted
    body, distance = _ray_along_x(av)  # the trunk at x = 3 m, radius 0.3 m
    assert body == ids[0] and distance == pytest.approx(2.5, abs=FACET_TOLERANCE)


def test_a_reset_keeps_the_world_and_its_new_ids_are_read_again(make_aviary):
    av = make_aviary(START)
    av.use_world(TREES)
    for seed in (None, 3, None):
        av.reset(seed=seed)
        assert av.world == TREES and len(av.world_body_ids) == len(TREES)
        assert _bodies(av) == 2 + len(TREES)  # spawned again, none left over
        body, distance = _ray_along_x(av)
        assert body == av.world_body_ids[0]
        assert distance == pytest.approx(2.5, abs=FACET_TOLERANCE)
    # the contacts are noted with the re-read ids: fly into the trunk at 1 m/s
    av.set_mode(6)
    av.set_all_setpoints(np.array([[1.0, 0.0, 0.0, 0.0]]))
    trunk, drone = av.world_body_ids[0], av.drones[0].Id
    for _ in range(400):
        av.step()
        if av.contact_array[drone, trunk]:
            break
    assert av.contact_array[drone, trunk] and av.contact_array[trunk, drone]
    assert av.state(0)[3][0] < 3.0 - 0.3  # stopped by it


def test_a_second_use_world_replaces_the_first(make_aviary):
    av = make_aviary(START)
    av.use_world(TREES)
    ids = av.use_world(WALL)
    assert av.world == WALL and av.world_body_ids == ids and len(ids) == 1
    assert _bodies(av) == 2 + len(WALL)  # the trees' bodies are gone
    assert _ray_along_x(av)[0] == -1  # where the trunk stood
    av.reset()
    assert av.world == WALL and _bodies(av) == 2 + len(WALL)
    assert _ray_along_x(av)[0] == -1
    # an empty World clears the obstacles
    assert av.use_world(World()) == []
    assert _bodies(av) == 2 and av.world_body_ids == []
    av.reset()
    assert _bodies(av) == 2 and av.world_body_ids == []


def test_many_layouts_in_turn_leave_no_body_behind(make_aviary):
    forest = Forest(density=0.1, radius=(0.1, 0.3), height=4.0, extent=16.0, clearing=1.5)
    av = make_aviary(START)
    for seed in range(4):
        layout = forest.generate(seed)
        av.use_world(layout)
        av.reset()
        assert av.world == layout and len(av.world_body_ids) == len(layout)
        assert _bodies(av) == 2 + len(layout)
        assert av.contact_array.shape[0] > max(av.world_body_ids)


@pytest.mark.parametrize("world", [
    Forest(density=0.1), [Cylinder(3.0, 0.0, 0.3, 5.0)], Cylinder(3.0, 0.0, 0.3, 5.0), None,
    "forest",
])
def test_use_world_refuses_anything_but_a_world(make_aviary, world):
    av = make_aviary(START)
    av.use_world(WALL)
    with pytest.raises(TypeError, match=r"world must be a World, got "):
        av.use_world(world)
    assert av.world == WALL and _bodies(av) == 2 + len(WALL)


def test_use_world_refuses_an_aviary_with_a_world_of_its_own(make_aviary):
    given = make_aviary(START, world=TREES)
    with pytest.raises(ValueError, match="use_world replaces only a world it gave; this "
                                         "aviary has a world from world= or add_world"):
        given.use_world(WALL)
    assert given.world == TREES and _bodies(given) == 2 + len(TREES)
    added = make_aviary(START)
    added.use_world(WALL)
    added.add_world(TREES)  # beside the used world: then use_world may no longer replace it
    with pytest.raises(ValueError, match="use_world replaces only a world it gave"):
        added.use_world(WALL)
    assert _bodies(added) == 2 + len(WALL) + len(TREES)


def test_a_world_trapping_a_start_is_refused_and_the_last_one_kept(make_aviary):
    av = make_aviary(START)
    av.use_world(TREES)
    with pytest.raises(ValueError, match=r"start_pos\[0\] = \[0\.0, 0\.0, 1\.0\] overlaps "
                                         r"Sphere\(center=\(0\.0, 0\.0, 1\.0\).* in world"):
        av.use_world(World([Sphere((0.0, 0.0, 1.0), 0.5)]))
    assert av.world == TREES and _bodies(av) == 2 + len(TREES)
    pair = make_aviary(((0.0, 0.0, 1.0), (3.0, 0.0, 1.0)))
    with pytest.raises(ValueError, match=r"start_pos\[1\] = \[3\.0, 0\.0, 1\.0\] overlaps "
                                         r"Cylinder\(x=3\.0"):
        pair.use_world(TREES)
    assert pair.world is None and _bodies(pair) == 3
