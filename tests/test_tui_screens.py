"""Pilot-driven flows on the unlocked app: check-in, journal, chat offline, memory panel,
auto-lock with an unsaved draft, literal display of markup and escape sequences."""

from __future__ import annotations

from datetime import date, datetime, timedelta

import pytest
from textual import events

from companion import clock
from companion.activity import chat, checkins, drafts, journal, profile, progress
from companion.memory import store
from companion.tui.screens.access import RecoveryKeyScreen
from companion.tui.screens.checkin import CheckInScreen
from companion.tui.screens.modals import ConfirmScreen, TypedConfirmScreen
from companion.tui.screens.unlock import UnlockScreen
from companion.tui.widgets.button import Button
from companion.vault import Vault
from tests.conftest import PASSPHRASE
from tests.tui_helpers import burst, drive, screen_text, settle, unlock

NOW = datetime(2026, 6, 10, 20, 0).astimezone()


def frozen(moment: datetime = NOW) -> None:
    clock.set_clock(lambda: moment)


def reopen(paths) -> Vault:
    return Vault.unlock(paths, PASSPHRASE, daily_backup=False)


def test_checkin_fast_path(created) -> None:
    paths, _ = created
    frozen()

    async def scenario(app, pilot):
        await unlock(pilot, PASSPHRASE, to="f4")
        assert isinstance(app.screen, CheckInScreen)
        await pilot.press("7", "tab", "3", "tab", "7", ".", "5", "tab", "y", "enter")
        await settle(pilot)
        assert "editing your check-in" in screen_text(app)

    drive(paths, scenario)
    with reopen(paths) as vault:
        saved = checkins.get(vault, NOW.date())
    assert saved is not None
    assert saved.values == {"mood": 7, "cravings": 3, "sleep_hours": 7.5, "sober": True}


def test_a_check_in_typed_in_one_burst_lands_field_by_field(created) -> None:
    """Keys that arrive together (fast typing over ssh, a password manager) are read in
    order: the Tab moves on before the next key, so "7 Tab 3" is mood 7 and cravings 3."""
    paths, _ = created
    frozen()

    async def scenario(app, pilot):
        await unlock(pilot, PASSPHRASE, to="f4")
        burst(app, "7", "tab", "3", "tab", "6")
        await settle(pilot)
        screen = app.screen
        return [screen.query_one(f"#{name}").value for name in ("mood", "cravings", "sleep_hours")]

    assert drive(paths, scenario) == ["7", "3", "6"]


def test_an_error_under_a_field_goes_when_the_value_is_changed(created) -> None:
    paths, _ = created
    frozen()

    async def scenario(app, pilot):
        await unlock(pilot, PASSPHRASE, to="f4")
        await pilot.press("7", "2", "ctrl+s")
        await settle(pilot)
        error = app.screen.query_one("#mood-error")
        shown = str(error.render())
        await pilot.press("backspace")
        await settle(pilot)
        return shown, str(error.render())

    shown, after = drive(paths, scenario)
    assert "out of range" in shown
    assert after.strip() == ""


def test_moving_to_another_day_never_drops_what_was_typed(created) -> None:
    """PgUp with unsaved values asks first: "Stay here" keeps every word on the form,
    "Save and go" saves them, then shows the other day."""
    from companion.tui.screens.modals import ConfirmScreen

    paths, _ = created
    frozen()

    async def scenario(app, pilot):
        await unlock(pilot, PASSPHRASE, to="f4")
        await pilot.press("6", "tab", "2")
        await pilot.press("pageup")
        await settle(pilot)
        asked = isinstance(app.screen, ConfirmScreen)
        await pilot.press("escape")  # stay here
        await settle(pilot)
        kept = [app.screen.query_one(f"#{n}").value for n in ("mood", "cravings")]
        await pilot.press("pageup")
        await settle(pilot)
        await pilot.click("#yes")  # save and go
        await settle(pilot)
        return asked, kept, app.screen.day

    asked, kept, shown = drive(paths, scenario)
    assert asked and kept == ["6", "2"]
    assert shown == NOW.date() - timedelta(days=1)
    with reopen(paths) as vault:
        assert checkins.get(vault, NOW.date()).values == {"mood": 6, "cravings": 2}


def test_backfill_and_invalid_values(created) -> None:
    paths, _ = created
    frozen()

    async def scenario(app, pilot):
        await unlock(pilot, PASSPHRASE, to="f4")
        assert "Sober today" in screen_text(app)
        await pilot.press("pageup")
        await settle(pilot)
        assert "2026-06-09" in screen_text(app)
        assert "Sober that day" in screen_text(app) and "Sober today" not in screen_text(app)
        await pilot.press("1", "1", "enter")
        await settle(pilot)
        assert "Mood 11 is out of range" in screen_text(app)
        await pilot.press("backspace", "backspace", "4", "ctrl+s")
        await settle(pilot)
        await pilot.press("pagedown", "pagedown")  # the future is refused
        await settle(pilot)
        assert app.screen.day == NOW.date()

    drive(paths, scenario)
    with reopen(paths) as vault:
        assert [c.date for c in checkins.all_checkins(vault)] == [date(2026, 6, 9)]
        assert checkins.get(vault, date(2026, 6, 9)).values == {"mood": 4}


def test_enter_on_a_filled_check_in_saves_and_moves_on(created) -> None:
    """Changing one value of a saved check-in: Enter saves it and the next digit goes to the
    next field, never after the saved one ("6", Enter, "3" made the mood 63)."""
    paths, _ = created
    frozen()
    with reopen(paths) as vault:
        checkins.record(
            vault,
            NOW.date(),
            mood=5,
            cravings=6,
            sleep_hours=7,
            sober=True,
            note="walked past the liquor store",
        )

    async def scenario(app, pilot):
        await unlock(pilot, PASSPHRASE, to="f4")
        await pilot.press("6", "enter", "3", "enter")
        await settle(pilot)
        assert "63" not in screen_text(app)
        burst(app, "8", "enter", "y", "enter")  # sleep, then sober, typed at once
        await settle(pilot)

    drive(paths, scenario)
    with reopen(paths) as vault:
        values = checkins.get(vault, NOW.date()).values
    assert values["mood"] == 6 and values["cravings"] == 3
    assert values["sleep_hours"] == 8 and values["sober"] is True


def test_not_sober_offers_a_slip_and_keeps_history(created) -> None:
    paths, _ = created
    frozen()
    with reopen(paths) as vault:
        profile.update(vault, {"recovery_start_date": "2026-05-01"})

    async def scenario(app, pilot):
        await unlock(pilot, PASSPHRASE, to="f4")
        await pilot.press("5", "tab", "8", "tab", "tab", "n", "enter")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmScreen)
        assert "40 days stay in your history" in screen_text(app)
        await pilot.click("#yes")
        await settle(pilot)

    drive(paths, scenario)
    with reopen(paths) as vault:
        prof = profile.load(vault)
    assert prof["recovery_start_date"] == "2026-06-10"
    assert prof["recovery_history"] == [{"start": "2026-05-01", "end": "2026-06-10", "days": 40}]
    assert progress.sober_days(prof, NOW.date()) == 0


def test_today_counts_from_a_logged_slip_the_user_has_not_reset(created) -> None:
    """A "not sober" check-in from the command line, no new start date accepted: Today counts
    from the slip at once and keeps the days before it."""
    paths, _ = created
    frozen()
    with reopen(paths) as vault:
        profile.update(vault, {"recovery_start_date": "2026-05-01"})
        checkins.record(vault, NOW.date() - timedelta(days=1), mood=4, sober=False)

    async def scenario(app, pilot):
        await unlock(pilot, PASSPHRASE)
        text = screen_text(app)
        assert "1 day since the slip on 09 Jun" in text
        assert "(after 39" in text
        assert "40 days sober" not in text

    drive(paths, scenario)


def test_search_shows_a_page_of_results_and_the_next_on_asking(created) -> None:
    """Sixty matching entries: the list shows what fits and a few more (search_page: its
    height in two-line rows) and a line for more; moving onto it brings the next page; the
    newest words typed win over an older search."""
    paths, _ = created
    with reopen(paths) as vault, vault.transaction():
        for n in range(60):
            journal.add(vault, f"Called my sponsor about the weekend, day {n}")

    async def scenario(app, pilot):
        await unlock(pilot, PASSPHRASE, to="f5")
        search = app.screen.query_one("#search")
        search.value = "weekend"
        search.value = "sponsor"
        await settle(pilot)
        entries = app.screen.query_one("#entries")
        page = app.screen.search_page()
        height = entries.scrollable_content_region.height
        assert height // 2 < page < 25  # a screenful and a few, not 25
        assert app.screen.listed == "sponsor"
        assert entries.option_count == page + 1
        assert entries.get_option_at_index(page).id == "more"
        # Saving an entry while the search shows: the list is drawn again from the top.
        app.screen.query_one("#editor").insert("Sponsor, again")
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert entries.option_count == page + 1 and entries.get_option_at_index(page).id == "more"
        assert entries.get_option_at_index(0).id == str(app.screen.entry_id)  # the best match
        entries.focus()
        entries.highlighted = page
        await settle(pilot)
        assert entries.option_count == 2 * page + 1
        ids = [entries.get_option_at_index(i).id for i in range(2 * page)]
        assert len(set(ids)) == 2 * page  # the next page, none twice
        # Down to the last: every match can be reached from the keyboard, the best 100 at most.
        for _ in range(10):
            await pilot.press("end")
            await settle(pilot)
        assert entries.get_option_at_index(entries.option_count - 1).id != "more"
        assert entries.option_count == 61


def test_search_typed_key_by_key_lists_what_the_box_says(created) -> None:
    """Typed a key at a time, the list shows the search for the whole word; a search longer
    than the box scrolls within it (the cursor stays in view, the screen keeps its layout)."""
    paths, _ = created
    with reopen(paths) as vault, vault.transaction():
        journal.add(vault, "Called my sponsor about the weekend")
        journal.add(vault, "Baked bread with the kids")

    async def scenario(app, pilot):
        await unlock(pilot, PASSPHRASE, to="f5")
        await pilot.press("ctrl+f", *"spons")
        await settle(pilot)
        screen = app.screen
        search, entries = screen.query_one("#search"), screen.query_one("#entries")
        assert screen.listed == "spons" and entries.option_count == 1
        assert entries.region.height > 1  # the list kept its height
        await pilot.press(*" and more words than the search box can show at once")
        await settle(pilot)
        assert search.scroll_offset.x > 0
        cursor_x = search.cursor_screen_offset.x
        assert search.content_region.x <= cursor_x <= search.content_region.right
        assert entries.get_option_at_index(0).id is None  # "No matching entries."

    drive(paths, scenario)


def test_write_edit_search_and_delete_entries(created) -> None:
    paths, _ = created

    async def scenario(app, pilot):
        await unlock(pilot, PASSPHRASE, to="f5")
        editor = app.screen.query_one("#editor")
        editor.insert("Walked to the lighthouse with #family")
        await pilot.press("ctrl+s")
        await settle(pilot)
        await pilot.press("ctrl+n")
        app.screen.query_one("#editor").insert("Quiet night in")
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert "#family 1" in screen_text(app)
        # edit the first entry
        entries = app.screen.query_one("#entries")
        entries.focus()
        entries.highlighted = 1
        await pilot.press("e")  # edits; Enter reads
        await settle(pilot)
        app.screen.query_one("#editor").insert(", edited")  # at the cursor: the end
        await pilot.press("ctrl+s")
        await settle(pilot)
        # search
        app.screen.query_one("#search").value = "lighthouse"
        await settle(pilot)
        text = screen_text(app)
        assert "lighthouse" in text and "Quiet night" not in text
        app.screen.query_one("#search").value = ""
        await settle(pilot)
        entries.focus()
        entries.highlighted = 0
        await pilot.press("delete")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmScreen)
        # named as the list shows it: its date and first words, not a number never shown
        assert "Delete the entry of " in screen_text(app) and "Quiet night" in screen_text(app)
        await pilot.click("#yes")
        await settle(pilot)

    drive(paths, scenario)
    with reopen(paths) as vault:
        remaining = journal.newest(vault)
    assert [e.text for e in remaining] == ["Walked to the lighthouse with #family, edited"]


def test_words_typed_into_an_entry_opened_with_e_go_after_it(created) -> None:
    """Keys only: the entry read with Enter and opened with e has the cursor after its last
    word (it was at the start, so the words went before the entry); Ctrl+Home and Ctrl+End go
    to the start and the end of the text."""
    paths, _ = created
    with reopen(paths) as vault:
        journal.add(vault, "Quiet evening. Grateful for the walk\n[and the rain].")

    async def scenario(app, pilot):
        await unlock(pilot, PASSPHRASE, to="f5")
        await pilot.press("shift+tab", "shift+tab", "enter")  # editor, title, the list
        await settle(pilot)
        await pilot.press("e")
        await settle(pilot)
        await pilot.press(*" Called Sam too.")
        await pilot.press("ctrl+home", *"Tuesday. ", "ctrl+end", *" Slept well.")
        await pilot.press("ctrl+s")
        await settle(pilot)

    drive(paths, scenario, size=(80, 24))
    with reopen(paths) as vault:
        assert [e.text for e in journal.newest(vault)] == [
            "Tuesday. Quiet evening. Grateful for the walk\n[and the rain]. Called Sam too."
            " Slept well."
        ]


def test_chat_offline_after_words_of_danger_still_says_the_coach_is_offline(created) -> None:
    """The crisis screen comes first; once it is closed, the chat says the coach will not
    answer (it said nothing: someone in crisis waited for a reply that would never come)."""
    paths, _ = created

    async def scenario(app, pilot):
        await unlock(pilot, PASSPHRASE, to="f6")
        app.screen.query_one("#message").value = "everyone would be better off without me"
        await pilot.press("enter")
        await settle(pilot)
        crisis = type(app.screen).__name__
        await pilot.press("escape")
        await settle(pilot)
        return crisis, screen_text(app)

    crisis, text = drive(paths, scenario)
    assert crisis == "SosScreen"
    assert "everyone would be better off without me" in text
    assert "coach is offline" in text


def test_what_the_chat_remembered_is_said_to_you(created) -> None:
    """The note that a fact was remembered speaks as the memory panel does ("Your sponsor"),
    not about the person ("Their sponsor"), and a message that said two things gets one note
    for both, not two stacked over the conversation."""
    paths, _ = created

    async def scenario(app, pilot):
        await unlock(pilot, PASSPHRASE, to="f6")
        app.screen.query_one("#message").value = "my sponsor is Dana, and i go by Sam"
        await pilot.press("enter")
        await settle(pilot)
        return [n.message for n in app._notifications if n.message.startswith("Remembered")]

    said = drive(paths, scenario)
    assert len(said) == 1, said
    assert "Their" not in said[0] and "Your sponsor is Dana" in said[0], said
    assert "Wants to be called Sam" in said[0], said


def test_chat_offline_keeps_the_message_and_says_how_to_set_up(created) -> None:
    paths, _ = created

    async def scenario(app, pilot):
        await unlock(pilot, PASSPHRASE, to="f6")
        app.screen.query_one("#message").value = "I need to talk about tonight"
        await pilot.press("enter")
        await settle(pilot)
        text = screen_text(app)
        assert "coach is offline" in text and "Settings" in text
        assert "I need to talk about tonight" in text
        app.screen.query_one("#message").value = "and about tomorrow"
        await pilot.press("enter")
        await settle(pilot)
        text = screen_text(app)  # said once in full: then a line, not the notice again
        assert text.count("Settings (F10)") == 1 and "Saved. The coach is still offline." in text
        await pilot.press("ctrl+q")

    drive(paths, scenario)
    with reopen(paths) as vault:
        session = chat.sessions(vault)[0]
        assert [m.content for m in chat.messages(vault, session.id)] == [
            "I need to talk about tonight",
            "and about tomorrow",
        ]
        assert session.ended_at is not None  # closed on quit


def test_memory_panel_edit_delete_pin_and_fresh_start(created) -> None:
    paths, _ = created
    with reopen(paths) as vault:
        learned = store.add_fact(vault, "Likes long walks", "preferences", source="learned")
        store.add_fact(vault, "Works night shifts", "identity", source="learned")
        journal.add(vault, "stays after a fresh start")

    async def scenario(app, pilot):
        await unlock(pilot, PASSPHRASE, to="f7")
        text = screen_text(app)
        assert "Likes long walks" in text and "learned" in text
        facts = app.screen.query_one("#facts")
        facts.focus()
        facts.highlighted = 3  # header, fact, header, fact: "Likes long walks"
        await pilot.press("e")
        await settle(pilot)
        app.screen.query_one("#value").value = "Likes long walks by the sea"
        await pilot.press("enter")
        await settle(pilot)
        assert "you wrote" in screen_text(app)
        facts.highlighted = 1
        await pilot.press("p")
        await settle(pilot)
        await pilot.press("a")
        await settle(pilot)
        app.screen.query_one("#value").value = "Allergic to cats"
        app.screen.query_one("#extra").value = "preferences"  # below identity in the list
        await pilot.press("enter")
        await settle(pilot)
        assert "Allergic to cats" in screen_text(app)
        facts.highlighted = 1
        await pilot.press("delete")
        await settle(pilot)
        await pilot.click("#yes")
        await settle(pilot)
        return [f.text for f in store.live_facts(app.vault)]

    live = drive(paths, scenario)
    assert sorted(live) == ["Allergic to cats", "Likes long walks by the sea"]
    with reopen(paths) as vault:
        from companion.vault.models import Fact

        old = Fact.get_by_id(learned)
        assert old.valid_until is not None  # history kept, "was -> now"

    async def fresh(app, pilot):
        await unlock(pilot, PASSPHRASE, to="f7")
        await pilot.press("f")
        await settle(pilot)
        assert isinstance(app.screen, TypedConfirmScreen)
        app.screen.query_one("#word").value = "nope"
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, TypedConfirmScreen)  # wrong word: nothing erased
        app.screen.query_one("#word").value = "forget"
        await pilot.press("enter")
        await settle(pilot)

    drive(paths, fresh)
    with reopen(paths) as vault:
        from companion.vault.models import Fact

        assert Fact.select().count() == 0
        assert [e.text for e in journal.newest(vault)] == ["stays after a fresh start"]


def test_auto_lock_keeps_an_unsaved_draft(created) -> None:
    paths, _ = created
    moment = [NOW]
    clock.set_clock(lambda: moment[0])

    async def scenario(app, pilot):
        await unlock(pilot, PASSPHRASE, to="f5")
        app.screen.query_one("#editor").insert("half a thought I have not saved")
        moment[0] = NOW + timedelta(minutes=app.config.auto_lock_minutes, seconds=1)
        await app.check_auto_lock()
        await settle(pilot)
        assert isinstance(app.screen, UnlockScreen) and app.vault is None
        assert "half a thought" not in screen_text(app)
        assert "inactivity" in screen_text(app)
        await unlock(pilot, PASSPHRASE)
        for _ in range(300):  # every screen composed and loaded ahead of the visit
            if app.warmed.is_set():
                break
            await pilot.pause()
        await settle(pilot)
        assert app.warmed.is_set()
        # Nothing about the journal's draft while Today shows (the app's list of toasts:
        # a toast's widget may not be drawn yet when this runs).
        assert not [n.message for n in app._notifications if "Restored" in n.message]
        await pilot.press("f5")
        await settle(pilot)
        assert "Restored your unsaved draft of the new entry" in screen_text(app)
        return app.screen.query_one("#editor").text

    assert drive(paths, scenario) == "half a thought I have not saved"


def test_markup_and_escape_sequences_show_literally(created) -> None:
    paths, _ = created
    nasty = "[bold red]not bold[/] \x1b[2J\x1b[31mred\x07"
    with reopen(paths) as vault:
        journal.add(vault, nasty, title="[link=x]t[/link]")
        session = chat.start(vault, "s")
        chat.add_message(vault, session.id, "user", nasty)
        store.add_fact(vault, "[reverse]fact[/reverse]", "general")

    async def scenario(app, pilot):
        await unlock(pilot, PASSPHRASE)
        texts = []
        for key in ("f5", "f6", "f7"):
            await pilot.press(key)
            await settle(pilot)
            if key == "f6":
                app.screen.query_one("#sessions").focus()
                await pilot.press("down", "enter")
                await settle(pilot)
            texts.append(screen_text(app))
        return texts

    journal_text, chat_text, memory_text = drive(paths, scenario)
    assert "[link=x]t[/link]" in journal_text
    assert "[bold red]not bold[/] ␛[2J␛[31mred␇" in chat_text
    assert "[reverse]fact[/reverse]" in memory_text
    for text in (journal_text, chat_text, memory_text):
        assert "\x1b" not in text and "\x07" not in text


def test_palette_lists_every_screen_and_escape_goes_back(created) -> None:
    paths, _ = created

    async def scenario(app, pilot):
        await unlock(pilot, PASSPHRASE)
        titles = {c.title for c in app.get_system_commands(app.screen)}
        for name in (
            "Today",
            "Check-in",
            "Journal",
            "Chat",
            "What I know about you",
            "Profile",
            "Insights",
            "Settings",
            "SOS",
            "Lock",
        ):
            assert name in titles
        await pilot.press("ctrl+p")
        await settle(pilot)
        await pilot.press(*"Insights")
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        assert app.current_mode == "insights"
        await pilot.press("f5")
        await settle(pilot)
        await pilot.press("escape")
        await settle(pilot)
        assert app.current_mode == "insights"
        await pilot.press("f1")
        await settle(pilot)
        assert "Ctrl+P" in screen_text(app)

    drive(paths, scenario)


def test_sos_after_unlock_shows_the_coping_plan(created) -> None:
    paths, _ = created
    with reopen(paths) as vault:
        profile.update(vault, {"coping_plan": "Call Dana, then walk", "sponsor": "Dana 555"})

    async def scenario(app, pilot):
        await unlock(pilot, PASSPHRASE, to="f2")
        return screen_text(app)

    text = drive(paths, scenario)
    assert "Call Dana, then walk" in text and "Sponsor: Dana 555" in text


def test_works_at_80_by_24(created) -> None:
    """Every screen at 80x24: the nav bar fits, and the footer shows whole keys only, always
    SOS, and Help (or "More keys" when the screen has more than fit)."""
    paths, _ = created

    async def scenario(app, pilot):
        await unlock(pilot, PASSPHRASE)
        footers = {}
        for key in ("f3", "f4", "f5", "f6", "f7", "f8", "f9", "f10"):
            await pilot.press(key)
            await settle(pilot)
            text = screen_text(app)
            assert "Today" in text.splitlines()[0]  # the nav bar fits
            footer = text.splitlines()[-1]
            keys = [(k.key_display, k.description) for k in app.screen.query("FooterKey")]
            footers[app.current_mode] = (footer, keys)
        return footers

    footers = drive(paths, scenario, size=(80, 24))
    assert len(footers) == 8
    cut = []
    for mode, (footer, keys) in footers.items():
        assert "f2 SOS" in footer, mode
        assert "f1 Help" in footer or "f1 More keys" in footer, mode
        for key, description in keys:
            if f"{key} {description}" not in footer:
                cut.append((mode, key, description))
        assert len(footer.rstrip()) <= 80
    assert not cut, f"keys cut or hidden behind the palette: {cut}"
    assert "f1 More keys" in footers["chat"][0]  # chat has more keys than fit


def test_unsaved_settings_survive_a_lock(created) -> None:
    paths, _ = created
    frozen()

    async def scenario(app, pilot):
        await unlock(pilot, PASSPHRASE, to="f10")
        app.screen.query_one("#region").value = "CA"
        app.screen.query_one("#local_model").value = "llama-in-progress"
        app.screen.query_one("#anthropic_api_key").value = "sk-ant-pasted-not-saved"
        await app.lock()
        await settle(pilot)
        assert app.config.region != "CA", "locking does not save on the user's behalf"
        await unlock(pilot, PASSPHRASE, to="f10")
        typed = tuple(
            app.screen.query_one(f"#{name}").value
            for name in ("region", "local_model", "anthropic_api_key")
        )
        await pilot.press("ctrl+s")
        await settle(pilot)
        return typed, app.config.region

    typed, saved_region = drive(paths, scenario)
    assert typed == ("CA", "llama-in-progress", ""), "a pasted secret is kept only by saving"
    assert saved_region == "CA"
    with reopen(paths) as vault:
        from companion.vault import settings

        assert settings.get(vault, "local_model") == "llama-in-progress"
        assert drafts.load(vault, "settings") is None


def test_every_settings_button_is_whole_at_80_columns(created) -> None:
    """Tab through Settings at 80x24: each button, once it has the keys, lies within the
    screen's width (the fourth of the Memory row used to end at column 87, "Impo")."""
    paths, _ = created

    async def scenario(app, pilot):
        await unlock(pilot, PASSPHRASE, to="f10")
        seen = {}
        for _ in range(30):
            await pilot.press("tab")
            await settle(pilot)
            if isinstance(app.focused, Button):
                seen[str(app.focused.label)] = app.focused.region
        return seen, screen_text(app)

    seen, text = drive(paths, scenario, size=(80, 24))
    assert set(seen) == {
        "Edit extraction prompt",
        "Reset extraction prompt",
        "Ledger of calls",
        "Import history",
    }
    for label, region in seen.items():
        assert region.width >= len(label) and region.x >= 0 and region.right <= 80, label
    assert "Import history" in text


def test_the_journal_lists_the_tags_of_earlier_entries(created) -> None:
    paths, _ = created
    frozen()
    with reopen(paths) as vault:
        journal.add(vault, "Went to the #meeting after work")
        journal.add(vault, "Another #meeting, then a walk", tags=["walk"])

    async def scenario(app, pilot):
        await unlock(pilot, PASSPHRASE)
        await app.warmed.wait()
        await pilot.press("f5")
        await settle(pilot)
        return screen_text(app)

    shown = drive(paths, scenario)
    assert "#meeting 2" in shown and "#walk 1" in shown


def test_unsaved_words_survive_a_new_entry_and_opening_another(created) -> None:
    paths, _ = created
    with reopen(paths) as vault:
        first = journal.add(vault, "The first entry, as saved").id

    async def scenario(app, pilot):
        await unlock(pilot, PASSPHRASE, to="f5")
        editor = app.screen.query_one("#editor")
        editor.insert("Words I have not saved yet")
        await pilot.press("ctrl+n")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmScreen)  # asked, not dropped
        await pilot.click("#no")  # keep writing
        await settle(pilot)
        assert app.screen.query_one("#editor").text == "Words I have not saved yet"
        await pilot.press("ctrl+n")
        await settle(pilot)
        await pilot.click("#yes")  # save it, then the new entry
        await settle(pilot)
        assert app.screen.query_one("#editor").text == ""
        # An edited entry keeps its changes as a draft when another is opened.
        entries = app.screen.query_one("#entries")
        entries.focus()
        entries.highlighted = 1  # the first entry (newest first)
        await pilot.press("e")
        await settle(pilot)
        app.screen.query_one("#editor").insert(", changed")  # at the cursor: the end
        entries.focus()
        entries.highlighted = 0
        await pilot.press("e")
        await settle(pilot)
        assert app.screen.query_one("#editor").text == "Words I have not saved yet"
        entries.focus()
        entries.highlighted = 1
        await pilot.press("e")
        await settle(pilot)
        assert app.screen.query_one("#editor").text == "The first entry, as saved, changed"

    drive(paths, scenario)
    with reopen(paths) as vault:
        texts = sorted(e.text for e in journal.newest(vault))
    assert texts == ["The first entry, as saved", "Words I have not saved yet"]
    assert first


def test_words_typed_while_save_it_first_is_asked_are_kept(created) -> None:
    """Ctrl+N and the next words in one burst: the question comes up between them, and the
    words typed while it is up go on into the entry the answer leads to, not into nothing."""
    paths, _ = created

    async def scenario(app, pilot):
        await unlock(pilot, PASSPHRASE, to="f5")
        app.screen.query_one("#editor").insert("Monday, saved by the question")
        await pilot.press("ctrl+n", *"Tuesday")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("enter")  # "Save it" has the focus
        await settle(pilot)
        assert app.screen.query_one("#editor").text == "Tuesday"
        await pilot.press(*" morning", "ctrl+n", *" and more")
        await settle(pilot)
        await pilot.press("escape")  # keep writing
        await settle(pilot)
        assert app.screen.query_one("#editor").text == "Tuesday morning and more"

    drive(paths, scenario)
    with reopen(paths) as vault:
        assert [e.text for e in journal.newest(vault)] == ["Monday, saved by the question"]


def test_paste_then_undo_keeps_the_text_and_the_app(created) -> None:
    from textual import events

    paths, _ = created

    async def scenario(app, pilot):
        await unlock(pilot, PASSPHRASE, to="f5")
        editor = app.screen.query_one("#editor")
        editor.insert("Before the paste. ")
        pasted = "\n".join(f"line {i} " + "a long pasted line of words " * 4 for i in range(10))
        app.post_message(events.Paste(pasted))
        await settle(pilot)
        assert pasted in editor.text
        await pilot.press("ctrl+z")
        await settle(pilot)
        assert app.is_running and editor.text.startswith("Before the paste.")
        await pilot.press("ctrl+s")
        await settle(pilot)
        editor.insert("more")
        for _ in range(5):
            await pilot.press("ctrl+z")
        await settle(pilot)
        assert editor.text.startswith("Before the paste.")  # undo stops at the save

    drive(paths, scenario, size=(80, 24))


def test_the_checkin_form_after_a_restart_shows_what_was_saved(created) -> None:
    paths, _ = created
    frozen()
    with reopen(paths) as vault:
        checkins.record(vault, NOW.date(), mood=6, cravings=2, sleep_hours=7, sober=True)

    async def scenario(app, pilot):
        await unlock(pilot, PASSPHRASE, to="f4")
        screen = app.screen
        assert "editing your check-in" in screen_text(app)
        assert screen.query_one("#mood").value == "6"
        assert screen.query_one("#cravings").value == "2"

    drive(paths, scenario)


def test_typing_on_profile_goes_into_its_first_field(created) -> None:
    paths, _ = created

    async def scenario(app, pilot):
        await unlock(pilot, PASSPHRASE, to="f8")
        await pilot.press("J", "o")
        await pilot.press("ctrl+s")
        await settle(pilot)

    drive(paths, scenario)
    with reopen(paths) as vault:
        assert profile.load(vault).get("preferred_name") == "Jo"


def test_a_focused_list_has_a_row_to_open(created) -> None:
    paths, _ = created
    with reopen(paths) as vault:
        journal.add(vault, "Older entry")
        journal.add(vault, "Newest entry")

    async def scenario(app, pilot):
        await unlock(pilot, PASSPHRASE, to="f5")
        app.screen.query_one("#entries").focus()  # as Tab does
        await pilot.pause()
        await pilot.press("enter")  # reads it
        await settle(pilot)
        reading = screen_text(app)
        await pilot.press("e")  # and edits it from there
        await settle(pilot)
        return reading, app.screen.query_one("#editor").text

    reading, editing = drive(paths, scenario)
    assert "Newest entry" in reading and "Edit (e)" in reading
    assert editing == "Newest entry"


def test_help_lists_the_keys_of_the_screen_it_was_opened_on(created) -> None:
    from companion.tui.screens.help import HelpScreen

    paths, _ = created

    async def scenario(app, pilot):
        await unlock(pilot, PASSPHRASE, to="f5")
        await pilot.press("f1")
        await settle(pilot)
        assert isinstance(app.screen, HelpScreen)
        journal_help = screen_text(app)
        await pilot.press("escape")
        await pilot.press("f7")
        await settle(pilot)
        await pilot.press("f1")
        await settle(pilot)
        return journal_help, screen_text(app)

    journal_help, memory_help = drive(paths, scenario)
    assert "Keys here (journal)" in journal_help and "Start a new entry" in journal_help
    assert "Pin or unpin the highlighted fact" in memory_help
    assert "Start a new entry" not in memory_help


def test_help_at_80x24_keeps_its_close_button_on_screen(created) -> None:
    paths, _ = created

    async def scenario(app, pilot):
        await unlock(pilot, PASSPHRASE, to="f1")
        close = app.screen.query_one("#no")
        return close.region, app.size

    region, size = drive(paths, scenario, size=(80, 24))
    assert region.height > 0 and region.bottom <= size.height


def test_backup_export_and_a_new_passphrase_from_the_palette(created, tmp_path) -> None:
    import stat

    from companion.errors import WrongPassphrase
    from companion.vault import Vault
    from tests.conftest import PASSPHRASE
    from tests.tui_helpers import drive, screen_text, settle, unlock

    paths, _ = created
    with Vault.unlock(paths, PASSPHRASE) as vault:
        from companion.activity import journal

        journal.add(vault, "The [bold]heating[/bold] is fixed at last.")
    target = tmp_path / "mine.md"
    new = "a completely different passphrase"

    async def palette(pilot, words: str) -> None:  # type: ignore[no-untyped-def]
        await pilot.press("ctrl+p")
        await settle(pilot)
        await pilot.press(*words)
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)

    async def scenario(app, pilot):
        await unlock(pilot, PASSPHRASE)
        before = len(list(paths.backups.iterdir()))
        await palette(pilot, "Back up now")
        backed_up = len(list(paths.backups.iterdir())) - before
        await palette(pilot, "Export everything")
        app.screen.query_one("#value").value = str(target)
        await pilot.press("enter")
        await settle(pilot)
        await palette(pilot, "Change passphrase")
        app.screen.query_one("#value").value = "not my passphrase"
        app.screen.query_one("#new").value = new
        app.screen.query_one("#repeat").value = new
        await pilot.click("#yes")
        await settle(pilot)
        refused = screen_text(app)
        app.screen.query_one("#value").value = PASSPHRASE
        await pilot.click("#yes")
        await settle(pilot)
        return backed_up, refused, type(app.screen).__name__

    backed_up, refused, after = drive(paths, scenario)
    assert backed_up == 1
    assert "heating" in target.read_text() and stat.S_IMODE(target.stat().st_mode) == 0o600
    assert "Not changed: that is not your current passphrase" in refused
    assert after == "TodayScreen"  # the dialog closed once the change was made
    with Vault.unlock(paths, new, daily_backup=False):
        pass
    with pytest.raises(WrongPassphrase):
        Vault.unlock(paths, PASSPHRASE, daily_backup=False)


def test_reading_an_entry_and_going_to_a_month(created) -> None:
    from datetime import datetime

    from textual.widgets import Button

    from companion.activity import journal
    from companion.vault import Vault
    from tests.conftest import PASSPHRASE
    from tests.tui_helpers import drive, screen_text, settle, unlock

    paths, _ = created
    with Vault.unlock(paths, PASSPHRASE) as vault:
        journal.add(
            vault,
            "## Ninety days\n\nGot my **90 day** chip.\n"
            "Dana hugged me. [bold]not markup[/bold]\x1b[31m",
            when=datetime(2025, 3, 14, 21, 0).astimezone(),
        )
        journal.add(vault, "A quiet day in April.", when=datetime(2025, 4, 2, 20).astimezone())
        journal.add(vault, "Today, the heating works.")

    async def typed(app, pilot, when: str) -> None:
        await pilot.press("ctrl+g")  # the calendar; "/" to type a date instead
        await settle(pilot)
        await pilot.press("slash")
        await settle(pilot)
        assert str(app.screen.query_one("#yes", Button).label) == "Go"  # nothing is saved
        app.screen.query_one("#value").value = when
        await pilot.press("enter")
        await settle(pilot)

    async def scenario(app, pilot):
        await unlock(pilot, PASSPHRASE, to="f5")
        await typed(app, pilot, "March 2025")
        month = screen_text(app)
        await pilot.press("ctrl+g")  # opens on the month shown, the days written marked
        await settle(pilot)
        march = screen_text(app)
        await pilot.press("pagedown", "m")  # April, the whole month
        await settle(pilot)
        april = screen_text(app)
        await pilot.press("ctrl+g", "n")  # back to the newest entries
        await settle(pilot)
        newest = screen_text(app)
        await typed(app, pilot, "March 2025")
        entries = app.screen.query_one("#entries")
        entries.highlighted = 1  # the row under the heading
        await pilot.press("enter")
        await settle(pilot)
        return month, march, april, newest, screen_text(app)

    month, march, april, newest, reading = drive(paths, scenario)
    assert "March 2025: 1 entry" in march and "14•" in march
    assert "Saturday 1 March: nothing written" in march  # the cursor on the first day shown
    assert "— April 2025: 1 entry —" in april and "quiet day in April" in april
    assert "heating" in newest and "—" not in newest
    assert "— March 2025: 1 entry —" in month
    assert "2025-03-14  Ninety days" in month and "quiet day in April" not in month
    assert "heating" not in month
    assert "90 day chip" in reading and "**" not in reading  # rendered, not raw
    assert "Dana hugged me." in reading and "chip. Dana" not in reading  # its line break kept
    assert "[bold]not markup[/bold]" in reading and "␛" in reading  # shown as written


def test_charts_show_a_few_check_ins_as_points_with_dates_and_gaps(created) -> None:
    """Two check-ins twelve days apart: each chart shows two points, nothing between them (no
    line across the gap, no filled blocks), and dates under the axis."""
    paths, _ = created
    frozen()
    today = NOW.date()
    with reopen(paths) as vault:
        checkins.record(vault, today - timedelta(days=12), mood=3, cravings=6, sleep_hours=5)
        checkins.record(vault, today, mood=8, cravings=1, sleep_hours=8)

    async def scenario(app, pilot):
        await unlock(pilot, PASSPHRASE)
        await settle(pilot)
        today_text = screen_text(app)
        await pilot.press("f9")
        await settle(pilot)
        charts = {
            key: app.screen.query_one(f"#{key}-chart") for key in ("mood", "cravings", "sleep")
        }
        drawn = {key: str(chart.render()) for key, chart in charts.items()}
        return today_text, drawn

    today_text, drawn = drive(paths, scenario, size=(80, 40))
    assert "10 Jun" in today_text and "12 May" in today_text  # the 30 days' ends
    assert "Mood, last 30 days: average 5.5" in today_text
    for key, text in drawn.items():
        assert text.count("●") == 2, key
        assert not any(ch in text for ch in "⡀⢀⠁⠈⣀▁▂▃▄▅▆▇█"), key  # no line, no blocks
        assert "10 Jun" in text, key


def test_a_value_on_the_chart_sits_beside_its_own_label(created) -> None:
    """A mood of 5 on Today's 1-10 chart: the row it sits on is labelled with what that row
    stands for, never "6" (with 5 rows, the middle row is 5.5)."""
    paths, _ = created
    frozen()
    with reopen(paths) as vault:
        checkins.record(vault, NOW.date(), mood=5, cravings=6)

    async def scenario(app, pilot):
        await unlock(pilot, PASSPHRASE)
        await settle(pilot)
        charts = ("mood", "cravings")
        return {key: str(app.screen.query_one(f"#{key}-chart").render()) for key in charts}

    drawn = drive(paths, scenario)
    for key, value in (("mood", 5), ("cravings", 6)):
        rows = [line for line in drawn[key].splitlines() if "┤" in line or "│" in line[:6]]
        plot = [line for line in rows if "└" not in line]
        labels = {i: float(line.split("┤")[0]) for i, line in enumerate(plot) if "┤" in line}
        top, bottom = labels[0], labels[len(plot) - 1]
        step = (top - bottom) / (len(plot) - 1)
        stands_for = {i: top - i * step for i in range(len(plot))}
        (at,) = [i for i, line in enumerate(plot) if "●" in line]
        assert abs(stands_for[at] - value) <= step / 2, (key, at)  # the nearest row
        for i, label in labels.items():
            assert abs(label - stands_for[i]) < 0.05, (key, labels)


def test_typing_on_a_filled_checkin_replaces_the_value(created) -> None:
    """Back on today's saved check-in, typing 8 in the focused mood gives 8, not 68."""
    paths, _ = created
    frozen()
    with reopen(paths) as vault:
        checkins.record(vault, NOW.date(), mood=6, cravings=2)

    async def scenario(app, pilot):
        await unlock(pilot, PASSPHRASE, to="f4")
        await pilot.press("8")
        await settle(pilot)
        return app.screen.query_one("#mood").value

    assert drive(paths, scenario) == "8"


def test_today_and_insights_tell_the_same_story_after_a_slip(created) -> None:
    """A slip yesterday: Today and Insights both say the days since it, keep the days sober
    before it, and name the next milestone; the week's check-in streak is the one running
    now, as in the line above it (it said 0 until Sunday)."""
    paths, _ = created
    frozen()  # a Wednesday
    today = NOW.date()
    with reopen(paths) as vault:
        profile.update(vault, {"recovery_start_date": "2026-05-01"})
        checkins.record(vault, today - timedelta(days=2), mood=6, sober=True)
        checkins.record(vault, today - timedelta(days=1), mood=3, sober=False)
        checkins.record(vault, today, mood=5, sober=True)

    async def scenario(app, pilot):
        await unlock(pilot, PASSPHRASE)
        today_text = str(app.screen.query_one("#sober").render())
        await pilot.press("f9")
        await settle(pilot)
        header = str(app.screen.query_one("#streaks").render())
        return today_text, header, screen_text(app)

    today_text, header, insights_text = drive(paths, scenario)
    story = "1 day since the slip on 09 Jun (after 39 days sober)\nnext milestone: 7 days in 6 days"
    assert story in today_text and story in header
    assert "Check-in streak: 3 days now" in header
    assert "check-in streak 3" in insights_text


def test_insights_counts_in_words_after_a_first_check_in(created) -> None:
    """The first day of use: "1 day", "1 check-in", never "1 days"."""
    paths, _ = created
    frozen()
    with reopen(paths) as vault:
        checkins.record(vault, NOW.date(), mood=7)

    async def scenario(app, pilot):
        await unlock(pilot, PASSPHRASE, to="f9")
        return str(app.screen.query_one("#streaks").render())

    assert "Check-in streak: 1 day now, longest 1 day, 1 check-in in all." in drive(paths, scenario)


def test_the_week_in_insights_agrees_with_itself(created) -> None:
    """An urge with only its strength is an urge ("average urge 6/10" beside "no urges
    recorded" contradicted it), and a chat still open counts among the week's chats."""
    paths, _ = created
    frozen()
    with reopen(paths) as vault:
        checkins.record(vault, NOW.date(), mood=4, urge_intensity=6)
        session = chat.start(vault)
        chat.add_message(vault, session.id, "user", "rough afternoon")

    async def scenario(app, pilot):
        await unlock(pilot, PASSPHRASE, to="f9")
        return screen_text(app)

    text = drive(paths, scenario)
    assert "chats 1 · average urge 6/10" in text
    assert "No urges recorded" not in text


def test_a_check_in_note_of_several_lines_is_kept_whole(created) -> None:
    """At 80x24 the note is a box of several lines: Enter starts a new line there, Ctrl+S
    saves, and the note comes back whole after a lock, unsaved as a draft too."""
    paths, _ = created
    frozen()

    async def scenario(app, pilot):
        await unlock(pilot, PASSPHRASE, to="f4")
        await pilot.press("7", "tab", "2", "tab", "tab", "tab")
        note = app.screen.query_one("#note")
        assert app.screen.focused is note and note.size.height >= 4
        await pilot.press(*"long day", "enter", *"called Sam at lunch")
        await pilot.press("ctrl+s")
        await settle(pilot)
        await pilot.press("f4")
        await settle(pilot)
        app.screen.query_one("#note").focus()
        await pilot.press("enter", *"not saved yet")  # added after the saved words
        await app.lock()
        await settle(pilot)
        await unlock(pilot, PASSPHRASE, to="f4")
        return app.screen.query_one("#note").text

    restored = drive(paths, scenario, size=(80, 24))
    assert restored == "long day\ncalled Sam at lunch\nnot saved yet"
    with reopen(paths) as vault:
        saved = checkins.get(vault, NOW.date())
    assert saved is not None and saved.values["note"] == "long day\ncalled Sam at lunch"


def test_the_check_in_form_saves_the_note_it_shows(created) -> None:
    """A note added to from the command line shows whole in the form, and the form saves
    what it shows: a line taken out there is gone (the form's note is not added to the
    day's, as a command's is)."""
    paths, _ = created
    frozen()
    with reopen(paths) as vault:
        checkins.record(vault, NOW.date(), mood=6, note="morning meeting")
        checkins.record(vault, NOW.date(), note="evening: called my sister", add_note=True)

    async def scenario(app, pilot):
        await unlock(pilot, PASSPHRASE, to="f4")
        note = app.screen.query_one("#note")
        shown = note.text
        note.focus()
        await pilot.press(*["backspace"] * len("\nevening: called my sister"))
        await pilot.press("ctrl+s")
        await settle(pilot)
        return shown

    assert drive(paths, scenario) == "morning meeting\nevening: called my sister"
    with reopen(paths) as vault:
        saved = checkins.get(vault, NOW.date())
    assert saved is not None and saved.values == {"mood": 6, "note": "morning meeting"}


async def type_yesterday_then_lock_and_come_back(app, pilot) -> None:
    """Mood 4 and cravings 8 typed for yesterday, not saved; a lock; unlock and F4."""
    await unlock(pilot, PASSPHRASE, to="f4")
    await pilot.press("pageup")
    await settle(pilot)
    await pilot.press("4", "tab", "8")
    await app.lock()
    await settle(pilot)
    await unlock(pilot, PASSPHRASE, to="f4")


def test_a_restored_check_in_draft_survives_a_move_to_another_day(created) -> None:
    """Yesterday's values typed and not saved, then a lock: after unlock the form brings
    them back, and PgUp asks before leaving them (Stay here keeps them)."""
    from companion.tui.screens.modals import ConfirmScreen

    paths, _ = created
    frozen()

    async def scenario(app, pilot):
        await type_yesterday_then_lock_and_come_back(app, pilot)
        restored = (app.screen.day, app.screen.query_one("#mood").value)
        await pilot.press("pageup")
        await settle(pilot)
        asked = isinstance(app.screen, ConfirmScreen)
        await pilot.press("escape")
        await settle(pilot)
        return restored, asked, app.screen.query_one("#cravings").value

    restored, asked, cravings = drive(paths, scenario)
    assert restored == (NOW.date() - timedelta(days=1), "4")
    assert asked and cravings == "8"


def test_keys_sent_in_one_burst_after_a_restored_draft_save_nothing_for_the_wrong_day(
    created,
) -> None:
    """A draft restored for yesterday, then PgUp, Backspace, 1, 1 and Ctrl+S arriving
    together (auto-type, a paste of keys over ssh): no check-in is written for any day, and
    the restored values are still on the form for the day they were typed for."""
    paths, _ = created
    frozen()

    async def scenario(app, pilot):
        await type_yesterday_then_lock_and_come_back(app, pilot)
        burst(app, "pageup", "backspace", "1", "1", "ctrl+s")
        await settle(pilot)
        while isinstance(app.screen, ConfirmScreen):
            await pilot.press("escape")  # stay here
            await settle(pilot)
        form = app.screen
        return form.day, form.query_one("#mood").value, form.query_one("#cravings").value

    day, mood, cravings = drive(paths, scenario)
    yesterday = NOW.date() - timedelta(days=1)
    assert (day, mood, cravings) == (yesterday, "4", "8")
    with reopen(paths) as vault:
        written = [checkins.get(vault, NOW.date() - timedelta(days=n)) for n in range(4)]
    assert written == [None] * 4


def test_keys_typed_just_before_ctrl_l_are_in_the_draft_after_unlock(created) -> None:
    """Ctrl+L is acted on as soon as it is read; the keys typed just before it (one burst:
    fast typing, auto-type) are still on their way to the form. They are waited for, so the
    draft brought back after unlock holds every one of them."""
    paths, _ = created
    frozen()

    async def scenario(app, pilot):
        await unlock(pilot, PASSPHRASE, to="f4")
        burst(app, "6", "tab", "3", "ctrl+l")
        await settle(pilot)
        assert isinstance(app.screen, UnlockScreen)
        await unlock(pilot, PASSPHRASE, to="f4")
        form = app.screen
        return form.query_one("#mood").value, form.query_one("#cravings").value

    assert drive(paths, scenario) == ("6", "3")


def test_journal_words_typed_straight_into_ctrl_l_come_back_after_unlock(created) -> None:
    paths, _ = created
    frozen()

    async def scenario(app, pilot):
        await unlock(pilot, PASSPHRASE, to="f5")
        words = ["space" if char == " " else char for char in "rode the bus home"]
        burst(app, *words, "ctrl+l")
        await settle(pilot)
        assert isinstance(app.screen, UnlockScreen)
        await unlock(pilot, PASSPHRASE, to="f5")
        return app.screen.query_one("#editor").text

    assert drive(paths, scenario) == "rode the bus home"


def test_a_digit_typed_just_before_pgup_is_for_the_day_it_was_typed_on(created) -> None:
    """ "7 PgUp" in one burst: the 7 was typed on today's form, so PgUp asks before leaving
    it, and staying keeps it on today (it used to land on yesterday's form)."""
    paths, _ = created
    frozen()

    async def scenario(app, pilot):
        await unlock(pilot, PASSPHRASE, to="f4")
        burst(app, "7", "pageup")
        await settle(pilot)
        asked = isinstance(app.screen, ConfirmScreen)
        await pilot.press("escape")  # stay here
        await settle(pilot)
        return asked, app.screen.day, app.screen.query_one("#mood").value

    assert drive(paths, scenario) == (True, NOW.date(), "7")


def test_a_digit_typed_just_after_pgup_from_the_note_is_the_new_days_mood(created) -> None:
    """ "PgUp 7" in one burst from the note: the new day starts on Mood, so the 7 is its mood
    (it went into the new day's note, where the focus had been)."""
    paths, _ = created
    frozen()

    async def scenario(app, pilot):
        await unlock(pilot, PASSPHRASE, to="f4")
        app.screen.query_one("#note").focus()
        await settle(pilot)
        burst(app, "pageup", "7")
        await settle(pilot)
        form = app.screen
        return form.day, form.query_one("#mood").value, form.query_one("#note").text

    assert drive(paths, scenario) == (NOW.date() - timedelta(days=1), "7", "")


def test_the_extraction_prompt_half_edited_at_lock_comes_back(created) -> None:
    """Settings, Ctrl+T: words added to the extraction prompt, then the vault locks; after
    unlock Settings opens the editor again with them, and the file is untouched until Save."""
    from companion.llm import prompts

    paths, _ = created
    shipped = prompts.load("extraction.md")

    async def scenario(app, pilot):
        await unlock(pilot, PASSPHRASE, to="f10")
        await pilot.press("ctrl+t")
        await settle(pilot)
        editor = app.screen.query_one("#editor")
        editor.insert("\nAlways note my sponsor's name.", location=editor.document.end)
        await pilot.press("ctrl+l")
        await settle(pilot)
        assert app.vault is None
        assert not prompts.override_path("extraction.md").exists()
        await unlock(pilot, PASSPHRASE, to="f10")
        return app.screen.query_one("#editor").text

    assert drive(paths, scenario) == shipped + "\nAlways note my sponsor's name."


def keys_of(text: str) -> list[str]:
    return ["space" if char == " " else char for char in text]


def test_a_passphrase_typed_after_ctrl_u_in_one_burst_unlocks(created) -> None:
    """Ctrl+U (clear the field), the passphrase and Enter read together, as a password
    manager's auto-type or a paste over ssh sends them: the field's own Ctrl+U used to act
    after the passphrase had landed, and erased it."""
    paths, _ = created

    async def scenario(app, pilot):
        await pilot.press("x")
        burst(app, "ctrl+u", *keys_of(PASSPHRASE), "enter")
        await settle(pilot)
        for _ in range(200):
            if app.unlocked is not None:
                break
            await pilot.pause()
        return app.unlocked is not None

    assert drive(paths, scenario)


def test_corrections_typed_fast_land_where_they_were_typed(created) -> None:
    """Backspace and the arrows among typed letters, read together: the journal's editor and
    the chat's message field take them in order (Backspace used to act after the letters
    behind it, deleting the wrong one)."""
    paths, _ = created
    frozen()

    async def scenario(app, pilot):
        await unlock(pilot, PASSPHRASE)
        await pilot.press("f5", "ctrl+n")
        await settle(pilot)
        burst(app, *keys_of("rode the bux"), "backspace", *keys_of("s hone"), "left")
        burst(app, "backspace", "m")
        await settle(pilot)
        entry = app.screen.query_one("#editor").text
        await pilot.press("f6")
        await settle(pilot)
        burst(app, *keys_of("thnks"), "left", "left", "left", "a")
        await settle(pilot)
        return entry, app.screen.query_one("#message").value

    assert drive(paths, scenario) == ("rode the bus home", "thanks")


def test_keys_typed_after_enter_go_where_enter_sent_them(paths) -> None:
    """Enter and the keys behind it, read together: the first run's Enter moves to the repeat
    field and the second copy of the passphrase lands there (it used to land in the first
    field); a chat message is sent and the words typed after it stay in the field for the
    next one (they were erased with the message sent)."""

    async def scenario(app, pilot):
        burst(app, *keys_of(PASSPHRASE), "enter", *keys_of(PASSPHRASE), "enter")
        await settle(pilot)
        created = isinstance(app.screen, RecoveryKeyScreen)  # shown once the vault exists
        app.screen.query_one("#written").value = True
        await pilot.click("#yes")
        await settle(pilot)
        await pilot.press("f6")
        await settle(pilot)
        burst(app, *keys_of("first message"), "enter", *keys_of("second part"))
        await settle(pilot)
        return created, screen_text(app), app.screen.query_one("#message").value

    created, text, left = drive(paths, scenario)
    assert created
    assert "first message" in text
    assert left == "second part"


def test_keys_typed_after_a_dialog_key_go_into_the_dialog(created) -> None:
    """In the memory panel, "a" opens a dialog; the fact typed straight after it, in one
    burst, lands in the dialog (it was dropped), and what follows Enter does not join the
    fact saved."""
    paths, _ = created

    async def scenario(app, pilot):
        await unlock(pilot, PASSPHRASE, to="f7")
        burst(app, "a", *keys_of("likes jazz"))
        await settle(pilot)
        typed = app.screen.query_one("#value").value
        burst(app, "enter", *keys_of("zz"))
        await settle(pilot)
        return typed

    assert drive(paths, scenario) == "likes jazz"
    with Vault.unlock(paths, PASSPHRASE, daily_backup=False) as vault:
        assert [f.text for f in store.live_facts(vault)] == ["likes jazz"]


def test_saving_a_check_in_leaves_the_note_cursor_where_it_was(created) -> None:
    """Ctrl+S in the middle of the note, then more words: they go where the cursor was (the
    save used to write the note back and put the cursor at its end)."""
    paths, _ = created
    frozen()

    async def scenario(app, pilot):
        await unlock(pilot, PASSPHRASE, to="f4")
        await pilot.press("6", "tab", "3")
        app.screen.query_one("#note").focus()
        await pilot.press(*keys_of("called my sponsor"), "home")
        await pilot.press("ctrl+s")
        await settle(pilot)
        await pilot.press(*keys_of("today "))
        return app.screen.query_one("#note").text

    assert drive(paths, scenario) == "today called my sponsor"


def test_a_paste_of_several_lines_into_the_chat_keeps_every_line(created) -> None:
    """A one-line field kept only the first line of a paste: the rest was lost unseen."""
    paths, _ = created

    async def scenario(app, pilot):
        await unlock(pilot, PASSPHRASE, to="f6")
        app.post_message(events.Paste("rough night.\n\nslept maybe 3 hours\r\ncalled dana\n"))
        await settle(pilot)
        return app.screen.query_one("#message").value

    assert drive(paths, scenario) == "rough night. slept maybe 3 hours called dana"


def test_writing_pasted_after_the_app_locked_is_not_taken_for_a_passphrase(created) -> None:
    """The vault locked while the person was away; back, they paste what they were writing: it
    must not fill the passphrase field with dots (and be tried as one), and they are told."""
    paths, _ = created

    async def scenario(app, pilot):
        await unlock(pilot, PASSPHRASE, to="f5")
        await pilot.press("ctrl+l")
        await settle(pilot)
        app.post_message(events.Paste("rough night.\nslept maybe 3 hours, called dana"))
        await settle(pilot)
        field = app.screen.query_one("#passphrase")
        told = [n.message for n in app._notifications]
        app.post_message(events.Paste(PASSPHRASE))  # a passphrase pasted still goes in
        await settle(pilot)
        return isinstance(app.screen, UnlockScreen), field.value, told

    locked, value, told = drive(paths, scenario)
    assert locked and value == PASSPHRASE
    assert any("not a passphrase" in message for message in told)


def test_writing_pasted_into_the_journal_tags_is_not_saved_as_a_tag_a_word(created) -> None:
    """A diary pasted into Tags by mistake became one tag for every word ("#a", "#the", ...);
    now the save is refused with a word on what happened, and both fields keep their text."""
    paths, _ = created
    pasted = (
        "walked to the shop in the rain and talked to mum about christmas, then made soup, "
        "watched two episodes of that baking show with dana, folded laundry, answered emails "
        "from work I had been putting off since monday, and went to bed early for once"
    )

    async def scenario(app, pilot):
        await unlock(pilot, PASSPHRASE, to="f5")
        await pilot.press(*"quiet day")
        app.screen.query_one("#entry-tags").focus()
        app.post_message(events.Paste(pasted))
        await settle(pilot)
        await pilot.press("ctrl+s")
        await settle(pilot)
        told = [n.message for n in app._notifications]
        kept = app.screen.query_one("#editor").text, app.screen.query_one("#entry-tags").value
        return told, kept

    told, kept = drive(paths, scenario)
    assert any("move it into the entry" in message for message in told)
    assert kept == ("quiet day", pasted)
    with Vault.unlock(paths, PASSPHRASE) as vault:
        assert journal.newest(vault) == []


def test_enter_after_a_journal_title_goes_on_to_the_words(created) -> None:
    paths, _ = created

    async def scenario(app, pilot):
        await unlock(pilot, PASSPHRASE, to="f5")
        app.screen.query_one("#title").focus()
        await pilot.press(*"Sunday", "enter", *"quiet day")
        await settle(pilot)
        return app.screen.query_one("#title").value, app.screen.query_one("#editor").text

    assert drive(paths, scenario) == ("Sunday", "quiet day")


def test_write_on_today_opens_the_journal_ready_for_words(created) -> None:
    """ "j" (Write) on Today: the words typed next go into the editor, even when the journal
    was left with its search field in focus (they were typed into the search)."""
    paths, _ = created

    async def scenario(app, pilot):
        await unlock(pilot, PASSPHRASE, to="f5")
        await pilot.press("ctrl+f")  # search, then away
        await pilot.press("f3")
        await settle(pilot)
        await pilot.press("j", *"rain all day")
        await settle(pilot)
        return app.screen.query_one("#editor").text

    assert drive(paths, scenario) == "rain all day"


def test_enter_saves_the_profile(created) -> None:
    paths, _ = created

    async def scenario(app, pilot):
        await unlock(pilot, PASSPHRASE, to="f8")
        await pilot.press(*"Sam", "enter")
        await settle(pilot)

    drive(paths, scenario)
    with reopen(paths) as vault:
        assert profile.load(vault).get("preferred_name") == "Sam"


def test_a_crisis_line_is_saved_with_enter_and_never_half_dropped(created) -> None:
    """Enter after the line's name goes on to its number, Enter there saves both; a name
    saved without a number is refused with a reason, the name kept on screen (it was
    dropped without a word)."""
    paths, _ = created

    async def scenario(app, pilot):
        await unlock(pilot, PASSPHRASE, to="f10")
        app.screen.query_one("#crisis_name").focus()
        await pilot.press(*"Samaritans", "enter")
        await settle(pilot)
        half = app.screen.focused.id, [line.name for line in app.config.crisis_lines]
        await pilot.press("ctrl+s")
        await settle(pilot)
        refused = app.screen.query_one("#crisis_name").value, list(app.config.crisis_lines)
        await pilot.press(*"116 123", "enter")
        await settle(pilot)
        return half, refused, [(c.name, c.contact) for c in app.config.crisis_lines]

    half, refused, saved = drive(paths, scenario)
    assert half == ("crisis_contact", [])
    assert refused == ("Samaritans", [])
    assert saved == [("Samaritans", "116 123")]


def test_follow_up_done_says_how_to_pick_one_instead_of_doing_nothing(created) -> None:
    """ "d" on Today with no follow-up highlighted did nothing, silently: it says how to pick
    one and gives the arrows to the list; the next "d" marks the highlighted one done."""
    from companion.memory import followups

    paths, _ = created
    with reopen(paths) as vault:
        followups.add(vault, "Call mum on Sunday", None, ["chat_message:1"])

    async def scenario(app, pilot):
        await unlock(pilot, PASSPHRASE)
        await pilot.press("d")
        await settle(pilot)
        said = [n.message for n in app._notifications]
        still_open = [f.text for f in followups.open_items(app.vault)]
        await pilot.press("d")
        await settle(pilot)
        return said, still_open, [f.text for f in followups.open_items(app.vault)]

    said, still_open, after = drive(paths, scenario)
    assert "Pick the follow-up with the arrows, then press d." in said
    assert still_open == ["Call mum on Sunday"] and after == []


def test_escape_in_the_journal_search_leaves_the_search_not_the_journal(created) -> None:
    """Escape clears the words searched, then goes on to the list; it went back to Today,
    whose keys the next letters pressed ("d" marks a follow-up done)."""
    paths, _ = created
    with reopen(paths) as vault:
        journal.add(vault, "A walk by the canal")
        journal.add(vault, "Meeting, then soup")

    async def scenario(app, pilot):
        await unlock(pilot, PASSPHRASE, to="f5")
        await pilot.press("ctrl+f", *"canal")
        await settle(pilot)
        await pilot.press("escape")
        await settle(pilot)
        cleared = app.current_mode, app.screen.query_one("#search").value
        await pilot.press("escape")
        await settle(pilot)
        return cleared, app.current_mode, app.screen.focused.id

    cleared, mode, focused = drive(paths, scenario)
    assert cleared == ("journal", "")
    assert (mode, focused) == ("journal", "entries")


def test_keys_typed_after_a_key_that_moves_the_focus_go_where_it_moved(created) -> None:
    """Ctrl+F and a word in one burst, in the journal's editor: the word is the search, and
    the entry being written is untouched (the word went into the entry: the editor passes
    Ctrl+F up to the screen, which moved the focus only after the letters behind it had been
    handed to the editor)."""
    paths, _ = created

    async def scenario(app, pilot):
        await unlock(pilot, PASSPHRASE, to="f5")
        app.screen.query_one("#editor").focus()
        await settle(pilot)
        burst(app, *keys_of("my day"), "ctrl+f", *keys_of("potatoes"))
        await settle(pilot)
        return app.screen.query_one("#search").value, app.screen.query_one("#editor").text

    assert drive(paths, scenario) == ("potatoes", "my day")


def test_a_dialog_closed_by_escape_in_one_burst_lets_the_next_keys_through(created) -> None:
    """Escape in a dialog's field closes the dialog before the keys behind it are read: "a",
    a few letters, Escape, then "a" and a fact, all in one burst, saves that fact alone."""
    paths, _ = created

    async def scenario(app, pilot):
        await unlock(pilot, PASSPHRASE, to="f7")
        burst(app, "a", *keys_of("oops"), "escape", "a", *keys_of("likes tea"), "enter")
        await settle(pilot)

    drive(paths, scenario)
    with Vault.unlock(paths, PASSPHRASE, daily_backup=False) as vault:
        assert [f.text for f in store.live_facts(vault)] == ["likes tea"]


def test_enter_walks_the_check_in_and_the_note_typed_after_it_is_kept(created) -> None:
    """A check-in typed with Enter after each value, as in most forms, and a note after the
    last, in one burst: every value lands in its field and the note in the note (Enter
    saved the mood alone, and the rest, typed into the mood field, was lost)."""
    paths, _ = created
    frozen()

    async def scenario(app, pilot):
        await unlock(pilot, PASSPHRASE, to="f4")
        burst(app, "6", "enter", "3", "enter", "7", "enter", "y", "enter")
        burst(app, *keys_of("called my sponsor"), "ctrl+s")
        await settle(pilot)

    drive(paths, scenario)
    with reopen(paths) as vault:
        saved = checkins.get(vault, NOW.date()).values
    assert saved == {
        "mood": 6,
        "cravings": 3,
        "sleep_hours": 7.0,
        "sober": True,
        "note": "called my sponsor",
    }


def test_keys_typed_just_before_a_lock_stay_in_the_draft_not_the_passphrase(created) -> None:
    """Ctrl+L is acted on as soon as it is read; keys typed before it that wait behind Enter
    or Ctrl+F are kept where they were typed (and in the draft), not typed into the
    passphrase field after the lock, where they would make the next unlock fail unseen."""
    paths, _ = created
    frozen()

    async def scenario(app, pilot):
        await unlock(pilot, PASSPHRASE, to="f5")
        app.screen.query_one("#editor").focus()
        await settle(pilot)
        burst(app, *keys_of("my day"), "ctrl+f", *keys_of("pot"), "ctrl+l")
        await settle(pilot)
        return app.screen.query_one("#passphrase").value

    assert drive(paths, scenario) == ""
    with reopen(paths) as vault:
        assert "my daypot" in str(drafts.load(vault, "journal"))


def test_an_enter_after_sober_no_does_not_log_a_slip(created) -> None:
    """Enter on "Sober: n" saves and asks about a slip; the Enter typed next (meant for the
    note) answers "Not now", not "Log the slip". Saving the day's note afterwards does not
    ask again: the answer was given."""
    paths, _ = created
    frozen()

    async def scenario(app, pilot):
        await unlock(pilot, PASSPHRASE, to="f4")
        await pilot.press("6", "enter", "3", "enter", "7", "enter", "n", "enter")
        await settle(pilot)
        asked = isinstance(app.screen, ConfirmScreen)
        # No recovery start date: nothing was being counted, so not "counting again".
        assert "start counting your days from that day" in app.screen.question
        await pilot.press("enter")
        await settle(pilot)
        await pilot.press(*keys_of("rough night"), "ctrl+s")
        await settle(pilot)
        return asked, isinstance(app.screen, ConfirmScreen)

    assert drive(paths, scenario) == (True, False)
    with reopen(paths) as vault:
        assert profile.load(vault).get("recovery_start_date") is None
        assert checkins.get(vault, NOW.date()).values["sober"] is False
        assert checkins.get(vault, NOW.date()).values["note"] == "rough night"


def test_a_paste_after_a_key_that_moves_the_focus_goes_where_it_moved(created) -> None:
    """Ctrl+F and a paste read together, in the journal's editor: the pasted words are the
    search, and the entry is untouched."""
    paths, _ = created

    async def scenario(app, pilot):
        await unlock(pilot, PASSPHRASE, to="f5")
        app.screen.query_one("#editor").focus()
        await settle(pilot)
        burst(app, *keys_of("my day"), "ctrl+f")
        app.post_message(events.Paste("river walk"))
        burst(app, "s")
        await settle(pilot)
        return app.screen.query_one("#search").value, app.screen.query_one("#editor").text

    assert drive(paths, scenario) == ("river walks", "my day")


def test_a_saved_entry_that_sounds_like_danger_brings_help_after_saved(created) -> None:
    """The new words are read in a worker (a pasted megabyte takes a second or two, which
    held the screen): the entry is saved at once, and help comes when they have been read;
    the same words saved again bring none."""
    paths, _ = created

    async def scenario(app, pilot):
        await unlock(pilot, PASSPHRASE, to="f5")
        app.screen.query_one("#editor").text = (
            "long day, boss on at me about the rota again, got soaked walking home, fed the"
            " cat, took every pill in the cabinet about an hour ago and my chest feels tight"
        )
        await pilot.press("ctrl+s")
        await settle(pilot)
        first = type(app.screen).__name__, screen_text(app)
        await pilot.press("escape")
        await pilot.press("ctrl+s")
        await settle(pilot)
        return first, type(app.screen).__name__, len(journal.newest(app.unlocked.vault))

    (crisis, text), again, count = drive(paths, scenario)
    assert crisis == "SosScreen" and "too much may have been taken" in text
    assert again == "JournalScreen" and count == 1


def test_another_day_in_the_check_in_starts_at_its_top_with_the_date_in_sight(created) -> None:
    """PgUp from the note left the form scrolled down at 80x24: the line saying which day it
    was went off screen, and the next keys went into the note of a day the person could not
    see."""
    paths, _ = created

    async def scenario(app, pilot):
        await unlock(pilot, PASSPHRASE, to="f4")
        app.screen.query_one("#note").focus()
        await settle(pilot)
        scrolled = app.screen.query_one("#checkin").scroll_y
        await pilot.press("pageup")
        await settle(pilot)
        return scrolled, app.screen.focused.id, screen_text(app).splitlines()[:4]

    scrolled, focused, top = drive(paths, scenario, size=(80, 24))
    assert scrolled > 0  # the note was out of reach without scrolling
    yesterday = clock.today() - timedelta(days=1)
    assert focused == "mood" and any(f"{yesterday:%Y-%m-%d}" in line for line in top)


def test_saving_a_check_in_again_says_it_was_updated(created) -> None:
    """Enter on the last field saves, and Ctrl+S after the note saves again: two "Check-in
    saved" notes read as one save made twice."""
    paths, _ = created

    async def scenario(app, pilot):
        await unlock(pilot, PASSPHRASE, to="f4")
        await pilot.press("7", "enter", "2", "enter", "8", "enter", "y", "enter")
        await settle(pilot)
        first = [n.message for n in app._notifications]
        await pilot.press(*"slept ok")
        await pilot.press("ctrl+s")
        await settle(pilot)
        return first, [n.message for n in app._notifications]

    first, after = drive(paths, scenario)
    today = f"{clock.today():%Y-%m-%d}"
    assert f"Check-in saved for {today}." in first
    assert after[-1] == f"Check-in updated for {today}."
