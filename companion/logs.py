"""Logging that is safe to leave on: no user content, no secrets, no request bodies.

Our own log calls pass ids, counts and kinds only. The anthropic and httpx loggers log request
bodies at DEBUG, so they are held at WARNING whatever level we run at.
"""

from __future__ import annotations

import logging
import os
import sys
import traceback
from pathlib import Path
from types import TracebackType

from companion.paths import log_dir, open_private, private_dir

NOISY_LOGGERS = (
    "anthropic",
    "httpx",
    "httpcore",
    "httpx2",
    "httpcore2",
    "openai",
    "peewee",
    "asyncio",
    "markdown_it",
)

log = logging.getLogger("companion")


def debug_requested(flag: bool = False) -> bool:
    return flag or os.environ.get("COMPANION_DEBUG", "") not in ("", "0", "false", "no")


def configure(debug: bool = False) -> Path | None:
    """Set up logging; with ``debug`` write a 0600 log file and return its path."""
    for name in NOISY_LOGGERS:
        logging.getLogger(name).setLevel(logging.WARNING)
    log.propagate = False
    for handler in list(log.handlers):
        log.removeHandler(handler)
    if not debug:
        log.addHandler(logging.NullHandler())
        log.setLevel(logging.WARNING)
        return None
    folder = private_dir(log_dir())
    path = folder / "companion.log"
    handler = logging.StreamHandler(open_private(path, "a"))
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    log.addHandler(handler)
    log.setLevel(logging.DEBUG)
    log.debug("debug log opened (pid %d)", os.getpid())
    return path


def plain_traceback(exc: BaseException) -> str:
    """A traceback with frames and line numbers only: never local variables or values."""
    frames = traceback.extract_tb(exc.__traceback__)
    lines = [f"  {f.filename}:{f.lineno} in {f.name}" for f in frames]
    return f"{type(exc).__name__} (message withheld)\n" + "\n".join(lines)


def install_excepthook() -> None:
    """Crash reports name the exception type and frames; messages may hold user text."""

    def hook(kind: type[BaseException], exc: BaseException, tb: TracebackType | None) -> None:
        if isinstance(exc, KeyboardInterrupt):
            sys.stderr.write("interrupted\n")
            return
        log.error("crash: %s", plain_traceback(exc))
        sys.stderr.write(
            f"companion: unexpected {kind.__name__}; nothing beyond the last saved change "
            "was lost. Run with --debug to write details (no personal content) to the log.\n"
        )

    sys.excepthook = hook
