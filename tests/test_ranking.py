"""Ranking over the sealed index, as the coach and search ask it: what a filter turns down is
never returned, ties go newer first however many tie, every word must match whether few or
most documents hold them all, and the off-the-record sessions stay right as sessions come and
change."""

from __future__ import annotations

from datetime import date, timedelta

from companion import clock
from companion.activity import chat, journal
from companion.memory import store
from companion.retrieval.dates import When
from companion.retrieval.order import Allowed
from companion.retrieval.rank import Index
from companion.retrieval.search import SearchIndex
from companion.vault import Vault
from companion.vault.documents import Ref


def test_what_a_filter_turns_down_is_never_ranked(vault: Vault) -> None:
    start = clock.now() - timedelta(days=20)
    entries = [
        journal.add(vault, f"rain again, day {n}", when=start + timedelta(days=n)) for n in range(6)
    ]
    session = chat.start(vault)
    said = chat.add_message(vault, session.id, "user", "the rain will not stop")
    index = Index(vault)
    weights = {"rain": 1.0}
    kinds = ("journal", "chat")

    def ranked(keep: Allowed) -> set[tuple[str, int]]:
        return {(s.doc.kind, s.doc.ref) for s in index.relevant(weights, keep, 20, None, kinds)}

    everything = {("journal", e.id) for e in entries} | {("chat", said.id)}
    assert ranked(Allowed()) == everything
    assert ranked(Allowed(never={"chat": {said.id}})) == everything - {("chat", said.id)}
    only = {entries[0].id, entries[3].id}
    assert ranked(Allowed(only={"journal": only, "chat": ()})) == {
        ("journal", entries[0].id),
        ("journal", entries[3].id),
    }
    days = [start.astimezone().date() + timedelta(days=n) for n in (1, 2)]
    span = Allowed(never={"chat": {said.id}}, when=When(days[0], days[1]))
    assert ranked(span) == {("journal", entries[1].id), ("journal", entries[2].id)}
    # The same filter as a predicate, for what reads documents in order.
    assert span(Ref("journal", entries[1].id, days[0]))
    assert not span(Ref("journal", entries[4].id, days[0] + timedelta(days=3)))
    assert not span(Ref("chat", said.id, days[0]))
    weekday = days[0].weekday()
    on_that_day = {
        ("journal", e.id) for e in entries if e.created_at.astimezone().date().weekday() == weekday
    }
    if said.created_at.astimezone().date().weekday() == weekday:
        on_that_day.add(("chat", said.id))
    assert ("journal", entries[1].id) in on_that_day
    assert ranked(Allowed(when=When(weekday=weekday))) == on_that_day


def test_many_equal_matches_come_newest_first_and_only_as_many_as_asked(vault: Vault) -> None:
    ids = [store.add_fact(vault, "Maya and the user talk about work") for _ in range(100)]
    ranked = Index(vault).relevant(
        {"maya": 1.0}, Allowed(), 5, clock.today(), ("fact",), [{"maya": 1.0}]
    )
    assert [s.doc.ref for s in ranked] == sorted(ids, reverse=True)[:5]
    assert all(s.coverage == 1.0 and s.direct for s in ranked)


def test_a_newer_equal_match_outranks_an_older_one_for_the_coach(vault: Vault) -> None:
    old = journal.add(vault, "sponsor call", when=clock.now() - timedelta(days=300))
    new = journal.add(vault, "sponsor call", when=clock.now() - timedelta(days=2))
    ranked = Index(vault).relevant({"sponsor": 1.0}, Allowed(), 2, clock.today(), ("journal",))
    assert [s.doc.ref for s in ranked] == [new.id, old.id]
    assert ranked[0].score > ranked[1].score


def test_other_words_come_after_the_question_s_own(vault: Vault) -> None:
    own = journal.add(vault, "rent is due", when=clock.now() - timedelta(days=200))
    other = journal.add(vault, "the landlord called twice about it", when=clock.now())
    weights = {"rent": 1.0, "landlord": 0.5}
    ranked = Index(vault).relevant(weights, Allowed(), 5, clock.today(), ("journal",))
    assert [(s.doc.ref, s.direct) for s in ranked] == [(own.id, True), (other.id, False)]


def test_every_word_must_match_whether_few_or_most_documents_hold_them_all(vault: Vault) -> None:
    start = clock.now() - timedelta(days=60)
    both = []
    for n in range(40):  # "gym" everywhere, "breathe" in a few: few candidates
        text = "gym again" + (", and I could breathe" if n % 13 == 0 else "")
        entry = journal.add(vault, text, when=start + timedelta(days=n))
        if n % 13 == 0:
            both.append(entry.id)
    index = SearchIndex(vault)
    assert sorted(hit.id for hit in index.search("gym breathe")) == sorted(both)
    assert sorted(hit.id for hit in index.search("breathe gym", newest=True)) == sorted(both)
    every = [hit.id for hit in index.search("gym again", limit=100)]  # most hold both
    assert len(every) == 40
    newest = [hit.id for hit in index.search("gym again", limit=100, newest=True)]
    assert newest == sorted(every, reverse=True)
    assert [hit.id for hit in index.search("gym again", limit=3)] == every[:3]


def test_off_the_record_sessions_stay_right_as_sessions_come_and_change(vault: Vault) -> None:
    first = chat.start(vault)
    assert chat.off_record_ids(vault) == frozenset()
    chat.set_off_record(vault, first.id, True)
    assert chat.off_record_ids(vault) == {first.id}
    second = chat.start(vault)  # only added: only it is read
    assert chat.off_record_ids(vault) == {first.id}
    third = chat.start(vault)
    chat.set_off_record(vault, third.id, True)  # added and changed: read again
    assert chat.off_record_ids(vault) == {first.id, third.id}
    chat.set_off_record(vault, first.id, False)
    fourth = chat.start(vault)
    chat.set_off_record(vault, fourth.id, True)
    assert chat.off_record_ids(vault) == {third.id, fourth.id}
    assert second.id not in chat.off_record_ids(vault)


def test_a_date_in_the_index_is_its_day(vault: Vault) -> None:
    moment = clock.now() - timedelta(days=3)
    entry = journal.add(vault, "kitchen table", when=moment)
    day = moment.astimezone().date()
    keep = Allowed(when=When(day, day))
    ranked = Index(vault).relevant({"kitchen": 1.0}, keep, 5, clock.today(), ("journal",))
    assert [s.doc.ref for s in ranked] == [entry.id]
    assert (
        Index(vault).relevant(
            {"kitchen": 1.0}, Allowed(when=When(date(2001, 1, 1), date(2001, 1, 31))), 5
        )
        == []
    )
