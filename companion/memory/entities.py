"""People the user names, with their relation to the user ("Maya: sister", "Dan: sponsor"),
so a message that says "my sister" finds what was said about Maya, and the other way round.

One place holds them: the sealed setting ``entities``. ``sync`` fills it from the profile and
the facts; an entry with ``source`` other than "derived" (the user's, or the extraction's
``about`` field) is kept as it is.
"""

from __future__ import annotations

import re
import weakref
from dataclasses import dataclass
from typing import Any

from companion.vault import Vault, settings

KEY = "entities"

# Relation words and the ones that mean the same; the first is the name we keep.
RELATIONS: dict[str, tuple[str, ...]] = {
    "sister": ("sis",),
    "brother": ("bro",),
    "mother": ("mom", "mum", "mama", "mommy", "ma"),
    "father": ("dad", "daddy", "papa", "pop"),
    "son": (),
    "daughter": (),
    "wife": (),
    "husband": (),
    "partner": (),
    "girlfriend": ("gf",),
    "boyfriend": ("bf",),
    "fiance": ("fiancee", "fiancé", "fiancée"),
    "friend": ("best friend", "buddy", "mate"),
    "sponsor": (),
    "sponsee": (),
    "boss": ("manager", "supervisor"),
    "coworker": ("colleague", "co-worker", "workmate"),
    "therapist": ("counselor", "counsellor", "psychologist"),
    "psychiatrist": (),
    "doctor": ("gp", "physician"),
    "roommate": ("flatmate", "housemate"),
    "aunt": ("auntie",),
    "uncle": (),
    "cousin": (),
    "grandmother": ("grandma", "nana", "granny", "gran"),
    "grandfather": ("grandpa", "granddad", "grandad"),
    "ex": ("ex-wife", "ex-husband", "ex-girlfriend", "ex-boyfriend", "ex-partner"),
    "niece": (),
    "nephew": (),
    "stepmother": ("stepmom",),
    "stepfather": ("stepdad",),
    "landlord": (),
    "neighbor": ("neighbour",),
}
CANONICAL = {alias: name for name, aliases in RELATIONS.items() for alias in (name, *aliases)}
_RELATION = (
    "(?i:" + "|".join(sorted((re.escape(a) for a in CANONICAL), key=len, reverse=True)) + ")"
)
_MY = r"(?i:my|our|his|her|their|the user's)"
_NAME = r"([A-Z][a-z]+(?:[-'][A-Z]?[a-z]+)?)"
NOT_NAMES = frozenset(
    "I The A An My Our His Her Their This That When Then After Before Today Yesterday She He "
    "They We It Sober Recovery Monday Tuesday Wednesday Thursday Friday Saturday Sunday God "
    "AA NA Step Cue Likes Works".split()
)
PATTERNS = [
    # "my sister Maya", "my sponsor, Dan"
    re.compile(rf"\b{_MY}\s+({_RELATION})\s*,?\s+(?:(?i:is)\s+)?{_NAME}\b"),
    # "Maya is my sister", "Maya, my sister", "Dan (my sponsor)", "Maya (sister)"
    re.compile(rf"\b{_NAME}(?:\s*[,(-]\s*|\s+(?:is|was)\s+)(?:{_MY}\s+)?({_RELATION})\b"),
    # "sister named Maya", "sister called Maya"
    re.compile(rf"\b({_RELATION})\s+(?i:named|called)\s+{_NAME}\b"),
]
PROFILE_FIELDS = {"sponsor": "sponsor", "therapist": "therapist"}


@dataclass(frozen=True)
class Entity:
    name: str
    relation: str  # canonical relation word, or "" when only the name is known
    source: str = "derived"  # derived | user | extraction

    def as_json(self) -> dict[str, str]:
        return {"name": self.name, "relation": self.relation, "source": self.source}

    def relation_words(self) -> tuple[str, ...]:
        if not self.relation:
            return ()
        return (self.relation, *RELATIONS.get(self.relation, ()))


def load(vault: Vault) -> list[Entity]:
    stored = settings.get(vault, KEY, []) or []
    out = []
    for item in stored if isinstance(stored, list) else []:
        if isinstance(item, dict) and item.get("name"):
            out.append(
                Entity(
                    str(item["name"]), str(item.get("relation") or ""), str(item.get("source", ""))
                )
            )
    return out


def replace(vault: Vault, people: list[Entity]) -> None:
    settings.put(vault, KEY, [e.as_json() for e in people])


def learn(vault: Vault, about: list[dict[str, str]]) -> int:
    """People a learned fact is about (extraction's ``about``), kept as the extraction's;
    returns how many were new."""
    current = load(vault)
    keys = {(e.name.lower(), e.relation) for e in current}
    names = {e.name.lower() for e in current if e.relation}
    added = []
    for item in about:
        name = str(item.get("name") or "").strip()
        if not name:
            continue
        if item.get("kind") != "person" or name in NOT_NAMES or name.lower() in CANONICAL:
            continue
        word = str(item.get("relation") or "").strip().lower()
        relation = CANONICAL.get(word, word)
        if (name.lower(), relation) in keys or (not relation and name.lower() in names):
            continue
        keys.add((name.lower(), relation))
        added.append(Entity(name, relation, "extraction"))
    if added:
        replace(vault, [*current, *added])
    return len(added)


def found_in(text: str) -> list[Entity]:
    """People named with a relation in one sentence of the user's or of a fact."""
    out: list[Entity] = []
    for index, pattern in enumerate(PATTERNS):
        for match in pattern.finditer(text):
            relation, name = (match[1], match[2]) if index != 1 else (match[2], match[1])
            if name in NOT_NAMES:
                continue
            out.append(Entity(name, CANONICAL.get(relation.lower(), relation.lower())))
    return out


def derive(profile: dict[str, Any], fact_texts: list[str]) -> list[Entity]:
    found: dict[tuple[str, str], Entity] = {}
    for field, relation in PROFILE_FIELDS.items():
        value = str(profile.get(field) or "").strip()
        first = re.match(_NAME, value)
        if first and first[1] not in NOT_NAMES:
            found[(first[1].lower(), relation)] = Entity(first[1], relation)
    for contact in profile.get("support_contacts") or []:
        for entity in found_in(str(contact)):
            found.setdefault((entity.name.lower(), entity.relation), entity)
    for text in fact_texts:
        for entity in found_in(text):
            found.setdefault((entity.name.lower(), entity.relation), entity)
    return sorted(found.values(), key=lambda e: (e.name.lower(), e.relation))


def sync(vault: Vault, profile: dict[str, Any], fact_texts: list[str]) -> list[Entity]:
    """Re-derive from the profile and the facts, keep what the user or the extraction gave,
    and store the result (only when it changed)."""
    current = load(vault)
    kept = [e for e in current if e.source != "derived"]
    keys = {(e.name.lower(), e.relation) for e in kept}
    merged = kept + [
        e for e in derive(profile, fact_texts) if (e.name.lower(), e.relation) not in keys
    ]
    if [e.as_json() for e in merged] != [e.as_json() for e in current]:
        settings.put(vault, KEY, [e.as_json() for e in merged])
    return merged


_KNOWN: weakref.WeakKeyDictionary[Vault, tuple[object, list[Entity]]] = weakref.WeakKeyDictionary()


def known(vault: Vault, profile: dict[str, Any], fact_texts: list[str]) -> list[Entity]:
    """The people as they are now: kept in step with the profile and the facts (stored again
    only when that changes what is known), read once per change, not per message."""
    mark = vault.changes(("fact", "profile", "setting"))
    cached = _KNOWN.get(vault)
    if cached is not None and cached[0] == mark:
        return cached[1]
    found = sync(vault, profile, fact_texts)
    setting = vault.changes(("setting",))
    if setting != mark[2:]:  # sync stored a change: that is seen
        mark = (*mark[:2], *setting)
    _KNOWN[vault] = (mark, found)
    return found


def related_words(entities: list[Entity], words: set[str]) -> set[str]:
    """What a message's words also mean: a relation word brings the names of people with that
    relation, a name brings its relation words."""
    out: set[str] = set()
    lowered = {w.lower() for w in words}
    for entity in entities:
        relation_words = set(entity.relation_words())
        if lowered & relation_words:
            out.add(entity.name.lower())
        if entity.name.lower() in lowered:
            out |= relation_words
    return out
