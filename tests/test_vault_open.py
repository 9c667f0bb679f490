"""Opening a vault: wrong passphrase, damage, refused KDF costs, truncation, a second
instance, file permissions. None of these may change the vault or make a new empty one."""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import subprocess
import sys

import pytest

from companion.activity import journal
from companion.errors import VaultBusy, VaultDamaged, VaultExists, WrongPassphrase
from companion.vault import Vault
from companion.vault.header import Header
from tests.conftest import PASSPHRASE, child_env, db_bytes, run_cli


def digest(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def rewrite_header(paths, change) -> None:
    """Edit the header JSON and recompute its checksum, as a careful attacker would."""
    conn = sqlite3.connect(paths.db)
    body = conn.execute("SELECT body FROM header").fetchone()[0]
    data = json.loads(body)
    change(data)
    new = json.dumps(data, sort_keys=True, separators=(",", ":"))
    conn.execute("UPDATE header SET body=?, sha256=?", (new, Header.checksum(new)))
    conn.commit()
    conn.close()


def test_wrong_passphrase_leaves_file_byte_identical(created) -> None:
    paths, _ = created
    before = digest(paths.db)
    files_before = sorted(p.name for p in paths.root.iterdir())
    with pytest.raises(WrongPassphrase) as info:
        Vault.unlock(paths, "not the passphrase")
    assert "wrong passphrase" in str(info.value)
    assert digest(paths.db) == before
    assert sorted(p.name for p in paths.root.iterdir()) == files_before  # nothing new either
    with Vault.unlock(paths, PASSPHRASE):  # and the right one still works
        pass


def test_wrong_passphrase_on_the_command_line(created, tmp_path) -> None:
    paths, _ = created
    before = digest(paths.db)
    bad = tmp_path / "bad"
    bad.write_text("nope nope nope\n")
    result = run_cli("--passphrase-file", str(bad), "journal", "add", "hello")
    assert result.returncode == 77
    assert result.stderr.count("\n") == 1 and "wrong passphrase" in result.stderr
    assert digest(paths.db) == before


def test_nfc_and_nfd_passphrases_open_the_same_vault(paths) -> None:
    vault, _ = Vault.create(paths, "caf\u00e9 au lait", 64)
    vault.close()
    with Vault.unlock(paths, "cafe\u0301 au lait"):
        pass


def test_damaged_header_is_not_a_wrong_passphrase(created) -> None:
    paths, _ = created
    conn = sqlite3.connect(paths.db)
    conn.execute("UPDATE header SET body = replace(body, '\"format\":1', '\"format\":1 ')")
    conn.commit()
    conn.close()
    before = digest(paths.db)
    with pytest.raises(VaultDamaged) as info:
        Vault.unlock(paths, PASSPHRASE)
    assert "damaged" in str(info.value) and "checksum" in str(info.value)
    assert digest(paths.db) == before


@pytest.mark.parametrize(
    ("field", "value"),
    [("m_kib", 32 * 1024), ("m_kib", 4 * 1024 * 1024), ("t", 1), ("t", 50), ("p", 0), ("p", 99)],
)
def test_kdf_parameters_out_of_range_are_refused(created, field, value) -> None:
    paths, _ = created
    rewrite_header(paths, lambda d: d["slots"]["passphrase"]["kdf"].__setitem__(field, value))
    with pytest.raises(VaultDamaged) as info:
        Vault.unlock(paths, PASSPHRASE)
    assert "refused key-derivation cost" in str(info.value)


def test_zero_length_vault_is_damaged_never_new(created, passfile) -> None:
    paths, _ = created
    with Vault.unlock(paths, PASSPHRASE) as vault:
        journal.add(vault, "kept safe in the backup")
    backup = sorted(paths.backups.iterdir())[-1]
    paths.db.write_bytes(b"")
    result = run_cli("--passphrase-file", str(passfile), "journal", "list")
    assert result.returncode == 65
    assert "damaged" in result.stderr and "empty" in result.stderr
    assert str(backup) in result.stderr and "companion restore" in result.stderr
    assert paths.db.stat().st_size == 0
    again = run_cli("--passphrase-file", str(passfile), "init", "--kdf-memory", "64")
    assert again.returncode == 73 and paths.db.stat().st_size == 0


def test_truncated_vault_is_reported(created) -> None:
    paths, _ = created
    with Vault.unlock(paths, PASSPHRASE) as vault:
        for i in range(200):
            journal.add(vault, f"entry {i} " + "words " * 100)
    data = db_bytes(paths)
    paths.db.write_bytes(data[: len(data) // 2])
    with pytest.raises(VaultDamaged) as info:
        Vault.unlock(paths, PASSPHRASE)
    assert "truncated" in str(info.value)
    assert "newest backup" in str(info.value)


def test_missing_vault_says_how_to_create_one(passfile) -> None:
    result = run_cli("--passphrase-file", str(passfile), "journal", "list")
    assert result.returncode == 66
    assert "companion init" in result.stderr


def test_init_refuses_an_existing_vault(created) -> None:
    paths, _ = created
    before = digest(paths.db)
    with pytest.raises(VaultExists):
        Vault.create(paths, PASSPHRASE, 64)
    assert digest(paths.db) == before


HOLDER = """
import sys
from pathlib import Path
from companion.paths import VaultPaths
from companion.vault import Vault
vault = Vault.unlock(VaultPaths(Path(sys.argv[1])), sys.argv[2])
print("holding", flush=True)
sys.stdin.readline()
"""


def hold(paths, umask: int | None = None) -> subprocess.Popen[str]:
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(paths.root), PASSPHRASE],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env=child_env(),
        preexec_fn=(lambda: os.umask(umask)) if umask is not None else None,
    )
    assert holder.stdout is not None and holder.stdout.readline() == "holding\n"
    return holder


def test_second_instance_is_refused_and_a_killed_holder_frees_the_vault(created, passfile) -> None:
    paths, _ = created
    holder = hold(paths)
    try:
        before = digest(paths.db)
        result = run_cli("--passphrase-file", str(passfile), "journal", "add", "hi", timeout=10)
        assert result.returncode == 75
        assert "the vault is open in another Companion" in result.stderr
        with pytest.raises(VaultBusy):
            Vault.unlock(paths, PASSPHRASE)
    finally:
        holder.kill()
        holder.wait()
    assert digest(paths.db) == before
    result = run_cli("--passphrase-file", str(passfile), "journal", "add", "after the crash")
    assert result.returncode == 0, result.stderr


def test_permissions_under_umask_022(tmp_path, passfile) -> None:
    env = child_env()

    def umask022() -> None:
        os.umask(0o022)

    init = run_cli(
        "--passphrase-file",
        str(passfile),
        "init",
        "--kdf-memory",
        "64",
        env=env,
        preexec_fn=umask022,
    )
    assert init.returncode == 0, init.stderr
    run_cli("--passphrase-file", str(passfile), "journal", "add", "x", preexec_fn=umask022)
    out = tmp_path / "export.json"
    run_cli("--passphrase-file", str(passfile), "export", "-o", str(out), preexec_fn=umask022)
    from companion.paths import VaultPaths

    paths = VaultPaths(tmp_path / "vault")
    holder = hold(paths, umask=0o022)
    try:
        wal = [p for p in paths.sidecars() if p.exists()]
        assert len(wal) == 3  # db, -wal and -shm while open
        files = [*wal, paths.lock, *paths.backups.iterdir(), out]
        for path in files:
            assert oct(path.stat().st_mode & 0o777) == "0o600", path
        for folder in (paths.root, paths.backups):
            assert oct(folder.stat().st_mode & 0o777) == "0o700", folder
    finally:
        holder.kill()
        holder.wait()


def test_kdf_calibration_never_goes_below_the_floor() -> None:
    from companion.vault import crypto

    slow_machine = crypto.choose_kdf(budget_s=0.0)
    assert (slow_machine.time_cost, slow_machine.memory_kib) == (3, 64 * 1024)
    assert crypto.choose_kdf(128).memory_kib == 128 * 1024


def test_kdf_memory_below_the_floor_is_refused(passfile) -> None:
    result = run_cli("--passphrase-file", str(passfile), "init", "--kdf-memory", "32")
    assert result.returncode == 2 and "64 to 1024" in result.stderr
    above = run_cli("--passphrase-file", str(passfile), "init", "--kdf-memory", "1025")
    assert above.returncode == 2 and "64 to 1024" in above.stderr  # the ceiling is 1 GiB
