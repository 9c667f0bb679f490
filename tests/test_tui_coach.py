"""The chat screen with a coach: replies stream in, failures keep the words and offer a retry,
crisis language brings up SOS at once (chat, journal, check-in note)."""

from __future__ import annotations

from companion.activity import chat
from companion.tui.screens.help import SosScreen
from tests.conftest import PASSPHRASE
from tests.fake_llm import status, text
from tests.tui_helpers import drive, screen_text, settle, unlock


def test_reply_streams_into_the_conversation(created, fake_llm) -> None:
    paths, _ = created
    fake_llm.push(text("That sounds like a **big** day. What helped?"))

    async def scenario(app, pilot):
        await unlock(pilot, PASSPHRASE, to="f6")
        app.screen.query_one("#message").value = "Made it through the party sober"
        await pilot.press("enter")
        await settle(pilot)
        return screen_text(app)

    screen = drive(paths, scenario)
    assert "Made it through the party sober" in screen
    assert "That sounds like a big day. What helped?" in screen  # rendered Markdown


def test_overloaded_then_retry(created, fake_llm) -> None:
    paths, _ = created
    fake_llm.push(status(529), text("I'm here now."))

    async def scenario(app, pilot):
        await unlock(pilot, PASSPHRASE, to="f6")
        app.screen.query_one("#message").value = "hello?"
        await pilot.press("enter")
        await settle(pilot)
        failed = screen_text(app)
        await pilot.press("ctrl+y")
        await settle(pilot)
        return failed, screen_text(app), app.screen.session_id

    failed, retried, session = drive(paths, scenario)
    assert "overloaded" in failed and "Ctrl+Y to retry" in failed
    assert "I'm here now." in retried
    from companion.vault import Vault

    with Vault.unlock(paths, PASSPHRASE, daily_backup=False) as vault:
        assert [m.content for m in chat.messages(vault, session)] == ["hello?", "I'm here now."]


def test_crisis_words_bring_up_sos_at_once(created, fake_llm) -> None:
    paths, _ = created

    async def scenario(app, pilot):
        await unlock(pilot, PASSPHRASE, to="f6")
        app.screen.query_one("#message").value = "i think about killing myself"
        await pilot.press("enter")
        await settle(pilot)
        in_chat = isinstance(app.screen, SosScreen)
        await pilot.press("escape")
        await pilot.press("f5")
        await settle(pilot)
        app.screen.query_one("#editor").insert("Tonight I wanted to end my life.")
        await pilot.press("ctrl+s")
        await settle(pilot)
        in_journal = isinstance(app.screen, SosScreen)
        return in_chat, in_journal, fake_llm.requests[-1]["body"]["system"]

    in_chat, in_journal, system = drive(paths, scenario)
    assert in_chat and in_journal
    assert "respond with warmth and care" in system.lower()


def test_waiting_for_the_coach_shows_and_a_new_chat_costs_no_call(created, fake_llm) -> None:
    import asyncio

    from tests.fake_llm import gated

    paths, _ = created
    fake_llm.push(gated(text("Here with you.")))

    async def scenario(app, pilot):
        await unlock(pilot, PASSPHRASE, to="f6")
        app.screen.query_one("#message").value = "long day"
        await pilot.press("enter")
        assert await asyncio.to_thread(fake_llm.received.wait, 30)
        await pilot.pause()
        waiting = screen_text(app)
        fake_llm.gate.set()
        await settle(pilot)
        answered = screen_text(app)
        calls = len(fake_llm.requests)
        await pilot.press("ctrl+n")  # a new chat: no greeting unless Settings asks for one
        await settle(pilot)
        return waiting, answered, calls, len(fake_llm.requests)

    waiting, answered, before, after = drive(paths, scenario)
    assert "The coach is thinking" in waiting
    assert "Here with you." in answered and "The coach is thinking" not in answered
    assert after == before


def test_at_80_columns_the_list_of_chats_steps_aside(created) -> None:
    from companion.activity import chat
    from companion.vault import Vault
    from tests.conftest import PASSPHRASE
    from tests.tui_helpers import drive, screen_text, settle, unlock

    paths, _ = created
    with Vault.unlock(paths, PASSPHRASE) as vault:
        old = chat.start(vault).id
        chat.add_message(vault, old, "user", "The landlord called about the heating.")
        chat.rename(vault, old, "Heating")

    async def scenario(app, pilot):
        await unlock(pilot, PASSPHRASE, to="f6")
        hidden = screen_text(app)
        await pilot.press("ctrl+b")
        await settle(pilot)
        shown = screen_text(app)
        await pilot.press("enter")  # open the highlighted chat
        await settle(pilot)
        return hidden, shown, screen_text(app), app.focused.id

    hidden, shown, opened, focused = drive(paths, scenario, size=(80, 24))
    import re

    listed = re.compile(r"\d{4}-\d\d-\d\d Heating")  # a row of the list, not the title
    assert not listed.search(hidden) and "^b Chats" in hidden
    assert listed.search(shown)
    assert "The landlord called about the heating." in opened and focused == "message"


def test_the_reply_to_words_of_danger_shows_after_the_crisis_screen_closes(
    created, fake_llm
) -> None:
    """The crisis screen comes up at once, over a reply still on its way; closed before the
    reply ends, the reply still appears in the conversation, and in full."""
    import asyncio

    from tests.fake_llm import gated

    paths, _ = created
    fake_llm.push(gated(text("I'm really glad you told me. Are you safe right now?")))

    async def scenario(app, pilot):
        await unlock(pilot, PASSPHRASE, to="f6")
        app.screen.query_one("#message").value = "everyone would be better off without me"
        await pilot.press("enter")
        assert await asyncio.to_thread(fake_llm.received.wait, 30)
        await pilot.pause()
        crisis = isinstance(app.screen, SosScreen)
        await pilot.press("escape")
        await pilot.pause()  # not settle: the reply is held until the gate opens
        fake_llm.gate.set()
        await settle(pilot)
        return crisis, screen_text(app)

    crisis, shown = drive(paths, scenario)
    assert crisis
    assert "everyone would be better off without me" in shown
    assert "Are you safe right now?" in shown
    assert shown.count("I'm really glad you told me.") == 1


def test_another_chat_waits_until_the_reply_has_ended(created, fake_llm) -> None:
    """Opening another chat while the coach answers would cut the reply off: it is refused
    with a word, and the reply arrives whole."""
    import asyncio

    from companion.vault import Vault
    from tests.fake_llm import gated

    paths, _ = created
    with Vault.unlock(paths, PASSPHRASE, daily_backup=False) as vault:
        # off the record: nothing to memorize on unlock, so the one call is the reply
        older = chat.start(vault, "Heating", off_record=True).id
        chat.add_message(vault, older, "user", "The landlord called about the heating.")
        chat.end(vault, older)
    fake_llm.push(gated(text("Glad the meeting helped.")))

    async def scenario(app, pilot):
        await unlock(pilot, PASSPHRASE, to="f6")
        await pilot.press("ctrl+n")
        app.screen.query_one("#message").value = "the meeting helped tonight"
        await pilot.press("enter")
        assert await asyncio.to_thread(fake_llm.received.wait, 30)
        answering = app.screen.session_id
        app.screen.query_one("#sessions").focus()
        await pilot.pause()
        rows = app.screen.query_one("#sessions")
        rows.highlighted = [o.id for o in rows.options].index(str(older))
        await pilot.press("enter")
        await pilot.pause()
        still = app.screen.session_id
        said = [n.message for n in app._notifications]
        fake_llm.gate.set()
        await settle(pilot)
        return answering, still, said, screen_text(app)

    answering, still, said, shown = drive(paths, scenario, size=(120, 30))
    assert still == answering
    assert any("still answering" in message for message in said)
    assert "Glad the meeting helped." in shown


def test_a_greeting_that_failed_still_says_so_after_help(created, fake_llm) -> None:
    """With greetings on, a new chat whose greeting fails says so, and the word stays when
    the person looks at Help and comes back (a redraw erased it)."""
    from companion.vault import Vault, settings

    paths, _ = created
    with Vault.unlock(paths, PASSPHRASE, daily_backup=False) as vault:
        settings.put(vault, "greet_new_chats", True)
    fake_llm.push(status(529), status(529), status(529), status(529))

    async def scenario(app, pilot):
        await unlock(pilot, PASSPHRASE, to="f6")
        await pilot.press("ctrl+n")
        await settle(pilot)
        first = screen_text(app)
        await pilot.press("f1")
        await settle(pilot)
        await pilot.press("escape")
        await settle(pilot)
        return first, screen_text(app)

    first, after_help = drive(paths, scenario)
    assert "could not say hello" in first
    assert "could not say hello" in after_help
