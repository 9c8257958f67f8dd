"""The dashboard's logic, without Streamlit: one module a page, plus what pages share.

* :mod:`.datasets` — bundled datasets, content hashes, uploads and column mapping
* :mod:`.settings` — the settings every page honours; metric options that follow k
* :mod:`.overview`, :mod:`.tie_structure`, :mod:`.spread`, :mod:`.tsrr`, :mod:`.learn`,
  :mod:`.compare`, :mod:`.simulator` — what each page computes
* :mod:`.figures` — plotly figure builders (one module a page, and ``style``)
* :mod:`.cache` — the one cache every session shares, bounded by bytes and by age
* :mod:`.upload_store` — uploads kept by content hash, so a link brings them back
* :mod:`.ui`, :mod:`.widgets`, :mod:`.session_uploads` — the Streamlit glue: session context
  and cached loading, shared widgets, the uploads' session state

Pages (``pages/*.py``) hold widgets and layout only; everything they show is computed here,
so it is tested without a browser.
"""
