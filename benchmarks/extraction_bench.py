"""Extraction cost: calls, prompt tokens and estimated cost of the daily memory extraction for a
typical day with 20, 200 and 1,000 stored facts, and for a 30-day absence, at Claude Haiku 4.5
list prices ($1 / $5 per million input / output tokens).

    python -m benchmarks.extraction_bench

The request is built exactly as extraction does (``extraction.request`` over
``gather.document``: the locked and pinned facts plus those the index ranks relevant to the
activity, within their token share, and the open follow-ups). Tokens are estimated by
Companion's own budgeting rule, 1 token ~ 4 characters (``companion.llm.tokens.estimate``).
No model is called: the answer is a realistic ``record_memory`` output built here for each
chunk, in the current shape, and checked with ``validation.validate``.

The facts are varied sentences about one person (people, places, work, health, recovery,
habits, preferences), because the ranking that picks them works on real words; the day's
activity mentions a few of the things some of them are about, as a real day would.
"""

from __future__ import annotations

import json
import random
import shutil
import tempfile
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from pathlib import Path
from string import Formatter
from typing import Any

from benchmarks.common import row
from companion import clock
from companion.activity import chat, checkins, journal
from companion.llm import pricing
from companion.llm.tokens import estimate
from companion.memory import extraction, followups, gather, schema, store, validation
from companion.paths import VaultPaths
from companion.vault import Vault

MODEL = "claude-haiku-4-5"
NOW = datetime(2026, 11, 22, 8, 0).astimezone()
RATIO_TARGET = 1.25  # input tokens, 1,000 facts against 20
BEFORE = "before: 7,479 input tokens, 0.9 cents with 100 facts"

# ---------------------------------------------------------------------------------------------
# The person's facts

# (name, relation to the person)
CAST = (
    ("Maya", "sister"),
    ("Tom", "brother"),
    ("Linda", "mum"),
    ("Pete", "dad"),
    ("Dana", "sponsor"),
    ("Priya", "friend"),
    ("Kev", "friend from the meeting"),
    ("Jess", "ex-partner"),
    ("Omar", "neighbour"),
    ("Rachel", "therapist"),
    ("Dr Okafor", "GP"),
    ("Steve", "manager"),
    ("Aisha", "workmate"),
    ("Edie", "gran"),
    ("Leo", "nephew"),
    ("Chloe", "niece"),
    ("Marcus", "old drinking friend"),
    ("Sian", "friend from school"),
    ("Ben", "cousin"),
    ("Ruth", "aunt"),
    ("Nadia", "key worker"),
    ("Gareth", "landlord"),
)
PLACE_SLOTS = ("city", "area", "venue", "workplace", "pub", "surgery", "holiday")
SLOTS: dict[str, tuple[str, ...]] = {
    "city": (
        "Leeds",
        "York",
        "Bradford",
        "Manchester",
        "Sheffield",
        "Hull",
        "Harrogate",
        "Wakefield",
        "Newcastle",
        "Liverpool",
        "Glasgow",
        "Bristol",
        "London",
        "Halifax",
        "Huddersfield",
    ),
    "area": (
        "Headingley",
        "Armley",
        "Chapel Allerton",
        "Kirkstall",
        "Horsforth",
        "Meanwood",
        "Beeston",
        "Roundhay",
        "Bramley",
        "Pudsey",
    ),
    "venue": (
        "St Mark's",
        "the Quaker meeting house",
        "the community centre on Otley Road",
        "St Chad's",
        "the library on Chapel Street",
        "the recovery cafe in town",
    ),
    "workplace": (
        "the warehouse on Kirkstall Road",
        "the Co-op depot",
        "the print shop",
        "the call centre",
        "the hospital laundry",
        "the garden centre",
        "the bakery on Station Road",
    ),
    "pub": (
        "the Fox and Hounds",
        "the Skyrack",
        "the Wetherspoons by the station",
        "the Royal Oak",
        "the social club",
        "the Original Oak",
    ),
    "surgery": ("the Otley Road surgery", "the walk-in centre", "St James's", "the LGI"),
    "holiday": ("Whitby", "Scarborough", "the Lake District", "Tenerife", "Filey", "Anglesey"),
    "weekday": ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"),
    "daypart": ("morning", "lunchtime", "evening", "night"),
    "month": (
        "January",
        "February",
        "March",
        "April",
        "May",
        "June",
        "July",
        "August",
        "September",
        "October",
        "November",
        "December",
    ),
    "year": ("2015", "2017", "2018", "2019", "2020", "2021", "2022", "2023", "2024", "2025"),
    "next_year": ("2026", "2027", "2028"),
    "low": ("low", "restless", "angry", "flat", "wound up", "lonely"),
    "doctor": ("Dr Okafor", "Dr Shah", "the practice nurse", "a physio", "the pharmacist"),
    "dom": tuple(str(d) for d in range(1, 29)),
    "n": ("2", "3", "4", "5", "6", "8", "10", "12"),
    "step": tuple(str(s) for s in range(1, 13)),
    "money": ("20", "50", "80", "100", "150", "200", "300"),
    "age": tuple(str(a) for a in range(29, 47)),
    "a_job": (
        "a nurse",
        "a bus driver",
        "a teacher",
        "an electrician",
        "a chef",
        "a care worker",
        "a plasterer",
        "a hairdresser",
        "a paramedic",
        "an accountant",
    ),
    "job": ("forklift", "warehouse supervisor", "admin", "delivery driver", "kitchen", "retail"),
    "outing": ("a coffee", "a walk", "Sunday dinner", "the pictures", "a swim", "the car boot"),
    "topic": ("money", "the drinking", "Christmas", "Dad's flat", "the wedding", "the car"),
    "feeling": ("calmer", "anxious", "low", "lighter", "restless", "guilty", "hopeful", "flat"),
    "hard": ("long", "quiet", "lonely", "dark early"),
    "kids": ("two boys", "a baby girl", "three kids", "a teenage daughter", "twins"),
    "book": (
        "the Big Book",
        "Just for Today",
        "the daily reflections",
        "a meditation app",
        "the Twelve and Twelve",
    ),
    "when": ("before bed", "on the bus to work", "first thing in the morning", "at lunch"),
    "window": (
        "between 5 and 7 in the evening",
        "on Friday nights",
        "after a row",
        "on payday",
        "when the football is on",
        "late at night after a shift",
    ),
    "drink": ("cans of lager", "vodka", "cheap wine", "cider", "rum and coke"),
    "drinkwhen": ("alone after work", "in the mornings", "every night", "at weekends"),
    "freq": ("most weeks", "now and then", "when asked", "every other week"),
    "practice": (
        "a cold shower",
        "box breathing",
        "calling someone",
        "going for a walk",
        "urge surfing",
        "playing the tape forward",
        "a hot drink and a biscuit",
    ),
    "service": ("Forward Leeds", "the community alcohol team", "the hospital", "the GP practice"),
    "med": (
        "sertraline",
        "mirtazapine",
        "acamprosate",
        "thiamine",
        "omeprazole",
        "propranolol",
        "vitamin D",
        "an inhaler",
    ),
    "medtime": ("morning", "night", "day with food", "morning and night"),
    "condition": (
        "sleep",
        "anxiety",
        "high blood pressure",
        "a bad back",
        "reflux",
        "migraines",
        "asthma",
        "liver tests",
    ),
    "sleep_cause": (
        "working nights",
        "there is a row at home",
        "they skip the evening walk",
        "they drink coffee after 4",
        "money is tight",
    ),
    "allergen": ("penicillin", "cats", "peanuts", "ibuprofen", "shellfish"),
    "appointment": ("blood test", "liver scan", "dentist appointment", "eye test", "review"),
    "side_effect": ("nausea", "feeling numb", "weight gain", "bad dreams"),
    "bodypart": ("knee", "shoulder", "wrist", "back", "ankle"),
    "injury_how": ("falling off a ladder", "playing five-a-side", "at work", "on the ice"),
    "shift": ("nights", "days", "earlies", "lates", "weekends", "four on four off"),
    "mgr": ("Steve", "Aisha", "Jan", "Mo"),
    "mgr_trait": (
        "knows about the recovery",
        "is fair but strict about lateness",
        "lets them swap shifts for meetings",
        "shouts when the targets are missed",
    ),
    "transport": ("bus", "bike", "car", "the train", "walking along the canal"),
    "review": ("probation review", "pay review", "return-to-work meeting", "disciplinary"),
    "course": ("maths", "first aid", "forklift", "counselling", "cooking", "IT"),
    "college": ("Leeds City College", "Park Lane", "the Open University", "Leeds Beckett"),
    "work_stress": ("the targets", "the night rota", "the overtime", "the noise", "the commute"),
    "food": ("porridge", "beans on toast", "a bacon sandwich", "curry", "pasta", "soup"),
    "meal": ("breakfast", "lunch", "tea", "supper"),
    "pref_a": ("texting", "tea", "walking", "mornings", "short check-ins", "plain words"),
    "pref_b": ("phone calls", "coffee", "the gym", "evenings", "long chats", "jargon"),
    "music": ("Oasis", "old soul records", "podcasts", "Radio 2", "drum and bass", "Adele"),
    "nickname": ("an addict", "mate", "love", "buddy", "their full name"),
    "coach_pref": (
        "keep it short in the mornings",
        "ask before giving advice",
        "skip the step talk on work days",
        "remind them to eat",
        "be blunt",
    ),
    "team": ("Leeds United", "Bradford City", "the Rhinos", "Huddersfield Town"),
    "where_watch": ("at home now", "at Tom's", "on the radio", "at the ground with Ben"),
    "soft_drink": ("lime and soda", "alcohol-free lager", "Coke", "ginger beer"),
    "social": ("weddings", "work dos", "the quiz", "family parties", "the darts"),
    "hobby": ("fishing", "the allotment", "drawing", "five-a-side", "baking", "jigsaws"),
    "craving_cause": (
        "skipping lunch",
        "payday",
        "a row with Jess",
        "a long night shift",
        "seeing Marcus",
        "walking past the Fox and Hounds",
        "a bad night's sleep",
    ),
    "exercise": ("a run", "a swim", "a walk with Biscuit", "a bike ride", "the gym"),
    "trigger_event": ("a family party", "a row", "payday", "a bad shift", "a hospital visit"),
    "anniv": ("Dad's birthday", "Christmas", "the anniversary of Gran's death", "payday week"),
    "goal": (
        "pass the driving test",
        "run a 10k",
        "pay off the overdraft",
        "take Leo to the seaside",
        "finish step 4",
        "get a flat with a garden",
        "go back to college",
        "save for a holiday",
    ),
    "saving": ("a car", "a deposit", "Leo's birthday", "a holiday", "a new phone"),
    "subject": ("catering", "engineering", "art", "business", "sports science"),
    "pet": ("dog", "cat", "rabbit", "budgie"),
    "petname": ("Biscuit", "Pepper", "Bear", "Luna", "Rolo", "Milo"),
    "home": ("one-bed flat", "shared house", "terrace", "housing association flat"),
    "religion": ("Catholic", "Methodist", "Muslim", "with no religion", "Church of England"),
    "hospital": ("St James's", "the LGI", "a detox unit", "a rehab in Harrogate"),
}
TEMPLATES: tuple[tuple[str, str], ...] = (
    ("relationships", "{Who} lives in {city}"),
    ("relationships", "{Who} works as {a_job}"),
    ("relationships", "Sees {name} every {weekday} for {outing}"),
    ("relationships", "{name}'s birthday is on {dom} {month}"),
    ("relationships", "Fell out with {who} over {topic} in {year}"),
    ("relationships", "Feels {feeling} after talking to {name} on the phone"),
    ("relationships", "{Who} does not drink and is easy to be around"),
    ("relationships", "{Who} still drinks, so visits are kept short"),
    ("relationships", "Owes {name} £{money} from {year}"),
    ("relationships", "Texts {name} when the evenings are {hard}"),
    ("relationships", "{Who} is moving to {city} in {month}"),
    ("relationships", "Has not spoken to {who} since {month} {year}"),
    ("relationships", "{Who} has {kids}"),
    ("recovery", "Goes to the {weekday} {daypart} meeting at {venue}"),
    ("recovery", "Was sober for {n} months in {year} before a relapse"),
    ("recovery", "Avoids {pub} because it was where they used to drink"),
    ("recovery", "Worked step {step} with {name} in {month}"),
    ("recovery", "Reads {book} {when}"),
    ("recovery", "Urges are worst {window}"),
    ("recovery", "Their relapse plan starts with calling {name}"),
    ("recovery", "Used to drink {drink} {drinkwhen}"),
    ("recovery", "Shares at the {weekday} meeting {freq}"),
    ("recovery", "Finds {practice} helps when a craving hits"),
    ("recovery", "Did a {n}-week group at {service} in {year}"),
    ("health", "Takes {med} every {medtime}"),
    ("health", "Sees {doctor} at {surgery} about {condition}"),
    ("health", "Has had trouble with {condition} since {year}"),
    ("health", "Sleeps badly when {sleep_cause}"),
    ("health", "Is allergic to {allergen}"),
    ("health", "Has a {appointment} at {surgery} on {dom} {month}"),
    ("health", "Stopped taking {med} in {month} {year} because of {side_effect}"),
    ("health", "Hurt their {bodypart} {injury_how} in {year}"),
    ("work", "Works {shift} at {workplace}"),
    ("work", "Their manager {mgr} {mgr_trait}"),
    ("work", "Is applying for {job} jobs in {city}"),
    ("work", "Gets to {workplace} by {transport}"),
    ("work", "Has a {review} with {mgr} in {month}"),
    ("work", "Worked as {a_job} in {city} for {n} years"),
    ("work", "Is doing a {course} course at {college} on {weekday}s"),
    ("work", "Finds {work_stress} the hardest part of work"),
    ("preferences", "Likes {food} for {meal}"),
    ("preferences", "Prefers {pref_a} to {pref_b}"),
    ("preferences", "Listens to {music} when feeling {feeling}"),
    ("preferences", "Does not like being called {nickname}"),
    ("preferences", "Wants the coach to {coach_pref}"),
    ("preferences", "Supports {team} and watches the matches {where_watch}"),
    ("preferences", "Drinks {soft_drink} instead of alcohol at {social}"),
    ("preferences", "Enjoys {hobby} on {weekday}s"),
    ("patterns", "Gets cravings after {craving_cause}"),
    ("patterns", "Feels {feeling} on {weekday} evenings"),
    ("patterns", "Writes in the journal {when}"),
    ("patterns", "Goes for {exercise} when feeling {low}"),
    ("patterns", "Skips meals when working {shift}"),
    ("patterns", "Checks in with {name} after {trigger_event}"),
    ("patterns", "Mood drops around {anniv}"),
    ("goals", "Wants to {goal} by {month} {next_year}"),
    ("goals", "Is saving £{money} a month for {saving}"),
    ("goals", "Plans to {goal} with {name}"),
    ("goals", "Hopes to have {n} months sober by {month}"),
    ("identity", "Grew up in {area}, {city}"),
    ("identity", "Is {age} years old"),
    ("identity", "Studied {subject} at {college}"),
    ("identity", "Has a {pet} called {petname}"),
    ("identity", "Lives in a {home} in {area}"),
    ("identity", "Was brought up {religion}"),
    ("events", "Went to {name}'s wedding in {city} in {month} {year}"),
    ("events", "Moved to {area} in {year}"),
    ("events", "Lost the job at {workplace} in {year}"),
    ("events", "Spent {n} nights in {hospital} in {year}"),
    ("events", "Went to {holiday} with {name} in {year}"),
)


@dataclass(frozen=True)
class FactSeed:
    text: str
    category: str
    about: list[dict[str, str]]
    source: str = "learned"
    pinned: bool = False


def _person(name: str, relation: str) -> dict[str, str]:
    return {"name": name, "kind": "person", "relation": relation}


def _place(name: str) -> dict[str, str]:
    return {"name": name, "kind": "place"}


# What the person wrote themselves (locked) or pinned, and what the day's activity touches.
CORE = (
    FactSeed(
        "Their sister Maya lives in Leeds",
        "relationships",
        [_person("Maya", "sister"), _place("Leeds")],
        "wrote",
    ),
    FactSeed(
        "Dana has been their sponsor since June 2025",
        "recovery",
        [_person("Dana", "sponsor")],
        "wrote",
    ),
    FactSeed("Sober since 2025-03-14", "recovery", [], "wrote", pinned=True),
    FactSeed("Takes sertraline 50 mg every morning", "health", [], "wrote"),
    FactSeed("Does not want the coach to use the word alcoholic", "preferences", [], "wrote"),
    FactSeed(
        "Goes to the Tuesday night meeting at St Mark's",
        "recovery",
        [_place("St Mark's")],
        pinned=True,
    ),
    FactSeed(
        "Works nights at the warehouse on Kirkstall Road",
        "work",
        [_place("the warehouse on Kirkstall Road")],
    ),
    FactSeed("Gets cravings after skipping lunch", "patterns", []),
    FactSeed(
        "Walks their dog Biscuit in Roundhay Park every morning",
        "patterns",
        [_place("Roundhay Park")],
    ),
    FactSeed(
        "Their brother Tom still drinks, so visits are kept short",
        "relationships",
        [_person("Tom", "brother")],
    ),
)


def _fill(rng: random.Random, template: str) -> tuple[str, list[dict[str, str]]]:
    """A template's slots filled at random; ``about`` names the person and places used."""
    name, relation = rng.choice(CAST)
    values = {"Who": f"Their {relation} {name}", "who": f"their {relation} {name}", "name": name}
    about: list[dict[str, str]] = []
    for _, slot, _, _ in Formatter().parse(template):
        if slot in ("Who", "who", "name"):
            about.append(_person(name, relation))
        elif slot:
            values[slot] = rng.choice(SLOTS[slot])
            if slot in PLACE_SLOTS:
                about.append(_place(values[slot]))
    return template.format_map(values), about


def fact_seeds(count: int, seed: int = 7) -> list[FactSeed]:
    """``count`` facts: the core ones first, then distinct sentences from the templates (the
    same stream every time, so 200 facts are the first 200 of the 1,000)."""
    rng = random.Random(seed)
    seeds = list(CORE[:count])
    seen = {s.text for s in seeds}
    while len(seeds) < count:
        category, template = rng.choice(TEMPLATES)
        text, about = _fill(rng, template)
        if text not in seen:
            seen.add(text)
            seeds.append(FactSeed(text, category, about))
    return seeds


# ---------------------------------------------------------------------------------------------
# The day's activity

JOURNAL_TOPICAL = (
    "Maya rang at lunch to say she is moving to York next month for a job at the hospital there.",
    "Told Dana about it on the phone and she said to keep going to the Tuesday meeting at St "
    "Mark's whatever happens.",
    "Took my sertraline late again because I slept through the alarm after the night shift.",
    "The warehouse asked if I want to go onto days from December and I think I am going to say "
    "yes, the nights are wrecking my sleep.",
    "Skipped lunch again and by four o'clock the craving was loud, so I ate a sandwich and took "
    "Biscuit round Roundhay Park until it passed.",
    "Tom texted asking if I want to watch the match at the Fox and Hounds on Saturday and I said "
    "no, maybe at his instead.",
    "At St Mark's Kev shared about his first year and I nearly cried in the car park after.",
    "Steve at work says the night rota is changing anyway, so days might be the only option.",
    "Mum wants everyone at hers for Christmas and I am already nervous about Tom being there with "
    "a can in his hand.",
    "Dr Okafor wants to see me about the sleep before she changes anything with the sertraline.",
)
JOURNAL_GENERAL = (
    "Woke up tired but made a proper breakfast for once.",
    "The rain did not stop all day and the flat felt small.",
    "Wrote a gratitude list on the bus: Biscuit, a warm coat, a job, people who pick up the phone.",
    "I notice I get snappy when I am hungry and tired at the same time.",
    "Watched two episodes of something daft and was in bed before midnight.",
    "Some days it is just about not picking up, and today was one of those days.",
    "Cleaned the kitchen and put a wash on, small things that make the evening easier.",
    "Read the page for today in the reflections book before work.",
    "Felt proud walking past the off-licence without slowing down.",
    "Did the breathing the coach showed me when my chest went tight in the queue at Morrisons.",
    "I keep thinking about how much money I used to spend on a Friday night.",
    "Still feel guilty about missing Leo's birthday last year and want to make it up to him.",
    "The evening was quiet, which used to be the dangerous part, but tonight it was just quiet.",
    "Made a list for tomorrow so my head would stop going round in circles.",
    "Rang the bank about the overdraft and it was not as bad as I feared.",
    "Went to the shop for milk and came back with only milk, which is a win.",
    "My back is sore from lifting all week and I should say something to Steve.",
    "Priya sent a photo of her allotment and it made me want to get outside more.",
    "I was short with the lad on the checkout and felt bad about it all afternoon.",
    "Sat in the park for ten minutes doing nothing and it helped more than I expected.",
    "Tried to ring Mum but she was out, so I left a message and did not overthink it.",
    "Payday is Friday and I need a plan for the evening so it does not turn into the old routine.",
    "The new lad at work asked if I wanted a pint after the shift and I just said I was driving.",
    "Cooked a curry from scratch and there is enough left for tomorrow.",
    "I could feel the old restlessness coming on around six and put my trainers on.",
    "Ninety days felt impossible once and now I am counting in months.",
    "Bit of a headache most of the day, probably not enough water.",
    "Wondering whether to tell Maya how hard Christmas is going to be for me.",
)
CHECKIN_NOTES = (
    "Tired after nights, one strong craving around four, walked it off with Biscuit.",
    "Steady day, ate lunch properly, meeting tonight, feeling okay about things.",
    "Low in the morning, better after talking to Dana, no drink.",
    "Slept badly again, anxious about the shift change, cravings mild.",
    "Good day, went to St Mark's, Maya rang with news about York.",
)
USER_LINES = (
    "Maya rang today, she is moving to York next month. I am happy for her but it feels like "
    "the ground moving a bit.",
    "I skipped lunch again and the craving hit hard around four. I ate something and walked "
    "Biscuit and it passed, but it scared me.",
    "Work want me on days from December. Better for sleep, but nights were when I kept busy and "
    "did not think about drinking.",
    "Dana says I should keep the Tuesday meeting at St Mark's whatever shift I end up on. I know "
    "she is right.",
    "Tom wants me at the Fox and Hounds for the match on Saturday. I do not want to go but I do "
    "not want to let him down either.",
    "I keep forgetting my sertraline when I sleep in after a night shift. Does it matter if I "
    "take it at lunch instead?",
    "Christmas at Mum's is already worrying me. Everyone drinks and Tom will be at it from noon.",
    "Honestly I am tired more than anything. The nights have wrecked my sleep and everything "
    "feels harder when I am this tired.",
    "I did the breathing thing in the queue today and it helped a bit. Felt silly but it worked.",
    "Remind me to call Maya on Sunday to ask about the move. I said I would help her pack.",
    "I walked past the off-licence on the way home and did not even slow down. Small thing but "
    "it felt big.",
    "Payday is Friday. That used to be the worst night. I want a plan this time, not just hope.",
)
COACH_LINES = (
    "That is a lot of change arriving at once, and it makes sense that it feels like the ground "
    "is moving. Maya moving does not have to mean losing her. What would staying close look like "
    "for the two of you once she is in York?",
    "You noticed the craving, you ate, you walked Biscuit, and it passed. That is the plan "
    "working, even if it was frightening. Skipped meals seem to come up a lot before the hard "
    "afternoons. Could packing lunch the night before help?",
    "Days could be good for your sleep, and you are right that nights kept your hands busy. It "
    "might help to think now about what the evenings will hold, so they do not stay empty. What "
    "has filled an evening well before?",
    "Keeping the Tuesday meeting fixed sounds like a solid anchor while everything else shifts. "
    "Is there anything that might get in the way of it once the new rota starts, and who could "
    "help you keep it?",
    "It sounds like you want to see Tom without sitting in the Fox and Hounds. Would suggesting "
    "the match at his, or meeting for food first, give you both what you want? You are allowed "
    "to say what works for you.",
    "That is one to check with Dr Okafor or the pharmacist, since they know your prescription. "
    "A reminder on your phone at the same time each day might make it easier either way. Would "
    "that be worth setting up tonight?",
    "Christmas is still a few weeks off, which gives you time to plan. Some people bring their own "
    "drinks, arrange a way to leave early, or line up a call with their sponsor. What would make "
    "the day feel safer for you?",
    "Being this tired makes everything heavier, cravings included. It may be worth being gentle "
    "with yourself this week and keeping the basics going: food, sleep when you can, the meeting. "
    "What is one thing that would help you rest?",
    "It is not silly if it worked. Noticing your chest going tight and doing something about it "
    "in a busy queue takes practice. Keep it in your pocket for the next time, and notice what "
    "helped most.",
    "I will keep that in mind: calling Maya on Sunday about the move, and offering to help her "
    "pack. It sounds like a good way to spend time with her before she goes. How are you feeling "
    "about it?",
    "That is not a small thing at all. Walking past without slowing down shows how much has "
    "changed. It is worth remembering on harder days that you have done this before and can "
    "again.",
    "A plan for Friday sounds wise. You could book something for the evening, tell Dana your "
    "plan, and keep some money aside for a treat that is not a drink. What would you enjoy doing "
    "with that evening?",
)


def journal_text(rng: random.Random, words: int = 300) -> str:
    """About ``words`` words: a few things the person's facts are about, then an ordinary day."""
    picked = rng.sample(JOURNAL_TOPICAL, 4)
    rest = list(JOURNAL_GENERAL)
    rng.shuffle(rest)
    sentences = picked[:]
    while sum(len(s.split()) for s in sentences) < words and rest:
        sentences.append(rest.pop())
    rng.shuffle(sentences)
    return " ".join(sentences)


def set_time(moment: datetime) -> None:
    clock.set_clock(lambda: moment)


def add_day(vault: Vault, rng: random.Random, day: date) -> None:
    """A check-in with a note, a ~300-word journal entry and a 20-message chat."""
    noon = datetime.combine(day, datetime.min.time()).astimezone() + timedelta(hours=12)
    set_time(noon)
    checkins.record(
        vault, day, mood=6, cravings=3, sleep_hours=7, sober=True, note=rng.choice(CHECKIN_NOTES)
    )
    user = rng.sample(USER_LINES, 10)
    coach = rng.sample(COACH_LINES, 10)
    session = chat.start(vault).id
    for n in range(20):
        at = noon + timedelta(hours=6, minutes=2 * n)
        set_time(at)
        text = user[n // 2] if n % 2 == 0 else coach[n // 2]
        chat.add_message(vault, session, "user" if n % 2 == 0 else "assistant", text)
    chat.end(vault, session)
    evening = noon + timedelta(hours=9, minutes=30)
    set_time(evening)
    journal.add(vault, journal_text(rng))


def build(root: Path, facts: int, days: int, seed: int) -> Vault:
    """A vault with ``facts`` live facts (5 locked, 2 pinned among them), two open follow-ups,
    and ``days`` days of activity ending yesterday, nothing of it memorized yet."""
    start = NOW - timedelta(days=days + 1)
    set_time(start)
    vault, _ = Vault.create(VaultPaths(root), "benchmark passphrase", 64)
    for fact in fact_seeds(facts):
        fact_id = store.add_fact(
            vault, fact.text, fact.category, "semantic", fact.source, about=fact.about or None
        )
        if fact.pinned:
            store.set_pinned(vault, fact_id, True)
    followups.add(vault, "Call Maya on Sunday", NOW.date())
    followups.add(vault, "Ask Dr Okafor about the sleep")
    rng = random.Random(seed)
    for back in range(days, 0, -1):
        add_day(vault, rng, (NOW - timedelta(days=back)).date())
    set_time(NOW)
    return vault


# ---------------------------------------------------------------------------------------------
# A realistic answer, in the shape schema.Answer declares


def _sent_id(lines: list[str], words: str) -> int | None:
    """The id of the listed fact or follow-up whose text holds ``words`` ("#12 (work) ...")."""
    for line in lines:
        if words in line:
            return int(line[1 : line.index(" ")])
    return None


def _sessions(part: gather.Chunk) -> list[dict[str, Any]]:
    return [
        {
            "session_id": sid,
            "summary_text": "Talked through Maya's move to York, the switch to day shifts and a "
            "craving after a skipped lunch that passed with food and a walk.",
            "recognition_moment": "Saw that skipped meals come before the hard afternoons.",
            "action_steps": ["Pack lunch the night before", "Keep the Tuesday meeting"],
            "open_threads": ["Christmas at their mum's with Tom drinking"],
            "urge_intensity": 6,
            "primary_trigger": "hungry",
            "resistance_strategy_used": "exercise",
            "outcome": "urge_passed",
            "key_insights": ["Eating regularly keeps cravings down"],
            "emotional_state_start": "tired, unsettled",
            "emotional_state_end": "steadier",
            "search_terms": ["shift change", "sister", "hunger"],
        }
        for sid in sorted(part.sessions)
    ]


def answer_for(part: gather.Chunk, document: dict[str, Any], first: bool) -> dict[str, Any]:
    """What a good model returns for ``part``: summaries that grow with the days covered, two new
    facts, in the first chunk an update of a sent locked fact and an open follow-up closed, a
    follow-up added, a summary per session and an urge on most days; every item cites the
    person's own words in the chunk."""
    days = sorted({i.day for i in part.items})
    journals = {i.day: i.ref for i in part.items if i.ref.startswith("journal_entry:")}
    user = next(i.ref for i in part.items if i.user_words)
    cite = [journals.get(days[-1], user)]

    def per_day(sentence: str) -> str:
        if len(days) == 1:
            return sentence
        text = " ".join(f"{d.isoformat()}: {sentence}" for d in days)
        return text[: schema.SUMMARY_MAX]

    facts: dict[str, Any] = {
        "add": [
            {
                "text": "Is moving from night shifts to days at the warehouse from 2026-12-01",
                "category": "work",
                "tier": "episodic",
                "about": [{"name": "the warehouse", "kind": "place", "relation": "workplace"}],
                "valid_from": "2026-12-01",
                "search_terms": ["job", "rota", "day shift"],
                "evidence": cite,
            },
            {
                "text": "Feels anxious about Christmas at their mum's with Tom drinking",
                "category": "relationships",
                "tier": "episodic",
                "about": [_person("Linda", "mum"), _person("Tom", "brother")],
                "search_terms": ["holidays", "family", "worry"],
                "evidence": cite,
            },
        ]
    }
    maya = _sent_id(document["facts"], "Maya lives in Leeds")
    if first and maya is not None:
        facts["update"] = [
            {
                "id": maya,
                "text": "Their sister Maya is moving to York",
                "reason": "Maya is moving to York next month for a job at the hospital",
                "about": [_person("Maya", "sister"), _place("York")],
                "valid_from": "2026-12-01",
                "evidence": cite,
            }
        ]
    follow_ups: dict[str, Any] = {
        "add": [{"text": "Help Maya pack for the move", "evidence": cite}]
    }
    call = _sent_id(document["open_follow_ups"], "Call Maya")
    if first and call is not None:
        follow_ups["close"] = [{"id": call, "status": "done", "evidence": cite}]
    return {
        "conversation_summary": per_day(
            "Talked with the coach about Maya moving to York, going onto day shifts and a craving "
            "after skipping lunch that passed with food and a walk with Biscuit."
        ),
        "journal_summary": per_day(
            "Skipped lunch and had a strong craving around 16:00; ate and walked Biscuit in "
            "Roundhay Park until it passed. Worried about Christmas at their mum's."
        ),
        "checkin_summary": per_day("Mood 6, cravings 3, slept 7 hours, sober."),
        "emotional_state": "tired but steady, hopeful by evening",
        "search_terms": ["craving", "sister", "new shift", "insomnia"],
        "notable_patterns": ["Cravings follow skipped meals", "Sleep suffers on nights"],
        "facts": facts,
        "follow_ups": follow_ups,
        "sessions": _sessions(part),
        "urges": [
            {
                "when": f"{d.isoformat()}T16:00",
                "intensity": 6,
                "trigger": "hungry",
                "strategy": "exercise",
                "outcome": "urge_passed",
                "evidence": [journals.get(d, user)],
            }
            for n, d in enumerate(days)
            if n % 3 != 2  # most days, not all
        ][: schema.LIST_MAX],
    }


def checked(answer: dict[str, Any], part: gather.Chunk, document: dict[str, Any]) -> None:
    """The answer must pass validation.validate whole, cite only the person's words in this chunk,
    and change only facts and follow-ups that were sent."""
    output = validation.validate(answer)
    assert not output.dropped, output.dropped
    data = output.data
    cited = [
        *(e for f in data.facts.add for e in f.evidence),
        *(e for f in data.facts.update for e in f.evidence),
        *(e for f in data.follow_ups.add for e in f.evidence),
        *(e for f in data.follow_ups.close for e in f.evidence),
        *(e for u in data.urges for e in u.evidence),
    ]
    assert set(cited) <= part.user_refs, set(cited) - part.user_refs
    assert {s.session_id for s in data.sessions} == part.sessions
    sent = {_sent_id([line], "") for line in document["facts"]}
    assert all(f.id in sent for f in data.facts.update)


# ---------------------------------------------------------------------------------------------
# Measuring


@dataclass
class Figures:
    label: str
    live: int
    kept: str  # how many of them are locked and pinned
    items: int = 0
    calls: int = 0
    system: int = 0
    tool: int = 0
    data: int = 0
    facts: int = 0
    facts_sent: int = 0
    output: int = 0

    @property
    def input(self) -> int:
        return self.system + self.tool + self.data

    @property
    def cents(self) -> float:
        return pricing.cost(MODEL, self.input, self.output) * 100


def measure(vault: Vault, label: str) -> Figures:
    """Every call extraction would make now, built by ``extraction.request`` and measured."""
    live = store.live_facts(vault)
    locked, pinned = sum(f.locked for f in live), sum(f.pinned for f in live)
    figures = Figures(label, len(live), f"{locked} locked, {pinned} pinned")
    items = gather.unmemorized(vault)
    parts = gather.chunks(items, extraction.input_budget(vault))
    system = extraction.system_prompt()
    figures.items, figures.calls = len(items), len(parts)
    for number, part in enumerate(parts):
        document = gather.document(vault, part)
        request = extraction.request(system, document)
        system_t = estimate(request.system)
        tool_t = estimate(json.dumps(request.tool))
        data_t = estimate("".join(m["content"] for m in request.messages))
        assert abs(system_t + tool_t + data_t - request.estimated_input()) <= 3
        figures.system += system_t
        figures.tool += tool_t
        figures.data += data_t
        figures.facts += estimate(gather.escaped(document["facts"]))
        figures.facts_sent += len(document["facts"])
        answer = answer_for(part, document, first=number == 0)
        checked(answer, part, document)
        figures.output += estimate(json.dumps(answer, ensure_ascii=False))
    return figures


def show(f: Figures) -> None:
    print(f"\n{f.label}: {f.items} items, {f.live:,} live facts ({f.kept})")
    row("calls (chunks)", f.calls, unit="count")
    row("input tokens", f.input, unit="count")
    row("  system prompt", f.system, unit="count")
    row("  tool schema (record_memory)", f.tool, unit="count")
    row("  data document, in <data>", f.data, unit="count")
    row(f"    of which facts ({f.facts_sent:,} sent)", f.facts, unit="count")
    row("output tokens (a realistic record_memory answer)", f.output, unit="count")
    row("estimated cost, cents", f.cents, unit="")


def main() -> None:
    work = Path(tempfile.mkdtemp(prefix="companion-extraction-bench-"))
    print(
        "Extraction cost (estimates: 1 token ~ 4 characters, Companion's own budgeting rule;\n"
        f"{MODEL} list prices, $1 / $5 per million input / output tokens)"
    )
    days: dict[int, Figures] = {}
    for facts in (20, 200, 1000):
        with build(work / f"day-{facts}", facts, 1, 1) as vault:
            days[facts] = measure(vault, f"typical day, {facts:,} facts")
        show(days[facts])
    with build(work / "absence", 200, 30, 2) as vault:
        show(measure(vault, "30-day absence (the same kind of day, 30 times), 200 facts"))
    clock.set_clock(None)

    small, large = days[20], days[1000]
    print("\nTargets")
    row(
        "input tokens, 1,000-fact day / 20-fact day",
        large.input / small.input,
        unit="",
        target=f"target <= {RATIO_TARGET}",
    )
    row("cost of the 1,000-fact day, cents", large.cents, unit="", target="target <= 1 cent")
    print(f"  ({BEFORE}; now {large.input:,} input tokens, {large.cents:.2f} cents)")
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
