"""The one gateway to models: providers behind a small interface, pricing, token estimates,
budgets, and one metered call that writes the ledger. Only this package imports the SDK."""

from companion.llm.gateway import OFFLINE_HELP, Gateway, ProviderConfig, configured
from companion.llm.provider import OnText, Reply, Request

__all__ = [
    "OFFLINE_HELP",
    "Gateway",
    "OnText",
    "ProviderConfig",
    "Reply",
    "Request",
    "configured",
]
