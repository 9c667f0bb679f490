"""Activity subcommands: checkin, journal add|list|search|show|delete, export."""

from __future__ import annotations

import argparse
import json
import sys
from datetime import date

from companion.activity import checkins, journal
from companion.cli.common import (
    confirmed,
    offer_backup_rewrite,
    open_vault,
    out,
    output_file,
    safe,
    show_help,
    write_private,
)
from companion.errors import InvalidInput
from companion.usecases.export import FORMATS, render

PROMPTS = (
    ("mood", "Mood, 1-10: "),
    ("cravings", "Cravings, 0-10: "),
    ("sleep_hours", "Hours of sleep: "),
    ("sober", "Sober today? (yes/no): "),
)


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = commands.add_parser("checkin", help="record today's (or a past day's) check-in")
    p.add_argument("--date", default="today", help="YYYY-MM-DD, today (default) or yesterday")
    p.add_argument("--mood", help="1-10")
    p.add_argument("--cravings", help="0-10")
    p.add_argument("--sleep", dest="sleep_hours", help="hours, 0-24")
    p.add_argument("--sober", help="yes or no")
    p.add_argument(
        "--note",
        help="a few words for the day (- reads them from stdin, so they are not in the "
        "command line); a day that has a note already gets them on a new line",
    )
    p.add_argument(
        "--replace-note",
        action="store_true",
        help="let --note replace the day's note instead of being added to it",
    )
    p.add_argument("--urge", dest="urge_intensity", help="urge intensity, 0-10")
    p.add_argument("--trigger")
    p.add_argument("--strategy", help="what you did about the urge")
    p.add_argument("--outcome", choices=checkins.OUTCOMES)
    p.set_defaults(handler=cmd_checkin)

    journal_parser = commands.add_parser("journal", help="write and read journal entries")
    sub = journal_parser.add_subparsers(dest="journal_command", metavar="ACTION", required=True)
    p = sub.add_parser("add", help="add an entry (TEXT, or - to read it from stdin)")
    p.add_argument("text", metavar="TEXT|-")
    p.add_argument(
        "--tag", action="append", default=[], help="repeatable; #tags in the text count too"
    )
    p.add_argument("--title", default="")
    p.set_defaults(handler=cmd_journal_add)
    p = sub.add_parser("list", help="newest entries first")
    p.add_argument("-n", type=int, default=20, help="how many (default 20)")
    p.set_defaults(handler=cmd_journal_list)
    p = sub.add_parser(
        "search",
        help="search journal, check-in notes and chats",
        description='Every word must match (the last also as a prefix: "crav" finds '
        '"cravings"); "quoted words" match as a phrase. Best matches first, newer first on '
        "ties.",
    )
    p.add_argument("query", nargs="+")
    p.add_argument("--newest", action="store_true", help="newest first instead of best first")
    p.add_argument("-n", type=int, default=50, help="how many (default 50)")
    p.set_defaults(handler=cmd_journal_search)
    p = sub.add_parser("show", help="print one entry")
    p.add_argument("id", type=int)
    p.set_defaults(handler=cmd_journal_show)
    p = sub.add_parser("delete", help="delete one entry")
    p.add_argument("id", type=int)
    p.add_argument("--yes", action="store_true", help="do not ask for confirmation")
    p.add_argument(
        "--forget-facts",
        action="store_true",
        help="also forget what Companion learned from this entry",
    )
    p.add_argument(
        "--purge-backups",
        action="store_true",
        help="also rewrite the backups now, so no older copy holds the entry",
    )
    p.set_defaults(handler=cmd_journal_delete)

    profile_parser = commands.add_parser("profile", help="show or change your profile")
    sub = profile_parser.add_subparsers(dest="profile_command", metavar="ACTION", required=True)
    p = sub.add_parser("show", help="print the profile")
    p.add_argument("--json", action="store_true")
    p.set_defaults(handler=cmd_profile_show)
    p = sub.add_parser("set", help="set one field (an empty VALUE clears it)")
    p.add_argument("field", metavar="FIELD")
    p.add_argument("value", metavar="VALUE", help="lists are comma-separated")
    p.set_defaults(handler=cmd_profile_set)

    p = commands.add_parser("export", help="write everything out in plain text")
    p.add_argument("--format", choices=FORMATS, default="json")
    p.add_argument("-o", "--output", metavar="FILE", help="file to write (default: stdout)")
    p.set_defaults(handler=cmd_export)


def cmd_checkin(args: argparse.Namespace) -> int:
    day = checkins.parse_day(args.date)
    given = {name: getattr(args, name) for name in checkins.FIELDS}
    if args.note == "-":  # not in the command line, where other users' `ps` and history see it
        given["note"] = read_text("-")
    checkins.validate(given)  # refuse bad values before asking for a passphrase
    if args.replace_note and args.note is None:
        raise InvalidInput("--replace-note needs --note TEXT, the note to put in its place.")
    if sys.stdin.isatty():
        for name, label in PROMPTS:
            while given[name] is None:
                answer = input(label).strip()
                if not answer:
                    break
                try:
                    checkins.validate({name: answer})
                    given[name] = answer
                except InvalidInput as err:
                    print(err, file=sys.stderr)
    from companion.usecases import checkin

    with open_vault(args) as unlocked:
        result = checkin.save(unlocked, day, given, add_note=not args.replace_note)
    show_help(result.danger)
    saved = result.checkin
    parts = [
        f"{k.replace('_hours', '')} {v}"
        for k, v in saved.values.items()
        if k in ("mood", "cravings", "sleep_hours")
    ]
    if "sober" in saved.values:
        parts.append("sober" if saved.values["sober"] else "not sober")
    print(f"checked in for {saved.date}" + (": " + ", ".join(parts) if parts else ""))
    if args.note is not None:
        now = str(saved.get("note") or "")
        note = str(given["note"] or "")
        print(note_outcome(saved.date, note, result.earlier_note, now, args.replace_note))
    return 0


def note_outcome(day: date, given: str, earlier: str, now: str, replace: bool) -> str:
    """One line on what --note did to the day's note: words a person wrote are never changed
    without saying so."""
    if now == earlier:
        why = "--note was empty" if not given.strip() else "it already has those words"
        return f"the note for {day} is as it was: {why}"
    if not earlier.strip():
        return f"saved the note for {day}"
    if replace:
        return f"{'replaced' if now.strip() else 'cleared'} the note for {day}"
    return f"added to the note for {day}"


def read_text(arg: str) -> str:
    if arg != "-":
        return arg
    data = sys.stdin.buffer.read()
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise InvalidInput("the text on stdin is not UTF-8; nothing was saved.") from None


def cmd_journal_add(args: argparse.Namespace) -> int:
    text = read_text(args.text)
    if not text.strip():
        raise InvalidInput("the entry is empty; write something first.")
    from companion.usecases import journaling

    with open_vault(args) as unlocked:
        saved = journaling.save_entry(unlocked, text, args.title, args.tag)
    entry = saved.entry
    show_help(saved.danger)
    tags = f" tagged {', '.join('#' + t for t in entry.tags)}" if entry.tags else ""
    print(f"saved entry {entry.id}{tags}")
    return 0


def cmd_journal_list(args: argparse.Namespace) -> int:
    if args.n < 1:
        raise InvalidInput("-n must be 1 or more.")
    with open_vault(args, read_only_ok=True) as unlocked:
        vault = unlocked.vault
        entries = journal.newest(vault, args.n)
    if not entries:
        print('no entries yet: companion journal add "..."')
    for e in entries:
        out(f"{e.id:>6}  {e.created_at:%Y-%m-%d %H:%M}  {e.headline[:60]}")
    return 0


def cmd_journal_search(args: argparse.Namespace) -> int:
    from companion.retrieval.search import when_label

    query = " ".join(args.query)
    with open_vault(args, read_only_ok=True) as unlocked:
        hits = unlocked.index.search(query, limit=args.n, newest=args.newest)
    if not hits:
        print("no matches")
    for hit in hits:
        ref = f"chat {hit.session_id}" if hit.kind == "chat" else f"{hit.kind} {hit.id}"
        out(f"{when_label(hit)}  {ref:<14} {hit.snippet}")
    return 0


def cmd_journal_show(args: argparse.Namespace) -> int:
    with open_vault(args, read_only_ok=True) as unlocked:
        vault = unlocked.vault
        entry = journal.get(vault, args.id)
    out(f"# {entry.title}" if entry.title else f"# Entry {entry.id}")
    out(f"{entry.created_at:%A %Y-%m-%d %H:%M}" + ("  ★" if entry.starred else ""))
    if entry.tags:
        out("Tags: " + ", ".join(f"#{t}" for t in entry.tags))
    out()
    out(entry.text)
    return 0


def cmd_journal_delete(args: argparse.Namespace) -> int:
    with open_vault(args) as unlocked:
        vault = unlocked.vault
        entry = journal.get(vault, args.id)
        question = safe(
            f"Delete entry {entry.id} ({entry.headline[:50]})? This cannot be undone.\n"
            "Type yes to delete: "
        )
        if not confirmed(args, question, ("yes",), "delete"):
            print("kept")
            return 0
        from companion.usecases import journaling

        citing = journaling.delete_entry(unlocked, entry.id)
        if citing and (
            args.forget_facts
            or (
                sys.stdin.isatty()
                and input(
                    f"{len(citing)} thing(s) Companion learned came from this entry. Forget them "
                    "too? (yes/no) "
                )
                .strip()
                .lower()
                in ("y", "yes")
            )
        ):
            journaling.forget(unlocked, citing)
            print(f"forgot {len(citing)} fact(s) learned from it")
        elif citing:
            print(
                f"{len(citing)} fact(s) learned from it were kept; forget them with "
                "companion memory forget ID"
            )
        print(f"deleted entry {args.id}")
        offer_backup_rewrite(vault, args, "the deleted entry")
    return 0


def cmd_profile_show(args: argparse.Namespace) -> int:
    from companion.activity import profile

    with open_vault(args) as unlocked:
        vault = unlocked.vault
        current = profile.load(vault)
    if args.json:
        sys.stdout.write(json.dumps(current, ensure_ascii=False, indent=2) + "\n")
        return 0
    for name in profile.FIELDS:
        value = current.get(name)
        shown = ", ".join(value) if isinstance(value, list) else ("" if value is None else value)
        out(f"{name:<24} {shown}")
    return 0


def cmd_profile_set(args: argparse.Namespace) -> int:
    from companion.activity import profile

    profile.coerce(args.field, args.value)  # refuse bad input before asking for a passphrase
    with open_vault(args) as unlocked:
        vault = unlocked.vault
        profile.update(vault, {args.field: args.value or None})
    print(f"{args.field} {'cleared' if not args.value else 'saved'}")
    return 0


def cmd_export(args: argparse.Namespace) -> int:
    target = output_file(args.output)  # "-" is standard output, as for most tools
    with open_vault(args, read_only_ok=True) as unlocked:
        vault = unlocked.vault
        text = render(vault, args.format)
    if target is not None:
        write_private(target, text)
        print(
            f"wrote {args.output} (plain text: keep it private, delete it when done)",
            file=sys.stderr,
        )
    else:
        sys.stdout.write(text)
    return 0
