"""The simulation core: the Aviary and what it hosts."""

from .utils.quiet import quiet_native_output

with quiet_native_output():  # PyBullet's build banner, printed from C on import
    import pybullet  # noqa: F401

from .aviary import Aviary  # noqa: E402
from .utils.obj_loading import loadOBJ, obj_collision, obj_visual  # noqa: E402

__all__ = ["Aviary", "loadOBJ", "obj_collision", "obj_visual"]
