"""AppTest's selectboxes as the browser's: they send the label the browser holds.

Streamlit sends a selectbox's value over the wire as its label (the ``format_func`` text).
The browser keeps the label it was last told (the widget's default when drawn, a value the
server set, or what the user picked) and sends it back with every rerun. AppTest instead
formats the value with the current labels on every run, so a picker whose labels change
(Learn's "Custom", the RR range in Spread's query labels) never got a stale label in a test,
although the browser sends one. Use :class:`BrowserLabels` (the ``browser`` fixture of the
tests that need it) to run an app as the browser does.
"""
from __future__ import annotations

from streamlit.proto.WidgetStates_pb2 import WidgetState
from streamlit.testing.v1.element_tree import InitialValue, Selectbox


class BrowserLabels:
    """Selectboxes send the label the browser holds: the one the user picked (``select``),
    else the one the server last set, else the default the widget was drawn with; a widget
    that was not drawn in a run is forgotten, as the browser unmounts it."""

    def __init__(self, monkeypatch) -> None:
        self.held: dict[str, str] = {}
        original = Selectbox._widget_state.fget
        held = self.held

        def widget_state(box) -> WidgetState:
            if box.id not in held or not isinstance(box._value, InitialValue):
                return original(box)  # not drawn yet, or picked by the test in this step
            state = WidgetState()
            state.id = box.id
            state.string_value = held[box.id]
            return state

        monkeypatch.setattr(Selectbox, "_widget_state", property(widget_state))

    def run(self, at):
        """``at.run()``, then note what the browser holds after it."""
        for box in at.selectbox:
            if not isinstance(box._value, InitialValue):  # the user's pick, as its label
                self.held[box.id] = box._widget_state.string_value
        at.run()
        drawn = set()
        for box in at.selectbox:
            drawn.add(box.id)
            if box.proto.set_value:
                self.held[box.id] = box.proto.raw_value
            elif box.id not in self.held and box.proto.HasField("default"):
                self.held[box.id] = box.proto.options[box.proto.default]
        for gone in set(self.held) - drawn:
            del self.held[gone]
        return at
