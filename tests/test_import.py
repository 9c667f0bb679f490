"""Bringing history in (jrnl, Day One, Markdown) and taking it out to jrnl, without losing a
word. jrnl files are made by the real jrnl package; Day One JSON follows its documented form."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zipfile
from datetime import datetime
from pathlib import Path

import pytest

from companion.activity import journal
from companion.vault import Vault
from companion.vault.models import JournalEntry
from tests.conftest import PASSPHRASE, child_env, run_cli
from tests.extraction_helpers import answer
from tests.fake_llm import tool

JRNL = shutil.which("jrnl") or str(Path(sys.executable).parent / "jrnl")
needs_jrnl = pytest.mark.skipif(
    not Path(JRNL).exists() and not shutil.which("jrnl"),
    reason="jrnl is not installed (pip install '.[test]' adds it)",
)
JRNL_CONFIG = """journals:
  default:
    journal: {journal}
encrypt: false
editor: ''
template: false
default_hour: 9
default_minute: 0
timeformat: '%F %r'
tagsymbols: '#@'
highlight: false
linewrap: 79
indent_character: '|'
colors: {{body: none, date: none, tags: none, title: none}}
version: v4.6
"""


def jrnl_env(tmp_path: Path) -> dict[str, str]:
    home = tmp_path / "jrnl-home"
    (home / "config" / "jrnl").mkdir(parents=True, exist_ok=True)
    (home / "config" / "jrnl" / "jrnl.yaml").write_text(
        JRNL_CONFIG.format(journal=home / "journal.txt")
    )
    return {
        **os.environ,
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / "config"),
        "XDG_DATA_HOME": str(home / "data"),
    }


def jrnl(tmp_path: Path, *args: str) -> str:
    result = subprocess.run(
        [JRNL, *args], env=jrnl_env(tmp_path), capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr
    return result.stdout


def cli(passfile, *args, **kw):  # type: ignore[no-untyped-def]
    return run_cli("--passphrase-file", str(passfile), *args, **kw)


def entries(paths) -> list[tuple[str, str, str, list[str], bool]]:  # type: ignore[no-untyped-def]
    with Vault.unlock(paths, PASSPHRASE, daily_backup=False) as vault:
        rows = journal.newest(vault, 1000)
    return sorted(
        (e.created_at.strftime("%Y-%m-%d %H:%M"), e.title, e.text, sorted(e.tags), e.starred)
        for e in rows
    )


@needs_jrnl
def test_jrnl_export_imports_once_with_dates_titles_tags_and_stars(
    created, passfile, tmp_path
) -> None:
    paths, _ = created
    source = tmp_path / "plain.txt"
    source.write_text(
        "[2025-03-01 09:15:00 PM] Called Dana after the #meeting.\n"
        "It helped more than I expected. @family came too.\n\n"
        "[2025-03-02 07:05:00 AM] Morning pages *\nSlept well.\n\n"
        "[2025-03-04 12:00:00 PM] Lunch with @work people.\n"
    )
    jrnl(tmp_path, "--import", "--file", str(source))
    export = tmp_path / "export.json"
    export.write_text(jrnl(tmp_path, "--export", "json"))
    first = cli(passfile, "import", "jrnl", str(export))
    assert first.returncode == 0, first.stderr
    assert "added 3 entries, skipped 0" in first.stdout
    assert "learn-imports" in first.stdout
    got = entries(paths)
    assert got == [
        (
            "2025-03-01 21:15",
            "Called Dana after the #meeting.",
            "It helped more than I expected. @family came too.",
            ["family", "meeting"],
            False,
        ),
        ("2025-03-02 07:05", "Morning pages", "Slept well.", [], True),
        ("2025-03-04 12:00", "", "Lunch with @work people.", ["work"], False),
    ]
    again = cli(passfile, "import", "jrnl", str(export))
    assert "added 0 entries, skipped 3" in again.stdout
    assert len(entries(paths)) == 3


@needs_jrnl
def test_round_trip_through_jrnl(created, passfile, tmp_path, paths) -> None:
    source_paths, _ = created
    with Vault.unlock(source_paths, PASSPHRASE, daily_backup=False) as vault:
        when = datetime(2025, 6, 1, 8, 30).astimezone()
        journal.add(
            vault,
            "First line of a long entry.\nSecond line, with #hope.",
            "A title",
            ["recovery"],
            when,
        )
        journal.add(vault, "Untitled and short.", "", [], when.replace(hour=22), starred=True)
        journal.add(vault, "Two lines\nand no title", "", ["night"], when.replace(day=3))
    exported = tmp_path / "companion.txt"
    assert cli(passfile, "export", "--format", "jrnl", "-o", str(exported)).returncode == 0
    jrnl(tmp_path, "--import", "--file", str(exported))
    back = tmp_path / "back.json"
    back.write_text(jrnl(tmp_path, "--export", "json"))
    fresh = tmp_path / "fresh"
    env = child_env(COMPANION_HOME=str(fresh))
    assert (
        run_cli(
            "--passphrase-file", str(passfile), "init", "--kdf-memory", "64", env=env
        ).returncode
        == 0
    )
    assert (
        run_cli("--passphrase-file", str(passfile), "import", "jrnl", str(back), env=env).returncode
        == 0
    )

    def same(rows):  # type: ignore[no-untyped-def]
        return sorted(
            (when, " ".join((title + " " + text).split()), sorted(tags), starred)
            for when, title, text, tags, starred in rows
        )

    from companion.paths import VaultPaths

    assert same(entries(VaultPaths(fresh))) == same(entries(source_paths))


def test_malformed_files_write_nothing_and_bad_entries_are_named(
    created, passfile, tmp_path
) -> None:
    paths, _ = created
    junk = tmp_path / "junk.json"
    junk.write_text("{ not json")
    result = cli(passfile, "import", "jrnl", str(junk))
    assert result.returncode == 65 and "not a jrnl JSON export" in result.stderr
    assert "nothing was imported" in result.stderr and entries(paths) == []
    mixed = tmp_path / "mixed.json"
    mixed.write_text(
        json.dumps(
            {
                "tags": {},
                "entries": [
                    {
                        "date": "2025-01-01",
                        "time": "09:00",
                        "title": "Good one",
                        "body": "",
                        "tags": [],
                    },
                    {"date": "yesterday-ish", "title": "Bad date"},
                    {
                        "date": "2025-01-03",
                        "time": "10:00",
                        "title": "Also good",
                        "body": "",
                        "tags": [],
                    },
                ],
            }
        )
    )
    result = cli(passfile, "import", "jrnl", str(mixed))
    assert result.returncode == 0
    assert "added 2 entries" in result.stdout and "entry 2: no valid date" in result.stdout


def day_one_document() -> dict:
    return {
        "metadata": {"version": "1.0"},
        "entries": [
            {
                "uuid": "A1",
                "creationDate": "2024-12-31T23:30:00Z",
                "timeZone": "Asia/Tokyo",
                "text": "New year's morning in Tokyo.\n\nQuiet and clear.",
                "tags": ["Travel"],
                "starred": True,
                "photos": [{"md5": "x"}, {"md5": "y"}],
            },
            {
                "uuid": "A2",
                "creationDate": "2025-01-02T18:00:00Z",
                "timeZone": "Europe/London",
                "text": "Back home.",
                "audios": [{"md5": "z"}],
            },
            {"uuid": "A3", "text": "no date at all"},
        ],
    }


def test_day_one_json_and_zip(created, passfile, tmp_path) -> None:
    paths, _ = created
    plain = tmp_path / "Journal.json"
    plain.write_text(json.dumps(day_one_document()))
    result = cli(passfile, "import", "dayone", str(plain))
    assert result.returncode == 0, result.stderr
    assert "added 2 entries" in result.stdout and "skipped 3 attachments" in result.stdout
    assert "entry 3: no valid creation date" in result.stdout
    with Vault.unlock(paths, PASSPHRASE, daily_backup=False) as vault:
        tokyo = JournalEntry.select().order_by(JournalEntry.created_at).first()
        assert tokyo.local_date == "2025-01-01"  # the entry's own time zone
        entry = journal.view(vault, tokyo)
        assert entry.starred and entry.tags == ["travel"]
        assert entry.text == "New year's morning in Tokyo.\n\nQuiet and clear."
    archive = tmp_path / "export.zip"
    with zipfile.ZipFile(archive, "w") as bundle:
        bundle.writestr("Journal.json", json.dumps(day_one_document()))
        bundle.writestr("photos/x.jpeg", b"\xff\xd8")
    again = cli(passfile, "import", "dayone", str(archive))
    assert "added 0 entries, skipped 2" in again.stdout


def test_markdown_folder(created, passfile, tmp_path) -> None:
    paths, _ = created
    notes = tmp_path / "vault-notes"
    (notes / "daily").mkdir(parents=True)
    (notes / "daily" / "2025-02-10.md").write_text("Went for a run. #health\n")
    (notes / "Trip to Lisbon.md").write_text(
        "---\ndate: 2025-03-05 18:20\ntags: [travel, family]\n---\nTram 28 with Mia.\n"
    )
    (notes / "undated.md").write_text("---\ntags:\n  - ideas\n---\nSomething to try.\n")
    os.utime(notes / "undated.md", (1700000000, 1700000000))
    (notes / "notes.txt").write_text("not markdown")
    result = cli(passfile, "import", "markdown", str(notes))
    assert result.returncode == 0 and "added 3 entries" in result.stdout
    got = {text: (when, title, tags) for when, title, text, tags, _ in entries(paths)}
    assert got["Went for a run. #health"] == ("2025-02-10 21:00", "", ["health"])
    assert got["Tram 28 with Mia."] == ("2025-03-05 18:20", "Trip to Lisbon", ["family", "travel"])
    undated = got["Something to try."]
    assert undated[0].startswith(datetime.fromtimestamp(1700000000).strftime("%Y-%m-%d"))
    assert undated[2] == ["ideas"]
    assert "added 0 entries" in cli(passfile, "import", "markdown", str(notes)).stdout


def test_imported_history_is_learned_only_when_asked(created, passfile, tmp_path, fake_llm) -> None:
    _paths, _ = created
    plain = tmp_path / "Journal.json"
    plain.write_text(json.dumps(day_one_document()))
    cli(passfile, "import", "dayone", str(plain))
    fake_llm.push(tool(answer()))
    nothing = cli(passfile, "memory", "extract", env=child_env())
    assert "Nothing new" in nothing.stdout and fake_llm.requests == []
    learned = cli(passfile, "memory", "learn-imports", "--yes", env=child_env())
    assert learned.returncode == 0, learned.stderr
    assert "2 imported entries: about" in learned.stdout and "$" in learned.stdout
    assert len(fake_llm.requests) == 1
    sent = fake_llm.requests[0]["body"]["messages"][0]["content"]
    assert "New year's morning in Tokyo" in sent


@pytest.mark.parametrize("minute_stored", [True, False])
def test_reimport_after_a_rekey_in_another_time_zone_adds_nothing(
    created, passfile, tmp_path, minute_stored
) -> None:
    """The fingerprint keeps the minute as written, not as today's time zone would show it;
    for entries from before the minute was stored, rekey finds it from the old fingerprint."""
    source = tmp_path / "export.json"
    source.write_text(
        json.dumps(
            {
                "tags": {},
                "entries": [
                    {"date": "2025-03-01", "time": "21:15", "title": "Called Dana",
                     "body": "It helped.", "starred": False, "tags": []},
                    {"date": "2025-07-02", "time": "07:05", "title": "Morning pages",
                     "body": "Slept well.", "starred": True, "tags": []},
                ],
            }
        )
    )  # fmt: skip
    london = child_env(TZ="Europe/London")
    first = cli(passfile, "import", "jrnl", str(source), env=london)
    assert first.returncode == 0 and "added 2 entries" in first.stdout, first.stderr
    if not minute_stored:  # as the entries of an older Companion were sealed
        with Vault.unlock(created[0], PASSPHRASE, daily_backup=False) as vault:
            for row in JournalEntry.select():
                payload = vault.open(row)
                del payload["minute"]
                vault.update(JournalEntry, row.id, payload)
    rekeyed = cli(passfile, "rekey", env=child_env(TZ="America/New_York"))
    assert rekeyed.returncode == 0, rekeyed.stderr
    again = cli(passfile, "import", "jrnl", str(source), env=london)
    assert again.returncode == 0 and "added 0 entries, skipped 2" in again.stdout, again.stdout
