"""Real processes killed with SIGKILL at random moments, and a disk that fills up.

The writer prints a line only after a write returned, so every printed write must survive.
Random kill points come from killing after a random number of lines, and (for the passphrase
change, whose commit is a tiny window after the key derivation) after a random short wait.
"""

from __future__ import annotations

import contextlib
import os
import random
import resource
import signal
import subprocess
import sys
import time

import pytest

from companion.activity import chat, journal
from companion.errors import WrongPassphrase
from companion.vault import Vault, crypto
from companion.vault.maintenance import verify
from tests.conftest import PASSPHRASE, child_env, run_cli

ROUNDS = 100


def spawn(paths, mode: str, **env: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "tests.helpers.writer", str(paths.root), mode],
        stdout=subprocess.PIPE,
        text=True,
        env=child_env(COMPANION_PASSPHRASE=PASSPHRASE, **env),
    )


@pytest.mark.slow
def test_kill_9_writer_loses_no_returned_write(created) -> None:
    paths, _ = created
    rng = random.Random(20261122)
    promised: list[tuple[str, int, int]] = []
    for _ in range(ROUNDS):
        proc = spawn(paths, "journal")
        assert proc.stdout is not None
        assert proc.stdout.readline() == "ready\n"
        for _ in range(rng.randrange(0, 12)):
            kind, rid, i = proc.stdout.readline().split()
            promised.append((kind, int(rid), int(i)))
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        proc.stdout.close()
    assert len(promised) > ROUNDS * 3
    with Vault.unlock(paths, PASSPHRASE) as vault:
        report = verify(vault)
        assert report.clean, report.damaged
        messages = {}
        for session in chat.sessions(vault, limit=10_000):
            messages.update({m.id: m.content for m in chat.messages(vault, session.id)})
        for kind, rid, i in promised:
            text = journal.get(vault, rid).text if kind == "journal" else messages[rid]
            assert text.startswith(f"entry {i} ")
            assert len(text) == len(f"entry {i} ") + i * 37 % 3000


@pytest.mark.slow
def test_passphrase_change_killed_at_random_points(created) -> None:
    paths, recovery = created
    other = "the other passphrase"
    rng = random.Random(7)
    for _ in range(30):
        proc = spawn(paths, "passwd", OTHER_PASSPHRASE=other)
        assert proc.stdout is not None
        assert proc.stdout.readline() == "ready\n"
        seen = PASSPHRASE  # the child starts from PASSPHRASE and flips it
        for _ in range(rng.randrange(0, 3)):
            seen = proc.stdout.readline().split(" ", 1)[1].rstrip("\n")
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout=rng.uniform(0, 0.3))
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        proc.stdout.close()
        opens = []
        for candidate in (PASSPHRASE, other):
            try:
                Vault.unlock(paths, candidate, daily_backup=False).close()
                opens.append(candidate)
            except WrongPassphrase:
                pass
        assert len(opens) == 1, "exactly one of old or new passphrase must open the vault"
        assert opens[0] in (seen, other if seen == PASSPHRASE else PASSPHRASE)
        Vault.unlock(
            paths, recovery_key=crypto.parse_recovery_key(recovery), daily_backup=False
        ).close()
        if opens[0] != PASSPHRASE:  # set it back for the next round
            with Vault.unlock(paths, opens[0], daily_backup=False) as vault:
                vault.change_passphrase(PASSPHRASE)


def test_disk_full_gives_a_clear_error_and_keeps_old_data(created, passfile) -> None:
    paths, _ = created
    with Vault.unlock(paths, PASSPHRASE) as vault:  # also writes today's backup
        for i in range(20):
            journal.add(vault, f"kept entry {i}")
    limit = paths.db.stat().st_size + 64 * 1024

    def small_disk() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    big = "a long entry that will not fit " * 40_000
    result = run_cli(
        "--passphrase-file", str(passfile), "journal", "add", "-", input=big, preexec_fn=small_disk
    )
    assert result.returncode == 74, result.stderr
    assert "disk is full" in result.stderr and "Nothing was changed" in result.stderr
    with Vault.unlock(paths, PASSPHRASE) as vault:
        assert verify(vault).clean
        assert journal.count() == 20
        assert [e.text for e in journal.newest(vault, 1)] == ["kept entry 19"]
    assert os.environ.get("COMPANION_HOME")  # the child ran against the test's own folder


@pytest.mark.slow
def test_the_integrity_upgrade_killed_at_random_points(created, passfile, tmp_path) -> None:
    """A kill at any point of the schema 6 and 7 upgrades (and the index build after them)
    leaves the old vault or the new one, never a mix; the next unlock finishes it and every
    record checks out."""
    import shutil
    import sqlite3

    from benchmarks.vault_bench import downgrade_to_schema_5
    from companion.vault import migrations

    paths, _ = created
    with Vault.unlock(paths, PASSPHRASE, daily_backup=False) as vault, vault.transaction():
        for i in range(1500):
            journal.add(vault, f"entry {i} " + "words " * (i % 40))
    downgrade_to_schema_5(paths.db, PASSPHRASE)
    pristine = tmp_path / "v5.db"
    shutil.copy(paths.db, pristine)
    command = [
        sys.executable, "-m", "companion", "--passphrase-file", str(passfile),
        "journal", "list", "-n", "1",
    ]  # fmt: skip

    def fresh_copy() -> None:
        for sidecar in paths.sidecars():
            sidecar.unlink(missing_ok=True)
        shutil.copy(pristine, paths.db)
        shutil.rmtree(paths.backups, ignore_errors=True)

    # The kills are spread over one whole uninterrupted run of the command on this machine
    # (start-up, key derivation, upgrade, index build): fixed times in seconds all fell
    # after the upgrade on a fast machine and before it on a slow one. A busy machine can
    # still run the timed run and the killed ones at different speeds, so a sweep that
    # missed one side is followed by another over half or twice the span.
    fresh_copy()
    began = time.perf_counter()
    subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                   env=child_env(), check=True)  # fmt: skip
    span = time.perf_counter() - began
    rng = random.Random(11)
    seen: set[int] = set()
    for sweep in range(3):
        if 5 in seen and seen - {5}:
            break
        if sweep:
            span = span * 2 if seen == {5} else span / 2
        for n in range(12):
            fresh_copy()
            proc = subprocess.Popen(
                command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=child_env()
            )
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(timeout=span * (n + rng.random()) / 12)
            proc.send_signal(signal.SIGKILL)
            proc.wait()
            conn = sqlite3.connect(paths.db)
            version = conn.execute("PRAGMA user_version").fetchone()[0]
            columns = {r[1] for r in conn.execute("PRAGMA table_info(journal_entry)")}
            conn.close()
            assert version in (5, 6, 7)
            assert ("row_mac" in columns) == (version >= 6), "schema and columns must agree"
            seen.add(version)
            with Vault.unlock(paths, PASSPHRASE, daily_backup=False) as vault:
                assert migrations.schema_version(vault.conn) == migrations.CURRENT_VERSION
                report = verify(vault)
                assert report.clean, (report.damaged, report.findings)
                assert report.counts["journal_entry"] == 1500
                assert vault.index.ready()  # an index build cut short is done again
    assert 5 in seen and seen - {5}, f"kills should land before and after the upgrade: {seen}"


def test_a_crash_in_the_middle_of_a_checkpoint_is_not_called_damage(created, tmp_path) -> None:
    """SQLite copies the WAL into the file in page order, page 1 (which holds the new size)
    first. Killed right after it, the file is shorter than its header says while the WAL
    still holds every page; the next open copies them again. That vault opens, whole (it was
    refused as "truncated", offering an older backup in place of the newest writes)."""
    import shutil
    from pathlib import Path

    from companion.paths import VaultPaths

    paths, _ = created
    with Vault.unlock(paths, PASSPHRASE, daily_backup=False) as vault:
        ids = [journal.add(vault, f"entry {i} " + "words " * 600).id for i in range(40)]
        crashed = tmp_path / "crashed"
        shutil.copytree(paths.root, crashed)  # the WAL is not checkpointed yet
    db, wal = crashed / paths.db.name, crashed / f"{paths.db.name}-wal"
    Path(f"{db}-shm").unlink(missing_ok=True)
    data = wal.read_bytes()
    page_size = int.from_bytes(data[8:12], "big")
    page_one = None
    for start in range(32, len(data) - 24 - page_size + 1, 24 + page_size):
        if int.from_bytes(data[start : start + 4], "big") == 1:
            page_one = data[start + 24 : start + 24 + page_size]
    assert page_one is not None
    with db.open("r+b") as handle:  # the checkpoint's first write, and nothing after it
        handle.write(page_one)
    pages = int.from_bytes(page_one[28:32], "big")
    assert db.stat().st_size < pages * page_size  # what the "truncated" check saw

    with Vault.unlock(VaultPaths(crashed), PASSPHRASE, daily_backup=False) as vault:
        assert [journal.get(vault, i).text[:9] for i in ids[-2:]] == ["entry 38 ", "entry 39 "]
        assert verify(vault).clean


def test_a_file_cut_short_beside_a_wal_is_still_found_damaged(created, tmp_path) -> None:
    """The other side of the rule above: pages that neither the file nor the WAL holds are
    reported, never read as empty."""
    import shutil

    from companion.errors import VaultDamaged
    from companion.paths import VaultPaths

    paths, _ = created
    with Vault.unlock(paths, PASSPHRASE, daily_backup=False) as vault:
        for i in range(200):
            journal.add(vault, f"entry {i} " + "words " * 100)
    with Vault.unlock(paths, PASSPHRASE, daily_backup=False) as vault:
        journal.add(vault, "one more, in the WAL")
        cut = tmp_path / "cut"
        shutil.copytree(paths.root, cut)
    db = cut / paths.db.name
    db.write_bytes(db.read_bytes()[: db.stat().st_size // 2])
    with (
        pytest.raises(VaultDamaged),
        Vault.unlock(VaultPaths(cut), PASSPHRASE, daily_backup=False) as vault,
    ):
        verify(vault)
