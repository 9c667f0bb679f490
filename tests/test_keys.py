"""Passphrase changes, the recovery key and rekeying."""

from __future__ import annotations

import pytest

from companion.activity import journal
from companion.errors import WrongPassphrase
from companion.vault import Vault, crypto
from tests.conftest import PASSPHRASE, child_env, run_cli

NEW = "a brand new passphrase"


def test_recovery_key_sets_a_new_passphrase(created, tmp_path) -> None:
    paths, recovery = created
    with Vault.unlock(paths, PASSPHRASE) as vault:
        journal.add(vault, "before I forgot")
    keyfile = tmp_path / "key"
    keyfile.write_text(recovery.lower() + "\n")
    newfile = tmp_path / "new"
    newfile.write_text(NEW + "\n")
    result = run_cli(
        "passwd", "--recovery-key-file", str(keyfile), "--new-passphrase-file", str(newfile)
    )
    assert result.returncode == 0, result.stderr
    with pytest.raises(WrongPassphrase):
        Vault.unlock(paths, PASSPHRASE)
    with Vault.unlock(paths, NEW) as vault:
        assert journal.get(vault, 1).text == "before I forgot"
    # The recovery key keeps working after a passphrase change.
    with Vault.unlock(paths, recovery_key=crypto.parse_recovery_key(recovery)):
        pass


def test_wrong_recovery_key_is_refused(created) -> None:
    paths, _ = created
    with pytest.raises(WrongPassphrase) as info:
        Vault.unlock(paths, recovery_key=crypto.new_recovery_key())
    assert "recovery key does not open" in str(info.value)


def test_passwd_with_old_passphrase(created, passfile) -> None:
    paths, _recovery = created
    result = run_cli(
        "--passphrase-file", str(passfile), "passwd", env=child_env(COMPANION_NEW_PASSPHRASE=NEW)
    )
    assert result.returncode == 0, result.stderr
    with Vault.unlock(paths, NEW):
        pass
    short = run_cli(
        "--passphrase-file",
        str(passfile),
        "passwd",
        env=child_env(COMPANION_NEW_PASSPHRASE="short"),
    )
    assert short.returncode == 77  # the old passphrase no longer opens it
    with Vault.unlock(paths, NEW) as vault:
        vault.change_passphrase(PASSPHRASE)
    too_short = run_cli(
        "--passphrase-file",
        str(passfile),
        "passwd",
        env=child_env(COMPANION_NEW_PASSPHRASE="short"),
    )
    assert too_short.returncode == 2 and "too short" in too_short.stderr


def test_new_recovery_key_retires_the_old(created, passfile) -> None:
    paths, old = created
    result = run_cli("--passphrase-file", str(passfile), "recovery-key", "--new")
    assert result.returncode == 0
    new = next(line.strip() for line in result.stdout.splitlines() if line.count("-") == 7)
    with pytest.raises(WrongPassphrase):
        Vault.unlock(paths, recovery_key=crypto.parse_recovery_key(old))
    with Vault.unlock(paths, recovery_key=crypto.parse_recovery_key(new)):
        pass


def test_rekey_reencrypts_everything(created, passfile) -> None:
    from companion.activity import chat
    from companion.vault import settings
    from companion.vault.maintenance import verify

    paths, old_recovery = created
    with Vault.unlock(paths, PASSPHRASE) as vault:
        journal.add(vault, "entry one")
        session = chat.start(vault, "talk").id
        chat.add_message(vault, session, "user", "hello coach")
        settings.put(vault, "api_key", "sk-test")
        old_payload = vault.conn.execute("SELECT payload FROM journal_entry").fetchone()[0]
    result = run_cli("--passphrase-file", str(passfile), "rekey")
    assert result.returncode == 0, result.stderr
    new_recovery = next(line.strip() for line in result.stdout.splitlines() if line.count("-") == 7)
    with Vault.unlock(paths, PASSPHRASE) as vault:
        assert verify(vault).clean
        assert journal.get(vault, 1).text == "entry one"
        assert chat.messages(vault, session)[0].content == "hello coach"
        assert settings.get(vault, "api_key") == "sk-test"
        assert vault.conn.execute("SELECT payload FROM journal_entry").fetchone()[0] != old_payload
        # the import fingerprints follow the new key: the same entry is still recognised
        entry = journal.get(vault, 1)
        assert vault.conn.execute("SELECT fingerprint FROM journal_entry").fetchone()[
            0
        ] == journal.fingerprint(vault, entry.created_at, entry.title, entry.text)
    with pytest.raises(WrongPassphrase):
        Vault.unlock(paths, recovery_key=crypto.parse_recovery_key(old_recovery))
    with Vault.unlock(paths, recovery_key=crypto.parse_recovery_key(new_recovery)):
        pass
