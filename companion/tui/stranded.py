"""Keys read while one screen was on top and handled after another came up.

The app hands each key to the widget that has the focus when it reads the key, and only later
does that widget act on it. A key that opens a dialog (``a`` in the memory panel) is acted on
after the keys typed behind it were already handed to the panel: they reached the app again
with the dialog on top and no binding there, and were dropped ("a", "likes jazz" in one burst
opened an empty dialog). Such a key is read again, once what is on top has its focus, so a
burst does what the same keys typed slowly do. ``widgets/field.py`` does the same for Enter.
"""

from __future__ import annotations

from typing import Any
from weakref import WeakKeyDictionary

from textual import events
from textual.app import App
from textual.screen import Screen

TRIES = 3
"""Rounds to wait for the new screen's focus (its mount, then the focus it asks for)."""


class StrandedKeys:
    def __init__(self, app: App[Any]) -> None:
        self.app = app
        self.read_on: WeakKeyDictionary[events.Key, Screen[Any]] = WeakKeyDictionary()
        self.waiting: list[events.Key] = []

    def read(self, event: events.Key) -> None:
        """Note the screen on top as the app reads a key from the terminal."""
        if not event.is_forwarded:
            self.read_on[event] = self.app.screen

    def rescue(self, event: events.Key) -> bool:
        """True if ``event``, back at the app with nothing acting on it, was read on a screen
        no longer on top: it is read again, for the screen on top now."""
        screen = self.read_on.pop(event, None)
        if screen is None or screen is self.app.screen:
            return False
        self.waiting.append(events.Key(event.key, event.character))
        if len(self.waiting) == 1:
            self.hand_on(TRIES)
        return True

    def hand_on(self, tries: int) -> None:
        app = self.app
        if app.focused is None and tries:
            app.screen.call_later(app.call_later, self.hand_on, tries - 1)
            return
        keys, self.waiting = self.waiting, []
        for key in keys:  # in the order they were typed, as keys just read
            app.post_message(key)
