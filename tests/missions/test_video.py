"""A mission recorded to MP4 with the chase camera, headless."""


from pyflyt_like.missions.mission import Mission
from pyflyt_like.missions.runner import run_mission
from tests.extras import require_extra

imageio = require_extra("video", "imageio.v2")


def test_video_has_a_frame_per_thirtieth_of_a_second(tmp_path):
    mission = Mission.from_dict({
        "name": "hop", "vehicles": [{"name": "q", "type": "multirotor", "model": "cf2x",
                                     "start": {"position": [0, 0, 1]}, "speed": 1.0,
                                     "waypoints": [[0.6, 0, 1.2]]}]})
    path = tmp_path / "hop.mp4"
    result = run_mission(mission, video=path)
    assert path in result.files and path.stat().st_size > 1000
    reader = imageio.get_reader(path)
    frames = [frame for frame in reader]
    assert frames[0].shape == (360, 480, 3)
    assert abs(len(frames) - round(result.duration * 30)) <= 2
    assert frames[-1].std() > 5  # not blank
    assert not list(tmp_path.glob(".*partial*"))  # the staging file is gone
