"""The sealed search index: found the moment it is written, gone the moment it is deleted,
never readable on disk, kept across unlocks (nothing rebuilt), and rebuilt on request when it
is damaged."""

from __future__ import annotations

import json
import sqlite3
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from companion import clock
from companion.activity import chat, checkins, journal
from companion.memory import forgetting, store
from companion.paths import VaultPaths
from companion.retrieval.search import SearchIndex
from companion.vault import Vault, integrity, words
from companion.vault.index import MERGE_AFTER
from companion.vault.models import IndexBucket, IndexDelta, IndexState
from tests.conftest import PASSPHRASE, run_cli


def found(vault: Vault, query: str, **kw: object) -> list[int]:
    return [hit.id for hit in SearchIndex(vault).search(query, **kw)]  # type: ignore[arg-type]


def held_in_index(vault: Vault, needle: str) -> bool:
    """Whether any index record, opened, contains ``needle`` (a term, or any text)."""
    for model in (IndexBucket, IndexDelta, IndexState):
        for row in integrity.rows(vault.conn, model):
            assert vault.keys.check_row(model.kind(), row, "id")
            data = vault.sealer.open(model.kind(), row["id"], row["payload"])
            if needle in json.dumps(data, ensure_ascii=False):
                return True
    return False


def index_rows(paths: VaultPaths) -> dict[str, int]:
    conn = sqlite3.connect(paths.db)
    try:
        return {
            t: conn.execute(f'SELECT count(*) FROM "{t}"').fetchone()[0]
            for t in ("index_bucket", "index_delta", "index_state")
        }
    finally:
        conn.close()


def test_an_entry_is_found_as_soon_as_it_is_saved_and_by_what_it_says_now(vault: Vault) -> None:
    entry = journal.add(vault, "Cravings hit hard after the meeting with my dad.")
    other = journal.add(vault, "Quiet day, walked the dog with Maya.")
    assert found(vault, "crav") == [entry.id]  # the last word as a prefix
    assert found(vault, "dad cravings") == [entry.id]  # every word must match
    assert found(vault, "dad maya") == []
    assert found(vault, '"walked the dog"') == [other.id]
    assert found(vault, '"dog walked"') == []
    journal.edit(vault, entry.id, "Slept well, no urges at all.")
    assert found(vault, "cravings") == []
    assert found(vault, "slept") == [entry.id]


def test_search_covers_check_in_notes_and_both_sides_of_a_chat(vault: Vault) -> None:
    checkins.record(vault, clock.today(), mood=4, note="Called my sponsor about the weekend")
    session = chat.start(vault)
    chat.add_message(vault, session.id, "user", "The weekend scares me")
    chat.add_message(vault, session.id, "assistant", "What about the weekend worries you?")
    kinds = [hit.kind for hit in SearchIndex(vault).search("weekend")]
    assert sorted(kinds) == ["chat", "chat", "checkin"]
    assert [hit.kind for hit in SearchIndex(vault).search("weekend", kind="checkin")] == ["checkin"]


def test_ties_rank_newer_first_and_newest_sorts_by_date(vault: Vault) -> None:
    start = clock.now() - timedelta(days=30)
    ids = [journal.add(vault, "gym again", when=start + timedelta(days=d)).id for d in (0, 9, 3)]
    assert found(vault, "gym") == [ids[1], ids[2], ids[0]]
    earlier = start - timedelta(days=1)
    strong = journal.add(vault, "gym gym gym, the gym is where I breathe", when=earlier).id
    assert found(vault, "gym")[0] == strong  # relevance first
    assert found(vault, "gym", newest=True) == [ids[1], ids[2], ids[0], strong]


def test_a_deleted_entry_leaves_no_word_in_any_index_record(vault: Vault) -> None:
    kept = journal.add(vault, "Maya visited, we cooked together")
    gone = journal.add(vault, "The zanzibarian dream about relapsing again")
    assert held_in_index(vault, words.stem("zanzibarian"))
    journal.delete(vault, gone.id)
    assert found(vault, "zanzibarian") == []
    assert not held_in_index(vault, words.stem("zanzibarian"))
    assert found(vault, "cooked") == [kept.id]


def test_an_edit_compacts_the_words_it_removed(vault: Vault) -> None:
    entry = journal.add(vault, "The quixotical plan to drink at the wedding")
    vault.index.merge()  # in the buckets, not only in a delta
    journal.edit(vault, entry.id, "The plan for the wedding: leave early, call Dan")
    assert not held_in_index(vault, words.stem("quixotical"))
    assert found(vault, "leave early") == [entry.id]


def test_forgetting_a_fact_and_a_fresh_start_take_their_words_out(vault: Vault) -> None:
    from companion.memory import fresh_start

    fact = store.add_fact(vault, "Keeps a hidden flask in the glovebox", category="risk")
    store.add_fact(vault, "Loves marmalade on toast", category="preference")
    assert held_in_index(vault, words.stem("glovebox"))
    forgetting.forget_fact(vault, fact)
    assert not held_in_index(vault, words.stem("glovebox"))
    assert held_in_index(vault, words.stem("marmalade"))
    fresh_start.fresh_start(vault)
    assert not held_in_index(vault, words.stem("marmalade"))


def test_a_write_that_rolls_back_leaves_nothing_in_the_index(vault: Vault) -> None:
    with pytest.raises(RuntimeError), vault.transaction():
        journal.add(vault, "Unsaved thoughts about the bartender")
        raise RuntimeError("the save failed")
    assert found(vault, "bartender") == []
    assert not held_in_index(vault, words.stem("bartender"))


def test_the_index_is_kept_across_unlocks_and_never_plaintext(
    created: tuple[VaultPaths, str],
) -> None:
    paths, _ = created
    with Vault.unlock(paths, PASSPHRASE) as vault:
        for n in range(30):
            journal.add(vault, f"Evening {n}: thought about the pelican bar and stayed home")
        waiting = index_rows(paths)["index_delta"]
        assert waiting >= 1
    with Vault.unlock(paths, PASSPHRASE) as vault:
        # Not rebuilt: what waited to be merged still waits, and is found.
        assert index_rows(paths)["index_delta"] == waiting
        assert len(found(vault, "pelican", limit=100)) == 30
        vault.index.merge()
        assert index_rows(paths)["index_delta"] == 0
        assert index_rows(paths)["index_bucket"] > 0
        assert len(found(vault, "pelican", limit=100)) == 30
    for name in ("pelican", "pelican".upper(), words.stem("pelican")):
        assert name.encode() not in paths.db.read_bytes()


def test_a_script_that_only_writes_still_gets_its_deltas_merged(
    created: tuple[VaultPaths, str],
) -> None:
    """A cron job adding entries one command at a time never searches: what waits in deltas
    must still be folded in, or every later search reads all of them."""
    paths, _ = created
    with Vault.unlock(paths, PASSPHRASE) as vault:
        for n in range(MERGE_AFTER + 5):
            journal.add(vault, f"Night {n}: the heron by the canal again")
    assert index_rows(paths)["index_delta"] < MERGE_AFTER
    with Vault.unlock(paths, PASSPHRASE) as vault:
        assert len(found(vault, "heron", limit=500)) == MERGE_AFTER + 5


@pytest.mark.damages_vault
def test_a_damaged_index_is_named_by_verify_and_rebuilt_on_request(
    created: tuple[VaultPaths, str], passfile: Path
) -> None:
    paths, _ = created
    with Vault.unlock(paths, PASSPHRASE) as vault:
        entry = journal.add(vault, "The lighthouse keeper called; I did not drink")
        vault.index.merge()
        number = vault.index.state().bucket_of(words.stem("lighthouse"))  # type: ignore[union-attr]
    conn = sqlite3.connect(paths.db)
    with conn:
        sealed = bytearray(
            conn.execute("SELECT payload FROM index_bucket WHERE id = ?", (number,)).fetchone()[0]
        )
        sealed[-1] ^= 1
        conn.execute("UPDATE index_bucket SET payload = ? WHERE id = ?", (bytes(sealed), number))
    conn.close()
    report = run_cli("--passphrase-file", str(passfile), "verify")
    assert report.returncode == 65
    assert f"index_bucket {number}" in report.stdout
    assert "--rebuild-index" in report.stdout
    rebuilt = run_cli("--passphrase-file", str(passfile), "verify", "--rebuild-index")
    assert rebuilt.returncode == 0, rebuilt.stdout + rebuilt.stderr
    assert "search index rebuilt" in rebuilt.stdout
    searched = run_cli("--passphrase-file", str(passfile), "journal", "search", "lighthouse")
    assert searched.returncode == 0 and str(entry.created_at.date()) in searched.stdout


def test_the_journal_lists_its_tags_from_the_index(vault: Vault) -> None:
    journal.add(vault, "Ran 5k #running #mood")
    journal.add(vault, "Rest day #mood")
    assert SearchIndex(vault).tag_counts() == [("mood", 2), ("running", 1)]
    old = datetime(2020, 1, 1).astimezone()
    journal.add(vault, "An old one #archive", when=old)
    assert ("archive", 1) in SearchIndex(vault).tag_counts()
    journal.add(vault, "journal entry #3. need more #6 for the shelf. &#39;quoted&#39;")
    assert [t for t, _ in SearchIndex(vault).tag_counts()] == ["mood", "archive", "running"]
    journal.add(vault, "a milestone #90days", tags=["12steps"])
    assert {"90days", "12steps"} <= {t for t, _ in SearchIndex(vault).tag_counts()}


def test_every_tag_an_entry_was_given_is_listed_as_it_was_given(vault: Vault) -> None:
    """Tags typed in the Tags field are the entry's own: a year, a place with a dotted capital
    and two words are listed whole, not cut where the #tag pattern of the text would stop."""
    journal.add(vault, "Back from the trip.", tags=["2024", "İstanbul", "new job"])
    journal.add(vault, "Photos sorted.", tags=["2024"])
    listed = dict(SearchIndex(vault).tag_counts())
    assert listed["2024"] == 2
    assert listed[journal.normalise_tag("İstanbul")] == 1
    assert listed["new job"] == 1
    assert not {"i", "new"} & set(listed)


def test_an_index_of_an_older_version_is_rebuilt_at_unlock_with_its_tags(
    created: tuple[VaultPaths, str],
) -> None:
    """An upgrade that changes what the index holds (version 2: tags as stored) builds it
    anew at the next unlock, so an index written by the last release lists "2024" too."""
    from companion.vault.postings import State

    paths = created[0]
    old = Vault.unlock(paths, PASSPHRASE)
    journal.add(old, "Back from the trip.", tags=["2024"])
    old.index.merge()
    state = old.index.state()
    assert state is not None
    with old.transaction():  # what the last release left: version 1, without "#2024"
        old.index._write_bucket(0, {})
        old.index._write_state(State(state.salt, state.counts, version=1))
    old.close()
    new = Vault.unlock(paths, PASSPHRASE)
    try:
        assert dict(SearchIndex(new).tag_counts()) == {"2024": 1}
    finally:
        new.close()
