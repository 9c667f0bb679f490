"""The plain config file: what a person set comes back, and a broken file never stops the app
(SOS must work before anything else)."""

from __future__ import annotations

from companion import config


def test_settings_come_back_after_a_save() -> None:
    saved = config.Config(
        theme="nord",
        auto_lock_minutes=25,
        region="gb",
        crisis_lines=[config.CrisisLine('Sam "sponsor"', "07700 900123", "any time", "crisis")],
    )
    config.save(saved)

    loaded = config.load()
    assert loaded.theme == "nord" and loaded.auto_lock_minutes == 25 and loaded.region == "GB"
    assert loaded.crisis_lines == saved.crisis_lines


def test_no_file_gives_the_defaults() -> None:
    assert not config.path().exists()
    assert config.load() == config.Config()


def test_a_broken_or_odd_file_gives_the_defaults_for_what_it_gets_wrong() -> None:
    config.path().parent.mkdir(parents=True, exist_ok=True)
    config.path().write_text('theme = "nord"\nauto_lock_minutes = [oops\n', encoding="utf-8")
    assert config.load() == config.Config()  # not TOML at all

    config.path().write_bytes(b"\xff\xfe not utf-8")
    assert config.load() == config.Config()

    config.path().write_text(
        'theme = "nord"\nauto_lock_minutes = 100000\n'
        '[[crisis_lines]]\nname = "No contact"\n'
        '[[crisis_lines]]\nname = "Line"\ncontact = "123"\nkind = "pizza"\n',
        encoding="utf-8",
    )
    odd = config.load()
    assert odd.theme == "nord"
    assert odd.auto_lock_minutes == config.Config().auto_lock_minutes  # out of range: ignored
    assert [(line.name, line.kind) for line in odd.crisis_lines] == [("Line", "crisis")]
