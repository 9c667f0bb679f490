"""Text fields that act on keys in the order they were typed.

Textual's Input and TextArea insert a typed character as soon as its key reaches them, but
act on their own bound keys (Backspace, Delete, the arrows, Ctrl+U, Ctrl+W, Enter) only once
the key has bubbled up to the app, after the keys behind it were handled. Keys read together
(fast typing over ssh, a password manager's auto-type) then land out of order: "abc",
Backspace, "d" left "abc"; Ctrl+U then a passphrase erased the passphrase. Upstream:
Textualize/textual#6605. Our fields run their own bindings where they meet the key, in turn
with the characters; keys they do not bind still bubble to the screen and the app.

Enter is the same race one step further: the screen answers it (sends the message, moves to
the next field, closes the dialog) only after the field has taken the keys typed behind it,
which then went into the message being sent, or were erased with it. A field holds the keys
that reach it after Enter until the screen has answered, and hands them to whatever has the
focus then: a burst does what the same keys typed slowly do.
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

    held: list[events.Key] | None = None
    """Keys that reached the field after Enter, before the screen answered it."""

    async def _on_key(self, event: events.Key) -> None:
        if self.held is not None:
            event.stop()
            event.prevent_default()
            self.held.append(events.Key(event.key, event.character))
        elif not await run_own_binding(self, event):
            await super()._on_key(event)

    def _on_paste(self, event: events.Paste) -> None:
        """Every line of a paste, joined by spaces: Input keeps only the first, and the rest of
        a few lines pasted into the chat was lost without a word."""
        event.stop()
        event.prevent_default()  # not Input's own as well
        lines = event.text.splitlines()
        if len(lines) > 1:
            lines = [" ".join(line.strip() for line in lines if line.strip())]
        text = lines[0] if lines else ""  # one line as it is: a passphrase may end in a space
        if text:
            if self.selection.is_empty:
                self.insert_text_at_cursor(text)
            else:
                self.replace(text, *self.selection)

    async def action_submit(self) -> None:
        """As Input's, with the message given to the screen at once rather than queued behind
        the keys typed after Enter; the keys wait until the screen has answered, and until
        what its answer set off (a focus change, a closed dialog) has happened in the app."""
        valid = self.validate(self.value) if "submitted" in self.validate_on else None
        self.held = []
        self.screen.post_message(self.Submitted(self, self.value, valid))
        self.screen.call_later(self.app.call_later, self.release)

    def release(self) -> None:
        """The held keys, back to the app as keys just read: each goes to the focus of the
        moment, as the app's own keys do (``tui/stranded.py`` hands keys on the same way)."""
        held, self.held = self.held or [], None
        for key in held:
            self.app.post_message(key)

    def on_unmount(self) -> None:
        """A dialog closed by Enter may go before it releases the keys: they go on."""
        if self.held:
            self.app.call_later(self.release)
