"""Settings kept inside the vault, sealed: the coach's provider, models and API key, and the
few values other layers keep here (each names its own key). Defaults are listed once, here."""

from __future__ import annotations

from typing import Any

from companion import clock
from companion.vault.models import Setting
from companion.vault.store import Vault

PROVIDERS = ("anthropic", "local", "none")
DEFAULTS: dict[str, Any] = {
    "provider": "anthropic",
    "chat_model": "claude-sonnet-5-5",
    "extraction_model": "claude-haiku-4-5",
    "local_base_url": "http://localhost:11434/v1",
    "local_model": "llama3.2",
    "anthropic_api_key": "",
    "greet_new_chats": False,  # a greeting on Ctrl+N is a model call the user may not want
}


def get(vault: Vault, key: str, default: Any = None) -> Any:
    row = Setting.get_or_none(Setting.key == key)
    if row is None:
        return DEFAULTS.get(key) if default is None else default
    return vault.open(row).get("value", default)


def put(vault: Vault, key: str, value: Any) -> None:
    vault.put(Setting, key, {"value": value}, updated_at=clock.stamp())


def remove(vault: Vault, key: str) -> None:
    vault.delete_where(Setting, Setting.key == key)
