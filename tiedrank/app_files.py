"""Where the dashboard's files are: ``app.py``, ``pages/``, ``.streamlit/config.toml`` and
the bundled sample data.

The repository keeps them at its top level (``streamlit run app.py`` from a checkout). The
wheel carries a copy made by the build (``setup.py``, ``build_py``), in ``tiedrank/_app/``,
since a wheel installs packages only. So an installed package finds its packaged copy, and a
checkout (or an editable install of it, which has no copy) finds the top level: one source,
no copies in git. Nothing here imports Streamlit: the CLI (``tiedrank dashboard``) and the
dashboard's logic both read it.

It also holds the one contract between ``tiedrank dashboard QRELS RUN|DIR`` and the server
it starts: the files the server may read (:class:`FilesManifest`, in the environment
variable :data:`FILES_ENV`).

>>> files_manifest({FILES_ENV: FilesManifest("/d/q.txt", ("/d/runs",), {"k": 5}).to_json()})
FilesManifest(qrels='/d/q.txt', paths=('/d/runs',), start={'k': 5}, reading={})
"""
from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

_PACKAGE = Path(__file__).resolve().parent
PACKAGED_APP_DIR = _PACKAGE / "_app"
"""The build's copy of the dashboard and its data, inside an installed wheel."""
CHECKOUT_DIR = _PACKAGE.parent
"""The repository's top level, when the package is imported from a checkout."""

APP_DIR = PACKAGED_APP_DIR if (PACKAGED_APP_DIR / "app.py").is_file() else CHECKOUT_DIR
"""The folder of ``app.py``, ``pages/``, ``.streamlit/config.toml`` and ``sample_data/``."""
APP_SCRIPT = APP_DIR / "app.py"
"""The dashboard's entry point (what ``streamlit run`` is given)."""
SAMPLE_DIR = Path(os.environ.get("TIEDRANK_SAMPLE_DATA") or APP_DIR / "sample_data")
"""The bundled sample data (override with the environment variable ``TIEDRANK_SAMPLE_DATA``)."""

FILES_ENV = "TIEDRANK_FILES"
"""The environment variable that carries the :class:`FilesManifest` (JSON) to the server."""


@dataclass(frozen=True)
class FilesManifest:
    """The files ``tiedrank dashboard QRELS RUN|DIR`` serves, and nothing else: the qrels
    path, the run files and folders (absolute, each once), the view's starting settings
    (the sidebar's keys: ``rel_level``, ``gain``, ``k``, ``round``, ``complete``,
    ``query_set``) and the readers' options (``duplicates``, ``columns``,
    ``qrels_columns``, ``max_bytes``, ``max_ratio``)."""

    qrels: str
    paths: tuple[str, ...]
    start: Mapping[str, Any] = field(default_factory=dict)
    reading: Mapping[str, Any] = field(default_factory=dict)

    def to_json(self) -> str:
        return json.dumps({"qrels": self.qrels, "paths": list(self.paths),
                           "start": dict(self.start), "reading": dict(self.reading)})

    @classmethod
    def from_json(cls, text: str) -> FilesManifest:
        data = json.loads(text)
        return cls(str(data["qrels"]), tuple(str(p) for p in data["paths"]),
                   dict(data.get("start") or {}), dict(data.get("reading") or {}))


def files_manifest(environ: Mapping[str, str] = os.environ) -> FilesManifest | None:
    """The manifest in ``environ`` (:data:`FILES_ENV`), or ``None``: no files given (or a
    value that is not a manifest)."""
    text = environ.get(FILES_ENV)
    if not text:
        return None
    try:
        return FilesManifest.from_json(text)
    except (ValueError, KeyError, TypeError):
        return None


PARENT_ENV = "TIEDRANK_END_WITH_STDIN"
"""Set by :func:`tiedrank.show` for its child ``tiedrank dashboard``: the server ends when
its standard input closes (the parent's end of the pipe, closed when the parent exits, even
when it is killed)."""
CLEANUP_ENV = "TIEDRANK_REMOVE_AT_EXIT"
"""Set by :func:`tiedrank.show`: the temporary folder the child removes as it ends."""
