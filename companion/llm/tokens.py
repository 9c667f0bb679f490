"""Token estimates and the memory section's budgets: one rule, 1 token ~ 4 characters."""

from __future__ import annotations

import math

CLAUDE_BUDGET = 600
"""Tokens of "What You Know" a Claude-class model is given."""
LOCAL_BUDGET = 200
"""Tokens of "What You Know" a small local model is given."""


def estimate(text: str) -> int:
    """Tokens in ``text`` by the app's budgeting rule (a provider's own count wins when given)."""
    return math.ceil(len(text) / 4)
