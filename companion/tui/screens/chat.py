"""Chat: sessions on the left, the conversation on the right, the message box below.

A session closes when a new one starts, after 30 idle minutes, on lock and on quit. An
off-the-record session is kept in history but never memorized or recalled.
"""

from __future__ import annotations

from typing import ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widget import Widget
from textual.widgets import Input, Markdown, OptionList, Static
from textual.widgets.option_list import Option

from companion.activity import chat, drafts
from companion.coach import safety
from companion.tui.screens.base import DataScreen
from companion.tui.screens.modals import ConfirmScreen, PromptScreen
from companion.tui.text import literal, one_line, to_you
from companion.tui.widgets.field import Field
from companion.tui.widgets.messages import Streamer, message_widget, note_widget, thinking
from companion.tui.widgets.picklist import PickList
from companion.usecases import chats
from companion.vault import settings

OFFLINE = (
    "The coach is offline: no provider is set up. Add an Anthropic API key in Settings (F10), "
    "or set ANTHROPIC_API_KEY before starting Companion. Your message is saved in this session, "
    "and what you said is still remembered."
)
STILL_OFFLINE = "Saved. The coach is still offline."
"""After the first message of a chat: the whole notice after every message read as nagging."""


class ChatScreen(DataScreen):
    MODE = "chat"
    ALWAYS_REFRESH = False
    AUTO_FOCUS = "#message"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+n", "new_session", "New chat", id="chat-new", tooltip="Start a new session"),
        Binding(
            "ctrl+b",
            "toggle_sessions",
            "Chats",
            id="chat-sessions",
            tooltip="Show or hide the list of chats",
        ),
        Binding(
            "ctrl+o",
            "off_record",
            "Off the record",
            id="chat-off-record",
            tooltip="Keep this session out of memory",
        ),
        Binding("ctrl+r", "rename", "Rename", id="chat-rename"),
        Binding("ctrl+y", "retry", "Retry", id="chat-retry", tooltip="Ask the coach again"),
        Binding(
            "delete",
            "delete_session",
            "Delete chat",
            id="chat-delete",
            tooltip="Delete the highlighted session (asks first)",
        ),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.session_id: int | None = None
        self.off_record_next = False
        self.stale = False
        """Whether the vault changed while a reply was streaming (the crisis screen came and
        went over it, say): the conversation is drawn again when the reply has ended."""
        self.notes: dict[int, list[tuple[int, str]]] = {}
        """Per chat, what the app said between its messages (the coach offline, a reply
        that failed), after how many messages: stored nowhere, but drawn again with the
        messages when the screen comes back (after the crisis screen, say)."""

    def compose_body(self) -> ComposeResult:
        with Horizontal(id="chat"):
            yield PickList(id="sessions")
            with Vertical(id="conversation-pane"):
                yield Static("", id="session-title")
                yield VerticalScroll(id="conversation")
                yield Field(placeholder="Write to your coach, Enter sends", id="message")

    WIDE = 100
    """From this many columns the list of chats shows beside the conversation by default."""

    def first_show(self) -> None:
        if self.app.size.width < self.WIDE:  # at 80x24 the conversation gets the width
            self.query_one("#chat").add_class("-narrow")
        self.session_id = chats.resumable(self.vault)
        draft = drafts.load(self.vault, "chat")
        if draft:
            self.query_one("#message", Input).value = str(draft.get("text", ""))
            self.notice("Restored the message you had not sent.")

    def refresh_data(self) -> None:
        options = self.query_one("#sessions", OptionList)
        options.clear_options()
        sessions = chat.sessions(self.vault, limit=5000)
        for s in sessions:
            mark = " (off the record)" if s.off_record else ""
            label = one_line(s.title or "Chat", 13)
            options.add_option(
                Option(literal(f"{s.started_at:%Y-%m-%d} {label}{mark}"), id=str(s.id))
            )
        if not sessions:
            options.add_option(Option("No chats yet.", disabled=True))
        if self.workers_busy():  # a reply on its way: drawn again from the vault once saved
            self.stale = True
            self.show_title()  # "off the record" says so at once
        else:
            self.show_conversation()

    def action_toggle_sessions(self) -> None:
        """Ctrl+B: the list of chats in or out of the way; shown, it takes the focus."""
        pane = self.query_one("#chat")
        pane.toggle_class("-narrow")
        if pane.has_class("-narrow"):
            self.query_one("#message", Input).focus()
        else:
            self.query_one("#sessions").focus()

    def show_title(self) -> None:
        title = self.query_one("#session-title", Static)
        if self.session_id is None:
            state = "off the record" if self.off_record_next else "remembered"
            title.update(f"New chat ({state}; Ctrl+O toggles). Say what is on your mind.")
            return
        session = chat.get_session(self.vault, self.session_id)
        state = "off the record: never memorized" if session.off_record else "remembered"
        title.update(
            literal(f"{session.title or 'Chat'} · {session.started_at:%Y-%m-%d %H:%M} · {state}")
        )

    def show_conversation(self) -> None:
        self.show_title()
        box = self.query_one("#conversation", VerticalScroll)
        box.remove_children()
        if self.session_id is None:
            return
        notes = self.notes.get(self.session_id, [])
        shown: list[Widget] = [note_widget(text) for after, text in notes if after == 0]
        for count, m in enumerate(chat.messages(self.vault, self.session_id), start=1):
            shown.append(message_widget(m.role, m.content, m.incomplete))
            shown.extend(note_widget(text) for after, text in notes if after == count)
        box.mount_all(shown)
        box.scroll_end(animate=False)

    async def say(self, session_id: int, text: str) -> None:
        """A note from the app in the conversation, kept to be drawn again with it."""
        after = chat.message_count(session_id)
        self.notes.setdefault(session_id, []).append((after, text))
        if session_id == self.session_id:  # not over another chat opened meanwhile
            await self.query_one("#conversation", VerticalScroll).mount(note_widget(text))

    # -- sending ------------------------------------------------------------------------

    @on(Input.Submitted, "#message")
    def send(self, event: Input.Submitted) -> None:
        text = event.value
        if not text.strip():
            return
        if self.workers_busy():
            self.notify(
                "The coach is still answering; your message is kept here until it has finished.",
                severity="warning",
            )
            return
        chosen = chats.session_for_message(
            self.vault,
            self.session_id,
            new=self.session_id is None,
            off_record=self.off_record_next,
            title=one_line(text, 40),
        )
        if chosen != self.session_id:  # a new one: none was open, or it went idle
            self.session_id, self.off_record_next = chosen, False
            self.refresh_data()
        event.input.value = ""
        drafts.discard(self.vault, "chat")
        danger = safety.assess(text)
        if danger is not None:
            self.companion.action_sos(danger)
        box = self.query_one("#conversation", VerticalScroll)
        box.mount(message_widget("user", text))
        box.scroll_end(animate=False)
        self.converse(self.session_id, text, save_user=True)

    def action_retry(self) -> None:
        """Ask again after a failed reply; the user's words were kept."""
        if self.session_id is None or self.workers_busy():
            return
        last = next(
            (m for m in reversed(chat.messages(self.vault, self.session_id)) if m.role == "user"),
            None,
        )
        if last is not None:
            self.converse(self.session_id, last.content, save_user=False)

    def workers_busy(self) -> bool:
        return any(w.group == "coach" and w.is_running for w in self.workers)

    @work(exclusive=True, group="coach")
    async def converse(self, session_id: int, text: str, save_user: bool) -> None:
        from companion.coach import service

        box = self.query_one("#conversation", VerticalScroll)
        waiting = thinking()
        reply = Markdown("", classes="message assistant")
        await box.mount(waiting, reply)
        box.anchor()
        streamer = Streamer(reply, waiting)
        try:
            outcome = await service.respond(
                self.vault,
                session_id,
                text,
                streamer.write,
                save_user=save_user,
            )
        finally:
            await streamer.stop()
        if outcome.captured:
            # said as the panel says it: "Your sponsor is Dana", not "Their"; one note for
            # all a message said, not a stack of them over the conversation
            remembered = "\n".join(f"Remembered: {to_you(fact)}" for fact in outcome.captured)
            self.notify(remembered, title="What I know about you", markup=False)
        for change in outcome.to_confirm:
            self.notify(
                f"To confirm in What I know about you (F7): {change}",
                title="What I know about you",
                markup=False,
            )
        if outcome.offline:
            await reply.remove()
            told = any(text == OFFLINE for _, text in self.notes.get(session_id, []))
            await self.say(session_id, STILL_OFFLINE if told else OFFLINE)
        elif outcome.error is not None:
            if outcome.reply:
                await reply.append("\n\n*(reply incomplete: the connection stopped)*")
            else:
                await reply.remove()
            await self.say(
                session_id, f"{outcome.error} Press Ctrl+Y to retry; your message is kept."
            )
        self.replied(box)

    # -- session actions ----------------------------------------------------------------

    def action_new_session(self) -> None:
        self.close_session()
        self.refresh_data()
        self.query_one("#message", Input).focus()
        # A new chat starts with the user's first words: a greeting is a model call (a cost)
        # made only when Settings asks for it.
        if self.unlocked.gateway() is not None and settings.get(self.vault, "greet_new_chats"):
            self.session_id = chats.start_new(self.vault, self.off_record_next)
            self.off_record_next = False
            self.refresh_data()
            self.greet(self.session_id)

    @work(exclusive=True, group="coach")
    async def greet(self, session_id: int) -> None:
        from companion.coach import service

        box = self.query_one("#conversation", VerticalScroll)
        waiting = thinking()
        reply = Markdown("", classes="message assistant")
        await box.mount(waiting, reply)
        streamer = Streamer(reply, waiting)
        try:
            outcome = await service.greet(self.vault, session_id, streamer.write)
        finally:
            await streamer.stop()
        if outcome.error is not None and not outcome.reply:
            await reply.remove()
            await self.say(session_id, f"The coach could not say hello: {outcome.error}")
        self.replied(box)

    def replied(self, box: VerticalScroll) -> None:
        """A reply has ended: the conversation drawn again if the vault changed meanwhile
        (``stale``), else shown to its end."""
        if self.stale:
            self.stale = False
            self.show_conversation()
        else:
            box.scroll_end(animate=False)

    def close_session(self) -> None:
        if self.session_id is not None:
            from companion.coach import service

            service.close_session(self.vault, self.session_id)
            self.session_id = None

    def action_off_record(self) -> None:
        if self.session_id is None:
            self.off_record_next = not self.off_record_next
        else:
            session = chat.get_session(self.vault, self.session_id)
            chat.set_off_record(self.vault, self.session_id, not session.off_record)
        self.refresh_data()

    @on(OptionList.OptionSelected, "#sessions")
    def open_session(self, event: OptionList.OptionSelected) -> None:
        if event.option.id is None:
            return
        chosen = int(event.option.id)
        if chosen != self.session_id and self.workers_busy():
            self.notify(
                "The coach is still answering; open another chat when it has finished.",
                severity="warning",
            )
            return
        if chosen != self.session_id:
            self.close_session()
            self.session_id = chosen
        self.show_conversation()
        if self.app.size.width < self.WIDE:  # narrow: the list steps aside for the chat
            self.query_one("#chat").add_class("-narrow")
            self.query_one("#message", Input).focus()

    def highlighted(self) -> int | None:
        option = self.query_one("#sessions", OptionList).highlighted_option
        if self.focused is self.query_one("#sessions") and option and option.id:
            return int(option.id)
        return self.session_id

    def action_rename(self) -> None:
        target = self.highlighted()
        if target is None:
            return
        current = chat.get_session(self.vault, target).title

        def rename(title: str | None) -> None:
            if title is not None and title.strip():
                chat.rename(self.vault, target, title.strip())
                self.refresh_data()

        self.app.push_screen(PromptScreen("Rename chat", current, "Title"), rename)

    def action_delete_session(self) -> None:
        if self.focused is not self.query_one("#sessions"):
            return
        target = self.highlighted()
        if target is None:
            return

        def delete(yes: bool | None) -> None:
            if yes:
                learned = chats.delete(self.vault, target)
                if self.session_id == target:
                    self.session_id = None
                self.notify("Chat deleted.")
                self.refresh_data()
                self.after_delete(learned, "the deleted chat")

        self.app.push_screen(
            ConfirmScreen(
                "Delete this chat and all its messages? This cannot be undone.",
                "Delete",
                danger=True,
            ),
            delete,
        )

    # -- lock and quit ------------------------------------------------------------------

    def stash(self) -> None:
        if self.companion.vault is None:
            return
        text = self.query_one("#message", Input).value
        if text.strip():
            drafts.save(self.vault, "chat", text)
        else:
            drafts.discard(self.vault, "chat")
        self.close_session()
