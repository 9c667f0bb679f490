"""Learning the daily memory with the crisis detector beside it: words of danger are a moment
to meet with help, never a fact, a follow-up or a pattern to remember ("Prefers to be dead").
Extraction sits a layer below the coach and its detector, so the detector is handed to it here.
"""

from __future__ import annotations

from companion.coach import safety
from companion.llm import Gateway
from companion.memory import extraction
from companion.usecases.unlocked import Unlocked


async def learn(
    unlocked: Unlocked,
    gateway: Gateway,
    *,
    force: bool = False,
    progress: extraction.Progress | None = None,
) -> extraction.Result:
    """``extraction.extract``, keeping no fact, follow-up or pattern that sounds like danger."""
    return await extraction.extract(
        unlocked.vault, gateway, force=force, progress=progress, unsaid=safety.detect
    )
