"""Everything the vault holds, decrypted into JSON, readable Markdown or CSV.

Exports are plaintext by nature: files are created 0600 and the CLI says so.
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

from companion import __version__, clock
from companion.activity import chat, checkins, journal, profile
from companion.errors import InvalidInput, RecordDamaged
from companion.memory import store, summaries
from companion.paths import open_private
from companion.vault import Vault

FORMATS = ("json", "markdown", "csv", "jrnl")


def _profile(vault: Vault) -> dict[str, Any]:
    try:
        return profile.load(vault)
    except RecordDamaged:  # left out; `companion verify` names it
        return {}


def collect(vault: Vault) -> dict[str, Any]:
    entries = journal.everything(vault)
    sessions = sorted(chat.sessions(vault, limit=10**9), key=lambda s: s.started_at)
    return {
        "exported_at": clock.now().isoformat(timespec="seconds"),
        "companion_version": __version__,
        "profile": _profile(vault),
        "checkins": [
            {"date": c.date.isoformat(), **c.values} for c in checkins.all_checkins(vault)
        ],
        "journal": [
            {
                "id": e.id,
                "created_at": e.created_at.isoformat(timespec="seconds"),
                "title": e.title,
                "text": e.text,
                "tags": e.tags,
                "starred": e.starred,
            }
            for e in entries
        ],
        "chats": [
            {
                "id": s.id,
                "title": s.title,
                "off_record": s.off_record,
                "started_at": s.started_at.isoformat(timespec="seconds"),
                "ended_at": s.ended_at.isoformat(timespec="seconds") if s.ended_at else None,
                "messages": [
                    {
                        "role": m.role,
                        "content": m.content,
                        "created_at": m.created_at.isoformat(timespec="seconds"),
                    }
                    for m in chat.messages(vault, s.id)
                ],
            }
            for s in sessions
        ],
        "facts": [
            {
                "id": f.id,
                "text": f.text,
                "category": f.category,
                "tier": f.tier,
                "source": f.source,
                "pinned": f.pinned,
                "evidence": f.evidence,
                "created_at": f.created_at.isoformat(timespec="seconds"),
                "valid_until": f.valid_until.isoformat(timespec="seconds")
                if f.valid_until
                else None,
                "supersedes": f.supersedes,
            }
            for f in store.all_facts(vault)
        ],
        "daily_memories": [
            {
                "date": info.date,
                "covering_from": info.covering_from,
                "covering_to": info.covering_to,
                **content,
            }
            for info, content in summaries.daily_memories(vault)
        ],
        "session_summaries": [
            {"session_id": s.session_id, **s.content}
            for s in summaries.session_summaries(
                vault, on_record=False, fresh=False, newest_first=False
            )
        ],
    }


def to_json(data: dict[str, Any]) -> str:
    return json.dumps(data, ensure_ascii=False, indent=2) + "\n"


def to_markdown(data: dict[str, Any]) -> str:
    out = [f"# Companion export\n\nExported {data['exported_at']}.\n"]
    if data["profile"]:
        out.append("## Profile\n")
        for key, value in data["profile"].items():
            shown = ", ".join(value) if isinstance(value, list) else value
            out.append(f"- **{key.replace('_', ' ')}**: {shown}")
        out.append("")
    if data["checkins"]:
        out.append("## Check-ins\n")
        out.append("| date | mood | cravings | sleep | sober | note |\n|---|---|---|---|---|---|")
        for c in data["checkins"]:
            sober = {True: "yes", False: "no"}.get(c.get("sober"), "")
            note = str(c.get("note", "")).replace("\n", " ").replace("|", "\\|")
            out.append(
                f"| {c['date']} | {c.get('mood', '')} | {c.get('cravings', '')} | "
                f"{c.get('sleep_hours', '')} | {sober} | {note} |"
            )
        out.append("")
    if data["journal"]:
        out.append("## Journal\n")
        for e in data["journal"]:
            title = f" {e['title']}" if e["title"] else ""
            out.append(f"### {e['created_at'][:16].replace('T', ' ')}{title}\n")
            out.append(e["text"].rstrip() + "\n")
            if e["tags"]:
                out.append("Tags: " + ", ".join(f"#{t}" for t in e["tags"]) + "\n")
    if data["chats"]:
        out.append("## Chats\n")
        for s in data["chats"]:
            out.append(f"### {s['started_at'][:16].replace('T', ' ')} {s['title'] or 'Chat'}\n")
            for m in s["messages"]:
                who = "You" if m["role"] == "user" else "Coach"
                out.append(f"**{who}:** {m['content'].rstrip()}\n")
    if data["facts"]:
        out.append("## What Companion knows about you\n")
        for f in data["facts"]:
            if not f["valid_until"]:
                out.append(f"- ({f['category']}) {f['text']}")
        out.append("")
    return "\n".join(out)


CSV_COLUMNS = [
    "kind",
    "id",
    "date",
    "created_at",
    "title",
    "text",
    "tags",
    "mood",
    "cravings",
    "sleep_hours",
    "sober",
    "urge_intensity",
    "trigger",
    "strategy",
    "outcome",
]


def to_csv(data: dict[str, Any]) -> str:
    """Check-ins and journal entries, one row each, for spreadsheets."""
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, CSV_COLUMNS, extrasaction="ignore")
    writer.writeheader()
    for c in data["checkins"]:
        row = {"kind": "checkin", "date": c["date"], "text": c.get("note", ""), **c}
        if "sober" in c:
            row["sober"] = "yes" if c["sober"] else "no"
        writer.writerow(row)
    for e in data["journal"]:
        writer.writerow(
            {
                "kind": "journal",
                "id": e["id"],
                "date": e["created_at"][:10],
                "created_at": e["created_at"],
                "title": e["title"],
                "text": e["text"],
                "tags": " ".join(e["tags"]),
            }
        )
    return buffer.getvalue()


def render(vault: Vault, fmt: str) -> str:
    if fmt == "jrnl":
        from companion.importers import jrnl as jrnl_format

        return jrnl_format.render(journal.everything(vault))
    data = collect(vault)
    return {"json": to_json, "markdown": to_markdown, "csv": to_csv}[fmt](data)


BY_SUFFIX = {".json": "json", ".md": "markdown", ".markdown": "markdown", ".csv": "csv",
             ".txt": "jrnl"}  # fmt: skip


def write(vault: Vault, path: Path) -> str:
    """Everything into ``path`` (created readable by you only), in the format its suffix
    names (Markdown when it names none); returns the format written."""
    fmt = BY_SUFFIX.get(path.suffix.lower(), "markdown")
    if path.exists() and path.is_dir():
        raise InvalidInput(f"{path} is a folder: give a file name, such as companion.md.")
    if not path.parent.is_dir():
        raise InvalidInput(f"there is no folder {path.parent}.")
    text = render(vault, fmt)
    with open_private(path) as handle:
        handle.write(text)
    return fmt
