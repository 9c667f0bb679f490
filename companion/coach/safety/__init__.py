"""Danger in what people write, detected locally (no network, no model call), in chat,
journal entries and check-in notes, whatever the wording.

A small trained model (``model.py``) reads normalised text (``text.py``) with a lexicon of
what is at stake (``lexicon.py``), a sentence or two at a time. What it finds is never stored:
it decides which help to show now, and what the coach is asked to do. docs/safety.md says how
it was built, what shaped it and how well it does.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import NamedTuple

from companion.coach.safety import model, reader
from companion.coach.safety.denial import without_denials
from companion.coach.safety.pasted import verdicts as verdicts_of_pasted
from companion.coach.safety.text import clauses, normalise, sentences, word_features

__all__ = [
    "CATEGORIES",
    "CRISIS",
    "EMERGENCY",
    "Danger",
    "assess",
    "detect",
    "forget",
    "new_sentences",
    "warm",
]

EMERGENCY, CRISIS = "emergency", "crisis"

CATEGORIES: dict[str, tuple[str, str]] = {
    # category: (kind of help, why the help appeared: one calm sentence)
    "passive_ideation": (CRISIS, "What you wrote sounds like you may not want to be alive."),
    "active_ideation": (CRISIS, "What you wrote sounds like thoughts of ending your life."),
    "plan_or_means": (CRISIS, "What you wrote sounds like a plan to end your life."),
    "preparation": (CRISIS, "What you wrote sounds like you may be getting ready to die."),
    "self_harm": (CRISIS, "What you wrote sounds like you may hurt yourself."),
    "overdose_intended": (CRISIS, "What you wrote sounds like you may take too much on purpose."),
    "overdose_taken": (EMERGENCY, "What you wrote sounds like too much may have been taken."),
    "medical_emergency": (EMERGENCY, "What you wrote sounds like a medical emergency, now."),
}

INSTRUCTIONS = {
    CRISIS: (
        "IMPORTANT: The person's latest words may express thoughts of suicide, self-harm or "
        "taking too much on purpose. Respond with warmth and care, take it seriously, ask "
        "directly whether they are safe right now, and point them to the crisis resources "
        "they can reach immediately: {lines}. Do not lecture, do not diagnose, and stay with "
        "them in the conversation."
    ),
    EMERGENCY: (
        "IMPORTANT: The person's latest words may describe a medical emergency happening now "
        "(an overdose taken, a seizure, someone who will not wake up or cannot breathe). "
        "Respond with warmth and care, and first urge them to call the emergency number now "
        "and stay on the line (poison control can advise too): {lines}. Keep it short and "
        "clear, ask whether someone is with them, and stay in the conversation."
    ),
}

WINDOW = 2
"""Sentences read together: enough to hear "last year ... today I'm glad", little enough that
one sentence of danger in a long entry is not drowned."""


@dataclass(frozen=True)
class Danger:
    category: str
    help: str
    """EMERGENCY (emergency number and poison control first) or CRISIS (crisis line first)."""
    reason: str

    @property
    def instruction(self) -> str:
        return INSTRUCTIONS[self.help]


LONG_TEXT_THRESHOLD = 0.5
"""The danger probability a window of a longer text needs (a short text needs the trained
threshold, lower: recall first)."""
LONG = 200
"""Sentences beyond which only those near a word that leans to danger are read closely (a
megabyte pasted in must not hold the screen for seconds)."""


CLAUSE_CUT = 0.75
"""The danger, averaged over both models, a window of clauses needs (``_verdicts``): chosen
with ``text.CLAUSE`` on runon_tune.jsonl and everyday_runon_tune.jsonl alone."""
CLAUSE_READ = 2
"""Windows of clauses read again, those the linear model leans furthest to danger first (on
the tuning sets, the third and fourth changed no verdict and cost a third of the time)."""
CLAUSE_FLOOR = 0.3
"""The linear model's danger below which a window of clauses is not read again."""


class Reading(NamedTuple):
    """How a text is read: its windows, whether it is long enough to be read only near words
    that lean to danger (``pasted``), which windows hold clauses of a long sentence cut up
    (``text.clauses``), and its whole sentences, each of which may be read alone too."""

    windows: list[list[str]]
    pasted: bool
    clausal: list[bool]
    sentences: list[str]


def _windows(text: str) -> Reading:
    """Windows of normalised sentences (``model.window_probabilities`` reads them as such)."""
    # A danger denied in so many words ("im not suicidal, just tired") is not read (denial.py).
    kept = (without_denials(part) for part in sentences(normalise(text)))
    whole = parts = [part for part in kept if model.RUN.search(part)]
    pasted = len(parts) > LONG
    cut = [[part] for part in parts]
    if not pasted and reader.available():  # clauses are told apart by the reader alone
        cut = [clauses(part) for part in parts]
        parts = [clause for pieces in cut for clause in pieces]
    is_clause = [len(pieces) > 1 for pieces in cut for _ in pieces]
    if not parts:
        return Reading([], False, [], whole)
    if len(parts) <= WINDOW + 1:
        return Reading([parts], False, [any(is_clause)], whole)
    starts: list[int] | range = range(len(parts) - WINDOW + 1)
    if len(parts) > LONG:  # a megabyte with commas and no full stop: thousands of clauses
        marked = [i for i, part in enumerate(parts) if model.alarmed(part)]
        near = {i - k for i in marked for k in range(WINDOW)}
        starts = sorted(i for i in near if 0 <= i <= len(parts) - WINDOW)
    windows = [parts[i : i + WINDOW] for i in starts]
    clausal = [any(is_clause[i : i + WINDOW]) for i in starts]
    return Reading(windows, pasted, clausal, whole)


def _few_plain_words(window: list[str]) -> bool:
    """Whether a window is a few words, none of them a word of danger in the lexicon (a
    concept: a method, dying, too much taken...): "stable", "hope so", not "bought a rope"."""
    if any(m.startswith("k:") for s in window for m in model.sentence_parts(s)[1]):
        return False
    return sum(len(model.RUN.findall(s)) for s in window) <= reader.FEW_WORDS


def _verdicts(windows: list[list[str]], pasted: bool, clausal: list[bool]) -> list[str]:
    """Each window's category or "none". The reader of word order joins the linear model on
    the windows the linear model is unsure of; a pasted text (past ``LONG`` sentences) is read
    by the linear model alone, or its thousands of windows would hold the screen. Windows of
    clauses (``clausal``) have their own rule, ``_clause_verdicts``; the others of the same
    text keep this one."""
    # Many windows give many chances of a false alarm: a long text needs more certainty.
    several = len(windows) > 1
    if pasted or not reader.available():
        threshold = LONG_TEXT_THRESHOLD if several else None
        if pasted and reader.numpy_found():  # every window at once: a third of the time
            with _uncollected():
                return verdicts_of_pasted(windows, threshold)
        return [model.window_verdict(window, threshold) for window in windows]
    if several and any(clausal):
        verdicts = [model.NONE] * len(windows)
        for flag, rule in ((True, _clause_verdicts), (False, _plain_verdicts)):
            mine = [i for i, c in enumerate(clausal) if c == flag]
            for i, verdict in zip(mine, rule([windows[i] for i in mine]), strict=True):
                verdicts[i] = verdict
        return verdicts
    return _plain_verdicts(windows, several)


_PAUSES = threading.Lock()
_paused = [0, False]
"""Readings under way that paused the collector, and whether one of them paused it."""


@contextmanager
def _uncollected() -> Iterator[None]:
    """The cyclic garbage collector paused: reading a pasted megabyte makes millions of small
    objects and no cycle, and the collector's passes over everything the app holds were a
    tenth of the reading. The pause is the process's (the collector has no other), so it lasts
    from the first of several readings in threads to the end of the last, and a collector
    someone else had switched off stays off."""
    with _PAUSES:
        if _paused[0] == 0:
            _paused[1] = gc.isenabled()
            gc.disable()
        _paused[0] += 1
    try:
        yield
    finally:
        with _PAUSES:
            _paused[0] -= 1
            if _paused[0] == 0 and _paused[1]:
                gc.enable()


def _plain_verdicts(windows: list[list[str]], several: bool = True) -> list[str]:
    """``_verdicts`` for windows of whole sentences, the reader available."""
    if not windows:
        return []
    cut = reader.LONG_TEXT_THRESHOLD if several else reader.THRESHOLD
    probs = [model.window_probabilities(window) for window in windows]
    danger = [1.0 - p[model.NONE] for p in probs]
    unsure = [i for i, d in enumerate(danger) if reader.worth_reading(d, several)]
    agree = not several and danger[0] >= reader.FLOOR and _few_plain_words(windows[0])
    if agree:
        unsure = [0]
    # The time a text takes stays bounded: the windows nearest the line are read again, and
    # every other window is decided as the linear model decides it alone, at its own line.
    chosen = sorted(unsure, key=lambda i: abs(danger[i] - cut))[: reader.AT_MOST]
    texts = [" ".join(windows[i]) for i in chosen]
    read = dict(zip(chosen, reader.probabilities(texts), strict=True))
    alone = LONG_TEXT_THRESHOLD if several else None
    verdicts = []
    for i, p in enumerate(probs):
        if agree and 1.0 - read[i][model.NONE] < reader.AGREE:
            verdicts.append(model.NONE)
        elif i in read:
            verdicts.append(_averaged(p, read[i], cut))
        else:
            verdicts.append(model.verdict(p, alone))
    return verdicts


def _averaged(linear: dict[str, float], read: dict[str, float], line: float) -> str:
    """The verdict of the two models' probabilities averaged, at ``line``."""
    return model.verdict({c: (v + read[c]) / 2 for c, v in linear.items()}, line)


def _clause_verdicts(windows: list[list[str]]) -> list[str]:
    """The same for windows of clauses. Alone, the linear model is sure of a clause for no
    reason ("the maple out front dumps everything in them every october" read 0.99): the
    windows it leans furthest to danger are read again, and only those alarm."""
    probs = [model.window_probabilities(window) for window in windows]
    danger = [1.0 - p[model.NONE] for p in probs]
    leaning = [i for i, d in enumerate(danger) if d >= CLAUSE_FLOOR]
    chosen = sorted(leaning, key=lambda i: -danger[i])[:CLAUSE_READ]
    read = dict(
        zip(chosen, reader.probabilities([" ".join(windows[i]) for i in chosen]), strict=True)
    )
    return [
        _averaged(p, read[i], CLAUSE_CUT) if i in read else model.NONE for i, p in enumerate(probs)
    ]


ALONE_CUT = 0.8
"""The danger, averaged over both models, a sentence read alone needs (``_alone``): chosen on
messages_tune.jsonl and composites of dev.jsonl (docs/safety.md, "A short sentence of danger
beside an ordinary one")."""
ALONE_FLOOR = 0.5
"""The linear model's danger below which no sentence is read alone by the reader."""
ALONE_WORDS = 3
"""The fewest words of a sentence read alone."""


def _alone(parts: list[str]) -> str:
    """The category of the sentence of a message the linear model leans furthest to danger,
    read alone by both models, or "none". In a window, a short sentence of danger is drowned
    by its ordinary neighbour: "thought about ending it again" reads 0.88 and 0.96 alone,
    0.29 and 0.16 after "skipped meds."."""
    if len(parts) < 2 or len(parts) > LONG or not reader.available():
        return model.NONE
    worded = [p for p in parts if len(model.RUN.findall(p)) >= ALONE_WORDS]
    probs = {p: model.window_probabilities([p]) for p in worded if not _few_plain_words([p])}
    if not probs:
        return model.NONE
    sentence = max(probs, key=lambda p: 1.0 - probs[p][model.NONE])
    linear = probs[sentence]
    if 1.0 - linear[model.NONE] < ALONE_FLOOR:
        return model.NONE
    (read,) = reader.probabilities([sentence])
    return _averaged(linear, read, ALONE_CUT)


def assess(text: str) -> Danger | None:
    """The most urgent danger in ``text`` (an emergency before a crisis), or ``None``."""
    reading = _windows(text)
    verdicts = _verdicts(reading.windows, reading.pasted, reading.clausal)
    found = [c for c in verdicts if c != model.NONE]
    if not found:
        found = [c for c in [_alone(reading.sentences)] if c != model.NONE]
    if not found:
        return None
    urgent = [c for c in found if CATEGORIES[c][0] == EMERGENCY]
    category = (urgent or found)[0]
    help_kind, reason = CATEGORIES[category]
    return Danger(category, help_kind, reason)


def new_sentences(before: str, after: str) -> str:
    """The sentences of ``after`` that ``before`` did not have: the same words saved again
    do not raise the alarm again."""
    known = set(sentences(before))
    return "\n".join(s for s in sentences(after) if s not in known)


WARM_UP = "i went to the store and bought bread. then i walked home."
"""Read once by ``warm``: harmless, but the linear model is unsure of it, so the reader reads it
too."""


def warm() -> None:
    """Load the weights, compile every pattern of the lexicon and read one text ahead of the
    first real one: the app does it in its warm-up thread, so its first message pays for none
    of it (a first reading took twice as long as the next, numpy's and the patterns' first
    calls among it); a command reads one text and compiles only the patterns that text could
    match."""
    from companion.coach.safety import lexicon

    model.weights()
    lexicon.patterns()
    if reader.available():  # numpy and the reader: the first unsure text pays for neither
        reader.reader()
    assess(WARM_UP)


def forget() -> None:
    """Drop every cache keyed by what the person wrote (sentences, words, their pieces): the
    app calls it at lock, so none of it stays in the detector's memory."""
    model.sentence_parts.cache_clear()
    model._word.cache_clear()
    model._pair.cache_clear()  # which word pairs were written
    model._concepts.cache_clear()  # which concepts were found together
    word_features.cache_clear()
    reader._pieces.cache_clear()


def detect(text: str) -> bool:
    """True when ``text`` sounds like danger of any kind."""
    return assess(text) is not None
