"""The journal's browser, the left half of its screen: the newest entries a page at a time (so
10,000 stay fast), search results drawn as far as the list shows, the entries of a day, month
or year (Ctrl+G), and the tags with counts. JournalScreen (journal.py) sets it beside the
editor and gives the keys."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option
from textual.worker import get_current_worker

from companion import clock
from companion.activity import journal
from companion.retrieval.dates import When
from companion.tui.screens.base import DataScreen
from companion.tui.screens.calendar import CalendarScreen
from companion.tui.text import literal, one_line
from companion.tui.widgets.steady import SteadyInput, SteadyPickList, paint_waiting

if TYPE_CHECKING:
    from companion.retrieval.search import Hit

PAGE = 50
SEARCH_LIMIT = 100  # the best matches: more words narrow it further
SEARCH_PAGE = 25  # drawn at a time before the list has a height (then: search_page)
SEARCH_AHEAD = 3  # rows past the list's height drawn with each page
MORE = "more"
SPAN_LIMIT = 200  # entries listed for a day, month or year (Ctrl+G)


def headline_room(screen_width: int) -> int:
    """How many characters of an entry's first words fit in two lines of the list (40% of
    the screen, at least 30 columns, less its border, padding and scrollbar; word wrap
    wastes a few): a row of three lines at 80 columns made the list hard to scan."""
    inner = max(30, screen_width * 2 // 5) - 5
    return max(20, min(60, 2 * inner - len("2026-01-01  ") - 6))


def entry_row(entry: journal.Entry, room: int = 60) -> Option:
    """An entry as the list shows it: its day and its first words."""
    return Option(
        literal(f"{entry.created_at:%Y-%m-%d}  {one_line(entry.headline, room)}"),
        id=str(entry.id),
    )


def span_label(when: When) -> str:
    """ "14 March 2025", "March 2025", "2024", or "3 Mar to 9 Mar 2025"."""
    first, last = when.first, when.last
    assert first is not None and last is not None
    if first == last:
        return f"{first:%-d %B %Y}"
    if first.day == 1 and (first.month, first.year) == (last.month, last.year):
        return f"{first:%B %Y}"
    if (first.month, first.day) == (1, 1) and first.year == last.year:
        return str(first.year)
    return f"{first:%-d %b} to {last:%-d %b %Y}"


class SearchField(SteadyInput):
    """Escape here leaves the search, as in a browser's find bar: it clears the words, and
    in an empty box goes on to the list. It went back to the previous screen, whose own keys
    the next letters then pressed."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "leave", "Clear the search", show=False, id="search-leave"),
    ]

    def action_leave(self) -> None:
        if self.value:
            self.value = ""  # the list follows (the screen watches the value)
        else:
            self.screen.focus_next()


class JournalBrowser(DataScreen):
    """The list half of the journal screen: it composes ``#search``, ``#tags`` and
    ``#entries`` and keeps what the list shows; the screen (journal.py) adds the editor."""

    def __init__(self) -> None:
        super().__init__()
        self.shown = 0
        self.listed = ""
        """The search the list shows results of ("" for the newest entries)."""
        self.span: When | None = None
        """The day, month or year the list shows (Ctrl+G), or None for the newest entries."""
        self.results_in = False
        """Search results were put in the list and are not painted yet."""

    def compose_browser(self) -> ComposeResult:
        with Vertical(id="browser"):
            yield SearchField(placeholder="Search (Ctrl+F)", id="search")
            yield Static("", id="tags")
            yield SteadyPickList(id="entries")  # its height is 1fr (journal.tcss)

    def load_list(self) -> None:
        query = self.query_one("#search", Input).value.strip()
        if query:  # the list changes when the results are in; typing never waits
            self.search(query, self.search_page())
            return
        self.workers.cancel_group(self, "journal-search")
        self.query_one("#entries", OptionList).clear_options()
        self.shown = 0
        self.listed = ""
        if self.span is not None:
            self.show_span(self.span)
            return
        self.add_page()

    def search_page(self) -> int:
        """How many results are drawn at a time: what the list shows (rows are two lines:
        headline_room) and a few more, so a page down lands on drawn rows. Each row drawn is
        an entry decrypted, a height measured and a row rendered: 25 at once were a third of
        typed to painted on a list showing 12."""
        height = self.query_one("#entries", OptionList).scrollable_content_region.height
        if height <= 0:  # not laid out yet
            return SEARCH_PAGE
        return min(SEARCH_LIMIT, (height + 1) // 2 + SEARCH_AHEAD)

    def show_span(self, when: When) -> None:
        """The entries of one day, month or year, newest first, under a line that says so."""
        assert when.first is not None and when.last is not None
        entries = self.query_one("#entries", OptionList)
        found = journal.between(self.vault, when.first, when.last, limit=SPAN_LIMIT + 1)
        shown = min(len(found), SPAN_LIMIT)
        more = ", the newest" if len(found) > SPAN_LIMIT else ""
        count = f"{shown} entr{'y' if shown == 1 else 'ies'}{more}"
        entries.add_option(Option(literal(f"— {span_label(when)}: {count} —"), disabled=True))
        room = headline_room(self.app.size.width)
        entries.add_options([entry_row(e, room) for e in found[:SPAN_LIMIT]])
        if not found:
            entries.add_option(Option("Nothing written then.", disabled=True))
        self.shown = len(found)

    def action_go_to_date(self) -> None:
        """The calendar: a day or a month of entries in the list (Escape: as it was)."""

        def go(when: When | None) -> None:
            if when is None:
                return
            self.span = when if when.first is not None else None
            search = self.query_one("#search", Input)
            if search.value:
                search.value = ""  # the list follows (Input.Changed)
            else:
                self.load_list()
            self.query_one("#entries", OptionList).focus()

        today = clock.today()
        start = self.span.first if self.span is not None and self.span.first else today
        self.app.push_screen(CalendarScreen(journal.days_written, start, today), go)

    @work(thread=True, exclusive=True, group="journal-search")
    def search(self, query: str, limit: int, more: bool = False) -> None:
        index = self.companion.index
        if index is None:  # locked
            return
        hits = index.search(query, limit=limit + 1, kind="journal")
        if not get_current_worker().is_cancelled:
            self.app.call_from_thread(self.show_hits, query, hits, limit, more)

    def show_hits(self, query: str, hits: list[Hit], limit: int, more: bool) -> None:
        """Results of ``query``, unless the search box has moved on; a page at a time, so
        only what can be seen is drawn. With ``more``, the page after those shown."""
        if not self.is_attached or self.query_one("#search", Input).value.strip() != query:
            return
        entries = self.query_one("#entries", OptionList)
        adding = more and self.listed == query
        if adding:
            if entries.option_count and entries.get_option_at_index(-1).id == MORE:
                entries.remove_option(MORE)
            hits_new = hits[self.shown : limit]
        else:
            self.shown = 0
            hits_new = hits[:limit]
        room = headline_room(self.app.size.width)
        options = [
            Option(literal(f"{hit.when[:10]}  {one_line(hit.snippet, room)}"), id=str(hit.id))
            for hit in hits_new
        ]
        if len(hits) > limit and limit < SEARCH_LIMIT:
            options.append(Option("… more matches", id=MORE))
        if not hits:
            options = [Option("No matching entries.", disabled=True)]
        if adding:
            entries.add_options(options)
        else:  # in one step (emptied first, the list also hid its scrollbar and showed it again)
            entries.set_options(options)
        self.shown += len(hits_new)
        self.listed = query
        self.results_in = True  # painted as soon as the list's repaint is in (on_idle)

    def add_page(self) -> None:
        entries = self.query_one("#entries", OptionList)
        if entries.option_count and entries.get_option_at_index(-1).id == MORE:
            entries.remove_option(MORE)
        page = journal.newest(self.vault, PAGE, offset=self.shown)
        self.shown += len(page)
        room = headline_room(self.app.size.width)
        entries.add_options([entry_row(e, room) for e in page])
        if len(page) == PAGE:
            entries.add_option(Option("… older entries", id=MORE))
        if not self.shown:
            entries.add_option(Option("No entries yet. Write one on the right.", disabled=True))

    def show_tags(self) -> None:
        index = self.companion.index
        tags = index.tag_counts()[:12] if index else []
        self.query_one("#tags", Static).update(
            literal("  ".join(f"#{tag} {count}" for tag, count in tags))
        )

    async def _on_idle(self, event: events.Idle) -> None:
        if self.results_in and paint_waiting(self):
            self.results_in = False

    def on_mount(self) -> None:
        # The search starts as the box's value changes: Input.Changed reached the screen a
        # few messages later, after the box had been painted (5-10 ms of every search).
        self.watch(self.query_one("#search", Input), "value", self.search_changed, init=False)

    def search_changed(self, value: str) -> None:
        if value.strip():  # a search replaces the date the list was showing
            self.span = None
        self.load_list()

    def action_find(self) -> None:
        self.query_one("#search", Input).focus()

    @on(OptionList.OptionHighlighted, "#entries")
    def near_end(self, event: OptionList.OptionHighlighted) -> None:
        if event.option.id == MORE:
            if self.listed:
                limit = min(SEARCH_LIMIT, self.shown + self.search_page())
                self.search(self.listed, limit, more=True)
            else:
                self.add_page()
