"""World files: the shipped examples, both YAML forms, round trips, seeds, and errors that
list what is allowed."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import yaml

from pyflyt_like.common.atomic_files import FileWriteError
from pyflyt_like.worlds import (
    Box,
    Clutter,
    Cylinder,
    Forest,
    Rooms,
    Sphere,
    World,
    load_spec,
    load_world,
    save_world,
    spec_to_dict,
    world_names,
)
from pyflyt_like.worlds.files import WORLDS_DIR

EXPLICIT = World([Cylinder(3.0, 0.0, 0.2, 5.0), Box((0.0, 6.0, 1.0), (2.0, 0.1, 1.0), 0.3),
                  Sphere((-4.0, 2.0, 2.5), 0.5), Cylinder(0.1 + 0.2, 1e-5, 1 / 3, 2.0)])


def _same_arrays(a: World, b: World) -> bool:
    first, second = a.to_arrays(), b.to_arrays()
    return all(first[k].tobytes() == second[k].tobytes() for k in first)


def test_the_shipped_worlds_load_by_name_and_by_path():
    assert world_names() == ["forest", "rooms"]
    forest = load_world("forest")
    assert forest == load_world(WORLDS_DIR / "forest.yaml")
    assert forest == load_world(str(WORLDS_DIR / "forest.yaml"))
    spec, seed = load_spec("forest")
    assert isinstance(spec, Forest) and seed == 3 and forest == spec.generate(3)
    assert 100 < len(forest) < 220 and forest.free_start((0.0, 0.0, 1.0), 0.5)
    rooms = load_world("rooms")
    spec, seed = load_spec("rooms")
    assert isinstance(spec, Rooms) and spec.corridor_width == 2.0 and spec.exits == 1
    assert rooms.free_start((0.0, 0.0, 1.0), 0.5)


def test_the_seed_of_the_call_wins():
    assert load_world("forest", seed=4) == Forest(**load_spec("forest")[0].to_dict()).generate(4)
    assert load_world("forest", seed=4) != load_world("forest")


def test_the_explicit_form():
    data = {"primitives": [
        {"cylinder": {"x": 3.0, "y": 0.0, "radius": 0.2, "height": 5.0}},
        {"box": {"center": [0.0, 6.0, 1.0], "half_extents": [2.0, 0.1, 1.0]}},
        {"sphere": {"center": [-4.0, 2.0, 2.5], "radius": 0.5}}]}
    world = load_world(data, seed=5)  # a seed is ignored for explicit primitives
    assert world == World([Cylinder(3.0, 0.0, 0.2, 5.0), Box((0.0, 6.0, 1.0), (2.0, 0.1, 1.0)),
                           Sphere((-4.0, 2.0, 2.5), 0.5)])
    assert load_world({"primitives": []}) == World()


def test_an_explicit_world_round_trips_to_the_bit(tmp_path):
    path = save_world(EXPLICIT, tmp_path / "world.yaml")
    loaded = load_world(path)
    assert loaded == EXPLICIT and _same_arrays(loaded, EXPLICIT)
    assert load_world(spec_to_dict(EXPLICIT)) == EXPLICIT
    assert [p.name for p in tmp_path.iterdir()] == ["world.yaml"]  # no temporary left


@pytest.mark.parametrize("generator", [
    Forest(0.05, radius=(0.1, 0.4), height=(3.0, 9.0), extent=30.0, clearing=1.0),
    Rooms(grid=(2, 4), room_size=(5.0, 4.0), corridor_width=1.5, ceiling=True, exits=1),
    Clutter(count=12, kinds=("sphere", "box"), size=0.5),
], ids=lambda g: type(g).__name__)
def test_a_generator_round_trips_with_its_seed(generator, tmp_path):
    path = save_world(generator, tmp_path / "spec.yaml", seed=9)
    spec, seed = load_spec(path)
    assert spec == generator and seed == 9
    assert _same_arrays(load_world(path), generator.generate(9))
    with pytest.raises(ValueError, match="needs a seed"):
        load_world(spec_to_dict(generator))


def test_a_generator_alone_takes_its_defaults():
    spec, seed = load_spec({"rooms": None, "seed": 1})
    assert spec == Rooms() and seed == 1


@pytest.mark.parametrize(("data", "error", "match"), [
    ({"forest": {"density": 0.1}, "seed": 1, "colour": "green"}, ValueError,
     r"the world has unknown keys \['colour'\]; keys are \['primitives', 'forest', 'rooms', "
     r"'clutter', 'seed'\]"),
    ({"forest": {"density": 0.1, "trees": 3}, "seed": 1}, ValueError,
     r"forest has unknown fields \['trees'\]; fields are \['density', 'radius'"),
    ({"forest": {"radius": 0.2}, "seed": 1}, ValueError,
     r"forest misses the fields \['density'\]"),
    ({"forest": {"density": -1}, "seed": 1}, ValueError, r"Forest\.density"),
    ({"forest": [0.1], "seed": 1}, TypeError, "forest must be a mapping of its fields"),
    ({"forest": {"density": 0.1}, "rooms": {}, "seed": 1}, ValueError,
     r"exactly one of the keys .* got \['forest', 'rooms'\]"),
    ({"seed": 1}, ValueError, "exactly one of the keys"),
    ({"forest": {"density": 0.1}, "seed": -3}, ValueError, "seed must be"),
    ({"primitives": [], "seed": 2}, ValueError, "'seed' applies to a generator"),
    ({"primitives": {"cylinder": {}}}, TypeError, "primitives must be a list"),
    ({"primitives": [{"cone": {"x": 1}}]}, ValueError,
     r"primitives\[0\] has unknown kind 'cone'; kinds are \['cylinder', 'box', 'sphere'\]"),
    ({"primitives": [{"cylinder": {"x": 0, "y": 0, "radius": 1}}]}, ValueError,
     r"primitives\[0\]\.cylinder misses the fields \['height'\]"),
    ({"primitives": [{"box": {"center": [0, 0, 1], "half_extents": [1, 1, 1], "roll": 1}}]},
     ValueError, r"primitives\[0\]\.box has unknown fields \['roll'\]; fields are "
                 r"\['center', 'half_extents', 'yaw'\]"),
    ({"primitives": [{"sphere": {"center": [0, 0, 1], "radius": -1}}]}, ValueError,
     r"primitives\[0\]: Sphere\.radius must be"),
    ({"primitives": [{"sphere": {}, "box": {}}]}, ValueError,
     r"primitives\[0\] must be a mapping of one kind"),
    ([1, 2], TypeError, "source must be a mapping"),
])
def test_bad_specs_are_named(data, error, match):
    with pytest.raises(error, match=match):
        load_world(data)


def test_file_errors_name_the_file(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("forest: {density: 0.1, trees: 3}\nseed: 1\n")
    with pytest.raises(ValueError, match=rf"{bad}: forest has unknown fields"):
        load_world(bad)
    broken = tmp_path / "broken.yaml"
    broken.write_text("forest: {density: [0.1\n")
    with pytest.raises(ValueError, match="is not valid YAML"):
        load_world(broken)
    listing = tmp_path / "list.yaml"
    listing.write_text("- 1\n- 2\n")
    with pytest.raises(TypeError, match="a world must be a mapping"):
        load_world(listing)
    with pytest.raises(FileNotFoundError, match="missing.yaml not found"):
        load_world(tmp_path / "missing.yaml")
    with pytest.raises(ValueError, match=r"'jungle' is not a shipped world; .*\['forest', "
                                         r"'rooms'\]"):
        load_world("jungle")


def test_save_checks_the_destination(tmp_path):
    with pytest.raises(ValueError, match=r"path must name an \.yaml file"):
        save_world(EXPLICIT, tmp_path / "world.json")
    with pytest.raises(FileWriteError, match="does not exist"):
        save_world(EXPLICIT, tmp_path / "nowhere" / "world.yaml")
    with pytest.raises(ValueError, match="seed applies to a generator"):
        save_world(EXPLICIT, tmp_path / "world.yaml", seed=1)
    with pytest.raises(TypeError, match="spec must be a World, Forest, Rooms or Clutter"):
        spec_to_dict({"forest": {}})


def test_the_yaml_is_plain_and_readable(tmp_path):
    path = save_world(Forest(0.1), tmp_path / "forest.yaml", seed=3)
    data = yaml.safe_load(Path(path).read_text())
    assert data == {"forest": {"density": 0.1, "radius": [0.1, 0.3], "height": 6.0,
                               "extent": 50.0, "clearing": 2.0, "min_gap": 0.0,
                               "max_tries": 100}, "seed": 3}
    assert np.isfinite(load_world(path).distance((0.0, 0.0, 1.0)))
