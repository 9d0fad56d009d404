"""The contracts (drone, controller, wind field) and the reusable components."""

from pyflyt_like.control.pid import PID

from .base_controller import ControlClass
from .base_drone import DroneClass
from .base_wind_field import WindFieldClass
from .boosters import Boosters
from .boring_bodies import BoringBodies
from .camera import Camera
from .gimbals import Gimbals
from .lifting_surfaces import LiftingSurface, LiftingSurfaces
from .modal_drone import ModalDrone
from .motors import Motors
from .sensors import Sensors

__all__ = [
    "PID",
    "Boosters",
    "BoringBodies",
    "Camera",
    "ControlClass",
    "DroneClass",
    "Gimbals",
    "LiftingSurface",
    "LiftingSurfaces",
    "ModalDrone",
    "Motors",
    "Sensors",
    "WindFieldClass",
]
