"""The documentation gallery: every example mission flown for real, its plots, a few GIFs.

For each file in ``examples/missions/`` this flies the mission headless (seed 0) and keeps
the report's path and error plots; for the missions in ``ANIMATED`` a chase camera follows
the first vehicle and its frames become a short animated GIF (rendering frames is what
costs, so only a few are animated). mkdocs builds the page through
``scripts/mkdocs_hooks.py``; run this file to write it to a folder instead::

    python scripts/gallery.py OUT_DIR
"""

from __future__ import annotations

import io
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from PIL import Image

from pyflyt_like.missions import Mission, format_summary_table, write_plots
from pyflyt_like.missions.runner import fly_mission
from pyflyt_like.missions.video import VIDEO_FPS

MISSIONS_DIR = Path(__file__).resolve().parents[1] / "examples" / "missions"
GIF_FPS = 10  # frames per second of flight shown (of the recorder's VIDEO_FPS); plays in real time
GIF_WIDTH = 240  # px
GIF_MAX_FRAMES = 80  # long missions are sampled more sparsely to stay under this
ANIMATED = ("figure_eight", "fixedwing_circuit")  # mission file stems that get a GIF
PLOTS = ("path_3d.png", "position_error.png")


@dataclass
class GalleryEntry:
    name: str  # the mission file's stem
    title: str
    table: str
    images: dict[str, bytes] = field(default_factory=dict)  # file name -> PNG/GIF bytes


def animated_gif(frames: list[np.ndarray], fps: float) -> bytes:
    """GIF bytes of RGB ``frames`` (h, w, 3) uint8 taken at ``fps``, resampled to at most
    ``GIF_FPS`` and ``GIF_MAX_FRAMES`` frames, scaled to ``GIF_WIDTH``, looping, real time."""
    stride = max(1, round(fps / GIF_FPS), -(-len(frames) // GIF_MAX_FRAMES))
    images = []
    for frame in frames[::stride]:
        image = Image.fromarray(frame)
        height = round(image.height * GIF_WIDTH / image.width)
        images.append(image.resize((GIF_WIDTH, height), Image.Resampling.LANCZOS)
                      .convert("P", palette=Image.Palette.ADAPTIVE))
    buffer = io.BytesIO()
    images[0].save(buffer, format="GIF", save_all=True, append_images=images[1:],
                   duration=round(1000 * stride / fps), loop=0)
    return buffer.getvalue()


def gallery_entry(path: Path) -> GalleryEntry:
    """Fly the mission at ``path`` and collect its table, plots and GIF."""
    mission = Mission.from_yaml(path)
    animated = path.stem in ANIMATED
    flight = fly_mission(mission, seed=0, record_video=animated)  # chase cam, first vehicle
    result = flight.result
    entry = GalleryEntry(path.stem, mission.name, format_summary_table(result.summary()))
    with tempfile.TemporaryDirectory() as folder:
        waypoints = [np.array([w.position for w in spec.waypoints])
                     for spec in mission.vehicles]
        for written in write_plots(result.logs, folder, waypoints=waypoints):
            if written.name in PLOTS:
                entry.images[f"{path.stem}_{written.name}"] = written.read_bytes()
    if animated:
        entry.images[f"{path.stem}.gif"] = animated_gif(flight.recorder.frames, VIDEO_FPS)
    return entry


def gallery_markdown(entries: list[GalleryEntry]) -> str:
    lines = ["# Gallery", "",
             "Every example mission in `examples/missions/`, flown headless with seed 0 when "
             "this site was built (`scripts/gallery.py`): the summary table `pyflyt-like fly` "
             "prints, the flown and reference paths, the tracking error, and for two of them "
             "the chase camera on the first vehicle. "
             "`pyflyt-like fly examples/missions/<name>.yaml` flies the same.", ""]
    for entry in entries:
        heading = entry.name if entry.title == entry.name else f"{entry.name}: {entry.title}"
        lines += [f"## {heading}", ""]
        if f"{entry.name}.gif" in entry.images:
            lines += [f"![{entry.name} chase camera]({entry.name}.gif)", ""]
        lines += ["```text", entry.table.rstrip(), "```", ""]
        lines += [f"![{name}]({name})" for name in entry.images if name.endswith(".png")]
        lines.append("")
    return "\n".join(lines)


def all_entries() -> list[GalleryEntry]:
    return [gallery_entry(path) for path in sorted(MISSIONS_DIR.glob("*.yaml"))]


def main(out_dir: str) -> None:
    folder = Path(out_dir)
    folder.mkdir(parents=True, exist_ok=True)
    entries = all_entries()
    (folder / "gallery.md").write_text(gallery_markdown(entries), encoding="utf-8")
    for entry in entries:
        for name, data in entry.images.items():
            (folder / name).write_bytes(data)
    print(folder / "gallery.md")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: python scripts/gallery.py OUT_DIR")
    main(sys.argv[1])
