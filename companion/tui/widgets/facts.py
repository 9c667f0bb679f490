"""The memory panel's list: facts by category, changes waiting to be confirmed and deleted
facts that can come back. A row's id says its kind ("7" a fact, "pending:3", "forgotten:12"),
so the panel's keys can tell what they act on."""

from __future__ import annotations

from textual.widgets.option_list import Option

from companion.tui.text import literal
from companion.tui.widgets.picklist import PickList

KINDS = ("fact", "pending", "forgotten")

Section = tuple[str, list[tuple[str, str]]]
"""A heading and its rows, each (id, label); a section without rows is not shown."""


def row_kind(ident: str) -> str:
    """A row's kind from its id: a fact, a change to confirm or a deleted fact."""
    kind, colon, _ = ident.partition(":")
    return kind if colon and kind in KINDS else "fact"


class FactList(PickList):
    def show(self, sections: list[Section], empty: str, select: str | None = None) -> None:
        """Replace the rows. The row ``select`` (a fact just added or edited) is highlighted,
        or the one that was, by what it is rather than where (see ``keep``); ``empty`` is
        said when there are no rows at all."""
        before = self.row_ids()
        wanted = select or self.current()
        self.clear_options()
        for heading, rows in sections:
            if rows:
                self.add_option(Option(literal(f"— {heading} —"), disabled=True))
                self.add_options(Option(literal(label), id=ident) for ident, label in rows)
        if not self.option_count:
            self.add_option(Option(literal(empty), disabled=True))
        self.keep(wanted, before)

    def row_ids(self) -> list[str]:
        return [o.id for o in self.options if o.id and not o.disabled]

    def keep(self, wanted: str | None, before: list[str]) -> None:
        """Keep a row highlighted, so e, p and Delete always have a fact to act on: ``wanted``
        if it is listed; if it went (deleted, accepted), its neighbour of the same kind, the
        next one, else the one before; else the first row, as on entering the screen."""
        rows = {o.id: i for i, o in enumerate(self.options) if o.id and not o.disabled}
        if not rows:
            return
        if wanted in rows:
            self.highlighted = rows[wanted]
            return
        if wanted in before:
            at = before.index(wanted)
            near = before[at + 1 :] + before[:at][::-1]
            kind = row_kind(wanted)
            for ident in [i for i in near if row_kind(i) == kind] + near:
                if ident in rows:
                    self.highlighted = rows[ident]
                    return
        self.highlighted = min(rows.values())

    def current(self) -> str | None:
        """The highlighted row's id (None on a heading or an empty list)."""
        option = self.highlighted_option
        if option is None or option.disabled or option.id is None:
            return None
        return option.id

    def lists(self, kind: str) -> bool:
        """Whether any row of ``kind`` is listed."""
        return any(row_kind(ident) == kind for ident in self.row_ids())
