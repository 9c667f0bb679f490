"""Showing user text literally: no markup, no escape sequences, no control characters.

Journal entries and chat messages may contain ``[bold]``, ANSI escapes or bell characters; on
screen they must appear as written, never style the screen or move the cursor.
"""

from __future__ import annotations

import re

from textual.content import Content

CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def _picture(match: re.Match[str]) -> str:
    code = ord(match.group())
    if code < 0x20:
        return chr(0x2400 + code)  # ␛ for ESC, ␇ for BEL ...
    if code == 0x7F:
        return "\u2421"
    return f"\\x{code:02x}"


def visible(text: str) -> str:
    """Control characters (not newline or tab) replaced by visible symbols."""
    return CONTROL.sub(_picture, text)


def literal(text: str) -> Content:
    """A Content that renders ``text`` exactly, markup-looking brackets included."""
    return Content(visible(text))


def one_line(text: str, width: int = 80) -> str:
    """``text`` on one line of at most ``width`` characters, cut after a whole word when one
    ends in the last third (a word cut in half reads as a typo)."""
    flat = " ".join(visible(text).split())
    if len(flat) <= width:
        return flat
    cut = flat[: width - 1]
    space = cut.rfind(" ")
    if space >= (width - 1) * 2 // 3:
        cut = cut[:space]
    return cut.rstrip(" ,;:") + "…"


_TO_YOU = {
    "their": "your",
    "theirs": "yours",
    "them": "you",
    "themselves": "yourself",
    "themself": "yourself",
    "they": "you",
}
_THEY = re.compile(r"\b(their|theirs|them|themselves|themself|they)\b", re.IGNORECASE)


def to_you(text: str) -> str:
    """A fact learned about the person, said to them: "Their sponsor is Dana" -> "Your
    sponsor is Dana". Only the pronouns change (facts are written in the third person, with
    no name, so "their" is the person's); verbs stay as written ("Likes long walks")."""

    def swap(match: re.Match[str]) -> str:
        word = match[1]
        new = _TO_YOU[word.lower()]
        if word.isupper() and len(word) > 1:
            return new.upper()
        return new.capitalize() if word[0].isupper() else new

    return _THEY.sub(swap, text)


def counted(number: int, word: str) -> str:
    """ "1 day", "2 days": a count with its word (regular plurals only)."""
    return f"{number} {word}{'' if number == 1 else 's'}"


def said(error: Exception) -> str:
    """An error's message as a note on screen says it: a sentence with a capital. The domain
    writes them to follow "companion: " on a command line ("the entry is empty; ...")."""
    message = str(error)
    return message[:1].upper() + message[1:]
