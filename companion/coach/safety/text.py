"""Text as the detector reads it: normalised (case, typos, texting style, slang), split into
sentences, and turned into features (words, word pairs, pieces of words, negation scope).

The training script (``scripts/train_safety.py``) and the app call the same functions, so what
the model learned is what it sees."""

from __future__ import annotations

import re
from collections import Counter
from functools import lru_cache
from itertools import pairwise

from companion.coach.safety.lexicon import combine, marks

# Whole words people type for other whole words: texting, contractions, slang, euphemisms.
WORDS: dict[str, str] = {
    "im": "i am",
    "i'm": "i am",
    "ive": "i have",
    "i've": "i have",
    "ill": "i will",
    "i'll": "i will",
    "i'd": "i would",
    "dont": "do not",
    "don't": "do not",
    "doesnt": "does not",
    "doesn't": "does not",
    "didnt": "did not",
    "didn't": "did not",
    "cant": "can not",
    "can't": "can not",
    "cannot": "can not",
    "wont": "will not",
    "won't": "will not",
    "isnt": "is not",
    "isn't": "is not",
    "wasnt": "was not",
    "wasn't": "was not",
    "arent": "are not",
    "aren't": "are not",
    "havent": "have not",
    "haven't": "have not",
    "shouldnt": "should not",
    "shouldn't": "should not",
    "wouldnt": "would not",
    "wouldn't": "would not",
    "couldnt": "could not",
    "couldn't": "could not",
    "aint": "is not",
    "ain't": "is not",
    "thats": "that is",
    "that's": "that is",
    "its": "it is",
    "it's": "it is",
    "theres": "there is",
    "there's": "there is",
    "whats": "what is",
    "what's": "what is",
    "youre": "you are",
    "you're": "you are",
    "u": "you",
    "ur": "your",
    "r": "are",
    "y": "why",
    "pls": "please",
    "plz": "please",
    "rn": "right now",
    "tn": "tonight",
    "tonite": "tonight",
    "tmrw": "tomorrow",
    "tmr": "tomorrow",
    "tomorow": "tomorrow",
    "2moro": "tomorrow",
    "b4": "before",
    "bc": "because",
    "cuz": "because",
    "w": "with",
    "w/": "with",
    "w/o": "without",
    "wo": "without",
    "idk": "i do not know",
    "idc": "i do not care",
    "idgaf": "i do not care",
    "tbh": "honestly",
    "ngl": "honestly",
    "fr": "really",
    "af": "very",
    "wanna": "want to",
    "gonna": "going to",
    "gotta": "got to",
    "kinda": "kind of",
    "outta": "out of",
    "lemme": "let me",
    "kms": "kill myself",
    "unalive": "kill",
    "unaliving": "killing",
    "od": "overdose",
    "ods": "overdoses",
    "od'd": "overdosed",
    "odd": "overdosed",
    "oded": "overdosed",
    "od'ed": "overdosed",
    "od'ing": "overdosing",
    "oding": "overdosing",
    "sh": "self harm",
    "myslef": "myself",
    "mysef": "myself",
    "sucide": "suicide",
    "suicde": "suicide",
    "suicidel": "suicidal",
    "sucidal": "suicidal",
    "suicidial": "suicidal",
    "overdoes": "overdose",
    "narcn": "narcan",
    "xans": "xanax",
    "bars": "xanax",
    "percs": "percocet",
    "fent": "fentanyl",
    # more texting spellings (round 4): contractions without the apostrophe, clause words
    # ("tho" ends a negation's scope like "though"), the "going to" family, and short forms
    "tho": "though",
    "thru": "through",
    "imma": "i am going to",
    "ima": "i am going to",
    "finna": "going to",
    "gunna": "going to",
    "tryna": "trying to",
    "shes": "she is",
    "hes": "he is",
    "theyre": "they are",
    "theyll": "they will",
    "theyd": "they would",
    "youll": "you will",
    "wouldve": "would have",
    "couldve": "could have",
    "shouldve": "should have",
    "dunno": "do not know",
    "dnt": "do not",
    "no1": "nobody",
    "noone": "nobody",
    "every1": "everyone",
    "sum1": "someone",
    "ppl": "people",
    "abt": "about",
    "bout": "about",
    "lil": "little",
    "prolly": "probably",
    "jus": "just",
    "alot": "a lot",
    "coz": "because",
    "bcuz": "because",
    "becuz": "because",
    "nite": "night",
    "2nite": "tonight",
    "rly": "really",
    "sry": "sorry",
    "bf": "boyfriend",
    "gf": "girlfriend",
    "bday": "birthday",
    "xannies": "xanax",
    "xanny": "xanax",
    "addy": "adderall",
    "oxys": "oxy",
}
# Dropped g's, as typed on a phone ("dyin", "nothin"): spelled out for these common words.
for _stem in (
    "dyin waitin goin doin nothin somethin gettin feelin thinkin tryin lookin comin takin "
    "makin sayin talkin drinkin usin cryin livin killin fightin losin bleedin shakin hurtin "
    "startin savin plannin sittin walkin runnin holdin slippin fallin freakin breathin "
    "watchin sleepin eatin workin missin sufferin drownin strugglin endin jumpin cuttin "
    "burnin throwin pukin spinnin passin buyin givin writin leavin shootin snortin"
).split():
    WORDS.setdefault(_stem, _stem + "g")

PHRASES = [
    # "word(?<!\wword)" is "\bword": a pattern that begins with its words is found as quickly
    # as text is (a literal prefix), one that begins with a boundary is tried at every letter
    (re.compile(r"sewer(?<!\wsewer) ?slide\b"), "suicide"),
    (re.compile(r"o\.d(?<!\wo\.d)\.?"), "overdose"),
    (re.compile(r"self(?<!\wself)[- ]?harm"), "self harm"),
    (re.compile(r"my self(?<!\wmy self)\b"), "myself"),
]
NEGATORS = {"not", "no", "never", "nothing", "nobody", "without", "neither", "nor"}
TOKEN = re.compile(r"[a-z0-9]+(?:'[a-z]+)?|[.!?;,:]")
SENTENCE = re.compile(r"\s(?:(?<=[.!?]\s)\s*|(?<=\n)\s*)")
"""Space after a full stop, "!" or "?", or a line break, with the space after it; beginning
with a space, not a look behind, it is found twice as fast."""
VOWEL_RUN = re.compile(r"([aeiouy])\1{2,}")
CONSONANT_RUN = re.compile(r"([^aeiouy\W\d])\1{2,}")
ASCII_CONSONANT_RUN = re.compile(r"([b-df-hj-np-tv-xz_])\1{2,}")
"""``CONSONANT_RUN`` for lower-case ASCII text, where they find the same: twice as fast."""


def normalise(text: str) -> str:
    """Lower case, one kind of apostrophe, long letter runs squeezed ("diiiie" -> "die")."""
    text = text.lower().replace("’", "'").replace("‘", "'").replace("`", "'")
    text = VOWEL_RUN.sub(r"\1", text)
    text = (ASCII_CONSONANT_RUN if text.isascii() else CONSONANT_RUN).sub(r"\1\1", text)
    for pattern, replacement in PHRASES:
        text = pattern.sub(replacement, text)
    return text


def tokens(text: str, normalised: bool = False) -> list[str]:
    """Normalised words (texting and slang spelled out) and clause punctuation."""
    typed = TOKEN.findall(text if normalised else normalise(text))
    return " ".join(map(WORDS.get, typed, typed)).split()  # each spelled out, or as typed


def sentences(text: str) -> list[str]:
    return [s.strip() for s in SENTENCE.split(text) if s.strip()]


LONG_SENTENCE = 30
"""Words beyond which a sentence is read in clauses (``clauses``)."""
CLAUSE = 8
"""The fewest words of a clause read on its own: chosen on runon_tune.jsonl with
everyday_runon_tune.jsonl (docs/safety.md, "A whole evening in one sentence")."""
CLAUSE_END = re.compile(r"(?<=[,;:])\s+|\s+-+\s+|\s+(?=(?:and|but|so|then)\b)")
WORD = re.compile(r"[a-z0-9]+")


def clauses(sentence: str) -> list[str]:
    """A long sentence cut where its clauses meet, in pieces of at least ``CLAUSE`` words.
    People type a whole evening as one sentence ("long day, boss on at me, ..., i have the
    pills saved up and tonight feels like the night, made pasta"): read whole, one clause of
    danger among twenty of a day is drowned."""
    if len(WORD.findall(sentence)) <= LONG_SENTENCE:
        return [sentence]
    pieces: list[list[str]] = []  # joined at the end: a piece can gather thousands of cuts
    words = 0
    for cut in CLAUSE_END.split(sentence):
        if pieces and words < CLAUSE:
            pieces[-1].append(cut)
        else:
            pieces.append([cut])
            words = 0
        words += len(WORD.findall(cut))
    if len(pieces) > 1 and words < CLAUSE:  # a short last piece joins the one before
        last = pieces.pop()
        pieces[-1] += last
    return [" ".join(piece) for piece in pieces]


PIECES = (3,)
"""Lengths of the letter pieces weighed. With the meaning of word pieces (``pieces.py``) beside
them, 4-letter pieces added nothing in cross-validation, with or without typos, and cost half
the time of a new word (5 had cost a third more time for nothing measurable)."""


@lru_cache(maxsize=50_000)
def word_features(word: str, negated: bool) -> tuple[str, ...]:
    """A word, the pieces of it (``PIECES`` letters long, with its edges; they carry typos
    and endings), and the word marked as negated when a negation governs it."""
    padded = f"<{word}>"
    pieces = ["c:" + padded[i : i + n] for n in PIECES for i in range(len(padded) - n + 1)]
    return ("w:" + word, *pieces, *(("n:" + word,) if negated else ()))


BREAKS = frozenset({".", "!", "?", ";", ",", ":", "but", "though", "although", "however"})
PUNCTUATION = frozenset(tok for tok in BREAKS if not tok.isalpha())
BREAK = "|"
"""Where a clause ends in ``units``' chain of words: no pair spans it."""
PAIR = "b:{}_{}".format
"""A word pair's feature name. The app names every neighbour pair of a chain so (one across
a clause break names nothing trained, so it weighs nothing); training keeps only the others."""


def units(spelled: list[str]) -> tuple[list[tuple[str, bool]], list[str]]:
    """(word, negated) for each word, and the chain of words with ``BREAK`` where a clause
    ends: a negation governs the words after it until the clause ends, and the word pairs
    (``pairs``) are the neighbours in the chain."""
    chain = [BREAK if tok in BREAKS else tok for tok in spelled]
    if NEGATORS.isdisjoint(spelled):  # most sentences: nothing is negated
        return [(tok, False) for tok in spelled if tok not in PUNCTUATION], chain
    words: list[tuple[str, bool]] = []
    negated = False
    for tok in spelled:
        if tok in BREAKS:
            negated = False
            if tok.isalpha():
                words.append((tok, False))
            continue
        words.append((tok, negated and tok not in NEGATORS))
        if tok in NEGATORS:
            negated = True
    return words, chain


def pairs(chain: list[str]) -> list[str]:
    """The word-pair features of a chain of words (``units``)."""
    return [PAIR(a, b) for a, b in pairwise(chain) if a != BREAK and b != BREAK]


def sentence_features(spelled: list[str]) -> Counter[str]:
    """The counted word-level features of one sentence's spelled-out words."""
    words, chain = units(spelled)
    found: Counter[str] = Counter(pairs(chain))
    for word, negated in words:
        found.update(word_features(word, negated))
    return found


def features(text: str) -> Counter[str]:
    """What the model weighs: the sentences' word-level features, counted, and the concepts
    found in any of them, with their pairs (``lexicon``). Training and the app both call this
    (the app from remembered sentences, ``model.window_probabilities``)."""
    found: Counter[str] = Counter()
    present: frozenset[str] = frozenset()
    for sentence in sentences(text):
        spelled = tokens(sentence)
        found.update(sentence_features(spelled))
        present |= marks(spelled)
    found.update(combine(present))
    return found
