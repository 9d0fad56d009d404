"""Multirotor tasks on the batched engine (VectorEnv) and on PyBullet (the twin Env).

One array-based implementation of each task (:mod:`.hover`, :mod:`.reach`, :mod:`.track`,
:mod:`.land`) and of the agent step (:mod:`.episodes`) serves both engines.
"""

from .hover import HoverTask
from .land import LandTask
from .reach import ReachTask
from .track import TrackTask

TASK_CLASSES = {"Hover": HoverTask, "Reach": ReachTask, "Track": TrackTask, "Land": LandTask}

__all__ = ["TASK_CLASSES", "HoverTask", "LandTask", "ReachTask", "TrackTask"]
