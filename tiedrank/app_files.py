"""Where the dashboard's files are: ``app.py``, ``pages/``, ``.streamlit/config.toml`` and
the bundled sample data.

The repository keeps them at its top level (``streamlit run app.py`` from a checkout). The
wheel carries a copy made by the build (``setup.py``, ``build_py``), in ``tiedrank/_app/``,
since a wheel installs packages only. So an installed package finds its packaged copy, and a
checkout (or an editable install of it, which has no copy) finds the top level: one source,
no copies in git. Nothing here imports Streamlit: the CLI (``tiedrank dashboard``) and the
dashboard's logic both read it.
"""
from __future__ import annotations

import os
from pathlib import Path

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
