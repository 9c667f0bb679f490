"""Crash-test child: unlock, then write forever, printing each write only after it returned.

Usage: python -m tests.helpers.writer DATA_DIR MODE
MODE "journal" alternates journal entries and chat messages; MODE "passwd" flips the
passphrase between $COMPANION_PASSPHRASE and $OTHER_PASSPHRASE, printing the one now in force.
"""

from __future__ import annotations

import os
import sys

from companion.activity import chat, journal
from companion.paths import VaultPaths
from companion.vault import Vault


def main() -> None:
    paths, mode = VaultPaths(__import__("pathlib").Path(sys.argv[1])), sys.argv[2]
    first = os.environ["COMPANION_PASSPHRASE"]
    vault = Vault.unlock(paths, first, daily_backup=False)
    print("ready", flush=True)
    if mode == "passwd":
        other = os.environ["OTHER_PASSPHRASE"]
        current = first
        while True:
            target = other if current == first else first
            vault.change_passphrase(target)
            current = target
            print(f"now {current}", flush=True)
    session = chat.start(vault, "crash test").id
    i = 0
    while True:
        i += 1
        text = f"entry {i} " + "x" * (i * 37 % 3000)
        if i % 2:
            rid = journal.add(vault, text).id
            print(f"journal {rid} {i}", flush=True)
        else:
            rid = chat.add_message(vault, session, "user", text).id
            print(f"chat {rid} {i}", flush=True)


if __name__ == "__main__":
    main()
