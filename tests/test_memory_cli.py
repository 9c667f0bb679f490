"""The memory, ledger and insights commands, and extraction from cron, as real processes."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from datetime import datetime, timedelta

from companion import clock
from companion.activity import chat, checkins, journal
from companion.memory import insights, runs, summaries
from companion.vault import Vault
from companion.vault.maintenance import verify
from companion.vault.models import JournalEntry, UrgeEvent
from tests.conftest import PASSPHRASE, child_env, run_cli
from tests.extraction_helpers import answer
from tests.fake_llm import hang, tool


def cli(passfile, *args, **kw):  # type: ignore[no-untyped-def]
    return run_cli("--passphrase-file", str(passfile), *args, **kw)


def test_memory_show_json_add_edit_forget_export(created, passfile, tmp_path) -> None:
    assert (
        cli(passfile, "memory", "add", "Allergic to cats", "--category", "health").returncode == 0
    )
    assert cli(passfile, "memory", "add", "Likes rain").returncode == 0
    assert cli(passfile, "memory", "edit", "2", "Likes rain and thunder").returncode == 0
    assert cli(passfile, "memory", "forget", "1").returncode == 0
    data = json.loads(cli(passfile, "memory", "show", "--json").stdout)
    assert set(data) >= {"facts", "daily_memory", "follow_ups"}
    (fact,) = data["facts"]
    assert set(fact) >= {
        "id",
        "text",
        "category",
        "tier",
        "source",
        "pinned",
        "created_at",
        "valid_until",
        "evidence",
    }
    assert (fact["text"], fact["source"]) == ("Likes rain and thunder", "wrote")
    target = tmp_path / "memory.md"
    assert cli(passfile, "memory", "export", "-o", str(target)).returncode == 0
    assert target.read_text() == "# Memory\n\n## General\n\n- Likes rain and thunder\n"
    assert oct(target.stat().st_mode & 0o777) == "0o600"
    assert cli(passfile, "memory", "fresh-start", "--yes").returncode == 0
    assert json.loads(cli(passfile, "memory", "show", "--json").stdout)["facts"] == []


def test_extract_from_cron_respects_the_rule(created, passfile, fake_llm) -> None:
    paths, _ = created
    with Vault.unlock(paths, PASSPHRASE) as vault:
        journal.add(vault, "A quiet evening.")
    fake_llm.push(tool(answer()))
    first = cli(passfile, "memory", "extract", env=child_env())
    assert first.returncode == 0, first.stderr
    assert "Memory updated: +0 / ~0 / -0" in first.stdout
    again = cli(passfile, "memory", "extract", env=child_env())
    assert again.returncode == 0 and "Nothing new" in again.stdout
    assert len(fake_llm.requests) == 1
    forced = cli(passfile, "memory", "extract", "--force", env=child_env())
    assert "Nothing new" in forced.stdout and len(fake_llm.requests) == 1  # nothing unmemorized
    ledger = cli(passfile, "ledger")
    assert "extraction" in ledger.stdout and "estimated total" in ledger.stdout


def test_extract_while_the_app_holds_the_vault(created, passfile) -> None:
    from tests.test_vault_open import hold

    paths, _ = created
    holder = hold(paths)
    try:
        result = cli(passfile, "memory", "extract", timeout=10)
    finally:
        holder.kill()
        holder.wait()
    assert result.returncode == 75 and "extracts on its own" in result.stderr


def test_kill_during_extraction_leaves_everything_unmemorized(created, passfile, fake_llm) -> None:
    paths, _ = created
    with Vault.unlock(paths, PASSPHRASE) as vault:
        journal.add(vault, "Something to remember")
    fake_llm.push(hang())
    env = child_env(COMPANION_TIMEOUT="60")
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "companion",
            "--passphrase-file",
            str(passfile),
            "memory",
            "extract",
        ],
        env=env,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stderr is not None
    assert proc.stderr.readline().strip() == "reading"  # the call is under way
    assert fake_llm.received.wait(30)  # the request reached the fake: kill mid-call
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    with Vault.unlock(paths, PASSPHRASE) as vault:
        assert verify(vault).clean
        assert JournalEntry.select().where(JournalEntry.memorized == 0).count() == 1
        assert summaries.newest_daily_memory(vault) is None
        assert runs.latest_run(vault)[0].status == "running"  # marked interrupted next run


def test_weekly_insights_and_a_share_report_without_text(vault) -> None:
    monday = datetime(2026, 11, 16, 9, 0).astimezone()
    clock.set_clock(lambda: monday + timedelta(days=6))
    secret = "ZQXSECRETNOTE"
    for d in range(7):
        checkins.record(
            vault,
            (monday + timedelta(days=d)).date(),
            mood=4 + d % 3,
            cravings=3,
            note=f"{secret} day {d}",
            trigger=f"{secret} lonely",
            strategy=f"{secret} called my sponsor",
            outcome="urge_passed",
            urge_intensity=6,
        )
    vault.insert(
        UrgeEvent,
        {
            "trigger": "stress",
            "strategy": "exercise",
            "outcome": "relapsed",
            "intensity": 8,
            "evidence": ["journal_entry:1"],
        },
        occurred_at=clock.stamp(monday + timedelta(hours=13)),
        created_at=clock.stamp(),
    )
    session = chat.start(vault, f"{secret} title")
    chat.add_message(vault, session.id, "user", f"{secret} message")
    chat.end(vault, session.id)
    journal.add(vault, f"{secret} journal")
    week = insights.weekly(vault, "2026-W47")
    assert week.check_ins == 7 and week.sessions_completed == 1
    assert week.common_triggers[0] == ("lonely", 7)
    assert ("called_sponsor", 1.0, 7) in week.strategy_success
    assert ("exercise", 0.0, 1) in week.strategy_success
    assert week.average_urge_intensity == 6.2
    report = insights.share_report(week)
    assert "lonely: 7" in report and "2026-W47" in report
    assert "called my sponsor: 100% of 7" in report and "called_sponsor" not in report
    assert secret not in report and "ZQX" not in report
    assert secret not in json.dumps(week.as_dict())


def test_changes_waiting_for_the_user_are_listed_accepted_and_rejected(
    created, passfile, fake_llm
) -> None:
    """Extraction may only propose a new sobriety date or focus; the user decides, here
    from the command line as from the memory panel."""
    from companion.activity import profile

    paths, _ = created
    with Vault.unlock(paths, PASSPHRASE) as vault:
        profile.update(vault, {"recovery_start_date": "2026-01-10", "recovery_focus": "alcohol"})
        entry = journal.add(vault, "Counting from March 3rd now, and it's alcohol and weed.").id
    ref = f"journal_entry:{entry}"
    fake_llm.push(
        tool(
            answer(
                profile_updates=[
                    {"field": "recovery_start_date", "value": "2026-03-03", "evidence": [ref]},
                    {"field": "recovery_focus", "value": "alcohol and cannabis", "evidence": [ref]},
                ]
            )
        )
    )
    assert cli(passfile, "memory", "extract", env=child_env()).returncode == 0
    listed = cli(passfile, "memory", "pending")
    assert listed.returncode == 0
    assert "1  recovery start date → 2026-03-03" in listed.stdout
    assert "2  recovery focus → alcohol and cannabis" in listed.stdout
    with Vault.unlock(paths, PASSPHRASE, daily_backup=False) as vault:
        assert profile.load(vault)["recovery_start_date"] == "2026-01-10"  # nothing changed yet

    missing = cli(passfile, "memory", "accept", "3")
    assert missing.returncode == 2 and "no change 3 waiting" in missing.stderr
    accepted = cli(passfile, "memory", "accept", "1")
    assert accepted.returncode == 0 and "accepted: recovery start date" in accepted.stdout
    rejected = cli(passfile, "memory", "reject", "1")  # the focus change is number 1 now
    assert rejected.returncode == 0 and "rejected: recovery focus" in rejected.stdout
    assert "Nothing is waiting" in cli(passfile, "memory", "pending").stdout
    with Vault.unlock(paths, PASSPHRASE, daily_backup=False) as vault:
        current = profile.load(vault)
    assert current["recovery_start_date"] == "2026-03-03"
    assert current["recovery_history"][0]["start"] == "2026-01-10"  # the old run is kept
    assert current["recovery_focus"] == "alcohol"


def test_days_sober_on_the_first_day_and_the_day_before_a_milestone(vault) -> None:
    """A slip logged today: "0 days sober", the first milestone tomorrow (not "in 1 day");
    six days in, a week tomorrow."""
    from companion.activity import profile
    from companion.memory import sobriety

    today = clock.today()
    profile.log_slip(vault, today)
    first = sobriety.current(vault, today).for_you()
    assert first == "0 days sober\nnext milestone: 1 day, tomorrow"
    profile.update(vault, {"recovery_start_date": (today - timedelta(days=6)).isoformat()})
    sixth = sobriety.current(vault, today).for_you()
    assert sixth == "6 days sober\nnext milestone: 7 days, tomorrow"
