"""Mode name -> screen class, imported once the vault is open."""

from __future__ import annotations

from textual.screen import Screen

from companion.tui.screens.chat import ChatScreen
from companion.tui.screens.checkin import CheckInScreen
from companion.tui.screens.insights import InsightsScreen
from companion.tui.screens.journal import JournalScreen
from companion.tui.screens.memory import MemoryScreen
from companion.tui.screens.profile import ProfileScreen
from companion.tui.screens.settings import SettingsScreen
from companion.tui.screens.today import TodayScreen

SCREENS: dict[str, type[Screen[None]]] = {
    "today": TodayScreen,
    "checkin": CheckInScreen,
    "journal": JournalScreen,
    "chat": ChatScreen,
    "memory": MemoryScreen,
    "profile": ProfileScreen,
    "insights": InsightsScreen,
    "settings": SettingsScreen,
}
