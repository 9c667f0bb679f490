"""What I know about you: every live fact by category with its source and date, the latest
daily memory, and the state of extraction. Add, edit, delete and pin; or start fresh."""

from __future__ import annotations

from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.widgets import Markdown, OptionList, Static
from textual.widgets.option_list import Option

from companion import clock
from companion.errors import InvalidInput
from companion.memory import fresh_start, store
from companion.tui.screens.base import DataScreen
from companion.tui.screens.modals import ConfirmScreen, PromptScreen, TypedConfirmScreen
from companion.tui.text import literal, visible


def extraction_status(vault) -> str:  # type: ignore[no-untyped-def]
    latest = store.latest_run(vault)
    if latest is None:
        return "Extraction: never run yet."
    row, details = latest
    if row.status == "running":
        progress = details.get("progress")
        return f"Extraction: running{f' ({progress})' if progress else ''}…"
    when = clock.parse_stamp(row.finished_at or row.started_at).strftime("%Y-%m-%d %H:%M")
    if row.status == "failed":
        return (
            f"Extraction failed {when}: {details.get('reason', 'unknown reason')}. "
            "It will try again at the next unlock."
        )
    return f"Extraction: last run {when}."


def memory_markdown(content: dict[str, object], day: str) -> str:
    parts = [f"### Daily memory, {day}"]
    for key, title in (
        ("conversation_summary", "Conversations"),
        ("journal_summary", "Journal"),
        ("checkin_summary", "Check-ins"),
        ("emotional_state", "Emotional state"),
    ):
        if content.get(key):
            parts.append(f"#### {title}\n\n{visible(str(content[key]))}")
    for key, title in (("follow_ups", "Follow-ups"), ("notable_patterns", "Patterns")):
        items = content.get(key) or []
        if isinstance(items, list) and items:
            lines = "\n".join(f"- {visible(str(item))}" for item in items)
            parts.append(f"#### {title}\n\n{lines}")
    return "\n\n".join(parts)


class MemoryScreen(DataScreen):
    MODE = "memory"
    ALWAYS_REFRESH = False
    AUTO_FOCUS = "#facts"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("a", "add", "Add fact", id="memory-add", tooltip="Tell Companion something"),
        Binding("e", "edit", "Edit", id="memory-edit", tooltip="Edit the highlighted fact"),
        Binding("p", "pin", "Pin", id="memory-pin", tooltip="Pin or unpin the highlighted fact"),
        Binding(
            "delete", "forget", "Delete", id="memory-delete", tooltip="Delete the highlighted fact"
        ),
        Binding(
            "f",
            "fresh_start",
            "Fresh start",
            id="memory-fresh",
            tooltip="Erase everything Companion learned",
        ),
    ]

    def compose_body(self) -> ComposeResult:
        with Horizontal(id="memory"):
            with VerticalScroll(id="facts-pane"):
                yield Static("What I know about you", id="memory-title")
                yield Static("", id="extraction")
                yield OptionList(id="facts")
            with VerticalScroll(id="daily-pane"):
                yield Markdown("", id="daily")

    def refresh_data(self) -> None:
        vault = self.vault
        self.query_one("#extraction", Static).update(extraction_status(vault))
        facts = self.query_one("#facts", OptionList)
        highlighted = facts.highlighted
        facts.clear_options()
        live = store.live_facts(vault)
        category = None
        for fact in sorted(live, key=lambda f: (f.category, not f.pinned, f.id)):
            if fact.category != category:
                category = fact.category
                facts.add_option(Option(literal(f"— {category.title()} —"), disabled=True))
            pin = "(pinned) " if fact.pinned else ""
            source = store.SOURCE_LABELS.get(fact.source, fact.source)
            facts.add_option(
                Option(
                    literal(f"{pin}{fact.text}  ({source}, {fact.created_at:%Y-%m-%d})"),
                    id=str(fact.id),
                )
            )
        if not live:
            facts.add_option(
                Option(
                    "Nothing yet. Press a to tell me something, or chat and journal: I learn as "
                    "you go.",
                    disabled=True,
                )
            )
        if highlighted is not None and highlighted < facts.option_count:
            facts.highlighted = highlighted
        newest = store.newest_daily_memory(vault)
        self.query_one("#daily", Markdown).update(
            memory_markdown(newest[1], newest[0].date)
            if newest
            else "### Daily memory\n\nNo daily memory yet. One is made when you unlock on a new "
            "day and there is something new to learn from."
        )

    def current_fact(self) -> int | None:
        option = self.query_one("#facts", OptionList).highlighted_option
        if option is None or option.disabled or option.id is None:
            return None
        return int(option.id)

    def action_add(self) -> None:
        def add(result: tuple[str, str] | None) -> None:
            if not result:
                return
            text, category = result
            try:
                store.add_fact(self.vault, text, category or "general", source="wrote")
            except InvalidInput as err:
                self.notify(str(err), severity="warning")
                return
            self.refresh_data()

        self.app.push_screen(
            PromptScreen(
                "Add something I should know",
                "",
                "Fact",
                "Category (identity, goals, preferences, ...)",
                "preferences",
            ),
            add,
        )

    def action_edit(self) -> None:
        fact_id = self.current_fact()
        if fact_id is None:
            return
        current = next(f for f in store.live_facts(self.vault) if f.id == fact_id)

        def edit(text: str | None) -> None:
            if text is None or text.strip() == current.text:
                return
            try:
                store.edit_fact(self.vault, fact_id, text, source="wrote")
            except InvalidInput as err:
                self.notify(str(err), severity="warning")
                return
            self.notify("Updated. The old wording stays in history.")
            self.refresh_data()

        self.app.push_screen(PromptScreen("Edit fact", visible(current.text)), edit)

    def action_pin(self) -> None:
        fact_id = self.current_fact()
        if fact_id is None:
            return
        current = next(f for f in store.live_facts(self.vault) if f.id == fact_id)
        store.set_pinned(self.vault, fact_id, not current.pinned)
        self.refresh_data()

    def action_forget(self) -> None:
        fact_id = self.current_fact()
        if fact_id is None:
            return

        def forget(yes: bool | None) -> None:
            if yes:
                store.forget_fact(self.vault, fact_id)
                self.notify("Deleted. I will not learn it again from the same words.")
                self.refresh_data()

        self.app.push_screen(ConfirmScreen("Delete this fact?", "Delete", danger=True), forget)

    def action_fresh_start(self) -> None:
        def erase(choices: list[bool] | None) -> None:
            if choices is None:
                return
            erased = fresh_start.fresh_start(self.vault, *choices)
            self.notify(
                f"Fresh start: erased {erased.facts} facts, {erased.daily_memories} "
                f"daily memories and {erased.session_summaries} summaries."
            )
            self.refresh_data()

        self.app.push_screen(
            TypedConfirmScreen(
                "Fresh start",
                "This erases everything Companion has learned about you: facts and their history, "
                "daily memories, session summaries and follow-ups. Your journal, check-ins and "
                "chats stay, and are not learned from again unless you ask.",
                fresh_start.CONFIRM_WORD,
                ["Also erase my profile", "Also delete all backups"],
            ),
            erase,
        )

    @on(OptionList.OptionSelected, "#facts")
    def selected(self) -> None:
        self.action_edit()
