"""The sidebar's uploads in session state: kept across drill-downs, and across reloads and
new tabs through the server-side store (:mod:`tiedrank.dashboard.upload_store`).

Streamlit glue, like :mod:`tiedrank.dashboard.ui` (which re-exports these names for
app.py and the pages). Three ways the sidebar can lose the files it read, and what brings
them back:

* a drill-down (``ui.drill_down``: ``st.switch_page``) empties the upload widgets: the
  sidebar keeps using the files it read last (:data:`KEPT_UPLOADS_KEY`) until the user
  uploads again;
* a reload, or the link opened in another tab, is a new session: the link's
  ``upload_key=<key>`` (:data:`UPLOAD_KEY` in session state, written by app.py) names the
  set in the store, which :func:`restore_linked_uploads` brings back with its column
  mapping and duplicates choice;
* the user picks another dataset, then "Upload your own" again: the upload widgets were
  emptied while the sidebar hid them, so :func:`restore_session_uploads` brings the set
  back from the store by the key this session kept (:data:`UPLOAD_KEY`), as a link does;
* the key is unknown (expired, evicted, another server): :func:`gone_message` says so and
  the sidebar shows the upload controls.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import streamlit as st

from tiedrank.dashboard import settings as sidebar
from tiedrank.dashboard.datasets import SESSION, UPLOAD, content_hash
from tiedrank.dashboard.recipes import SIM_PARAM
from tiedrank.dashboard.upload_store import STORE, KeptFile, KeptUploads

LINKED_DATA_KEY = "_tiedrank_linked_data"
"""session_state key: app.py sets it when the link that opened the session names uploaded or
simulated data (``?dataset=upload``/``session``), which a new session does not have until
it is restored (uploads, from the store) or made again."""
MY_RUNS_KEY = "tiedrank_my_runs"
"""session_state key of "my runs": the :class:`tiedrank.dashboard.my_runs.RunSet` the user made on
the Simulator page (the sidebar's "Simulated in this session" dataset)."""
RECIPE_ERROR_KEY = "_tiedrank_recipe_error"
"""session_state key: why the Simulator settings of the link that opened the session could
not make its runs again (:mod:`tiedrank.dashboard.recipes`)."""
UPLOAD_KEY = "upload_key"
"""session_state key of the current uploads' key in the store (the link's ``upload_key=``,
formerly ``data=``)."""
KEPT_UPLOADS_KEY = "_tiedrank_kept_uploads"
"""session_state key: the last uploads the sidebar read ((qrels, runs, queries) files), so a
drill-down keeps them (see :data:`DRILLED_KEY`)."""
UPLOADS_RESTORED_KEY = "_tiedrank_uploads_restored"
"""session_state key: set while the sidebar uses :data:`KEPT_UPLOADS_KEY` because a
drill-down emptied the upload widgets, or a link restored the files from the store."""
DRILLED_KEY = "_tiedrank_drilled"
"""session_state key: set by a drill-down (``ui.drill_down``, ``ui.back_link``), whose page
switch empties the upload widgets: the sidebar keeps the files it read last."""

UploadedLike = Any  # streamlit UploadedFile or upload_store.KeptFile: .name, .file_id, .getvalue()


def effective_uploads() -> tuple[Any, list, Any, bool]:
    """(qrels file, run files, queries file, restored) the sidebar reads: the upload widgets'
    files, or after a drill-down emptied them or a link restored them, the files kept
    (``restored``)."""
    qrels = st.session_state.get("upload_qrels")
    runs = list(st.session_state.get("upload_runs") or [])
    queries = st.session_state.get("upload_queries")
    drilled = st.session_state.pop(DRILLED_KEY, False)
    kept = st.session_state.get(KEPT_UPLOADS_KEY)
    if qrels is not None or runs or queries is not None:
        st.session_state.pop(UPLOADS_RESTORED_KEY, None)
        st.session_state.pop(LINKED_DATA_KEY, None)  # the user uploaded: the link is answered
        st.session_state[KEPT_UPLOADS_KEY] = (qrels, runs, queries)
        return qrels, runs, queries, False
    if kept is not None and (drilled or st.session_state.get(UPLOADS_RESTORED_KEY)):
        st.session_state[UPLOADS_RESTORED_KEY] = True
        return kept[0], list(kept[1]), kept[2], True
    st.session_state.pop(KEPT_UPLOADS_KEY, None)  # the user removed the files
    if st.session_state.get(LINKED_DATA_KEY) != UPLOAD:  # a gone link's key stays in the link
        st.session_state.pop(UPLOAD_KEY, None)
    return None, [], None, False


def forget_uploads() -> None:
    """Drop the uploads kept for drill-downs and links (the sidebar's "Forget these files"
    button); the store keeps them for other sessions until they expire."""
    for key in (KEPT_UPLOADS_KEY, UPLOADS_RESTORED_KEY, UPLOAD_KEY, LINKED_DATA_KEY):
        st.session_state.pop(key, None)


def restore_linked_uploads(key: str | None) -> bool:
    """Bring back the uploads a link names (``upload_key=<key>``) from the store, before the
    sidebar draws its widgets: the files (shown as "Still using the files uploaded before"),
    their column mapping and the duplicates choice. ``False`` when the key is unknown
    (:func:`gone_message` then explains)."""
    restored = STORE.restore(key) if key else None
    if restored is None:
        return False
    st.session_state[KEPT_UPLOADS_KEY] = (restored.qrels, list(restored.runs), restored.queries)
    st.session_state[UPLOADS_RESTORED_KEY] = True
    st.session_state[UPLOAD_KEY] = key
    st.session_state["upload_duplicates"] = restored.duplicates
    for kept in restored.files():
        for name, column in kept.columns:
            st.session_state[column_key(kept, name)] = column
    st.session_state.pop(LINKED_DATA_KEY, None)  # the link is answered
    return True


def restore_session_uploads() -> bool:
    """Back on "Upload your own" after another dataset (the data source's callback): bring
    back the uploads this session kept in the store (its :data:`UPLOAD_KEY`) with their
    column mapping and duplicates choice, as :func:`restore_linked_uploads` does for a
    link; the upload widgets lost their files while the sidebar hid them. ``False`` when
    the session kept none, or the store no longer has them (the form then asks again)."""
    return restore_linked_uploads(st.session_state.get(UPLOAD_KEY))


def keep_uploads(qrels: UploadedLike | None, runs: Sequence[UploadedLike], queries: UploadedLike | None,
                 mappings: Mapping[str, Mapping[str, str]], duplicates: str) -> None:
    """Keep the sidebar's uploads and choices in the store, and their key in session state
    (:data:`UPLOAD_KEY`, which app.py writes into the link); without files, leave the
    key as it is (a gone link keeps naming its data)."""
    if qrels is None and not runs and queries is None:
        return

    def kept(upload: UploadedLike | None) -> KeptFile | None:
        if upload is None:
            return None
        columns = mappings.get(upload_ident(upload), {})
        # getbuffer: no copy of the bytes at each rerun; the store copies them once
        data = upload.getbuffer() if hasattr(upload, "getbuffer") else upload.getvalue()
        return KeptFile(upload.name, data, upload_hash(upload), tuple(sorted(columns.items())))

    key = STORE.keep(KeptUploads(kept(qrels), tuple(kept(r) for r in runs), kept(queries), duplicates))
    if key is None:
        st.session_state.pop(UPLOAD_KEY, None)
    else:
        st.session_state[UPLOAD_KEY] = key


def gone_message() -> str:
    """The one line a link to uploads no longer on this server shows."""
    return (f"The uploaded data of this link is no longer on this server (kept up to "
            f"{STORE.hours:g} hours). Upload the files again.")


def upload_ident(upload: UploadedLike) -> str:
    """A key-safe identity of one uploaded file (two uploads of one file differ)."""
    ident = getattr(upload, "file_id", None) or f"{upload.name}_{getattr(upload, 'size', '')}"
    return "".join(c if c.isalnum() else "_" for c in str(ident))


def column_key(upload: UploadedLike, name: str) -> str:
    """session_state key of the sidebar's column choice for field ``name`` of ``upload``."""
    return f"colmap_{upload_ident(upload)}_{name}"


def upload_hash(upload: UploadedLike) -> str:
    """sha256 of an uploaded file's bytes, computed once per upload (remembered by file id;
    a file restored from the store knows its own)."""
    if isinstance(upload, KeptFile):
        return upload.sha256
    memo: dict = st.session_state.setdefault("_upload_hashes", {})
    ident = (getattr(upload, "file_id", None), upload.name, getattr(upload, "size", None))
    if ident[0] is None or ident not in memo:
        memo[ident] = content_hash(upload.getbuffer() if hasattr(upload, "getbuffer") else upload.getvalue())
    return memo[ident]


# ---- the link's data and settings (app.py's sidebar) -------------------------------------

def open_link(bundled_runs: "Callable[[str], tuple]") -> None:
    """Once per session, before the sidebar's widgets: the link's settings
    (:func:`tiedrank.dashboard.settings.open_link`); its simulated runs made again
    (``sim=``; ``bundled_runs``: see :func:`remake_linked_runs`), or its uploads brought back
    from the server's store (``upload_key=``)."""
    changes = sidebar.open_link(st.session_state, st.query_params.to_dict())
    st.session_state.update(changes)
    dataset = changes.get("dataset")
    if dataset in (SESSION, UPLOAD) and not (
            dataset == SESSION and remake_linked_runs(st.query_params.get_all(SIM_PARAM), bundled_runs)):
        st.session_state[LINKED_DATA_KEY] = dataset  # data of an earlier session: say so if gone
    if dataset == UPLOAD:
        restore_linked_uploads(changes.get(UPLOAD_KEY))


def follow_link() -> None:
    """The address bar follows the sidebar's settings (:func:`tiedrank.dashboard.settings.
    link_changes`) and, on "Simulated in this session", the steps that make those runs again
    (the recipe of "my runs"); a link whose runs could not be made keeps naming them."""
    kept = st.session_state.get(MY_RUNS_KEY)
    kept_recipe = kept.recipe if kept is not None and kept.recipe else ()
    put, gone = sidebar.link_changes(
        {name: st.query_params.get_all(name) for name in st.query_params}, st.session_state,
        kept_recipe, SIM_PARAM, keep_steps=st.session_state.get(LINKED_DATA_KEY) == SESSION)
    for name, value in put.items():
        st.query_params[name] = value
    for name in gone:
        del st.query_params[name]


def remake_linked_runs(steps: Sequence[str], bundled_runs: "Callable[[str], tuple]") -> bool:
    """A link to "Simulated in this session" that carries the Simulator's steps (``sim=``):
    make its runs again, bit for bit, as this session's runs (``bundled_runs``: a bundled
    dataset's data by key, ``ui.bundled_runs``). ``False`` when there are no steps or they
    cannot be made (:data:`RECIPE_ERROR_KEY` says why)."""
    from tiedrank.dashboard.recipes import RecipeError, replay

    if not steps:
        return False
    try:
        with st.spinner("Making the simulated runs of this link again…"):
            st.session_state[MY_RUNS_KEY] = replay(list(steps), bundled_runs)
    except RecipeError as err:
        st.session_state[RECIPE_ERROR_KEY] = str(err)
        return False
    return True
