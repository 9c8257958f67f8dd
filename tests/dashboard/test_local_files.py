"""The Streamlit-free side of "Your files" (issue 41): folders listed in natural order, each
file once, the qrels never a run; what changed between listings; two files of one stem
both kept; a file read again only when its (size, mtime_ns) changes; the command line's
checks of bad paths, in its words."""
from __future__ import annotations

import os

import pytest

from tiedrank.app_files import FILES_ENV, FilesManifest, files_manifest
from tiedrank.cli.dashboard import check_paths, split_streamlit_flags
from tiedrank.dashboard import local_files
from tiedrank.dashboard.local_files import Watch, change_notes, load
from tiedrank.io.folders import is_run_file, list_runs, natural_key, run_name

QRELS = b"q1 0 d1 1\nq1 0 d2 0\n"
RUN = b"q1 Q0 d1 1 0.5 t\nq1 Q0 d2 2 0.5 t\n"


def _folder(tmp_path, names):
    folder = tmp_path / "runs"
    folder.mkdir(exist_ok=True)
    for name in names:
        (folder / name).write_bytes(RUN)
    return folder


def test_a_folder_is_its_run_files_in_natural_order(tmp_path):
    folder = _folder(tmp_path, ["alpha10.run", "alpha2.run", "Alpha3.txt.gz", ".hidden",
                                "notes.md", "x.run~", "draft.part"])
    found, problems = list_runs([folder])
    assert [p.name for p in found] == ["alpha2.run", "Alpha3.txt.gz", "alpha10.run"]
    assert problems == []
    assert sorted(["ckpt_12000", "ckpt_900", "ckpt_1000"], key=natural_key) == [
        "ckpt_900", "ckpt_1000", "ckpt_12000"]
    assert [run_name(p.name) for p in found] == ["alpha2", "Alpha3", "alpha10"]
    assert not is_run_file(folder)


def test_each_file_once_and_the_qrels_never_a_run(tmp_path):
    folder = _folder(tmp_path, ["a.run", "b.run"])
    qrels = folder / "qrels.txt"
    qrels.write_bytes(QRELS)
    found, _ = list_runs([folder / "b.run", folder, str(folder / "b.run"), folder / ".." / "runs"],
                         qrels)
    assert [p.name for p in found] == ["b.run", "a.run"]


def test_problems_name_the_last_part_never_the_whole_path(tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    found, problems = list_runs([empty, tmp_path / "gone.run"])
    assert found == [] and problems == ["the folder empty holds no run file", "gone.run is not there"]
    assert not any(str(tmp_path) in p for p in problems)


def test_change_notes_and_the_watch_say_each_change_once():
    assert change_notes({"a": (1, 1), "b": (1, 1)}, {"a": (1, 2), "gamma": (3, 3)}) == [
        "gamma added", "a changed", "b removed"]
    watch = Watch()
    first = watch.see({"a": (1, 1)}, "m")
    assert first == 0 and watch.notes_since(0) == []
    watch.see({"a": (1, 1), "b": (2, 2)}, "m")
    assert watch.notes_since(first) == ["b added"] and watch.notes_since(watch.serial) == []
    watch.see({"z": (1, 1)}, "another manifest")  # another server's files: no notes
    assert watch.notes_since(watch.serial) == []


def _manifest(tmp_path, *paths):
    (tmp_path / "qrels.txt").write_bytes(QRELS)
    return FilesManifest(str(tmp_path / "qrels.txt"), tuple(str(p) for p in paths))


def test_load_names_runs_by_stem_made_unique_and_reads_a_file_once_per_change(tmp_path, monkeypatch):
    folder = _folder(tmp_path, ["m-epoch1.run"])
    other = tmp_path / "other"
    other.mkdir()
    (other / "m-epoch1.txt").write_bytes(RUN)
    reads = []
    real = local_files._read
    monkeypatch.setattr(local_files, "_read", lambda p, k, r: reads.append(p.name) or real(p, k, r))
    manifest = _manifest(tmp_path, folder, other)
    data = load(manifest, Watch())
    assert list(data.runs) == ["m-epoch1", "m-epoch1 (2)"] and data.errors == []
    assert data.label == "Your files: 2 runs (m-epoch1, m-epoch1 (2))"
    load(manifest, Watch())
    assert sorted(reads) == ["m-epoch1.run", "m-epoch1.txt", "qrels.txt"]  # not again
    (folder / "m-epoch1.run").write_bytes(RUN + b"q1 Q0 d3 3 0.1 t\n")
    os.utime(folder / "m-epoch1.run", ns=(1, 1))
    assert len(load(manifest, Watch()).runs["m-epoch1"]) == 3
    assert reads.count("m-epoch1.run") == 2


def test_an_unreadable_or_vanished_file_is_one_message_and_the_others_stay(tmp_path):
    folder = _folder(tmp_path, ["good.run"])
    (folder / "bad.run").write_bytes(b"q1 Q0 d1 1 high t\n")
    data = load(_manifest(tmp_path, folder, tmp_path / "gone.run"), Watch())
    assert list(data.runs) == ["good"] and data.left_out == ["bad"]
    assert any("bad.run" in e for e in data.errors) and "Gone.run is not there." in data.errors
    assert not any(str(tmp_path) in e for e in data.errors)
    assert data.notes([]) == ["Every page shows the other runs, without **bad** (see the message above)."]


def test_the_manifest_travels_in_the_environment(tmp_path, monkeypatch):
    manifest = _manifest(tmp_path, tmp_path)
    monkeypatch.setenv(FILES_ENV, manifest.to_json())
    assert files_manifest() == manifest == local_files.manifest()
    monkeypatch.setenv(FILES_ENV, "{not json")
    assert files_manifest() is None


@pytest.mark.parametrize("case, expected", [
    ("missing qrels", "the qrels file {tmp}/nope.txt is not there"),
    ("swapped", "is a TREC run and"),
    ("no run", "no run file to show"),
])
def test_the_command_line_refuses_what_it_cannot_serve(tmp_path, case, expected):
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    trec = os.path.join(root, "sample_data", "trec_eval")
    empty = tmp_path / "empty"
    empty.mkdir()
    qrels, runs = {"missing qrels": (f"{tmp_path}/nope.txt", [trec]),
                   "swapped": (f"{trec}/results.test", [f"{trec}/qrels.test"]),
                   "no run": (f"{trec}/qrels.test", [str(empty), f"{tmp_path}/gone"])}[case]
    errors, warnings = check_paths(qrels, runs)
    assert len(errors) == 1 and expected.format(tmp=tmp_path) in errors[0]
    if case == "no run":
        assert warnings == [f"{tmp_path}/gone: no such file or folder (left out)",
                            "the folder empty holds no run file (left out)"]


def test_streamlit_flags_are_taken_out_before_the_paths_are_read():
    assert split_streamlit_flags(["--server.port", "8502", "q", "--theme.base=dark", "r", "-l", "2"]) == (
        ["q", "r", "-l", "2"], ["--server.port", "8502", "--theme.base=dark"])


def test_a_file_past_the_command_lines_input_limit_is_one_message(tmp_path):
    from tiedrank.io import input_limits

    folder = _folder(tmp_path, ["small.run"])
    (folder / "huge.run").write_bytes(RUN * 2000)
    manifest = _manifest(tmp_path, folder)
    manifest = FilesManifest(manifest.qrels, manifest.paths, {}, {"max_bytes": 4096})
    before = input_limits()
    data = load(manifest, Watch())
    assert list(data.runs) == ["small"]
    assert any("huge.run" in e and "larger than the input limit" in e for e in data.errors)
    assert input_limits() == before  # the limit is the served files', not the process's


def test_an_empty_file_waits_until_it_holds_a_run(tmp_path):
    folder = _folder(tmp_path, ["ckpt_1.run"])
    (folder / "ckpt_2.run").write_bytes(b"")
    watch = Watch()
    manifest = _manifest(tmp_path, folder)
    seen = watch.serial
    data = load(manifest, watch)
    assert list(data.runs) == ["ckpt_1"] and data.errors == []
    (folder / "ckpt_2.run").write_bytes(RUN)
    assert list(load(manifest, watch).runs) == ["ckpt_1", "ckpt_2"]
    assert watch.notes_since(seen) == ["ckpt_2 added"]
