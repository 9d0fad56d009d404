"""Spawn Wavefront OBJ meshes into an Aviary (PyFlyt's ``loadOBJ`` helpers, same names).

A typical use builds the shapes once and places many bodies from them::

    visual = obj_visual(aviary, "duck.obj")
    collision = obj_collision(aviary, "duck_vhacd.obj")
    loadOBJ(aviary, visualId=visual, collisionId=collision, baseMass=1.0,
            basePosition=[0.0, 0.0, 2.0])
    aviary.register_all_new_bodies()

``register_all_new_bodies`` must follow, so contacts with the new bodies are tracked and the
next reset restores them too.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

import numpy as np
import pybullet
import pybullet_data
from pybullet_utils.bullet_client import BulletClient

from pyflyt_like.common.validation import as_float_array, check_bool, check_finite, check_int


def obj_visual(env: BulletClient, fileName: str,
               meshScale: Sequence[float] | np.ndarray = (1.0, 1.0, 1.0)) -> int:
    """Create a visual shape from an OBJ file and return its id.

    Args:
        env: the Aviary (or any pybullet client) to create it in.
        fileName: path to the .obj file; a relative path not found from the working
            directory is looked up in ``pybullet_data`` (as PyBullet's search path does).
        meshScale: (3,) scale per axis applied to the mesh vertices.
    """
    return env.createVisualShape(shapeType=pybullet.GEOM_MESH, fileName=_mesh_file(fileName),
                                 meshScale=_mesh_scale(meshScale))


def obj_collision(env: BulletClient, fileName: str,
                  meshScale: Sequence[float] | np.ndarray = (1.0, 1.0, 1.0),
                  concave: bool = False) -> int:
    """Create a collision shape from an OBJ file and return its id.

    Args:
        env: the Aviary (or any pybullet client) to create it in.
        fileName: path to the .obj file.
        meshScale: (3,) scale per axis applied to the mesh vertices.
        concave: use the triangle mesh as it is (concave) instead of its convex hull.
            PyBullet only supports concave meshes on static bodies (``baseMass=0``).
    """
    flags = pybullet.GEOM_FORCE_CONCAVE_TRIMESH if check_bool("concave", concave) else 0
    return env.createCollisionShape(shapeType=pybullet.GEOM_MESH,
                                    fileName=_mesh_file(fileName),
                                    meshScale=_mesh_scale(meshScale), flags=flags)


def loadOBJ(env: BulletClient, fileName: str | None = None, visualId: int = -1,
            collisionId: int = -1, baseMass: float = 0.0,
            meshScale: Sequence[float] | np.ndarray = (1.0, 1.0, 1.0),
            basePosition: Sequence[float] | np.ndarray = (0.0, 0.0, 0.0),
            baseOrientation: Sequence[float] | np.ndarray = (0.0, 0.0, 0.0)) -> int:
    """Place a body made of OBJ shapes in the world and return its body id.

    A shape id of -1 is built from ``fileName`` (so ``loadOBJ(aviary, "duck.obj")`` alone
    gives a body that is seen and collides).

    Args:
        env: the Aviary (or any pybullet client).
        fileName: .obj file for the shapes not given by id.
        visualId: id from :func:`obj_visual`, or -1.
        collisionId: id from :func:`obj_collision`, or -1.
        baseMass: kg; 0 makes the body static.
        meshScale: (3,) scale used when shapes are built from ``fileName``.
        basePosition: (3,) position, m.
        baseOrientation: (3,) Euler angles (roll, pitch, yaw), rad, or a (4,) quaternion
            (x, y, z, w).
    """
    visual = check_int("visualId", visualId)
    collision = check_int("collisionId", collisionId)
    mass = check_finite("baseMass", baseMass)
    if mass < 0.0:
        raise ValueError(f"baseMass must be >= 0 kg, got {baseMass!r}")
    position = as_float_array("basePosition", basePosition, (3,))
    orientation = as_float_array("baseOrientation", baseOrientation, (None,))
    if orientation.shape == (3,):
        orientation = np.array(pybullet.getQuaternionFromEuler(orientation))
    elif orientation.shape != (4,):
        raise ValueError(f"baseOrientation must be 3 Euler angles or a 4-element quaternion, "
                         f"got {orientation.shape[0]} values")
    if visual < 0 or collision < 0:
        if fileName is None or fileName == "null":  # PyFlyt's placeholder for "no file"
            raise ValueError("fileName is needed when visualId or collisionId is -1 (the "
                             "shape is built from the file)")
        if visual < 0:
            visual = obj_visual(env, fileName, meshScale)
        if collision < 0:
            collision = obj_collision(env, fileName, meshScale)
    return env.createMultiBody(baseMass=mass, baseCollisionShapeIndex=collision,
                               baseVisualShapeIndex=visual, basePosition=position,
                               baseOrientation=orientation)


def _mesh_file(file_name: object) -> str:
    if not isinstance(file_name, (str, os.PathLike)):
        raise TypeError(f"fileName must be a path to an .obj file, got {file_name!r}")
    path = os.fspath(file_name)
    if not path.lower().endswith(".obj"):
        raise ValueError(f"fileName must name a Wavefront .obj file, got {path!r}")
    for candidate in (path, os.path.join(pybullet_data.getDataPath(), path)):
        if os.path.isfile(candidate):
            return candidate
    # Checked here: PyBullet would print a C warning and raise a bare "failed".
    raise FileNotFoundError(f"fileName {path!r} not found (looked in the working directory "
                            f"and in pybullet_data)")


def _mesh_scale(mesh_scale: object) -> list[float]:
    scale = as_float_array("meshScale", mesh_scale, (3,))
    if not np.all(scale > 0.0):
        raise ValueError(f"meshScale must be > 0 on every axis, got {scale.tolist()}")
    return scale.tolist()
