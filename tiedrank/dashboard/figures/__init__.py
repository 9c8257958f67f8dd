"""Plotly figure builders: tidy pandas results in, ``plotly.graph_objects.Figure`` out.

No streamlit here: pages only place these figures. Colours come from :mod:`.style`.
"""
