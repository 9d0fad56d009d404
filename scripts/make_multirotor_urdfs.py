"""Regenerate the URDF of every shipped multirotor parameter set from its YAML.

Usage: python scripts/make_multirotor_urdfs.py
"""

from pyflyt_like.common.loading import load_yaml
from pyflyt_like.common.multirotor_model import MULTIROTORS_DIR
from pyflyt_like.core.utils.multirotor_urdf import write_multirotor_urdf

if __name__ == "__main__":
    for folder in sorted(p for p in MULTIROTORS_DIR.iterdir() if p.is_dir()):
        params = load_yaml(folder / f"{folder.name}.yaml")
        print(write_multirotor_urdf(folder.name, params, folder / f"{folder.name}.urdf"))
