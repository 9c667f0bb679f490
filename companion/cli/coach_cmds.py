"""``companion chat``: one message to the coach with the reply streamed, for scripts; and
``--show-context`` to see exactly what the coach would be told, without calling a model."""

from __future__ import annotations

import argparse
import sys

from companion.cli.common import open_vault, safe, show_help
from companion.errors import InvalidInput

EX_UNAVAILABLE = 69


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = commands.add_parser("chat", help="send one message to the coach; the reply streams")
    p.add_argument("message", nargs="?", help="the message, or - to read it from stdin")
    p.add_argument("--session", type=int, metavar="ID", help="continue this session")
    p.add_argument("--new", action="store_true", help="start a new session")
    p.add_argument(
        "--off-record",
        action="store_true",
        help="a new session that is kept in history but never memorized",
    )
    p.add_argument(
        "--show-context",
        action="store_true",
        help="print the memory section this message would carry, call nothing",
    )
    p.set_defaults(handler=cmd_chat)


def cmd_chat(args: argparse.Namespace) -> int:
    import asyncio

    from companion import llm
    from companion.coach import context, safety, service
    from companion.llm.tokens import CLAUDE_BUDGET
    from companion.usecases import chats

    message = args.message or ""
    if message == "-":
        message = sys.stdin.read()
    if not args.show_context and not message.strip():
        raise InvalidInput('say something: companion chat "how do I get through tonight?"')
    danger = safety.assess(message) if message else None
    show_help(danger)
    with open_vault(args) as unlocked:
        vault = unlocked.vault
        gateway = unlocked.gateway()
        budget = gateway.budget if gateway else CLAUDE_BUDGET
        if args.show_context:
            built = context.build(vault, message, budget, args.session)
            sys.stdout.write(safe(built.text) + "\n")
            sys.stderr.write(
                f"(about {built.tokens} tokens of a {budget}-token budget; "
                f"{built.dropped} lines left out)\n"
            )
            return 0
        session = chats.session_for_message(
            vault, args.session, new=args.new, off_record=args.off_record, strict=True
        )

        def show(text: str) -> None:
            sys.stdout.write(safe(text))
            sys.stdout.flush()

        outcome = asyncio.run(service.respond(vault, session, message, show, gateway))
    if outcome.reply:
        sys.stdout.write("\n")
    for fact in outcome.captured:
        sys.stderr.write(f"(remembered: {fact})\n")
    for change in outcome.to_confirm:
        sys.stderr.write(f"(to confirm with `companion memory pending`: {change})\n")
    if outcome.offline:
        sys.stderr.write(f"companion: {llm.OFFLINE_HELP} Your message is saved.\n")
        return EX_UNAVAILABLE
    if outcome.error is not None:
        sys.stderr.write(f"companion: {outcome.error} Your message is saved.\n")
        return EX_UNAVAILABLE
    return 0
