"""QuadPlane: hover on lift motors, transition to wing-borne flight, the wing carries it."""

import numpy as np
import pytest

from pyflyt_like.core import Aviary

G = 9.81


@pytest.fixture(scope="module")
def flight():
    """One flight, recorded: take off and hover, transition, cruise on the wing."""
    with Aviary(np.array([[0.0, 0.0, 0.3]]), np.zeros((1, 3)), drone_type="quadplane",
                seed=0) as aviary:
        drone = aviary.drones[0]
        log = {"hover": [], "transition": [], "cruise": []}

        def record(phase):
            rotation = drone.rotation_matrix
            # Aerodynamic force of all surfaces in the ground frame (their links share the
            # base's orientation on this airframe).
            wing_lift = (rotation @ drone.surfaces.forces.sum(axis=0))[2]
            log[phase].append((aviary.elapsed_time, *drone.state[3], *drone.world_velocity,
                               drone.lift_motors.throttle.max(), wing_lift))

        aviary.set_mode(7)  # hover: position hold on the lift motors
        aviary.set_setpoint(0, [0.0, 0.0, 0.0, 10.0])
        for _ in range(8 * 120):
            aviary.step()
            record("hover")
        aviary.set_mode(8)  # transition
        aviary.set_setpoint(0, [0.8, -0.05, 0.0, 10.0])
        for _ in range(12 * 120):
            aviary.step()
            record("transition")
            if drone.transition_complete:
                break
        aviary.set_mode(1)
        aviary.set_setpoint(0, [0.0, -0.07, 0.0, 0.5])
        for _ in range(10 * 120):
            aviary.step()
            record("cruise")
        yield drone, {k: np.array(v) for k, v in log.items()}


def test_hovers_on_its_lift_motors(flight):
    drone, log = flight
    hover = log["hover"]
    last_two_seconds = hover[hover[:, 0] > hover[-1, 0] - 2.0]
    # Columns: time, x, y, z, vx, vy, vz, max lift throttle, wing lift.
    assert np.all(np.abs(last_two_seconds[:, 3] - 10.0) < 0.2)
    assert np.all(np.hypot(last_two_seconds[:, 1], last_two_seconds[:, 2]) < 0.3)
    assert np.all(last_two_seconds[:, 7] > 0.3)  # the lift motors carry it
    assert np.all(np.abs(last_two_seconds[:, 4:6]) < 0.2)


def test_transitions_to_wing_borne_flight_holding_altitude(flight):
    drone, log = flight
    transition = log["transition"]
    duration = transition[-1, 0] - transition[0, 0]
    speed = np.hypot(transition[-1, 4], transition[-1, 5])
    assert duration < 10.0
    assert speed >= drone.transition_airspeed
    assert np.all(np.abs(transition[:, 3] - 10.0) < 1.5)
    # The wing takes over progressively: the lift motors throttle back as speed builds.
    assert transition[-1, 7] < transition[0, 7] - 0.05


def test_wing_carries_the_weight_at_cruise(flight):
    drone, log = flight
    cruise = log["cruise"]
    settled = cruise[cruise[:, 0] > cruise[0, 0] + 4.0]
    assert np.all(settled[:, 7] < 1e-6)  # lift motors stopped (throttle decays to zero)
    climb = settled[:, 6].mean()
    assert climb > -0.3  # not sinking: the wing holds it up
    weight = drone.mass * G
    assert settled[:, 8].mean() == pytest.approx(weight, rel=0.1)
    assert np.hypot(settled[-1, 4], settled[-1, 5]) > drone.transition_airspeed


@pytest.fixture(scope="module")
def round_trip():
    """Hover, transition_to("cruise"), cruise, transition_to("hover"), hover, recorded."""
    with Aviary(np.array([[0.0, 0.0, 0.3]]), np.zeros((1, 3)), drone_type="quadplane",
                seed=0) as aviary:
        drone = aviary.drones[0]
        aviary.set_mode(7)
        aviary.set_setpoint(0, [0.0, 0.0, 0.0, 10.0])
        for _ in range(8 * 120):
            aviary.step()
        rows = []

        def fly(seconds, phase):
            for _ in range(int(seconds * 120)):
                aviary.step()
                rows.append((phase, aviary.elapsed_time, drone.mode,
                             drone.transition_target is None, *drone.state[3],
                             drone.airspeed, drone.lift_motors.throttle.mean()))

        drone.transition_to("cruise")
        assert drone.transition_target == "cruise" and drone.mode == 8
        fly(20.0, 0)
        drone.transition_to("hover")
        assert drone.transition_target == "hover" and drone.mode == 8
        fly(20.0, 1)
        yield drone, np.array(rows)


def phase_of(log, phase):
    """Columns: time, mode, target done, x, y, z, airspeed, mean lift throttle."""
    return log[log[:, 0] == phase][:, 1:]


def test_transition_to_cruise_hands_over_to_the_autopilot_within_the_altitude_band(round_trip):
    drone, log = round_trip
    out = phase_of(log, 0)
    handover = np.argmax(out[:, 1] == 2)
    assert handover > 0 and np.all(out[:handover, 1] == 8) and np.all(out[handover:, 1] == 2)
    assert out[handover, 0] - out[0, 0] < 6.0
    assert out[handover:, 2].all() and not out[:handover, 2].any()  # target cleared on hand-over
    assert np.abs(out[:, 5] - 10.0).max() < 0.5  # altitude band of the forward transition
    settled = out[out[:, 0] > out[0, 0] + 15.0]
    assert settled[:, 6] == pytest.approx(drone.autopilot.tecs.trim_airspeed, abs=0.5)
    assert np.all(settled[:, 7] < 1e-3)  # the wing alone carries it


def test_transition_to_hover_brakes_and_hands_over_to_position_hold(round_trip):
    drone, log = round_trip
    back = phase_of(log, 1)
    handover = np.argmax(back[:, 1] == 7)
    assert handover > 0 and np.all(back[handover:, 1] == 7)
    assert back[handover, 0] - back[0, 0] < 12.0
    assert back[handover, 6] < drone.hover_airspeed
    assert np.abs(back[:, 5] - 10.0).max() < 1.0  # altitude band of the back-transition
    hovering = back[back[:, 0] > back[-1, 0] - 3.0]
    assert np.all(hovering[:, 6] < 0.3) and np.all(hovering[:, 7] > 0.3)  # on the lift motors
    # It holds the point where it handed over (the last metres of braking overshoot it).
    assert np.hypot(*(hovering[-1, 3:5] - back[handover, 3:5])) < 3.0


def test_transition_to_checks_its_target_and_set_mode_cancels_it():
    with Aviary(np.array([[0.0, 0.0, 5.0]]), np.zeros((1, 3)), drone_type="quadplane",
                seed=0) as aviary:
        drone = aviary.drones[0]
        with pytest.raises(ValueError, match="target must be 'cruise' or 'hover', got 'land'"):
            drone.transition_to("land")
        drone.transition_to("cruise")
        aviary.set_mode(7)
        assert drone.transition_target is None and drone.mode == 7
