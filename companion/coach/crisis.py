"""Where to turn, available offline and before unlock: for each region the emergency number,
poison control and a crisis line (sources and the date each was checked: docs/safety.md).
The config file can replace them.

Two kinds of help, in two orders: an emergency happening now (an overdose taken, a seizure,
someone who will not wake up) puts the emergency number and poison control first; thoughts of
dying, self-harm or intent put the crisis line first."""

from __future__ import annotations

import locale
import os

from companion.config import Config, CrisisLine

E, P, C = "emergency", "poison", "crisis"
REGIONS: dict[str, list[CrisisLine]] = {
    "US": [
        CrisisLine("Emergency", "call 911", kind=E),
        CrisisLine("Poison Help", "call 1-800-222-1222", "24/7", P),
        CrisisLine("988 Suicide & Crisis Lifeline", "call or text 988", "24/7, free", C),
    ],
    "CA": [
        CrisisLine("Emergency", "call 911", kind=E),
        CrisisLine(
            "Poison centre", "call 1-844-764-7669 (1-844-POISON-X)", "Quebec: 1-800-463-5060", P
        ),
        CrisisLine("9-8-8 Suicide Crisis Helpline", "call or text 988", "24/7, free", C),
    ],
    "GB": [
        CrisisLine("Emergency", "call 999 or 112", kind=E),
        CrisisLine("NHS 111 (poisoning advice)", "call 111", "24/7", P),
        CrisisLine("Samaritans", "call 116 123, or text SHOUT to 85258", "24/7, free", C),
    ],
    "IE": [
        CrisisLine("Emergency", "call 112 or 999", kind=E),
        CrisisLine("National Poisons Information Centre", "call 01 809 2166", "8am-10pm", P),
        CrisisLine("Samaritans", "call 116 123, or text TALK to 50808", "24/7, free", C),
    ],
    "AU": [
        CrisisLine("Emergency", "call 000", kind=E),
        CrisisLine("Poisons Information Centre", "call 13 11 26", "24/7", P),
        CrisisLine("Lifeline", "call 13 11 14 or text 0477 13 11 14", "24/7", C),
    ],
    "NZ": [
        CrisisLine("Emergency", "call 111", kind=E),
        CrisisLine("National Poisons Centre", "call 0800 764 766", "24/7", P),
        CrisisLine("Need to Talk?", "call or text 1737", "24/7, free", C),
    ],
    "DE": [
        CrisisLine("Notruf", "call 112", kind=E),
        CrisisLine("Giftnotruf", "your area code + 19240 (Berlin: 030 19240)", "24/7", P),
        CrisisLine("TelefonSeelsorge", "call 0800 111 0 111 or 0800 111 0 222", "24/7, free", C),
    ],
    "FR": [
        CrisisLine("SAMU", "call 15 (or 112)", kind=E),
        CrisisLine("Centre antipoison", "your regional centre (Paris: 01 40 05 48 48)", "24/7", P),
        CrisisLine("3114, prévention du suicide", "call 3114", "24/7, free", C),
    ],
    "ES": [
        CrisisLine("Emergencias", "call 112", kind=E),
        CrisisLine("Servicio de Información Toxicológica", "call 91 562 04 20", "24/7", P),
        CrisisLine("Línea 024", "call 024", "24/7, free", C),
    ],
    "IN": [
        CrisisLine("Emergency", "call 112", kind=E),
        CrisisLine("Tele-MANAS", "call 14416 or 1-800-891-4416", "24/7", C),
    ],
    "ZA": [
        CrisisLine("Emergency", "call 112 from a mobile, or 10177 for an ambulance", kind=E),
        CrisisLine("Poisons Information Helpline", "call 0861 555 777", "24/7", P),
        CrisisLine("SADAG suicide crisis line", "call 0800 456 789", "24/7, free", C),
    ],
}
ALIASES = {"UK": "GB"}
INTERNATIONAL = CrisisLine(
    "Find a helpline near you",
    "findahelpline.com",
    "a directory of free, confidential crisis lines in many countries",
    C,
)
LOCAL_EMERGENCY = CrisisLine("Emergency", "call your local emergency number", kind=E)
ORDER = {E: (E, P, C), C: (C, E, P)}
HEADINGS = {E: "Call for help now:", C: "You are not alone. Reach out now:"}


NAMES = {
    "US": "the US",
    "CA": "Canada",
    "GB": "the UK",
    "IE": "Ireland",
    "AU": "Australia",
    "NZ": "New Zealand",
    "DE": "Germany",
    "FR": "France",
    "ES": "Spain",
    "IN": "India",
    "ZA": "South Africa",
}


def region_from_locale() -> str:
    """The country of the first locale variable set ("en_GB.UTF-8": GB), as the C library
    reads them. "C.UTF-8" and "POSIX" name none: Python's own table reads C as en_US, which
    showed a person in Leeds 911 and 988."""
    for name in ("LC_ALL", "LC_MESSAGES", "LANG"):
        value = os.environ.get(name, "")
        if value:
            return value.split("_", 1)[1][:2].upper() if "_" in value else ""
    code = locale.getlocale()[0] or ""
    return code.split("_", 1)[1][:2].upper() if "_" in code else ""


def region(config: Config) -> str:
    """The region whose lines are built in for this person, or "" for none known."""
    code = (config.region or region_from_locale()).upper()
    code = ALIASES.get(code, code)
    return code if code in REGIONS else ""


def built_in(config: Config) -> list[CrisisLine]:
    return REGIONS.get(region(config), [LOCAL_EMERGENCY, INTERNATIONAL])


def where(config: Config, locked: bool = False) -> str:
    """One line under the lines: whose numbers they are, and where to change that (Settings
    opens only once the vault is unlocked: before, F10 does nothing)."""
    if config.crisis_lines:
        return "These are the lines from your config file."
    settings = "Settings (F10), once your vault is open," if locked else "Settings (F10)"
    code = region(config)
    if not code:
        return f"Set your country in {settings} to see its numbers here."
    return f"Numbers for {NAMES.get(code, code)}; another country: {settings.rstrip(',')}."


def lines_for(config: Config, help_kind: str = C) -> list[CrisisLine]:
    """The lines to show, in the order this kind of help needs them. Lines from the config
    file replace the built-in ones; when they name no emergency number, the built-in one
    comes with them."""
    lines = list(config.crisis_lines) or built_in(config)
    if not any(line.kind == E for line in lines):
        lines = [next(x for x in [*built_in(config), LOCAL_EMERGENCY] if x.kind == E), *lines]
    rank = {kind: i for i, kind in enumerate(ORDER[help_kind])}
    return sorted(lines, key=lambda line: rank.get(line.kind, len(rank)))


def heading(help_kind: str = C) -> str:
    """The first words above the lines: urgent for an emergency, warm otherwise."""
    return HEADINGS[help_kind]


def as_text(config: Config, help_kind: str = C) -> str:
    return "\n".join(
        f"- {line.name}: {line.contact}" + (f" ({line.note})" if line.note else "")
        for line in lines_for(config, help_kind)
    )
