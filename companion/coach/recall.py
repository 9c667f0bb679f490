"""Recall on every message: the facts, memories and the user's own words that this message is
about, from the retrieval index, with absolute dates (so the coach never guesses what
"Wednesday" meant).

A person is found by name or by relation ("my sister" finds Maya); a date in the message is a
filter and never a word that must match; a question about the past gets a larger share of the
budget (context.py). Off-the-record chats and the current session never come back here.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from companion import clock
from companion.activity import chat, profile
from companion.memory import entities, store, summaries
from companion.retrieval import dates, lexicon
from companion.retrieval.cover import Scored
from companion.retrieval.order import Allowed
from companion.retrieval.rank import Doc, Index
from companion.vault import Vault, words

RECALL = re.compile(
    r"\b(do you remember|remember when|remember what|what did (we|i)|what have (we|i)|"
    r"did (we|i) (talk|discuss|chat|say|write|mention)|last time (we|i)|"
    r"(talk|talked|discuss|discussed|chat|chatted) about|when did i|what was i|"
    r"have i (ever )?(said|mentioned|written|told))\b",
    re.IGNORECASE,
)
# Words of asking about the past or how things stand, not about a topic.
ASKING = frozenset(
    words.stem(w)
    for w in "remember recall talk talked talking discuss discussed chat chatted say said "
    "saying write wrote written mention mentioned tell told ever last time thing things "
    "anything something know think remind happen happened happening going go new lately "
    "recently still everyone everything doing up okay ok "
    # the frame of a question, whatever it is about ("the name of", "at the moment")
    "name names moment currently nowadays anymore yet already soon right news latest update "
    "updates status situation story deal stuff kind sort whole exactly much many lot bit "
    "actually basically anybody anyone somebody someone nobody everybody".split()
)
LIGHT = frozenset(
    words.stem(w)
    for w in "want wanted need needed see saw seen look looked pick picked take took make made "
    "give gave put come came keep kept try tried bring brought find found ask asked let wish "
    "wished".split()
)
"""Words that rank but name no topic: a question is answered only when its best match holds a
word that does. "The tattoo I wanted" is not answered with "Rosa wants to go to the lake"."""
KIND_LABELS = {
    "daily": "daily memory",
    "summary": "session",
    "journal": "journal",
    "checkin": "check-in note",
    "chat": "you said in chat",
    "fact": "fact",
}
NAME_WEIGHT = 1.5
WEAK = 0.3
"""Below this share of a question's weight, the best match is taken as no match: "did I
mention a cousin called Bartholomew?" that only matches "called" was never answered."""
RELATED_WEIGHT = 0.5
EXPAND_UP_TO = 12

HISTORY_KINDS = ("journal", "checkin", "chat", "daily", "summary")
ALIKE = 0.6
"""Two lines whose other words overlap this much (of the shorter's) say the same thing."""
YIELD = 0.5  # a line holding less than this share of what the other kind's next holds waits
SNIPPET = 200
SENTENCE = re.compile(r"(?<=[.!?;])\s+")


@dataclass(frozen=True)
class Memory:
    day: date
    kind: str
    text: str
    fact_id: int | None = None

    def line(self) -> str:
        if self.kind == "fact":
            return f"Fact: {self.text}"
        return f"[{self.day.isoformat()}] {self.kind}: {self.text}"


@dataclass
class Found:
    memories: list[Memory] = field(default_factory=list)
    asked: bool = False  # the message named a topic or a time to look for
    recall: bool = False  # a question about the past: it gets a larger share
    when: dates.When | None = None


def is_recall_question(text: str) -> bool:
    return bool(RECALL.search(text))


def weights_for(
    message: str, when: dates.When | None, people: list[entities.Entity]
) -> tuple[dict[str, float], list[dict[str, float]]]:
    """The terms to rank by: the message's own (the words that said the date left out), the
    people its relation words or names point at, and words that mean the same. Also, for each
    of the message's words, the terms that say it and the credit each earns (its concept):
    "landlord" is half said by "rent", "my sister" wholly by "Maya"."""
    said = message
    for phrase in when.phrases if when else ():
        said = re.sub(re.escape(phrase), " ", said, flags=re.IGNORECASE)
    weights: dict[str, float] = {}
    concepts: dict[str, dict[str, float]] = {}
    said_words = [
        w
        for w in words.words(said)
        if w not in words.STOP and words.stem(w) not in ASKING and (len(w) > 1 or w.isdigit())
    ]
    # A short question needs the other ways of saying its words; a long message says
    # enough on its own (and each word more is another list to read).
    expand = len(set(said_words)) <= EXPAND_UP_TO
    for word in said_words:
        term = words.stem(word)
        weights[term] = 1.0
        concept = concepts.setdefault(term, {term: 1.0})
        for other in lexicon.related(term) if expand else ():
            weights.setdefault(other, RELATED_WEIGHT)
            concept.setdefault(other, RELATED_WEIGHT)
        for name in entities.related_words(people, {word}):
            for name_term in words.terms(name):
                concept[name_term] = 1.0
    if when is not None and when.weekday is not None:  # "on Mondays": a day written about
        weights.setdefault(words.stem(dates.WEEKDAYS[when.weekday]), RELATED_WEIGHT)
    for name in entities.related_words(people, set(words.words(message))):
        for term in words.terms(name):
            weights[term] = max(weights.get(term, 0.0), NAME_WEIGHT)
    return weights, list(concepts.values())


def relevant(
    vault: Vault,
    message: str,
    today: date,
    current_session: int | None = None,
    facts: list[store.FactView] | None = None,
    prof: dict[str, Any] | None = None,
    limit: int = 8,
) -> Found:
    """What this message is about, best first (within a date span when it names one)."""
    when = dates.parse(message, today)
    live = {f.id: f for f in (facts if facts is not None else store.live_facts(vault))}
    # A replaced fact's words still find the fact that replaced it ("still on nights at the
    # warehouse?" finds "works days at the print shop"), never the old words.
    now_is = {old: new for old, new in store.replacements(vault).items() if new in live}
    prof = profile.load(vault) if prof is None else prof
    people = entities.known(vault, prof, [f.text for f in live.values()])
    weights, concepts = weights_for(message, when, people)
    found = Found(asked=bool(weights) or when is not None, recall=is_recall_question(message))
    found.when = when
    if not found.asked:
        return found
    hidden = set(chat.off_record_ids(vault))  # off the record, and this very conversation
    if current_session is not None:
        hidden.add(current_session)
    unsaid = chat.message_ids_in(hidden)
    fresh = summaries.fresh_summary_ids() - summaries.summary_ids_of(hidden)

    # Replies are never recalled (the coach's own words); a summary only while fresh.
    only = {"fact": live.keys() | now_is.keys(), "summary": fresh, "reply": ()}
    allowed = Allowed(only, {"chat": unsaid})
    history = Allowed(only, {"chat": unsaid}, when)  # facts hold at any date
    index = Index(vault)

    dated = (
        [] if when is None else index.in_span(history, HISTORY_KINDS, limit, when.first, when.last)
    )
    ranked: list[Doc] = []
    if not weights:  # "what did we talk about on Wednesday?": that day, newest first
        ranked = dated
    else:
        # Facts and history ranked apart, so many similar facts cannot crowd out the day it
        # happened, then taken in turn. A date with nothing written then was a manner of
        # speaking ("craving tonight"): history is ranked at any date.
        facts_ranked = index.relevant(
            weights, allowed, limit, today, ("fact",), concepts, LIGHT, distinct=True
        )
        keep_history = history if when is None or dated else allowed
        history_ranked = index.relevant(
            weights, keep_history, limit, today, HISTORY_KINDS, concepts, LIGHT, distinct=True
        )
        topical = [s for s in facts_ranked + history_ranked if s.topical]
        best = max(topical, key=lambda s: s.coverage, default=None)
        asking = found.recall or "?" in message
        if best is not None and (best.coverage >= WEAK or not asking):
            # Each in the order ranking gave (what holds more of the question first, the
            # user's own words before words that only mean the same); what happened then
            # before what is known when they asked about a time.
            if when is not None and dated:
                ranked = _mixed([], history_ranked, True) + _mixed(facts_ranked, [], False)
            else:
                ranked = _mixed(facts_ranked, history_ranked, found.recall or when is not None)
        elif dated and not history_ranked:  # that day, though none of its words matched
            ranked = dated
    told: set[int] = set()
    for doc in _varied(ranked, weights.keys()):
        if len(found.memories) >= limit:
            break
        if doc.kind == "fact":
            fact = live[now_is.get(doc.ref, doc.ref)]
            if fact.id not in told:
                told.add(fact.id)
                day = fact.created_at.astimezone().date()
                found.memories.append(Memory(day, "fact", fact.text, fact.id))
        else:
            text = _snippet(doc.text, weights)
            found.memories.append(Memory(doc.day, KIND_LABELS[doc.kind], text))
    return found


def _content(text: str, asked: Collection[str]) -> set[str]:
    """The terms of ``text`` other than those asked for: what a line says besides the match."""
    return {t for t in words.terms(text) if t not in asked}


def _varied(ranked: list[Doc], asked: Collection[str]) -> list[Doc]:
    """``ranked`` with each line that mostly repeats one before it (the same words but those
    asked for: "Rosa and I had dinner, talked about the car" after "... about my health")
    moved to the end, so on a small budget the lines shown say different things."""
    kept: list[Doc] = []
    later: list[Doc] = []
    said: list[set[str]] = []
    for doc in ranked:
        own = _content(doc.text, asked)
        if own and any(len(own & other) >= ALIKE * min(len(own), len(other)) for other in said):
            later.append(doc)
            continue
        kept.append(doc)
        if own:
            said.append(own)
    return kept + later


def _snippet(text: str, weights: dict[str, float], limit: int = SNIPPET) -> str:
    """A long entry cut to the sentences that hold most of what was asked (the head when
    none holds more than another), in their order: on a small budget a line is cut short,
    and its start is often not the part that matched."""
    flat = " ".join(text.split())
    if len(flat) <= limit:
        return flat
    sentences = SENTENCE.split(flat)
    held = [sum(weights.get(t, 0.0) for t in set(words.terms(s))) for s in sentences]
    if len(set(held)) < 2:
        return flat[:limit]
    chosen: set[int] = set()
    size = 0
    for at in sorted(range(len(sentences)), key=lambda i: -held[i]):
        if held[at] <= 0 or (chosen and size + len(sentences[at]) + 3 > limit):
            break
        chosen.add(at)
        size += len(sentences[at]) + 3
    parts = [("… " if at and at - 1 not in chosen else "") + sentences[at] for at in sorted(chosen)]
    return " ".join(parts)[:limit]


def warm(vault: Vault, prof: dict[str, Any], facts: list[store.FactView]) -> None:
    """Read what recall caches until it changes (the people, the off-the-record sessions,
    the lexicon), and compile the date patterns (a message naming no date tries them all;
    ``re`` keeps them), so the first message after unlock does not wait for them."""
    entities.known(vault, prof, [f.text for f in facts])
    chat.off_record_ids(vault)
    lexicon.table()
    dates.parse("", clock.today())


def _mixed(facts: list[Scored], history: list[Scored], history_first: bool) -> list[Doc]:
    """Facts and history (entries, chats, notes, memories) in turn, each in its own order, so
    many similar facts cannot crowd out the day it happened; but a line holding less than
    half of what the other kind's next line holds of the question gives up its turn ("did
    Luis sell the Honda?": "Luis found a buyer" before a fact that only says "car"). The same
    words once."""
    queues = [list(history), list(facts)] if history_first else [list(facts), list(history)]
    out: list[Doc] = []
    seen: set[str] = set()
    turn = 0
    while queues[0] or queues[1]:
        mine, other = queues[turn], queues[1 - turn]
        if not mine or (other and mine[0].coverage < YIELD * other[0].coverage):
            mine, other = other, mine
        else:
            turn = 1 - turn
        found = mine.pop(0)
        key = " ".join(found.doc.text.lower().split())
        if key not in seen:
            seen.add(key)
            out.append(found.doc)
    return out


def recall(
    vault: Vault, question: str, limit: int = 8, current_session: int | None = None
) -> list[Memory]:
    """Dated memories that match ``question`` (the CLI's and the tests' way in)."""
    return relevant(vault, question, clock.today(), current_session, limit=limit).memories
