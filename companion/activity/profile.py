"""The user's profile (SPEC section 3): one sealed record of named fields."""

from __future__ import annotations

from datetime import date
from typing import Any

from companion import clock
from companion.errors import InvalidInput
from companion.vault import Vault
from companion.vault.models import Profile

TEXT, LIST, DATE, INT = "text", "list", "date", "int"

# field -> kind. Lists are edited as comma-separated text on the command line.
FIELDS: dict[str, str] = {
    "preferred_name": TEXT,
    "goals": LIST,
    "recurring_themes": LIST,
    "coach_preferences": LIST,
    "recovery_focus": TEXT,
    "recovery_start_date": DATE,
    "current_step": INT,
    "steps_completed": LIST,
    "sponsor": TEXT,
    "fellowship": TEXT,
    "therapist": TEXT,
    "other_support": LIST,
    "red_zone": LIST,
    "yellow_zone": LIST,
    "green_zone": LIST,
    "known_triggers": LIST,
    "vulnerability_windows": LIST,
    "successful_strategies": LIST,
    "coping_plan": TEXT,
    "support_contacts": LIST,
    "spiritual_framework": TEXT,
    "spiritual_comfort": TEXT,
}


def coerce(name: str, value: Any) -> Any:
    kind = FIELDS.get(name)
    if kind is None:
        raise InvalidInput(f"unknown profile field {name}; fields: {', '.join(FIELDS)}.")
    label = name.replace("_", " ").capitalize()  # what a person reads, in the app or a shell
    if value is None or value == "":
        return None
    if kind == LIST:
        items = value if isinstance(value, list) else str(value).split(",")
        return [str(i).strip() for i in items if str(i).strip()]
    if kind == DATE:
        try:
            day = date.fromisoformat(str(value))
        except ValueError:
            raise InvalidInput(f"{label} must be a date, YYYY-MM-DD.") from None
        if day > clock.today():
            raise InvalidInput(f"{label} {day} is in the future.")
        return day.isoformat()
    if kind == INT:
        try:
            number = int(str(value))
        except ValueError:
            raise InvalidInput(f"{label} must be a whole number.") from None
        if name == "current_step" and not 1 <= number <= 12:
            raise InvalidInput(f"{label} must be from 1 to 12.")
        return number
    return str(value)


def load(vault: Vault) -> dict[str, Any]:
    row = Profile.get_or_none(Profile.id == 1)
    return vault.open(row) if row else {}


def _save(vault: Vault, whole: dict[str, Any]) -> None:
    vault.put(Profile, 1, whole, updated_at=clock.stamp())


def update(vault: Vault, changes: dict[str, Any]) -> dict[str, Any]:
    """Apply changed fields (``None`` clears one) and return the whole profile."""
    clean = {name: coerce(name, value) for name, value in changes.items()}
    with vault.transaction():
        current = load(vault)
        merged = {k: v for k, v in {**current, **clean}.items() if v is not None}
        _save(vault, merged)
    return merged


def log_slip(vault: Vault, day: date) -> dict[str, Any]:
    """Count again from ``day``, without shame: the previous run stays in the history."""
    if day > clock.today():
        raise InvalidInput("a slip cannot be logged in the future.")
    with vault.transaction():
        current = load(vault)
        history = list(current.get("recovery_history", []))
        start = current.get("recovery_start_date")
        if start:
            history.append(
                {
                    "start": start,
                    "end": day.isoformat(),
                    "days": (day - date.fromisoformat(start)).days,
                }
            )
        current.update(recovery_start_date=day.isoformat(), recovery_history=history)
        _save(vault, current)
    return current


def erase(vault: Vault) -> bool:
    """Remove the profile (a fresh start that includes it); True when there was one."""
    return bool(vault.delete_where(Profile, None))
