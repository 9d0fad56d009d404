"""Where a sweep's table goes: the path checked and tried before flying, and flown results
kept when the path fails afterwards (saved elsewhere, printed, or, for a sweep stopped
early, the rows of the points that finished)."""

import csv
import errno
import io
import os
import shutil
import sys
import tempfile
from pathlib import Path

import pytest

from pyflyt_like import cli
from pyflyt_like.missions import sweep_command, sweep_table
from pyflyt_like.missions.sweep import (
    SweepError,
    SweepParameter,
    SweepTypeError,
    run_sweep,
    sweep_columns,
)
from pyflyt_like.missions.sweep_table import (
    NAME_MAX,
    TEMPORARY_EXTRA,
    check_table_path,
    claim_table_path,
    fallback_paths,
    path_text,
    save_table,
)

from .test_sweep import HOP_YAML

FULL_DISK = os.strerror(errno.ENOSPC)
PARAMETERS = [SweepParameter.parse("speed=0.3,0.6")]
ROWS = [{"point": 0, "speed": 0.3, "seed": 0, "completed": True, "error": ""},
        {"point": 1, "speed": 0.6, "seed": 0, "completed": False, "error": ""}]


def table_of(path):
    with open(path, newline="", encoding="utf-8") as stream:
        return list(csv.reader(stream))


def expected_table(rows=ROWS):
    stream = io.StringIO(newline="")
    sweep_table.write_sweep_table(stream, rows, PARAMETERS)
    return list(csv.reader(io.StringIO(stream.getvalue(), newline="")))


# ------------------------------------------------------------------ checked before flying
@pytest.mark.parametrize("path", [
    "t.csv", "T.CSV", "a/b/c/t.csv", Path("t.csv"), "..csv", "x" * (NAME_MAX - TEMPORARY_EXTRA - 4)
    + ".csv", "d" * NAME_MAX + "/t.csv"])
def test_paths_that_can_take_the_table(path, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert check_table_path("--output", path) == Path(path)
    assert list(tmp_path.iterdir()) == []  # creates nothing


def test_the_check_refuses_a_folder_a_file_as_folder_and_a_wrong_type(tmp_path):
    (tmp_path / "d.csv").mkdir()
    (tmp_path / "file").write_text("")
    with pytest.raises(SweepError, match=r"--output is a folder; give the path of a \.csv"):
        check_table_path("--output", tmp_path / "d.csv")
    with pytest.raises(SweepError, match=r"--output: output folder .*file is a file, not a "
                                         "folder"):
        check_table_path("--output", tmp_path / "file" / "t.csv")
    with pytest.raises(SweepError, match=r"--output: output folder .* cannot be created: "
                                         r".*file is a file"):
        check_table_path("--output", tmp_path / "file" / "sub" / "t.csv")
    for bad in (b"t.csv", 5, None, ["t.csv"]):
        with pytest.raises(SweepTypeError, match="--output must be the path of a .csv file"):
            check_table_path("--output", bad)


def test_the_trial_write_creates_the_folders_and_leaves_no_file(tmp_path):
    table = tmp_path / "a" / "b" / "t.csv"
    claim_table_path("--output", table)
    assert table.parent.is_dir() and list(table.parent.iterdir()) == []


def test_the_trial_write_leaves_an_existing_table_untouched(tmp_path):
    table = tmp_path / "t.csv"
    table.write_text("point,seed\n0,0\n")
    claim_table_path("--output", table)
    assert table.read_text() == "point,seed\n0,0\n" and list(tmp_path.iterdir()) == [table]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc is Linux's")
def test_a_folder_where_no_file_can_be_created_fails_the_trial_even_for_root():
    # /proc passes every permission check for root, but no file can be created there.
    with pytest.raises(SweepError, match=r"--output: output folder /proc is not writable \("):
        check_table_path("--output", "/proc/t.csv")
    with pytest.raises(SweepError, match=r"--output: output folder /proc/new cannot be "
                                         r"created: /proc is not writable \("):
        check_table_path("--output", "/proc/new/t.csv")
    with pytest.raises(SweepError, match=r"--output /proc/t\.csv cannot be written: "):
        claim_table_path("--output", Path("/proc/t.csv"))


def test_a_failed_trial_removes_the_folders_it_created(tmp_path, monkeypatch):
    (tmp_path / "kept").mkdir()
    table = tmp_path / "kept" / "new" / "newer" / "t.csv"

    def full_disk(fd, data):
        raise OSError(errno.ENOSPC, FULL_DISK)

    monkeypatch.setattr(sweep_table.os, "write", full_disk)
    with pytest.raises(SweepError, match=f"--output .*t.csv cannot be written: {FULL_DISK}"):
        claim_table_path("--output", table)
    assert list(tmp_path.iterdir()) == [tmp_path / "kept"]
    assert list((tmp_path / "kept").iterdir()) == []


def test_path_text_escapes_undecodable_bytes_and_cuts_long_paths():
    assert path_text(os.fsdecode(b"out/\xff.csv")) == "out/\\udcff.csv"
    long = "/".join(["d" * 50] * 10) + "/t.csv"
    shown = path_text(long)
    assert len(shown) == 120 and shown.startswith("ddd") and shown.endswith("/t.csv")
    assert "..." in shown


# ------------------------------------------------------------------ saved after flying
def test_the_table_goes_where_asked(tmp_path):
    saved = save_table(ROWS, PARAMETERS, tmp_path / "t.csv")
    assert saved == sweep_table.SavedTable(tmp_path / "t.csv")
    assert table_of(saved.path) == expected_table()


def test_a_folder_removed_during_the_sweep_is_made_again(tmp_path):
    claim_table_path("--output", tmp_path / "out" / "t.csv")
    shutil.rmtree(tmp_path / "out")
    saved = save_table(ROWS, PARAMETERS, tmp_path / "out" / "t.csv")
    assert saved.failure is None and table_of(tmp_path / "out" / "t.csv") == expected_table()


def test_a_folder_replaced_by_a_file_sends_the_table_to_the_current_folder(tmp_path,
                                                                           monkeypatch):
    monkeypatch.chdir(tmp_path)
    claim_table_path("--output", tmp_path / "out" / "t.csv")
    shutil.rmtree(tmp_path / "out")
    (tmp_path / "out").write_text("not a folder")
    saved = save_table(ROWS, PARAMETERS, tmp_path / "out" / "t.csv")
    assert "is a file, not a folder" in saved.failure
    assert saved.path.parent == tmp_path and saved.path.name.startswith("t_")
    assert table_of(saved.path) == expected_table()


def fail_for(*folders):
    """A write_sweep_csv whose writes into ``folders`` fail as on a full disk."""
    write = sweep_table.write_sweep_csv

    def failing(rows, parameters, path):
        if Path(path).parent in folders:
            raise OSError(errno.ENOSPC, FULL_DISK)
        return write(rows, parameters, path)

    return failing


def test_a_full_disk_sends_the_table_to_the_current_then_the_temporary_folder(
        tmp_path, monkeypatch):
    (tmp_path / "out").mkdir()
    (tmp_path / "cwd").mkdir()
    (tmp_path / "tmp").mkdir()
    monkeypatch.chdir(tmp_path / "cwd")
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    monkeypatch.setattr(sweep_table, "write_sweep_csv", fail_for(tmp_path / "out"))
    saved = save_table(ROWS, PARAMETERS, tmp_path / "out" / "t.csv")
    assert saved.failure == FULL_DISK and saved.path.parent == tmp_path / "cwd"
    assert table_of(saved.path) == expected_table()
    monkeypatch.setattr(sweep_table, "write_sweep_csv",
                        fail_for(tmp_path / "out", tmp_path / "cwd"))
    saved = save_table(ROWS, PARAMETERS, tmp_path / "out" / "t.csv")
    assert saved.path.parent == tmp_path / "tmp" and table_of(saved.path) == expected_table()
    monkeypatch.setattr(sweep_table, "write_sweep_csv",
                        fail_for(tmp_path / "out", tmp_path / "cwd", tmp_path / "tmp"))
    assert save_table(ROWS, PARAMETERS, tmp_path / "out" / "t.csv") == \
        sweep_table.SavedTable(None, FULL_DISK)
    assert list((tmp_path / "out").iterdir()) == []


def test_fallback_names_are_new_timestamped_files_with_a_short_stem(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    first = fallback_paths(Path("x" * 300 + ".csv"))[0]
    assert first.parent == tmp_path and len(first.name) == 80 + len("_YYYYmmdd-HHMMSS.csv")
    first.write_text("")
    second = fallback_paths(Path("x" * 300 + ".csv"))[0]
    assert second != first and second.name.endswith("-1.csv") and not second.exists()


def test_a_removed_current_folder_falls_back_to_the_temporary_folder(tmp_path, monkeypatch):
    gone = tmp_path / "gone"
    gone.mkdir()
    monkeypatch.chdir(gone)
    gone.rmdir()
    assert [p.parent for p in fallback_paths(Path("t.csv"))] == [Path(tempfile.gettempdir())]


# ------------------------------------------------------------------ the command
def sweep(*args):
    return cli.main(["sweep", *args])


@pytest.fixture
def mission(tmp_path):
    path = tmp_path / "hop.yaml"
    path.write_text(HOP_YAML)
    return path


def test_an_unwritable_output_is_found_before_flying(mission, tmp_path, capfd, monkeypatch):
    monkeypatch.setattr(sweep_command, "run_sweep", lambda *a, **k: pytest.fail("flew"))
    (tmp_path / "file").write_text("")
    assert sweep(str(mission), "--param", "speed=0.3", "--serial", "--output",
                 str(tmp_path / "file" / "t.csv")) == 2
    err = capfd.readouterr().err
    assert "is a file, not a folder" in err and len(err.splitlines()) == 1
    if sys.platform.startswith("linux"):
        assert sweep(str(mission), "--param", "speed=0.3", "--serial", "--output",
                     "/proc/t.csv") == 2
        err = capfd.readouterr().err
        assert ("--output: output folder /proc is not writable (" in err
                and len(err.splitlines()) == 1), err


def test_a_table_that_cannot_be_written_after_the_sweep_is_saved_in_the_current_folder(
        mission, tmp_path, capfd, monkeypatch):
    (tmp_path / "cwd").mkdir()
    monkeypatch.chdir(tmp_path / "cwd")
    output = tmp_path / "out" / "t.csv"
    monkeypatch.setattr(sweep_table, "write_sweep_csv", fail_for(output.parent))
    assert sweep(str(mission), "--param", "speed=0.3,0.6", "--serial", "--output",
                 str(output)) == 1
    captured = capfd.readouterr()
    last = captured.err.strip().splitlines()[-1]
    saved = next((tmp_path / "cwd").iterdir())
    assert last == (f"pyflyt-like sweep: error: cannot write the table to {output} "
                    f"({FULL_DISK}); saved it to {saved} instead")
    assert [row[1] for row in table_of(saved)] == ["speed", "0.3", "0.6"]
    assert "Traceback" not in captured.err and not output.exists()


def test_a_table_that_cannot_be_written_anywhere_is_printed(mission, tmp_path, capfd,
                                                             monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sweep_table, "write_sweep_csv", lambda *args: (_ for _ in ()).throw(
        OSError(errno.EROFS, os.strerror(errno.EROFS))))
    assert sweep(str(mission), "--param", "speed=0.3,0.6", "--serial", "--output",
                 str(tmp_path / "t.csv")) == 1
    captured = capfd.readouterr()
    assert captured.err.strip().splitlines()[-1].endswith(
        f"({os.strerror(errno.EROFS)}), nor to a file in the current or the temporary "
        "folder: it is printed on stdout")
    printed = captured.out[captured.out.index("point,speed,seed"):]
    assert [row[:2] for row in csv.reader(io.StringIO(printed))] == [
        ["point", "speed"], ["0", "0.3"], ["1", "0.6"]]


def test_a_folder_removed_during_the_sweep_still_gets_the_table(mission, tmp_path, capfd,
                                                                 monkeypatch):
    output = tmp_path / "out" / "t.csv"

    def fly_then_remove(*args, **kwargs):
        rows = run_sweep(*args, **kwargs)
        shutil.rmtree(output.parent)
        return rows

    monkeypatch.setattr(sweep_command, "run_sweep", fly_then_remove)
    assert sweep(str(mission), "--param", "speed=0.3", "--serial", "--output",
                 str(output)) == 0
    assert f"wrote {output}" in capfd.readouterr().out
    assert [row[1] for row in table_of(output)] == ["speed", "0.3"]


@pytest.mark.parametrize("stop, code, last", [
    (KeyboardInterrupt(), 130, "pyflyt-like sweep: interrupted"),
    (ConnectionError("the Ray cluster went away"), 1,
     "pyflyt-like sweep: error: ConnectionError: the Ray cluster went away"),
])
def test_a_sweep_stopped_early_writes_the_points_that_finished(mission, tmp_path, capfd,
                                                               monkeypatch, stop, code, last):
    output = tmp_path / "t.csv"

    def one_point_then_stop(points, address, serial, on_point):
        run_sweep(points[:1], serial=True, on_point=on_point)
        raise stop

    monkeypatch.setattr(sweep_command, "run_sweep", one_point_then_stop)
    assert sweep(str(mission), "--param", "speed=0.3,0.6,0.9", "--serial", "--output",
                 str(output)) == code
    err = capfd.readouterr().err.strip().splitlines()
    assert err[-2:] == [f"the sweep stopped after 1 of 3 points; their rows are in {output}",
                        last]
    assert [row[:2] for row in table_of(output)] == [["point", "speed"], ["0", "0.3"]]


def test_a_sweep_stopped_before_any_point_finished_writes_nothing(mission, tmp_path,
                                                                  monkeypatch):
    def stop(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(sweep_command, "run_sweep", stop)
    assert sweep(str(mission), "--param", "speed=0.3", "--serial", "--output",
                 str(tmp_path / "t.csv")) == 130
    assert not (tmp_path / "t.csv").exists()


def test_a_closed_progress_stream_does_not_lose_the_table(mission, tmp_path):
    args = cli.build_parser().parse_args(["sweep", str(mission), "--param", "speed=0.3,0.6",
                                          "--serial", "--output", str(tmp_path / "t.csv")])
    out, err = io.StringIO(), io.StringIO()
    err.close()  # as a pipe whose reader has gone
    assert sweep_command.run(args, cli.UsageError, cli.CommandError, out, err) == 0
    assert len(table_of(tmp_path / "t.csv")) == 3 and "wrote" in out.getvalue()


def test_an_undecodable_mission_file_name_is_escaped_in_the_table(tmp_path, capfd):
    mission = tmp_path / os.fsdecode(b"hop-\xff.yaml")
    try:
        mission.write_text(HOP_YAML)
    except (OSError, UnicodeError):
        pytest.skip("this file system refuses undecodable file names")
    output = tmp_path / "t.csv"
    # duration_limit 0.5 s is too short to fly: the point's error names the mission file.
    assert sweep(str(mission), "--param", "duration_limit=20,0.5", "--serial", "--output",
                 str(output)) == 1
    assert "hop-\\udcff.yaml" in capfd.readouterr().err
    table = table_of(output)
    assert table[0] == sweep_columns([SweepParameter.parse("duration_limit=1")])
    assert "hop-\\udcff.yaml" in table[2][-1] and table[1][-1] == ""

