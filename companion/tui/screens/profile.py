"""The profile, every field of it, as a form. Lists are comma-separated."""

from __future__ import annotations

from typing import Any, ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Grid, VerticalScroll
from textual.widgets import Input, Label, Static

from companion.activity import drafts, profile
from companion.errors import CompanionError
from companion.tui.screens.base import DataScreen
from companion.tui.text import said, visible
from companion.tui.widgets.field import Field

HINTS = {
    profile.LIST: "comma, separated",
    profile.DATE: "YYYY-MM-DD",
    profile.INT: "a number",
    profile.TEXT: "",
}


def label_for(name: str) -> str:
    return name.replace("_", " ").capitalize()


def as_text(value: Any) -> str:
    if isinstance(value, list):
        return ", ".join(visible(str(v)) for v in value)
    return "" if value is None else visible(str(value))


class ProfileScreen(DataScreen):
    MODE = "profile"
    ALWAYS_REFRESH = False
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+s", "save", "Save", id="profile-save", tooltip="Save the profile"),
    ]

    AUTO_FOCUS = "#field-preferred_name"  # typing goes somewhere from the first key

    def __init__(self) -> None:
        super().__init__()
        self.loaded: dict[str, str] = {}

    def compose_body(self) -> ComposeResult:
        with VerticalScroll(id="profile"):
            yield Static(
                "Your profile: what the coach should always know. Ctrl+S saves.", id="profile-intro"
            )
            with Grid(id="profile-fields"):
                for name, kind in profile.FIELDS.items():
                    yield Label(label_for(name))
                    yield Field(placeholder=HINTS[kind], id=f"field-{name}")

    def typed(self) -> dict[str, str]:
        return {name: self.query_one(f"#field-{name}", Input).value for name in profile.FIELDS}

    def first_show(self) -> None:
        draft = drafts.load(self.vault, "profile")
        if draft:
            self.refresh_data()
            for name, value in dict(draft.get("fields", {})).items():
                if name in profile.FIELDS:
                    self.query_one(f"#field-{name}", Input).value = str(value)
            self.notice("Restored the profile changes you had not saved (Ctrl+S saves).")

    def stash(self) -> None:
        """On lock or quit, unsaved edits are kept as an encrypted draft."""
        if self.companion.vault is None or not self.loaded:
            return
        changed = {k: v for k, v in self.typed().items() if v != self.loaded.get(k)}
        if changed:
            drafts.save(self.vault, "profile", "", fields=changed)
        else:
            drafts.discard(self.vault, "profile")

    def refresh_data(self) -> None:
        if self.loaded and self.typed() != self.loaded:
            return  # unsaved edits stay on screen
        current = profile.load(self.vault)
        for name in profile.FIELDS:
            self.query_one(f"#field-{name}", Input).value = as_text(current.get(name))
        self.loaded = self.typed()

    @on(Input.Submitted)
    def action_save(self) -> None:
        """Ctrl+S, or Enter in any field (a form filled once, then seldom: Enter saves it)."""
        typed = self.typed()
        changes = {name: value for name, value in typed.items() if value != self.loaded.get(name)}
        if not changes:
            self.notify("Nothing changed.")
            return
        try:
            profile.update(self.vault, {k: v.strip() or None for k, v in changes.items()})
        except CompanionError as err:
            self.notify(said(err), severity="error")
            return
        drafts.discard(self.vault, "profile")
        self.loaded = {}
        self.refresh_data()
        self.notify("Profile saved.")
