"""The word tables ``likeness`` reads a fact with: what denies, what is kept, irregular
verbs, UK/US spelling, words that mean the same, numbers, months, dates and phrases said in
other words. Data only; the rule that uses them is in ``likeness.py``."""

from __future__ import annotations

import re

# Words that deny the word after them. "quit" and "stop" flip, so "hasn't quit" is "does".
NEGATORS = frozenset("not no never without nobody nothing none neither nor".split())
FLIPPERS = frozenset("quit quits quitting stop stops stopped stopping".split())
# Kept although words.STOP drops them: they change what a fact says ("drinks after work" is
# not "drinks before work", "is off work" is not "is at work", "should quit" is not "quit").
KEPT = frozenset(
    """
    with from against after before until during off out over under above below between more
    most few only again once down should would must will might
    """.split()
)
# Words that make order matter: the same words in another order say another thing.
ORDER = frozenset(
    "than prefer prefers preferred rather instead over from before after until versus vs".split()
)
# Said or not, the fact is the same: time-now words, "called", "feels".
FILLER = frozenset(
    """
    currently now still also just actually presently called named name feel feels felt
    feeling can could every
    """.split()
)
SUBJECTS = frozenset("he she they i we user person client".split())
SELF = frozenset("him me them myself himself herself themselves themself".split())
# Verbs whose past the stemmer does not know.
IRREGULAR = {
    "went": "go",
    "gone": "go",
    "goes": "go",
    "drank": "drink",
    "slept": "sleep",
    "ate": "eat",
    "eaten": "eat",
    "took": "take",
    "taken": "take",
    "gave": "give",
    "given": "give",
    "saw": "see",
    "seen": "see",
    "paid": "pay",
    "lent": "lend",
    "lost": "lose",
    "met": "meet",
    "bought": "buy",
    "sold": "sell",
    "grew": "grow",
    "grown": "grow",
    "woke": "wake",
    "began": "begin",
    "begun": "begin",
    "died": "die",
    "wrote": "write",
    "written": "write",
}
# UK and US spellings of one word.
SPELLING = {
    "favorite": "favourite",
    "license": "licence",
    "color": "colour",
    "neighbor": "neighbour",
    "behavior": "behaviour",
    "center": "centre",
    "theater": "theatre",
    "program": "programme",
    "counselor": "counsellor",
    "counseling": "counselling",
    "mom": "mum",
    "practise": "practice",
}
# Everyday and clinical words for one thing, which neither the lexicon nor the relations
# table holds as the same (the lexicon groups are for finding, and too wide for merging).
SAME = [
    "like likes enjoy enjoys",
    "afraid scared frightened fearful",
    "anxious anxiety",
    "lonely loneliness lonesome",
    "drink drinking drunk alcohol booze liquor",
    "smoke smoking cigarette cigarettes cigs fags",
    "therapist therapy counselling",
    "go attend visit see",
    "holiday vacation",
    "pound pounds quid",
    "dollar dollars bucks",
    "sertraline zoloft",
    "fluoxetine prozac",
    "escitalopram lexapro cipralex",
    "bupropion wellbutrin",
    "disulfiram antabuse",
    "buprenorphine subutex",
    "diazepam valium",
    "alprazolam xanax",
    "lorazepam ativan",
    "paracetamol acetaminophen tylenol",
]
# Lexicon groups that are synonyms outright, picked by one member so an added word follows.
LEXICON_GROUPS = ("mum", "dad", "kid", "sober", "relapse", "craving", "surgery", "buddy", "dog")
LEXICON_LEAVE_OUT = frozenset({"mama"})
RELATIONS_LEAVE_OUT = frozenset({"ex", "pop"})  # ex-wife is not ex-husband; pop is a drink

UNITS = {
    w: i
    for i, w in enumerate(
        "zero one two three four five six seven eight nine ten eleven twelve thirteen "
        "fourteen fifteen sixteen seventeen eighteen nineteen".split()
    )
}
TENS = {
    w: 10 * i
    for i, w in enumerate("_ _ twenty thirty forty fifty sixty seventy eighty ninety".split())
}
ORDINALS = {
    w: f"{i}{'st' if i == 1 else 'nd' if i == 2 else 'rd' if i == 3 else 'th'}"
    for i, w in enumerate(
        "_ first second third fourth fifth sixth seventh eighth ninth tenth eleventh "
        "twelfth".split()
    )
    if w != "_"
}
MEASURES = frozenset("am pm mg mcg ml kg km k".split())
CLOCK = re.compile(r"\d+(?::\d\d)?")
MONTHS = {
    name: i
    for i, names in enumerate(
        (
            "january jan",
            "february feb",
            "march mar",
            "april apr",
            "may",
            "june jun",
            "july jul",
            "august aug",
            "september sep sept",
            "october oct",
            "november nov",
            "december dec",
        ),
        start=1,
    )
    for name in names.split()
}
MONTH_WORD = "(" + "|".join(sorted(MONTHS, key=len, reverse=True)) + r")\.?"
DAY_NUMBER = r"(\d{1,2})(?:st|nd|rd|th)?"
DATES = [  # (pattern, (year, month, day) groups), full dates first
    (re.compile(r"\b(\d{4})-(\d{1,2})-(\d{1,2})\b"), (1, 2, 3)),
    (re.compile(rf"\b{DAY_NUMBER}\s+(?:of\s+)?{MONTH_WORD},?\s+(\d{{4}})\b", re.I), (3, 2, 1)),
    (re.compile(rf"\b{MONTH_WORD}\s+{DAY_NUMBER},?\s+(\d{{4}})\b", re.I), (3, 1, 2)),
    (re.compile(rf"\b{MONTH_WORD},?\s+(\d{{4}})\b", re.I), (2, 1, 0)),
    (re.compile(rf"\b{DAY_NUMBER}\s+(?:of\s+)?{MONTH_WORD}(?!\w)", re.I), (0, 2, 1)),
    (re.compile(rf"\b{MONTH_WORD}\s+{DAY_NUMBER}\b(?!:)", re.I), (0, 1, 2)),
]
# Phrases said in other words, rewritten before the words are read.
PHRASES = [
    (r"\bcan'?t\b", "can not"),
    (r"\bcannot\b", "can not"),
    (r"\bwon'?t\b", "will not"),
    (r"n't\b", " not"),
    (r"'(re|ve|ll|d|m)\b", ""),
    (r"\b([ap])\.m\.?", r"\1m"),
    (r"\b(no longer|not any ?more)\b", "not"),
    (r"\bany ?more\b", ""),
    (r"\b(gave|give|gives|giving|given) up\b", "quit"),
    (r"\b(passed away|passed on)\b", "died"),
    (r"\b(teetotal|tee-total|teetotaller)\b", "not drink"),
    (r"\bdislik(e|es|ed|ing)\b", "not like"),
    (r"\b(is|are|a) (big )?fans? of\b", "likes"),
    (r"\bcut(s|ting)? back\b", "cut down"),
    (r"\b(years?|yrs?) old\b", ""),
    (r"\b(works?|working|worked) as\b", "is"),
    (r"\b(every|each|once a|one day a|per) week\b", "weekly"),
    (r"\b(every|each|once a|per) day\b", "daily"),
    (r"\b(every|each|once a|per) month\b", "monthly"),
    (r"\b(sleeplessness|sleepless|insomniac|insomnia)\b", "not sleep"),
    (
        r"\b(has |have |had |having )?(trouble|difficulty|difficulties|problems?|struggles?"
        r"|struggling|struggled)( with| to)? (getting to |get to )?(sleep|sleeping|not sleep)\b",
        "not sleep",
    ),
    (r"\b(unable to|not able to) sleep\b", "not sleep"),
]
PHRASE_RULES = [(re.compile(p, re.I), r) for p, r in PHRASES]
MONEY = re.compile(r"([£$€])\s?(\d[\d,]*(?:\.\d+)?)(k?)\b", re.I)
CURRENCY = {"£": "pound", "$": "dollar", "€": "euro"}
TOKEN = re.compile(
    r"--\d{2}-\d{2}|\d{4}-\d{2}(?:-\d{2})?|\d{1,2}/\d{1,2}/\d{2,4}|\d+(?:[.:]\d+)*[a-z]*"
    r"|[^\W\d_]+(?:'s)?",
    re.I,
)
