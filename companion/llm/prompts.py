"""Prompt templates shipped in ``prompts/``; a file of the same name in the user's config
folder overrides the shipped one."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from companion.paths import config_dir

SOURCE_TREE = Path(__file__).resolve().parents[2] / "prompts"


def shipped_path(name: str) -> Path:
    """The packaged copy (installed wheels carry ``companion/prompts``), else the source tree."""
    packaged = resources.files("companion").joinpath("prompts", name)
    if packaged.is_file():
        return Path(str(packaged))
    return SOURCE_TREE / name


def override_path(name: str) -> Path:
    return config_dir() / "prompts" / name


def load(name: str) -> str:
    override = override_path(name)
    if override.is_file():
        return override.read_text(encoding="utf-8")
    return shipped_path(name).read_text(encoding="utf-8")
