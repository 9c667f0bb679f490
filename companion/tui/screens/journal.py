"""The journal: the browser (journal_browser.py: newest first, search, a day, month or year,
tags with counts) beside an editor. Unsaved text is kept as an encrypted draft, never
dropped."""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.timer import Timer
from textual.widgets import Input, OptionList, Static, TextArea

from companion import clock
from companion.activity import drafts, journal
from companion.coach import safety
from companion.errors import CompanionError
from companion.tui.screens.journal_browser import MORE, JournalBrowser
from companion.tui.screens.modals import ConfirmScreen
from companion.tui.screens.reading import EntryScreen
from companion.tui.text import one_line, said, visible
from companion.tui.widgets.editor import Editor
from companion.tui.widgets.field import Field
from companion.usecases import journaling


def parse_tags(text: str) -> list[str]:
    return [t for t in (journal.normalise_tag(p) for p in text.replace(",", " ").split()) if t]


class JournalScreen(JournalBrowser):
    MODE = "journal"
    ALWAYS_REFRESH = False
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+n", "new", "New entry", id="journal-new", tooltip="Start a new entry"),
        Binding("ctrl+s", "save", "Save", id="journal-save", tooltip="Save this entry"),
        Binding("ctrl+f", "find", "Search", id="journal-search", tooltip="Search all entries"),
        Binding(
            "ctrl+g",
            "go_to_date",
            "Go to date",
            id="journal-date",
            tooltip="List the entries of a day, a month or a year",
        ),
        Binding(
            "e",
            "edit_highlighted",
            "Edit",
            id="journal-edit",
            tooltip="Edit the highlighted entry",
            show=False,
        ),
        Binding(
            "delete",
            "delete",
            "Delete entry",
            id="journal-delete",
            tooltip="Delete the highlighted entry (asks first)",
        ),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.entry_id: int | None = None
        self.loaded = ("", "", "")  # title, text, tags as loaded, to tell edits apart
        self.draft_timer: Timer | None = None

    def compose_body(self) -> ComposeResult:
        with Horizontal(id="journal"):
            yield from self.compose_browser()
            with Vertical(id="editor-pane"):
                yield Field(placeholder="Title (optional)", id="title")
                yield Editor(id="editor", soft_wrap=True, show_line_numbers=False)
                yield Field(
                    placeholder="Tags: family work (#tags in the text too)",
                    id="entry-tags",
                )
                yield Static("", id="status")

    def first_show(self) -> None:
        self.restore_draft(None)
        self.query_one("#editor", TextArea).focus()

    def refresh_data(self) -> None:
        self.load_list()
        self.show_tags()

    # -- between the list and the editor ------------------------------------------------

    @on(OptionList.OptionSelected, "#entries")
    def read_entry(self, event: OptionList.OptionSelected) -> None:
        """Enter reads the entry (rendered); ``e`` there, or on the list, edits it."""
        if event.option.id in (None, MORE):
            return
        entry_id = int(event.option.id)
        try:
            entry = journal.get(self.vault, entry_id)
        except CompanionError as err:
            self.notify(said(err), severity="warning")
            return

        def then(choice: str | None) -> None:
            if choice == "edit":
                self.open_entry(entry_id)

        self.app.push_screen(EntryScreen(entry), then)

    def action_edit_highlighted(self) -> None:
        option = self.query_one("#entries", OptionList).highlighted_option
        if option is not None and option.id not in (None, MORE):
            self.open_entry(int(option.id))

    def open_entry(self, entry_id: int) -> None:
        """Into the editor (what was being written is kept first)."""

        def go() -> None:
            self.stash()
            self.load_entry(entry_id)
            self.query_one("#editor", TextArea).focus()

        self.leaving_the_editor(go)

    def leaving_the_editor(self, then: Callable[[], None]) -> None:
        """Before the editor shows something else: an edited entry keeps its changes as a
        draft (restored when it is opened again); a new entry, which has one draft place,
        is saved first or kept on screen, never dropped."""
        if self.entry_id is None and self.dirty and self.typed()[1].strip():
            question = ConfirmScreen(
                "This new entry is not saved yet. Save it first?", "Save it", "Keep writing"
            )

            def answer(save: bool | None) -> None:
                if save and self.action_save():
                    then()
                if question.typed:  # typed while asked: where it would have gone unasked
                    self.query_one("#editor", TextArea).insert("".join(question.typed))

            self.app.push_screen(question, answer)
            return
        then()

    # -- editor -------------------------------------------------------------------------

    def typed(self) -> tuple[str, str, str]:
        return (
            self.query_one("#title", Input).value,
            self.query_one("#editor", TextArea).text,
            self.query_one("#entry-tags", Input).value,
        )

    def fill(self, title: str, text: str, tags: str) -> None:
        self.query_one("#title", Input).value = title
        editor = self.query_one("#editor", TextArea)
        editor.load_text(text)
        editor.move_cursor(editor.document.end)  # more words go after those already there
        self.query_one("#entry-tags", Input).value = tags

    def load_entry(self, entry_id: int) -> None:
        try:
            entry = journal.get(self.vault, entry_id)
        except CompanionError as err:
            self.notify(said(err), severity="warning")
            return
        self.entry_id = entry.id
        text = entry.text.replace("\r\n", "\n")
        self.loaded = (visible(entry.title), visible(text), " ".join(entry.tags))
        self.fill(*self.loaded)
        self.set_status(f"Entry {entry.id}, written {entry.created_at:%Y-%m-%d %H:%M}.")
        self.restore_draft(entry.id)

    def set_status(self, text: str) -> None:
        self.query_one("#status", Static).update(text)

    @property
    def dirty(self) -> bool:
        return self.typed() != self.loaded

    def action_new(self) -> None:
        def start() -> None:
            self.stash()
            self.entry_id = None
            self.loaded = ("", "", "")
            self.fill("", "", "")
            self.set_status("New entry.")
            self.query_one("#editor", TextArea).focus()

        self.leaving_the_editor(start)

    def action_save(self) -> bool:
        """Save the entry; True when it was saved."""
        title, text, tags = self.typed()
        if not text.strip():
            self.notify("The entry is empty; write something first.", severity="warning")
            return False
        try:
            saved = journaling.save_entry(
                self.unlocked,
                text,
                title.strip(),
                parse_tags(tags),
                self.entry_id,
                from_editor=True,
                read=False,
            )
        except CompanionError as err:
            self.notify(said(err), severity="error")
            return False
        self.query_one("#editor", Editor).mark_saved()
        entry = saved.entry
        self.entry_id = entry.id
        self.loaded = (title, text, " ".join(entry.tags))
        self.query_one("#entry-tags", Input).value = self.loaded[2]
        self.set_status(f"Saved entry {entry.id} at {clock.now():%H:%M}.")
        self.notify("Saved.")
        self.refresh_data()
        self.read_for_danger(saved.words)
        return True

    @work(thread=True, group="danger")
    def read_for_danger(self, words: str) -> None:
        """Help for what the new words sound like, shown as soon as they are read: a few
        milliseconds for an entry, a second or two for a pasted megabyte, which would
        otherwise hold the screen after "Saved"."""
        danger = safety.assess(words)
        if danger is not None:
            self.app.call_from_thread(self.companion.action_sos, danger)

    def action_delete(self) -> None:
        option = self.query_one("#entries", OptionList).highlighted_option
        if option is None or option.id in (None, MORE):
            return
        entry_id = int(option.id)

        def answer(yes: bool | None) -> None:
            if not yes:
                return
            learned = journaling.delete_entry(self.unlocked, entry_id)
            if self.entry_id == entry_id:
                self.entry_id, self.loaded = None, ("", "", "")
                self.fill("", "", "")
            self.notify(f"Deleted the entry of {day}.")
            self.refresh_data()
            self.after_delete(learned, "the deleted entry")

        # named as the list shows it (its number was never on screen)
        entry = journal.get(self.vault, entry_id)
        day = f"{entry.created_at:%Y-%m-%d}"
        headline = one_line(entry.headline, 40)
        question = f"Delete the entry of {day}, “{headline}”? Companion cannot bring it back."
        self.app.push_screen(ConfirmScreen(question, "Delete", danger=True), answer)

    def write(self) -> None:
        """Today's "Write": the editor, with what it holds (an entry opened, a draft)."""
        self.query_one("#editor", TextArea).focus()

    @on(Input.Submitted, "#title")
    def title_written(self) -> None:
        """Enter after the title goes on to the words, as in a mail's subject line."""
        self.write()

    # -- drafts -------------------------------------------------------------------------

    @on(TextArea.Changed)
    @on(Input.Changed, "#title, #entry-tags")
    def schedule_draft(self) -> None:
        if self.draft_timer is not None:
            self.draft_timer.stop()
        self.draft_timer = self.set_timer(2.0, self.stash)

    def stash(self) -> None:
        """Keep unsaved text as an encrypted draft (called on a pause, on switch and lock)."""
        if self.companion.vault is None:
            return
        title, text, tags = self.typed()
        if self.dirty and (text.strip() or title.strip()):
            drafts.save(self.vault, "journal", text, self.entry_id, title=title, tags=tags)
        elif not self.dirty:
            drafts.discard(self.vault, "journal", self.entry_id)

    def restore_draft(self, entry_id: int | None) -> None:
        draft = drafts.load(self.vault, "journal", entry_id)
        if not draft:
            return
        self.fill(
            str(draft.get("title", "")), str(draft.get("text", "")), str(draft.get("tags", ""))
        )
        what = "new entry" if entry_id is None else f"entry {entry_id}"
        self.set_status(f"Restored your unsaved draft of the {what}. Ctrl+S saves it.")
        self.notice(f"Restored your unsaved draft of the {what}.")
