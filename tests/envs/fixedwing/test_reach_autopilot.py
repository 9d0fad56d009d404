"""The mode-2 autopilot baseline of Fixedwing-Reach."""

from __future__ import annotations

import math
import runpy
import sys
from pathlib import Path

import numpy as np
import pytest

from pyflyt_like.envs.fixedwing.autopilot import autopilot_setpoint, evaluate_autopilot


def test_the_setpoint_steers_at_the_target_unless_it_is_close_behind():
    pos = np.array([0.0, 0.0, 50.0])
    ahead_left = np.array([100.0, 100.0, 70.0])
    np.testing.assert_allclose(autopilot_setpoint(pos, 0.0, ahead_left, 18.0, 40.0),
                               [math.pi / 4, 18.0, 0.0, 70.0])
    close_behind = np.array([-30.0, 5.0, 40.0])
    assert autopilot_setpoint(pos, 0.3, close_behind, 18.0, 40.0)[0] == pytest.approx(0.3)
    far_behind = np.array([-300.0, 0.0, 40.0])
    assert abs(autopilot_setpoint(pos, 0.3, far_behind, 18.0, 40.0)[0]) == pytest.approx(
        math.pi)


def test_the_autopilot_reaches_targets_and_stays_in_the_air():
    result = evaluate_autopilot(3, seed=10**6)
    assert result.shape == (3, 3)
    assert (result[:, 2] == 900).all()  # flew the full 30 s: no crash, never out
    assert result[:, 0].sum() >= 3
    with pytest.raises(ValueError, match="episodes"):
        evaluate_autopilot(0)


SCRIPT = Path(__file__).resolve().parents[3] / "scripts" / "evaluate_reach_autopilot.py"


def test_the_script_prints_the_autopilots_count(capsys, monkeypatch):
    monkeypatch.setattr(sys, "argv", [str(SCRIPT), "1", str(10**6)])
    runpy.run_path(str(SCRIPT), run_name="__main__")
    expected = evaluate_autopilot(1, seed=10**6)
    assert capsys.readouterr().out == (
        f"autopilot: {int(expected[:, 0].sum())} targets in 1 episodes "
        f"({expected[:, 0].mean():.2f} per episode), mean return {expected[:, 1].mean():.1f}\n")


def test_the_script_refuses_bad_counts_with_one_line(capsys, monkeypatch):
    monkeypatch.setattr(sys, "argv", [str(SCRIPT), "0"])
    with pytest.raises(SystemExit) as exit_info:
        runpy.run_path(str(SCRIPT), run_name="__main__")
    assert exit_info.value.code == 2
    assert "episodes must be at least 1" in capsys.readouterr().err
