"""Words as retrieval sees them: lower case, stemmed (Snowball, so "cravings" finds
"craving"), function words dropped, short words kept (dad, mom, job, AA, NA)."""

from __future__ import annotations

import re
import threading

import snowballstemmer

# Function words only: every word that could name a person, a feeling or a thing stays.
STOP = frozenset(
    """
    a about above after again against all am an and any are as at be because been before being
    below between both but by can could did do does doing down during each few for from further
    had has have having he her here hers herself him himself his how i if in into is it its
    itself just me more most my myself no nor not now of off on once only or other our ours
    ourselves out over own same she should so some such than that the their theirs them
    themselves then there these they this those through to too under until up very was we were
    what when where which while who whom why will with would you your yours yourself
    yourselves im ive id ill youre dont didnt doesnt isnt wasnt cant couldnt wont wouldnt
    shouldnt arent werent hasnt havent hadnt thats theres whats lets also got get gets really
    """.split()
)

_stemmer = snowballstemmer.stemmer("english")
_STEMMING = threading.Lock()
_STEMS: dict[str, str] = {}
WORD = re.compile(r"[^\W_]+")
TAG = re.compile(r"(?<![\w#&/])#(?=[\w-]{0,63}[^\W\d_])([\w-]{1,64})")
"""A #tag written in the text, as the journal gives an entry its tags: a letter in it
("#90days" is one; "entry #3" and "#2024" are numbers), and not "&#39;" or a link's "/#top"."""
POSSESSIVE = re.compile(r"['’]s\b")


def stem(word: str) -> str:
    found = _STEMS.get(word)
    if found is None:
        with _STEMMING:  # the Snowball stemmer keeps state: one word at a time
            found = _STEMS[word] = str(_stemmer.stemWord(word))
    return found


def words(text: str) -> list[str]:
    """The words of ``text``, lower case, with "'s" and apostrophes folded away."""
    folded = POSSESSIVE.sub("", text.lower()).replace("'", "").replace("’", "")
    return WORD.findall(folded)


def terms(text: str) -> list[str]:
    """Index terms of ``text``, in order (duplicates kept, for term frequency). The hot loop
    of building the index: one regex pass and a dictionary of stems."""
    stems, stop = _STEMS, STOP
    return [
        stems.get(w) or stem(w)
        for w in words(text)
        if w not in stop and (len(w) > 1 or w.isdigit())
    ]


def query_terms(text: str) -> list[str]:
    """The terms of a question, each once, in order."""
    return list(dict.fromkeys(terms(text)))


def tags(text: str) -> list[str]:
    """The #tags of ``text`` as index terms ("#sleep"), lower case, each once."""
    return list(dict.fromkeys("#" + t.lower() for t in TAG.findall(text)))
