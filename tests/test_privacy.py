"""Nothing readable on disk: marker strings written through every record kind, and the API
key, appear in no file under the data folder (db, -wal, -shm, backups) nor in the debug log."""

from __future__ import annotations

import logging
from datetime import date
from pathlib import Path

from companion import clock, logs
from companion.activity import chat, checkins, drafts, journal, profile
from companion.llm import ledger
from companion.memory import runs, store, summaries
from companion.paths import log_dir
from companion.vault import Vault, settings
from tests.conftest import PASSPHRASE, child_env, run_cli


def marker(name: str) -> str:
    return f"ZQX{name.upper()}MARK"


MARKERS = [
    marker(n)
    for n in (
        "note",
        "trigger",
        "strategy",
        "journaltext",
        "journaltitle",
        "tag",
        "chattitle",
        "chatmsg",
        "reply",
        "name",
        "sponsor",
        "coping",
        "fact",
        "dailymem",
        "summary",
        "runreason",
        "draft",
        "model",
        "apikey",
        "stdin",
        "passphrase",
    )
]


def scan(folder: Path) -> list[tuple[str, str]]:
    found = []
    for path in folder.rglob("*"):
        if path.is_file():
            data = path.read_bytes()
            for m in MARKERS:
                for form in (m.encode(), m.lower().encode(), m.encode("utf-16-le")):
                    if form in data:
                        found.append((str(path), m))
    return found


def write_everything(vault: Vault) -> None:
    day = clock.today()
    checkins.record(
        vault,
        day,
        mood=4,
        note=marker("note"),
        trigger=marker("trigger"),
        strategy=marker("strategy"),
    )
    journal.add(vault, f"{marker('journaltext')} #{marker('tag')}", title=marker("journaltitle"))
    session = chat.start(vault, marker("chattitle"))
    chat.add_message(vault, session.id, "user", marker("chatmsg"))
    chat.add_message(vault, session.id, "assistant", marker("reply"), incomplete=True)
    profile.update(
        vault,
        {
            "preferred_name": marker("name"),
            "sponsor": marker("sponsor"),
            "coping_plan": marker("coping"),
        },
    )
    store.add_fact(vault, marker("fact"), "recovery", evidence=["journal_entry:1"])
    summaries.add_daily_memory(
        vault, day, date(2026, 1, 1), day, {"journal_summary": marker("dailymem"), "follow_ups": []}
    )
    summaries.put_session_summary(vault, session.id, {"summary_text": marker("summary")})
    run = runs.start_run(vault)
    runs.finish_run(vault, run, "failed", {"reason": marker("runreason")})
    drafts.save(vault, "journal", marker("draft"))
    ledger.record(vault, "chat", marker("model"), 10, 5, 0.001)
    settings.put(vault, "anthropic_api_key", marker("apikey"))
    from companion.memory import followups
    from companion.vault.models import UrgeEvent

    followups.add(vault, marker("followup"))
    vault.insert(
        UrgeEvent, {"trigger": marker("urge")}, occurred_at=clock.stamp(), created_at=clock.stamp()
    )


def test_no_plaintext_in_vault_files_or_debug_log(created, passfile) -> None:
    paths, _ = created
    log_path = logs.configure(debug=True)
    try:
        with Vault.unlock(paths, PASSPHRASE) as vault:
            write_everything(vault)
            logging.getLogger("anthropic").debug("request body %s", marker("apikey"))
            logging.getLogger("httpx").debug("request body %s", marker("chatmsg"))
            assert scan(paths.root) == []  # while open: -wal and -shm present too
            vault.backup("manual")
    finally:
        logs.configure(debug=False)
    # CLI paths too: a stdin entry and a passphrase file with --debug.
    result = run_cli(
        "--debug",
        "--passphrase-file",
        str(passfile),
        "journal",
        "add",
        "-",
        input=marker("stdin"),
        env=child_env(),
    )
    assert result.returncode == 0, result.stderr
    passfile.write_text(marker("passphrase") + "\n")
    bad = run_cli("--debug", "--passphrase-file", str(passfile), "journal", "list")
    assert bad.returncode == 77 and marker("passphrase") not in bad.stderr
    assert log_path is not None and log_path.is_file() and log_path.parent == log_dir()
    assert "vault unlocked" in log_path.read_text()
    assert scan(paths.root) == []
    assert scan(log_path.parent) == []
    assert len(list(paths.backups.iterdir())) >= 2
    # And everything is really there, for the one who holds the key.
    with Vault.unlock(paths, PASSPHRASE) as vault:
        assert settings.get(vault, "anthropic_api_key") == marker("apikey")
        assert journal.newest(vault, 1)[0].text == marker("stdin")


def test_crash_report_shows_no_values(created, passfile, tmp_path) -> None:
    script = tmp_path / "boom.py"
    script.write_text(
        "from companion import logs\n"
        "logs.configure(debug=True)\nlogs.install_excepthook()\n"
        f"secret = '{marker('note')}'\n"
        f"raise ValueError('failed on ' + secret)\n"
    )
    import subprocess
    import sys

    result = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, env=child_env()
    )
    assert result.returncode == 1
    assert "unexpected ValueError" in result.stderr
    assert marker("note") not in result.stderr
    assert scan(log_dir()) == []
    assert "boom.py" in (log_dir() / "companion.log").read_text()


def test_locking_drops_what_the_crisis_detector_read(vault) -> None:
    """The detector remembers the sentences and words it read (each is read once), and the
    coach what the last day's writing was found to say: at lock, none of it stays."""
    from companion.activity import journal
    from companion.coach import prompt, safety
    from companion.coach.safety import model
    from companion.config import Config
    from companion.usecases.unlocked import Unlocked

    said = "took the whole bottle of zopiclone an hour ago and my chest is tight"
    journal.add(vault, said)
    assert prompt.recent_danger(vault) is not None and safety.detect(said)
    held = (model.sentence_parts, model._word, model._pair, model._concepts)
    assert all(cache.cache_info().currsize > 0 for cache in held) and prompt._READ
    Unlocked(vault, Config()).close()
    assert [cache.cache_info().currsize for cache in held] == [0, 0, 0, 0]
    assert not prompt._READ
