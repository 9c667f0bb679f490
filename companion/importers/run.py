"""One entry point for the CLI and the TUI: parse a source, save what is new, and (when asked)
learn from the imported history, after saying what that would cost."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from companion.activity import journal, profile
from companion.importers import common, dayone, jrnl, markdown
from companion.llm import pricing
from companion.memory import extraction, store
from companion.vault import Vault

KINDS = {"jrnl": jrnl.parse, "dayone": dayone.parse, "markdown": markdown.parse}


def import_source(
    vault: Vault, kind: str, path: Path, progress: common.Progress | None = None
) -> common.Report:
    report = common.Report()
    incoming = KINDS[kind](path, report)  # parse everything first: a bad file writes nothing
    return common.save(vault, incoming, report, progress, len(incoming))


@dataclass
class Estimate:
    entries: int
    input_tokens: int
    calls: int
    cost_usd: float


def learning_estimate(vault: Vault, model: str) -> Estimate:
    """What "learn from my imported history" would send: entries, tokens, calls, cost."""
    waiting = journal.imported_unlearned(vault)
    size = sum(
        len(json.dumps({"title": e.title, "text": e.text, "tags": e.tags}, ensure_ascii=False)) // 4
        + 30
        for e in waiting
    )
    budget = extraction.input_budget(vault)
    calls = max(1, -(-size // budget)) if size else 0
    context = sum(len(f.text) + 60 for f in store.live_facts(vault)) + len(
        json.dumps(profile.load(vault), ensure_ascii=False)
    )
    # Every call carries the prompt, the tool schema, the live facts and the profile.
    overhead = (len(extraction.system_prompt()) + 8000 + context) // 4
    tokens = size + calls * overhead
    output = calls * 800
    return Estimate(len(waiting), tokens, calls, pricing.cost(model, tokens, output))
