"""One process holds a vault at a time. flock is released by the kernel when the holder dies,
so a killed Companion never leaves the vault locked."""

from __future__ import annotations

import fcntl
import os

from companion.errors import VaultBusy
from companion.paths import FILE_MODE, VaultPaths


class VaultLock:
    def __init__(self, fd: int | None) -> None:
        self._fd: int | None = fd

    @classmethod
    def acquire(cls, paths: VaultPaths) -> VaultLock:
        fd = os.open(paths.lock, os.O_RDWR | os.O_CREAT, FILE_MODE)
        os.chmod(paths.lock, FILE_MODE)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            raise VaultBusy(
                "the vault is open in another Companion. Close that window (or wait for the "
                "command to finish) and try again."
            ) from None
        return cls(fd)

    @classmethod
    def shared(cls, paths: VaultPaths) -> VaultLock:
        """For a reader beside the Companion that holds the vault: takes nothing (SQLite's own
        locks keep a read-only connection consistent) and releases nothing."""
        del paths
        return cls(None)

    def release(self) -> None:
        if self._fd is not None:
            fcntl.flock(self._fd, fcntl.LOCK_UN)
            os.close(self._fd)
            self._fd = None
