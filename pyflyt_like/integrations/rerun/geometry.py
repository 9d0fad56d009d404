"""A vehicle's look, read from the visuals of its URDF, as Rerun primitives.

The pose a recording gives a vehicle is PyBullet's base pose (the base link's inertial
frame), so every ``<visual>`` is placed relative to that frame: through the joints at
their zero position (the look, not the articulation), then less the base's inertial
origin. Boxes, cylinders (axis z in both URDF and Rerun) and spheres are drawn; meshes are
not (the bundled models have none) and are listed in :attr:`VehicleShapes.skipped`.
"""

from __future__ import annotations

import math
import os
import xml.etree.ElementTree as ElementTree
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from pyflyt_like.common.urdf_bodies import rpy_matrix

from ._sdk import import_rerun

DEFAULT_RGBA = (0.6, 0.6, 0.65, 1.0)
#: What is drawn for a vehicle whose URDF is unknown (a replayed CSV): a 20 x 20 x 6 cm box.
PLACEHOLDER_HALF_SIZE = (0.1, 0.1, 0.03)


@dataclass
class VehicleShapes:
    """The primitives of one vehicle, in its base (inertial) frame.

    Each list holds ``(centre (3,) [m], quaternion (4,) x, y, z, w, size, rgba (4,) 0..1)``
    with ``size`` the half sizes (3,) [m] of a box, ``(length, radius)`` [m] of a cylinder
    or the radius [m] of a sphere.
    """

    boxes: list[tuple] = field(default_factory=list)
    cylinders: list[tuple] = field(default_factory=list)
    spheres: list[tuple] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)

    @classmethod
    def placeholder(cls) -> VehicleShapes:
        """A plain box for a vehicle whose model is unknown."""
        return cls(boxes=[(np.zeros(3), np.array((0.0, 0.0, 0.0, 1.0)),
                           np.array(PLACEHOLDER_HALF_SIZE), np.array(DEFAULT_RGBA))])

    @property
    def radius(self) -> float:
        """A rough size [m]: the farthest extent of any primitive from the base origin."""
        extents = [np.linalg.norm(c) + np.linalg.norm(s) for c, _, s, _ in self.boxes]
        extents += [np.linalg.norm(c) + math.hypot(s[0] / 2, s[1]) for c, _, s, _ in
                    self.cylinders]
        extents += [np.linalg.norm(c) + s for c, _, s, _ in self.spheres]
        return float(max(extents, default=0.1))

    def log(self, stream: Any, entity: str) -> None:
        """Log the primitives (static) under ``entity``/boxes, /cylinders, /spheres."""
        rr = import_rerun()

        def colors(items):
            return (np.array([item[3] for item in items]) * 255).round().astype(np.uint8)

        if self.boxes:
            stream.log(f"{entity}/boxes", rr.Boxes3D(
                centers=[b[0] for b in self.boxes], half_sizes=[b[2] for b in self.boxes],
                quaternions=[rr.Quaternion(xyzw=b[1]) for b in self.boxes],
                colors=colors(self.boxes), fill_mode="solid"), static=True)
        if self.cylinders:
            stream.log(f"{entity}/cylinders", rr.Cylinders3D(
                centers=[c[0] for c in self.cylinders],
                lengths=[c[2][0] for c in self.cylinders],
                radii=[c[2][1] for c in self.cylinders],
                quaternions=[rr.Quaternion(xyzw=c[1]) for c in self.cylinders],
                colors=colors(self.cylinders), fill_mode="solid"), static=True)
        if self.spheres:
            stream.log(f"{entity}/spheres", rr.Ellipsoids3D(
                centers=[s[0] for s in self.spheres],
                half_sizes=[[s[2]] * 3 for s in self.spheres],
                colors=colors(self.spheres), fill_mode="solid"), static=True)


def matrix_to_quaternion(matrix: np.ndarray) -> np.ndarray:
    """(4,) unit quaternion x, y, z, w of a (3, 3) rotation matrix."""
    m = np.asarray(matrix, dtype=float)
    trace = m[0, 0] + m[1, 1] + m[2, 2]
    # The branch on the largest diagonal term keeps the square root well away from zero.
    if trace > 0:
        s = 2.0 * math.sqrt(1.0 + trace)
        q = ((m[2, 1] - m[1, 2]) / s, (m[0, 2] - m[2, 0]) / s, (m[1, 0] - m[0, 1]) / s, s / 4)
    elif m[0, 0] > m[1, 1] and m[0, 0] > m[2, 2]:
        s = 2.0 * math.sqrt(1.0 + m[0, 0] - m[1, 1] - m[2, 2])
        q = (s / 4, (m[0, 1] + m[1, 0]) / s, (m[0, 2] + m[2, 0]) / s, (m[2, 1] - m[1, 2]) / s)
    elif m[1, 1] > m[2, 2]:
        s = 2.0 * math.sqrt(1.0 + m[1, 1] - m[0, 0] - m[2, 2])
        q = ((m[0, 1] + m[1, 0]) / s, s / 4, (m[1, 2] + m[2, 1]) / s, (m[0, 2] - m[2, 0]) / s)
    else:
        s = 2.0 * math.sqrt(1.0 + m[2, 2] - m[0, 0] - m[1, 1])
        q = ((m[0, 2] + m[2, 0]) / s, (m[1, 2] + m[2, 1]) / s, s / 4, (m[1, 0] - m[0, 1]) / s)
    q = np.array(q)
    return q / np.linalg.norm(q)


def _pose(element: ElementTree.Element | None) -> tuple[np.ndarray, np.ndarray]:
    origin = None if element is None else element.find("origin")
    xyz = np.array([float(v) for v in (origin.get("xyz", "0 0 0") if origin is not None
                                       else "0 0 0").split()])
    rpy = [float(v) for v in (origin.get("rpy", "0 0 0") if origin is not None
                              else "0 0 0").split()]
    return xyz, rpy_matrix(*rpy)


def _rgba(visual: ElementTree.Element, materials: dict[str, tuple]) -> tuple:
    material = visual.find("material")
    if material is None:
        return DEFAULT_RGBA
    color = material.find("color")
    if color is not None:
        return tuple(float(v) for v in color.get("rgba", "0.6 0.6 0.65 1").split())
    return materials.get(material.get("name", ""), DEFAULT_RGBA)


def load_vehicle_shapes(urdf_path: str | os.PathLike) -> VehicleShapes:
    """The :class:`VehicleShapes` of the URDF at ``urdf_path``.

    Raises:
        FileNotFoundError: no such file.
        ValueError: the file is not a URDF (naming it).
    """
    path = Path(urdf_path)
    try:
        root = ElementTree.parse(path).getroot()
    except ElementTree.ParseError as error:
        raise ValueError(f"{path} is not a URDF: {error}") from None
    if root.tag != "robot":
        raise ValueError(f"{path} is not a URDF: its root element is <{root.tag}>, not <robot>")
    # Materials may be defined once at the top level, or in a first visual, and named later.
    materials: dict[str, tuple] = {}
    for material in root.iter("material"):
        color = material.find("color")
        if color is not None and material.get("name"):
            materials.setdefault(material.get("name"),
                                 tuple(float(v) for v in color.get("rgba").split()))
    links = {link.get("name"): link for link in root.findall("link")}
    parents = {}
    for joint in root.findall("joint"):
        parents[joint.find("child").get("link")] = (joint.find("parent").get("link"),
                                                    *_pose(joint))

    def link_pose(name: str, depth: int = 0) -> tuple[np.ndarray, np.ndarray]:
        if name not in parents or depth > len(links):
            return np.zeros(3), np.eye(3)
        parent, xyz, rotation = parents[name]
        parent_xyz, parent_rotation = link_pose(parent, depth + 1)
        return parent_xyz + parent_rotation @ xyz, parent_rotation @ rotation

    bases = [name for name in links if name not in parents] or list(links)[:1]
    base_xyz, base_rotation = _pose(links[bases[0]].find("inertial")) if bases else (
        np.zeros(3), np.eye(3))
    shapes = VehicleShapes()
    for name, link in links.items():
        frame_xyz, frame_rotation = link_pose(name)
        for visual in link.findall("visual"):
            xyz, rotation = _pose(visual)
            centre = base_rotation.T @ (frame_xyz + frame_rotation @ xyz - base_xyz)
            quaternion = matrix_to_quaternion(base_rotation.T @ frame_rotation @ rotation)
            rgba = np.array(_rgba(visual, materials))
            geometry = visual.find("geometry")
            shape = None if geometry is None or not len(geometry) else geometry[0]
            if shape is None:
                continue
            if shape.tag == "box":
                size = np.array([float(v) for v in shape.get("size").split()]) / 2
                shapes.boxes.append((centre, quaternion, size, rgba))
            elif shape.tag == "cylinder":
                size = np.array((float(shape.get("length")), float(shape.get("radius"))))
                shapes.cylinders.append((centre, quaternion, size, rgba))
            elif shape.tag == "sphere":
                shapes.spheres.append((centre, quaternion, float(shape.get("radius")), rgba))
            else:
                shapes.skipped.append(f"{name}: <{shape.tag}>")
    return shapes
