"""Fly QuadX and the crazyflie21 multirotor on their EKF estimate along the figure-eight of
pyflyt_like.missions.estimate_flight (60 s, mode-7 setpoints) and draw truth vs estimate vs
reference into docs/assets/estimation/flight.png (written atomically); print the figures.

Two sensor sets: the issue's (BMI088, GNSS 0.5 m white, default barometer and magnetometer;
plotted) and every sensor's "default" preset (whose GNSS has a 2 m correlated error).

Run from the repository's root: ``python scripts/plot_estimation_flight.py``.
"""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np

from pyflyt_like.common.atomic_files import write_atomically
from pyflyt_like.estimation.reference_flight import DEFAULT_SENSORS, REAL_SENSORS
from pyflyt_like.missions.estimate_flight import fly_figure_eight

ROOT = Path(__file__).resolve().parent.parent
OUTPUT = ROOT / "docs" / "assets" / "estimation" / "flight.png"
SECONDS = 60.0


def _figures(flight: dict) -> str:
    return (f"tracking (truth vs reference) {flight['tracking']:.3f} m; EKF errors: position "
            f"{flight['position']:.3f} m, velocity {flight['velocity_rms']:.3f} m/s, attitude "
            f"{flight['attitude']:.2f} deg")


def main() -> None:
    try:
        import matplotlib
    except ImportError:
        raise ImportError("plot_estimation_flight.py needs matplotlib: pip install matplotlib"
                          ) from None
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    flights = {}
    for vehicle in ("quadx", "crazyflie21"):
        for name, sensors in (("issue", REAL_SENSORS), ("default", DEFAULT_SENSORS)):
            for source in ("estimate", "truth"):
                flight = fly_figure_eight(vehicle, SECONDS, sensors, state_source=source)
                print(f"{vehicle:12s} sensors={name:8s} state_source={source:8s} "
                      f"{_figures(flight)}")
                flights[vehicle, name, source] = flight

    figure, axes = plt.subplots(2, 2, figsize=(11, 8))
    for column, vehicle in enumerate(("quadx", "crazyflie21")):
        flight = flights[vehicle, "issue", "estimate"]
        ax = axes[0, column]
        ax.plot(flight["reference"][:, 0], flight["reference"][:, 1], "k--", lw=1,
                label="reference")
        ax.plot(flight["truth"][:, 0], flight["truth"][:, 1], "C0", lw=1, label="truth")
        ax.plot(flight["estimate"][:, 0], flight["estimate"][:, 1], "C1", lw=0.7,
                label="EKF estimate")
        ax.set(xlabel="x [m]", ylabel="y [m]", aspect="equal",
               title=f"{vehicle}: tracking {flight['tracking']:.2f} m RMS")
        ax.legend(loc="upper right", fontsize=8)
        ax = axes[1, column]
        t = flight["time"]
        ax.plot(t, np.linalg.norm(flight["truth"] - flight["reference"], axis=1), "C0",
                lw=0.8, label="truth - reference [m]")
        ax.plot(t, np.linalg.norm(flight["estimate"] - flight["truth"], axis=1), "C1",
                lw=0.8, label="estimate - truth [m]")
        ax.plot(t, np.degrees(flight["attitude_error"]), "C2", lw=0.6,
                label="attitude error [deg]")
        ax.set(xlabel="time [s]", title=f"{vehicle}: errors", ylim=(0.0, 1.5))
        ax.legend(fontsize=8)
    figure.suptitle("Flying on the EKF: figure-eight, BMI088 + GNSS 0.5 m + barometer + "
                    "magnetometer (seed 0)")
    figure.tight_layout()
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=90)
    plt.close(figure)
    write_atomically(OUTPUT, lambda f: f.write(buffer.getvalue()), binary=True)
    print(f"wrote {OUTPUT.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
