"""Dialogs about the way into the vault: the recovery key shown once, the way back in with it,
and a change of passphrase.

They sit apart from the general dialogs in ``modals.py`` because they handle secrets: every
passphrase field is masked and nothing typed here is kept in a draft.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Horizontal, Vertical
from textual.widgets import Input, Static

from companion.errors import CompanionError
from companion.tui.screens.modals import Dialog, InputDialog
from companion.tui.widgets.button import Button
from companion.tui.widgets.field import Field
from companion.tui.widgets.tick import Tick


class PassphraseScreen(InputDialog[bool]):
    """The current passphrase and a new one typed twice. ``change(current, new)`` runs in a
    thread (two key derivations) and raises to refuse; the dialog stays open with the reason
    until it succeeds (True) or is cancelled (None)."""

    def __init__(self, change: Callable[[str, str], None]) -> None:
        super().__init__("Change your passphrase")
        self.change = change

    def inputs(self) -> ComposeResult:
        yield Field(placeholder="Current passphrase", password=True, id="value")
        yield Field(placeholder="New passphrase", password=True, id="new")
        yield Field(placeholder="Repeat the new passphrase", password=True, id="repeat")
        yield Static("", id="problem", classes="error")

    def answer(self) -> bool:
        return True

    def submit(self) -> None:
        current = self.query_one("#value", Input).value
        new = self.query_one("#new", Input).value
        repeat = self.query_one("#repeat", Input)
        problem = self.query_one("#problem", Static)
        if not current or not new:
            problem.update("Type your current passphrase and the new one.")
        elif self.focused is not repeat and not repeat.value:
            repeat.focus()
        elif repeat.value != new:
            problem.update("The two new passphrases differ. Type them again.")
            repeat.value = ""
            repeat.focus()
        else:
            problem.update("Checking…")
            self.query_one("#yes", Button).disabled = True
            self.apply(current, new)

    @work(thread=True, exclusive=True, group="passphrase")
    def apply(self, current: str, new: str) -> None:
        try:
            self.change(current, new)
        except CompanionError as err:
            self.app.call_from_thread(self.refused, str(err))
            return
        self.app.call_from_thread(self.dismiss, True)

    def refused(self, reason: str) -> None:
        self.query_one("#problem", Static).update(f"Not changed: {reason}")
        self.query_one("#yes", Button).disabled = False
        field = self.query_one("#value", Input)
        field.value = ""
        field.focus()


class RecoveryKeyScreen(Dialog[bool]):
    """Shown once at creation. Leaving requires saying it was written down."""

    BINDINGS: ClassVar[list[BindingType]] = []

    def __init__(self, key: str) -> None:
        super().__init__()
        self.key = key

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static("Your recovery key", classes="title")
            yield Static(
                "Write this down and keep it somewhere safe, away from this computer. It is "
                "shown only now. If you forget your passphrase, this key is the only way back "
                "in: nobody, including us, can recover a lost passphrase."
            )
            yield Static(self.key, id="recovery-key")
            yield Tick("I have written it down", id="written")
            yield Static("", classes="error")
            with Horizontal(classes="buttons"):
                # Never disabled: Tab is acted on as soon as it is read, so "Space, Tab,
                # Enter" typed at once skipped a Continue not yet enabled and the Enter
                # unticked the box. Pressed too early, it says what is missing.
                yield Button("Continue", id="yes", variant="primary")

    @on(Tick.Changed)
    def ticked(self) -> None:
        self.query_one(".error", Static).update("")

    def action_cancel(self) -> None:
        """Escape leaves as Continue does: only once the key is written down (it skipped the
        key, which is never shown again)."""
        self.done()

    @on(Button.Pressed, "#yes")
    def done(self) -> None:
        written = self.query_one("#written", Tick)
        if not written.value:
            self.query_one(".error", Static).update(
                'Tick "I have written it down" first: this key is shown only now.'
            )
            written.focus()
            return
        self.dismiss(True)


class ForgotScreen(Dialog[tuple[str, str]]):
    """Recovery key plus a new passphrase, typed twice."""

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static("Forgot your passphrase?", classes="title")
            yield Static(
                "Enter the recovery key you wrote down when you created the vault, "
                "then choose a new passphrase."
            )
            yield Field(placeholder="Recovery key (ABCD-EFGH-...)", id="key")
            yield Field(placeholder="New passphrase", password=True, id="new")
            yield Field(placeholder="Repeat new passphrase", password=True, id="repeat")
            yield Static("", classes="error")
            with Horizontal(classes="buttons"):
                yield Button("Set new passphrase", id="yes", variant="primary")
                yield Button("Cancel", id="no")

    @on(Input.Submitted)
    @on(Button.Pressed, "#yes")
    def submit(self, event: Input.Submitted | Button.Pressed) -> None:
        from companion.vault.keys import MIN_PASSPHRASE

        if self.next_empty(event):
            return
        key = self.query_one("#key", Input).value.strip()
        new = self.query_one("#new", Input).value
        error = self.query_one(".error", Static)
        if not key:
            error.update("Enter your recovery key.")
        elif len(new) < MIN_PASSPHRASE:
            error.update(f"Use at least {MIN_PASSPHRASE} characters for the new passphrase.")
        elif self.query_one("#repeat", Input).value != new:
            error.update("The two new passphrases differ.")
        else:
            self.dismiss((key, new))

    @on(Button.Pressed, "#no")
    def action_cancel(self) -> None:
        self.dismiss(None)
