"""The conversation's pieces: the person's words, the coach's reply (streamed in as it
comes), and the app's own notes between them."""

from __future__ import annotations

import asyncio

from textual.widget import Widget
from textual.widgets import Markdown, Static
from textual.widgets.markdown import MarkdownStream

from companion.tui.text import literal, visible


class Streamer:
    """Feeds streamed text to a Markdown widget; the stream starts with the first piece
    (stopping a Markdown stream that never ran would cancel the worker around it). Until
    then a "thinking" line says the coach is on it; it goes with the first word."""

    def __init__(self, widget: Markdown, waiting: Widget | None = None) -> None:
        self.widget = widget
        self.waiting = waiting
        self.stream: MarkdownStream | None = None

    async def _done_waiting(self) -> None:
        if self.waiting is not None:
            waiting, self.waiting = self.waiting, None
            await waiting.remove()

    async def write(self, piece: str) -> None:
        await self._done_waiting()
        if self.stream is None:
            self.stream = Markdown.get_stream(self.widget)
        await self.stream.write(visible(piece))

    async def stop(self) -> None:
        await self._done_waiting()
        if self.stream is not None:
            await asyncio.sleep(0)  # let the stream's task start, so stopping it is clean
            await self.stream.stop()


def thinking() -> Widget:
    return Static("The coach is thinking…", classes="message notice thinking")


def message_widget(role: str, content: str, incomplete: bool = False) -> Widget:
    if role == "user":
        return Static(literal(content), classes="message user")
    note = "\n\n*(reply incomplete: the connection stopped)*" if incomplete else ""
    return Markdown(visible(content) + note, classes="message assistant")


def note_widget(text: str) -> Widget:
    return Static(literal(text), classes="message notice")
