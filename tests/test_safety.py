"""Crisis detection on a labelled set written for Companion: many phrasings, typos, and the
figures of speech that must not trigger. Prints precision and recall."""

from __future__ import annotations

from companion.coach.safety import detect

CRISIS = [
    "I want to kill myself",
    "i wanna kms",
    "I've been feeling suicidal all week",
    "honestly im suicidel again",
    "I keep thinking about suicide",
    "I think everyone would be better off without me",
    "I don't want to be alive anymore",
    "i dont want to wake up tomorrow",
    "I hope I don't wake up",
    "There's no reason to live",
    "I'm going to end it all tonight",
    "I want to end my life",
    "thinking of taking my own life",
    "I wish I was dead",
    "I want to diiiie",
    "I cut myself again last night",
    "started cutting again, can't stop",
    "I hurt myself on purpose when the cravings hit",
    "self harm is the only thing that helps",
    "I've been self-harming",
    "I took all my pills",
    "thinking about swallowing the whole bottle of pills",
    "I might overdose on purpose",
    "I almost OD'd last night and part of me wanted to",
    "I'm going to mix pills and alcohol and not wake up",
    "i wrote a goodbye letter",
    "I have a suicide plan",
    "SUICIDAL thoughts again",
    "better off dead honestly",
    "i just want to disappear forever and not exist",
    "I want to burn myself",
    "no point in living anymore",
    "my sucide attempt last year scares me",
    "I can't go on living like this, I want it to be over, I want to die",
]

NOT_CRISIS = [
    "This commute is killing me",
    "I'd kill for a nap right now",
    "I'm dying to see my daughter this weekend",
    "That cake was to die for",
    "I'm dead tired after the meeting",
    "My phone is dead again",
    "You killed it at work today",
    "I could overdose on chocolate",
    "My back is killing me",
    "The meeting was long but I stayed",
    "I had a craving at 4pm and called my sponsor",
    "We watched Suicide Squad last night",
    "I'm so tired of my job",
    "I want to quit drinking for good",
    "I slept badly and feel low",
    "I'm killing it at the gym",
    "I need to cut down on coffee",
    "She said the deadline would kill the team",
    "I want to end this habit",
    "Grief over my father's death is hard today",
]


def test_crisis_detection_precision_and_recall() -> None:
    true_pos = sum(detect(s) for s in CRISIS)
    false_pos = sum(detect(s) for s in NOT_CRISIS)
    recall = true_pos / len(CRISIS)
    precision = true_pos / (true_pos + false_pos)
    missed = [s for s in CRISIS if not detect(s)]
    wrong = [s for s in NOT_CRISIS if detect(s)]
    print(
        f"\ncrisis detection: precision {precision:.3f}, recall {recall:.3f} "
        f"on {len(CRISIS)} + {len(NOT_CRISIS)} sentences"
    )
    assert len(CRISIS) + len(NOT_CRISIS) >= 40
    assert recall >= 0.98, missed
    assert precision >= 0.9, wrong


def test_the_lexicon_searches_only_what_a_sentence_could_match() -> None:
    """The pre-check (``lexicon.places``) may leave a pattern untried at a place only when no
    match of it begins there: the concepts found are those every pattern would find, on every
    training sentence, and the shipped table of beginnings is the one the patterns give
    today."""
    from companion.coach.safety import lexicon
    from companion.coach.safety.text import sentences, tokens
    from scripts.train_safety import training_rows

    assert lexicon.derive_starts() == (
        lexicon.WORD_STARTS,
        lexicon.STEM_STARTS,
        lexicon.ANYWHERE,
    ), "run python -m scripts.train_safety --starts"

    def tried(spelled: list[str]) -> dict[str, set[int]]:
        out: dict[str, set[int]] = {}
        for at, names in lexicon.places(" ".join(spelled), spelled):
            for name in names:
                out.setdefault(name, set()).add(at)
        return out

    checked = 0
    for row in training_rows():
        for sentence in sentences(row["text"]):
            spelled = tokens(sentence)
            text = " ".join(spelled)
            every = {name for name, pattern in lexicon.patterns().items() if pattern.search(text)}
            begin = tried(spelled)
            for name in every - lexicon.ANYWHERE:
                where = {m.start() for m in lexicon.compiled(name).finditer(text)}
                assert where & begin.get(name, set()), (name, text)
            assert {m for m in lexicon.marks(spelled) if m in lexicon.SOURCES} == every
            checked += 1
    assert checked > 5000
    assert tried(tokens("slept well, lovely walk")) == {}
    assert tried(tokens("so tired. suicidal again"))["k:suicide"] == {11}
    assert 11 in tried(tokens("mum's ok. took all the pills"))["k:too_much"]


def test_a_long_sentence_is_read_in_clauses_and_not_a_word_is_left_out() -> None:
    """A day typed with commas is cut where its clauses meet; no piece is too short to mean
    anything alone, and every word is still read."""
    from companion.coach.safety.text import CLAUSE, LONG_SENTENCE, WORD, clauses

    day = (
        "long day at work, boss on at me about the rota again and i said nothing, got the bus"
        " home in the rain, fed the cat, then my sister rang about christmas plans, i have the"
        " pills saved up and tonight feels like the night, made pasta and watched telly"
    )
    pieces = clauses(day)
    assert len(pieces) > 2 and all(len(WORD.findall(p)) >= CLAUSE for p in pieces)
    assert WORD.findall(" ".join(pieces)) == WORD.findall(day)
    assert any("pills saved up" in p and "christmas" not in p for p in pieces)
    short = "long day, fed the cat, made pasta"
    assert len(WORD.findall(short)) <= LONG_SENTENCE and clauses(short) == [short]


def test_an_ordinary_long_sentence_does_not_change_how_the_rest_is_read() -> None:
    """Once one sentence was cut into clauses, every window of the text took the clause rule
    (a higher line): an overdose taken, heard alone, went unheard beside an ordinary day."""
    taken = (
        "took 12 of the sleeping pills my doc gave me. wanted a break from my head. now i cant"
        " lift my arms."
    )
    day = (
        "work was long, the bus was late again, i made soup for dinner and watched two episodes"
        " of that baking show with my sister, then i folded laundry and called mum about sunday"
        " lunch."
    )
    assert detect(taken) and not detect(day)
    assert detect(f"{taken} {day}") and detect(f"{day} {taken}")
