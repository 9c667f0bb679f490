"""Words that mean the same thing in a recovering person's day, so a question in other words
still finds what they wrote ("do I owe Maya?" finds "Maya lent me 400 dollars"; "my family"
finds "my wife"). Query side only: the index keeps the words as written.

Two kinds of group. In a group of *alike* words each one also looks for the others (owe, lent,
debt). A *broader* word also looks for the narrower ones, never the other way round: "family"
finds "sister", but "sister" does not find "brother". The groups are written for everyday life
in recovery (feelings, using and drinking, sleep, money, work, home, health, the law, family,
meetings), not for any one sentence; a word belongs in a group only when a person asking with
one would be glad to be shown the other.
"""

from __future__ import annotations

import functools

from companion.vault import words

ALIKE = [
    # sleep and tiredness
    "sleep slept asleep insomnia sleepless awake restless",
    "tired exhausted exhaustion fatigue drained worn",
    "nightmare nightmares dream dreams",
    # using and drinking
    "drink drinking drank drunk alcohol booze beer wine vodka whiskey liquor hammered "
    "hangover hungover blackout",
    "drug drugs dope weed cocaine coke crack heroin meth fentanyl opioid opioids pills stoned "
    "benzo benzos xanax klonopin valium ativan",
    "overdose overdosed od narcan naloxone",
    "smoke smoking smoked cigarette cigarettes vape vaping nicotine",
    "gamble gambling gambled casino betting",
    "rehab treatment inpatient outpatient iop residential",
    "craving cravings crave urge urges tempted temptation",
    "relapse relapsed slip slipped lapse",
    "sober sobriety clean",
    "withdrawal withdrawals detox shakes",
    # feelings
    "anxious anxiety panic nervous worried worry stress stressed overwhelmed",
    "sad depressed depression hopeless miserable",
    "angry anger mad furious pissed rage irritated resentment",
    "fight fighting argument arguing argue argued yelled yelling",
    "lonely alone isolated loneliness isolating",
    "shame ashamed guilt guilty embarrassed",
    "proud pride accomplished",
    "grief grieving mourning funeral died death",
    # money and home
    "money cash dollars bucks paycheck savings",
    "owe owed owing debt debts loan lent lend borrow borrowed",
    "bill bills payment payments overdue",
    "rent landlord lease housing apartment eviction evicted tenant",
    "sell selling sold sale buyer",
    "car truck van vehicle honda toyota ford chevy nissan",
    # work and school
    "job work working shift shifts employer workplace career",
    "fired laid unemployed",
    "interview hired hiring application",
    "school class classes college course exam exams homework",
    # health
    "doctor dr physician clinic gp",
    "hospital er admitted ambulance",
    "surgery operation operated procedure",
    # medications by kind and by the names people know them by
    "medication medications medicine meds prescription prescribed dose mg refill pharmacy "
    "antidepressant antidepressants ssri ssris snri antipsychotic antipsychotics stabilizer "
    "sertraline zoloft fluoxetine prozac lexapro escitalopram citalopram celexa paroxetine "
    "paxil venlafaxine effexor duloxetine cymbalta mirtazapine remeron trazodone wellbutrin "
    "bupropion lithium lamotrigine lamictal quetiapine seroquel aripiprazole abilify "
    "naltrexone vivitrol acamprosate campral suboxone buprenorphine methadone antabuse "
    "disulfiram gabapentin varenicline chantix",
    "dentist dental tooth teeth molar",
    "pain hurt hurts ache aching sore",
    "sick ill flu fever",
    "therapy therapist counselor counsellor counseling counselling psychiatrist psychologist",
    "gym workout exercise exercising jog jogging",
    "eat eating food meal meals appetite",
    # recovery and support
    "meeting meetings aa na ca",
    "chip coin medallion milestone",
    "sponsor sponsee",
    "church pray prayer praying faith god",
    # the law
    "court judge lawyer attorney hearing probation parole trial custody",
    # people
    "mom mother mum mama",
    "dad father papa",
    "kid kids child children",
    "partner girlfriend boyfriend wife husband spouse fiance fiancee",
    "friend friends buddy pal",
    "wedding married marriage",
    "trip vacation holiday travel",
    "dog puppy",
    "cat kitten",
]

BROADER = {
    "family": "mom mother mum dad father parents sister brother siblings wife husband spouse "
    "partner kid kids child children son daughter aunt uncle cousin grandma grandpa niece nephew",
    "parents": "mom mother mum dad father",
    "siblings": "sister brother",
    "kid": "son daughter",
    "kids": "son daughter",
    "child": "son daughter",
    "children": "son daughter",
    "pet": "dog cat puppy kitten",
    "pets": "dog cat puppy kitten",
    "health": "doctor hospital surgery medication sick pain",
    "finances": "money rent bill debt owe paycheck",
    "using": "drink drug drugs weed pills",
    "legal": "court judge lawyer probation",
}


@functools.cache
def table() -> dict[str, tuple[str, ...]]:
    """Each stem and the other stems it also looks for (stemmed once, on first use)."""
    out: dict[str, dict[str, None]] = {}
    for line in ALIKE:
        stems = list(dict.fromkeys(words.stem(w) for w in line.split()))
        for s in stems:
            out.setdefault(s, {}).update(dict.fromkeys(o for o in stems if o != s))
    for broad, narrower in BROADER.items():
        top = words.stem(broad)
        out.setdefault(top, {}).update(
            dict.fromkeys(s for s in (words.stem(w) for w in narrower.split()) if s != top)
        )
    return {term: tuple(others) for term, others in out.items()}


def related(term: str) -> tuple[str, ...]:
    """The other stems a question's ``term`` (a stem) also looks for."""
    return table().get(term, ())
