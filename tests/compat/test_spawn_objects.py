"""Spawning mesh objects as PyFlyt's examples do: ``obj_visual``/``obj_collision`` once,
``loadOBJ`` per body, then ``register_all_new_bodies``."""

from __future__ import annotations

import numpy as np
import pybullet
import pytest

from pyflyt_like.core import Aviary, loadOBJ, obj_collision, obj_visual

CUBE_OBJ = """\
v -0.5 -0.5 -0.5
v 0.5 -0.5 -0.5
v 0.5 0.5 -0.5
v -0.5 0.5 -0.5
v -0.5 -0.5 0.5
v 0.5 -0.5 0.5
v 0.5 0.5 0.5
v -0.5 0.5 0.5
f 1 3 2
f 1 4 3
f 5 6 7
f 5 7 8
f 1 2 6
f 1 6 5
f 2 3 7
f 2 7 6
f 3 4 8
f 3 8 7
f 4 1 5
f 4 5 8
"""


@pytest.fixture
def cube(tmp_path):
    path = tmp_path / "cube.obj"
    path.write_text(CUBE_OBJ)
    return str(path)


@pytest.fixture
def aviary():
    env = Aviary(start_pos=np.array([[0.0, 0.0, 1.0]]), start_orn=np.zeros((1, 3)))
    yield env
    env.close()


def test_spawned_cubes_fall_land_and_come_back_on_reset(aviary, cube):
    visual = obj_visual(aviary, cube, meshScale=[0.4, 0.4, 0.4])
    collision = obj_collision(aviary, cube, meshScale=[0.4, 0.4, 0.4])
    cubes = [loadOBJ(aviary, visualId=visual, collisionId=collision, baseMass=1.0,
                     basePosition=[2.0 * i + 3.0, 0.0, 2.0], baseOrientation=[0.0, 0.0, 0.3])
             for i in range(3)]
    aviary.register_all_new_bodies()
    assert aviary.contact_array.shape == (aviary.getNumBodies(),) * 2
    for _ in range(120):  # 1 s: a 1.8 m drop lasts 0.61 s
        aviary.step()
    for body in cubes:
        position, orientation = aviary.getBasePositionAndOrientation(body)
        assert position[2] == pytest.approx(0.2, abs=0.01)  # resting on its face
        assert aviary.getEulerFromQuaternion(orientation)[2] == pytest.approx(0.3, abs=0.01)
        assert aviary.contact_array[body, 0]  # touching the ground during the last step
    aviary.reset()
    for i, body in enumerate(cubes):
        position = aviary.getBasePositionAndOrientation(body)[0]
        np.testing.assert_allclose(position, [2.0 * i + 3.0, 0.0, 2.0], atol=1e-9)


def test_loadobj_builds_both_shapes_from_the_file_and_takes_quaternions(aviary, cube):
    body = loadOBJ(aviary, cube, basePosition=[0.0, 3.0, 0.5],
                   baseOrientation=[0.0, 0.0, np.sin(0.25), np.cos(0.25)])
    aviary.register_all_new_bodies()
    # A static body (mass 0) with a collision shape: the AABB is the rotated unit cube.
    low, high = np.array(aviary.getAABB(body))
    np.testing.assert_allclose(high - low, [np.cos(0.5) + np.sin(0.5)] * 2 + [1.0], atol=0.02)
    assert aviary.getVisualShapeData(body)[0][2] == pybullet.GEOM_MESH  # and it is seen


def test_concave_collision_for_static_scenery(aviary, cube):
    collision = obj_collision(aviary, cube, concave=True)
    body = loadOBJ(aviary, cube, collisionId=collision, basePosition=[0.0, 0.0, 5.0])
    aviary.register_all_new_bodies()
    for _ in range(10):
        aviary.step()
    assert aviary.getBasePositionAndOrientation(body)[0] == pytest.approx((0.0, 0.0, 5.0))


@pytest.mark.parametrize("call, match", [
    (lambda env, f: loadOBJ(env, "null"), "fileName is needed"),
    (lambda env, f: obj_visual(env, "missing.obj"), "not found"),
    (lambda env, f: obj_visual(env, f.replace(".obj", ".stl")), "Wavefront .obj"),
    (lambda env, f: obj_collision(env, 3), "fileName must be a path"),
    (lambda env, f: obj_visual(env, f, meshScale=[1.0, 0.0, 1.0]), "meshScale must be > 0"),
    (lambda env, f: loadOBJ(env, f, baseMass=-1.0), "baseMass must be >= 0"),
    (lambda env, f: loadOBJ(env, f, basePosition=["0", "0", "1"]), "basePosition"),
    (lambda env, f: loadOBJ(env, f, baseOrientation=[0.0, 0.0]), "baseOrientation"),
    (lambda env, f: obj_collision(env, f, concave="yes"), "concave must be a bool"),
])
def test_bad_arguments_name_themselves(aviary, cube, call, match):
    with pytest.raises((TypeError, ValueError, FileNotFoundError), match=match):
        call(aviary, cube)
