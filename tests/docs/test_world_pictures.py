"""scripts/plot_worlds.py draws its pictures (on a tiny world, into a temporary folder), and
every image docs/worlds.md and docs/sensors.md show exists (and is of a modest size)."""

from __future__ import annotations

import re
import sys

import numpy as np
import pytest

from pyflyt_like.worlds import Box, Cylinder, Sphere, World

from .snippets import ROOT

sys.path.insert(0, str(ROOT / "scripts"))
import plot_worlds  # noqa: E402

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
PAGES = ("worlds.md", "sensors.md")
MAX_BYTES = 150_000  # the committed pictures' budget (docs/assets/worlds)
# Markdown images: ![alt](target) or ![alt](target "title"); links to other sites left out.
IMAGE = re.compile(r"!\[[^\]]*\]\(\s*([^)\s]+)")

# One primitive of each kind, a box raised off the floor (drawn lighter), all within 4 m.
TINY = World([Cylinder(x=2.0, y=0.5, radius=0.2, height=3.0),
              Box(center=(-2.0, 1.0, 1.0), half_extents=(0.5, 0.2, 1.0), yaw=0.4),
              Box(center=(0.0, -2.5, 2.5), half_extents=(0.3, 0.3, 0.3)),
              Sphere(center=(-1.5, -1.5, 1.5), radius=0.4)])


def _assert_png(path) -> None:
    data = path.read_bytes()
    assert data.startswith(PNG_SIGNATURE), f"{path} is not a PNG"
    assert len(data) > 1000, f"{path} is nearly empty ({len(data)} bytes)"


def test_top_view(tmp_path):
    path = plot_worlds.plot_top_view(TINY, tmp_path / "top.png", "tiny")
    assert path == tmp_path / "top.png"
    _assert_png(path)


def test_top_view_of_an_empty_world(tmp_path):
    _assert_png(plot_worlds.plot_top_view(World(), tmp_path / "empty.png", "empty"))


def test_lidar_scan_and_range_image(tmp_path):
    # the 64-beam default preset: the same code path as the VLP-16, a fraction of the rays
    paths = plot_worlds.plot_lidar(TINY, tmp_path / "top.png", tmp_path / "image.png",
                                   preset="default", position=(0.0, 0.0, 1.0))
    assert paths == (tmp_path / "top.png", tmp_path / "image.png")
    for path in paths:
        _assert_png(path)


def test_tof_image(tmp_path):
    _assert_png(plot_worlds.plot_tof(tmp_path / "tof.png"))


def test_camera_image(tmp_path):
    from PIL import Image

    path = plot_worlds.render_camera(TINY, tmp_path / "camera.png", size=(80, 60))
    _assert_png(path)
    with Image.open(path) as image:
        pixels = np.asarray(image.convert("RGB"))
    assert pixels.shape == (60, 80, 3)
    assert len(np.unique(pixels.reshape(-1, 3), axis=0)) > 10  # a scene, not a blank frame


def test_the_same_seed_draws_the_same_picture(tmp_path):
    first = plot_worlds.plot_top_view(TINY, tmp_path / "a.png", "tiny")
    second = plot_worlds.plot_top_view(TINY, tmp_path / "b.png", "tiny")
    assert first.read_bytes() == second.read_bytes()


@pytest.mark.parametrize("out, message", [
    ("file.png", r"--out .*file\.png is a file, not a folder"),
    ("file.png/sub", r"--out .*file\.png/sub cannot be created \(Not a directory\)"),
    # /proc passes os.access for root (who runs CI), yet nothing can be created there
    ("/proc/worlds", r"--out /proc/worlds cannot be created \("),
])
def test_out_must_be_a_folder_where_files_can_be_written(tmp_path, capsys, out, message):
    if out.startswith("/proc") and not sys.platform.startswith("linux"):
        pytest.skip("/proc is Linux's")
    (tmp_path / "file.png").write_bytes(b"")
    with pytest.raises(SystemExit) as caught:
        plot_worlds.main(["--out", str(tmp_path / out)])
    assert caught.value.code == 2
    assert re.search(f"error: {message}", capsys.readouterr().err)
    assert [p.name for p in tmp_path.iterdir()] == ["file.png"]  # nothing drawn


@pytest.mark.parametrize("page", PAGES)
def test_every_image_of_the_page_exists(page):
    text = (ROOT / "docs" / page).read_text(encoding="utf-8")
    targets = [t for t in IMAGE.findall(text) if "://" not in t]
    assert targets, f"docs/{page} shows no image"
    for target in targets:
        path = ROOT / "docs" / target
        assert path.is_file(), f"docs/{page} shows {target}, which does not exist"


def test_the_committed_pictures_are_small():
    pictures = sorted((ROOT / "docs" / "assets" / "worlds").glob("*.png"))
    assert pictures, "no pictures in docs/assets/worlds: run python scripts/plot_worlds.py"
    for path in pictures:
        _assert_png(path)
        assert path.stat().st_size < MAX_BYTES, f"{path.name} is over {MAX_BYTES} bytes"
