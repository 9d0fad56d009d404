"""Draw the pictures of docs/worlds.md and of the LiDAR section of docs/sensors.md, from real
worlds and real sensor readings (nothing drawn by hand), into docs/assets/worlds/:

- ``forest_seed3.png``, ``rooms_default.png``, ``clutter_default.png``, ``rooms_file.png``:
  top views of ``Forest(density=0.1, radius=(0.1, 0.3))`` seed 3, ``Rooms()`` seed 0,
  ``Clutter()`` seed 0 and the shipped world file ``rooms`` (its own seed): trunks and
  spheres as circles, boxes as rotated rectangles (pieces that do not stand on the floor,
  such as the lintels over doors, lighter and dashed), the world's spatial grid
  (``pack_layouts``) faintly, the origin marked;
- ``forest_camera.png``: PyBullet's camera (``getCameraImage``, the software renderer) behind
  and above a QuadX at (0, 0, 1.5 m) in that forest, spawned by
  ``Aviary(world=...)``;
- ``lidar_top.png`` and ``lidar_range_image.png``: the ``vlp16`` LiDAR's scan of a QuadX at
  (0, 0, 1.5 m) in that forest (``aviary.read_sensors(0)["lidar"]["ranges"]``, the scan of
  the reset state, aviary seed 0): its returns as points over the trunks in the top view,
  and as a range image (channels x beams, colour = range);
- ``tof_8x8.png``: the ``vl53l8cx`` 8x8 multizone ToF's reading of a yawed wall and a crate
  in front of a QuadX at (0, 0, 1 m): the scene from above with the zones' returns, and the
  8x8 ranges as an image seen from the sensor.

Everything is seeded, so a rerun writes the same pictures; each file is written atomically.
Run from the repository's root: ``python scripts/plot_worlds.py [--out DIR]`` (about 5 s;
half a minute more on a first run, which compiles the sensors' onboard step).
"""

from __future__ import annotations

import argparse
import io
import math
import sys
from collections.abc import Sequence
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # run as a script from anywhere: the repository's package

from pyflyt_like.common.atomic_files import (  # noqa: E402
    FileWriteError,
    prepare_output_folder,
    write_atomically,
)
from pyflyt_like.core import Aviary  # noqa: E402
from pyflyt_like.core.world_bodies import COLOURS  # noqa: E402
from pyflyt_like.sensors import lidar, resolve_sensor  # noqa: E402
from pyflyt_like.worlds import (  # noqa: E402
    Box,
    Clutter,
    Forest,
    Rooms,
    World,
    load_world,
    pack_layouts,
)

OUTPUT = ROOT / "docs" / "assets" / "worlds"
DPI = 110
FOREST = Forest(density=0.1, radius=(0.1, 0.3))
FOREST_SEED = 3
#: The shipped world file drawn (pyflyt_like/models/worlds/rooms.yaml, its own seed).
WORLD_FILE = "rooms"
DRONE_POSITION = (0.0, 0.0, 1.5)  # m, the QuadX of the camera image and of the LiDAR scan
#: A box whose bottom is higher than this [m] does not stand on the floor (a lintel, a
#: floating crate): drawn lighter, so that the doors under lintels show from above.
RAISED = 0.05
#: A LiDAR return lower than this [m] is the floor's (the VLP-16's range noise, 1.5 cm along a
#: beam at most 15 degrees down, moves a floor return by under 1 cm in height).
FLOOR_RETURN = 0.05
#: Rows of the range image as drawn (each channel's row repeated, see :func:`plot_lidar`).
IMAGE_ROWS = 256
CAMERA_SIZE = (640, 480)  # px, (width, height)
#: The ToF's scene: a yawed wall about 2 m ahead and a crate in front of its left half.
TOF_SCENE = World([Box(center=(2.2, 0.0, 1.5), half_extents=(0.1, 3.0, 1.5), yaw=0.35),
                   Box(center=(1.2, 0.35, 0.5), half_extents=(0.25, 0.25, 0.5), yaw=0.5)])
TOF_POSITION = (0.0, 0.0, 1.0)  # m


def _figure(size: tuple[float, float]):
    """A matplotlib Figure of ``size`` inches on its own Agg canvas (no pyplot state)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    figure = Figure(figsize=size, dpi=DPI, layout="constrained")
    FigureCanvasAgg(figure)
    return figure


def _save(figure, path: Path) -> Path:
    """Write ``figure`` as a PNG at :data:`DPI` to ``path``, atomically. No metadata (the
    matplotlib version would otherwise make a rerun's bytes differ across installs)."""
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=DPI, metadata={"Software": None})
    return write_atomically(path, lambda f: f.write(buffer.getvalue()), binary=True)


def _box_corners(row: np.ndarray) -> np.ndarray:
    """The (4, 2) footprint corners [m] of a box row (cx, cy, cz, hx, hy, hz, yaw)."""
    cx, cy, _, hx, hy, _, yaw = row
    local = np.array([[hx, hy], [-hx, hy], [-hx, -hy], [hx, -hy]])
    c, s = math.cos(yaw), math.sin(yaw)
    return local @ np.array([[c, s], [-s, c]]) + (cx, cy)  # rows rotated by +yaw


def draw_world(ax, world: World, grid: bool = True) -> None:
    """Draw ``world`` seen from above on the matplotlib axes ``ax`` (x east, y north [m]):
    cylinders and spheres as circles, boxes as their rotated footprints, pieces that do not
    stand on the floor lighter and dashed, and (``grid``) the cells of its
    :func:`~pyflyt_like.worlds.pack_layouts` grid faintly."""
    from matplotlib.collections import LineCollection, PatchCollection
    from matplotlib.patches import Circle, Polygon

    arrays = world.to_arrays()
    if grid and len(world):
        pool = pack_layouts([world])
        (x0, y0), (nx, ny), size = pool.origin[0], pool.cells[0], pool.cell_size
        xs, ys = x0 + size * np.arange(nx + 1), y0 + size * np.arange(ny + 1)
        lines = [[(x, ys[0]), (x, ys[-1])] for x in xs] + [[(xs[0], y), (xs[-1], y)] for y in ys]
        ax.add_collection(LineCollection(lines, colors="0.85", linewidths=0.4, zorder=0))
    standing, raised = [], []
    for x, y, radius, _ in arrays["cylinders"]:
        standing.append((Circle((x, y), radius), COLOURS["cylinders"]))
    for row in arrays["boxes"]:
        patch = Polygon(_box_corners(row), closed=True)
        (raised if row[2] - row[5] > RAISED else standing).append((patch, COLOURS["boxes"]))
    for cx, cy, cz, radius in arrays["spheres"]:
        patch = Circle((cx, cy), radius)
        (raised if cz - radius > RAISED else standing).append((patch, COLOURS["spheres"]))
    # raised pieces below (a lintel must not hide the wall beside its door), light and dashed
    for patches, alpha, style, z in ((raised, 0.35, "--", 1), (standing, 1.0, "-", 2)):
        if patches:
            ax.add_collection(PatchCollection(
                [p for p, _ in patches], facecolors=[c for _, c in patches], alpha=alpha,
                edgecolors="0.2", linewidths=0.4, linestyles=style, zorder=z))
    ax.plot(0.0, 0.0, "+", color="C3", ms=8, mew=1.5, zorder=5)
    if len(world):
        low, high = world.bounds()
        margin = 0.03 * max(high[0] - low[0], high[1] - low[1])
        ax.set_xlim(low[0] - margin, high[0] + margin)
        ax.set_ylim(low[1] - margin, high[1] + margin)
    ax.set(xlabel="x [m]", ylabel="y [m]", aspect="equal")


def plot_top_view(world: World, path: str | Path, title: str) -> Path:
    """Write the top view of ``world`` (see :func:`draw_world`) with ``title`` to ``path``
    (PNG). Returns the path."""
    figure = _figure((5.6, 5.6))
    ax = figure.add_subplot()
    draw_world(ax, world)
    counts = f"{len(world.cylinders)} cylinders, {len(world.boxes)} boxes, " \
             f"{len(world.spheres)} spheres"
    ax.set_title(f"{title}\n{counts}", fontsize=10)
    return _save(figure, Path(path))


def _aviary(world: World, position: Sequence[float], sensors: dict | None = None,
            seed: int = 0) -> Aviary:
    """A headless Aviary with one QuadX at ``position`` [m], level and facing +x, in
    ``world`` (a World: spawned as it is, never redrawn)."""
    options = {"sensors": sensors} if sensors else {}
    return Aviary(start_pos=np.array([position], dtype=float), start_orn=np.zeros((1, 3)),
                  drone_type="quadx", render=False, seed=seed, world=world,
                  drone_options=options)


def render_camera(world: World, path: str | Path,
                  position: Sequence[float] = DRONE_POSITION,
                  size: tuple[int, int] = CAMERA_SIZE) -> Path:
    """Write PyBullet's picture (``size`` = (width, height) px, 60 degree vertical field of
    view) of a QuadX at ``position`` [m] in ``world``, seen from 0.55 m behind and 0.25 m
    above it, looking ahead (+x) and a little down, to ``path`` (PNG). Returns the path."""
    from PIL import Image

    width, height = size
    with _aviary(world, position) as aviary:
        drone = np.asarray(position, dtype=float)
        eye = drone + (-0.55, -0.12, 0.25)
        target = drone + (3.0, 0.0, -0.6)
        view = aviary.computeViewMatrix(eye.tolist(), target.tolist(), [0.0, 0.0, 1.0])
        projection = aviary.computeProjectionMatrixFOV(60.0, width / height, 0.02, 80.0)
        _, _, rgba, _, _ = aviary.getCameraImage(width, height, view, projection,
                                                 renderer=aviary.ER_TINY_RENDERER)
    rgb = np.reshape(np.asarray(rgba, dtype=np.uint8), (height, width, 4))[:, :, :3]
    buffer = io.BytesIO()
    Image.fromarray(rgb).save(buffer, format="PNG", optimize=True)
    return write_atomically(Path(path), lambda f: f.write(buffer.getvalue()), binary=True)


def _scan(world: World, position: Sequence[float], preset: str, seed: int
          ) -> tuple[np.ndarray, np.ndarray, object]:
    """The LiDAR ``preset``'s scan of the reset state of a QuadX at ``position`` in
    ``world``: its ranges (channels, beams) [m], the returns' points (channels, beams, 3)
    in the world frame [m] (from the drone's pose and the beams' directions), and the
    LiDAR's parameters."""
    with _aviary(world, position, {"lidar": preset}, seed) as aviary:
        ranges = aviary.read_sensors(0)["lidar"]["ranges"]
        base, quaternion = aviary.getBasePositionAndOrientation(aviary.drones[0].Id)
        rotation = np.reshape(aviary.getMatrixFromQuaternion(quaternion), (3, 3))
        params = resolve_sensor("lidar", preset, aviary.physics_hz)
    origin = np.asarray(base) + rotation @ params.mounting_position
    points = origin + ranges[..., None] * (params.directions @ rotation.T)
    return ranges, points, params


def _edges(centres: np.ndarray) -> tuple[float, float]:
    """The outer edges [deg] of the pixels centred on the evenly spaced beam angles
    ``centres`` (ascending): half a spacing beyond the first and the last (1 degree wide
    for a single beam, which has no spacing)."""
    half = 0.5 * (centres[1] - centres[0]) if len(centres) > 1 else 0.5
    return float(centres[0] - half), float(centres[-1] + half)


def plot_lidar(world: World, top_path: str | Path, image_path: str | Path,
               preset: str = "vlp16", position: Sequence[float] = DRONE_POSITION,
               seed: int = 0, title: str = "") -> tuple[Path, Path]:
    """Write the LiDAR ``preset``'s scan of a QuadX at ``position`` [m] in ``world`` (the
    reading of the reset state, aviary ``seed``): its returns (ranges < ``max_range``) as
    points over the world's top view to ``top_path``, the floor's grey and the obstacles'
    coloured by height, and the ranges (channels x beams) as an image to ``image_path``.
    Returns both paths."""
    import matplotlib
    from matplotlib.colors import LogNorm
    from matplotlib.lines import Line2D

    ranges, points, params = _scan(world, position, preset, seed)
    hit = ranges < params.max_range
    floor = hit & (points[..., 2] < FLOOR_RETURN)
    obstacle = hit & ~floor
    figure = _figure((6.4, 5.6))
    ax = figure.add_subplot()
    draw_world(ax, world)
    ax.scatter(points[floor, 0], points[floor, 1], s=0.3, color="0.55", lw=0, zorder=3)
    dots = ax.scatter(points[obstacle, 0], points[obstacle, 1], s=0.6,
                      c=points[obstacle, 2], cmap="plasma", vmin=0.0,
                      vmax=max(1.0, float(points[obstacle, 2].max(initial=0.0))), lw=0,
                      zorder=4)
    figure.colorbar(dots, ax=ax, shrink=0.8, label="return height [m]")
    # the dots are too small for a legend's own markers: proxies of a readable size
    ax.legend(handles=[Line2D([], [], ls="", marker="o", ms=4, color="0.55",
                              label=f"floor ({floor.sum()})"),
                       Line2D([], [], ls="", marker="o", ms=4, color=dots.cmap(0.6),
                              label=f"obstacles ({obstacle.sum()})")],
              loc="upper right", fontsize=8, title="returns", title_fontsize=8,
              framealpha=0.9)
    channels, beams = ranges.shape
    ax.set_title(f"{title}{preset}: {channels} x {beams} beams, returns below "
                 f"{params.max_range:g} m", fontsize=10)
    top = _save(figure, Path(top_path))

    figure = _figure((10.0, 2.8))
    ax = figure.add_subplot()
    azimuths, elevations = lidar.beam_angles(params)
    right, left = _edges(azimuths)
    low, high = _edges(elevations)
    # Each channel's row repeated: the beams (1800 for the VLP-16) are more than the
    # pixels, so matplotlib smooths the image, and across 16 rows that would blur the
    # channels into one another; repeated rows keep the smoothing within a channel.
    rows = max(1, IMAGE_ROWS // channels)
    shown = np.ma.masked_where(np.repeat(~hit, rows, axis=0), np.repeat(ranges, rows, axis=0))
    cmap = matplotlib.colormaps["viridis"].with_extremes(bad="0.8")
    # azimuth +180 (behind, turning left) on the left: the drone's view, left on the left
    image = ax.imshow(shown, origin="lower", aspect="auto", interpolation="antialiased",
                      cmap=cmap, norm=LogNorm(vmin=max(params.min_range, 0.5),
                                              vmax=params.max_range),
                      extent=(left, right, low, high))
    figure.colorbar(image, ax=ax, pad=0.01, label="range [m]")
    ax.set(xlabel="azimuth [deg] (0: ahead, positive: left)", ylabel="elevation [deg]")
    if params.horizontal_fov_deg == 360.0:
        ax.set_xticks(np.arange(-180, 181, 45))
    ax.set_title(f"{title}{preset} range image: {channels} channels x {beams} beams "
                 "(grey: no return)", fontsize=10)
    return top, _save(figure, Path(image_path))


def plot_tof(path: str | Path, world: World = TOF_SCENE,
             position: Sequence[float] = TOF_POSITION, seed: int = 0) -> Path:
    """Write the ``vl53l8cx`` 8x8 ToF's reading of the reset state of a QuadX at
    ``position`` [m] in ``world`` (aviary ``seed``) to ``path``: the scene from above with
    the zones' returns, and the 8x8 ranges [m] as an image seen from the sensor (top up,
    left on the left), each zone's range written in it. Returns the path."""
    ranges, points, params = _scan(world, position, "vl53l8cx", seed)
    hit = ranges < params.max_range
    figure = _figure((9.0, 4.2))
    top, image_ax = figure.subplots(1, 2, width_ratios=(1.0, 1.15))
    draw_world(top, world, grid=False)
    top.plot(points[hit, 0], points[hit, 1], ".", color="C0", ms=3, label="zone returns")
    top.set(xlim=(-0.5, 3.0), ylim=(-1.75, 1.75), title="from above (+: the drone)")
    top.legend(loc="lower right", fontsize=8)
    # channel 0 is the lowest, beam 0 the rightmost: flip the beams for left on the left
    view = ranges[:, ::-1]
    image = image_ax.imshow(view, origin="lower", cmap="viridis_r", vmin=0.0,
                            vmax=params.max_range)
    for (i, j), value in np.ndenumerate(view):
        text = f"{value:.2f}" if value < params.max_range else "-"
        image_ax.text(j, i, text, ha="center", va="center", fontsize=7,
                      color="w" if value > 0.5 * params.max_range else "k")
    image_ax.set(xticks=[], yticks=[], title="vl53l8cx 8x8 ranges [m] ('-': no return)")
    figure.colorbar(image, ax=image_ax, label="range [m]")
    return _save(figure, Path(path))


def main(argv: Sequence[str] | None = None) -> list[Path]:
    """Draw every picture into ``--out`` (created if missing); returns the paths written."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=OUTPUT,
                        help="folder for the PNGs (default: docs/assets/worlds)")
    out = parser.parse_args(argv).out
    try:  # made, and proved writable, before anything is drawn
        prepare_output_folder(out, "--out")
    except FileWriteError as error:
        parser.exit(2, f"{parser.prog}: error: {error}\n")  # one line, as argparse's
    forest = FOREST.generate(seed=FOREST_SEED)
    forest_title = f"Forest(density=0.1, radius=(0.1, 0.3)), seed {FOREST_SEED}"
    written = [
        plot_top_view(forest, out / "forest_seed3.png", forest_title),
        plot_top_view(Rooms().generate(seed=0), out / "rooms_default.png",
                      "Rooms() (defaults), seed 0"),
        plot_top_view(Clutter().generate(seed=0), out / "clutter_default.png",
                      "Clutter() (defaults), seed 0"),
        plot_top_view(load_world(WORLD_FILE), out / "rooms_file.png",
                      f'load_world("{WORLD_FILE}") (the shipped file, its seed)'),
        render_camera(forest, out / "forest_camera.png"),
        *plot_lidar(forest, out / "lidar_top.png", out / "lidar_range_image.png",
                    title=f"forest seed {FOREST_SEED}, "),
        plot_tof(out / "tof_8x8.png"),
    ]
    for path in written:
        print(f"wrote {path} ({path.stat().st_size / 1000:.0f} kB)")
    return written


if __name__ == "__main__":
    main()
