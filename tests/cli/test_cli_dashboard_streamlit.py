"""``tiedrank dashboard`` hands Streamlit a command line Streamlit itself parses: the app's
entry point and every flag as the user typed it (the server is not started here)."""
from __future__ import annotations

from streamlit.web import cli as streamlit_cli

from tiedrank.app_files import APP_SCRIPT
from tiedrank.cli import main


def test_streamlit_parses_the_passed_flags(monkeypatch):
    handed = []
    monkeypatch.setattr(streamlit_cli, "main", lambda args, prog_name: handed.append(args))
    assert main(["dashboard", "--server.port", "8502", "--theme.base=dark",
                 "--server.headless", "true", "--server.address", "0.0.0.0"]) == 0
    (args,) = handed
    assert args[:2] == ["run", str(APP_SCRIPT)] and APP_SCRIPT.is_file()
    context = streamlit_cli.main_run.make_context("run", args[1:])
    options = {k: v for k, v in context.params.items() if v not in (None, ())}
    assert options == {"target": str(APP_SCRIPT), "server_port": 8502, "theme_base": "dark",
                       "server_headless": True, "server_address": "0.0.0.0"}
