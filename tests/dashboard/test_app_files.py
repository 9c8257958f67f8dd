"""'Your files' (issue 41): the dataset of ``tiedrank dashboard QRELS RUN|DIR``, first in the
sidebar and chosen, its runs named by file stem; a file added, changed or removed shows at
the next rerun with a note; an unreadable file is named with its error while the other runs
stay; the link says ``dataset=files`` and no page shows a server path; a folder of
checkpoints draws its curve, and a new checkpoint is its next point."""
from __future__ import annotations

import shutil

import pytest
from apptest_support import assert_no_trouble, new_app, shown_table

from tiedrank.app_files import FILES_ENV, FilesManifest
from tiedrank.dashboard.datasets import BUNDLED

pytestmark = pytest.mark.usefixtures("navigation_pages")

QRELS = b"q1 0 d1 1\nq1 0 d2 0\nq1 0 d3 2\nq2 0 e1 1\nq2 0 e2 2\n"


def _run(tag: str, tie: bool = True) -> bytes:
    low = 0.5 if tie else 0.4
    return (f"q1 Q0 d1 1 0.5 {tag}\nq1 Q0 d2 2 {low} {tag}\nq1 Q0 d3 3 0.2 {tag}\n"
            f"q2 Q0 e1 1 0.9 {tag}\nq2 Q0 e2 2 0.9 {tag}\n").encode()


@pytest.fixture()
def served(tmp_path, monkeypatch):
    """A folder of runs and a qrels file, given to the server as the command line does."""
    folder = tmp_path / "runs"
    folder.mkdir()
    (tmp_path / "qrels.txt").write_bytes(QRELS)
    for name in ("alpha10.run", "alpha2.run"):
        (folder / name).write_bytes(_run("tagged-" + name))
    (folder / "README.md").write_text("not a run")
    single = tmp_path / "beta.txt"
    single.write_bytes(_run("b", tie=False))

    def serve(*paths, **start):
        manifest = FilesManifest(str(tmp_path / "qrels.txt"), tuple(str(p) for p in paths),
                                 start or {})
        monkeypatch.setenv(FILES_ENV, manifest.to_json())
        return new_app().run()

    serve.folder, serve.single, serve.tmp = folder, single, tmp_path
    return serve


def _runs_shown(at) -> list[str]:
    return shown_table(at.dataframe[0])["run"].drop_duplicates().tolist()


def _everything_shown(at) -> str:
    return "\n".join(str(e.value) for kind in ("markdown", "caption", "info", "error", "warning")
                     for e in getattr(at, kind))


def test_your_files_come_first_chosen_and_named_by_stem(served):
    at = served(served.folder, served.single, served.single, served.folder / "alpha2.run", k=5, rel_level=2)
    assert_no_trouble(at)
    dataset = at.radio(key="dataset")
    assert dataset.options[0] == "Your files" and dataset.value == "files"
    assert at.number_input(key="k").value == 5 and at.number_input(key="rel_level").value == 2
    # natural order in the folder, each file once (named twice, or inside a folder named too)
    assert _runs_shown(at) == ["alpha2", "alpha10", "beta"]
    assert at.query_params["dataset"] == "files"
    assert str(served.tmp) not in _everything_shown(at)


def test_a_file_added_changed_or_removed_shows_at_the_next_rerun(served):
    at = served(served.folder)
    assert _runs_shown(at) == ["alpha2", "alpha10"]
    (served.folder / "gamma.run").write_bytes(_run("g"))
    at.run()
    assert_no_trouble(at)
    assert _runs_shown(at) == ["alpha2", "alpha10", "gamma"]
    assert any("gamma added" in i.value for i in at.info)
    at.run()  # the note is said once
    assert not any("gamma added" in i.value for i in at.info)
    (served.folder / "alpha2.run").unlink()
    at.run()
    assert _runs_shown(at) == ["alpha10", "gamma"]
    assert any("alpha2 removed" in i.value for i in at.info)


def test_an_unreadable_file_is_named_while_the_other_runs_stay(served):
    (served.folder / "broken.run").write_bytes(b"q1 Q0 d1 1 notanumber x\n")
    at = served(served.folder)
    assert not at.exception
    assert _runs_shown(at) == ["alpha2", "alpha10"]
    assert any("broken.run" in e.value for e in at.error)
    assert any("without **broken**" in i.value for i in at.info)
    assert str(served.tmp) not in "\n".join(e.value for e in at.error)
    at.switch_page("pages/tie_structure.py").run()  # on every page
    assert any("broken.run" in e.value for e in at.error)


def test_two_files_of_one_stem_are_both_shown(served):
    other = served.tmp / "more"
    other.mkdir()
    shutil.copy(served.folder / "alpha2.run", other / "alpha2.run")
    at = served(served.folder, other)
    assert_no_trouble(at)
    assert _runs_shown(at) == ["alpha2", "alpha10", "alpha2 (2)"]


def test_the_other_datasets_stay_and_a_link_opens_your_files(served):
    at = served(served.folder)
    at.radio(key="dataset").set_value("trec_eval").run()
    assert_no_trouble(at)
    assert at.query_params["dataset"] == "trec_eval"
    again = new_app()
    again.query_params["dataset"] = "files"
    again.run()
    assert again.radio(key="dataset").value == "files"
    assert _runs_shown(again) == ["alpha2", "alpha10"]


def test_a_folder_of_checkpoints_draws_its_curve_and_grows(tmp_path, monkeypatch):
    source = BUNDLED["checkpoints"]
    folder = tmp_path / "ckpts"
    folder.mkdir()
    for relative in source.runs[:4]:
        shutil.copy(source.path(relative), folder / source.path(relative).name)
    manifest = FilesManifest(str(source.path(source.qrels)), (str(folder),))
    monkeypatch.setenv(FILES_ENV, manifest.to_json())
    at = new_app().run()
    at.switch_page("pages/checkpoints.py").run()
    assert_no_trouble(at)
    assert at.dataframe[0].value["step"].tolist() == [1.0, 2.0, 3.0, 4.0]
    shutil.copy(source.path(source.runs[4]), folder / source.path(source.runs[4]).name)
    at.run()
    assert_no_trouble(at)
    assert at.dataframe[0].value["run"].tolist()[-1] == "splade-epoch5"
    assert at.dataframe[0].value["step"].tolist() == [1.0, 2.0, 3.0, 4.0, 5.0]


def test_a_server_without_files_has_no_your_files(monkeypatch):
    monkeypatch.delenv(FILES_ENV, raising=False)
    at = new_app()
    at.query_params["dataset"] = "files"
    at.run()
    assert_no_trouble(at)
    assert "files" not in at.radio(key="dataset").options
    assert at.radio(key="dataset").value == "llmjudge"
