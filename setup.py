"""One build step that pyproject.toml cannot declare: the dashboard goes into the wheel.

The repository keeps the dashboard at its top level (``app.py``, ``pages/``,
``.streamlit/config.toml``, ``sample_data/``: ``streamlit run app.py`` from a checkout). A
wheel installs packages only, so ``build_py`` copies those files into ``tiedrank/_app/`` of
the build, where ``tiedrank.app_files`` finds them once installed (``tiedrank dashboard``).
They stay in one place in git; the sdist carries them at its top level (MANIFEST.in), so a
wheel built from the sdist gets them the same way. An editable install copies nothing: it
runs from the checkout, whose top level is used as it is. Everything else is in pyproject.toml.
"""
from __future__ import annotations

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = Path(__file__).resolve().parent
APP_FILES = ("app.py", ".streamlit/config.toml")
APP_TREES = ("pages", "sample_data")
PACKAGED = Path("tiedrank", "_app")
SKIPPED = shutil.ignore_patterns("__pycache__", "*.pyc", ".*")


class BuildPyWithDashboard(build_py):
    """``build_py``, then the dashboard's files copied into ``tiedrank/_app/``."""

    def run(self) -> None:
        super().run()
        if self.editable_mode:
            return
        target = Path(self.build_lib) / PACKAGED
        missing = [name for name in (*APP_FILES, *APP_TREES) if not (HERE / name).exists()]
        if missing:
            raise FileNotFoundError(f"the dashboard's files {missing} are not in {HERE}: the "
                                    "wheel would have no dashboard (is MANIFEST.in complete?)")
        if target.exists():
            shutil.rmtree(target)  # a stale build/ must not keep files removed from git
        for name in APP_FILES:
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(HERE / name, target / name)
        for name in APP_TREES:
            shutil.copytree(HERE / name, target / name, ignore=SKIPPED)

    def get_outputs(self, include_bytecode: bool = True) -> list[str]:
        outputs = super().get_outputs(include_bytecode)
        target = Path(self.build_lib) / PACKAGED
        if not self.editable_mode and target.exists():
            outputs += [str(path) for path in sorted(target.rglob("*")) if path.is_file()]
        return outputs


if __name__ == "__main__":  # as setuptools' build backend runs it; tests import the class
    setup(cmdclass={"build_py": BuildPyWithDashboard})
