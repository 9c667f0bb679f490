"""Timing helpers: medians of several runs, because machines here are shared and noisy."""

from __future__ import annotations

import os
import statistics
import time
from collections.abc import Callable
from pathlib import Path


def median_ms(fn: Callable[[], object], runs: int = 5, warmup: int = 1) -> float:
    for _ in range(warmup):
        fn()
    samples = []
    for _ in range(runs):
        started = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - started) * 1000)
    return statistics.median(samples)


def row(label: str, value: float, unit: str = "ms", target: str = "") -> None:
    if unit == "count":
        shown = f"{value:,.0f}"
    else:
        shown = f"{value:,.1f} {unit}" if unit else f"{value:,.2f}"
    print(f"  {label:<48} {shown:>14}  {target}")


def bytecode_env(workdir: Path, **extra: str) -> dict[str, str]:
    """Subprocess environment with bytecode caching on, as after a regular `pip install .`.

    An editable checkout run with PYTHONDONTWRITEBYTECODE would recompile every module on each
    command, while jrnl's installed wheel has its .pyc files: that compared compilers, not tools.
    """
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = str(workdir / "pycache")
    return {**env, **extra}
