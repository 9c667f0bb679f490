"""Estimated cost of a call, from list prices in US dollars per million tokens.

Prices change; the ledger says "estimated". Unknown models fall back by family name.
"""

from __future__ import annotations

# (input, output) per million tokens
PRICES: dict[str, tuple[float, float]] = {
    "haiku": (1.0, 5.0),  # Claude Haiku 4.5
    "sonnet": (3.0, 15.0),  # Claude Sonnet 4.x
    "opus": (15.0, 75.0),
}


def cost(model: str, input_tokens: int, output_tokens: int, local: bool = False) -> float:
    if local:
        return 0.0
    lowered = model.lower()
    price = next((p for family, p in PRICES.items() if family in lowered), PRICES["sonnet"])
    return (input_tokens * price[0] + output_tokens * price[1]) / 1_000_000
