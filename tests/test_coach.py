"""The coach against the loopback Messages API fake: real SDK, real HTTP, SSE streaming."""

from __future__ import annotations

import asyncio
import re
from datetime import datetime, timedelta

import pytest

from companion import clock
from companion.activity import chat, checkins, journal, profile
from companion.coach import context, service
from companion.llm import Gateway, ProviderConfig, ledger
from companion.llm.tokens import CLAUDE_BUDGET, LOCAL_BUDGET, estimate
from companion.memory import forgetting, store
from companion.vault import settings
from companion.vault.models import Fact, SessionSummary
from tests.fake_llm import hang, status, text, truncate


def memory_section(system: str) -> str:
    return system[system.index(context.HEADER) :]


def run(coro):  # type: ignore[no-untyped-def]
    return asyncio.run(coro)


def test_reply_streams_and_the_request_carries_memory_within_budget(vault, fake_llm) -> None:
    profile.update(
        vault,
        {
            "preferred_name": "Sam",
            "recovery_start_date": "2026-01-01",
            "known_triggers": "work stress",
        },
    )
    for i in range(80):  # far more than fits
        store.add_fact(vault, f"Fact number {i} about a long and winding life story", "misc")
    store.add_fact(vault, "Prefers short answers", "preferences", source="said")
    fake_llm.push(text("Good to hear from you, Sam. How did today go?"))
    session = chat.start(vault).id
    pieces: list[str] = []
    outcome = run(service.respond(vault, session, "hello again", on_text=pieces.append))
    assert outcome.error is None
    assert "".join(pieces) == "Good to hear from you, Sam. How did today go?"
    assert len(pieces) > 3  # it streamed
    body = fake_llm.requests[-1]["body"]
    assert body["stream"] is True and body["messages"][-1]["content"] == "hello again"
    section = memory_section(body["system"])
    assert estimate(section) <= CLAUDE_BUDGET
    assert "Name: Sam" in section and "Prefers short answers" in section
    saved = chat.messages(vault, session)
    assert [m.role for m in saved] == ["user", "assistant"]
    call = ledger.calls(vault)[0]
    assert (call.purpose, call.status, call.input_tokens, call.output_tokens) == (
        "chat",
        "ok",
        120,
        40,
    )
    assert call.cost_usd > 0


def test_a_fact_added_appears_and_a_deleted_fact_disappears(vault, fake_llm) -> None:
    session = chat.start(vault).id
    fact = store.add_fact(vault, "Has a dog called Biscuit", "relationships")
    run(service.respond(vault, session, "morning"))
    assert "Biscuit" in fake_llm.requests[-1]["body"]["system"]
    forgetting.forget_fact(vault, fact)
    run(service.respond(vault, session, "and now?"))
    assert "Biscuit" not in fake_llm.requests[-1]["body"]["system"]


@pytest.mark.parametrize(
    ("behaviour", "kind", "words"),
    [
        (status(429), "429", "Too many requests"),
        (status(529), "529", "overloaded"),
        (status(500), "500", "error"),
        (status(401), "401", "API key was refused"),
        (hang(), "timeout", "No answer in time"),
    ],
)
def test_errors_keep_the_message_and_say_what_happened(
    vault, fake_llm, behaviour, kind, words
) -> None:
    fake_llm.push(behaviour)
    session = chat.start(vault).id
    outcome = run(service.respond(vault, session, "are you there?"))
    assert outcome.error is not None and outcome.error.kind == kind
    assert words in str(outcome.error)
    assert [m.content for m in chat.messages(vault, session)] == ["are you there?"]
    call = ledger.calls(vault)[0]
    assert call.status == "error" and call.error == kind


def test_a_truncated_stream_keeps_the_half_reply_marked_incomplete(vault, fake_llm) -> None:
    fake_llm.push(truncate("I hear you, and I think the first thing"), text("Second try."))
    session = chat.start(vault).id
    outcome = run(service.respond(vault, session, "tell me"))
    assert outcome.error is not None
    saved = chat.messages(vault, session)
    assert saved[-1].incomplete and saved[-1].content.startswith("I hear you")
    # a retry sends the conversation without the broken half-reply
    retry = run(service.respond(vault, session, "tell me", save_user=False))
    assert retry.reply == "Second try."
    sent = fake_llm.requests[-1]["body"]["messages"]
    assert sent == [{"role": "user", "content": "tell me"}]


def test_local_provider_and_its_small_budget(vault, fake_llm) -> None:
    for i in range(40):
        store.add_fact(vault, f"Something worth knowing number {i}", "misc")
    config = ProviderConfig("local", "llama3.2", base_url=fake_llm.url + "/v1", timeout=2)
    fake_llm.push(text("Local hello"))
    session = chat.start(vault).id
    outcome = run(service.respond(vault, session, "hi", gateway=Gateway(vault, config)))
    assert outcome.reply.strip() == "Local hello"
    request = fake_llm.requests[-1]
    assert request["path"] == "/v1/chat/completions"
    system = request["body"]["messages"][0]["content"]
    assert estimate(memory_section(system)) <= LOCAL_BUDGET
    assert ledger.calls(vault)[0].cost_usd == 0.0


def test_offline_capture_and_off_the_record(vault, fake_llm) -> None:
    remembered = chat.start(vault).id
    run(service.respond(vault, remembered, "My sponsor is Dana. I prefer short answers."))
    facts = {f.text: f for f in store.live_facts(vault)}
    assert facts["Their sponsor is Dana"].source == "said"
    assert facts["Prefers short answers"].evidence[0].startswith("chat_message:")
    secret = chat.start(vault, off_record=True).id
    run(service.respond(vault, secret, "I prefer tea. My therapist is Dr. Vance, lighthouse."))
    service.close_session(vault, secret)
    service.close_session(vault, remembered)
    texts = {f.text for f in store.live_facts(vault)}
    assert "Prefers tea" not in texts and not any("Vance" in t for t in texts)
    assert SessionSummary.get_or_none(SessionSummary.session == secret) is None
    assert SessionSummary.get_or_none(SessionSummary.session == remembered) is not None
    fake_llm.push(text("ok"))
    later = chat.start(vault).id
    run(service.respond(vault, later, "do you remember what I said about the lighthouse?"))
    assert "Vance" not in fake_llm.requests[-1]["body"]["system"]


def test_crisis_language_adds_the_care_instruction(vault, fake_llm) -> None:
    session = chat.start(vault).id
    outcome = run(
        service.respond(
            vault,
            session,
            "i dont want to be alive anymore",
            crisis_lines="988 Suicide & Crisis Lifeline: call or text 988",
        )
    )
    assert outcome.crisis
    system = fake_llm.requests[-1]["body"]["system"]
    assert "respond with warmth and care" in system.lower() and "988" in system


def test_recall_gives_dated_matches(vault, fake_llm) -> None:
    now = datetime(2026, 3, 12, 20, 0).astimezone()
    clock.set_clock(lambda: now)
    journal.add(vault, "Walked to the lighthouse and felt calm", when=now - timedelta(days=1))
    journal.add(vault, "Busy day at work", when=now - timedelta(days=1))
    session = chat.start(vault).id
    run(service.respond(vault, session, "What did I write about the lighthouse yesterday?"))
    section = memory_section(fake_llm.requests[-1]["body"]["system"])
    assert re.search(r"\[2026-03-11\] journal: Walked to the lighthouse", section)
    assert "Busy day" not in section


def test_greeting_uses_the_memory_section(vault, fake_llm) -> None:
    profile.update(vault, {"preferred_name": "Robin"})
    fake_llm.push(text("Hi Robin, welcome back."))
    session = chat.start(vault).id
    outcome = run(service.greet(vault, session))
    assert outcome.reply == "Hi Robin, welcome back."
    assert "Name: Robin" in fake_llm.requests[-1]["body"]["system"]
    assert ledger.calls(vault)[0].purpose == "greeting"


def test_week_of_checkins_with_notes_reaches_the_coach(vault, fake_llm) -> None:
    checkins.record(vault, clock.today(), mood=4, note="rough morning, skipped lunch")
    run(service.respond(vault, chat.start(vault).id, "hi"))
    assert "skipped lunch" in fake_llm.requests[-1]["body"]["system"]


def test_no_key_means_offline_and_the_message_is_kept(vault, monkeypatch) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    assert settings.get(vault, "anthropic_api_key") == ""
    session = chat.start(vault).id
    outcome = run(service.respond(vault, session, "anyone?"))
    assert outcome.offline and [m.content for m in chat.messages(vault, session)] == ["anyone?"]


def test_expired_conversation_facts_leave_the_context(vault) -> None:
    now = datetime(2026, 3, 1, 9, 0).astimezone()
    clock.set_clock(lambda: now)
    store.add_fact(vault, "Has an interview on Friday", "events", tier="conversation")
    assert "interview" in context.build(vault).text
    clock.set_clock(lambda: now + timedelta(days=8))
    assert "interview" not in context.build(vault).text
    assert Fact.select().count() == 1  # still in history


def test_cli_chat_streams_and_shows_context(created, passfile, fake_llm) -> None:
    from tests.conftest import child_env, run_cli

    env = child_env()
    fake_llm.push(text("Take it one hour at a time."))
    result = run_cli("--passphrase-file", str(passfile), "chat", "I prefer plain words.", env=env)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "Take it one hour at a time."
    assert "(remembered: Prefers plain words)" in result.stderr
    before = len(fake_llm.requests)
    shown = run_cli("--passphrase-file", str(passfile), "chat", "--show-context", "hello", env=env)
    assert shown.returncode == 0
    assert shown.stdout.startswith(context.HEADER) and "Prefers plain words" in shown.stdout
    assert "tokens of a 600-token budget" in shown.stderr
    assert len(fake_llm.requests) == before  # no call was made


def test_cli_chat_prints_crisis_lines_and_survives_errors(created, passfile, fake_llm) -> None:
    from tests.conftest import child_env, run_cli

    fake_llm.push(status(529))
    result = run_cli(
        "--passphrase-file",
        str(passfile),
        "chat",
        "i want to end my life",
        env=child_env(LANG="en_US.UTF-8"),
    )
    assert "988" in result.stderr
    assert result.returncode == 69 and "overloaded" in result.stderr
    assert "Your message is saved" in result.stderr


def test_a_call_cut_short_is_in_the_ledger_with_estimated_tokens(vault, fake_llm) -> None:
    """Lock or quit mid-reply: the provider still bills the call, so the ledger shows it."""
    fake_llm.push(hang())
    session = chat.start(vault).id
    question = "Tell me about cravings. " * 40

    async def lock_mid_call() -> None:
        task = asyncio.create_task(service.respond(vault, session, question))
        assert await asyncio.to_thread(fake_llm.received.wait, 30)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    run(lock_mid_call())
    call = ledger.calls(vault)[0]
    assert call.status == "error" and call.error == ledger.CANCELLED
    sent = fake_llm.requests[-1]["body"]
    assert call.input_tokens >= estimate(sent["system"] + question)
    assert call.cost_usd > 0
    assert [m.content for m in chat.messages(vault, session)] == [question]


def test_a_conversation_left_idle_ends_when_it_stopped_not_when_noticed(vault) -> None:
    talked = datetime(2026, 5, 2, 22, 10).astimezone()
    clock.set_clock(lambda: talked)
    session = chat.start(vault).id
    chat.add_message(vault, session, "user", "Can't sleep, thinking about a drink.")
    clock.set_clock(lambda: talked + timedelta(minutes=29))
    assert service.resumable_session(vault) == session, "half an hour has not passed"
    clock.set_clock(lambda: talked + timedelta(hours=9))  # the next morning
    assert service.resumable_session(vault) is None
    ended = chat.get_session(vault, session).ended_at
    assert ended is not None and abs(ended - talked) < timedelta(seconds=1)
    summary = SessionSummary.get(SessionSummary.session == session)
    assert (
        "Can't sleep" in vault.unseal(SessionSummary, summary.id, summary.payload)["summary_text"]
    )


def test_closing_a_quiet_session_late_dates_its_end_to_the_last_message(vault) -> None:
    """A lock hours after the last word (auto-lock can be 4 hours) must not stretch the chat."""
    talked = datetime(2026, 5, 3, 19, 0).astimezone()
    clock.set_clock(lambda: talked)
    quiet, lively = chat.start(vault).id, chat.start(vault).id
    chat.add_message(vault, quiet, "user", "Going to bed early.")
    chat.add_message(vault, lively, "user", "Still here.")
    clock.set_clock(lambda: talked + timedelta(minutes=10))
    service.close_session(vault, lively)
    clock.set_clock(lambda: talked + timedelta(hours=3))
    service.close_session(vault, quiet)
    assert abs(chat.get_session(vault, quiet).ended_at - talked) < timedelta(seconds=1)
    ended = chat.get_session(vault, lively).ended_at
    assert abs(ended - (talked + timedelta(minutes=10))) < timedelta(seconds=1)


def test_a_clock_that_went_back_does_not_split_a_chat(vault) -> None:
    """Yesterday's date on the clock (a time zone change, a wrong clock): the messages of one
    conversation stay in one session."""
    from companion.usecases import chats

    clock.set_clock(lambda: datetime(2026, 3, 12, 20, 0).astimezone())
    first = chats.session_for_message(vault)
    chat.add_message(vault, first, "user", "tonight was long")
    service.close_session(vault, first)  # an earlier conversation, closed
    clock.set_clock(lambda: datetime(2026, 3, 11, 20, 0).astimezone())  # the clock goes back
    ids = []
    for text_ in ("one", "two", "three"):
        ids.append(chats.session_for_message(vault))
        chat.add_message(vault, ids[-1], "user", text_)
    assert len(set(ids)) == 1
