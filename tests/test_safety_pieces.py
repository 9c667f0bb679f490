"""The word pieces the detector's meaning rests on: cut as all-MiniLM-L6-v2's own tokenizer
cuts them (the cuts below are that tokenizer's), and read as the training script read them."""

from __future__ import annotations

import math

from companion.coach.safety import model
from companion.coach.safety.pieces import LONGEST, split
from companion.coach.safety.text import normalise, sentences


def known() -> dict[str, int]:
    return model.weights().pieces


def test_words_are_cut_greedily_from_the_left_as_the_sentence_model_cuts_them() -> None:
    assert split("guitar", known()) == ["guitar"]
    assert split("overdosed", known()) == ["overdose", "##d"]
    assert split("goodbyes", known()) == ["goodbye", "##s"]
    assert split("fentanyl", known()) == ["fen", "##tan", "##yl"]
    assert split("unalive", known()) == ["una", "##li", "##ve"]
    assert split("percocet", known()) == ["per", "##co", "##ce", "##t"]


def test_punctuation_splits_a_word_and_what_cannot_be_cut_is_left_out() -> None:
    assert split("mom's", known()) == ["mom", "s"]
    assert split(".", known()) == []
    assert split("a" * (LONGEST + 1), known()) == []
    assert split("abc", {"a"}) == []  # no "##b": the run is unknown, as in BERT


def test_a_window_weighs_the_mean_of_its_pieces_and_the_sum_of_its_words() -> None:
    """Reading a sentence twice doubles its words' weights but leaves the mean of its pieces
    as it was (the training script gives the model that mean)."""
    sentence = sentences(normalise("gave my guitar to jake today"))[0]
    words, _, pieces, count = model.sentence_parts(sentence)
    assert count == 6 and any(abs(value) > 0.01 for value in pieces)
    once = model.window_probabilities([sentence])
    twice = model.window_probabilities([sentence, sentence])
    classes = model.weights().classes
    none = classes.index(model.NONE)
    for i, category in enumerate(classes):
        moved = math.log(twice[category] / twice[model.NONE]) - math.log(
            once[category] / once[model.NONE]
        )
        assert abs(moved - (words[i] - words[none])) < 1e-4, category


def test_a_trained_word_is_looked_up_as_its_pieces_would_weigh_it() -> None:
    """The export sums each trained word's pieces once; the lookup must be what cutting the
    word at run time gives."""
    w = model.weights()
    width = len(w.classes)
    trained = [name[2:] for name in list(w.at)[:2000] if name.startswith("w:")]
    assert len(w.known) and trained
    for word in trained[::20]:
        row = model._word(word, False)
        summed, count = row[width : 2 * width], row[-1]
        found = split(word, w.pieces)
        assert count == len(found)
        for i in range(width):
            expected = sum(w.values[w.pieces[p] + i] for p in found)
            assert math.isclose(summed[i], expected, rel_tol=1e-4, abs_tol=1e-5)


def test_the_quick_verdict_is_the_verdict_of_the_probabilities() -> None:
    """``window_verdict`` skips the dictionary of probabilities; it must decide the same."""
    said = [
        "gave my guitar to jake today",
        "i want to end my life. took all of my pills just now",
        "this commute is killing me",
        "tired. so tired of all of it",
    ]
    for text in said:
        window = sentences(normalise(text))
        for threshold in (None, 0.5):
            probs = model.window_probabilities(window)
            assert model.window_verdict(window, threshold) == model.verdict(probs, threshold)


def test_every_trained_word_pair_is_found_by_its_two_words() -> None:
    """A pasted text looks pairs up by their words (``model.pairs``), the rest by name: both
    must reach every trained pair, and only those (a word with "_" in it would split wrong)."""
    from companion.coach.safety.text import PAIR

    by_name = {n: at for n, at in model.weights().at.items() if n.startswith("b:")}
    assert len(by_name) > 1000
    assert {PAIR(*words): at for words, at in model.pairs().items()} == by_name


def test_a_pasted_text_is_decided_as_each_of_its_windows_would_be() -> None:
    """``pasted.verdicts`` scores every window of a long text at once on numpy; on the windows
    of every development and training text, each verdict must be ``window_verdict``'s, at the
    trained line and at a long text's line."""
    from companion.coach import safety
    from companion.coach.safety import pasted
    from scripts.train_safety import training_rows

    windows = [w for row in training_rows() for w in safety._windows(row["text"]).windows]
    assert len(windows) > 5000
    for line in (None, safety.LONG_TEXT_THRESHOLD):
        expected = [model.window_verdict(window, line) for window in windows]
        assert pasted.verdicts(windows, line) == expected
        assert sum(v != model.NONE for v in expected) > 1000  # dangers among them, not only none
    assert pasted.verdicts([], None) == []
