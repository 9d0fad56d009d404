"""Where links fixed rigidly to a drone's base sit, so their loads can go on the base.

PyBullet's cached link frames lag one physics step behind the base (they are refreshed by
the next step's forward kinematics), so a load given in a link's ``LINK_FRAME`` is rotated by
the previous step's attitude. A load on a rigid link equals a force and a torque on the base;
components with rigid links apply that instead, from the geometry taken here once.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pybullet


def all_rigid(client: int, uav: int, links: Sequence[int]) -> bool:
    """True if every link is joined to the base through fixed joints only (-1 is the base)."""
    for link in links:
        while link >= 0:
            info = pybullet.getJointInfo(uav, link, physicsClientId=client)
            if info[2] != pybullet.JOINT_FIXED:
                return False
            link = info[16]
    return True


def link_geometry(client: int, uav: int, links: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
    """(n, 3) link origins relative to the base, in the base frame [m], and (n, 3, 3)
    link-to-base rotations. Origins are the links' centre-of-mass frames, where PyBullet's
    ``LINK_FRAME`` loads act; link -1 is the base itself."""
    base_pos, base_orn = pybullet.getBasePositionAndOrientation(uav, physicsClientId=client)
    to_base = np.array(pybullet.getMatrixFromQuaternion(base_orn)).reshape(3, 3).T
    offsets, rotations = [], []
    for link in links:
        if link < 0:
            offsets.append(np.zeros(3))
            rotations.append(np.eye(3))
            continue
        position, orientation = pybullet.getLinkState(
            uav, link, computeForwardKinematics=True, physicsClientId=client)[:2]
        offsets.append(to_base @ (np.array(position) - np.array(base_pos)))
        rotations.append(to_base @ np.array(pybullet.getMatrixFromQuaternion(orientation))
                         .reshape(3, 3))
    return np.array(offsets).reshape(-1, 3), np.array(rotations).reshape(-1, 3, 3)
