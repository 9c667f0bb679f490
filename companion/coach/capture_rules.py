"""The words offline capture listens for (capture.py applies them): what a durable fact or
preference sounds like in chat. What keeps a sentence or a match from being one is in
capture_filters.py."""

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
    r"rush|tell anyone|laugh|hate me|be mad|be angry|be cross|kill me|tempt me|make me laugh|"
    r"shoot the messenger|go there|judge|get too excited|get excited|look at me|"
    r"remind me(?: of\b| lol$| haha$|$)"
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
NOT_A_NAME = (
    r"crazy|old[- ]fashioned|back|later|when|whenever|if|after|before|tomorrow|tonight|by|out|"
    r"on|something|anything|anytime|any time|maybe|now|soon|whatever|that|this|it|you|u|a|an|"
    r"the|names|paranoid|stupid|silly|mad|anything|asap|right away|again|every|each|at|in"
)
MANNERS = r"pls|please|plz|btw|thanks|thx|now|lol|haha|x|xx|ok|okay|cheers|ta"
NAME = (
    rf"(?P<a>[a-z][\w'-]*(?: (?!(?:{MANNERS})\b)[a-z][\w'-]*)?)"
    rf"(?: (?:{MANNERS})| if you (?:would|could|can|don't mind))*(?:[,;:] .*)?"
)
"""A name of a word or two, then maybe a word of manners and another clause."""
PLEASE = r"(?:please |pls |plz |kindly )?"
NOT_SELF = (  # what one dislikes that is no taste: "i don't like myself" is not a preference
    r"myself|me|my self|my own|my body|my face|my weight|my brain|my life|life|living|"
    r"being (?:like|this|me|alive|sober|here)|feeling|everything|everyone|everybody|anything|"
    r"this|that|it|you|u|ur|your|him|her|them|the fact|the idea|the sound|waking up|"
    r"my (?:dad|mum|mom|father|mother|ex|sister|brother|family|husband|wife|boss|sponsor|son|"
    r"daughter|parents|stepdad|stepmum|stepmom|partner)\b"
)
NOT_ME = rf"to|when|how|what|where|who|the way|{NOT_SELF}"
"""The same for "i hate ...", which "i hate how/when/what ..." only complain with."""
LIKE_NOT = (  # "i love her so much", "i like the sound of that", "i love how you never listen"
    r"it|this|that|you|u|ur|your|him|her|them|us|how|when|where|what|the way|the idea|the sound|"
    r"the thought|being ignored|being left|being stood up|being told|to think|to believe|"
    r"to imagine|to say|to pretend"
)
NOT_THING = (
    r"it|this|that|he|she|they|there|what|which|who|today|tonight|everything|nothing|anything|"
    r"any|all|life|living|being|existing|you|me|myself"
)
"""What a taste is not said of: "that is my favourite part" names nothing."""
FILLER = r"(?:,? (?:honestly|tbh|lol|haha|ngl|to be honest|for real|fr|tho|though))?"
SINCERE = r"(?:,? (?:honestly|tbh|ngl|to be honest|for real|fr))?"
"""A filler after a taste, without "lol" or "haha": "paperwork is my favourite hobby lol"."""
SAID_OF = (
    r"(?![\w' -]*\b(?:think|thinks|thought|guess|apparently|reckon|reckons|says|said|feel|"
    r"feels|felt|starting|tell|told|know|knows|believe|everyone|everybody|nobody|no one|"
    r"whatever|maybe|probably|if|you|u)\b)"
)
"""What a taste said of a thing must not hold: "mum thinks gardening is my happy place" is
mum's, and "i'm starting to think aa isn't for me" is no taste yet."""
TRACKED = (
    r"(?:my )?(?:moods?|sleep|days|sober days|clean days|streak|cravings|urges|steps|spending|"
    r"money|budget|meetings|feelings|water|habits|food|meals|weight|meds|medication|symptoms|"
    r"progress|triggers|gratitude|workouts|runs|periods?|cycle|time|savings|bills|it all|"
    r"everything)"
)
"""What people track with an app or a notebook ("i track my mood with daylio")."""
NEEDS = (
    r"(?:cravings|urges|sleep|stress|anxiety|panic|panic attacks|anger|focus|motivation|"
    r"triggers|bad days|bad nights|the bad days|the urges|the cravings|my mood|my anxiety|"
    r"my sleep|my cravings|my nerves|budgeting|money|meetings|journaling|journalling|meditation|"
    r"exercise|workouts|pain|grounding|calm|nerves|lonely nights|loneliness|boredom|"
    r"appointments|reminders|recovery|step work|my steps|the steps)"
)
"""What a habit or tool is for ("for cravings i use box breathing")."""
ASIDE = (
    r"(?:[,;] (?:i|i'm|im|i've|ive|it|its|it's|that|thats|that's|they|she|he|we|you|u|never|always|"
    r"works|worked|the|this)\b.*)?"
)
"""A clause said after a reminder or a habit, not part of it ("..., it works most times")."""
NOT_DYING = (
    r"die|be dead|not be|not wake|not exist|not live|disappear|sleep forever|be gone|end|kill|"
    r"sleep and never|be six feet|drink|use|relapse|not$|not sure|not say"
)
""""I'd rather ..." that is no preference (the crisis detector hears it)."""

THEIRS = r"his|her|their|your|ur|my \w+'s|mum's|mom's|dad's"
"""Someone else's thing: "his laugh is my favourite sound"."""
NOT_USED = r"(?:to|it|him|her|them|you|your|u|ur|common sense)\b"
""""i use to drink" is "used to"; "use your judgement" asks the coach."""
ASKING = (
    r"ask|use|call|say|mention|bring|start|end|open|close|check|remind|tell|give|send|talk|"
    r"push|suggest|keep|be|assume|make|let|ignore|compare|quote|offer|skip|lecture|preach|"
    r"refer|put|read|write|list|show|include|sign|finish|answer|reply|respond|greet|add|leave|"
    r"do|celebrate|praise|share|recommend|follow|shame|guilt|judge|rush|pressure|count|address|"
    r"speak|spell|explain|wrap|summarise|summarize|repeat|remember|try|go|text|message|reply|"
    r"bring up|double|spring|joke|swear|curse|sugarcoat|sugar-coat|pretend|diagnose|tag|"
    r"frame|phrase|word|open with|end with|jump|send|comment|discuss|raise|question|correct|"
    r"interrupt|nag|moralise|moralize|talk|patronise|patronize|guess|point|make|bother|wake|"
    r"ping|nudge|email"
)
"""Verbs people ask the coach with after a bare "always" or "never"."""

RULES: list[tuple[str, str, str]] = [
    # (pattern, category, template) - templates get the captured groups, in the third person
    (
        rf"^(?:you can |u can |just |{PLEASE})*call me (?!(?:{NOT_A_NAME})\b){NAME}$",
        "identity",
        "Wants to be called {a}",
    ),
    (rf"^{PLEASE}address me as {NAME}$", "identity", "Wants to be called {a}"),
    (
        rf"^{PLEASE}call me by my (?:middle|first|last|second|real|full|given|nick) ?name,? "
        rf"(?!(?:{MANNERS})\b)(?P<a>[a-z][\w'-]*)(?:[,;:] .*)?$",
        "identity",
        "Wants to be called {a}",
    ),
    (
        rf"^(?:i'd|id|i would) (?:like|love|prefer) (?:it )?(?:for )?(?:you|u) to call me "
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
        r"(?: (?P<v>is|are)|'s(?!(?: [\w-]+){0,3} (?:is|are|was)\b| (?:been|got|gone|had|done)\b))"
        r" (?P<b>.+)$",
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
        rf"^(?!(?:{NOT_THING}|{THEIRS})\b){SAID_OF}(?P<b>[\w'-]+(?: [\w'-]+){{0,6}}?) "
        r"(?P<v>is|are) my (?:absolute |all[- ]time )?"
        r"(?P<a>(?:favourite|favorite|preferred) [\w' ]+?|happy place|"
        r"go[- ]?to(?: [\w']+)?(?: for [\w' ]+?)?)"
        rf"{SINCERE}(?:[,;:] .*)?$",
        "preferences",
        "{b} {v} their {a}",
    ),
    (
        rf"^(?!(?:{NOT_THING})\b)(?P<a>[\w' -]{{2,30}}?) is the (?:term|word|name|label|phrase) "
        r"(?:i'd|id|i would|i) "
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
        rf"^i (?:really )?(?:don't|dont|do not) (?:like|enjoy) (?!(?:{NOT_SELF})\b)(?P<a>.+?)"
        + FILLER
        + ASIDE
        + "$",
        "preferences",
        "Does not like {a}",
    ),
    (
        rf"^i (?:really |truly |absolutely |honestly )?(?:hate|dislike|can't stand|"
        rf"cant stand|cannot stand|loathe|detest|despise) (?!(?:{NOT_ME})\b)(?P<a>.+?)"
        rf"{FILLER}{ASIDE}$",
        "preferences",
        "Does not like {a}",
    ),
    (
        r"^(?:i'm |im |i am )?not (?:a |much of a |really a |a big |a huge )fan of "
        rf"(?!(?:{NOT_SELF})\b)(?P<a>.+?)" + FILLER + ASIDE + "$",
        "preferences",
        "Does not like {a}",
    ),
    (
        r"^(?:i'm|im|i am) (?:just |really |honestly )?not (?:really |that |very |much |big |"
        rf"massively )?into (?!(?:{NOT_SELF})\b)(?P<a>.+?)" + FILLER + ASIDE + "$",
        "preferences",
        "Does not like {a}",
    ),
    (
        r"^i (?:really |quite |absolutely |genuinely |do |still |just )?(?:like|love|enjoy) "
        rf"(?!(?:{LIKE_NOT})\b)(?P<a>.+?){SINCERE}$",
        "preferences",
        "Likes {a}",
    ),
    (
        # "yoga isn't for me": a taste, said of the thing
        rf"^(?!(?:{NOT_THING}|{THEIRS})\b){SAID_OF}(?P<a>[\w'-]+(?: [\w'-]+){{0,3}}?) (?:just )?"
        r"(?:isn't|isnt|is not|aren't|arent|are not) (?:really )?(?:for me|my thing|my cup of tea)"
        rf"{SINCERE}(?:[,;:] .*)?$",
        "preferences",
        "Does not like {a}",
    ),
    (
        # "X does nothing for me" says what X does, not a dislike
        rf"^(?!(?:{NOT_THING}|{THEIRS})\b){SAID_OF}(?P<a>[\w'-]+(?: [\w'-]+){{0,3}}?) "
        rf"(?:does|do) (?:absolutely |literally )?nothing for me{SINCERE}(?:[,;:] .*)?$",
        "preferences",
        "{a} does nothing for them",
    ),
    (  # "i just adore ..." is as often said the other way round: not read
        r"^i (?:really |absolutely |genuinely |honestly )?adore "
        rf"(?!(?:{LIKE_NOT})\b)(?P<a>.+?){SINCERE}$",
        "preferences",
        "Likes {a}",
    ),
    (
        r"^(?:(?:i'm|im|i am) (?:really |super |so |a )?(?:big |huge )?(?:into|obsessed with|"
        r"fan of)|(?:i'm |im |i am )?(?:a )?(?:big|huge) fan of) "
        rf"(?!(?:{LIKE_NOT})\b|my \w+ (?:day|week|month|year)|(?:day|week|month|year)s? \d)"
        rf"(?P<a>.+?){SINCERE}$",
        "preferences",
        "Likes {a}",
    ),
    (
        rf"^{PLEASE}(?:i (?:need|want) you to |(?:i'd|id|i would) like you to )?(?:remind me|"
        r"set (?:a|me a) reminder(?: for me)?|send me a reminder|give me a nudge|nudge me|"
        r"ping me)(?P<t> (?![^,.]*\b(?:how|what|why|about|of|that|where|who)\b)[^,.]{1,30}?)? to "
        rf"(?P<a>.+?){FILLER}{ASIDE}$",
        "reminders",
        "Asked to be reminded{t} to {a}",
    ),
    (
        rf"^i (?:always )?use (?!{NOT_USED})(?P<a>.+?) for (?P<b>.+?){SINCERE}{ASIDE}$",
        "preferences",
        "Uses {a} for {b}",
    ),
    (
        rf"^i (?:always )?use (?!{NOT_USED})(?P<a>.+?) to (?P<b>.+?){SINCERE}{ASIDE}$",
        "preferences",
        "Uses {a} to {b}",
    ),
    (
        r"^i (?:rely on|depend on) (?!(?:you|u|him|her|them|it|this|that|everyone)\b)"
        rf"(?P<a>.+?) (?P<w>to|for) (?P<b>.+?){SINCERE}{ASIDE}$",
        "preferences",
        "Relies on {a} {w} {b}",
    ),
    (
        r"^i (?:totally |really )?swear by (?!(?:god|my|heaven|all|everything|it|the bible|you)\b)"
        rf"(?P<a>.+?) (?P<w>to|for) (?P<b>.+?){SINCERE}{ASIDE}$",
        "preferences",
        "Swears by {a} {w} {b}",
    ),
    (
        rf"^i (?:track|log|keep track of) (?P<b>{TRACKED}) (?:with|on|in|using) (?P<a>.+?)"
        rf"{SINCERE}{ASIDE}$",
        "preferences",
        "Uses {a} to track {b}",
    ),
    (
        rf"^for (?P<b>{NEEDS}),? i (?:use|do|go to|turn to|reach for|put on|listen to) "
        rf"(?P<a>.+?){SINCERE}{ASIDE}$",
        "preferences",
        "Uses {a} for {b}",
    ),
    (
        rf"^(?!(?:{NOT_THING})\b)(?P<a>[\w' -]{{2,40}}?) is what i "
        r"(?:use|put on|listen to|turn to|reach for) "
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
        # bare, only with a verb one asks with: "never told anyone", "always hungry" are not
        rf"^(?P<w>always|never) (?=(?:{ASKING})\b)(?!(?:{PATTERN_VERBS}|{NOT_AN_ASK})\b)"
        r"(?P<a>.+)$",
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
