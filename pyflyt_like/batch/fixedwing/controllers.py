"""The fixed-wing control laws for the kernels: one aircraft per call, the control laws of
:mod:`pyflyt_like.control` compiled (:mod:`.shared`), composed as the PyBullet ``Fixedwing``
composes them (the cross-validation tests guard that):

- -1: the surface commands and the throttle as given (surfaces clipped by their lag);
- 0: [roll, pitch, yaw] commands clipped to [-1, 1], mixed to the surfaces; throttle;
- 1: roll and pitch held on SO(3) with a yaw rate (``attitude_rates``), body rates by PID;
- 2 and 3: TECS for pitch and throttle, mode 2's course hold for the bank (mode 3 takes
  it), the coordinated turn's body rates as feed-forward, then as mode 1.

The controllers use the nominal aircraft (``FixedwingNominal``), never the randomised plant.
"""

from __future__ import annotations

import math

from numba import njit

from pyflyt_like.common.flight_modes import FlightMode
from pyflyt_like.compiled.rotations import quat_to_euler, quat_to_matrix

from ..air import air_velocity
from .shared import (
    attitude_rates,
    bank_for_course_error,
    course_of,
    pid_channel,
    tecs_step,
    turn_feedforward,
    wrap_angle,
)

ACTUATORS, RATES, ATTITUDE = FlightMode.ACTUATORS, FlightMode.RATES, FlightMode.ATTITUDE
HEADING_AUTOPILOT, BANK_AUTOPILOT = FlightMode.HEADING_AUTOPILOT, FlightMode.BANK_AUTOPILOT


@njit(cache=True, _nrt=False, error_model="numpy", inline="always")
def _mix(state, nominal, w, d, roll, pitch, yaw):
    """Surface commands of [roll, pitch, yaw] commands."""
    mixer, out = nominal.mixer, state.surface_command[w, d]
    for i in range(out.shape[0]):
        out[i] = mixer[i, 0] * roll + mixer[i, 1] * pitch + mixer[i, 2] * yaw


@njit(cache=True, _nrt=False, error_model="numpy", inline="always")
def _fly_rates(state, nominal, config, w, d, rates):
    """The rate PID towards ``rates`` [rad/s], mixed to the surfaces."""
    omega = state.ang_vel[w, d]
    integral, previous = state.rate_integral[w, d], state.rate_previous[w, d]
    fresh = state.rate_fresh[w, d]
    period = config.dt * config.mode_steps
    out0, integral[0], previous[0] = pid_channel(
        rates[0] - omega[0], integral[0], previous[0], fresh, nominal.rate_kp[0],
        nominal.rate_ki[0], nominal.rate_kd[0], nominal.rate_output_limits[0],
        nominal.rate_integral_bound[0], period)
    out1, integral[1], previous[1] = pid_channel(
        rates[1] - omega[1], integral[1], previous[1], fresh, nominal.rate_kp[1],
        nominal.rate_ki[1], nominal.rate_kd[1], nominal.rate_output_limits[1],
        nominal.rate_integral_bound[1], period)
    out2, integral[2], previous[2] = pid_channel(
        rates[2] - omega[2], integral[2], previous[2], fresh, nominal.rate_kp[2],
        nominal.rate_ki[2], nominal.rate_kd[2], nominal.rate_output_limits[2],
        nominal.rate_integral_bound[2], period)
    state.rate_fresh[w, d] = False
    _mix(state, nominal, w, d, out0, out1, out2)


@njit(cache=True, _nrt=False, error_model="numpy", inline="always")
def airspeed_of(state, config, w, d):
    """Airspeed [m/s] of aircraft (w, d): the norm of its velocity less the wind."""
    ax, ay, az = air_velocity(state, config, w, d)
    return math.sqrt(ax * ax + ay * ay + az * az)


@njit(cache=True, _nrt=False, error_model="numpy", inline="always")
def control_tick(state, nominal, config, mode, w, d, rotation, outer_loop):
    """One control tick of aircraft (w, d) in ``mode``: sets its surface and thrust
    commands from its setpoint. ``rotation``: its attitude, row-major 9-tuple.
    ``outer_loop``: True in the autopilot modes; None compiles the tick without the
    autopilot (the engine binds it so: it is None only in the other modes)."""
    setpoint = state.setpoint[w, d]
    if mode == ACTUATORS:
        commands = state.surface_command[w, d]
        for i in range(commands.shape[0]):
            commands[i] = setpoint[i]  # the surfaces clip them
        state.thrust_command[w, d] = min(max(setpoint[commands.shape[0]], 0.0), 1.0)
        return
    if mode == RATES:
        _mix(state, nominal, w, d, min(max(setpoint[0], -1.0), 1.0),
             min(max(setpoint[1], -1.0), 1.0), min(max(setpoint[2], -1.0), 1.0))
        state.thrust_command[w, d] = min(max(setpoint[3], 0.0), 1.0)
        return
    if mode == ATTITUDE:
        rates = attitude_rates(rotation, setpoint[0], setpoint[1], nominal.angle_kp,
                               nominal.rate_limits, (0.0, 0.0, setpoint[2]))
        _fly_rates(state, nominal, config, w, d, rates)
        state.thrust_command[w, d] = min(max(setpoint[3], 0.0), 1.0)
        return
    if outer_loop is None:  # never in modes 2 and 3 (the engine binds outer_loop so)
        return
    # modes 2 and 3: the autopilot
    tecs, vel, pos = nominal, state.vel[w, d], state.pos[w, d]  # the TECS fields
    airspeed = airspeed_of(state, config, w, d)
    if mode == HEADING_AUTOPILOT:
        course = course_of(rotation, vel[0], vel[1], nominal.min_ground_speed)
        bank = bank_for_course_error(wrap_angle(setpoint[0] - course), airspeed,
                                     tecs.min_airspeed, nominal.max_bank, nominal.heading_kp,
                                     tecs.gravity)
        climb_rate_setpoint = tecs.altitude_kp * (setpoint[3] - pos[2])
    else:
        bank, climb_rate_setpoint = setpoint[0], setpoint[3]
    q = state.quat[w, d]
    roll, pitch, _ = quat_to_euler(q[0], q[1], q[2], q[3])
    bank = min(max(bank, -nominal.max_bank), nominal.max_bank)
    memory = state.tecs[w, d]
    pitch_setpoint, throttle, new_memory = tecs_step(
        tecs, (memory[0], memory[1], memory[2], memory[3], memory[4]), climb_rate_setpoint,
        setpoint[1], vel[2], airspeed, roll)
    for i in range(5):
        memory[i] = new_memory[i]
    feedforward = turn_feedforward(roll, pitch, airspeed, tecs.min_airspeed, nominal.max_bank,
                                   tecs.gravity)
    rates = attitude_rates(rotation, bank, pitch_setpoint, nominal.angle_kp,
                           nominal.rate_limits, feedforward)
    _fly_rates(state, nominal, config, w, d, rates)
    state.thrust_command[w, d] = throttle


@njit(cache=True, _nrt=False, error_model="numpy")
def hold_setpoints(state, nominal, config, mode, worlds):
    """Preset the setpoints of ``worlds`` (indices) to hold the current flight in ``mode``
    (:func:`hold_world_setpoints` for each)."""
    for w in worlds:
        hold_world_setpoints(state, nominal, config, mode, w)


@njit(cache=True, _nrt=False, error_model="numpy")
def hold_world_setpoints(state, nominal, config, mode, w):
    """Preset the setpoints of world ``w`` to hold the current flight in ``mode``, as
    ``Fixedwing.preset_setpoint``: mode 1 the current roll and pitch, no yaw rate, the
    current thrust command; mode 2 the course, the airspeed (within the TECS limits) and
    the altitude; mode 3 wings level, the airspeed, no climb; modes -1 and 0 zeros. The
    airspeed is taken in the wind of the world's last step."""
    tecs = nominal  # its TECS fields
    for d in range(state.setpoint.shape[1]):
        setpoint = state.setpoint[w, d]
        for i in range(setpoint.shape[0]):
            setpoint[i] = 0.0
        q, vel = state.quat[w, d], state.vel[w, d]
        if mode == ATTITUDE:
            roll, pitch, _ = quat_to_euler(q[0], q[1], q[2], q[3])
            setpoint[0], setpoint[1] = roll, pitch
            setpoint[3] = state.thrust_command[w, d]
        elif mode == HEADING_AUTOPILOT or mode == BANK_AUTOPILOT:
            airspeed = airspeed_of(state, config, w, d)
            setpoint[1] = min(max(airspeed, tecs.min_airspeed), tecs.max_airspeed)
            if mode == HEADING_AUTOPILOT:
                rotation = quat_to_matrix(q[0], q[1], q[2], q[3])
                setpoint[0] = course_of(rotation, vel[0], vel[1], nominal.min_ground_speed)
                setpoint[3] = state.pos[w, d, 2]
