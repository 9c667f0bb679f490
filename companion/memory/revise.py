"""What an extraction answer does to the facts: new ones (unless forgotten, or the same as one
known: then it is said again), updates and removals with their reason and evidence, and the
changes that must wait for the user (``pending``).

A change to a fact the user wrote becomes a question, never a second live fact and never a
silent drop. Any change to a pinned fact, and every update or removal of a run that would
change more than ``pending.MAX_UNASKED`` learned facts, waits for the user too.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from typing import Any

from companion.activity import profile
from companion.memory import entities, forgetting, likeness, pending, store
from companion.memory.gather import Chunk
from companion.memory.schema import FactRemoval, Facts, FactUpdate
from companion.vault import Vault


@dataclass
class Counts:
    added: int = 0
    updated: int = 0
    removed: int = 0
    asked: int = 0  # changes waiting for the user
    closed: int = 0  # follow-ups closed
    learned_changes: int = 0  # updates and removals of learned facts asked so far this run
    added_texts: list[str] = field(default_factory=list)  # for the day's "user_facts"
    dropped: list[str] = field(default_factory=list)
    changes: list[str] = field(default_factory=list)  # for "review the list"

    def line(self) -> str:
        line = f"Memory updated: +{self.added} / ~{self.updated} / -{self.removed}"
        if self.closed:
            line += f"; {self.closed} follow-up{'s' if self.closed != 1 else ''} done"
        if self.asked:
            line += f"; {self.asked} change{'s' if self.asked != 1 else ''} to confirm"
        if self.dropped:
            n = len(self.dropped)
            line += f"; {n} item{'s' if n != 1 else ''} not used (see the update log)"
        return line


@dataclass
class Revision:
    """One chunk's answer being applied to the facts."""

    vault: Vault
    chunk: Chunk
    counts: Counts
    run_id: int
    known: list[store.FactView] = field(default_factory=list)
    names: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        self.known = store.live_facts(self.vault)
        name = str(profile.load(self.vault).get("preferred_name") or "").strip()
        self.names = (name,) if name else ()

    # -- helpers ------------------------------------------------------------------------

    def usable(self, evidence: list[str], what: str) -> list[str]:
        cited = [e for e in evidence if e in self.chunk.user_refs]
        if not cited:
            self.counts.dropped.append(f"{what}: cites none of the user's own words")
        return cited

    def said_on(self, evidence: list[str]) -> date | None:
        days = [i.day for i in self.chunk.items if i.ref in evidence]
        return min(days) if days else None

    def same_as(self, text: str) -> store.FactView | None:
        for fact in self.known:
            if fact.category != "cue" and likeness.same_fact(fact.text, text, self.names):
                return fact
        return None

    def ask(self, target: store.FactView, text: str, reason: str, evidence: list[str]) -> None:
        said = self.said_on(evidence)
        pending.propose(
            self.vault,
            [
                {
                    "field": "fact",
                    "fact_id": target.id,
                    "was": target.text,
                    "value": text,
                    "said_on": said.isoformat() if said else "",
                    "locked": target.locked,
                    "reason": reason,
                    "evidence": evidence,
                }
            ],
        )
        self.counts.asked += 1

    # -- the three lists ----------------------------------------------------------------

    def apply(self, facts: Facts) -> None:
        for item in facts.add:
            self.add(item.text, item.category, item.tier, item.evidence, item.model_dump())
        changes: list[tuple[FactUpdate | FactRemoval, store.FactView, list[str]]] = []
        live = {f.id: f for f in self.known}
        asked: list[FactUpdate | FactRemoval] = [*facts.update, *facts.remove]
        for change in asked:
            kind = "update" if isinstance(change, FactUpdate) else "removal"
            target = live.get(change.id)
            if target is None or target.category == "cue":
                self.counts.dropped.append(f"{kind} of fact {change.id}: no such live fact")
                continue
            evidence = self.usable(change.evidence, f"{kind} of fact {change.id}")
            if not evidence:
                continue
            text = change.text if isinstance(change, FactUpdate) else ""
            if isinstance(change, FactUpdate) and likeness.same_fact(text, target.text, self.names):
                store.restate(self.vault, target, evidence, change.valid_from, change.search_terms)
                continue
            if text and forgetting.is_forgotten(self.vault, text):
                self.counts.dropped.append(f"update of fact {change.id}: you asked to forget it")
                continue
            if target.locked or target.pinned:
                self.ask(target, text, change.reason, evidence)
                continue
            changes.append((change, target, evidence))
        # Many changes at once are what an obeyed injection looks like: past the limit, this
        # chunk's changes and every later one of the run wait (earlier chunks are saved).
        self.counts.learned_changes += len(changes)
        wait = self.counts.learned_changes > pending.MAX_UNASKED
        for change, target, evidence in changes:
            text = change.text if isinstance(change, FactUpdate) else ""
            if wait:
                self.ask(target, text, change.reason or "many changes in one update", evidence)
                continue
            self.change(change, target, evidence)

    def add(
        self, text: str, category: str, tier: str, evidence: list[str], details: dict[str, Any]
    ) -> None:
        cited = self.usable(evidence, f"new fact {text!r}")
        if not cited:
            return
        said = self.said_on(cited)
        same = self.same_as(text)
        if same is not None:  # said again: one fact, every source, its time renewed
            store.restate(self.vault, same, cited, said, details.get("search_terms"))
            return
        if forgetting.is_forgotten(self.vault, text):  # named without its words
            self.counts.dropped.append("a new fact: you asked to forget it")
            return
        about = [{k: v for k, v in a.items() if v} for a in details.get("about") or []]
        new_id = store.add_fact(
            self.vault,
            text,
            category,
            tier,
            "learned",
            cited,
            about=about,
            valid_from=details.get("valid_from"),
            # with no life dates, a tier's time counts from the day of the words
            said=None if details.get("valid_from") or details.get("valid_to") else said,
            valid_to=details.get("valid_to"),
            search_terms=details.get("search_terms"),
        )
        entities.learn(self.vault, about)
        added = store.get_fact(self.vault, new_id)
        if added is not None:
            self.known.append(added)
        self.counts.added += 1
        self.counts.changes.append(f"+ {text}")
        self.counts.added_texts.append(text)

    def change(
        self, change: FactUpdate | FactRemoval, target: store.FactView, evidence: list[str]
    ) -> None:
        why = {"reason": change.reason, "evidence": evidence, "run": self.run_id}
        if isinstance(change, FactRemoval):
            store.close_fact(self.vault, target.id, why)
            self.counts.removed += 1
            self.counts.changes.append(f"- {target.text}")
            return
        new_id = store.edit_fact(self.vault, target.id, change.text, "learned", why, evidence)
        if change.about or change.valid_from or change.valid_to or change.search_terms:
            fact = store.get_fact(self.vault, new_id)
            if fact is not None:
                store.set_details(
                    self.vault,
                    fact,
                    about=[a.model_dump(exclude_none=True) for a in change.about or []],
                    valid_from=change.valid_from,
                    valid_to=change.valid_to,
                    search_terms=change.search_terms,
                )
        self.counts.updated += 1
        self.counts.changes.append(f"~ {target.text} -> {change.text}")
