"""The plain config file (``config.toml`` in the platform config folder).

It holds only what must work before unlock and reveals nothing personal: theme, auto-lock
minutes, region and crisis lines. Everything else lives sealed in the vault.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from companion.paths import config_dir, open_private, private_dir

KINDS = ("emergency", "poison", "crisis")


@dataclass
class CrisisLine:
    name: str
    contact: str
    note: str = ""
    kind: str = "crisis"
    """emergency (an ambulance now), poison (poison control) or crisis (someone to talk to)."""


@dataclass
class Config:
    theme: str = "textual-dark"
    auto_lock_minutes: int = 10
    region: str = ""  # "" = from the locale
    crisis_lines: list[CrisisLine] = field(default_factory=list)  # overrides the defaults


def path() -> Path:
    return config_dir() / "config.toml"


def load() -> Config:
    """Read the config; a missing or unreadable file gives the defaults (SOS must still work)."""
    try:
        text = path().read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return Config()
    import tomllib  # only with a file to read: most people never write one (first paint)

    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return Config()
    config = Config()
    if isinstance(data.get("theme"), str):
        config.theme = data["theme"]
    minutes = data.get("auto_lock_minutes")
    if isinstance(minutes, int) and 1 <= minutes <= 240:
        config.auto_lock_minutes = minutes
    if isinstance(data.get("region"), str):
        config.region = data["region"].upper()
    for line in data.get("crisis_lines", []) if isinstance(data.get("crisis_lines"), list) else []:
        if isinstance(line, dict) and line.get("name") and line.get("contact"):
            kind = str(line.get("kind", "crisis")).lower()
            config.crisis_lines.append(
                CrisisLine(
                    str(line["name"]),
                    str(line["contact"]),
                    str(line.get("note", "")),
                    kind if kind in KINDS else "crisis",
                )
            )
    return config


def _quote(value: str) -> str:
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", " ") + '"'


def save(config: Config) -> None:
    lines = [
        "# Companion settings that must work before the vault is unlocked.",
        f"theme = {_quote(config.theme)}",
        f"auto_lock_minutes = {int(config.auto_lock_minutes)}",
        f"region = {_quote(config.region)}",
    ]
    for line in config.crisis_lines:
        lines += [
            "",
            "[[crisis_lines]]",
            f"name = {_quote(line.name)}",
            f"contact = {_quote(line.contact)}",
            f"note = {_quote(line.note)}",
            f"kind = {_quote(line.kind)}",
        ]
    private_dir(config_dir())
    with open_private(path()) as handle:
        handle.write("\n".join(lines) + "\n")
