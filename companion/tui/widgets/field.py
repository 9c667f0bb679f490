"""Text fields that act on keys in the order they were typed.

Textual's Input and TextArea insert a typed character as soon as its key reaches them, but
act on their own bound keys (Backspace, Delete, the arrows, Ctrl+U, Ctrl+W, Enter) only once
the key has bubbled up to the app, after the keys behind it were handled. Keys read together
(fast typing over ssh, a password manager's auto-type) then land out of order: "abc",
Backspace, "d" left "abc"; Ctrl+U then a passphrase erased the passphrase. Upstream:
Textualize/textual#6605. Our fields run their own bindings where they meet the key, in turn
with the characters; keys they do not bind still bubble to the screen and the app.
"""

from __future__ import annotations

from textual import events
from textual.widget import Widget
from textual.widgets import Input


async def run_own_binding(widget: Widget, event: events.Key) -> bool:
    """Run ``widget``'s own (not priority) binding for the key now, as the app would when the
    key reached it; True if one ran and the key is spent."""
    for binding in widget._bindings.key_to_bindings.get(event.key, ()):
        if not binding.priority and await widget.app.run_action(binding.action, widget):
            event.stop()
            event.prevent_default()
            return True
    return False


class Field(Input):
    """The Input of our screens."""

    async def _on_key(self, event: events.Key) -> None:
        if not await run_own_binding(self, event):
            await super()._on_key(event)
