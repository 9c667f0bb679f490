"""Vault subcommands: init, verify, backup, restore, passwd, recovery-key, rekey, unlock, lock."""

from __future__ import annotations

import argparse
import re
import sys
from datetime import timedelta
from pathlib import Path

from companion.cli import secrets
from companion.cli.common import offer_backup_rewrite, open_vault, vault_paths
from companion.errors import EX_DATAERR, InvalidInput, VaultDamaged
from companion.usecases import keys
from companion.vault import Vault, session
from companion.vault.files import end_sessions
from companion.vault.maintenance import VerifyReport, restore, verify, verify_backup

RECOVERY_WARNING = """
Your recovery key (shown once, never stored):

    {key}

Write it down and keep it somewhere safe, away from this computer. If you forget your
passphrase, this key is the only way back in: nobody, including us, can recover a lost
passphrase or read your vault without one of the two.
"""


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = commands.add_parser("init", help="create a new vault")
    p.add_argument(
        "--kdf-memory",
        type=int,
        metavar="MIB",
        help="Argon2id memory in MiB (64 to 1024; default: calibrated, up to 256)",
    )
    p.set_defaults(handler=cmd_init)

    p = commands.add_parser("verify", help="decrypt and authenticate every record")
    p.add_argument("--backup", metavar="FILE", help="check a backup file instead")
    p.add_argument(
        "--recovery-key",
        action="store_true",
        help="open with the recovery key (checks the header when the passphrase slot is damaged)",
    )
    p.add_argument("--recovery-key-file", metavar="FILE")
    p.add_argument(
        "--rebuild-index",
        action="store_true",
        help="build the search index again from your records (when it is damaged or stale)",
    )
    p.set_defaults(handler=cmd_verify)

    p = commands.add_parser("backup", help="write an encrypted backup now")
    p.add_argument(
        "--rewrite",
        action="store_true",
        help="replace every backup with one of the vault as it is now (deleted words leave them)",
    )
    p.set_defaults(handler=cmd_backup)

    p = commands.add_parser("restore", help="replace the vault with a backup")
    p.add_argument("file", metavar="FILE")
    p.set_defaults(handler=cmd_restore)

    p = commands.add_parser("passwd", help="change the passphrase")
    p.add_argument(
        "--recovery-key",
        action="store_true",
        help="prove it is you with the recovery key instead of the old passphrase",
    )
    p.add_argument("--recovery-key-file", metavar="FILE")
    p.add_argument("--new-passphrase-file", metavar="FILE")
    p.set_defaults(handler=cmd_passwd)

    p = commands.add_parser("recovery-key", help="issue a new recovery key")
    p.add_argument("--new", action="store_true", required=True)
    p.set_defaults(handler=cmd_recovery_key)

    p = commands.add_parser("rekey", help="re-encrypt everything under a fresh data key")
    p.add_argument(
        "--retire-backups",
        dest="purge_backups",
        action="store_true",
        help="also replace the backups sealed under the old key with one under the new key",
    )
    p.set_defaults(handler=cmd_rekey)

    p = commands.add_parser(
        "unlock",
        help="start a session: commands skip the passphrase for a while",
        description='Prints a line for the shell. Use it as: eval "$(companion unlock)". '
        "Commands run from that shell then open the vault without the passphrase until the "
        "session ends. Changing keys (passwd, rekey, recovery-key, restore) still asks.",
    )
    p.add_argument(
        "--for",
        dest="length",
        type=session_length,
        default=session.DEFAULT_LENGTH,
        metavar="TIME",
        help="how long, like 30m or 2h (default 15m, at most 12h)",
    )
    p.set_defaults(handler=cmd_unlock)

    p = commands.add_parser("lock", help="end the unlock session now")
    p.set_defaults(handler=cmd_lock)


def no_command(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    paths = vault_paths(args)
    if not paths.db.exists():
        print(f"No vault yet at {paths.root}. Create one with: companion init\n")
    parser.print_help()
    return 0


def cmd_init(args: argparse.Namespace) -> int:
    paths = vault_paths(args)
    if args.kdf_memory is not None and not 64 <= args.kdf_memory <= 1024:
        raise InvalidInput("--kdf-memory must be from 64 to 1024 MiB.")
    if paths.db.exists():
        Vault.create(paths, "", args.kdf_memory)  # raises VaultExists, touches nothing
    if args.passphrase_file:
        passphrase = secrets.check_strength(secrets.passphrase(args.passphrase_file))
    else:
        passphrase = secrets.new_passphrase(None, "COMPANION_PASSPHRASE")
    print("Deriving your key (this takes about a second)...", file=sys.stderr)
    vault, recovery = Vault.create(paths, passphrase, args.kdf_memory)
    vault.close()
    print(f"Created a vault at {paths.root}.")
    print(RECOVERY_WARNING.format(key=recovery))
    return 0


def print_report(report: VerifyReport) -> int:
    total = sum(report.counts.values())
    print(f"checked {total} records")
    for kind, count in report.counts.items():
        if count:
            print(f"  {kind}: {count}")
    if report.structure != "ok":
        print(f"database structure: {report.structure}")
    for kind, rid in report.damaged:
        print(f"DAMAGED: {kind} {rid}")
    for finding in report.findings:
        print(f"DAMAGED: {finding.describe()}")
    if report.index_only:
        print(
            "Only the search index is damaged, and it holds nothing that is not in your "
            "records: rebuild it with `companion verify --rebuild-index`."
        )
    if report.clean:
        print("vault OK: every record, its flags and dates, and the record counts check out")
        return 0
    problems = len(report.damaged) + len(report.findings)
    print(
        f"{problems} problem(s) found; the rest is intact. Restore a backup "
        "(companion restore FILE) or export what reads (companion export)."
    )
    return EX_DATAERR


def cmd_verify(args: argparse.Namespace) -> int:
    if args.backup:
        paths = vault_paths(args)
        report = verify_backup(Path(args.backup), paths, secrets.passphrase(args.passphrase_file))
        return print_report(report)
    if args.recovery_key or args.recovery_key_file:
        paths = vault_paths(args)
        key = secrets.recovery_key(args.recovery_key_file)
        with Vault.unlock(paths, recovery_key=key, daily_backup=False) as vault:
            print("header OK: it opens with the recovery key and its MAC checks out")
            return print_report(verify(vault))
    if args.rebuild_index:
        with open_vault(args) as unlocked:
            vault = unlocked.vault
            documents = vault.rebuild_index()
            print(f"search index rebuilt: {documents} documents")
            return print_report(verify(vault))
    with open_vault(args, read_only_ok=True) as unlocked:
        vault = unlocked.vault
        return print_report(verify(vault))


def cmd_backup(args: argparse.Namespace) -> int:
    with open_vault(args) as unlocked:
        vault = unlocked.vault
        if args.rewrite:
            removed = vault.rewrite_backups()
            print(
                f"rewrote the backups: {removed} older copies removed (their restore points go "
                "with them); one backup of the vault as it is now is kept"
            )
        else:
            print(f"backup written: {vault.backup('manual')}")
    return 0


def cmd_restore(args: argparse.Namespace) -> int:
    paths = vault_paths(args)
    passphrase = secrets.passphrase(args.passphrase_file, "Passphrase of the backup: ")
    aside = restore(Path(args.file), paths, passphrase)
    print(f"restored {args.file}")
    if aside:
        print(f"the vault it replaced is kept at {aside}")
    return 0


def cmd_passwd(args: argparse.Namespace) -> int:
    paths = vault_paths(args)
    if args.recovery_key or args.recovery_key_file:
        key = secrets.recovery_key(args.recovery_key_file)
        vault = Vault.unlock(paths, recovery_key=key)
    else:
        vault = Vault.unlock(
            paths, secrets.passphrase(args.passphrase_file, "Current passphrase: ")
        )
    try:
        new = secrets.new_passphrase(args.new_passphrase_file, "COMPANION_NEW_PASSPHRASE")
        vault.change_passphrase(new)
    finally:
        vault.close()
    print(
        "passphrase changed. Your recovery key still works. Backups made before now open "
        "with the old passphrase."
    )
    return 0


def cmd_recovery_key(args: argparse.Namespace) -> int:
    with open_vault(args, allow_session=False) as unlocked:
        vault = unlocked.vault
        key = vault.new_recovery_key()
    print("The old recovery key no longer opens this vault.")
    print(RECOVERY_WARNING.format(key=key))
    return 0


def cmd_rekey(args: argparse.Namespace) -> int:
    passphrase = secrets.passphrase(args.passphrase_file)
    paths = vault_paths(args)
    vault = Vault.unlock(paths, passphrase)
    try:
        key = keys.rekey(vault, passphrase)
        print(
            "Every record is now encrypted under a fresh key. Change your passphrase too if it "
            "may have leaked (companion passwd)."
        )
        print(RECOVERY_WARNING.format(key=key))
        offer_backup_rewrite(vault, args, "your records under the old key and passphrase")
    finally:
        vault.close()
    return 0


def session_length(text: str) -> timedelta:
    match = re.fullmatch(r"\s*(\d{1,4})\s*([mh]?)\s*", text.lower(), re.ASCII)
    if not match:
        raise argparse.ArgumentTypeError(f"{text!r} is not a length of time like 30m or 2h")
    amount = int(match.group(1))
    length = timedelta(hours=amount) if match.group(2) == "h" else timedelta(minutes=amount)
    if not timedelta(minutes=1) <= length <= session.MAX_LENGTH:
        raise argparse.ArgumentTypeError("a session lasts from 1 minute to 12 hours")
    return length


def cmd_unlock(args: argparse.Namespace) -> int:
    if sys.stdout.isatty():
        # Printed to a terminal, the token would sit in its scrollback and open nothing.
        raise InvalidInput(
            'run it as: eval "$(companion unlock)" so the session reaches this shell; '
            "nothing was started."
        )
    with open_vault(args, allow_session=False) as unlocked:
        vault = unlocked.vault
        token, ends = vault.start_session(args.length)
    sys.stdout.write(f"export {session.ENV_VAR}={token}\n")
    if session.on_disk():
        print(
            f"companion: warning: no XDG_RUNTIME_DIR, so the session file is in "
            f"{session.runtime_dir()}, on disk; `companion lock` still ends it.",
            file=sys.stderr,
        )
    print(
        f"Unlocked until {ends:%H:%M}: commands from this shell need no passphrase until then. "
        "Anyone who can read this shell's environment can open the vault meanwhile; end it "
        "early with: companion lock",
        file=sys.stderr,
    )
    return 0


def cmd_lock(args: argparse.Namespace) -> int:
    paths = vault_paths(args)
    if not paths.db.exists():
        Vault.unlock(paths, "")  # says there is no vault here
    try:
        ended = end_sessions(paths)
    except VaultDamaged:
        ended = session.end_all() > 0  # cannot tell which session is this vault's: end them all
    print("locked: the unlock session has ended" if ended else "no unlock session was open")
    return 0
