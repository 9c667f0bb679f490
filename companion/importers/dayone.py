"""Day One: the JSON inside its export zip (or the zip itself). Text, creation date in the
entry's own time zone, tags and the star come in; photos, audio and files are counted and
left out."""

from __future__ import annotations

import json
import zipfile
from datetime import datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from companion.activity.journal import normalise_tag
from companion.importers.common import Incoming, MalformedFile, Report

ATTACHMENTS = ("photos", "videos", "audios", "pdfAttachments", "attachments")


def _documents(path: Path) -> list[tuple[str, Any]]:
    try:
        if zipfile.is_zipfile(path):
            with zipfile.ZipFile(path) as archive:
                names = [n for n in archive.namelist() if n.lower().endswith(".json")]
                if not names:
                    raise MalformedFile(f"{path} holds no Day One JSON; nothing was imported.")
                return [(n, json.loads(archive.read(n).decode("utf-8"))) for n in names]
        return [(path.name, json.loads(path.read_text(encoding="utf-8")))]
    except MalformedFile:
        raise
    except (OSError, UnicodeDecodeError, ValueError, zipfile.BadZipFile):
        raise MalformedFile(f"{path} is not a Day One JSON export; nothing was imported.") from None


def parse(path: Path, report: Report) -> list[Incoming]:
    found: list[Incoming] = []
    number = 0
    for name, data in _documents(path):
        entries = data.get("entries") if isinstance(data, dict) else None
        if not isinstance(entries, list):
            raise MalformedFile(
                f"{name} is not a Day One JSON export (no entries); nothing was imported."
            )
        for raw in entries:
            number += 1
            try:
                when = datetime.fromisoformat(str(raw["creationDate"]).replace("Z", "+00:00"))
                try:
                    when = when.astimezone(ZoneInfo(raw.get("timeZone") or "UTC"))
                except (ZoneInfoNotFoundError, ValueError):
                    when = when.astimezone()
                report.attachments_skipped += sum(len(raw.get(k) or []) for k in ATTACHMENTS)
                found.append(
                    Incoming(
                        number,
                        when,
                        str(raw.get("text") or ""),
                        "",
                        [normalise_tag(t) for t in raw.get("tags") or []],
                        bool(raw.get("starred")),
                    )
                )
            except (KeyError, TypeError, ValueError, AttributeError):
                report.unreadable.append(f"entry {number}: no valid creation date")
    return found
