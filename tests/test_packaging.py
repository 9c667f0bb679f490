"""A non-editable install carries the prompts and the stylesheets."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from tests.conftest import REPO


def test_wheel_carries_prompts_and_tcss(tmp_path: Path) -> None:
    pytest.importorskip("hatchling", reason="the test extra installs hatchling")
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            str(tmp_path),
            str(REPO),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    wheel = next(tmp_path.glob("companion-*.whl"))
    names = set(zipfile.ZipFile(wheel).namelist())
    prompts = sorted(p.name for p in (REPO / "prompts").iterdir() if p.is_file())
    assert "coach.md" in prompts
    for name in prompts:
        assert f"companion/prompts/{name}" in names
    for tcss in (REPO / "companion").rglob("*.tcss"):
        assert tcss.relative_to(REPO).as_posix() in names
    assert "companion/cli/__init__.py" in names
    # the crisis detector's weights: without them it cannot read at all
    for data in ("weights.txt", "weights.bin", "reader.npz", "reader_vocab.txt"):
        assert f"companion/coach/safety/{data}" in names


def test_prompt_override_wins(tmp_path: Path) -> None:
    from companion.llm import prompts

    shipped = prompts.load("coach.md")
    assert "You are Companion" in shipped
    prompts.override_path("coach.md").parent.mkdir(parents=True)
    prompts.override_path("coach.md").write_text("my own prompt")
    assert prompts.load("coach.md") == "my own prompt"
