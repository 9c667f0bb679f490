"""Shared fixtures: every test gets its own data folder, log folder and HOME, and never sees
the developer's real vault, passphrase or API keys."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from companion import clock
from companion.paths import VaultPaths
from companion.vault import Vault

PASSPHRASE = "correct horse battery staple"
KDF_MIB = 64  # the floor: tests pay ~0.15 s per unlock instead of ~0.7 s
REPO = Path(__file__).resolve().parent.parent


@pytest.fixture(autouse=True)
def isolated_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    home = tmp_path / "home"
    home.mkdir()
    for name in list(os.environ):
        if name.startswith(("COMPANION_", "ANTHROPIC_", "XDG_")):
            monkeypatch.delenv(name)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_DATA_HOME", str(home / "data"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / "config"))
    monkeypatch.setenv("XDG_STATE_HOME", str(home / "state"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(home / "cache"))
    runtime = tmp_path / "run"
    runtime.mkdir(mode=0o700)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(runtime))  # unlock sessions live here
    monkeypatch.setenv("COMPANION_HOME", str(tmp_path / "vault"))
    yield home
    clock.set_clock(None)


@pytest.fixture
def paths(tmp_path: Path) -> VaultPaths:
    return VaultPaths(tmp_path / "vault")


@pytest.fixture
def created(paths: VaultPaths) -> tuple[VaultPaths, str]:
    """A fresh vault on disk (closed) and its recovery key."""
    vault, recovery = Vault.create(paths, PASSPHRASE, KDF_MIB)
    vault.close()
    return paths, recovery


@pytest.fixture
def vault(created: tuple[VaultPaths, str], request: pytest.FixtureRequest) -> Iterator[Vault]:
    """An unlocked vault. Afterwards every row must still match its MAC and the manifest: a
    write that went around the vault's door would show here (unless the test damages on
    purpose and says so with ``@pytest.mark.damages_vault``)."""
    from companion.vault.maintenance import verify

    opened = Vault.unlock(created[0], PASSPHRASE)
    yield opened
    try:
        if (
            request.node.get_closest_marker("damages_vault") is None
            and opened.database.is_closed() is False
        ):
            report = verify(opened)
            assert report.clean, (report.damaged, [f.describe() for f in report.findings])
    finally:
        opened.close()


@pytest.fixture
def passfile(tmp_path: Path) -> Path:
    path = tmp_path / "pass.txt"
    path.write_text(PASSPHRASE + "\n")
    return path


def child_env(**extra: str) -> dict[str, str]:
    env = dict(os.environ)  # isolated_env already removed the developer's real settings
    env["PYTHONPATH"] = str(REPO) + os.pathsep + env.get("PYTHONPATH", "")
    env.update(extra)
    return env


def run_cli(
    *args: str,
    input: str | bytes | None = None,
    env: dict[str, str] | None = None,
    timeout: float = 120,
    **kw: object,
) -> subprocess.CompletedProcess[str]:
    """Run ``python -m companion ARGS`` as a real subprocess."""
    text = not isinstance(input, bytes)
    kw.setdefault("capture_output", True)
    return subprocess.run(  # type: ignore[call-overload]
        [sys.executable, "-m", "companion", *args],
        input=input,
        text=text,
        env=env or child_env(),
        timeout=timeout,
        **kw,
    )


def db_bytes(paths: VaultPaths) -> bytes:
    return paths.db.read_bytes()


@pytest.fixture
def fake_llm(monkeypatch: pytest.MonkeyPatch):
    """The loopback Messages API, with the real SDK pointed at it through the environment."""
    from tests.fake_llm import FakeLLM

    fake = FakeLLM().start()
    monkeypatch.setenv("ANTHROPIC_BASE_URL", fake.url)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key-not-real")
    monkeypatch.setenv("COMPANION_MAX_RETRIES", "0")
    monkeypatch.setenv("COMPANION_TIMEOUT", "2")
    yield fake
    fake.stop()
