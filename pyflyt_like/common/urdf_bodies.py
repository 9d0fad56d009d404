"""A vehicle's rigid body as PyBullet builds it from its URDF, read without pybullet.

PyBullet loads a URDF whose links hang on fixed joints as one rigid body: its base frame is
the base link's inertial frame (``getBasePositionAndOrientation`` reports it), and the
loads a component applies in a link's ``LINK_FRAME`` act at that link's inertial frame.
The batched engine flies the same body, so it needs, from the same file:

- every link's inertial frame relative to the base frame (where its loads act);
- the composite mass, centre of mass and inertia tensor (about the centre of mass, base
  axes) of all links, which is what PyBullet's articulated-body solver reproduces for a
  body whose joints are all fixed.

URDF conventions: ``<origin xyz rpy>`` with ``rpy`` fixed-axis roll, pitch, yaw, so
``R = Rz(yaw) Ry(pitch) Rx(roll)``; inertia given about the link's inertial frame.
"""

from __future__ import annotations

import math
import xml.etree.ElementTree as ElementTree
from dataclasses import dataclass
from pathlib import Path

import numpy as np


@dataclass(frozen=True)
class RigidBody:
    """The composite body of a URDF whose joints are all fixed.

    Attributes:
        mass: total mass [kg].
        com: (3,) centre of mass from the base frame's origin, base frame [m].
        inertia: (3, 3) inertia tensor about the centre of mass, base axes [kg m^2].
        link_offsets: link name -> (3,) origin of the link's inertial frame from the base
            origin, base frame [m] (the base link itself: zeros).
        link_rotations: link name -> (3, 3) link-inertial-to-base rotation.
    """

    mass: float
    com: np.ndarray
    inertia: np.ndarray
    link_offsets: dict[str, np.ndarray]
    link_rotations: dict[str, np.ndarray]

    def offset_and_rotation(self, link: str, source: str | Path = "the URDF"
                            ) -> tuple[np.ndarray, np.ndarray]:
        """(3,) offset [m] and (3, 3) rotation of ``link`` (see the attributes).

        Raises:
            ValueError: no such link, naming the links there are.
        """
        if link not in self.link_offsets:
            raise ValueError(f"{source} has no link named {link!r}; links are "
                             f"{sorted(self.link_offsets)}")
        return self.link_offsets[link], self.link_rotations[link]


def rpy_matrix(roll: float, pitch: float, yaw: float) -> np.ndarray:
    """(3, 3) ``Rz(yaw) Ry(pitch) Rx(roll)``, URDF's ``rpy``."""
    cr, sr, cp, sp = math.cos(roll), math.sin(roll), math.cos(pitch), math.sin(pitch)
    cy, sy = math.cos(yaw), math.sin(yaw)
    return np.array(((cy * cp, cy * sp * sr - sy * cr, cy * sp * cr + sy * sr),
                     (sy * cp, sy * sp * sr + cy * cr, sy * sp * cr - cy * sr),
                     (-sp, cp * sr, cp * cr)))


def _numbers(element: ElementTree.Element | None, key: str, default: str, size: int,
             source: str) -> np.ndarray:
    text = default if element is None else element.get(key, default)
    try:
        values = np.array([float(v) for v in text.split()])
    except ValueError:
        raise ValueError(f"{source}: {key}={text!r} must be {size} numbers") from None
    if values.shape != (size,) or not np.isfinite(values).all():
        raise ValueError(f"{source}: {key}={text!r} must be {size} finite numbers")
    return values


def _pose(origin: ElementTree.Element | None, source: str) -> tuple[np.ndarray, np.ndarray]:
    """(translation (3,), rotation (3, 3)) of an ``<origin>`` (identity if absent)."""
    xyz = _numbers(origin, "xyz", "0 0 0", 3, source)
    return xyz, rpy_matrix(*_numbers(origin, "rpy", "0 0 0", 3, source))


def _inertial(link: ElementTree.Element, source: str
              ) -> tuple[float, np.ndarray, np.ndarray, np.ndarray]:
    """(mass, inertial origin, its rotation, inertia (3, 3)) of a ``<link>``; a link
    without ``<inertial>`` weighs nothing (URDF's rule)."""
    inertial = link.find("inertial")
    if inertial is None:
        return 0.0, np.zeros(3), np.eye(3), np.zeros((3, 3))
    name = f"{source}, link {link.get('name')!r}"
    mass = float(_numbers(inertial.find("mass"), "value", "0", 1, name)[0])
    element = inertial.find("inertia")
    i = {key: float(_numbers(element, key, "0", 1, name)[0])
         for key in ("ixx", "ixy", "ixz", "iyy", "iyz", "izz")}
    inertia = np.array(((i["ixx"], i["ixy"], i["ixz"]), (i["ixy"], i["iyy"], i["iyz"]),
                        (i["ixz"], i["iyz"], i["izz"])))
    offset, rotation = _pose(inertial.find("origin"), name)
    return mass, offset, rotation, inertia


def load_rigid_body(urdf_path: str | Path) -> RigidBody:
    """Read the composite :class:`RigidBody` of a URDF whose joints are all fixed.

    Raises:
        ValueError: a joint that is not fixed, a link that is not reached from one base, or
            a malformed number, naming the file.
    """
    source = str(urdf_path)
    root = ElementTree.parse(urdf_path).getroot()
    links = {link.get("name"): link for link in root.findall("link")}
    parents: dict[str, tuple[str, np.ndarray, np.ndarray]] = {}
    for joint in root.findall("joint"):
        name = joint.get("name")
        if joint.get("type") != "fixed":
            raise ValueError(f"{source}: joint {name!r} is {joint.get('type')!r}; the batched "
                             "engine flies rigid airframes (fixed joints only)")
        parent, child = joint.find("parent").get("link"), joint.find("child").get("link")
        parents[child] = (parent, *_pose(joint.find("origin"), f"{source}, joint {name!r}"))
    bases = [name for name in links if name not in parents]
    if len(bases) != 1:
        raise ValueError(f"{source}: expected one base link, found {bases}")

    inertials = {name: _inertial(link, source) for name, link in links.items()}
    _, base_xyz, base_rotation, _ = inertials[bases[0]]
    offsets, rotations, masses, inertias = {}, {}, [], []
    for name, (mass, xyz, rotation, inertia) in inertials.items():
        frame_xyz, frame_rotation = _link_pose(parents, name)
        world_xyz = frame_xyz + frame_rotation @ xyz  # inertial frame in the base link frame
        world_rotation = frame_rotation @ rotation
        offsets[name] = base_rotation.T @ (world_xyz - base_xyz)  # in the base inertial frame
        rotations[name] = base_rotation.T @ world_rotation
        masses.append(mass)
        inertias.append(rotations[name] @ inertia @ rotations[name].T)
    total = float(sum(masses))
    if total <= 0:
        raise ValueError(f"{source}: the links weigh nothing (total mass {total})")
    positions = np.array([offsets[name] for name in inertials])
    com = np.einsum("n,ni->i", np.array(masses), positions) / total
    composite = np.zeros((3, 3))
    for mass, position, inertia in zip(masses, positions, inertias):
        r = position - com
        composite += inertia + mass * (r @ r * np.eye(3) - np.outer(r, r))
    return RigidBody(mass=total, com=com, inertia=composite, link_offsets=offsets,
                     link_rotations=rotations)


def _link_pose(parents: dict[str, tuple[str, np.ndarray, np.ndarray]], name: str
               ) -> tuple[np.ndarray, np.ndarray]:
    """Link ``name``'s frame in the base link's frame: (xyz (3,), rotation (3, 3)), walking
    ``parents`` (child link -> (parent link, joint xyz, joint rotation)) to the base."""
    if name not in parents:
        return np.zeros(3), np.eye(3)
    parent, xyz, rotation = parents[name]
    parent_xyz, parent_rotation = _link_pose(parents, parent)
    return parent_xyz + parent_rotation @ xyz, parent_rotation @ rotation


def collision_radius(urdf_path: str | Path) -> float:
    """The radius [m] of the sphere about the base's inertial origin (the batched engine's
    ``pos`` of a fixed-wing) that holds every collision shape of the URDF at ``urdf_path``
    (boxes by their corners, cylinders by the corners of their bounding boxes, spheres
    whole; the links placed by their fixed joints): 0.57 m for the acrowing, 0.83 m for
    the fixedwing.

    Raises:
        ValueError: a malformed number or a collision geometry other than a box, cylinder
            or sphere, naming the file.
    """
    source = str(urdf_path)
    root = ElementTree.parse(urdf_path).getroot()
    parents = {joint.find("child").get("link"): (joint.find("parent").get("link"),
                                                 *_pose(joint.find("origin"), source))
               for joint in root.findall("joint")}
    links = root.findall("link")
    base = next(link for link in links if link.get("name") not in parents)
    inertial = base.find("inertial")
    base_origin, _ = _pose(None if inertial is None else inertial.find("origin"), source)
    signs = np.array([(x, y, z) for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)])
    radius = 0.0
    for link in links:
        frame_xyz, frame_rotation = _link_pose(parents, link.get("name"))
        for collision in link.findall("collision"):
            xyz, rotation = _pose(collision.find("origin"), source)
            centre = frame_xyz + frame_rotation @ xyz - base_origin
            axes = frame_rotation @ rotation
            geometry = collision.find("geometry")
            shape = geometry[0] if geometry is not None and len(geometry) else None
            if shape is not None and shape.tag == "sphere":
                reach = float(np.linalg.norm(centre)) + float(
                    _numbers(shape, "radius", "", 1, source)[0])
                radius = max(radius, reach)
                continue
            if shape is not None and shape.tag == "box":
                half = 0.5 * _numbers(shape, "size", "", 3, source)
            elif shape is not None and shape.tag == "cylinder":
                r = float(_numbers(shape, "radius", "", 1, source)[0])
                half = np.array((r, r, 0.5 * float(_numbers(shape, "length", "", 1,
                                                            source)[0])))
            else:
                raise ValueError(f"{source}: link {link.get('name')!r} has a collision "
                                 f"geometry the batched engine does not bound (box, cylinder "
                                 f"or sphere only)")
            corners = centre + (signs * half) @ axes.T
            radius = max(radius, float(np.linalg.norm(corners, axis=1).max()))
    return radius
