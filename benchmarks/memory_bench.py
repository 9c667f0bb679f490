"""Memory benchmark: does the coach's memory section carry what a question needs?

    python -m benchmarks.memory_bench [--facts N] [--seed S]

A seeded generator writes three years of history into a fresh vault: journal entries, chats
and check-in notes in varied everyday language, facts (with superseded versions worded like
the current ones), the same people and topics again and again as distractors, and gold
evidence planted at known dates. Then it asks questions in the LongMemEval categories
(single-session, multi-session, temporal, knowledge update, abstention) plus alias, multi-hop
and paraphrase, and builds the section for each at 600 and 200 tokens. It prints per category:
hit rate (every gold marker is in the section), then cue retention (the relapse cue and the
due follow-up in every section), superseded or expired facts wrongly included, abstention
correctness, and the section's build time (p50/p95). docs/benchmarks.md says how each is
computed.
"""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
import time
from collections import defaultdict
from datetime import date, datetime, timedelta
from pathlib import Path
from typing import Any

from benchmarks.memory_sets import TEST, TEST2, TUNED, TUNED_LATER, Question
from companion import clock
from companion.activity import chat, checkins, journal, profile
from companion.coach import context
from companion.llm.tokens import CLAUDE_BUDGET, LOCAL_BUDGET
from companion.memory import followups, store, summaries
from companion.paths import VaultPaths
from companion.vault import Vault
from companion.vault.models import Fact

PASSPHRASE = "memory benchmark passphrase"
TODAY = datetime(2026, 11, 26, 20, 0)  # a Thursday

PEOPLE = [("Maya", "sister"), ("Dan", "sponsor"), ("Luis", "brother"), ("Rosa", "mom"),
          ("Eli", "coworker"), ("Priya", "therapist"), ("Tom", "dad")]  # fmt: skip
TOPICS = ["sleep", "money", "work", "the gym", "meetings", "cravings", "cooking", "the dog",
          "the car", "church", "court", "my health", "the apartment", "school"]  # fmt: skip
OPENERS = ["Honestly", "Ok so", "Long day.", "Not sure why but", "Quick note:", "Ugh.",
           "Feeling better tonight.", "Rough morning.", "Small win:", ""]  # fmt: skip
FILLER = [
    "{who} called about {topic} and we went round in circles again",
    "thinking about {topic} way too much, {who} says to let it go",
    "went to a meeting, talked a bit about {topic}",
    "{who} and I had dinner, mostly talked about {topic}",
    "didn't do much, some {topic} stuff, texted {who}",
    "a bit of a craving around five, walked it off, {topic} on my mind",
    "{who} is worried about {topic}; I said I'm handling it",
    "slept badly, {topic} again, coffee helped",
]


def _line(rng: random.Random) -> str:
    who, _ = rng.choice(PEOPLE)
    body = rng.choice(FILLER).format(who=who, topic=rng.choice(TOPICS))
    return f"{rng.choice(OPENERS)} {body}.".strip()


# The search terms the extraction model is asked to write (prompts/extraction.md), as a model
# would write them for the planted items, from the items alone (not from the questions).
TERMS = {
    "sleep": ["insomnia", "can't sleep", "sleepless night", "racing thoughts", "tired"],
    "sertraline": ["antidepressant", "SSRI", "medication", "meds", "Zoloft"],
    "lent": ["loan", "debt", "owe", "money", "borrowed"],
    "surgery": ["operation", "knee", "injury", "hospital"],
    "print shop": ["job", "work", "employment", "shift"],
    "Kroger": ["job", "work", "nights"],
    "car payment": ["car", "loan", "payment", "refinance", "money", "bills"],
    "Biscuit": ["dog", "pet", "vet", "hip", "painkillers"],
}


def build_history(
    vault: Vault, rng: random.Random, fact_count: int, terms: bool = False
) -> list[Question]:
    """Write the history; return the questions with their gold markers. ``terms``: the planted
    facts and the sleepless night's daily memory carry the search terms extraction writes."""

    def also(key: str) -> dict[str, list[str]]:
        return {"search_terms": TERMS[key]} if terms else {}

    today = TODAY.date()
    start = today - timedelta(days=3 * 365)
    profile.update(vault, {"preferred_name": "Jo", "recovery_start_date": "2026-08-01",
                           "sponsor": "Dan"})  # fmt: skip
    questions: list[Question] = []

    def at(day: date, hour: int = 20) -> datetime:
        return datetime(day.year, day.month, day.day, hour, rng.randint(0, 59)).astimezone()

    # Who is who, as the memory update writes it from what the user says.
    for who, relation in PEOPLE:
        store.add_fact(vault, f"{who} is my {relation}", "people", "semantic", "said", [])
    # Distractor history: an entry most days, a chat a week, notes on check-ins.
    with vault.transaction():
        day = start
        while day < today - timedelta(days=1):
            if rng.random() < 0.6:
                journal.add(vault, " ".join(_line(rng) for _ in range(rng.randint(1, 4))),
                            when=at(day))  # fmt: skip
            day += timedelta(days=1)
        for _ in range(fact_count):
            who, relation = rng.choice(PEOPLE)
            topic = rng.choice(TOPICS)
            store.add_fact(vault, f"Mentioned {topic} when talking about {who}", "misc",
                           "semantic", "learned", [])  # fmt: skip

    def session_on(day: date, lines: list[str]) -> None:
        clock.set_clock(lambda: at(day, 21))
        sid = chat.start(vault).id
        for text in lines:
            chat.add_message(vault, sid, "user", text)
            chat.add_message(vault, sid, "assistant", "I hear you. Tell me more.")
        chat.end(vault, sid)
        clock.set_clock(lambda: TODAY.astimezone())

    for back in range(7, 3 * 365, 9):  # distractor sessions
        session_on(today - timedelta(days=back), [_line(rng) for _ in range(3)])

    # Gold, planted at known dates, with near-miss distractors around it.
    gold_day = today - timedelta(days=(today.weekday() - 2) % 7 or 7)  # last Wednesday
    session_on(gold_day, ["Dentist on Friday, Dr. Okafor wants to pull the molar",
                          "Maya is coming with me to the dentist"])  # fmt: skip
    session_on(gold_day - timedelta(days=7), ["Maya called about the dentist bill"])
    questions.append(Question("single-session", "What did I tell you about the dentist?",
                              ["Dr. Okafor"], []))  # fmt: skip
    questions.append(Question("temporal", "What did we talk about on Wednesday?",
                              ["Dr. Okafor"], []))  # fmt: skip

    session_on(today - timedelta(days=40), ["Luis is selling his blue Honda to pay rent"])
    session_on(today - timedelta(days=12), ["Luis found a buyer, a guy from his gym"])
    questions.append(Question("multi-session", "What's going on with my brother's car?",
                              ["blue Honda", "found a buyer"], []))  # fmt: skip

    last_month = (today.replace(day=1) - timedelta(days=1)).replace(day=14)
    journal.add(vault, "Went to the lake with Rosa, first time swimming in years",
                when=at(last_month))  # fmt: skip
    journal.add(vault, "Rosa wants to go to the lake again, I said maybe",
                when=at(last_month - timedelta(days=40)))  # fmt: skip
    questions.append(Question("temporal", "What did I do with my mom last month?",
                              ["first time swimming"], []))  # fmt: skip

    old = store.add_fact(vault, "Works the night shift at the Kroger warehouse", "work",
                         **also("Kroger"))  # type: ignore[arg-type]  # fmt: skip
    new = store.edit_fact(vault, old, "Works the day shift at the Northside print shop")
    if terms:
        store.set_details(vault, store.get_fact(vault, new), search_terms=TERMS["print shop"])  # type: ignore[arg-type]
    expired = store.add_fact(vault, "This week is focused on the Walton court hearing",
                             "events", "episodic")  # fmt: skip
    vault.update_where(Fact, Fact.id == expired,
                       expires_at=clock.stamp(TODAY.astimezone() - timedelta(days=2)))  # fmt: skip
    questions.append(Question("knowledge update", "Where am I working these days?",
                              ["Northside print shop"], ["Kroger", "Walton"]))  # fmt: skip

    store.add_fact(vault, "Maya lent Jo 400 dollars in the spring", "people",
                   **also("lent"))  # type: ignore[arg-type]  # fmt: skip
    questions.append(Question("alias", "My sister keeps bringing up the spring, I hate owing her",
                              ["400 dollars"], []))  # fmt: skip
    store.add_fact(vault, "Dan's wife Carla had knee surgery in October", "people",
                   **also("surgery"))  # type: ignore[arg-type]  # fmt: skip
    questions.append(Question("multi-hop", "How is my sponsor's wife doing?",
                              ["knee surgery"], []))  # fmt: skip

    journal.add(vault, "Lay awake until four again, couldn't switch my head off",
                when=at(today - timedelta(days=3)))  # fmt: skip
    if terms:  # the next morning's daily memory, as extraction writes it
        night = today - timedelta(days=3)
        summaries.add_daily_memory(vault, night + timedelta(days=1), night, night, {
            "journal_summary": "Lay awake until four again, couldn't switch their head off.",
            "search_terms": TERMS["sleep"]})  # fmt: skip
    questions.append(Question("paraphrase", "Has my insomnia come up lately?",
                              ["Lay awake until four"], []))  # fmt: skip

    session_on(
        today - timedelta(days=20),
        ["Mr. Pruitt says the rent goes up 150 in January, no idea how I'll cover it"],
    )
    questions.append(Question("single-session", "What did the landlord say about the rent?",
                              ["Pruitt"], []))  # fmt: skip
    store.add_fact(vault, "Takes sertraline 50 mg every morning", "health",
                   **also("sertraline"))  # type: ignore[arg-type]  # fmt: skip
    questions.append(Question("single-session", "What medication am I on?", ["sertraline"], []))
    journal.add(vault, "Got my 60 day chip tonight at the Tuesday meeting, Dan hugged me after",
                when=at(today - timedelta(days=65)))  # fmt: skip
    questions.append(Question("temporal", "When did I get my 60 day chip?", ["Dan hugged me"],
                              []))  # fmt: skip

    questions.append(Question("abstention", "What did I tell you about my trip to Lisbon?",
                              [], [], abstain=True))  # fmt: skip
    questions.append(Question("abstention", "Did I ever mention a cousin called Bartholomew?",
                              [], [], abstain=True))  # fmt: skip

    _plant_later(vault, at, also)

    # The cues every section must keep.
    checkins.record(vault, today - timedelta(days=1), mood=3, sober=False, note="used after work")
    followups.add(vault, "Call Dan about the Saturday meeting", due=today)
    return questions


def _plant_later(vault: Vault, at: Any, also: Any) -> None:
    """Gold added on 2026-11-24 with the held-out set TEST2, written after the other gold so
    the history before it (and the figures of the older sets) stays the same."""
    today = TODAY.date()
    old = store.add_fact(vault, "Car payment is 310 dollars a month", "other",
                         **also("car payment"))  # fmt: skip
    new = store.edit_fact(vault, old, "Car payment dropped to 265 dollars a month after "
                          "refinancing with the credit union")  # fmt: skip
    if also("car payment"):
        store.set_details(vault, store.get_fact(vault, new), **also("car payment"))  # type: ignore[arg-type]
    store.add_fact(vault, "Biscuit, the dog, has a bad back hip; the vet put him on pain pills",
                   "other", **also("Biscuit"))  # fmt: skip
    journal.add(vault, "Eli swapped shifts with me so I could make it to Rosa's birthday "
                "dinner. She cried a little when I walked in.",
                when=at(today - timedelta(days=50)))  # fmt: skip
    journal.add(vault, "Signed up for the welding class at the community college. First "
                "session is January 12, kind of nervous.",
                when=at(today - timedelta(days=33)))  # fmt: skip


CUES = ["relapse on", "Call Dan about the Saturday meeting"]

SETS = {"tuning": "tuning set", "test": "test set (tuned on since 2026-11-24)",
        "test2": "held-out set TEST2"}  # fmt: skip


def run(fact_count: int, seed: int, terms: bool = False, only: list[str] | None = None) -> None:
    rng = random.Random(seed)
    with tempfile.TemporaryDirectory() as tmp:
        paths = VaultPaths(Path(tmp) / "vault")
        vault, _ = Vault.create(paths, PASSPHRASE, 64)
        clock.set_clock(lambda: TODAY.astimezone())
        try:
            started = time.perf_counter()
            questions = build_history(vault, rng, fact_count, terms)
            built_s = time.perf_counter() - started
            context.build(vault, "hello")  # a warm-up: the first build reads the index from disk
            print(f"Memory benchmark: {fact_count} facts, seed {seed}, search terms "
                  f"{'on' if terms else 'off'}, history written in "
                  f"{built_s:.1f} s, {len(questions)} questions")  # fmt: skip
            asked_by = {"tuning": questions + TUNED + TUNED_LATER, "test": TEST,
                        "test2": TEST2}  # fmt: skip
            for key in only or list(SETS):
                name, asked = SETS[key], asked_by[key]
                for budget in (CLAUDE_BUDGET, LOCAL_BUDGET):
                    report(vault, asked, budget, name)
        finally:
            vault.close()
            clock.set_clock(None)


def report(vault: Vault, questions: list[Question], budget: int, name: str) -> None:
    hits: dict[str, list[bool]] = defaultdict(list)
    cue_kept, wrong, abstained, times = [], 0, [], []
    for q in questions:
        started = time.perf_counter()
        text = context.build(vault, q.text, budget).text
        times.append((time.perf_counter() - started) * 1000)
        if q.abstain:
            abstained.append(context.NOTHING_FOUND in text)
        else:
            hits[q.category].append(all(g in text for g in q.gold))
            abstained.append(context.NOTHING_FOUND not in text)
        cue_kept.append(all(c in text for c in CUES))
        wrong += sum(1 for f in q.forbidden if f in text)
    print(f"\n{name}, {budget} tokens")
    scored = [h for cat, hs in hits.items() if cat != "paraphrase" for h in hs]
    for category, results in sorted(hits.items()):
        print(f"  hit rate, {category:<18} {sum(results)}/{len(results)}")
    print(f"  hit rate, all but paraphrase  {sum(scored) / len(scored):.2f}")
    print(f"  cue retention                 {sum(cue_kept) / len(cue_kept):.2f}")
    print(f"  superseded/expired included   {wrong}")
    print(f"  abstention correct            {sum(abstained) / len(abstained):.2f}")
    times.sort()
    p95 = times[min(len(times) - 1, int(len(times) * 0.95))]
    print(f"  build p50 / p95               {statistics.median(times):.1f} / {p95:.1f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--facts", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--search-terms",
        action="store_true",
        help="the planted items carry the search terms extraction writes (paraphrase: after)",
    )
    parser.add_argument(
        "--sets",
        default="tuning,test,test2",
        help="comma-separated sets to ask: tuning, test, test2 (held out: run it rarely)",
    )
    args = parser.parse_args()
    run(args.facts, args.seed, args.search_terms, args.sets.split(","))


if __name__ == "__main__":
    main()
