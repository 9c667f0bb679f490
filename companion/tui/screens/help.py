"""Help and SOS: the two dialogs that open over any screen, SOS even before unlock."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import Static

from companion.tui.navigation import keys_help
from companion.tui.screens.modals import Dialog
from companion.tui.text import literal
from companion.tui.widgets.button import Button

if TYPE_CHECKING:
    from companion.coach.safety import Danger


HELP = f"""\
Keys everywhere
  F1 or ?     this help
  F2          SOS: crisis lines (even when locked) and your coping plan
{keys_help()}
  Tab         next field (Shift+Tab: the one before)
  Ctrl+P      command palette: every screen and action by name
  Ctrl+L      lock now
  Escape      back
  Ctrl+Q      quit (unsaved text is kept as an encrypted draft)

Each screen's keys are in its footer; a few more are in the palette:
  What I know about you: p pin, h history (was -> now), f fresh start,
    y / n accept or reject a change that waits for you to confirm.

Check-in
  Digits set mood and cravings; Enter goes to the next empty field, and
  saves when none is left, then moves on (a note may follow: Ctrl+S
  saves it). Tab moves too. In the note, Enter starts a new line.
  Page Up and Page Down pick another day, to back-fill one you missed.

Privacy
  Everything is encrypted in your vault. Companion locks itself after a
  few idle minutes (Settings); unsaved text is kept as a sealed draft.
"""


class HelpScreen(Dialog[None]):
    """The keys of the screen it was opened over, read from that screen's own bindings (so
    this list cannot drift from what the keys do), then the keys that work everywhere."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,f1,question_mark", "cancel", "Close", id="help-close"),
    ]

    def __init__(self, keys: list[tuple[str, str]] | None = None, where: str = "") -> None:
        super().__init__()
        self.keys, self.where = keys or [], where

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static("Help", classes="title")
            with VerticalScroll():
                if self.keys:
                    width = max(len(key) for key, _ in self.keys) + 2
                    own = "\n".join(f"  {key:<{width}}{what}" for key, what in self.keys)
                    yield Static(
                        literal(f"Keys here{f' ({self.where})' if self.where else ''}\n{own}\n")
                    )
                yield Static(HELP)
            with Horizontal(classes="buttons"):
                yield Button("Close", id="no")

    @on(Button.Pressed, "#no")
    def close(self) -> None:
        self.dismiss(None)


class SosScreen(Dialog[None]):
    """Where to turn (always), and after unlock the user's coping plan and contacts. Raised by
    what was written, it says why in one sentence and orders the help for that danger: an
    emergency puts the emergency number and poison control first."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,f2", "cancel", "Close", id="sos-close"),
    ]

    def __init__(self, danger: Danger | None = None) -> None:
        super().__init__()
        self.danger = danger

    def compose(self) -> ComposeResult:
        from companion.coach import crisis

        help_kind = self.danger.help if self.danger else "crisis"
        lines = crisis.as_text(self.companion.config, help_kind)
        with Vertical():
            if self.danger is not None:
                yield Static(self.danger.reason, id="why")
            yield Static(crisis.heading(help_kind), classes="title")
            yield Static(literal(lines), id="lines")
            locked = self.companion.vault is None
            yield Static(crisis.where(self.companion.config, locked), id="where")
            plan = self.personal()
            if plan:
                yield Static(literal(plan), id="plan")
            with Horizontal(classes="buttons"):
                yield Button("Close", id="no")
                if self.danger is not None:  # a misreading is possible: said calmly, in reach
                    yield Static("Misread? Esc closes this; your words are kept.", id="misread")

    def personal(self) -> str:
        unlocked = self.companion.unlocked
        if unlocked is None:
            return ""
        from companion.activity import profile

        prof = profile.load(unlocked.vault)
        parts = []
        if prof.get("coping_plan"):
            parts.append("Your coping plan:\n" + str(prof["coping_plan"]))
        contacts = prof.get("support_contacts") or []
        if prof.get("sponsor"):
            # the sponsor often is among the contacts too ("Dana (sponsor) 555-0142"): once
            sponsor = str(prof["sponsor"])
            others = [c for c in contacts if not _same_person(sponsor, str(c))]
            contacts = [f"Sponsor: {sponsor}", *others]
        if contacts:
            parts.append("People you can call:\n" + "\n".join(f"- {c}" for c in contacts))
        return "\n\n".join(parts)

    def on_mount(self) -> None:
        self.query_one("#no").focus()

    @on(Button.Pressed, "#no")
    def close(self) -> None:
        self.dismiss(None)


def _same_person(one: str, other: str) -> bool:
    """Whether two contacts are one person: the same number and the same first name ("Dana,
    555-0142" and "Dana (sponsor) 555-0142"; not "Home (Mum & Dad) 555 0142")."""
    digits = "".join(ch for ch in one if ch.isdigit())
    name = next(iter(re.findall(r"[^\W\d_]+", one.lower())), "")
    return (
        len(digits) >= 6
        and digits == "".join(ch for ch in other if ch.isdigit())
        and name in re.findall(r"[^\W\d_]+", other.lower())
    )
