"""The daily memory in the app: extraction runs on unlock in the background, the panel fills in
while the user keeps typing, and what it learned can be reviewed, traced and confirmed."""

from __future__ import annotations

import asyncio
from datetime import date

from companion.activity import journal
from companion.memory import forgetting, store, summaries
from companion.memory.pending import PENDING_KEY
from companion.tui.screens.journal import JournalScreen
from companion.tui.screens.modals import ConfirmScreen, TextScreen
from companion.vault import Vault, settings
from tests.conftest import PASSPHRASE
from tests.extraction_helpers import answer
from tests.fake_llm import gated, tool
from tests.tui_helpers import drive, screen_text, settle, unlock


def test_panel_fills_in_while_the_user_keeps_typing(created, fake_llm, monkeypatch) -> None:
    monkeypatch.setenv("COMPANION_TIMEOUT", "30")  # the call stays in flight while we type
    paths, _ = created
    with Vault.unlock(paths, PASSPHRASE) as vault:
        entry = journal.add(vault, "I always feel better after the Saturday meeting.").id
    fake_llm.push(
        gated(
            tool(
                answer(
                    facts={
                        "add": [
                            {
                                "text": "Feels better after the Saturday meeting",
                                "category": "recovery",
                                "tier": "semantic",
                                "evidence": [f"journal_entry:{entry}"],
                            }
                        ]
                    }
                )
            )
        )
    )

    async def scenario(app, pilot):
        app.screen.query_one("#passphrase").value = PASSPHRASE
        await pilot.press("enter")
        # Extraction starts in the background once the app has warmed up; wait for the call
        # to reach the fake (not for workers: this one is held until the gate opens).
        await asyncio.get_running_loop().run_in_executor(None, fake_llm.received.wait, 30)
        await pilot.press("f5")
        await pilot.pause()
        editor = app.screen.query_one("#editor")
        editor.focus()
        for key in "still typing":  # the call is in flight, typing goes on
            await pilot.press(key if key != " " else "space")
        assert editor.text == "still typing"
        await pilot.press("f7")
        await pilot.pause()
        during = screen_text(app)
        fake_llm.gate.set()
        await settle(pilot)
        after = screen_text(app)
        await pilot.press("f5")
        await pilot.pause()
        assert isinstance(app.screen, JournalScreen)
        return during, after, app.screen.query_one("#editor").text

    during, after, typed = drive(paths, scenario)
    assert "Extraction: running" in during
    assert "Feels better after the Saturday meeting" in after
    assert "+1 / ~0 / -0" in after
    assert typed == "still typing"


def test_review_history_and_confirmations(created, fake_llm) -> None:
    paths, _ = created
    with Vault.unlock(paths, PASSPHRASE) as vault:
        entry = journal.add(vault, "Switched my sober date, it's really March 3rd.").id
        old = store.add_fact(
            vault, "Sleeps badly", "health", source="learned", evidence=[f"journal_entry:{entry}"]
        )
    ref = f"journal_entry:{entry}"
    fake_llm.push(
        tool(
            answer(
                facts={
                    "update": [{"id": old, "text": "Sleeps better since April", "evidence": [ref]}]
                },
                profile_updates=[
                    {"field": "recovery_start_date", "value": "2026-03-03", "evidence": [ref]}
                ],
            )
        )
    )

    async def scenario(app, pilot):
        await unlock(pilot, PASSPHRASE, to="f7")
        facts = app.screen.query_one("#facts")
        facts.focus()
        texts = [str(facts.get_option_at_index(i).prompt) for i in range(facts.option_count)]
        facts.highlighted = next(i for i, t in enumerate(texts) if "Sleeps better" in t)
        await pilot.press("h")
        await settle(pilot)
        assert isinstance(app.screen, TextScreen)
        history = screen_text(app)
        await pilot.press("escape")
        await pilot.press("v")
        await settle(pilot)
        review = screen_text(app)
        await pilot.press("escape")
        facts.highlighted = next(i for i, t in enumerate(texts) if "recovery start date" in t)
        await pilot.press("y")
        await settle(pilot)
        return history, review

    history, review = drive(paths, scenario)
    assert "Sleeps better since April" in history and "Sleeps badly" in history
    assert "~ Sleeps badly -> Sleeps better since April" in review
    with Vault.unlock(paths, PASSPHRASE, daily_backup=False) as vault:
        from companion.activity import profile

        assert profile.load(vault)["recovery_start_date"] == "2026-03-03"
        assert settings.get(vault, PENDING_KEY) == []


def test_deleting_an_entry_offers_to_forget_what_came_from_it(created) -> None:
    paths, _ = created
    with Vault.unlock(paths, PASSPHRASE) as vault:
        entry = journal.add(vault, "My brother's visit went badly.").id
        store.add_fact(
            vault,
            "Visits with his brother are hard",
            "relationships",
            source="learned",
            evidence=[f"journal_entry:{entry}"],
        )

    async def scenario(app, pilot):
        await unlock(pilot, PASSPHRASE, to="f5")
        entries = app.screen.query_one("#entries")
        entries.focus()
        entries.highlighted = 0
        await pilot.press("delete")
        await settle(pilot)
        await pilot.click("#yes")  # delete the entry
        await settle(pilot)
        assert isinstance(app.screen, ConfirmScreen)
        assert "Visits with his brother are hard" in screen_text(app)
        await pilot.click("#yes")  # forget what came from it
        await settle(pilot)

    drive(paths, scenario)
    with Vault.unlock(paths, PASSPHRASE, daily_backup=False) as vault:
        assert store.live_facts(vault) == []


def test_import_from_the_app_with_progress(created, tmp_path) -> None:
    import json

    from tests.test_import import day_one_document

    paths, _ = created
    source = tmp_path / "Journal.json"
    source.write_text(json.dumps(day_one_document()))

    async def scenario(app, pilot):
        await unlock(pilot, PASSPHRASE)
        await pilot.press("ctrl+p")
        await settle(pilot)
        await pilot.press(*"Import history")
        await pilot.press("enter")
        await settle(pilot)
        from textual.widgets import Select

        app.screen.query_one("#kind", Select).value = "dayone"
        app.screen.query_one("#path").value = str(source)
        await pilot.click("#yes")
        await settle(pilot)
        report = screen_text(app)
        await pilot.click("#no")
        await pilot.press("f5")
        await settle(pilot)
        return report, screen_text(app)

    report, journal_screen = drive(paths, scenario)
    assert "added 2 entries" in report and "skipped 3 attachments" in report
    assert "not sent to the coach" in report
    assert "Back home." in journal_screen


def test_a_question_about_a_fact_you_wrote_and_undoing_a_delete(created, fake_llm) -> None:
    paths, _ = created
    with Vault.unlock(paths, PASSPHRASE) as vault:
        mine = store.add_fact(vault, "Lives in Leeds", "identity", source="wrote")
        store.add_fact(vault, "Drinks tea at night", "health", source="learned")
        entry = journal.add(vault, "First night in the new flat in York.").id
    ref = f"journal_entry:{entry}"
    fake_llm.push(
        tool(
            answer(
                facts={
                    "update": [
                        {"id": mine, "text": "Lives in York", "reason": "moved", "evidence": [ref]}
                    ]
                }
            )
        )
    )

    def index_of(facts, words: str) -> int:  # type: ignore[no-untyped-def]
        texts = [str(facts.get_option_at_index(i).prompt) for i in range(facts.option_count)]
        return next(i for i, t in enumerate(texts) if words in t)

    async def scenario(app, pilot):
        await unlock(pilot, PASSPHRASE, to="f7")
        asked = screen_text(app)
        facts = app.screen.query_one("#facts")
        facts.focus()
        facts.highlighted = index_of(facts, "You wrote")
        await pilot.press("y")
        await settle(pilot)
        facts.highlighted = index_of(facts, "Drinks tea at night")
        await pilot.press("delete")
        await settle(pilot)
        await pilot.click("#yes")
        await settle(pilot)
        deleted = screen_text(app)
        facts.highlighted = index_of(facts, "Drinks tea at night")
        await pilot.press("u")
        await settle(pilot)
        return asked, deleted, screen_text(app)

    asked, deleted, undone = drive(paths, scenario)
    assert "You wrote “Lives in Leeds”" in asked and "Update?" in asked
    assert "Deleted (u brings one back)" in deleted
    assert "Drinks tea at night  (until" in deleted
    assert "Deleted (u brings one back)" not in undone and "Drinks tea at night" in undone
    with Vault.unlock(paths, PASSPHRASE, daily_backup=False) as vault:
        live = {f.text: f for f in store.live_facts(vault)}
        assert "Lives in York" in live and live["Lives in York"].locked
        assert "Lives in Leeds" not in live and "Drinks tea at night" in live


def test_the_panel_speaks_to_you_about_what_it_learned(created) -> None:
    paths, _ = created
    with Vault.unlock(paths, PASSPHRASE) as vault:
        store.add_fact(vault, "Their sponsor is Dana", "relationships", source="said")
        store.add_fact(vault, "Maya lent them 400 dollars", "relationships", source="learned")
        store.add_fact(vault, "Their dog barks all night", "home", source="wrote")  # neighbours

    async def scenario(app, pilot):
        await unlock(pilot, PASSPHRASE, to="f7")
        return screen_text(app)

    text = drive(paths, scenario)
    assert "Your sponsor is Dana" in text and "Maya lent you 400 dollars" in text
    assert "Their dog barks all night" in text  # your own words stay yours


def test_with_the_coach_offline_the_panel_says_why_nothing_is_learned(created) -> None:
    """Without a provider no memory update ever runs: "never run yet" and "one is made when
    you unlock on a new day" would promise one that never comes."""
    paths, _ = created
    with Vault.unlock(paths, PASSPHRASE) as vault:
        journal.add(vault, "Called my sponsor before the meeting.")

    async def scenario(app, pilot):
        await unlock(pilot, PASSPHRASE, to="f7")
        return screen_text(app)

    lines = [line.split("│") for line in drive(paths, scenario).splitlines()]
    facts, daily = (
        " ".join(" ".join(row[i] for row in lines if len(row) == 2).split()) for i in (0, 1)
    )
    assert "never run yet" not in facts
    assert "Extraction: waits, the coach is offline: set up a provider in Settings (F10)." in facts
    assert "something new to learn from, once the coach is set up (Settings, F10)." in daily
    # Offline only what is said plainly in chat is kept: "I learn as you go" promised more.
    assert "I learn as you go" not in facts
    assert 'say it plainly in chat ("my sponsor is Dana")' in facts


def test_a_fact_half_edited_when_the_vault_locks_comes_back(created) -> None:
    """Editing a fact, the vault locks (idle or Ctrl+L): after unlock the memory panel opens
    the same dialog with the words typed, and saving it changes the fact."""
    paths, _ = created
    with Vault.unlock(paths, PASSPHRASE) as vault:
        fact_id = store.add_fact(vault, "Sponsor is Dana", "relationships", source="wrote")

    async def scenario(app, pilot):
        await unlock(pilot, PASSPHRASE, to="f7")
        app.screen.query_one("#facts").highlighted = next(
            i
            for i in range(app.screen.query_one("#facts").option_count)
            if app.screen.query_one("#facts").get_option_at_index(i).id == str(fact_id)
        )
        await pilot.press("e")
        await settle(pilot)
        await pilot.press("end", *" since March")
        await pilot.press("ctrl+l")
        await settle(pilot)
        assert app.vault is None and "since March" not in screen_text(app)
        await unlock(pilot, PASSPHRASE, to="f7")
        dialog_text = app.screen.query_one("#value").value
        await pilot.press("enter")
        await settle(pilot)
        return dialog_text

    assert drive(paths, scenario) == "Sponsor is Dana since March"
    with Vault.unlock(paths, PASSPHRASE, daily_backup=False) as vault:
        texts = [f.text for f in store.live_facts(vault)]
    assert "Sponsor is Dana since March" in texts and "Sponsor is Dana" not in texts


def test_a_fact_just_added_is_edited_pinned_and_deleted_with_keys_alone(created) -> None:
    """At 80x24, from the keyboard only: the fact just added is the highlighted one, so e, p
    and Delete act on it; once it is deleted, its neighbour is highlighted."""
    paths, _ = created
    with Vault.unlock(paths, PASSPHRASE) as vault:
        store.add_fact(vault, "Walks the dog at six", "routines", source="wrote")

    async def scenario(app, pilot):
        await unlock(pilot, PASSPHRASE, to="f7")
        await pilot.press("a")
        await settle(pilot)
        await pilot.press(*"Sponsor is Sam", "tab", "enter")  # category left to the app
        await settle(pilot)
        await pilot.press("e")
        await settle(pilot)
        editing = screen_text(app)
        await pilot.press("end", *" on Wednesdays", "enter")
        await settle(pilot)
        await pilot.press("p")
        await settle(pilot)
        pinned = screen_text(app)
        await pilot.press("delete")
        await settle(pilot)
        await pilot.press("shift+tab", "enter")  # from Cancel to Delete
        await settle(pilot)
        await pilot.press("e")
        await settle(pilot)
        return editing, pinned, app.screen.query_one("#value").value

    editing, pinned, neighbour = drive(paths, scenario, size=(80, 24))
    assert "Edit fact" in editing and "Sponsor is Sam" in editing
    assert "(pinned) Sponsor is Sam on Wednesdays" in pinned
    assert neighbour == "Walks the dog at six"
    with Vault.unlock(paths, PASSPHRASE, daily_backup=False) as vault:
        assert [f.text for f in store.live_facts(vault)] == ["Walks the dog at six"]


def test_u_right_after_a_delete_brings_that_fact_back(created) -> None:
    """The message after a delete offers "u"; the highlight has moved on to the neighbour, and
    "u" said "pick a deleted fact first". It brings back the fact just deleted."""
    paths, _ = created
    with Vault.unlock(paths, PASSPHRASE) as vault:
        store.add_fact(vault, "Walks the dog at six", "routines", source="wrote")
        store.add_fact(vault, "Sponsor is Sam", "routines", source="wrote")

    async def scenario(app, pilot):
        await unlock(pilot, PASSPHRASE, to="f7")
        app.screen.query_one("#facts").focus()
        await pilot.press("delete")
        await settle(pilot)
        await pilot.press("shift+tab", "enter")  # from Cancel to Delete
        await settle(pilot)
        await pilot.press("u")
        await settle(pilot)
        return [n.message for n in app._notifications]

    said = drive(paths, scenario, size=(80, 24))
    assert said[-1] == "Brought back."
    with Vault.unlock(paths, PASSPHRASE, daily_backup=False) as vault:
        assert len(store.live_facts(vault)) == 2


def test_keys_that_need_a_fact_say_how_to_pick_one(created) -> None:
    """With no fact to act on, e says what to do instead of nothing; on a deleted fact it says
    to pick a fact, and u brings the deleted one back, highlighted for e."""
    paths, _ = created

    def toasts(app) -> list[str]:  # type: ignore[no-untyped-def]
        # The app's own list: Pilot's apps draw no toasts.
        return [n.message for n in app._notifications]

    async def empty(app, pilot):
        await unlock(pilot, PASSPHRASE, to="f7")
        await pilot.press("e")
        await settle(pilot)
        await pilot.press("tab")  # the short daily memory is not a Tab stop
        return toasts(app), app.focused.id

    said, focused = drive(paths, empty, size=(80, 24))
    assert said == ["No facts yet: press a to add one."]
    assert focused == "facts"

    with Vault.unlock(paths, PASSPHRASE) as vault:
        store.add_fact(vault, "Sponsor is Dana", "relationships", source="wrote")
        forgetting.forget_fact(vault, store.add_fact(vault, "Drinks tea at night", "health"))

    async def deleted(app, pilot):
        await unlock(pilot, PASSPHRASE, to="f7")
        await pilot.press("end", "e")  # the last row: the deleted fact
        await settle(pilot)
        said = toasts(app)
        await pilot.press("u")
        await settle(pilot)
        await pilot.press("e")
        await settle(pilot)
        return said, app.screen.query_one("#value").value

    said, editing = drive(paths, deleted, size=(80, 24))
    assert said == ["Pick a fact first (↑/↓)."]
    assert editing == "Drinks tea at night"


def test_a_long_daily_memory_is_read_with_tab_and_the_arrows(created) -> None:
    """At 80x24 a daily memory longer than its pane is a Tab stop, whose End shows its last
    line; Shift+Tab goes back to the facts, the first one highlighted since entering."""
    paths, _ = created
    today = date(2026, 5, 4)
    with Vault.unlock(paths, PASSPHRASE) as vault:
        store.add_fact(vault, "Sponsor is Dana", "relationships", source="wrote")
        follow_ups = [f"Follow-up number {n}" for n in range(1, 30)] + ["Call the dentist"]
        summaries.add_daily_memory(vault, today, today, today, {"follow_ups": follow_ups})

    async def scenario(app, pilot):
        await unlock(pilot, PASSPHRASE, to="f7")
        before = screen_text(app)
        await pilot.press("tab")
        pane = app.focused.id
        await pilot.press("end")
        await settle(pilot)
        after = screen_text(app)
        await pilot.press("shift+tab", "e")
        await settle(pilot)
        return before, pane, after, app.screen.query_one("#value").value

    before, pane, after, editing = drive(paths, scenario, size=(80, 24))
    assert "Call the dentist" not in before
    assert pane == "daily-pane" and "Call the dentist" in after
    assert editing == "Sponsor is Dana"


def test_every_line_of_a_fact_shows_after_the_list_is_refilled(created) -> None:
    """A fact that wraps onto a third line beside the scrollbar keeps all three after the
    list is refilled (a fact said in chat): emptied, the list had no scrollbar, its rows were
    measured two columns wider, and one was drawn in two lines, without its date."""
    paths, _ = created
    with Vault.unlock(paths, PASSPHRASE) as vault:
        for text, category in (
            ("Wants to be called Sam", "identity"),
            ("Wants the coach not to ask them about their weight, or their diet", "preferences"),
            ("Wants the coach not to call it a relapse if they slip", "preferences"),
            ("Does not like meditation apps", "preferences"),
            ("Does not like phone calls", "preferences"),
            ("Their sponsor is Dana, she has 12 years", "relationships"),
            ("Their little brother is Mateo, he's 15", "relationships"),
            ("Their roommate's name is Devon", "relationships"),
        ):
            store.add_fact(vault, text, category, source="said")

    async def scenario(app, pilot):
        await unlock(pilot, PASSPHRASE, to="f7")
        await pilot.press("f6")
        await settle(pilot)
        app.screen.query_one("#message").value = "i really dislike loud music"
        await pilot.press("enter")
        await settle(pilot)
        await pilot.press("f7")
        await settle(pilot)
        facts = app.screen.query_one("#facts")
        # the lines each row is drawn in, against the lines its words take beside the
        # scrollbar, at the width the rows have now
        padding = facts.get_component_styles("option-list--option").padding.width
        width = facts.scrollable_content_region.width - padding
        return [
            (facts._heights[i], facts._get_visual(o).get_height(facts.styles, width))
            for i, o in enumerate(facts.options)
        ], facts.show_vertical_scrollbar

    rows, scrollbar = drive(paths, scenario, size=(80, 24))
    assert scrollbar
    assert all(drawn == needed for drawn, needed in rows), rows


def test_a_fact_added_without_a_category_is_filed_where_the_chat_would_file_it(created) -> None:
    """The Add dialog filled in "preferences", so "My sponsor is Dana" was filed as a
    preference unless the person changed it; left empty, the category is the chat's."""
    paths, _ = created

    async def scenario(app, pilot):
        await unlock(pilot, PASSPHRASE, to="f7")
        await pilot.press("a")
        await settle(pilot)
        category = app.screen.query_one("#extra").value
        await pilot.press(*"My sponsor is Dana", "enter")
        await settle(pilot)
        return category, [(f.text, f.category) for f in store.live_facts(app.vault)]

    category, facts = drive(paths, scenario)
    assert category == ""
    assert facts == [("My sponsor is Dana", "relationships")]
    # a reminder the chat keeps opens a follow-up; added here it is a plain fact
    from companion.tui.screens.memory import guessed_category

    assert guessed_category("remind me to call my mum on sunday") == "general"
