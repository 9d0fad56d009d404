"""Writing a multirotor's URDF from its YAML parameter set.

A multirotor is defined by its YAML alone (mass, inertia, rotors, coefficients); the URDF
is derived from it: a box-shaped base carrying the mass and inertia, and one massless link
per rotor at its position. The shipped models' URDFs were written by this function
(scripts/make_multirotor_urdfs.py); a user model without a URDF gets one generated on load.
Following gym-pybullet-drones, the URDF's ``<properties>`` element repeats kf, km and the
aerodynamic coefficients for tools that read them there.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any


def multirotor_urdf(name: str, params: dict[str, Any]) -> str:
    """Return URDF text for the multirotor described by ``params`` (its YAML mapping)."""
    mass = float(params["mass"])
    ixx, iyy, izz = (float(v) for v in params["inertia"])
    rotors = params["rotors"]
    positions = rotors["positions"]
    aero = params.get("aero", {})
    radius = float(aero.get("prop_radius", 0.02))
    span = max(max(abs(p[0]), abs(p[1])) for p in positions)
    properties = {"kf": rotors["kf"], "km": rotors["km"]}
    if "thrust_to_weight" in rotors:
        properties["thrust2weight"] = rotors["thrust_to_weight"]
    for key, urdf_key in (("prop_radius", "prop_radius"), ("ground_effect_coeff", "gnd_eff_coeff"),
                          ("drag_coeff_xy", "drag_coeff_xy"), ("drag_coeff_z", "drag_coeff_z")):
        if key in aero:
            properties[urdf_key] = aero[key]
    for i, value in enumerate(aero.get("downwash_coeffs", []), start=1):
        properties[f"dw_coeff_{i}"] = value
    props = " ".join(f'{k}="{v}"' for k, v in properties.items())
    lines = [
        '<?xml version="1.0"?>',
        f"<!-- Generated from {name}.yaml by pyflyt_like.core.utils.multirotor_urdf: "
        "edit the YAML. -->",
        f'<robot name="{name}">',
        f"  <properties {props}/>",
        '  <link name="base_link">',
        "    <inertial>",
        '      <origin xyz="0 0 0"/>',
        f'      <mass value="{mass}"/>',
        f'      <inertia ixx="{ixx}" ixy="0" ixz="0" iyy="{iyy}" iyz="0" izz="{izz}"/>',
        "    </inertial>",
        "    <visual>",
        f'      <geometry><box size="{2 * span} {2 * span} {span / 4}"/></geometry>',
        '      <material name="frame"><color rgba="0.3 0.3 0.35 1"/></material>',
        "    </visual>",
        "    <collision>",
        f'      <geometry><cylinder radius="{span + radius}" length="{span / 4}"/></geometry>',
        "    </collision>",
        "  </link>",
    ]
    for i, (x, y, z) in enumerate(positions):
        lines += [
            f'  <link name="prop{i}">',
            "    <inertial>",
            '      <origin xyz="0 0 0"/>',
            '      <mass value="0"/>',
            '      <inertia ixx="0" ixy="0" ixz="0" iyy="0" iyz="0" izz="0"/>',
            "    </inertial>",
            "    <visual>",
            f'      <geometry><cylinder radius="{radius}" length="{radius / 10}"/></geometry>',
            f'      <material name="prop{i}"><color rgba="0.2 0.2 0.2 0.6"/></material>',
            "    </visual>",
            "  </link>",
            f'  <joint name="prop{i}_joint" type="fixed">',
            '    <parent link="base_link"/>',
            f'    <child link="prop{i}"/>',
            f'    <origin xyz="{x} {y} {z}"/>',
            "  </joint>",
        ]
    lines.append("</robot>")
    return "\n".join(lines) + "\n"


def write_multirotor_urdf(name: str, params: dict[str, Any], path: str | Path) -> Path:
    """Write :func:`multirotor_urdf` to ``path`` atomically; return the path."""
    path = Path(path)
    temporary = path.with_suffix(path.suffix + ".tmp")
    temporary.write_text(multirotor_urdf(name, params), encoding="utf-8")
    temporary.replace(path)
    return path
