"""Draw the estimators' estimate against the truth along the synthetic figure-eight of
pyflyt_like.estimation.reference_flight (BMI088 IMU, GNSS 0.5 m, default barometer and
magnetometer, seed 0, 90 s) into docs/assets/estimation/figure_eight.png, written
atomically.

Run from the repository's root: ``python scripts/plot_estimation.py``.
"""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np

from pyflyt_like.common.atomic_files import write_atomically
from pyflyt_like.estimation import ComplementaryFilter, ErrorStateEkf
from pyflyt_like.estimation.evaluation import attitude_errors, errors, run
from pyflyt_like.estimation.reference_flight import REAL_SENSORS, record

ROOT = Path(__file__).resolve().parent.parent
OUTPUT = ROOT / "docs" / "assets" / "estimation" / "figure_eight.png"


def main() -> None:
    try:
        import matplotlib
    except ImportError:
        raise ImportError("plot_estimation.py needs matplotlib: pip install matplotlib"
                          ) from None
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    truth, readings, suite = record(REAL_SENSORS, 90.0, seed=0)
    ekf = run(ErrorStateEkf.from_params(suite.params), readings)
    mahony = run(ComplementaryFilter.from_params(suite.params), readings)
    print("EKF", errors(truth, ekf, 10.0))
    print("complementary", errors(truth, mahony, 20.0))
    t = truth["time"]
    gnss = np.array([r["gnss"]["position"] for r in readings[::20]])

    figure, axes = plt.subplots(2, 2, figsize=(11, 8))
    ax = axes[0, 0]
    ax.plot(gnss[:, 0], gnss[:, 1], ".", ms=2, color="0.7", label="GNSS (10 Hz)")
    ax.plot(truth["position"][:, 0], truth["position"][:, 1], "k", lw=1, label="truth")
    ax.plot(ekf["position"][:, 0], ekf["position"][:, 1], "C0", lw=0.8, label="EKF")
    ax.set(xlabel="x [m]", ylabel="y [m]", title="path", aspect="equal")
    ax.legend(loc="upper right", fontsize=8)
    ax = axes[0, 1]
    ax.plot(t, np.linalg.norm(ekf["position"] - truth["position"], axis=1), "C0",
            lw=0.8, label="EKF position [m]")
    ax.plot(t, np.linalg.norm(ekf["velocity"] - truth["velocity"], axis=1), "C1",
            lw=0.8, label="EKF velocity [m/s]")
    ax.set(xlabel="time [s]", title="EKF errors", ylim=(0, 0.5))
    ax.legend(fontsize=8)
    ax = axes[1, 0]
    for name, est, colour in (("EKF", ekf, "C0"), ("complementary", mahony, "C2")):
        angle = np.degrees(attitude_errors(est["quaternion"], truth["quaternion"]))
        ax.plot(t, angle, colour, lw=0.8, label=name)
    ax.set(xlabel="time [s]", ylabel="attitude error [deg]", title="attitude errors",
           ylim=(0, 8))
    ax.legend(fontsize=8)
    ax = axes[1, 1]
    ax.plot(t, truth["position"][:, 2], "k", lw=1, label="truth")
    baro = np.array([r["baro"]["altitude"] for r in readings])
    ax.plot(t, baro, color="0.7", lw=0.5, label="barometer")
    ax.plot(t, ekf["position"][:, 2], "C0", lw=0.8, label="EKF")
    ax.set(xlabel="time [s]", ylabel="z [m]", title="height", ylim=(1.0, 3.0))
    ax.legend(fontsize=8)
    figure.suptitle("Figure-eight, BMI088 + GNSS 0.5 m + barometer + magnetometer (seed 0)")
    figure.tight_layout()
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=90)
    plt.close(figure)
    write_atomically(OUTPUT, lambda f: f.write(buffer.getvalue()), binary=True)
    print(f"wrote {OUTPUT.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
