"""jrnl: import its JSON export (``jrnl --export json``); export its plain-text format, which
``jrnl --import`` reads back.

jrnl has no separate title: it calls the first line (or first sentence) the title. So a
Companion title becomes jrnl's first line and comes back as the title; an untitled entry's
first line comes back as its title. Dates keep the minute; tags travel as #tags.
"""

from __future__ import annotations

import json
import re
from datetime import datetime
from pathlib import Path

from companion.activity.journal import Entry, normalise_tag
from companion.importers.common import Incoming, MalformedFile, Report

TIME_FORMAT = "%Y-%m-%d %I:%M:%S %p"  # jrnl's default timeformat, '%F %r'
TAG_LINE = re.compile(r"^\s*([#@][\w-]+\s*)+$")


def parse(path: Path, report: Report) -> list[Incoming]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        entries = data["entries"]
        if not isinstance(entries, list):
            raise TypeError
    except (OSError, UnicodeDecodeError) as exc:
        raise MalformedFile(f"cannot read {path}: {exc}; nothing was imported.") from None
    except (ValueError, KeyError, TypeError):
        raise MalformedFile(
            f"{path} is not a jrnl JSON export (make one with "
            "`jrnl --export json`); nothing was imported."
        ) from None
    found = []
    for number, raw in enumerate(entries, 1):
        try:
            when = datetime.fromisoformat(f"{raw['date']}T{raw.get('time') or '00:00'}")
            title, body = str(raw.get("title") or ""), str(raw.get("body") or "")
            tags = [normalise_tag(t) for t in raw.get("tags") or []]
            lines = body.rstrip().split("\n")
            if lines and TAG_LINE.match(lines[-1]):  # the tag line our own export adds
                line_tags = {normalise_tag(t) for t in lines[-1].split()}
                if line_tags <= set(tags):
                    body = "\n".join(lines[:-1]).rstrip()
            text, title = (body, title) if body.strip() else (title, "")
            found.append(
                Incoming(number, when.astimezone(), text, title, tags, bool(raw.get("starred")))
            )
        except (KeyError, TypeError, ValueError, AttributeError):
            report.unreadable.append(f"entry {number}: no valid date or text")
    return found


def render(entries: list[Entry]) -> str:
    """jrnl's plain-text journal: ``[date] first line *`` then the rest, a blank line between."""
    blocks = []
    for entry in sorted(entries, key=lambda e: e.created_at):
        when = entry.created_at.astimezone().strftime(TIME_FORMAT)
        text = entry.text.strip("\n")
        first, rest = (
            (entry.title.strip(), text)
            if entry.title.strip()
            else (([*text.split("\n", 1), ""])[:2])
        )
        inline = {normalise_tag(t) for t in re.findall(r"[#@][\w-]+", entry.title + text)}
        extra = [t for t in entry.tags if t not in inline]
        body = rest.rstrip()
        if extra:
            body = (body + "\n\n" if body else "") + " ".join(f"#{t}" for t in extra)
        head = f"[{when}] {first}" + (" *" if entry.starred else "")
        blocks.append(head + ("\n" + body if body else ""))
    return "\n\n".join(blocks) + "\n"
