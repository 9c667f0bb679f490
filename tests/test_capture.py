"""Offline preference capture on a labelled set written for Companion. Prints precision and
recall. A sentence counts as captured when it yields at least one fact."""

from __future__ import annotations

from companion.coach.capture import detect_preferences

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
]


def test_capture_precision_and_recall() -> None:
    hits = [bool(detect_preferences(s)) for s in DURABLE]
    false = [bool(detect_preferences(s)) for s in NOT_DURABLE]
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
    assert detect_preferences("Remind me to call my sister on Sunday.")[0].category == "reminders"
