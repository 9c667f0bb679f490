"""Widgets whose size on screen never follows what they hold, so a change of what they hold
repaints them alone instead of laying out the whole screen again.

Textual marks ``virtual_size`` (how far a widget's content scrolls) as changing the layout: an
Input sets it to its text's width on every keystroke, and an OptionList to its count of lines
whenever its options change, and each time the screen was laid out again (5-18 ms on the
journal, every character typed in its search box). A widget sized by its container, not by its
content (these: a fixed height, the full width) needs only a repaint; its scrollbars still
follow (``_scroll_update``), and showing or hiding one still lays out as before. Not for a
widget with ``height: auto`` or ``width: auto``.
"""

from __future__ import annotations

from typing import Any

from textual.cache import LRUCache
from textual.content import Content
from textual.geometry import Size, Spacing
from textual.reactive import Reactive
from textual.screen import Screen
from textual.strip import Strip
from textual.style import Style
from textual.visual import Padding
from textual.widgets.option_list import Option

from companion.tui.widgets.field import Field
from companion.tui.widgets.picklist import PickList


class SteadyInput(Field):
    """An Input whose text scrolls within its box without a relayout per keystroke."""

    virtual_size: Reactive[Size] = Reactive(Size(0, 0), layout=False)


class SteadyPickList(PickList):
    """A PickList of a fixed height: new options repaint it, not the screen. Its rows are
    rendered once per text, style and width, not once per list: OptionList forgets every
    rendered row when its options are replaced, and a search typed a key at a time lists
    mostly the same rows again (rendering a row was most of painting the list)."""

    virtual_size: Reactive[Size] = Reactive(Size(0, 0), layout=False)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._rows: LRUCache[tuple[object, ...], list[Strip]] = LRUCache(maxsize=256)

    def _get_option_render(self, option: Option, style: Style) -> list[Strip]:
        prompt = option.prompt
        padding: Spacing = self.get_component_styles("option-list--option").padding
        cached = self._option_render_cache.get((option, style, padding))
        if cached is not None:
            return cached
        if not isinstance(prompt, Content) or option._divider:
            return super()._get_option_render(option, style)
        width = self.scrollable_content_region.width - self._get_left_gutter_width()
        key = (prompt.plain, tuple(prompt.spans), style, padding, width)
        plain = self._rows.get(key)
        if plain is None:  # as OptionList renders a row, less the row's place in the list
            visual = self._get_visual(option)
            if padding:
                visual = Padding(visual, padding)
            plain = [
                strip.extend_cell_length(width, style.rich_style)
                for strip in visual.to_strips(self, visual, width, None, style)
            ]
            self._rows[key] = plain
        meta = {"option": self._option_to_index[option]}
        strips = [strip.apply_meta(meta) for strip in plain]
        self._option_render_cache[(option, style, padding)] = strips
        return strips


def paint_waiting(screen: Screen) -> bool:
    """Paint what is waiting on ``screen`` now rather than at its next frame; True if it did.

    Textual paints at most 60 times a second, on a fixed beat: what changes just after a beat
    waits up to 17 ms (8 on average) for the next. Called from a screen's idle handler once
    something a person waits on (search results) is in, when the widgets' repaints have
    reached the screen. Uses the screen's own update step (Textual is pinned); where it is
    missing, the beat paints as before."""
    update = getattr(screen, "_on_timer_update", None)
    if not callable(update) or not getattr(screen, "_dirty_widgets", None):
        return False
    if not screen.is_current or screen.app._batch_count:
        return False
    update()
    return True
