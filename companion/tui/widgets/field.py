"""Text fields that act on keys in the order they were typed.

Textual's Input and TextArea insert a typed character as soon as its key reaches them, but
act on their own bound keys (Backspace, Delete, the arrows, Ctrl+U, Ctrl+W, Enter) only once
the key has bubbled up to the app, after the keys behind it were handled. Keys read together
(fast typing over ssh, a password manager's auto-type) then land out of order: "abc",
Backspace, "d" left "abc"; Ctrl+U then a passphrase erased the passphrase. Upstream:
Textualize/textual#6605. Our fields run their own bindings where they meet the key, in turn
with the characters.

A key a field does not take itself (Ctrl+F in the journal's editor) is the same race again:
the screen's binding for it ran only once the key had bubbled up to the app, after the letters
typed behind it were handed to the field ("potatoes" went into the entry, not the search). The
field now hands such a key to its screen's or the app's binding at once (in the app's turn, as
Textual would), while the app holds the keys it reads and the field the keys it was already
given; once the binding has acted, and the focus it asked for has moved, they go on to the
focus of the moment, in the order typed (``Gate``).

Enter is the same race one step further: the screen answers it (sends the message, moves to
the next field, closes the dialog) only after the field has taken the keys typed behind it,
which then went into the message being sent, or were erased with it. A field holds the keys
that reach it after Enter until the screen has answered, and hands them to whatever has the
focus then: a burst does what the same keys typed slowly do.
"""

from __future__ import annotations

from typing import Any
from weakref import WeakKeyDictionary

from textual import events
from textual.app import App
from textual.widget import Widget
from textual.widgets import Input

Typed = events.Key | events.Paste
"""What the gate holds: keys, and a paste among them (it goes where the keys around it go)."""

TRIES = 3
"""Rounds to wait for a new screen's focus before the held keys go on (``Gate.open``)."""


class Gate:
    """The app's keys, held while a field's key is acted on up the chain (see above)."""

    def __init__(self, app: App[Any]) -> None:
        self.app = app
        self.waiting: list[Typed] | None = None
        """Keys read from the terminal while closed; ``None`` while open."""
        self.holders: list[Holding] = []
        """The widgets holding keys until the gate opens."""

    def hold(self, event: Typed) -> bool:
        """True if ``event``, just read by the app, waits for the gate to open."""
        if self.waiting is None or event.is_forwarded:
            return False
        self.waiting.append(fresh(event))
        return True

    def close(self, holder: Holding) -> None:
        if self.waiting is None:
            self.waiting = []
        self.holders.append(holder)

    def keep_in_place(self) -> None:
        """For a key acted on at once (lock, another day) while keys typed before it are held:
        they go into the widget that holds them, in the draft that is kept, instead of on to a
        screen that comes later (the passphrase field, after a lock). The gate still opens for
        the keys read after it."""
        for holder in self.holders:
            if holder.held:
                holder.type_in(holder.held)
                holder.held = []

    async def open(self, held: list[Typed], tries: int = TRIES) -> None:
        """The field's held keys, then the app's, read again in the order typed, each by the
        focus of the moment (a dialog just pushed gets a round or two to take the focus)."""
        app = self.app
        if app.focused is None and tries:
            app.screen.call_later(app.call_later, self.open, held, tries - 1)
            return
        keys, self.waiting, self.holders = [*held, *(self.waiting or [])], None, []
        for key in keys:
            await app.on_event(key)  # may close the gate again: the rest wait in it


def fresh(event: Typed) -> Typed:
    """A copy to read again as if just read (an event is handled once)."""
    if isinstance(event, events.Paste):
        return events.Paste(event.text)
    return events.Key(event.key, event.character)


def typed_text(held: list[Typed], enter: str = "") -> str:
    """The text of ``held``: printable keys and pastes (and Enter as ``enter``)."""
    parts: list[str] = []
    for event in held:
        if isinstance(event, events.Paste):
            parts.append(event.text)
        elif event.key == "enter":
            parts.append(enter)
        elif event.is_printable:
            parts.append(event.character or "")
    return "".join(parts)


GATES: WeakKeyDictionary[App[Any], Gate] = WeakKeyDictionary()


def gate(app: App[Any]) -> Gate:
    """The app's gate (one per app)."""
    found = GATES.get(app)
    if found is None:
        found = GATES[app] = Gate(app)
    return found


class Holding(Widget):
    """A text widget that holds the keys it is given while a key it passed up is acted on."""

    held: list[Typed] | None = None
    """Keys (and a paste) that reached the widget after a key it passed up, or after Enter
    (``Field``), before the screen answered it."""

    def type_in(self, held: list[Typed]) -> None:
        """The text of ``held``, typed here (``Gate.keep_in_place``)."""

    def hold(self, event: Typed) -> bool:
        if self.held is None:
            return False
        event.stop()
        event.prevent_default()
        self.held.append(fresh(event))
        return True

    def pass_up(self, event: events.Key) -> bool:
        """For a key the widget does not take: True if a binding of its screen or the app will
        act on it, now being done in the app's turn, the keys behind it held meanwhile."""
        bound = any(
            not binding.priority
            for node, bindings in self.screen._modal_binding_chain
            if node is not self
            for binding in bindings.key_to_bindings.get(event.key, ())
        )
        if not bound:
            return False
        event.stop()
        event.prevent_default()
        gate(self.app).close(self)
        self.held = []
        self.app.call_later(self._act_on, event.key)
        return True

    async def _act_on(self, key: str) -> None:
        try:
            await self.app._check_bindings(key)  # as the app does when the key bubbles up
        finally:  # whatever the binding did, the keys go on: a shut gate is a dead keyboard
            # Behind the keys the app handed this widget before the gate closed; a widget
            # gone with its dialog (Escape) hands on what it held now.
            if not self.call_later(self._hand_on):
                self._hand_on()

    def on_unmount(self) -> None:
        """Gone (its dialog closed) while holding: what it held goes on, and the gate opens."""
        self._hand_on()

    def _hand_on(self) -> None:
        if self.held is None:
            return
        held, self.held = self.held, None
        self.app.call_later(gate(self.app).open, held)  # behind the focus change asked for


async def run_own_binding(widget: Widget, event: events.Key) -> bool:
    """Run ``widget``'s own (not priority) binding for the key now, as the app would when the
    key reached it; True if one ran and the key is spent."""
    for binding in widget._bindings.key_to_bindings.get(event.key, ()):
        if not binding.priority and await widget.app.run_action(binding.action, widget):
            event.stop()
            event.prevent_default()
            return True
    return False


LONGEST_SECRET = 1_024
"""Characters past which a paste into a passphrase field is taken for writing, not a secret."""
NOT_A_SECRET = (
    "That looks like writing, not a passphrase, so it was not put here. "
    "It is still on your clipboard: paste it again once you are in."
)


class Field(Input, Holding):
    """The Input of our screens."""

    def type_in(self, held: list[Typed]) -> None:
        text = typed_text(held)
        if text:
            self.insert_text_at_cursor(text)

    async def _on_key(self, event: events.Key) -> None:
        if self.hold(event) or await run_own_binding(self, event):
            return
        if event.is_printable or not self.pass_up(event):
            await super()._on_key(event)

    def _on_paste(self, event: events.Paste) -> None:
        """Every line of a paste, joined by spaces: Input keeps only the first, and the rest of
        a few lines pasted into the chat was lost without a word."""
        if self.hold(event):
            return
        event.stop()
        event.prevent_default()  # not Input's own as well
        lines = event.text.splitlines()
        if self.password and (len(lines) > 1 or len(event.text) > LONGEST_SECRET):
            # writing pasted after the app locked: not a passphrase, and not to be hidden in
            # dots here (it would be tried as one on Enter)
            self.notify(NOT_A_SECRET, title="Not pasted", severity="warning", markup=False)
            return
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
        gate(self.app).close(self)
        self.held = []
        self.screen.post_message(self.Submitted(self, self.value, valid))
        self.screen.call_later(self._answered)

    def _answered(self) -> None:
        """In the screen's turn, once it has answered Enter."""
        if not self.call_later(self._hand_on):  # the field went with its dialog
            self._hand_on()
