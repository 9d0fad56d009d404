"""Without the video extra, asking for a video is an ImportError naming the extra, raised
before anything flies; everything else of the missions still imports and works."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

HINT = 'pip install "pyflyt_like[video]"'

# Run in a fresh interpreter whose imports of imageio fail, as when it is not installed.
HIDE_IMAGEIO = """
import sys
for name in ("imageio", "imageio.v2", "imageio_ffmpeg"):
    sys.modules[name] = None  # "import name" now raises ImportError
"""


def run_without_imageio(code: str, tmp_path: Path) -> subprocess.CompletedProcess:
    script = HIDE_IMAGEIO + textwrap.dedent(code)
    return subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          cwd=Path(__file__).parents[2], timeout=120,
                          input=str(tmp_path))


def test_the_library_names_the_extra_and_flies_nothing(tmp_path):
    run = run_without_imageio("""
        from pathlib import Path
        from pyflyt_like.missions import runner, video
        from pyflyt_like.missions.mission import Mission

        folder = Path(sys.stdin.read())
        def forbidden(*args, **kwargs):
            raise AssertionError("flew")
        runner.build_aviary = forbidden
        mission = Mission.from_dict({"name": "hop", "vehicles": [
            {"type": "quadx", "waypoints": [[0.5, 0, 1]]}]})
        for attempt in (video.check_video_support,
                        lambda: video.check_video_path(folder / "clip.mp4"),
                        lambda: runner.run_mission(mission, output_dir=folder / "out",
                                                   video=folder / "clip.mp4")):
            try:
                attempt()
            except ImportError as error:
                print(error)
            else:
                print("no error")
        """, tmp_path)
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert len(lines) == 3 and all(HINT in line for line in lines), lines
    assert list(tmp_path.iterdir()) == []


def test_the_fly_command_exits_2_with_the_install_line(tmp_path):
    run = run_without_imageio("""
        from pyflyt_like.cli import main

        folder = sys.stdin.read()
        sys.exit(main(["fly", "--no-progress", "--output", folder + "/out",
                       "--video", folder + "/clip.mp4"]))
        """, tmp_path)
    assert run.returncode == 2, run.stderr
    assert run.stdout == ""
    assert run.stderr.strip().splitlines() == [
        f"pyflyt-like fly: error: recording video needs the video extra: {HINT}"]
    assert list(tmp_path.iterdir()) == []
