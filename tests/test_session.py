"""Unlock sessions: a few minutes of commands without the passphrase, and nothing more."""

from __future__ import annotations

import base64
import json
import subprocess

from companion.activity import journal
from companion.vault import Vault, session
from companion.vault.files import read_session_epoch
from tests.conftest import PASSPHRASE, child_env, db_bytes, run_cli

NOW = "2026-03-10T21:30:00+00:00"
LATER = "2026-03-10T21:59:00+00:00"  # 29 minutes on
TOO_LATE = "2026-03-10T22:01:00+00:00"  # 31 minutes on


def start_session(passfile, length: str = "30m", now: str = NOW) -> str:
    started = run_cli(
        "--passphrase-file", str(passfile), "unlock", "--for", length,
        env=child_env(COMPANION_NOW=now),
    )  # fmt: skip
    assert started.returncode == 0, started.stderr
    line = started.stdout.strip()
    assert line.startswith(f"export {session.ENV_VAR}=")
    assert "companion lock" in started.stderr
    return line.split("=", 1)[1]


def with_session(token: str, *args: str, now: str = NOW) -> subprocess.CompletedProcess[str]:
    """A command from a script's shell: the session is all it has, no passphrase, no terminal."""
    env = child_env(COMPANION_NOW=now, **{session.ENV_VAR: token})
    return run_cli(*args, env=env, stdin=subprocess.DEVNULL)


def epoch(vault: Vault) -> bytes | None:
    return read_session_epoch(vault.paths.db)


def test_a_session_file_copied_before_lock_opens_nothing_after_it(created, passfile) -> None:
    paths, _ = created
    token = start_session(passfile)
    (path,) = session.runtime_dir().iterdir()
    copy = path.read_bytes()
    assert with_session(token, "journal", "add", "still open").returncode == 0

    locked = run_cli("lock", env=child_env(COMPANION_NOW=NOW))
    assert locked.returncode == 0 and "ended" in locked.stdout
    path.write_bytes(copy)  # put the old file back, token still in hand
    refused = with_session(token, "journal", "list")
    assert refused.returncode == 77
    assert "still open" not in refused.stdout
    assert entries(paths) == ["still open"]


def test_lock_works_while_the_app_has_the_vault_open(created, passfile) -> None:
    """The app holds the vault; `companion lock` from a shell still ends the session."""
    paths, _ = created
    token = start_session(passfile)
    (path,) = session.runtime_dir().iterdir()
    copy = path.read_bytes()
    with Vault.unlock(paths, PASSPHRASE, daily_backup=False):  # what the open app holds
        locked = run_cli("lock", env=child_env(COMPANION_NOW=NOW))
        assert locked.returncode == 0, locked.stderr
    path.write_bytes(copy)
    assert with_session(token, "journal", "list").returncode == 77


def test_a_backup_never_carries_the_session_epoch(created, passfile) -> None:
    paths, _ = created
    start_session(passfile)
    with Vault.unlock(paths, PASSPHRASE, daily_backup=False) as vault:
        assert epoch(vault) is not None
        made = vault.backup("manual")
    assert read_session_epoch(made) is None


def entries(paths) -> list[str]:
    with Vault.unlock(paths, PASSPHRASE) as vault:
        return [entry.text for entry in journal.newest(vault, 10)]


def test_commands_in_a_session_need_no_passphrase_until_lock(created, passfile) -> None:
    paths, _ = created
    token = start_session(passfile)
    added = with_session(token, "journal", "add", "written during the session")
    assert added.returncode == 0, added.stderr
    assert entries(paths) == ["written during the session"]

    locked = run_cli("lock")
    assert "ended" in locked.stdout
    before = db_bytes(paths)
    refused = with_session(token, "journal", "add", "after the lock")
    assert refused.returncode == 77
    assert "session" in refused.stderr and "companion unlock" in refused.stderr
    assert db_bytes(paths) == before
    assert entries(paths) == ["written during the session"]


def test_a_session_ends_when_its_time_is_up(created, passfile) -> None:
    paths, _ = created
    token = start_session(passfile, "30m")
    assert with_session(token, "journal", "list", now=LATER).returncode == 0
    late = with_session(token, "journal", "add", "too late", now=TOO_LATE)
    assert late.returncode == 77 and "does not open this vault" in late.stderr
    assert not any(session.runtime_dir().iterdir()), "the expired session file is deleted"
    assert entries(paths) == []


def test_an_ended_session_falls_back_to_the_passphrase(created, passfile) -> None:
    paths, _ = created
    token = start_session(passfile, "30m")
    env = child_env(COMPANION_NOW=TOO_LATE, COMPANION_PASSPHRASE=PASSPHRASE)
    env[session.ENV_VAR] = token
    added = run_cli("journal", "add", "still saved", env=env, stdin=subprocess.DEVNULL)
    assert added.returncode == 0, added.stderr
    assert "does not open this vault" in added.stderr
    assert entries(paths) == ["still saved"]


def test_changing_the_passphrase_ends_every_session(created, passfile, tmp_path) -> None:
    token = start_session(passfile)
    newfile = tmp_path / "new.txt"
    newfile.write_text("a brand new passphrase\n")
    changed = run_cli(
        "--passphrase-file", str(passfile), "passwd", "--new-passphrase-file", str(newfile)
    )
    assert changed.returncode == 0, changed.stderr
    assert not any(session.runtime_dir().iterdir())
    refused = with_session(token, "journal", "list")
    assert refused.returncode == 77 and "keys changed" in refused.stderr


def test_a_session_file_kept_aside_opens_nothing_after_a_key_change(vault) -> None:
    """The header is bound into the session: putting an old file back does not revive it."""
    token, _ = vault.start_session()
    path = session.session_file(vault.header.vault_id)
    kept = path.read_bytes()
    for change in (
        lambda: vault.change_passphrase("another passphrase entirely"),
        vault.new_recovery_key,
        lambda: vault.rekey("another passphrase entirely", []),
    ):
        change()
        assert not path.exists()
        path.write_bytes(kept)
        assert session.open_data_key(vault.header, token, epoch(vault)) is None


def test_key_changes_ask_for_the_passphrase_itself(created, passfile) -> None:
    paths, _ = created
    token = start_session(passfile)
    before = db_bytes(paths)
    backup = next(paths.backups.glob("*.db"), None) or paths.db
    for args in (
        ("recovery-key", "--new"),
        ("rekey",),
        ("passwd",),
        ("restore", str(backup)),
        ("unlock",),
    ):
        result = with_session(token, *args)
        assert result.returncode != 0, args
        assert "unlock session does not cover" in result.stderr, args
    assert db_bytes(paths) == before
    assert with_session(token, "journal", "list").returncode == 0, "the session still works"


def test_the_session_file_alone_or_a_wrong_token_opens_nothing(vault) -> None:
    token, _ = vault.start_session()
    path = session.session_file(vault.header.vault_id)
    raw = path.read_bytes()
    data_key = vault._data_key
    for form in (data_key, base64.b64encode(data_key), data_key.hex().encode()):
        assert form not in raw
    assert oct(path.stat().st_mode & 0o777) == "0o600"

    assert session.open_data_key(vault.header, token, epoch(vault)) == data_key
    other = base64.urlsafe_b64encode(bytes(32)).decode().rstrip("=")
    assert session.open_data_key(vault.header, other, epoch(vault)) is None

    body = json.loads(raw)
    wrapped = bytearray(base64.b64decode(body["wrapped"]))
    wrapped[5] ^= 0x01
    body["wrapped"] = base64.b64encode(bytes(wrapped)).decode()
    path.write_text(json.dumps(body))
    assert session.open_data_key(vault.header, token, epoch(vault)) is None

    body = json.loads(raw)
    body["expires_at"] = "2099-01-01T00:00:00Z"  # extending it breaks the seal
    path.write_text(json.dumps(body))
    assert session.open_data_key(vault.header, token, epoch(vault)) is None


def test_session_length_is_checked_before_anything_is_written(created, passfile) -> None:
    for length in ("13h", "0m", "soon", "99999999999999999h", "\u0663\u0660m"):
        result = run_cli("--passphrase-file", str(passfile), "unlock", "--for", length)
        assert result.returncode == 2, length
        assert "--for" in result.stderr
    assert not session.runtime_dir().exists() or not any(session.runtime_dir().iterdir())


def test_the_token_never_reaches_the_debug_log(created, passfile) -> None:
    from companion.paths import log_dir

    token = start_session(passfile)
    assert with_session(token, "--debug", "journal", "add", "logged?").returncode == 0
    logs = list(log_dir().rglob("*"))
    assert any(p.is_file() for p in logs)
    for path in logs:
        if path.is_file():
            assert token not in path.read_text(errors="replace")


def test_a_session_for_one_vault_does_not_open_another(created, passfile, tmp_path) -> None:
    token = start_session(passfile)
    other = tmp_path / "other"
    made = run_cli("--data-dir", str(other), "--passphrase-file", str(passfile), "init",
                   "--kdf-memory", "64")  # fmt: skip
    assert made.returncode == 0, made.stderr
    before = (other / "vault.db").read_bytes()
    result = with_session(token, "--data-dir", str(other), "journal", "add", "wrong vault")
    assert result.returncode == 77 and "another vault" in result.stderr
    assert (other / "vault.db").read_bytes() == before


def test_lock_ends_sessions_even_when_the_vault_is_damaged(created, passfile) -> None:
    paths, _ = created
    start_session(passfile)
    paths.db.write_bytes(paths.db.read_bytes()[:1000])  # truncated
    locked = run_cli("lock")
    assert locked.returncode == 0 and "ended" in locked.stdout
    assert not any(session.runtime_dir().iterdir())


def test_unlock_refuses_to_print_the_token_to_a_terminal(created, passfile) -> None:
    import os
    import pty

    leader, follower = pty.openpty()
    try:
        result = run_cli("--passphrase-file", str(passfile), "unlock", stdout=follower,
                         stderr=subprocess.PIPE, capture_output=False)  # fmt: skip
    finally:
        os.close(follower)
        os.close(leader)
    assert result.returncode == 2 and 'eval "$(companion unlock)"' in result.stderr
    assert not session.runtime_dir().exists() or not any(session.runtime_dir().iterdir())


def test_a_damaged_session_file_opens_nothing_and_says_so(created, passfile) -> None:
    token = start_session(passfile)
    (path,) = session.runtime_dir().iterdir()
    body = json.loads(path.read_text())
    body["expires_at"] = "not a time"
    path.write_text(json.dumps(body))
    result = with_session(token, "journal", "list")
    assert result.returncode == 77 and "Traceback" not in result.stderr


def test_a_vault_id_that_is_not_hex_is_refused_as_damage(created) -> None:
    """The id names the session file: a crafted one must never reach the file system."""
    import sqlite3

    from companion.vault.header import Header

    paths, _ = created
    conn = sqlite3.connect(paths.db)
    body = conn.execute("SELECT body FROM header").fetchone()[0]
    data = json.loads(body)
    data["vault_id"] = "x/../../../elsewhere"
    forged = json.dumps(data, sort_keys=True, separators=(",", ":"))
    conn.execute("UPDATE header SET body = ?, sha256 = ?", (forged, Header.checksum(forged)))
    conn.commit()
    conn.close()
    env = child_env(COMPANION_PASSPHRASE=PASSPHRASE)
    opened = run_cli("journal", "list", env=env)
    assert opened.returncode == 65 and "vault id" in opened.stderr
    assert run_cli("lock", env=env).returncode == 0  # ends any session, names no file
    assert not session.runtime_dir().exists() or not any(session.runtime_dir().iterdir())


def test_without_a_runtime_folder_the_session_goes_to_a_private_temp_folder(
    created, passfile, tmp_path, monkeypatch
) -> None:
    monkeypatch.delenv("XDG_RUNTIME_DIR")
    import tempfile

    monkeypatch.setenv("TMPDIR", str(tmp_path / "tmp"))
    monkeypatch.setattr(tempfile, "tempdir", None)  # forget the folder it found before
    (tmp_path / "tmp").mkdir()
    started = run_cli("--passphrase-file", str(passfile), "unlock")
    assert started.returncode == 0, started.stderr
    assert "on disk" in started.stderr
    folder = session.runtime_dir()
    assert folder.parent == tmp_path / "tmp"
    assert oct(folder.stat().st_mode & 0o777) == "0o700"
    assert len(list(folder.glob("session-*.json"))) == 1
