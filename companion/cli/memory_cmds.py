"""``companion memory``: what Companion knows, what waits for you, and learning on demand."""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING, Any

from companion import clock
from companion.cli.common import (
    confirmed,
    model_for,
    offer_backup_rewrite,
    open_vault,
    out,
    output_file,
    write_private,
)
from companion.cli.import_cmds import cmd_learn_imports
from companion.errors import EX_TEMPFAIL, VaultBusy

if TYPE_CHECKING:
    from companion.vault import Vault

SOURCE_JSON = {"learned": "learned", "said": "said", "wrote": "wrote"}


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    memory = commands.add_parser("memory", help="what Companion knows about you")
    sub = memory.add_subparsers(dest="memory_command", metavar="ACTION", required=True)
    p = sub.add_parser("show", help="facts, the latest daily memory and follow-ups")
    p.add_argument("--json", action="store_true", help="the documented shape, for scripts")
    p.set_defaults(handler=cmd_show)
    p = sub.add_parser("add", help='tell Companion something ("you wrote")')
    p.add_argument("text")
    p.add_argument("--category", default="general")
    p.set_defaults(handler=cmd_add)
    p = sub.add_parser("edit", help="correct a fact (the old wording stays in history)")
    p.add_argument("id", type=int)
    p.add_argument("text")
    p.set_defaults(handler=cmd_edit)
    p = sub.add_parser("forget", help="delete a fact; it is not learned again (undo within 7 days)")
    p.add_argument("id", type=int)
    p.add_argument(
        "--purge-backups",
        action="store_true",
        help="also rewrite the backups now, so no older copy holds the fact",
    )
    p.set_defaults(handler=cmd_forget)
    p = sub.add_parser("forgotten", help="facts deleted in the last 7 days, which undo brings back")
    p.set_defaults(handler=cmd_forgotten)
    p = sub.add_parser("undo", help="bring back a fact deleted in the last 7 days")
    p.add_argument("id", type=int)
    p.set_defaults(handler=cmd_undo)
    p = sub.add_parser(
        "pending", help="changes waiting for you to confirm (a sobriety date, a fact you wrote...)"
    )
    p.set_defaults(handler=cmd_pending)
    p = sub.add_parser("accept", help="make a waiting change true (N from memory pending)")
    p.add_argument("number", type=int, metavar="N")
    p.set_defaults(handler=cmd_accept)
    p = sub.add_parser("reject", help="drop a waiting change; nothing in your profile moves")
    p.add_argument("number", type=int, metavar="N")
    p.set_defaults(handler=cmd_reject)
    p = sub.add_parser("fresh-start", help="erase everything learned; your writing stays")
    p.add_argument("--profile", action="store_true", help="erase the profile too")
    p.add_argument("--backups", action="store_true", help="delete all backups too")
    p.add_argument("--yes", action="store_true", help="do not ask for the confirmation word")
    p.set_defaults(handler=cmd_fresh_start)
    p = sub.add_parser("export", help="write memory.md, grouped by category")
    p.add_argument("-o", "--output", default="memory.md", metavar="FILE")
    p.set_defaults(handler=cmd_export)
    p = sub.add_parser("extract", help="learn from what is new (for cron); see --force")
    p.add_argument(
        "--force",
        action="store_true",
        help="run even if today's memory exists (still only what is unmemorized)",
    )
    p.set_defaults(handler=cmd_extract)

    p = sub.add_parser("relearn", help="learn again from all your history (after a fresh start)")
    p.add_argument("--yes", action="store_true", help="do not ask first")
    p.set_defaults(handler=cmd_relearn)
    p = sub.add_parser("learn-imports", help="learn from imported history (shows the cost first)")
    p.add_argument("--yes", action="store_true", help="do not ask before sending")
    p.set_defaults(handler=cmd_learn_imports)


def memory_json(vault: Vault) -> dict[str, Any]:
    from companion.memory import followups, store, summaries

    newest = summaries.newest_daily_memory(vault)
    daily = None
    if newest:
        row, content = newest
        daily = {
            "date": row.date,
            "covering_from": row.covering_from,
            "covering_to": row.covering_to,
            **content,
        }
    return {
        "facts": [
            {
                "id": f.id,
                "text": f.text,
                "category": f.category,
                "tier": f.tier,
                "source": SOURCE_JSON.get(f.source, f.source),
                "pinned": f.pinned,
                "created_at": f.created_at.isoformat(timespec="seconds"),
                "valid_until": f.valid_until.isoformat(timespec="seconds")
                if f.valid_until
                else None,
                "evidence": f.evidence,
                "about": f.about,
                "valid_from": f.valid_from.isoformat() if f.valid_from else None,
                "valid_to": f.valid_to.isoformat() if f.valid_to else None,
                "expires_at": f.expires_at.isoformat(timespec="seconds") if f.expires_at else None,
                "search_terms": f.search_terms,
            }
            for f in store.live_facts(vault)
        ],
        "daily_memory": daily,
        "follow_ups": [
            {"id": i.id, "text": i.text, "due": i.due.isoformat() if i.due else None}
            for i in followups.open_items(vault)
        ],
    }


def cmd_show(args: argparse.Namespace) -> int:
    from companion.memory import store

    with open_vault(args, read_only_ok=True) as unlocked:
        vault = unlocked.vault
        data = memory_json(vault)
    if args.json:
        sys.stdout.write(json.dumps(data, ensure_ascii=False, indent=2) + "\n")
        return 0
    if not data["facts"]:
        print("Nothing learned yet.")
    category = None
    for fact in sorted(data["facts"], key=lambda f: (f["category"], f["id"])):
        if fact["category"] != category:
            category = fact["category"]
            out(f"\n{category.title()}")
        label = store.SOURCE_LABELS.get(fact["source"], fact["source"])
        out(
            f"  {fact['id']:>5}  {fact['text']}  ({label}, {fact['created_at'][:10]})"
            + ("  [pinned]" if fact["pinned"] else "")
        )
    if data["daily_memory"]:
        memory = data["daily_memory"]
        out(f"\nDaily memory {memory['date']}: {memory.get('emotional_state', '')}")
    for item in data["follow_ups"]:
        out(f"  follow-up {item['id']}: {item['text']}")
    return 0


def cmd_add(args: argparse.Namespace) -> int:
    from companion.memory import store

    with open_vault(args) as unlocked:
        vault = unlocked.vault
        fact_id = store.add_fact(vault, args.text, args.category, source="wrote")
    print(f"remembered as fact {fact_id}")
    return 0


def cmd_edit(args: argparse.Namespace) -> int:
    from companion.memory import store

    with open_vault(args) as unlocked:
        vault = unlocked.vault
        new_id = store.edit_fact(vault, args.id, args.text, source="wrote")
    print(f"fact {args.id} is now fact {new_id}; the old wording stays in history")
    return 0


def cmd_forget(args: argparse.Namespace) -> int:
    from companion.memory import forgetting

    with open_vault(args) as unlocked:
        vault = unlocked.vault
        forgetting.forget_fact(vault, args.id)
        print(
            f"forgot fact {args.id}; `companion memory undo {args.id}` brings it back within "
            f"{forgetting.UNDO_DAYS} days, after which its words are gone for good"
        )
        offer_backup_rewrite(vault, args, "the forgotten fact")
    return 0


def cmd_forgotten(args: argparse.Namespace) -> int:
    from companion.memory import forgetting

    with open_vault(args) as unlocked:
        gone = forgetting.undoable(unlocked.vault)
    if not gone:
        print("No fact was deleted in the last 7 days.")
        return 0
    for item in gone:
        out(f"{item.id:>5}  {item.text}  (undo until {item.undo_until:%Y-%m-%d %H:%M})")
    return 0


def cmd_undo(args: argparse.Namespace) -> int:
    from companion.memory import forgetting

    with open_vault(args) as unlocked:
        forgetting.undo(unlocked.vault, args.id)
    print(f"fact {args.id} is back")
    return 0


def cmd_pending(args: argparse.Namespace) -> int:
    from companion.memory import pending

    with open_vault(args) as unlocked:
        waiting = pending.waiting(unlocked.vault)
    if not waiting:
        print("Nothing is waiting for you to confirm.")
        return 0
    for change in waiting:
        out(f"{change.number:>3}  {change.label}")
    print("companion memory accept N makes one true; companion memory reject N drops it.")
    return 0


def cmd_accept(args: argparse.Namespace) -> int:
    from companion.memory import pending

    with open_vault(args) as unlocked:
        change = pending.accept(unlocked.vault, args.number)
    out(f"accepted: {change.label}")
    return 0


def cmd_reject(args: argparse.Namespace) -> int:
    from companion.memory import pending

    with open_vault(args) as unlocked:
        change = pending.reject(unlocked.vault, args.number)
    out(f"rejected: {change.label}; nothing changed")
    return 0


def cmd_fresh_start(args: argparse.Namespace) -> int:
    from companion.memory.fresh_start import CONFIRM_WORD, fresh_start

    question = f"This erases everything Companion learned. Type {CONFIRM_WORD}: "
    if not confirmed(args, question, (CONFIRM_WORD,), "erase"):
        print("nothing erased")
        return 0
    with open_vault(args) as unlocked:
        vault = unlocked.vault
        erased = fresh_start(vault, args.profile, args.backups)
    print(
        f"erased {erased.facts} facts, {erased.daily_memories} daily memories, "
        f"{erased.session_summaries} session summaries; your writing is untouched"
    )
    return 0


def memory_markdown(data: dict[str, Any]) -> str:
    lines = ["# Memory", ""]
    groups: dict[str, list[str]] = {}
    for fact in data["facts"]:
        groups.setdefault(fact["category"], []).append(fact["text"])
    for category in sorted(groups):
        lines += [f"## {category.title()}", ""] + [f"- {t}" for t in groups[category]] + [""]
    return "\n".join(lines)


def cmd_export(args: argparse.Namespace) -> int:
    target = output_file(args.output)
    with open_vault(args, read_only_ok=True) as unlocked:
        vault = unlocked.vault
        text = memory_markdown(memory_json(vault))
    if target is None:
        sys.stdout.write(text)
        return 0
    write_private(target, text)
    print(f"wrote {args.output}", file=sys.stderr)
    return 0


def cmd_extract(args: argparse.Namespace) -> int:
    import asyncio

    from companion.memory import extraction
    from companion.usecases import remembering

    try:
        with open_vault(args) as unlocked:
            again = extraction.next_try()
            if not args.force and again is not None and again > clock.now():
                print(
                    f"The last memory update failed; the next try is after {again:%H:%M} "
                    "(--force tries now)."
                )
                return 0
            gateway = model_for(unlocked, "extraction")
            result = asyncio.run(
                remembering.learn(
                    unlocked,
                    gateway,
                    force=args.force,
                    progress=lambda s: print(s, file=sys.stderr),
                )
            )
    except VaultBusy:
        sys.stderr.write(
            "companion: the vault is open in another Companion; the open window "
            "extracts on its own.\n"
        )
        return EX_TEMPFAIL
    print(result.line)
    return 1 if result.error else 0


def cmd_relearn(args: argparse.Namespace) -> int:
    from companion.memory.fresh_start import relearn_history

    question = (
        "Mark all your history as new, so the next extraction learns from all of it "
        "(it may cost more than a usual day)? (yes/no) "
    )
    if not confirmed(args, question, ("y", "yes"), "go ahead"):
        print("nothing changed")
        return 0
    with open_vault(args) as unlocked:
        vault = unlocked.vault
        count = relearn_history(vault)
    print(
        f"{count:,} records will be learned from at the next extraction "
        "(companion memory extract --force runs it now)."
    )
    return 0
