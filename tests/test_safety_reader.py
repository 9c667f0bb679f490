"""The crisis detector's reader of word order: it cuts text as the model it was distilled
from cuts it, reads a window the same alone or in a batch, and where numpy is missing the
detector still works with the linear model alone."""

from __future__ import annotations

import subprocess
import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st

from companion.coach import safety
from companion.coach.safety import reader


def ids(*pieces: str) -> list[int]:
    vocab = reader.reader().vocab
    return [vocab[reader.CLS], *(vocab[p] for p in pieces), vocab[reader.SEP]]


@pytest.mark.parametrize(
    ("text", "pieces"),
    [
        ("Rehoming my CAT", ("re", "##hom", "##ing", "my", "cat")),
        ("Café, it's naïve", ("cafe", ",", "it", "'", "s", "naive")),
        ("x" * 101, ("[UNK]",)),
        ("tabs\tand\x00 nul", ("tab", "##s", "and", "nu", "##l")),
        ("ok\x1b[31m red", ("ok", "[", "31", "##m", "red")),
        ("日本 ok", ("日", "本", "ok")),
    ],
)
def test_text_is_cut_as_the_teachers_tokenizer_cuts_it(text: str, pieces: tuple[str, ...]) -> None:
    """The expected pieces are what all-MiniLM-L6-v2's own tokenizer gives (accents
    stripped, punctuation and CJK split off, control characters dropped, a word past 100
    letters unknown): the reader only means what it learnt if it is fed the same pieces."""
    assert reader.token_ids(text) == ids(*pieces)


@given(st.text(st.characters(max_codepoint=127), max_size=80))
def test_ascii_text_is_cut_the_same_by_the_quick_way_and_the_long_one(text: str) -> None:
    assert reader.words(text) == reader.any_words(text)


def test_a_window_is_read_the_same_alone_and_beside_a_longer_one() -> None:
    """Windows are read in a batch, one after another: the others must change nothing."""
    short = "gave my guitar to jake today"
    longer = "went to the meeting, then the gym, then picked the kids up and made tea. " * 3
    alone = reader.probabilities([short])[0]
    batched = reader.probabilities([longer, short])[1]
    assert sum(alone.values()) == pytest.approx(1.0)
    for name, value in alone.items():
        assert batched[name] == pytest.approx(value, abs=1e-4)


def test_the_warm_up_text_is_read_by_both_models() -> None:
    """The app's warm-up reads it so that the first real text does not pay numpy's first
    calls: that only works while the linear model is unsure of it (weights trained again may
    change that; then pick another)."""
    from companion.coach.safety import model
    from companion.coach.safety.text import normalise, sentences

    danger = 1.0 - model.window_probabilities(sentences(normalise(safety.WARM_UP)))["none"]
    assert reader.worth_reading(danger, several=False)
    assert safety.assess(safety.WARM_UP) is None  # and warming up raises no alarm


def test_a_very_long_window_is_cut_to_what_the_reader_was_trained_on() -> None:
    assert len(reader.token_ids("word " * 500)) == reader.MAX_TOKENS


def test_without_numpy_the_detector_still_reads_with_the_linear_model() -> None:
    """numpy is a dependency, but a broken install must not silence the detector."""
    code = (
        "import sys; sys.modules['numpy'] = None\n"
        "from companion.coach import safety\n"
        "from companion.coach.safety import reader\n"
        "assert not reader.available()\n"
        "print(safety.assess('i swallowed the whole bottle of pills an hour ago') is not None)\n"
        "print(safety.assess('walked the dog and made soup, quiet day') is None)\n"
        "day = 'walked the dog. made soup. '\n"  # pasted: past safety.LONG sentences
        "print(safety.assess(day * 300 + 'i swallowed the whole bottle of pills') is not None)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=False, timeout=60
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["True", "True", "True"]


@pytest.mark.parametrize(
    "text",
    [
        "night babe, love you loads xxx",
        "got home safe xx",
        "xxxx",
        "Texted my brother, he sent back xx",
        "finally in bed zzzzz",
        "Mum replied with a thumbs up and xxxx",
        "item1 item2 item3 item4 item5 item6 item7 item8 item9 item10 item11 item12",
        "qwertyuiop",
    ],
)
def test_kisses_sleep_and_placeholders_raise_no_alarm(text: str) -> None:
    """Everyday shorthand once raised the crisis screen ("xxx" read as an overdose): none of
    these sentences is in the training files."""
    assert safety.assess(text) is None


def test_a_word_alone_rarely_raises_the_alarm() -> None:
    """A check-in note or a reply of one word ("stable", "hopeful"): of the whole English words
    in the reader's vocabulary (a list nobody wrote for this), a third raised the crisis screen
    when the linear model alone judged a word or two."""
    vocab = reader.reader().vocab
    words = [w for w in vocab if w.isascii() and w.isalpha() and len(w) >= 3][::5]
    alarms = [w for w in words if safety.assess(w)]
    assert len(words) > 4000
    assert len(alarms) / len(words) < 0.01, alarms[:20]


@pytest.mark.parametrize(
    "text", ["kms", "bought a rope", "cant breathe", "took the whole bottle", "i want to cut"]
)
def test_a_few_words_of_danger_still_raise_the_alarm(text: str) -> None:
    assert safety.assess(text) is not None


ORDINARY_DAY = [
    "slept ok, mood 5.",
    "went to the 7pm meeting and had coffee with dave after.",
    "my sponsor says im doing the work.",
    "the dog needs walking.",
]


@pytest.mark.parametrize(
    ("danger", "help_kind"),
    [
        (
            "honestly i took the rest of my pills about an hour ago and my chest feels weird.",
            safety.EMERGENCY,
        ),
        (
            "gave my guitar to my nephew and wrote letters to each of my kids, i wont need any of "
            "it after this weekend.",
            safety.CRISIS,
        ),
    ],
)
def test_one_danger_among_ordinary_sentences_raises_the_help_it_needs(
    danger: str, help_kind: str
) -> None:
    """A check-in of several sentences is read a few windows at a time, and the reader reads
    only those near the line: a danger in the middle of an ordinary day must still be heard."""
    assert safety.assess(" ".join(ORDINARY_DAY)) is None
    found = safety.assess(" ".join([*ORDINARY_DAY[:2], danger, *ORDINARY_DAY[2:]]))
    assert found is not None and found.help == help_kind
