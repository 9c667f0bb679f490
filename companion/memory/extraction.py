"""Daily extraction: on unlock (and from cron or the panel), distil what is not memorized yet
into a DailyMemory, facts, session summaries and follow-ups, with one model call per chunk.

Each chunk is saved in one transaction or not at all; a failed run is recorded with its
reason and the next unlock tries again. Every call is in the ledger, failed ones included.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import Any

from companion import clock
from companion.errors import CompanionError
from companion.llm import Gateway, Request, prompts
from companion.memory import gather, runs, summaries
from companion.memory.apply import apply_chunk
from companion.memory.revise import Counts
from companion.memory.schema import TOOL, Answer
from companion.memory.validation import InvalidOutput, Output, validate
from companion.vault import Vault, settings

MAX_TOKENS = 4096
Progress = Callable[[str], None]
Unsaid = Callable[[str], bool]
"""Words that must not become memory (``usecases.remembering`` passes the crisis detector):
a fact, follow-up or pattern it is true of, from words it is true of too, is not kept."""


@dataclass
class Result:
    ran: bool
    counts: Counts
    error: str = ""
    calls: int = 0

    @property
    def line(self) -> str:
        if self.error:
            return f"Memory update failed: {self.error.rstrip('.')}."
        return self.counts.line() if self.ran else "Nothing new to remember."


def needs_run(vault: Vault) -> bool:
    """The unlock rule: no DailyMemory yet, or the newest is from before today; and after
    failures, not before the next try is due (see ``next_try``)."""
    newest = summaries.newest_daily_memory(vault)
    due = newest is None or newest.info.date < clock.today().isoformat()
    waiting = next_try()
    return due and (waiting is None or waiting <= clock.now())


BACKOFF_FIRST = timedelta(minutes=15)
BACKOFF_MOST = timedelta(hours=24)


def next_try() -> datetime | None:
    """After failures in a row, when the unlock rule may try again: 15 minutes after the
    first, doubling with each, at most a day. None when the last update did not fail.
    "Learn now" does not wait."""
    failures, last = runs.failures_in_a_row()
    if not failures or last is None:
        return None
    wait: timedelta = min(BACKOFF_FIRST * 2 ** (failures - 1), BACKOFF_MOST)
    return last + wait


def input_budget(vault: Vault) -> int:
    return int(settings.get(vault, "extraction_input_budget", gather.DEFAULT_INPUT_BUDGET))


def system_prompt() -> str:
    return prompts.load("extraction.md")


def _content(document: dict[str, Any]) -> str:
    return "<data>\n" + gather.escaped(document) + "\n</data>"


def request(system: str, document: dict[str, Any]) -> Request:
    """The one extraction call: the tool must be called, its input is the answer."""
    return Request(system, [{"role": "user", "content": _content(document)}], MAX_TOKENS, TOOL)


async def _validated(
    gateway: Gateway, system: str, document: dict[str, Any], result: Result
) -> Output:
    """Call, check, and ask once more on an answer with no usable structure (items that do
    not match are dropped one by one, not retried); the gateway puts every call in the
    ledger, failed and invalid ones included."""
    problem = ""
    for _attempt in range(2):
        result.calls += 1
        try:
            return await gateway.call_checked(
                "extraction", request(system, document), lambda reply: validate(reply.tool_input)
            )
        except InvalidOutput as exc:
            problem = str(exc)
    raise InvalidOutput(f"the model's answer did not have the expected form twice ({problem})")


def _words(item: gather.Item) -> str:
    """What the person wrote in an item: an entry's title and text, a message, a note."""
    data = item.data
    return "\n".join(str(data.get(k) or "") for k in ("title", "text", "note")).strip()


def _without(data: Answer, chunk: gather.Chunk, unsaid: Unsaid) -> Answer:
    """The answer less its facts, follow-ups and patterns that sound like danger where the
    words they come from do too ("Prefers to be dead" from "i'd rather be dead"): short
    third-person lines alone are misheard ("Walks to the shops"), the two together are not.
    Nothing says they were left out: that would store what the detector heard."""
    said = {item.ref: _words(item) for item in chunk.items if item.user_words}
    heard: dict[str, bool] = {}

    def kept(text: str, evidence: list[str]) -> bool:
        if not unsaid(text):
            return True
        for ref in evidence:
            if ref in said and ref not in heard:
                heard[ref] = unsaid(said[ref])
            if heard.get(ref):
                return False
        return True

    everything = list(said)
    facts = data.facts.model_copy(
        update={
            "add": [f for f in data.facts.add if kept(f.text, f.evidence)],
            "update": [f for f in data.facts.update if kept(f.text, f.evidence)],
        }
    )
    follow_ups = data.follow_ups.model_copy(
        update={"add": [f for f in data.follow_ups.add if kept(f.text, f.evidence)]}
    )
    patterns = [p for p in data.notable_patterns if kept(p, everything)]
    return data.model_copy(
        update={"facts": facts, "follow_ups": follow_ups, "notable_patterns": patterns}
    )


def _merge(daily: dict[str, Any], data: Answer, chunk: gather.Chunk) -> None:
    for key in ("conversation_summary", "journal_summary", "checkin_summary"):
        said = str(getattr(data, key)).strip()
        if said:
            daily[key] = (daily.get(key, "") + " " + said).strip()
    if data.emotional_state.strip():
        daily["emotional_state"] = data.emotional_state.strip()
    daily["follow_ups"] = [*daily.get("follow_ups", []), *(f.text for f in data.follow_ups.add)]
    patterns = daily.get("notable_patterns", [])
    daily["notable_patterns"] = patterns + [p for p in data.notable_patterns if p not in patterns]
    terms = daily.get("search_terms", [])
    daily["search_terms"] = terms + [t for t in data.search_terms if t not in terms]
    first, last = chunk.items[0].day, chunk.items[-1].day
    daily.setdefault("covering_from", first)
    daily["covering_to"] = last


def _carried_over(vault: Vault) -> dict[str, Any]:
    """The summaries of chunks a failed run already saved, so today's memory covers them."""
    latest = runs.latest_run(vault)
    if latest is None or latest.info.status == "done" or not latest.details.get("partial"):
        return {}
    daily = dict(latest.details["partial"])
    for key in ("covering_from", "covering_to"):
        if isinstance(daily.get(key), str):
            daily[key] = date.fromisoformat(daily[key])
    return daily


async def extract(
    vault: Vault,
    gateway: Gateway,
    force: bool = False,
    progress: Progress | None = None,
    unsaid: Unsaid | None = None,
) -> Result:
    """Run the rule: a no-op when today's memory exists (unless ``force``) or when nothing is
    unmemorized; otherwise one call per chunk, in order. What ``unsaid`` is true of is not
    kept as a fact, a follow-up or a pattern."""
    result = Result(False, Counts())
    if not force and not needs_run(vault):
        return result
    items = gather.unmemorized(vault)
    if not items:
        return result
    daily = _carried_over(vault)
    runs.close_interrupted_runs(vault)
    run_id = runs.start_run(vault)
    parts = gather.chunks(items, input_budget(vault))
    system = system_prompt()
    result.ran = True
    carried: dict[str, Any] = {}  # summaries of chunks already saved, for a later run
    raws: list[Any] = []  # answers that had items not used

    def note(step: str) -> None:
        runs.note_run(vault, run_id, {"progress": step, "partial": carried})

    try:
        for number, chunk in enumerate(parts, 1):
            step = f"chunk {number} of {len(parts)}" if len(parts) > 1 else "reading"
            note(step)
            if progress:
                progress(step)
            output = await _validated(gateway, system, gather.document(vault, chunk), result)
            if unsaid is not None:
                output.data = _without(output.data, chunk, unsaid)
            if output.dropped:  # named in the log; the whole answer kept, sealed, to look at
                result.counts.dropped += output.dropped
                raws.append(output.raw)
            _merge(daily, output.data, chunk)
            last = number == len(parts)
            apply_chunk(vault, chunk, output, run_id, result.counts, daily if last else None)
            if not last:  # saved; if a later chunk fails, the next run carries this on
                carried = {k: v.isoformat() if isinstance(v, date) else v for k, v in daily.items()}
                note(step)
    except (CompanionError, InvalidOutput) as err:
        result.error = str(err)
        runs.finish_run(
            vault,
            run_id,
            "failed",
            {
                "reason": result.error,
                "dropped": result.counts.dropped,
                "partial": carried,
                **({"raw": raws} if raws else {}),
            },
        )
        return result
    runs.finish_run(
        vault,
        run_id,
        "done",
        {
            "summary": result.counts.line(),
            "changes": result.counts.changes,
            "dropped": result.counts.dropped,
            "chunks": len(parts),
            "calls": result.calls,
            **({"raw": raws} if raws else {}),
        },
    )
    return result
