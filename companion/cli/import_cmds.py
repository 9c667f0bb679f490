"""``companion import``: history from jrnl, Day One and Markdown folders; and ``companion memory
learn-imports``, which learns from it after saying what that costs."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from companion.cli.common import confirmed, model_for, open_vault, out
from companion.errors import InvalidInput


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    importer = commands.add_parser("import", help="bring in history from jrnl, Day One, Markdown")
    sub = importer.add_subparsers(dest="import_kind", metavar="SOURCE", required=True)
    for kind, what in (
        ("jrnl", "jrnl's JSON export (jrnl --export json > FILE)"),
        ("dayone", "a Day One JSON export, or the .zip itself"),
        ("markdown", "a folder of Markdown files, one entry each"),
    ):
        p = sub.add_parser(kind, help=what)
        p.add_argument("path", metavar="DIR" if kind == "markdown" else "FILE")
        p.set_defaults(handler=cmd_import)


def cmd_import(args: argparse.Namespace) -> int:
    from companion.usecases.importing import import_history

    path = Path(args.path).expanduser()
    if not path.exists():
        raise InvalidInput(f"there is nothing at {path}.")
    tty = sys.stderr.isatty()

    def progress(done: int, total: int) -> None:
        if tty:
            sys.stderr.write(f"\rimporting {done:,} of {total:,}")
            sys.stderr.flush()

    with open_vault(args) as unlocked:
        report = import_history(unlocked, args.import_kind, path, progress)
    if tty:
        sys.stderr.write("\n")
    for line in report.lines():
        out(line)
    if report.added:
        print(
            "Imported history is not sent to the coach's model. To learn from it: "
            "companion memory learn-imports (it says what that costs first)."
        )
    return 0


def cmd_learn_imports(args: argparse.Namespace) -> int:
    import asyncio

    from companion.activity import journal
    from companion.importers.run import learning_estimate
    from companion.usecases import remembering

    with open_vault(args) as unlocked:
        vault = unlocked.vault
        gateway = model_for(unlocked, "extraction")
        estimate = learning_estimate(vault, gateway.model)
        if not estimate.entries:
            print("There is no imported history waiting to be learned from.")
            return 0
        print(
            f"{estimate.entries:,} imported entries: about {estimate.input_tokens:,} tokens "
            f"in {estimate.calls} call(s), about ${estimate.cost_usd:.2f} with {gateway.model}."
        )
        if not confirmed(args, "Go ahead? (yes/no) ", ("y", "yes"), "go ahead"):
            print("nothing was sent")
            return 0
        journal.release_imports(vault)
        result = asyncio.run(
            remembering.learn(
                unlocked, gateway, force=True, progress=lambda s: print(s, file=sys.stderr)
            )
        )
    print(result.line)
    return 1 if result.error else 0
