"""``companion ledger`` and ``companion insights``: what left the machine, how the week went."""

from __future__ import annotations

import argparse
import json
import sys

from companion.cli.common import open_vault, output_file, write_private


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = commands.add_parser("ledger", help="every call that left this machine")
    p.add_argument("-n", type=int, default=50)
    p.set_defaults(handler=cmd_ledger)

    p = commands.add_parser("insights", help="weekly insights")
    p.add_argument("--week", metavar="YYYY-Www", help="default: this week")
    p.add_argument("--json", action="store_true")
    p.add_argument(
        "--share",
        action="store_true",
        help="a report for a sponsor or therapist: aggregates only, no text",
    )
    p.add_argument("-o", "--output", metavar="FILE", help="where --share writes (default stdout)")
    p.set_defaults(handler=cmd_insights)


def cmd_ledger(args: argparse.Namespace) -> int:
    from companion.llm import ledger

    with open_vault(args, read_only_ok=True) as unlocked:
        vault = unlocked.vault
        calls = ledger.calls(vault, args.n)
    if not calls:
        print("No call has left this machine.")
    total = 0.0
    for c in calls:
        total += c.cost_usd
        status = c.error or "ok"
        print(
            f"{c.created_at:%Y-%m-%d %H:%M}  {c.purpose:<10} {c.model:<22} "
            f"{c.input_tokens:>7} in {c.output_tokens:>6} out  ${c.cost_usd:.4f}  {status}"
        )
    if calls:
        print(f"estimated total for these {len(calls)} calls: ${total:.4f}")
    return 0


def cmd_insights(args: argparse.Namespace) -> int:
    from companion.memory import insights

    target = output_file(args.output)
    with open_vault(args, read_only_ok=True) as unlocked:
        vault = unlocked.vault
        week = insights.weekly(vault, args.week)
    if args.share:
        report = insights.share_report(week)
        if target is not None:
            write_private(target, report)
            print(f"wrote {args.output}", file=sys.stderr)
        else:
            sys.stdout.write(report)
        return 0
    if args.json:
        sys.stdout.write(json.dumps(week.as_dict(), indent=2) + "\n")
        return 0
    sys.stdout.write(insights.share_report(week))
    return 0
