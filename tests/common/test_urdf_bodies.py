"""The rigid body read from a URDF is the one PyBullet flies: same mass, link frames, and
the same motion under the same loads (Newton-Euler about the centre of mass)."""

from __future__ import annotations

import math

import numpy as np
import pybullet
import pytest

from pyflyt_like.common import rotations
from pyflyt_like.common.loading import model_files
from pyflyt_like.common.urdf_bodies import load_rigid_body, rpy_matrix
from pyflyt_like.core.abstractions.rigid_links import link_geometry


@pytest.fixture
def client():
    client = pybullet.connect(pybullet.DIRECT)
    yield client
    pybullet.disconnect(client)


def _load(client: int, urdf) -> int:
    uav = pybullet.loadURDF(str(urdf), [0, 0, 10], [0, 0, 0, 1],
                            flags=pybullet.URDF_USE_INERTIA_FROM_FILE, physicsClientId=client)
    for link in range(-1, pybullet.getNumJoints(uav, physicsClientId=client)):
        pybullet.changeDynamics(uav, link, linearDamping=0.0, angularDamping=0.0,
                                physicsClientId=client)
    return uav


@pytest.mark.parametrize("model", ["acrowing", "fixedwing", "quadplane"])
def test_mass_and_link_frames_match_pybullet(client, model):
    urdf, _ = model_files(model)
    body = load_rigid_body(urdf)
    uav = _load(client, urdf)
    links = list(range(pybullet.getNumJoints(uav, physicsClientId=client)))
    masses = [pybullet.getDynamicsInfo(uav, link, physicsClientId=client)[0]
              for link in [-1, *links]]
    assert body.mass == pytest.approx(sum(masses), rel=1e-12)
    offsets, rotations_ = link_geometry(client, uav, links)
    for link, offset, rotation in zip(links, offsets, rotations_):
        name = pybullet.getJointInfo(uav, link, physicsClientId=client)[12].decode()
        mine_offset, mine_rotation = body.offset_and_rotation(name)
        np.testing.assert_allclose(mine_offset, offset, atol=1e-12)
        np.testing.assert_allclose(mine_rotation, rotation, atol=1e-12)


def test_parallel_axis_theorem_by_hand():
    """acrowing: the composite inertia quoted in its URDF's comment."""
    body = load_rigid_body(model_files("acrowing")[0])
    assert body.com == pytest.approx((0.00947, 0.0, 0.00183), abs=1e-5)
    assert body.inertia[0, 0] == pytest.approx(0.0085, abs=1e-4)
    assert body.inertia[1, 1] == pytest.approx(0.0212, abs=1e-4)
    assert body.inertia[2, 2] == pytest.approx(0.0289, abs=1e-4)
    assert body.inertia[0, 2] == pytest.approx(0.0007, abs=1e-4)


def test_composite_body_moves_as_pybullet_to_machine_precision(client):
    """Ten seconds under varying body loads at the base origin, tumbling: Newton-Euler
    about the composite centre of mass, integrated as PyBullet does (semi-implicit Euler,
    exponential map), stays within 1e-9 of PyBullet's multibody."""
    urdf, _ = model_files("acrowing")
    body = load_rigid_body(urdf)
    uav = _load(client, urdf)
    dt = 1.0 / 240.0
    pybullet.setGravity(0, 0, -9.81, physicsClientId=client)
    pybullet.setTimeStep(dt, physicsClientId=client)
    pybullet.resetBaseVelocity(uav, [14, 0, 0], [0.5, 0.3, -0.2], physicsClientId=client)
    pos, quat = np.array([0, 0, 10.0]), np.array([0, 0, 0, 1.0])
    vel, omega = np.array([14, 0, 0.0]), np.array([0.5, 0.3, -0.2])  # omega: body frame
    inverse = np.linalg.inv(body.inertia)
    for k in range(2400):
        force = np.array((1.0, 0.3, -0.5)) * math.sin(0.01 * k)
        torque = np.array((0.01, -0.02, 0.005)) * math.cos(0.013 * k)
        pybullet.applyExternalForce(uav, -1, force.tolist(), (0, 0, 0), pybullet.LINK_FRAME,
                                    physicsClientId=client)
        pybullet.applyExternalTorque(uav, -1, torque.tolist(), pybullet.LINK_FRAME,
                                     physicsClientId=client)
        pybullet.stepSimulation(physicsClientId=client)
        rotation = np.array(rotations.quat_to_matrix(*quat)).reshape(3, 3)
        c = body.com
        alpha = inverse @ (torque - np.cross(c, force) - np.cross(omega, body.inertia @ omega))
        accel = (force / body.mass + rotation.T @ (0, 0, -9.81) - np.cross(alpha, c)
                 - np.cross(omega, np.cross(omega, c)))
        vel = vel + dt * rotation @ accel
        omega = omega + dt * alpha
        pos = pos + dt * vel
        quat = np.array(rotations.quat_times_rotation(*quat, *(omega * dt)))
    position, orientation = pybullet.getBasePositionAndOrientation(uav, physicsClientId=client)
    velocity = pybullet.getBaseVelocity(uav, physicsClientId=client)[0]
    assert np.abs(np.array(position) - pos).max() < 1e-9
    assert np.abs(np.array(velocity) - vel).max() < 1e-9
    assert abs(abs(np.dot(orientation, quat)) - 1.0) < 1e-12  # q and -q: one attitude


def test_rpy_is_fixed_axis_roll_pitch_yaw():
    expected = np.array(pybullet.getMatrixFromQuaternion(
        pybullet.getQuaternionFromEuler((0.3, -0.2, 1.1)))).reshape(3, 3)
    np.testing.assert_allclose(rpy_matrix(0.3, -0.2, 1.1), expected, atol=1e-12)


def test_moving_joints_are_refused(tmp_path):
    urdf = tmp_path / "hinge.urdf"
    urdf.write_text('<robot name="r"><link name="a"><inertial><mass value="1"/><inertia '
                    'ixx="1" iyy="1" izz="1"/></inertial></link><link name="b"/>'
                    '<joint name="j" type="revolute"><parent link="a"/><child link="b"/>'
                    '</joint></robot>')
    with pytest.raises(ValueError, match="joint 'j' is 'revolute'.*fixed joints only"):
        load_rigid_body(urdf)


def test_unknown_link_names_the_links():
    body = load_rigid_body(model_files("acrowing")[0])
    with pytest.raises(ValueError, match="no link named 'wing'; links are"):
        body.offset_and_rotation("wing")
