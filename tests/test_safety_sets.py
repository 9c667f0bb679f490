"""Crisis detection measured on the project's own held-back sentences (never tuned on), per
category, and the promises around it: the held-back set is the one committed before tuning,
and the help comes in the order each danger needs."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from companion.coach import crisis, safety
from companion.config import Config, CrisisLine

DATA = Path(__file__).parent / "data" / "crisis"
HELD_BACK_SHA256 = "8ed2aa6523ac4c33b2fc4ca4877e8d56a6fb5c6d630e94791a534bf5b7af1d08"
EVERYDAY_SHA256 = "529c7970a6cda4ec399f65892dc21d045495fd16e3112c3302270402e92e005d"
# What holds today on the held-back half (see docs/safety.md). The targets are
# recall >= 0.98 over all danger, precision >= 0.90 and every category >= 0.90: precision
# holds, recall and two categories (preparation, self-harm) do not yet.
FLOOR_RECALL = 0.93
FLOOR_PRECISION = 0.90
FLOOR_CATEGORY_RECALL = 0.85
CEILING_EVERYDAY_ALARMS = 0.04
"""The share of everyday lines (everyday_apart.jsonl) that raise the crisis screen today."""
SHORT_SHA256 = "52b42a8cc0d10fed7339b3ac313e9f5cbc612c08a68c3bcfed71bee8d4a63ee6"
FLOOR_SHORT_RECALL = 0.90
CEILING_SHORT_ALARMS = 0.10
"""What holds today on the lines of one to six words kept apart (short_apart.jsonl)."""
INDIRECT_SHA256 = "7c34ebb32356705bd0273382c2c7fe65addc10848aa45eb8d9987779e79d375b"
CONVERSATION_SHA256 = "eea8a8c66d569554baae68922bcc89212544852ae8ee018002527ba7aedb606a"
FLOOR_CONVERSATION_RECALL = 0.92
"""What holds today on conversation_apart.jsonl (0.927 when it was first scored)."""
HOPE_SHA256 = "4df93a7599fef1749051b730516715e7983932eb869e941aee2b96ea78fe7705"
FLOOR_HOPE_RECALL = 0.87
CEILING_HOPE_ALARMS = 0.33
"""What holds today on hope_apart.jsonl: 41 of 46 dangers heard, and 34 of 104 harmless
hopes and wishes raise the crisis screen (32 before a sentence was read alone too; raised
within the rule that shipped it, docs/safety.md, "A short sentence of danger beside an
ordinary one"; the rounds before: "An eleventh round")."""
EVERYDAY2_SHA256 = "e96b6401066065af57ec8f21096b3df73631e81808eacf880121a6ad50bc6b1d"
CEILING_EVERYDAY2_ALARMS = 0.09
"""What holds today on a second week of everyday writing (everyday_apart2.jsonl): 32 of 368
lines (29 before a sentence was read alone too, 31 with it; one more since only windows of
clauses take the clause rule: docs/safety.md, "A short sentence of danger beside an ordinary
one"), twice the share of the first week's."""


def test_the_held_back_half_is_the_one_committed_before_tuning() -> None:
    digest = hashlib.sha256((DATA / "held_back.jsonl").read_bytes()).hexdigest()
    assert digest == HELD_BACK_SHA256
    assert digest in (DATA / "held_back.sha256").read_text()


def test_the_everyday_lines_are_the_ones_committed_before_tuning() -> None:
    digest = hashlib.sha256((DATA / "everyday_apart.jsonl").read_bytes()).hexdigest()
    assert digest == EVERYDAY_SHA256
    assert digest in (DATA / "everyday_apart.sha256").read_text()


@pytest.mark.parametrize(
    ("name", "digest", "ceiling"),
    [
        ("everyday_apart.jsonl", EVERYDAY_SHA256, CEILING_EVERYDAY_ALARMS),
        ("everyday_apart2.jsonl", EVERYDAY2_SHA256, CEILING_EVERYDAY2_ALARMS),
    ],
)
def test_everyday_writing_rarely_raises_the_crisis_screen(
    name: str, digest: str, ceiling: float
) -> None:
    """Ordinary lines of chat, journal and check-in (none of them danger, never trained on):
    each alarm is the crisis screen over someone's "stable" or "fence done"."""
    raw = (DATA / name).read_bytes()
    assert hashlib.sha256(raw).hexdigest() == digest
    assert digest in (DATA / name).with_suffix(".sha256").read_text()
    rows = [json.loads(line) for line in raw.decode().splitlines()]
    alarms = [(row["text"], found) for row in rows if (found := safety.assess(row["text"]))]
    print(f"\n{name}: {len(alarms)} alarms in {len(rows)}")
    if name == "everyday_apart.jsonl":  # the second week's lines are not read, only counted
        for text, found in alarms:
            print(f"  {found.category:<20} {text[:60]}")
    assert len(alarms) / len(rows) <= ceiling


RUN_ON = {
    "runon_apart.jsonl": "af8638cd33f10b5e829738050f5b9e71e437c13d8a244ba80d60a1c606823b28",
    "runon_apart2.jsonl": "05dc0391f2cb1a6424713182ea148de38f8cb16ed656fc010bd1656cab05382f",
    "runon_apart3.jsonl": "a233ee844b23db3957f4e91c4dc05989b9476b6b494c36c7f8ba3518358e74a4",
}
EVERYDAY_RUN_ON = {
    "everyday_runon.jsonl": "4165844d30b0ebfbf16f4f01100c8af5c1a8727a65c57637c458a2f1178d6ded",
    "everyday_runon2.jsonl": "c3eff3baebcff82d7cfc373d19f1e7745568b9ef4bf14523a6c21b8675575acf",
}
FLOOR_RUN_ON_RECALL = 0.90
CEILING_RUN_ON_ALARMS = 0.07
"""What holds today on days typed as one sentence, by four writers apart: 167 of 180 dangers
heard (139 before clauses were read), 19 alarms in 480 harmless run-ons (25 before;
docs/safety.md, "A whole evening in one sentence")."""


MESSAGES = {
    "messages_apart.jsonl": "0c9fd4acdd20b3dbf72f57dcc2059745ab078726982949f4dc40052c8a97ed2f",
    "messages_apart2.jsonl": "7bee46765befb42735ff2e1db26ce889791d8cb18adc8dd46d63b30cd7c35645",
}
FLOOR_MESSAGE_RECALL = 0.88
"""What holds today on messages of a few sentences, one of them a short danger, by two
writers apart: 145 of 160 heard (102 before a sentence was read alone too), 10 alarms in 160
harmless messages of the same shape (9 before)."""


def test_a_short_sentence_of_danger_among_ordinary_ones_is_heard() -> None:
    """ "picked the kids up. thought about ending it again. made pasta.": in a window with its
    ordinary neighbour a short sentence of danger was drowned; each is read alone too."""
    rows = []
    for name, digest in MESSAGES.items():
        raw = (DATA / name).read_bytes()
        assert hashlib.sha256(raw).hexdigest() == digest
        assert digest in (DATA / name).with_suffix(".sha256").read_text()
        rows += [json.loads(line) for line in raw.decode().splitlines()]
    found = [(row["category"] != "none", safety.detect(row["text"])) for row in rows]
    heard = sum(hit for danger, hit in found if danger)
    alarms = sum(hit for danger, hit in found if not danger)
    dangers = sum(danger for danger, _ in found)
    print(f"\nmessages kept apart: {heard} of {dangers} dangers heard,")
    print(f"  {alarms} alarms in {len(rows) - dangers} harmless messages")
    assert heard / dangers >= FLOOR_MESSAGE_RECALL
    assert heard / (heard + alarms) >= FLOOR_PRECISION


def run_ons() -> tuple[list[str], list[str]]:
    """The dangers and the harmless texts of the run-on sets kept apart, checked unchanged."""
    dangers, harmless = [], []
    for name, digest in {**RUN_ON, **EVERYDAY_RUN_ON}.items():
        raw = (DATA / name).read_bytes()
        assert hashlib.sha256(raw).hexdigest() == digest
        assert digest in (DATA / name).with_suffix(".sha256").read_text()
        for row in map(json.loads, raw.decode().splitlines()):
            (harmless if row["category"] == "none" else dangers).append(row["text"])
    return dangers, harmless


def test_one_clause_of_danger_in_a_day_typed_as_one_sentence_is_heard() -> None:
    """ "long day, boss on at me, i have the pills saved up and tonight feels like the night,
    made pasta": read whole, one clause of danger among twenty of a day was drowned."""
    dangers, harmless = run_ons()
    heard = sum(safety.detect(text) for text in dangers)
    alarms = sum(safety.detect(text) for text in harmless)
    print(f"\nrun-ons kept apart: {heard} of {len(dangers)} dangers heard,")
    print(f"  {alarms} alarms in {len(harmless)} harmless run-ons")
    assert heard / len(dangers) >= FLOOR_RUN_ON_RECALL
    assert alarms / len(harmless) <= CEILING_RUN_ON_ALARMS


def test_a_run_on_of_danger_after_another_of_an_ordinary_day_is_heard() -> None:
    """A journal entry of two long sentences, an ordinary day (one that raises no alarm alone)
    and then danger: before clauses were read, the danger was heard in 52 of these 180."""
    dangers, harmless = run_ons()
    harmless = [text for text in harmless if not safety.detect(text)]
    entries = [f"{harmless[i].rstrip('.')}. {text}" for i, text in enumerate(dangers)]
    heard = sum(safety.detect(entry) for entry in entries)
    print(f"\nan ordinary run-on, then one of danger: {heard} of {len(entries)} heard")
    assert heard / len(entries) >= FLOOR_RUN_ON_RECALL


def test_hopes_and_wishes_are_told_from_danger_in_the_same_words() -> None:
    """Everyday hopes and wishes ("hope so", "wish me luck") beside danger in the same words
    (hope_apart.jsonl, by two writers apart, committed before it was scored): each alarm is
    the crisis screen over an ordinary reply."""
    raw = (DATA / "hope_apart.jsonl").read_bytes()
    assert hashlib.sha256(raw).hexdigest() == HOPE_SHA256
    assert HOPE_SHA256 in (DATA / "hope_apart.sha256").read_text()
    rows = [json.loads(line) for line in raw.decode().splitlines()]
    found = [(row, safety.assess(row["text"]) is not None) for row in rows]
    dangers = [hit for row, hit in found if row["category"] != "none"]
    alarms = [hit for row, hit in found if row["category"] == "none"]
    print(f"\nhope_apart.jsonl: {sum(dangers)} of {len(dangers)} dangers heard,")
    print(f"  {sum(alarms)} alarms in {len(alarms)} harmless lines")
    assert sum(dangers) / len(dangers) >= FLOOR_HOPE_RECALL
    assert sum(alarms) / len(alarms) <= CEILING_HOPE_ALARMS


def test_a_few_words_are_read_as_they_are_meant() -> None:
    """Replies and notes of one to six words (short_apart.jsonl, never trained or tuned on):
    "cut again" is danger, "stable" and "heaven" are not."""
    digest = hashlib.sha256((DATA / "short_apart.jsonl").read_bytes()).hexdigest()
    assert digest == SHORT_SHA256
    rows = [json.loads(line) for line in (DATA / "short_apart.jsonl").read_text().splitlines()]
    found = [(row, safety.assess(row["text"])) for row in rows]
    dangers = [row for row, _ in found if row["category"] != "none"]
    caught = sum(hit is not None for row, hit in found if row["category"] != "none")
    alarms = [row["text"] for row, hit in found if row["category"] == "none" and hit]
    harmless = len(rows) - len(dangers)
    print(f"\nshort lines kept apart: {caught} of {len(dangers)} dangers caught, {len(alarms)}")
    print(f"  alarms in {harmless} harmless lines: {', '.join(alarms)}")
    assert caught / len(dangers) >= FLOOR_SHORT_RECALL
    assert len(alarms) / harmless <= CEILING_SHORT_ALARMS


def scored(name: str) -> tuple[float, float, dict[str, float]]:
    """Danger recall, precision and recall per category on one labelled set, printed."""
    rows = [json.loads(line) for line in (DATA / name).read_text().splitlines()]
    found = {row["text"]: safety.assess(row["text"]) for row in rows}
    categories = sorted({row["category"] for row in rows} - {"none"})
    lines, recalls = [], {}
    for category in categories:
        mine = [row for row in rows if row["category"] == category]
        recalls[category] = sum(found[row["text"]] is not None for row in mine) / len(mine)
        lines.append(f"  {category:<20} recall {recalls[category]:.3f} ({len(mine)})")
    positives = [row for row in rows if row["category"] != "none"]
    negatives = [row for row in rows if row["category"] == "none"]
    caught = sum(found[row["text"]] is not None for row in positives)
    alarms = sum(found[row["text"]] is not None for row in negatives)
    recall, precision = caught / len(positives), caught / max(1, caught + alarms)
    print("\n".join([f"\n{name}:", *lines]))
    print(f"  danger recall {recall:.3f}, precision {precision:.3f} ({alarms} false alarms)")
    return recall, precision, recalls


def test_recall_and_precision_on_the_held_back_half() -> None:
    recall, precision, recalls = scored("held_back.jsonl")
    assert recall >= FLOOR_RECALL and precision >= FLOOR_PRECISION
    assert min(recalls.values()) >= FLOOR_CATEGORY_RECALL, recalls


def test_recall_and_precision_on_indirect_wording_kept_apart() -> None:
    """A second set like the held-back half (indirect danger, hard harmless lines), written
    by three writers apart after seven rounds of training, so no choice before it saw it."""
    digest = hashlib.sha256((DATA / "indirect_apart.jsonl").read_bytes()).hexdigest()
    assert digest == INDIRECT_SHA256
    assert digest in (DATA / "indirect_apart.sha256").read_text()
    recall, precision, _ = scored("indirect_apart.jsonl")
    assert recall >= FLOOR_RECALL and precision >= FLOOR_PRECISION


def test_recall_and_precision_on_conversation_kept_apart() -> None:
    """A third set: replies to the coach, check-in notes and journal lines by three more
    writers apart, committed before anything was scored on it."""
    digest = hashlib.sha256((DATA / "conversation_apart.jsonl").read_bytes()).hexdigest()
    assert digest == CONVERSATION_SHA256
    assert digest in (DATA / "conversation_apart.sha256").read_text()
    recall, precision, _ = scored("conversation_apart.jsonl")
    assert recall >= FLOOR_CONVERSATION_RECALL and precision >= FLOOR_PRECISION


def test_an_overdose_taken_puts_the_emergency_number_and_poison_control_first() -> None:
    danger = safety.assess("took the whole bottle about an hour ago and my heart is racing")
    assert danger is not None and danger.help == safety.EMERGENCY
    kinds = [line.kind for line in crisis.lines_for(Config(region="US"), danger.help)]
    assert kinds == ["emergency", "poison", "crisis"]
    thoughts = safety.assess("i keep thinking everyone would be better off without me")
    assert thoughts is not None and thoughts.help == safety.CRISIS
    assert crisis.lines_for(Config(region="US"), thoughts.help)[0].kind == "crisis"


def test_every_region_has_an_emergency_number_and_the_directory_is_the_fallback() -> None:
    for region in crisis.REGIONS:
        kinds = {line.kind for line in crisis.lines_for(Config(region=region))}
        assert {"emergency", "crisis"} <= kinds, region
    assert set(crisis.REGIONS) >= {"US", "CA", "GB", "IE", "AU", "NZ", "DE", "FR", "ES", "IN", "ZA"}
    unknown = crisis.lines_for(Config(region="ZZ"), safety.EMERGENCY)
    assert unknown[0].kind == "emergency" and "findahelpline.com" in unknown[-1].contact


def test_the_region_comes_from_the_locale_and_c_names_no_country(monkeypatch) -> None:
    """Python reads the C locale as en_US: a container or a minimal system showed 911 and 988
    to anyone. With no country known, the local emergency number and the directory show, and
    the screen says where to set one."""
    for name in ("LC_ALL", "LC_MESSAGES"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("LANG", "C.UTF-8")
    lines = crisis.lines_for(Config())
    assert "911" not in crisis.as_text(Config()) and "findahelpline.com" in lines[0].contact
    assert crisis.where(Config()) == "Set your country in Settings (F10) to see its numbers here."
    monkeypatch.setenv("LANG", "en_GB.UTF-8")
    assert "call 999 or 112" in crisis.as_text(Config())
    assert crisis.where(Config()) == "Numbers for the UK; another country: Settings (F10)."
    locked = "Numbers for the UK; another country: Settings (F10), once your vault is open."
    assert crisis.where(Config(), locked=True) == locked
    assert set(crisis.NAMES) == set(crisis.REGIONS)


def test_an_old_override_without_kinds_comes_after_the_built_in_emergency_number() -> None:
    config = Config(region="GB", crisis_lines=[CrisisLine("My sponsor", "call 07700 900123")])
    lines = crisis.lines_for(config, safety.EMERGENCY)
    assert [line.contact for line in lines] == ["call 999 or 112", "call 07700 900123"]


def test_companion_chat_names_the_emergency_number_first_for_an_overdose_taken(
    created, passfile, fake_llm
) -> None:
    from tests.conftest import child_env, run_cli

    result = run_cli(
        "--passphrase-file",
        str(passfile),
        "chat",
        "i took the whole bottle of my pills an hour ago and my heart is racing",
        env=child_env(LANG="en_US.UTF-8"),
    )
    assert result.returncode == 0, result.stderr
    err = result.stderr
    assert "too much may have been taken" in err
    assert err.index("call 911") < err.index("1-800-222-1222") < err.index("988")
    system = fake_llm.requests[-1]["body"]["system"]
    assert "call the emergency number now" in system and "call 911" in system


def test_journal_add_shows_help_on_standard_error_and_exits_as_usual(created, passfile) -> None:
    from tests.conftest import child_env, run_cli

    said = "i keep thinking everyone would be better off if i just wasnt here anymore"
    env = child_env(LANG="en_US.UTF-8")
    result = run_cli("--passphrase-file", str(passfile), "journal", "add", said, env=env)
    assert result.returncode == 0 and result.stdout.startswith("saved entry 1")
    assert "You are not alone" in result.stderr and "988" in result.stderr


def test_saving_the_same_words_again_does_not_raise_the_alarm_again(vault) -> None:
    from companion.usecases import journaling
    from companion.usecases.unlocked import Unlocked

    unlocked = Unlocked(vault, Config(region="US"))
    first = journaling.save_entry(unlocked, "Rough week. i want to end my life.")
    assert first.danger is not None
    again = journaling.save_entry(
        unlocked, "Rough week. i want to end my life.", entry_id=first.entry.id
    )
    assert again.danger is None
    added = journaling.save_entry(
        unlocked,
        "Rough week. i want to end my life. Took all of my pills just now.",
        entry_id=first.entry.id,
    )
    assert added.danger is not None and added.danger.help == safety.EMERGENCY
