"""The words offline capture listens for (capture.py applies them): what a durable fact or
preference sounds like in chat, and what only looks like one (idioms, passing states, other
people's words, a like said the other way round)."""

from __future__ import annotations

import re

DURABLE_NOUNS = (
    "name|nickname|pronouns|sponsor|sponsee|therapist|counsellor|counselor|doctor|psychiatrist|"
    "wife|husband|partner|spouse|boyfriend|girlfriend|fiance|fiancee|ex|ex-wife|ex-husband|"
    "sister|brother|siblings|twin|mom|mum|mother|dad|father|parents|stepmom|stepmum|stepdad|"
    "son|daughter|kids|children|baby|stepson|stepdaughter|grandma|grandpa|grandmother|"
    "grandfather|nan|nana|gran|granny|grandson|granddaughter|grandkids|grandchildren|aunt|"
    "auntie|uncle|cousin|niece|nephew|roommate|flatmate|housemate|neighbour|neighbor|boss|"
    "manager|supervisor|coworker|co-worker|colleague|case ?worker|social worker|"
    "probation officer|parole officer|pastor|priest|imam|rabbi|dog|cat|pet|rabbit|horse|"
    "home group|go-?to meeting|go to meeting|birthday|job|major|school|college|uni|university|"
    "hometown|home town|gym|church|parish|safe person|support person|emergency contact|"
    "higher power|gp|dentist|nurse|physio|psychologist|key ?worker|support worker|facilitator|"
    "mentor|trade|profession|career|line of work|religion|faith|allotment|roster|house|flat|"
    "apartment|car|truck|ute|van|bike|team|club|hobby|hobbies|"
    "best friend|best mate|bestie|bff|fellowship|drug of choice|favourite [a-z]+|favorite [a-z]+"
)
KIN = (
    r"(?:(?:little|big|older|younger|oldest|youngest|eldest|baby|twin|new|late|old|ex|step|"
    r"best|first|smart|aa|na|ca|ga|home|key|support|case) )?"
)
"""Words before a noun that keep it the same person ("my little brother is Mateo")."""
WHERE = r"(?: (?:at|from|in|on|for) [\w'.&-]+(?: [\w'.&-]+){0,3}?)?"
"""A short place after it ("my counsellor at the outpatient program is Luis")."""
PATTERN_VERBS = (  # "never use the word addict" is a request all the same
    r"relapse|drink|use(?! (?:the|that) (?:word|term|phrase)| words| emojis?| jargon)|using|"
    r"crave|slip|fail|mess up|screw up|forget|get|feel|end up|"
    r"want|think|thought|knew|realised|realized|expected|imagined"
)
IDIOMS = (
    r"know|worry|care|get me wrong|think|mind|mention (?:it|the war)|judge me|be silly|feel|"
    r"sweat|even|really|need|want|have|bother|blame|understand|fuss|"
    r"ask\b(?! (?:me )?(?:about|how|if|why|what|to)\b)|"
    r"get me started|hold your breath|knock it|count on|bet on|quote me|jinx|panic|freak out|"
    r"rush|tell anyone|laugh|hate me"
)
NOT_AN_ASK = (  # "never mind", "always the same", "always figured", "never say never"
    r"mind|again|ever|the|a|an|once|enough|been|have|has|will|would|am|is|are|something|"
    r"someone|somebody|so|say never|"
    r"in a million years|look on the bright side|"
    r"(?:(?:kinda|kind of|sort of|just|secretly|really) )?"
    r"(?:figured|suspected|assumed|believed|wondered|wanted|loved|hated|had|was|were|did|said|"
    r"felt|dreamed|dreamt|pictured|guessed|saw|seemed|liked|made|got|went|found|kept|"
    r"[a-z]+[^e\W]ed)"
)
NOT_A_NAME = r"crazy|old[- ]fashioned|back|later|when|whenever|if|after|before|tomorrow|tonight|by"
NAME = (
    r"(?P<a>[a-z][\w'-]*(?: [a-z][\w'-]*)?)"
    r"(?: pls| please| btw| thanks| now| lol| if you (?:would|could|can|don't mind))?(?:[,;:] .*)?"
)
"""A name of a word or two, then maybe a word of manners and another clause."""
PLEASE = r"(?:please |pls |plz |kindly )?"
NOT_ME = (  # what one hates that is no taste: "i hate myself" is not a preference
    r"to|myself|me|my life|my self|life|living|being alive|being me|everything|everyone|"
    r"everybody|this|that|it|you|him|her|them|when|how|what|the way|waking up|who i am"
)
NOT_THING = (
    r"it|this|that|he|she|they|there|what|which|who|today|tonight|everything|nothing|anything|"
    r"any|all|life|living|being|existing|you|me|myself"
)
"""What a taste is not said of: "that is my favourite part" names nothing."""
FILLER = r"(?: honestly| tbh| lol| haha| ngl| to be honest| for real| fr| tho| though)?"
ASIDE = (
    r"(?:[,;] (?:i|i'm|im|i've|ive|it|its|it's|that|thats|that's|they|she|he|we|never|always|"
    r"works|worked|the|this)\b.*)?"
)
"""A clause said after a reminder or a habit, not part of it ("..., it works most times")."""
NOT_DYING = r"die|be dead|not be|not wake|not exist|not live|disappear|sleep forever|be gone|end"
""""I'd rather ..." that is no preference (the crisis detector hears it)."""

RULES: list[tuple[str, str, str]] = [
    # (pattern, category, template) - templates get the captured groups, in the third person
    (
        rf"^(?:you can |u can |just |{PLEASE})*call me (?!(?:{NOT_A_NAME})\b){NAME}$",
        "identity",
        "Wants to be called {a}",
    ),
    (rf"^{PLEASE}address me as {NAME}$", "identity", "Wants to be called {a}"),
    (
        rf"^{PLEASE}call me by my (?:middle|first|last|second|real|full|given) name,? "
        r"(?P<a>(?-i:[A-Z])[\w'-]*)(?:[,;:] .*)?$",
        "identity",
        "Wants to be called {a}",
    ),
    (
        rf"^(?:i'd|id|i would) (?:like|love|prefer) (?:it )?(?:for )?you to call me "
        rf"(?!(?:{NOT_A_NAME})\b){NAME}$",
        "identity",
        "Wants to be called {a}",
    ),
    # "i go by bus" is no name: only a capitalised one
    (
        r"^i go by (?P<a>(?-i:[A-Z])[\w'-]*)(?: now| these days| btw)?(?:[,;:] .*)?$",
        "identity",
        "Wants to be called {a}",
    ),
    (
        # "'s" is a verb ("my dog's Biscuit") unless a noun and a verb follow ("my sponsor's
        # number is..."); "my sister's name is Ana" names the sister.
        rf"^my (?P<a>{KIN}(?:{DURABLE_NOUNS})"
        rf"(?:'s (?:{DURABLE_NOUNS})|s (?:name|nickname))?{WHERE})"
        r"(?: (?P<v>is|are)|'s(?!(?: [\w-]+){0,3} (?:is|are|was)\b)) (?P<b>.+)$",
        "relationships",
        "Their {a} {v} {b}",
    ),
    (
        rf"^my (?P<a>late (?:{DURABLE_NOUNS})) (?P<v>was|is) (?P<b>.+)$",
        "relationships",
        "Their {a} {v} {b}",
    ),
    (
        r"^(?:i |i'd |id |i would )?(?:really |strongly |much |quite |definitely |generally |"
        r"usually |do )?prefer (?P<a>.+)$",
        "preferences",
        "Prefers {a}",
    ),
    (r"^my preference is (?P<a>.+)$", "preferences", "Prefers {a}"),
    (
        # "night time is my preferred time to journal", "fishing is my happy place"
        rf"^(?!(?:{NOT_THING})\b)(?P<b>[\w' -]{{2,40}}?) (?:is|are) my (?:absolute |all[- ]time )?"
        r"(?P<a>(?:favourite|favorite|preferred) [\w' ]+?|happy place|go-?to(?: [\w']+)?)"
        rf"{FILLER}(?:[,;:] .*)?$",
        "preferences",
        "Their {a} is {b}",
    ),
    (
        r"^(?P<a>[\w' -]{2,30}?) is the (?:term|word|name|label|phrase) (?:i'd|id|i would|i) "
        r"(?:rather|prefer)(?: you)? use\b.*$",
        "preferences",
        "Prefers the word {a}",
    ),
    (
        r"^(?:i'd|id|i would) (?:much |really )?rather (?P<coach>you .+)$",
        "preferences",
        "Would rather {coach}",
    ),
    (
        rf"^(?:i'd|id|i would) (?:much |really )?rather (?!(?:{NOT_DYING})\b)(?P<a>.+)$",
        "preferences",
        "Would rather {a}",
    ),
    (
        r"^i (?:really )?(?:like|love|appreciate) it when (?P<coach>you(?:'re|'ve)? .+)$",
        "preferences",
        "Likes it when {coach}",
    ),
    (
        r"^i (?:really )?(?:(?:don't|dont|do not) like|hate|can't stand|cant stand) it when "
        r"(?P<coach>you(?:'re|'ve)? .+)$",
        "preferences",
        "Does not like it when {coach}",
    ),
    (
        r"^i (?:really )?(?:hate|can't stand|cant stand) when (?P<coach>you(?:'re|'ve)? .+)$",
        "preferences",
        "Does not like it when {coach}",
    ),
    (
        r"^i (?:really )?(?:don't|dont|do not) (?:like|enjoy) (?P<a>.+?)" + FILLER + ASIDE + "$",
        "preferences",
        "Does not like {a}",
    ),
    (
        # "hate mornings": said without the "i" too
        rf"^(?:i )?(?:really |truly |absolutely |honestly )?(?:hate|dislike|can't stand|"
        rf"cant stand|cannot stand|loathe|detest|despise) (?!(?:{NOT_ME})\b)(?P<a>.+?)"
        rf"{FILLER}{ASIDE}$",
        "preferences",
        "Does not like {a}",
    ),
    (
        r"^(?:i'm |im |i am )?not (?:a |much of a |really a |a big |a huge )fan of (?P<a>.+?)"
        + FILLER
        + ASIDE
        + "$",
        "preferences",
        "Does not like {a}",
    ),
    (
        r"^(?:i'm|im|i am) (?:just |really |honestly )?not (?:really |that |very |much |big |"
        r"massively )?into (?P<a>(?!it\b|this\b|that\b|you\b|him\b|her\b|them\b).+?)"
        + FILLER
        + ASIDE
        + "$",
        "preferences",
        "Does not like {a}",
    ),
    (
        r"^i (?:really |quite |absolutely |genuinely |do |still |just )?(?:like|love|enjoy) "
        r"(?P<a>(?!it\b|this\b|that\b|you\b).+)$",
        "preferences",
        "Likes {a}",
    ),
    (
        # "X does nothing for me": a taste, said of the thing
        rf"^(?!(?:{NOT_THING})\b)(?P<a>[\w' -]{{2,40}}?) (?:does nothing for me|(?:just )?"
        r"(?:isn't|isnt|is not|aren't|arent|are not) (?:really )?(?:for me|my thing|my cup of tea))"
        rf"{FILLER}(?:[,;:] .*)?$",
        "preferences",
        "Does not like {a}",
    ),
    (  # "i just adore ..." is as often said the other way round: not read
        r"^i (?:really |absolutely |genuinely |honestly )?adore "
        r"(?P<a>(?!it\b|this\b|that\b|you\b).+)$",
        "preferences",
        "Likes {a}",
    ),
    (
        r"^(?:(?:i'm|im|i am) )?(?:really |super |so |a )?(?:big |huge )?(?:into|obsessed with|"
        r"fan of) (?P<a>(?!it\b|this\b|that\b|you\b|him\b|her\b|them\b).+)$",
        "preferences",
        "Likes {a}",
    ),
    (
        rf"^{PLEASE}(?:i (?:need|want) you to |(?:i'd|id|i would) like you to )?(?:remind me|"
        r"set (?:a|me a) reminder(?: for me)?|send me a reminder|give me a nudge|nudge me|"
        rf"ping me)(?P<t> [^,.]{{1,30}}?)? to (?P<a>.+?){FILLER}{ASIDE}$",
        "reminders",
        "Asked to be reminded{t} to {a}",
    ),
    (
        r"^(?:i )?(?:always )?use (?P<a>.+?) for (?P<b>.+?)" + ASIDE + "$",
        "preferences",
        "Uses {a} for {b}",
    ),
    (
        r"^i (?:always )?use (?P<a>.+?) to (?P<b>.+?)" + ASIDE + "$",
        "preferences",
        "Uses {a} to {b}",
    ),
    (
        r"^i (?:rely on|swear by|depend on) (?!(?:you|u|him|her|them|it|this|that)\b)"
        r"(?P<a>.+?) (?P<w>to|for) (?P<b>.+?)" + ASIDE + "$",
        "preferences",
        "Uses {a} {w} {b}",
    ),
    (
        r"^i (?:track|log|keep track of) (?P<b>[\w' ]+?) (?:with|on|in|using) (?P<a>.+?)"
        + ASIDE
        + "$",
        "preferences",
        "Uses {a} to track {b}",
    ),
    (
        r"^for (?!(?:now|today|tonight|once|real|sure|ages|years|months|weeks|what|the|a|an|"
        r"example|instance|starters|me|you|him|her|them|some|one|two)\b)"
        r"(?P<b>[\w' ]{3,30}?),? i (?:use|do|go to|turn to|reach for|put on|listen to) "
        r"(?P<a>.+?)" + ASIDE + "$",
        "preferences",
        "Uses {a} for {b}",
    ),
    (
        r"^(?P<a>[\w' -]{2,40}?) is what i (?:use|put on|listen to|turn to|reach for) "
        r"(?P<w>for|to) (?P<b>.+?)" + ASIDE + "$",
        "preferences",
        "Uses {a} {w} {b}",
    ),
    (
        rf"^(?:please|pls|plz|kindly|you (?:must|should|need to|have to)) (?P<w>always|never) "
        rf"(?!(?:{NOT_AN_ASK})\b)(?P<a>.+)$",
        "preferences",
        "Wants the coach to {w} {a}",
    ),
    (
        rf"^(?P<w>always|never) (?!(?:{PATTERN_VERBS}|{NOT_AN_ASK})\b)(?P<a>.+)$",
        "preferences",
        "Wants the coach to {w} {a}",
    ),
    (
        rf"^{PLEASE}(?:don't|dont|do not) (?!(?:{IDIOMS})\b)(?P<a>.+)$",
        "preferences",
        "Wants the coach not to {a}",
    ),
]
COMPILED = [(re.compile(p, re.IGNORECASE), c, t) for p, c, t in RULES]
SKIP = re.compile(
    r"\b(?!i\b|you\b)\w+ (said|says|told me|tells me|asked me)\b|\baccording to\b|"
    r"^(said|says|told me|tells me|asked me)\b|"
    r"\bi (never|always) (thought|knew|realised|realized|expected|imagined)\b|"
    r"\bi (always|never) (" + PATTERN_VERBS + r")\b|"
    r"^(if|when|maybe|sometimes|what|why|how|does|did|can|could|would|should|is|are)\b|"
    r"^do\b(?! not\b)",
    re.IGNORECASE,
)
TRANSIENT = re.compile(
    r"^(cold|hot|warm|late|early|dead|broken|empty|full|tired|sick|away|out|here|gone|"
    r"busy|running late|on the way|annoying me|acting up|in the shower|home|visiting|coming|"
    r"going|driving|sleeping|staying|asleep|awake|closed|cancell?ed|in the shop|in hospital|"
    r"in the hospital|at work|at school|mad|angry|upset|pissed|worried|stressed|off|over|"
    r"back|due|down|up|at|a mess|a tip|a disaster|filthy|dirty|freezing|boiling|quiet|loud|"
    r"noisy)\b|"
    r"\b(today|tonight|tomorrow|yesterday|right now|rn|atm|at the moment|this (?:morning|"
    r"afternoon|evening|week|weekend))\b",
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

SUBORDINATE = re.compile(
    r"^(?:because|cause|cos|since|although|though|unless|while|until|before|after|once|as)\b",
    re.IGNORECASE,
)
"""A clause that binds the one after it ("because of work, i prefer mornings")."""
