"""A person who tells the coach they are safe is not shown the crisis screen for saying so, and
a denial never hides the danger written beside it."""

from __future__ import annotations

import pytest

from companion.coach.safety import assess
from companion.coach.safety.denial import without_denials


@pytest.mark.parametrize(
    "text",
    [
        # each raised the crisis screen before denials were read (none is in the labelled sets)
        "you asked if im safe. yes. i dont want to die, i want to feel less alone",
        "I am not going to harm myself. I am angry, that is all.",
        "im not going to kill myself, relax. im just annoyed at my landlord",
        "i wont hurt myself. i just miss her so much tonight",
    ],
)
def test_saying_you_are_safe_raises_no_alarm(text: str) -> None:
    assert assess(text) is None


@pytest.mark.parametrize(
    "text",
    [
        "i dont want to kill myself, i want someone else to do it for me",  # the act named again
        "im not going to kill myself tonight. tomorrow maybe",  # bounded in time
        "i cant promise i wont hurt myself",  # hedged
        "not suicidal, just tired of being alive",  # the rest is danger
        "im not suicidal, i just gave my dog to my sister and cleaned out my room",
        "i dont want to die but i have the pills counted out on the desk",
        "reopened old cuts. not suicidal, promise",
    ],
)
def test_a_denial_does_not_hide_the_danger_beside_it(text: str) -> None:
    assert assess(text) is not None


@pytest.mark.parametrize(
    "sentence",
    [
        "i dont want to live anymore",  # the words of life: their denial is the danger
        "i dont want to wake up tomorrow",
        "dont want to die in a tip",  # bounded: the dying is still planned
        "i dont want to die exactly",  # hedged after
        "i wont hurt myself, will i?",
        "he said he wont kill himself",
    ],
)
def test_only_a_plain_denial_of_danger_is_taken_out(sentence: str) -> None:
    assert without_denials(sentence) == sentence


def test_what_is_taken_out_is_the_denial_alone() -> None:
    assert without_denials("no i dont want to die, i want this week to be over") == (
        "i want this week to be over"
    )
    assert without_denials("im not suicidal but i keep looking at the bridge") == (
        "but i keep looking at the bridge"
    )
    assert without_denials("not gonna hurt myself, i promise") == ""
