"""The loads on a fixed-wing in one physics step, as the PyBullet ``Fixedwing`` applies
them: every lifting surface (its deflection lag, its airflow from the base's motion and
the wind, Khan & Nahon's coefficients), the fuselage drag body and the motor (lag, thrust
``T_max throttle |throttle|``), summed into one force and one torque at the base origin,
body frame."""

from __future__ import annotations

from numba import njit

from pyflyt_like.compiled.rotations import transpose_times_vector

from ..air import air_velocity
from .shared import (
    angle_of_attack,
    coefficients,
    deflection_step,
    quadratic_drag,
    surface_loads,
)


@njit(cache=True, _nrt=False, error_model="numpy", inline="always")
def aircraft_wrench(state, plant, nominal, config, w, d, rotation):
    """Advance the deflections and the throttle of aircraft (w, d) one step and return its
    load: body force (fx, fy, fz) [N] at the base origin and torque about it [N m]."""
    omega = state.ang_vel[w, d]
    ax, ay, az = air_velocity(state, config, w, d)
    vx, vy, vz = transpose_times_vector(rotation, ax, ay, az)
    wx, wy, wz = omega[0], omega[1], omega[2]
    deflections, commands = state.deflection[w, d], state.surface_command[w, d]
    flow, loads = nominal.flow_map, nominal.wrench_map
    cl_alpha, cd_0 = plant.cl_alpha[w, d], plant.cd_0[w, d]
    stall_p, stall_n = plant.stall_p[w, d], plant.stall_n[w, d]
    n = deflections.shape[0]
    fx = fy = fz = tx = ty = tz = 0.0
    for i in range(n):
        index = nominal.command_index[i]
        deflection = deflection_step(deflections[i], commands[index] if index >= 0 else 0.0,
                                     nominal.travel[i], nominal.surface_gain[i])
        deflections[i] = deflection
        a, b = flow[i], flow[n + i]
        forward = a[0] * vx + a[1] * vy + a[2] * vz + a[3] * wx + a[4] * wy + a[5] * wz
        up = b[0] * vx + b[1] * vy + b[2] * vz + b[3] * wx + b[4] * wy + b[5] * wz
        cl, cd, cm = coefficients(angle_of_attack(forward, up), deflection,
                                  nominal.flap_gain[i], nominal.alpha_0_base[i], stall_p[i],
                                  stall_n[i], nominal.aspect[i], cl_alpha[i], cd_0[i],
                                  nominal.plate_loss[i])
        along, lift, moment = surface_loads(forward, up, cl, cd, cm, nominal.half_rho_area[i],
                                            nominal.chord[i])
        j = 3 * i
        fx += loads[0, j] * along + loads[0, j + 1] * lift + loads[0, j + 2] * moment
        fy += loads[1, j] * along + loads[1, j + 1] * lift + loads[1, j + 2] * moment
        fz += loads[2, j] * along + loads[2, j + 1] * lift + loads[2, j + 2] * moment
        tx += loads[3, j] * along + loads[3, j + 1] * lift + loads[3, j + 2] * moment
        ty += loads[4, j] * along + loads[4, j + 1] * lift + loads[4, j + 2] * moment
        tz += loads[5, j] * along + loads[5, j + 1] * lift + loads[5, j + 2] * moment
    drag = nominal.drag
    fx += quadratic_drag(vx, drag[0])
    fy += quadratic_drag(vy, drag[1])
    fz += quadratic_drag(vz, drag[2])
    throttle = state.throttle[w, d]
    throttle += plant.motor_gain[w, d] * (state.thrust_command[w, d] - throttle)
    state.throttle[w, d] = throttle
    pull = throttle * abs(throttle) * plant.thrust_scale[w, d]
    m = nominal.motor_wrench
    return (fx + m[0] * pull, fy + m[1] * pull, fz + m[2] * pull, tx + m[3] * pull,
            ty + m[4] * pull, tz + m[5] * pull)
