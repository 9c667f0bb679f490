"""Text as lists and toasts show it: on one line, never a word cut in half, never markup."""

from __future__ import annotations

from companion.tui.screens.journal_browser import headline_room
from companion.tui.text import one_line


def test_a_long_line_ends_after_a_whole_word() -> None:
    line = one_line("took the whole bottle of my pills about an hour ago and my", 36)
    assert line == "took the whole bottle of my pills…"
    assert len(line) <= 36


def test_one_long_word_is_still_cut_to_fit() -> None:
    assert one_line("Supercalifragilisticexpialidocious", 20) == "Supercalifragilisti…"


def test_short_text_is_kept_and_flattened() -> None:
    assert one_line("two\nlines  and\tspaces", 80) == "two lines and spaces"


def test_a_journal_row_fits_two_lines_of_the_list_at_80_columns() -> None:
    # The list is 32 columns at 80x24, 27 for text: the date and the words in two lines.
    room = headline_room(80)
    assert len("2026-11-24  ") + room <= 2 * 27
    assert headline_room(200) == 60  # wide screens: the words as before
