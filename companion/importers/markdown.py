"""A folder of Markdown files, one entry per file (Obsidian daily notes are the common case).

The date comes from front matter ``date:``, else a ``YYYY-MM-DD`` in the file name, else the
file's modification time. Front-matter ``tags:`` and inline #tags are kept.
"""

from __future__ import annotations

import re
from datetime import date, datetime
from pathlib import Path

from companion.activity.journal import normalise_tag
from companion.importers.common import Incoming, MalformedFile, Report

NAME_DATE = re.compile(r"(\d{4}-\d{2}-\d{2})")


def front_matter(text: str) -> tuple[dict[str, object], str]:
    """A small YAML subset: ``key: value``, ``key: [a, b]`` and ``key:`` then ``- item``."""
    if not text.startswith("---"):
        return {}, text
    end = text.find("\n---", 3)
    if end == -1:
        return {}, text
    meta: dict[str, object] = {}
    key = None
    for line in text[3:end].splitlines():
        if not line.strip():
            continue
        item = re.match(r"^\s*-\s*(.+)$", line)
        if item and key:
            existing = meta.get(key)
            meta[key] = [
                *(existing if isinstance(existing, list) else []),
                item.group(1).strip().strip("'\""),
            ]
            continue
        pair = re.match(r"^([\w-]+)\s*:\s*(.*)$", line)
        if pair:
            key, value = pair.group(1).lower(), pair.group(2).strip()
            if value.startswith("[") and value.endswith("]"):
                meta[key] = [v.strip().strip("'\"") for v in value[1:-1].split(",") if v.strip()]
            else:
                meta[key] = value.strip("'\"") if value else []
    return meta, text[end + 4 :].lstrip("\n")


def _when(meta: dict[str, object], path: Path) -> datetime:
    raw = meta.get("date")
    if isinstance(raw, str) and raw:
        text = raw.replace(" ", "T", 1)
        try:
            moment = datetime.fromisoformat(text)
            return moment if moment.tzinfo else moment.astimezone()
        except ValueError:
            pass
    found = NAME_DATE.search(path.stem)
    if found:
        try:
            day = date.fromisoformat(found.group(1))
            return datetime.combine(day, datetime.min.time()).replace(hour=21).astimezone()
        except ValueError:
            pass
    return datetime.fromtimestamp(path.stat().st_mtime).astimezone()


def parse(folder: Path, report: Report) -> list[Incoming]:
    if not folder.is_dir():
        raise MalformedFile(f"{folder} is not a folder of Markdown files; nothing was imported.")
    files = sorted(
        p
        for p in folder.rglob("*")
        if p.suffix.lower() in (".md", ".markdown")
        and p.is_file()
        and not any(part.startswith(".") for part in p.parts)
    )
    if not files:
        raise MalformedFile(f"there are no .md files in {folder}; nothing was imported.")
    found = []
    for number, path in enumerate(files, 1):
        try:
            meta, body = front_matter(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError):
            report.unreadable.append(f"{path.relative_to(folder)}: not UTF-8 text")
            continue
        raw = meta.get("tags") or []
        tags = [raw] if isinstance(raw, str) else list(raw) if isinstance(raw, list) else []
        title = meta.get("title") if isinstance(meta.get("title"), str) else ""
        if not title and not NAME_DATE.search(path.stem):
            title = path.stem
        found.append(
            Incoming(
                number,
                _when(meta, path),
                body.strip("\n"),
                str(title),
                [normalise_tag(str(t)) for t in tags],
            )
        )
    return found
