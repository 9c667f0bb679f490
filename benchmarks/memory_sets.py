"""The questions memory_bench.py asks beyond those of ``build_history``, set by set, in the
order they were written, and how each was kept apart from the changes it measures (see
docs/benchmarks.md)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class Question:
    category: str
    text: str
    gold: list[str]  # markers that must all be in the section
    forbidden: list[str]  # superseded or expired facts' markers
    abstain: bool = False


# The same gold asked another way. The questions of build_history were used while tuning
# recall (the development set); these were written afterwards and held out until 2026-11-24,
# when they joined the tuning (the second tuning set).
TUNED = [
    Question("single-session", "Remind me what the dentist said", ["Dr. Okafor"], []),
    Question("temporal", "Anything from last Wednesday I should remember?", ["Dr. Okafor"], []),
    Question("multi-session", "Did Luis ever sell the Honda?", ["blue Honda", "found a buyer"], []),
    Question("temporal", "What did my mom and I get up to in October?",
             ["first time swimming"], []),
    Question("knowledge update", "Am I still on nights at the warehouse?",
             ["Northside print shop"], ["Kroger", "Walton"]),
    Question("alias", "Is my sister still waiting on that money?", ["400 dollars"], []),
    Question("multi-hop", "Is everyone okay in my sponsor's family?", ["knee surgery"], []),
    Question("paraphrase", "Have I been sleeping badly?", ["Lay awake until four"], []),
    Question("abstention", "What did I say about my guitar lessons?", [], [], abstain=True),
    Question("abstention", "Tell me again about the wedding in Portugal?", [], [], abstain=True),
]  # fmt: skip

# Written on 2026-11-24 before the ranking changes of that day, in the voice of a user asking;
# held out for the first round of changes, looked at after it (the third tuning set).
TUNED_LATER = [
    Question("single-session", "what was my dentist's name again", ["Dr. Okafor"], []),
    Question("temporal", "what did we go over on wednesday night?", ["Dr. Okafor"], []),
    Question("multi-session", "how's the car sale going for my brother",
             ["blue Honda", "found a buyer"], []),
    Question("temporal", "anything about rosa from last month?", ["first time swimming"], []),
    Question("knowledge update", "where do I work now?", ["Northside print shop"],
             ["Kroger", "Walton"]),
    Question("alias", "do I still owe maya?", ["400 dollars"], []),
    Question("multi-hop", "did my sponsor's wife have her operation yet?", ["knee surgery"], []),
    Question("paraphrase", "have I had trouble sleeping this week", ["Lay awake until four"], []),
    Question("single-session", "is my landlord raising the rent?", ["Pruitt"], []),
    Question("single-session", "remind me which meds I take", ["sertraline"], []),
    Question("temporal", "what happened at my meeting back in september?", ["Dan hugged me"],
             []),
    Question("multi-session", "what's new with luis lately?", ["found a buyer"], []),
    Question("abstention", "what did I tell you about my boat?", [], [], abstain=True),
    Question("abstention", "did I ever talk about learning piano?", [], [], abstain=True),
    Question("abstention", "how did my trip to japan go?", [], [], abstain=True),
]  # fmt: skip

# Written on 2026-11-24 after the last change to ranking, and run once: the test set, whose
# figures are the ones reported.
TEST = [
    Question("single-session", "who's the dentist doing my molar?", ["Dr. Okafor"], []),
    Question("temporal", "what did I tell you yesterday?", ["Dr. Okafor"], []),
    Question("multi-session", "did my brother manage to sell his car?",
             ["blue Honda", "found a buyer"], []),
    Question("temporal", "did I see my mom at all last month?", ["first time swimming"], []),
    Question("knowledge update", "what's my job at the moment?", ["Northside print shop"],
             ["Kroger", "Walton"]),
    Question("knowledge update", "do I still work at Kroger?", ["Northside print shop"],
             ["Walton"]),
    Question("alias", "how much money did my sister lend me?", ["400 dollars"], []),
    Question("multi-hop", "any news about my sponsor's wife?", ["knee surgery"], []),
    Question("single-session", "what's the name of my landlord?", ["Pruitt"], []),
    Question("single-session", "am I taking any antidepressants?", ["sertraline"], []),
    Question("temporal", "when did I pick up my 60 day chip?", ["Dan hugged me"], []),
    Question("paraphrase", "have my nights been rough lately?", ["Lay awake until four"], []),
    Question("abstention", "what did I say about my grandmother's house?", [], [],
             abstain=True),
    Question("abstention", "did I ever tell you about the tattoo I wanted?", [], [],
             abstain=True),
    Question("abstention", "what happened with the insurance claim?", [], [], abstain=True),
]  # fmt: skip


# Written on 2026-11-24 (evening) before the retrieval changes of that evening, without
# looking at how retrieval does on them; run once on the code before and once after. Part
# asks for the older gold in new words, part for gold planted with it (_plant_later).
TEST2 = [
    Question("single-session", "which doctor is pulling my tooth?", ["Dr. Okafor"], []),
    Question("temporal", "what did we talk about earlier this week?", ["Dr. Okafor"], []),
    Question("multi-session", "did Luis end up finding someone for the Honda?",
             ["blue Honda", "found a buyer"], []),
    Question("temporal", "when was the last time I went swimming?", ["first time swimming"],
             []),
    Question("knowledge update", "what shift am I working these days?",
             ["Northside print shop"], ["Kroger", "Walton"]),
    Question("knowledge update", "what am I paying for the car each month now?",
             ["265 dollars"], ["310 dollars"]),
    Question("alias", "what did I borrow from my sister?", ["400 dollars"], []),
    Question("multi-hop", "how is Dan's wife recovering?", ["knee surgery"], []),
    Question("single-session", "how much is my rent going up?", ["Pruitt"], []),
    Question("single-session", "what do I take every morning?", ["sertraline"], []),
    Question("temporal", "which meeting did I get my chip at?", ["Dan hugged me"], []),
    Question("paraphrase", "have I been awake half the night recently?",
             ["Lay awake until four"], []),
    Question("single-session", "what did the vet say about my dog?", ["Biscuit"], []),
    Question("multi-hop", "who covered my shift so I could go to mom's birthday?",
             ["swapped shifts"], []),
    Question("temporal", "did I sign up for any classes in October?", ["welding class"], []),
    Question("abstention", "what did I tell you about my cat?", [], [], abstain=True),
    Question("abstention", "what did my lawyer say about custody?", [], [], abstain=True),
    Question("abstention", "how did the concert go last weekend?", [], [], abstain=True),
]  # fmt: skip
