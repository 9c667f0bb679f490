"""Crisis resources, available offline and before unlock. Defaults by region; the config file
can replace them."""

from __future__ import annotations

import locale
import os

from companion.config import Config, CrisisLine

DEFAULTS: dict[str, list[CrisisLine]] = {
    "US": [CrisisLine("988 Suicide & Crisis Lifeline", "call or text 988", "24/7, free")],
    "CA": [CrisisLine("9-8-8 Suicide Crisis Helpline", "call or text 988", "24/7, free")],
    "GB": [CrisisLine("Samaritans", "call 116 123", "24/7, free")],
    "IE": [CrisisLine("Samaritans", "call 116 123", "24/7, free")],
    "AU": [CrisisLine("Lifeline", "call 13 11 14 or text 0477 13 11 14", "24/7")],
}
ALIASES = {"UK": "GB"}
INTERNATIONAL = CrisisLine(
    "Find a helpline near you",
    "findahelpline.com",
    "a directory of free, confidential crisis lines in many countries",
)
EMERGENCY = "If you are in immediate danger, call your local emergency number."


def region_from_locale() -> str:
    for name in ("LC_ALL", "LC_MESSAGES", "LANG"):
        value = os.environ.get(name, "")
        if "_" in value:
            return value.split("_", 1)[1][:2].upper()
    code = locale.getlocale()[0] or ""
    return code.split("_", 1)[1][:2].upper() if "_" in code else ""


def lines_for(config: Config) -> list[CrisisLine]:
    if config.crisis_lines:
        return config.crisis_lines
    region = (config.region or region_from_locale()).upper()
    region = ALIASES.get(region, region)
    return DEFAULTS.get(region, [INTERNATIONAL])


def as_text(config: Config) -> str:
    rows = [
        f"- {line.name}: {line.contact}" + (f" ({line.note})" if line.note else "")
        for line in lines_for(config)
    ]
    return "\n".join([*rows, EMERGENCY])
