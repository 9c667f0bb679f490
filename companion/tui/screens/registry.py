"""Mode -> screen class, imported once the vault is open (never before the first paint)."""

from __future__ import annotations

from companion.tui.navigation import MODES
from companion.tui.screens.base import DataScreen
from companion.tui.screens.chat import ChatScreen
from companion.tui.screens.checkin import CheckInScreen
from companion.tui.screens.insights import InsightsScreen
from companion.tui.screens.journal import JournalScreen
from companion.tui.screens.memory import MemoryScreen
from companion.tui.screens.profile import ProfileScreen
from companion.tui.screens.settings import SettingsScreen
from companion.tui.screens.today import TodayScreen

SCREENS: dict[str, type[DataScreen]] = {
    screen.MODE: screen
    for screen in (
        TodayScreen,
        CheckInScreen,
        JournalScreen,
        ChatScreen,
        MemoryScreen,
        ProfileScreen,
        InsightsScreen,
        SettingsScreen,
    )
}
assert tuple(SCREENS) == MODES, "every destination in navigation.NAV has its screen, in order"
