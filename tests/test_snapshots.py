"""SVG snapshots of every screen, on the fixed demo vault (scripts/demo_vault.py).

Each snapshot is one moment a person would see. Update after a deliberate change with
``pytest tests/test_snapshots.py --snapshot-update`` and look at the pictures.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from companion import clock
from companion.paths import VaultPaths
from companion.tui.app import CompanionApp
from scripts import screenshots
from scripts.demo_vault import DEMO_NOW, build


@pytest.fixture(scope="session")
def demo_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("demo") / "vault"
    build(root)
    return root


@pytest.fixture
def demo_app(demo_template: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("LANG", "en_US.UTF-8")
    root = tmp_path / "demo-vault"
    shutil.copytree(demo_template, root)
    clock.set_clock(lambda: DEMO_NOW)
    return CompanionApp(VaultPaths(root))


@pytest.mark.parametrize("name", list(screenshots.SHOTS))
def test_screen(name: str, demo_app: CompanionApp, snap_compare) -> None:
    """Each screen of the app as it looks on the demo vault (100x32)."""
    assert snap_compare(
        demo_app, terminal_size=screenshots.SIZE, run_before=screenshots.SHOTS[name]
    )


@pytest.mark.parametrize("name", list(screenshots.SHOTS))
def test_screen_at_80_by_24(name: str, demo_app: CompanionApp, snap_compare) -> None:
    """The smallest supported terminal: every screen and dialog, to look at for words cut
    mid-word, buttons out of reach and footers that do not fit."""
    assert snap_compare(demo_app, terminal_size=(80, 24), run_before=screenshots.SHOTS[name])
