"""Offline preference capture on a labelled set written for Companion. Prints precision and
recall. A sentence counts as captured when it yields at least one fact, or a sobriety date for
the user to confirm (those never become facts)."""

from __future__ import annotations

from companion.coach.capture import Capture, Proposal, detect, detect_preferences

DURABLE = [
    "I prefer short answers.",
    "I prefer texting over phone calls",
    "Please always ask me how I slept.",
    "Always end with one small step I can take.",
    "Never call me buddy.",
    "Don't use religious language with me.",
    "Please don't lecture me about my drinking.",
    "Remind me to call my sister on Sunday.",
    "remind me to refill my prescription",
    "I like long walks by the river.",
    "I love it when you're direct with me.",
    "I don't like it when you repeat my words back.",
    "I don't like being told to just meditate.",
    "I use the Calm app for sleep.",
    "I use journaling for cravings",
    "My sponsor is Dana.",
    "My therapist is Dr. Okafor.",
    "My sobriety date is March 3rd.",
    "My home group is the Tuesday night meeting at St. Mark's.",
    "My daughter is Mia, she's seven.",
    "Call me Sam.",
    "My dog is called Biscuit.",
    "I enjoy cooking on Sundays.",
    "My favourite meeting is the Saturday morning one.",
    "my clean date is 2024-03-03",
    "I got sober on 3 March 2024.",
    "My dog's Biscuit.",
    "My sister's name is Ana.",
    "I love it when you check in on me after meetings.",
    "oh and my sponsor is Dana, she has 12 years",  # lead-ins, one after another
    "ok so btw my dog is called Biscuit",
    "dont ask me about my weight",  # no apostrophe, as typed
    "pls never use the word addict with me",
    "i go by Sam these days",
    "my little brother is Mateo",
    "my counsellor at the outpatient program is named Luis",
    "honestly i hate phone calls",
    "I'd rather you didn't call me an addict.",
    "keep it short, i prefer bullet points",  # after a comma
    "sober since 11/22/2023",
    "Texts work better for me than calls.",  # missed
]

NOT_DURABLE = [
    "Do you prefer I journal at night?",
    "What do I like about myself?",
    "My sister said I never listen.",
    "She told me to always be careful.",
    "I never thought I'd make it to 90 days.",
    "I always relapse on Fridays.",
    "I never drink before noon.",
    "I always feel worse after seeing him.",
    "My coffee is cold.",
    "My phone is dead.",
    "My sister is running late.",
    "I like this.",
    "Don't worry about it.",
    "Don't get me wrong, the meeting was fine.",
    "If I prefer one thing it's quiet.",
    "Maybe I like being alone too much.",
    '"Always be kind" was my grandmother\'s motto.',
    "I had a craving at four and called Dana.",
    "The meeting was hard today.",
    "I'm tired.",
    "My sobriety date is coming up soon.",
    "My sponsor's sobriety date is in June.",
    "I've been sober since Christmas.",
    "Call me crazy but I miss the bar.",
    "My sponsor's number is 555 0142.",
    "Never mind.",
    "Always the same story with him.",
    "oh and my phone is dead lol",
    "ok so what do i do about my sister",
    "i go by bus most days",
    "i hate myself tonight",
    "i'd rather not be here anymore",  # no preference: the crisis detector hears it
    "my ex is texting me again",
    "my son is home sick today",
    "dont get me started on my landlord",
    "oh i just LOVE mondays",
    "if he calls, i like to let it ring",
    "sober since 2/9/24",  # February 9th or 2 September: not guessed
]


def test_capture_precision_and_recall() -> None:
    hits = [bool(detect(s)) for s in DURABLE]
    false = [bool(detect(s)) for s in NOT_DURABLE]
    true_pos, false_pos = sum(hits), sum(false)
    recall = true_pos / len(DURABLE)
    precision = true_pos / (true_pos + false_pos)
    print(
        f"\noffline capture: precision {precision:.3f}, recall {recall:.3f} "
        f"on {len(DURABLE)} + {len(NOT_DURABLE)} sentences"
    )
    missed = [s for s, h in zip(DURABLE, hits, strict=True) if not h]
    wrong = [s for s, h in zip(NOT_DURABLE, false, strict=True) if h]
    assert len(DURABLE) + len(NOT_DURABLE) >= 40
    assert precision >= 0.95, wrong
    assert recall >= 0.8, missed


def test_captured_wording() -> None:
    assert [c.text for c in detect_preferences("My sponsor is Dana. I prefer short answers!")] == [
        "Their sponsor is Dana",
        "Prefers short answers",
    ]
    assert detect_preferences("Remind me to call my sister on Sunday.") == [
        Capture(
            "Asked to be reminded to call their sister on Sunday",
            "reminders",
            "call my sister on Sunday",  # the follow-up keeps the user's words
        )
    ]
    assert [
        c.text for c in detect_preferences("My therapist is Dr. Okafor. My kids are Leo and Mia.")
    ] == [
        "Their therapist is Dr. Okafor",
        "Their kids are Leo and Mia",
    ]
    # What chat puts first, however many ("the memory panel says: say it plainly in chat")
    assert [c.text for c in detect_preferences("oh and btw, my sponsor is Dana")] == [
        "Their sponsor is Dana"
    ]
    # Two clauses, two facts; a clause that adds none stays with its fact
    said = "pls dont ask me about my weight, and fyi i go by Sam these days"
    assert [c.text for c in detect_preferences(said)] == [
        "Wants the coach not to ask them about their weight",
        "Wants to be called Sam",
    ]
    assert [c.text for c in detect_preferences("My daughter is Mia, she's seven.")] == [
        "Their daughter is Mia, she's seven"
    ]


def test_a_sobriety_date_is_proposed_never_a_fact() -> None:
    found = detect("My sponsor is Dana. My sobriety date is 2025-11-02.")
    assert found == [
        Capture("Their sponsor is Dana", "relationships"),
        Proposal("recovery_start_date", "2025-11-02"),
    ]
