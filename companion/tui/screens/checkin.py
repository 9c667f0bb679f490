"""Check-in in a few keys: digits for mood and cravings, Enter to the next empty field, and
with none left after it Enter saves (then a note may follow; Ctrl+S saves from anywhere).

Page Up and Page Down pick another day, so a missed day can be back-filled; an existing
check-in reopens for editing. Sober = no offers, gently, to log a slip.
"""

from __future__ import annotations

from datetime import date, timedelta
from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Grid, Horizontal, VerticalScroll
from textual.widgets import Collapsible, Input, Label, Select, Static

from companion import clock
from companion.activity import checkins, drafts, profile
from companion.errors import CompanionError, InvalidInput
from companion.tui.screens.base import DataScreen
from companion.tui.screens.modals import ConfirmScreen
from companion.tui.text import said
from companion.tui.widgets.button import Button
from companion.tui.widgets.editor import Editor
from companion.tui.widgets.field import Field
from companion.usecases import checkin

# field, label, placeholder, allowed characters
FIELDS: list[tuple[str, str, str, str | None]] = [
    ("mood", "Mood", "1-10", r"[0-9]*"),
    ("cravings", "Cravings", "0-10", r"[0-9]*"),
    ("sleep_hours", "Sleep (hours)", "e.g. 7.5", r"[0-9.,]*"),
    ("sober", "Sober today", "y / n", r"[yYnN]?"),
]
NOTE = "note"
"""A few lines of free text under the short fields, the width of the form."""
URGE_FIELDS: list[tuple[str, str, str, str | None]] = [
    ("urge_intensity", "Urge intensity", "0-10", r"[0-9]*"),
    ("trigger", "Trigger", "what set it off", None),
    ("strategy", "What I did", "called sponsor, walked...", None),
]
OUTCOMES = [
    ("Urge passed", "urge_passed"),
    ("Relapsed", "relapsed"),
    ("Still struggling", "ongoing_struggle"),
]


def shown(name: str, value: object) -> str:
    if value is None:
        return ""
    if name == "sober":
        return "y" if value else "n"
    if name == "sleep_hours" and isinstance(value, float):
        return f"{value:g}"
    return str(value)


class CheckInScreen(DataScreen):
    MODE = "checkin"
    AUTO_FOCUS = "#mood"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "pageup",
            "day(-1)",
            "Prev day",
            id="checkin-prev",
            tooltip="Back-fill a day",
            priority=True,
        ),
        Binding("pagedown", "day(1)", "Next day", id="checkin-next", priority=True),
        Binding("ctrl+s", "save", "Save", id="checkin-save", tooltip="Save the check-in"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.day: date = clock.today()
        self.loaded: dict[str, object] | None = None
        """The form as last filled from the vault (None before the first time)."""
        self.first_visit = True

    def compose_body(self) -> ComposeResult:
        with VerticalScroll(id="checkin"):
            yield Static("", id="day")
            with Grid(id="fields"):
                for name, label, placeholder, allowed in FIELDS:
                    yield Label(label, classes="field-label", id=f"{name}-label")
                    yield Field(
                        placeholder=placeholder,
                        restrict=allowed,
                        id=name,
                        max_length=2 if name in ("mood", "cravings") else 0,
                    )
                    yield Static("", id=f"{name}-error", classes="field-error")
            yield Label("Note", classes="note-label")
            yield Editor(id=NOTE, soft_wrap=True, placeholder="anything on your mind (optional)")
            yield Static("", id=f"{NOTE}-error", classes="field-error")
            with Collapsible(title="Urge (optional)", id="urge"), Grid(classes="urge-fields"):
                for name, label, placeholder, allowed in URGE_FIELDS:
                    yield Label(label, classes="field-label")
                    yield Field(placeholder=placeholder, restrict=allowed, id=name)
                    yield Static("", id=f"{name}-error", classes="field-error")
                yield Label("Outcome", classes="field-label")
                yield Select(OUTCOMES, id="outcome", prompt="(not set)")
                yield Static("", id="outcome-error", classes="field-error")
            with Horizontal(id="checkin-actions"):
                yield Button("Save (Ctrl+S)", id="save", variant="primary")

    def on_screen_resume(self) -> None:
        super().on_screen_resume()
        # Arriving on a filled form, the first key replaces the focused value ("7" over a
        # saved 6), as Tab into a field does; it never appends to it ("67").
        self.call_after_refresh(self._select_focused)

    def _to_top(self) -> None:
        self.query_one("#checkin", VerticalScroll).scroll_home(animate=False)
        self._select_focused()

    def _select_focused(self) -> None:
        if isinstance(self.focused, Input):
            self.focused.select_all()

    def refresh_data(self) -> None:
        if self.first_visit:
            self.first_visit = False
            if self.restore_draft():
                return
        # Coming back to the screen must not overwrite what was typed and not saved.
        self.show_day(keep_typed=self.loaded is not None and self.typed() != self.loaded)

    def show_day(self, keep_typed: bool = False) -> None:
        existing = checkins.get(self.vault, self.day)
        label = "today" if self.day == clock.today() else f"{self.day:%A}"
        status = "editing your check-in" if existing else "new check-in"
        self.query_one("#day", Static).update(
            f"{self.day:%Y-%m-%d} ({label}): {status}.  PgUp/PgDn: another day"
        )
        today = self.day == clock.today()
        self.query_one("#sober-label", Label).update("Sober today" if today else "Sober that day")
        if keep_typed:
            return
        values = existing.values if existing else {}
        for name in self.field_names():
            self.set_field(name, shown(name, values.get(name)))
        self.query_one(f"#{NOTE}", Editor).mark_saved()
        outcome = self.query_one("#outcome", Select)
        if values.get("outcome"):
            outcome.value = values["outcome"]
        else:
            outcome.clear()
        self.loaded = self.typed()
        self.clear_errors()

    def clear_errors(self) -> None:
        for error in self.query(".field-error").results(Static):
            error.update("")

    async def action_day(self, step: int) -> None:
        # PgUp is read before the keys typed ahead of it reach the form ("7 PgUp" put the 7
        # on the day before): let them land, so they count as typed for this day.
        await self.companion.let_typed_keys_land()
        target = self.day + timedelta(days=step)
        if target > clock.today():
            self.notify("You can check in for today or earlier.", severity="warning")
            return

        def go() -> None:
            self.day = target
            self.show_day()
            # Another day starts at its top, the date in sight: from the note, the form
            # stayed scrolled down and the line saying which day it was went off screen.
            # At once, not as Widget.focus does (after the keys already read): "PgUp 7" in
            # one burst put the 7 in the new day's note, where the focus had been.
            self.set_focus(self.query_one("#mood"))
            self.call_after_refresh(self._to_top)

        def answer(save: bool | None) -> None:
            if save and self.action_save():
                go()

        if self.loaded is None or self.typed() == self.loaded:
            go()
            return
        # Showing another day replaces the form: what was typed here is saved first or stays.
        question = (
            f"What you typed for {self.day:%Y-%m-%d} is not saved yet. Save it and go to "
            f"{target:%Y-%m-%d}?"
        )
        self.app.push_screen(ConfirmScreen(question, "Save and go", "Stay here"), answer)

    @staticmethod
    def field_names() -> list[str]:
        return [name for name, *_ in FIELDS] + [NOTE] + [name for name, *_ in URGE_FIELDS]

    def field_text(self, name: str) -> str:
        if name == NOTE:
            return self.query_one(f"#{NOTE}", Editor).text
        return self.query_one(f"#{name}", Input).value

    def set_field(self, name: str, text: str) -> None:
        if name == NOTE:
            note = self.query_one(f"#{NOTE}", Editor)
            if note.text != text:  # the same words (just saved) keep the cursor where it is
                note.text = text
                note.move_cursor(note.document.end)  # more words go after those already there
        else:
            self.query_one(f"#{name}", Input).value = text  # the same value changes nothing

    def typed(self) -> dict[str, object]:
        values: dict[str, object] = {}
        for name in self.field_names():
            text = self.field_text(name).strip()
            if name == "sleep_hours":
                text = text.replace(",", ".")
            values[name] = text or None
        outcome = self.query_one("#outcome", Select).value
        values["outcome"] = outcome if isinstance(outcome, str) else None
        return values

    @on(Input.Changed)
    def forget_error(self, event: Input.Changed) -> None:
        """An error names the value it was about ("mood 72 is out of range"): once that
        value is changed, it no longer applies."""
        if event.input.id:
            for error in self.query(f"#{event.input.id}-error").results(Static):
                error.update("")

    @on(Input.Submitted)
    def next_or_save(self, event: Input.Submitted) -> None:
        """Enter goes on to the next empty field, as in a dialog, and saves when none is left
        after it, then goes on to an empty note (what is typed next is the note) or else to
        the next field. A value out of range keeps it there, saying why. (Enter saved at
        once: "6", Enter, "3" saved a mood alone, and a note typed after Enter was lost in a
        field that takes digits or y / n only.)"""
        order = [name for name, *_ in FIELDS]
        name = event.input.id or ""
        if name not in order:  # the urge's fields
            self.action_save()
            return
        try:
            checkins.validate({name: self.typed()[name]})
        except InvalidInput as err:
            self.query_one(f"#{name}-error", Static).update(said(err))
            return
        later = order[order.index(name) + 1 :]
        empty = next((n for n in later if not self.field_text(n)), "")
        if empty:
            self.query_one(f"#{empty}").focus()
        elif self.action_save():
            # On a filled form, Enter saves and goes on to the next field with its value
            # selected, so the next digit replaces it: it never lands after the saved one
            # ("6", Enter, "3" made the mood 63).
            after = NOTE if not self.field_text(NOTE).strip() or not later else later[0]
            self.query_one(f"#{after}").focus()
            self.call_after_refresh(self._select_focused)

    @on(Button.Pressed, "#save")
    def action_save(self) -> bool:
        """Validate and save the form; True if it was saved."""
        values = self.typed()
        self.clear_errors()
        bad = False
        for name, value in values.items():
            try:
                checkins.validate({name: value})
            except InvalidInput as err:
                self.query_one(f"#{name}-error", Static).update(said(err))
                bad = True
        if bad:
            self.notify("Some values need a look; nothing was saved yet.", severity="warning")
            return False
        existed = checkins.get(self.vault, self.day) is not None
        try:
            saved = checkin.save(self.unlocked, self.day, values, from_form=True)
        except CompanionError as err:
            self.notify(said(err), severity="warning")
            return False
        # Enter on the last field saves, then the note is saved too: two alike notes read as
        # one save made twice.
        done = "updated" if existed else "saved"
        self.notify(f"Check-in {done} for {self.day:%Y-%m-%d}.")
        self.show_day()
        if saved.danger is not None:
            self.companion.action_sos(saved.danger)
        elif saved.offer_slip:
            self.offer_slip(saved.days_kept)
        return True

    def offer_slip(self, days: int | None) -> None:
        # Without a recovery start date nothing was being counted: not "again".
        count = "again" if days is not None else "your days"
        kept = f" Your {days} days stay in your history." if days else ""
        question = (
            f"Would you like to log a slip on {self.day:%Y-%m-%d} and start counting "
            f"{count} from that day?{kept} A slip is part of many recoveries; what "
            "matters is what you do next."
        )
        day = self.day

        def answer(yes: bool | None) -> None:
            if yes:
                profile.log_slip(self.vault, day)
                self.notify("Slip logged. Your counter starts again today; your history is kept.")

        # "Not now" in focus: it comes up after an Enter that saved, with more keys on the way.
        slip = ConfirmScreen(question, "Log the slip", "Not now", no_first=True)
        self.app.push_screen(slip, answer)

    # -- drafts -------------------------------------------------------------------------

    def stash(self) -> None:
        typed = self.typed()
        values = {k: v for k, v in typed.items() if v is not None}
        if values and typed != self.loaded and self.companion.vault is not None:
            drafts.save(self.vault, "checkin", "", day=self.day.isoformat(), values=values)

    def restore_draft(self) -> bool:
        draft = drafts.load(self.vault, "checkin")
        if not draft:
            return False
        self.day = date.fromisoformat(str(draft.get("day", clock.today().isoformat())))
        self.show_day()
        for name, value in dict(draft.get("values", {})).items():
            if name == "outcome":
                self.query_one("#outcome", Select).value = value
            elif name in self.field_names():
                self.set_field(name, str(value))
        self.notice("Restored the check-in you had not saved.")
        return True
