"""Where the vault, its backups and the debug log live, and the file modes they get."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import platformdirs

APP_NAME = "companion"
DIR_MODE = 0o700
FILE_MODE = 0o600


@dataclass(frozen=True)
class VaultPaths:
    root: Path

    @property
    def db(self) -> Path:
        return self.root / "vault.db"

    @property
    def lock(self) -> Path:
        return self.root / "vault.lock"

    @property
    def backups(self) -> Path:
        return self.root / "backups"

    def sidecars(self) -> list[Path]:
        """The database and the files SQLite keeps beside it."""
        return [self.db, Path(f"{self.db}-wal"), Path(f"{self.db}-shm")]


def resolve_data_dir(explicit: str | os.PathLike[str] | None = None) -> Path:
    """``--data-dir`` wins, then ``COMPANION_HOME``, then the platform's user data folder."""
    if explicit:
        return Path(explicit).expanduser()
    env = os.environ.get("COMPANION_HOME")
    if env:
        return Path(env).expanduser()
    return Path(platformdirs.user_data_dir(APP_NAME, appauthor=False))


def config_dir() -> Path:
    return Path(platformdirs.user_config_dir(APP_NAME, appauthor=False))


def log_dir() -> Path:
    return Path(platformdirs.user_log_dir(APP_NAME, appauthor=False))


def private_dir(path: Path) -> Path:
    """Create ``path`` (and parents) and make it readable by its owner only."""
    path.mkdir(parents=True, exist_ok=True)
    os.chmod(path, DIR_MODE)
    return path


def touch_private(path: Path) -> Path:
    """Create ``path`` with mode 0600 before anyone writes to it, whatever the umask."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT, FILE_MODE)
    os.close(fd)
    os.chmod(path, FILE_MODE)
    return path


def open_private(path: Path, mode: str = "w", encoding: str | None = "utf-8"):
    """Open a file for writing that is born 0600 (exports, logs)."""
    flags = os.O_WRONLY | os.O_CREAT | (os.O_APPEND if "a" in mode else os.O_TRUNC)
    fd = os.open(path, flags, FILE_MODE)
    os.chmod(path, FILE_MODE)
    if "b" in mode:
        return os.fdopen(fd, mode)
    return os.fdopen(fd, mode, encoding=encoding)
