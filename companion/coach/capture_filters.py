"""What keeps a sentence or a match from being a fact for offline capture (capture.py applies
them): other people's words, sarcasm, passing states, a taste of dying or of drink and drugs;
and the words people put before what they tell, taken off first."""

from __future__ import annotations

import re

from companion.coach.capture_rules import PATTERN_VERBS

SKIP = re.compile(
    r"\b(?!i\b|you\b)\w+ (said|says|told me|tells me|asked me)\b|\baccording to\b|"
    r"^(said|says|told me|tells me|asked me)\b|"
    r"\bi (never|always) (thought|knew|realised|realized|expected|imagined)\b|"
    r"\bi (always|never) (" + PATTERN_VERBS + r")\b|"
    r"^(if|when|maybe|sometimes|what|why|how|does|did|can|could|would|should|is|are)\b|"
    r"^do\b(?! not\b)|"
    r"\b(?:said no one|said nobody|jk|j/k|just kidding|kidding|nvm|never ?mind|no wait)\b|"
    r"^call me [\w' ]{1,20},? but\b",
    re.IGNORECASE,
)
DARK = re.compile(
    r"\b(?:dead|die|dying|death|alive|living|existence|exist|existing|kill\w*|suicid\w*|"
    r"wake up|waking up|six feet|oblivion|numb\w*|end it|overdos\w*|od|self[- ]harm|cutting|"
    r"my (?:own )?body|who i(?:'ve| have)? become|the person i|the world|anything|"
    r"anymore|(?<!i am )sober(?! app)|sobriety|recovery|drink\w*|drunk|booze|wines?|beers?|"
    r"vodka|whiske?y|liquor|bottles?|alcohol(?!-free)|high|stoned|wasted|pills?|weed|coke|cocaine|heroin|meth|crack|using|"
    r"gambl\w*|casino|betting|to use)\b",
    re.IGNORECASE,
)
"""A taste said of dying, of oneself, or of drink and drugs is not kept as a preference
("i'd rather drink than feel this", "recovery isn't for me", "wine is my go-to"): what it says
is for the daily memory to read, with care, not a "you said" taste. Looked for in what the
taste is of, up to the first comma."""
SARCASTIC = re.compile(r"\b(?:lol|haha+|lmao|rofl)\W*$", re.IGNORECASE)
"""A taste that ends laughing is as often said the other way round ("i adore being ignored
lol")."""
NOT_LASTING = re.compile(
    r"\b(?:today|tonight|tomorrow|yesterday|right now|rn|atm|at the moment|anymore|any more|yet|"
    r"this (?:morning|afternoon|evening|week|weekend)|lately|for now|again)\b",
    re.IGNORECASE,
)
"""A taste said for now ("im not into talking rn") is no lasting preference."""
TRANSIENT = re.compile(
    r"^(cold|hot|warm|late|early|dead|broken|empty|full|tired|sick|away|out|here|gone|"
    r"busy|running late|on the way|annoying me|acting up|in the shower|home|visiting|coming|"
    r"going|driving|sleeping|staying|asleep|awake|closed|cancell?ed|in the shop|in hospital|"
    r"in the hospital|at work|at school|mad|angry|upset|pissed|worried|stressed|off|over|"
    r"back|due|down|up|at|a mess|a tip|a disaster|filthy|dirty|freezing|boiling|quiet|loud|"
    r"noisy|drunk|high|wasted|hungover|pregnant|poorly|ill|unwell|furious|fuming|livid|so|"
    r"the worst|on holiday|on leave|on vacation|on my back|on strike|on at me|with|next|"
    r"in \d|losing|closing|flooding|killing|making|mud|done|over it|not|never|always|still|"
    r"a bomb site|a state|a pigsty|a zoo|chaos|"
    r"such|being|getting|having|doing)\b|"
    r"\b(today|tonight|tomorrow|yesterday|right now|rn|atm|at the moment|this (?:morning|"
    r"afternoon|evening|week|weekend)|till|until|next (?:week|month|year))\b",
    re.IGNORECASE,
)
"""Said of a person or thing for now ("my son is home sick today"), not for good."""
DOING = re.compile(
    r"(?!(?:amazing|loving|caring|understanding|interesting|charming|outgoing|easygoing|"
    r"hardworking|encouraging|demanding|controlling|exhausting|annoying|frustrating|"
    r"overbearing|amusing|inspiring|willing|boring|calling)\b)\w+ing\b",
    re.IGNORECASE,
)
SHOUTED_LIKING = re.compile(r"\b(?:LOVE|LIKE|ADORE|ENJOY)\b")
"""'i just LOVE group at 8am': said the other way round."""

LEAD_IN = re.compile(
    r"^(also|and|oh|ok|okay|so|btw|by the way|just so you know|fyi|for the record|anyway|"
    r"anyways|well|hey|yeah|yes|lol|haha|um|umm|actually|oh yeah|oh and|honestly|ngl|tbh|"
    r"new rule|one more thing|quick thing|heads up|but|in general|going forward|from now on|"
    r"for your records?|for your notes|for your info|for your information|just fyi|"
    r"random(?: but| thought| one)?|if it'?s all the same to you|if you don'?t mind|"
    r"in future|in the future|one thing),?:?\s+",
    re.IGNORECASE,
)
"""Words people put before what they tell, often two or three ("oh and btw my sponsor is
Dana"): each is taken off in turn."""

TRAIL_OFF = re.compile(
    r"(?:,?\s+(?:btw|by the way|fyi|for the record|just so you know|for your info|tbh|ngl|"
    r"to be honest|honestly|for real|fr|:-?\)|:d))+[\s.!]*$",
    re.IGNORECASE,
)
"""The same words said after what one tells ("my sponsor is Dana btw"), taken off the end;
not "lol" or "haha", which can mean it was said in jest (``SARCASTIC``)."""

SUBORDINATE = re.compile(
    r"^(?:because|cause|cos|since|although|though|unless|while|until|before|after|once|as)\b",
    re.IGNORECASE,
)
"""A clause that binds the one after it ("because of work, i prefer mornings")."""
