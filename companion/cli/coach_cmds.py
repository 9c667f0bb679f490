"""``companion chat``: one message to the coach with the reply streamed, for scripts; and
``--show-context`` to see exactly what the coach would be told, without calling a model."""

from __future__ import annotations

import argparse
import sys

from companion.cli.common import safe, unlocked
from companion.errors import InvalidInput

EX_UNAVAILABLE = 69


def register(commands: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
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


def pick_session(vault, args: argparse.Namespace) -> int:  # type: ignore[no-untyped-def]
    from companion.activity import chat
    from companion.coach import service

    if args.session is not None:
        session = chat.get_session(vault, args.session)
        if session.ended_at is not None:
            raise InvalidInput(f"chat session {args.session} has ended; start a new one.")
        return session.id
    if not args.new and not args.off_record:
        resumed = service.resumable_session(vault)
        if resumed is not None:
            return resumed
    else:
        recent = chat.sessions(vault, limit=1)
        if recent and recent[0].ended_at is None:
            service.close_session(vault, recent[0].id)
    return chat.start(vault, "", off_record=args.off_record).id


def cmd_chat(args: argparse.Namespace) -> int:
    import asyncio

    from companion import config, llm
    from companion.coach import context, crisis, safety, service

    message = args.message or ""
    if message == "-":
        message = sys.stdin.read()
    if not args.show_context and not message.strip():
        raise InvalidInput('say something: companion chat "how do I get through tonight?"')
    lines = crisis.as_text(config.load())
    if message and safety.detect(message):
        sys.stderr.write("You are not alone. Reach out now:\n" + lines + "\n\n")
    with unlocked(args) as vault:
        gateway = llm.configured(vault)
        budget = gateway.budget if gateway else context.CLAUDE_BUDGET
        if args.show_context:
            built = context.build(vault, message, budget, args.session)
            sys.stdout.write(safe(built.text) + "\n")
            sys.stderr.write(
                f"(about {built.tokens} tokens of a {budget}-token budget; "
                f"{built.dropped} lines left out)\n"
            )
            return 0
        session = pick_session(vault, args)

        def show(text: str) -> None:
            sys.stdout.write(safe(text))
            sys.stdout.flush()

        outcome = asyncio.run(service.respond(vault, session, message, show, gateway, lines))
    if outcome.reply:
        sys.stdout.write("\n")
    for fact in outcome.captured:
        sys.stderr.write(f"(remembered: {fact})\n")
    if outcome.offline:
        sys.stderr.write(f"companion: {llm.OFFLINE_HELP} Your message is saved.\n")
        return EX_UNAVAILABLE
    if outcome.error is not None:
        sys.stderr.write(f"companion: {outcome.error} Your message is saved.\n")
        return EX_UNAVAILABLE
    return 0
