"""The headless command line as a script would use it: real subprocesses, real vault."""

from __future__ import annotations

import csv
import io
import json
import os
import pty
import subprocess
from datetime import date, datetime, timedelta

import pytest

from companion import clock
from companion.activity import chat, checkins, journal
from companion.retrieval.search import SearchIndex
from companion.vault import Vault
from companion.vault.models import CheckIn, JournalEntry
from tests.conftest import PASSPHRASE, db_bytes, run_cli

NOW = "2026-03-10T21:30:00+00:00"


@pytest.fixture
def cli(created, passfile):
    paths, _ = created

    def call(*args: str, **kw):
        env = kw.pop("env", None)
        from tests.conftest import child_env

        return run_cli(
            "--passphrase-file", str(passfile), *args, env=env or child_env(COMPANION_NOW=NOW), **kw
        )

    call.paths = paths  # type: ignore[attr-defined]
    return call


def test_checkin_then_partial_update_keeps_the_rest(cli) -> None:
    first = cli(
        "checkin",
        "--mood",
        "6",
        "--cravings",
        "3",
        "--sleep",
        "7.5",
        "--sober",
        "yes",
        "--note",
        "long day",
    )
    assert first.returncode == 0, first.stderr
    assert "2026-03-10" in first.stdout
    again = cli("checkin", "--cravings", "5")
    assert again.returncode == 0
    with Vault.unlock(cli.paths, PASSPHRASE) as vault:
        saved = checkins.get(vault, date(2026, 3, 10))
    assert saved is not None
    assert saved.values == {
        "mood": 6,
        "cravings": 5,
        "sleep_hours": 7.5,
        "sober": True,
        "note": "long day",
    }


def test_backfill_yesterday_and_a_date(cli) -> None:
    assert cli("checkin", "--date", "yesterday", "--mood", "4").returncode == 0
    assert cli("checkin", "--date", "2026-01-02", "--mood", "9").returncode == 0
    with Vault.unlock(cli.paths, PASSPHRASE) as vault:
        days = [c.date.isoformat() for c in checkins.all_checkins(vault)]
    assert days == ["2026-01-02", "2026-03-09"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--mood", "11"], "mood 11 is out of range"),
        (["--mood", "0"], "mood 0 is out of range"),
        (["--mood", "seven"], "mood must be a whole number"),
        (["--cravings", "-1"], "cravings -1 is out of range"),
        (["--sleep", "25"], "sleep 25 is out of range"),
        (["--sleep", "nan"], "sleep nan is out of range"),
        (["--sober", "maybe"], "sober must be yes or no"),
        (["--urge", "12"], "urge intensity 12 is out of range"),
        (["--date", "2026-03-11", "--mood", "5"], "is in the future"),
        (["--date", "03/01/2026", "--mood", "5"], "is not a date"),
    ],
)
def test_bad_checkin_values_write_nothing(cli, args, message) -> None:
    before = db_bytes(cli.paths)
    result = cli("checkin", *args)
    assert result.returncode == 2
    assert message in result.stderr
    assert result.stderr.count("\n") == 1
    assert db_bytes(cli.paths) == before


def test_a_note_from_the_command_line_is_added_to_the_one_written_earlier(cli) -> None:
    """A two-line note written in the app, then an evening line from the shell: both stay,
    the command says so, running it again adds nothing, and replacing needs asking for."""
    day = date(2026, 3, 10)
    morning = "Slept badly but went to the morning meeting.\nCravings low until 4pm, then a walk."
    with Vault.unlock(cli.paths, PASSPHRASE) as vault:
        checkins.record(vault, day, mood=7, note=morning)

    def note() -> str:
        with Vault.unlock(cli.paths, PASSPHRASE) as vault:
            saved = checkins.get(vault, day)
        assert saved is not None
        return str(saved.values["note"])

    added = cli("checkin", "--note", "evening: called my sister")
    assert added.returncode == 0, added.stderr
    assert "added to the note for 2026-03-10" in added.stdout
    assert note() == morning + "\nevening: called my sister"
    again = cli("checkin", "--note", "evening: called my sister", "--cravings", "2")
    assert again.returncode == 0, again.stderr
    assert "already has those words" in again.stdout
    assert note() == morning + "\nevening: called my sister"
    before = db_bytes(cli.paths)
    refused = cli("checkin", "--replace-note")
    assert refused.returncode == 2 and "--replace-note needs --note" in refused.stderr
    assert db_bytes(cli.paths) == before
    replaced = cli("checkin", "--note", "a fresh start", "--replace-note")
    assert replaced.returncode == 0, replaced.stderr
    assert "replaced the note for 2026-03-10" in replaced.stdout
    assert note() == "a fresh start"
    # "-": the words come from stdin, not the command line others can read
    piped = cli("checkin", "--note", "-", input="rang dana. lasagne.\n")
    assert piped.returncode == 0, piped.stderr
    assert "added to the note for 2026-03-10" in piped.stdout
    assert note() == "a fresh start\nrang dana. lasagne."


def test_sleep_with_a_decimal_comma_as_the_app_takes_it(cli) -> None:
    given = cli("checkin", "--date", "yesterday", "--sleep", "7,5")
    assert given.returncode == 0, given.stderr
    assert "sleep 7.5" in given.stdout
    with Vault.unlock(cli.paths, PASSPHRASE) as vault:
        saved = checkins.get(vault, date(2026, 3, 9))
    assert saved is not None and saved.values["sleep_hours"] == 7.5


def test_the_prompts_take_a_decimal_comma_and_leave_the_note_alone(cli) -> None:
    """At a terminal, the fields not given are asked for: "7,5" hours is 7.5 there too, and
    the note written earlier that day is kept (there is no prompt for it)."""
    with Vault.unlock(cli.paths, PASSPHRASE) as vault:
        checkins.record(vault, date(2026, 3, 10), note="written in the app")
    primary, secondary = pty.openpty()
    try:
        os.write(primary, b"7,5\n\n")  # the second line skips the question if 7,5 is refused
        asked = cli("checkin", "--mood", "6", "--cravings", "1", "--sober", "yes", stdin=secondary)
    finally:
        os.close(secondary)
        os.close(primary)
    assert asked.returncode == 0, asked.stderr
    assert "Hours of sleep" in asked.stdout and asked.stderr == ""
    with Vault.unlock(cli.paths, PASSPHRASE) as vault:
        saved = checkins.get(vault, date(2026, 3, 10))
    assert saved is not None
    assert saved.values["sleep_hours"] == 7.5 and saved.values["note"] == "written in the app"


def test_edit_after_memorization_clears_the_mark(vault: Vault) -> None:
    day = clock.today()
    saved = checkins.record(vault, day, mood=5)
    vault.update(CheckIn, saved.id, memorized=True)
    checkins.record(vault, day, note="more to say")
    assert CheckIn.get_by_id(saved.id).memorized is False
    entry = journal.add(vault, "words")
    vault.update(JournalEntry, entry.id, memorized=True)
    journal.edit(vault, entry.id, "better words")
    assert journal.get(vault, entry.id).memorized is False


def test_journal_add_list_show_search(cli) -> None:
    added = cli(
        "journal",
        "add",
        "Called my sponsor after the #meeting",
        "--tag",
        "Recovery",
        "--title",
        "Tuesday",
    )
    assert added.returncode == 0, added.stderr
    assert "#recovery" in added.stdout and "#meeting" in added.stdout
    cli("journal", "add", "Quiet evening, read a book")
    listed = cli("journal", "list", "-n", "5")
    lines = listed.stdout.strip().splitlines()
    assert "Quiet evening" in lines[0] and "Tuesday" in lines[1]
    shown = cli("journal", "show", "1")
    assert "# Tuesday" in shown.stdout and "Called my sponsor" in shown.stdout
    found = cli("journal", "search", "SPONSOR")
    assert "journal 1" in found.stdout and "Quiet" not in found.stdout
    missing = cli("journal", "show", "99")
    assert missing.returncode == 2 and "no journal entry 99" in missing.stderr


def test_an_imported_entry_with_many_tags_can_be_edited_but_new_ones_are_bounded(
    vault: Vault,
) -> None:
    """Forty tags from an import stay editable; forty more typed at once are writing that went
    into the tags field, refused with a word on it, and the entry is left as it was."""
    from companion.config import Config
    from companion.errors import InvalidInput
    from companion.usecases import journaling
    from companion.usecases.unlocked import Unlocked

    unlocked = Unlocked(vault, Config(region="US"))
    imported = [f"trip{i}" for i in range(40)]
    entry = journal.add(vault, "Lisbon, day three.", tags=imported, imported=True)
    saved = journaling.save_entry(unlocked, "Lisbon, day three. Rain.", "", imported, entry.id)
    assert saved.entry.tags == imported
    pasted = [f"word{i}" for i in range(31)]
    with pytest.raises(InvalidInput, match="move it into the entry"):
        journaling.save_entry(unlocked, "Lisbon, day three. Rain!", "", imported + pasted, entry.id)
    with pytest.raises(InvalidInput, match="at most 64 characters"):
        journaling.save_entry(unlocked, "Another day.", "", ["x" * 65])
    assert journal.get(vault, entry.id).text == "Lisbon, day three. Rain."
    assert journal.count() == 1


def test_a_sentence_typed_into_the_tags_field_is_refused_and_not_saved(vault: Vault) -> None:
    """Tab from the editor lands in Tags: a few words with a full stop there are writing, not
    tags (saved, they became "dana." and "hardest." as tags), so saving says where they are."""
    from companion.config import Config
    from companion.errors import InvalidInput
    from companion.usecases import journaling
    from companion.usecases.unlocked import Unlocked

    unlocked = Unlocked(vault, Config(region="US"))
    typed = "Talked to Dana after the meeting. She said the first winter is the hardest."
    with pytest.raises(InvalidInput, match="writing went into the tags"):
        journaling.save_entry(unlocked, "Meeting night.", "", typed.split())
    assert journal.count() == 0
    saved = journaling.save_entry(unlocked, "Meeting night.", "", ["meetings", "v2.0", "#aa"])
    assert saved.entry.tags == ["meetings", "v2.0", "aa"]


def test_one_megabyte_entry_through_stdin(cli) -> None:
    text = ("I am writing a very long entry. " * 33_000)[:1_000_000] + "\nthe end ✓"
    result = cli("journal", "add", "-", input=text.encode("utf-8"))
    assert result.returncode == 0, result.stderr
    with Vault.unlock(cli.paths, PASSPHRASE) as vault:
        assert journal.get(vault, 1).text == text


def test_markup_and_escape_sequences_are_stored_exactly_and_shown_inert(cli) -> None:
    text = "[bold red]not markup[/] \x1b[2J\x1b[31mred\x07 end"
    assert cli("journal", "add", text).returncode == 0
    with Vault.unlock(cli.paths, PASSPHRASE) as vault:
        assert journal.get(vault, 1).text == text
    piped = cli("journal", "show", "1")
    assert text in piped.stdout  # a pipe gets the exact bytes, for scripts
    primary, secondary = pty.openpty()
    try:
        on_tty = cli(
            "journal", "show", "1", stdout=secondary, stderr=subprocess.PIPE, capture_output=False
        )
        os.close(secondary)
        screen = b""
        while chunk := _read(primary):
            screen += chunk
    finally:
        os.close(primary)
    assert on_tty.returncode == 0
    assert b"\x1b" not in screen and b"\x07" not in screen
    assert b"\\x1b[2J" in screen and b"[bold red]not markup[/]" in screen


def _read(fd: int) -> bytes:
    try:
        return os.read(fd, 65536)
    except OSError:  # EIO once the child has closed its end
        return b""


def test_search_covers_notes_and_chats(vault: Vault) -> None:
    checkins.record(vault, clock.today(), mood=5, note="the lighthouse walk helped")
    session = chat.start(vault)
    chat.add_message(vault, session.id, "user", "I keep thinking about the lighthouse")
    journal.add(vault, "nothing relevant")
    hits = SearchIndex(vault).search("lighthouse")
    assert sorted(h.kind for h in hits) == ["chat", "checkin"]


def test_search_as_a_person_types_it(vault: Vault) -> None:
    """All words (the last also as a prefix), phrases, stems, short words, best first."""
    clock.set_clock(lambda: datetime(2026, 5, 1, 21, 0).astimezone())
    old = journal.add(
        vault, "Cravings hit hard after the AA meeting", when=clock.now() - timedelta(days=30)
    ).id
    new = journal.add(vault, "A craving, small, at the bus stop").id
    strong = journal.add(vault, "Craving craving craving. The craving would not stop tonight").id
    journal.add(vault, "Meeting with my dad about the job")
    index = SearchIndex(vault)

    def ids(query: str, **kw: object) -> list[int]:
        return [h.id for h in index.search(query, kind="journal", **kw)]  # type: ignore[arg-type]

    assert set(ids("crav")) == {old, new, strong}  # prefix while typing, and stems
    assert ids("crav")[0] == strong  # the best match first
    assert ids("craving bus") == [new]  # every word must match
    assert ids('"bus stop"') == [new] and ids('"stop bus"') == []  # a phrase is a phrase
    assert ids("aa") == [old] and len(ids("dad job")) == 1  # short words count
    assert ids("crav", newest=True)[0] in (new, strong)  # newest first when asked
    assert ids("crav", newest=True)[-1] == old
    assert index.search("nowhere to be found") == []


def test_export_formats(cli, tmp_path) -> None:
    cli("checkin", "--mood", "7", "--note", 'steady, "quoted"')
    cli("journal", "add", "An entry with, commas\nand lines", "--tag", "x")
    out = tmp_path / "all.json"
    assert cli("export", "--format", "json", "-o", str(out)).returncode == 0
    assert oct(out.stat().st_mode & 0o777) == "0o600"
    data = json.loads(out.read_text())
    assert data["journal"][0]["text"] == "An entry with, commas\nand lines"
    assert data["checkins"][0]["note"] == 'steady, "quoted"'
    rows = list(csv.DictReader(io.StringIO(cli("export", "--format", "csv").stdout)))
    assert [r["kind"] for r in rows] == ["checkin", "journal"]
    assert rows[1]["text"] == "An entry with, commas\nand lines"
    markdown = cli("export", "--format", "markdown").stdout
    assert "## Journal" in markdown and "An entry with, commas" in markdown


def test_export_to_dash_writes_standard_output_not_a_file(cli, tmp_path) -> None:
    cli("journal", "add", "words for stdout")
    result = cli("export", "--format", "json", "-o", "-", cwd=tmp_path)
    assert result.returncode == 0
    assert json.loads(result.stdout)["journal"][0]["text"] == "words for stdout"
    assert not (tmp_path / "-").exists()


@pytest.mark.parametrize(
    "command",
    [
        ["export", "--format", "csv", "-o"],
        ["memory", "export", "-o"],
        ["insights", "--share", "-o"],
    ],
)
def test_writing_into_a_missing_folder_says_so_before_the_passphrase(
    cli, tmp_path, command
) -> None:
    missing = tmp_path / "no such folder"
    result = cli(*command, str(missing / "out.txt"))
    assert result.returncode == 2
    assert f"the folder {missing} does not exist" in result.stderr
    assert "unexpected" not in result.stderr and result.stderr.count("\n") == 1
    unasked = run_cli(*command, str(missing / "out.txt"), input="")  # no passphrase at hand
    assert unasked.returncode == 2 and unasked.stderr == result.stderr
    assert not missing.exists()


def test_exporting_onto_a_folder_or_through_a_file_says_so(cli, tmp_path) -> None:
    onto = cli("export", "-o", str(tmp_path))
    assert onto.returncode == 2 and f"{tmp_path} is a folder" in onto.stderr
    (tmp_path / "plain").write_text("not a folder")
    through = cli("export", "-o", str(tmp_path / "plain" / "all.json"))
    assert through.returncode == 2 and "plain is not a folder" in through.stderr
    assert (tmp_path / "plain").read_text() == "not a folder"


def test_unreadable_passphrase_file(created, tmp_path) -> None:
    result = run_cli("--passphrase-file", str(tmp_path / "nope"), "journal", "list")
    assert result.returncode == 2
    assert "cannot read the passphrase file" in result.stderr


def test_no_passphrase_without_a_terminal(created) -> None:
    result = run_cli("journal", "list", input="")
    assert result.returncode == 2 and "--passphrase-file" in result.stderr


def test_passphrase_from_environment(created) -> None:
    from tests.conftest import child_env

    result = run_cli("journal", "list", env=child_env(COMPANION_PASSPHRASE=PASSPHRASE))
    assert result.returncode == 0 and "no entries yet" in result.stdout


def test_profile_show_and_set(cli) -> None:
    assert cli("profile", "set", "preferred_name", "Sam").returncode == 0
    assert cli("profile", "set", "known_triggers", "work stress, late nights").returncode == 0
    bad = cli("profile", "set", "recovery_start_date", "2027-01-01")
    assert bad.returncode == 2 and "in the future" in bad.stderr
    typo = cli("profile", "set", "recovery_start_date", "14/02/2023")
    assert typo.returncode == 2 and "Recovery start date must be a date, YYYY-MM-DD" in typo.stderr
    unknown = cli("profile", "set", "favourite_colour", "blue")
    assert unknown.returncode == 2 and "unknown profile field" in unknown.stderr
    shown = json.loads(cli("profile", "show", "--json").stdout)
    assert shown == {"preferred_name": "Sam", "known_triggers": ["work stress", "late nights"]}
    assert cli("profile", "set", "preferred_name", "").returncode == 0
    assert "preferred_name" not in json.loads(cli("profile", "show", "--json").stdout)


def test_a_damaged_record_does_not_hide_the_others(cli) -> None:
    import sqlite3

    for text in ("first words", "second words", "third words"):
        cli("journal", "add", text)
    conn = sqlite3.connect(cli.paths.db)
    blob = bytearray(conn.execute("SELECT payload FROM journal_entry WHERE id=2").fetchone()[0])
    blob[30] ^= 1
    conn.execute("UPDATE journal_entry SET payload=? WHERE id=2", (bytes(blob),))
    conn.commit()
    conn.close()
    listed = cli("journal", "list")
    assert listed.returncode == 0 and "first words" in listed.stdout
    assert "Damaged entry 2" in listed.stdout
    assert "third words" in cli("journal", "search", "third").stdout
    exported = json.loads(cli("export", "--format", "json").stdout)
    texts = [e["text"] for e in exported["journal"]]
    assert "first words" in texts and "third words" in texts


def test_the_app_refuses_a_held_vault_before_asking_anything(created) -> None:
    from companion.cli import open_app
    from tests.test_vault_open import hold

    paths, _ = created
    holder = hold(paths)
    try:
        code = open_app(str(paths.root))
    finally:
        holder.kill()
        holder.wait()
    assert code == 75


def test_commands_leave_the_apps_unsaved_words_alone(cli) -> None:
    """Half an entry and half a check-in typed in the app before it locked are still there
    after the same things are added from the command line."""
    from companion.activity import drafts

    with Vault.unlock(cli.paths, PASSPHRASE) as vault:
        drafts.save(vault, "journal", "the first lines of something i am still writing")
        drafts.save(vault, "checkin", "", day="2026-03-10", values={"mood": "4"})
    assert cli("journal", "add", "a quick note from the terminal").returncode == 0
    assert cli("checkin", "--date", "2026-03-10", "--mood", "6").returncode == 0
    with Vault.unlock(cli.paths, PASSPHRASE) as vault:
        kept = drafts.load(vault, "journal")
        assert kept is not None and kept["text"].startswith("the first lines")
        assert drafts.load(vault, "checkin") is not None


def test_reading_commands_work_while_the_app_has_the_vault_open(created, cli) -> None:
    """jrnl users read their journal from a shell at any time: reads go through a read-only
    connection beside the app; writes are refused and say why."""
    paths, _ = created
    assert cli("journal", "add", "Written before the app opened").returncode == 0
    with Vault.unlock(paths, PASSPHRASE, daily_backup=False) as app_vault:  # the open app
        journal.add(app_vault, "Written in the app just now")
        listed = cli("journal", "list")
        assert listed.returncode == 0, listed.stderr
        assert "Written before the app opened" in listed.stdout
        assert "Written in the app just now" in listed.stdout  # what the app wrote, too
        found = cli("journal", "search", "app")
        assert found.returncode == 0 and "Written in the app just now" in found.stdout
        exported = cli("export", "--format", "json", "-o", "-")
        assert exported.returncode == 0 and "Written before the app opened" in exported.stdout
        for reading in (["verify"], ["memory", "show"], ["insights"], ["ledger"]):
            done = cli(*reading)
            assert done.returncode == 0, (reading, done.stderr)
        refused = cli("journal", "add", "From the shell while the app is open")
        assert refused.returncode == 75
        assert "open in another Companion" in refused.stderr
    with Vault.unlock(paths, PASSPHRASE, daily_backup=False) as vault:
        texts = [e.text for e in journal.newest(vault)]
    assert "From the shell while the app is open" not in texts and len(texts) == 2
