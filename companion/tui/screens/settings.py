"""Settings: the coach's provider and models, the API key (kept sealed in the vault),
auto-lock, theme and crisis lines (kept in the plain config file so SOS works while locked)."""

from __future__ import annotations

from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Grid, Horizontal, VerticalScroll
from textual.widgets import Input, Label, Select, Static

from companion import config as app_config
from companion.activity import drafts
from companion.config import CrisisLine
from companion.tui.screens.base import DataScreen
from companion.tui.screens.modals import EditorScreen, TextScreen
from companion.tui.widgets.button import Button
from companion.tui.widgets.field import Field
from companion.vault import settings

THEMES = [("Dark", "textual-dark"), ("Light", "textual-light")]
PROVIDERS = [
    ("Anthropic (Claude)", "anthropic"),
    ("Local server (OpenAI-compatible)", "local"),
    ("None: coach offline", "none"),
]
VAULT_FIELDS = ("chat_model", "extraction_model", "local_base_url", "local_model")
INPUTS = (
    *VAULT_FIELDS,
    "anthropic_api_key",
    "auto_lock",
    "region",
    "crisis_name",
    "crisis_contact",
)
SELECTS = ("provider", "theme", "greet_new_chats")
GREETINGS = [("No: a new chat starts with my words", "no"), ("Yes (one model call each)", "yes")]


class SettingsScreen(DataScreen):
    MODE = "settings"
    ALWAYS_REFRESH = False
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+s", "save", "Save", id="settings-save", tooltip="Save settings"),
        Binding(
            "ctrl+t",
            "edit_prompt",
            "Extraction prompt",
            id="settings-prompt",
            tooltip="Edit the prompt the daily memory uses",
        ),
        Binding(
            "ctrl+r",
            "reset_prompt",
            "Reset prompt",
            id="settings-reset-prompt",
            tooltip="Go back to the prompt Companion ships",
        ),
        Binding(
            "ctrl+g",
            "ledger",
            "Ledger",
            id="settings-ledger",
            tooltip="Every call that left this machine",
        ),
        Binding(
            "ctrl+o",
            "app.import",
            "Import",
            id="settings-import",
            tooltip="Import history from jrnl, Day One or Markdown",
        ),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.loaded: dict[str, str] = {}
        """The form as last loaded from the vault, to tell what is typed but not saved."""
        self.prompt_editor: tuple[EditorScreen, str] | None = None
        """The extraction prompt's editor while open, and the text it opened with."""

    def compose_body(self) -> ComposeResult:
        with VerticalScroll(id="settings"):
            yield Static("The coach", classes="section")
            with Grid(classes="settings-grid"):
                yield Label("Provider")
                yield Select(PROVIDERS, id="provider", allow_blank=False)
                yield Label("Anthropic API key")
                yield Field(
                    password=True,
                    id="anthropic_api_key",
                    placeholder="sk-ant-... (kept encrypted in your vault)",
                )
                yield Label("Chat model")
                yield Field(id="chat_model")
                yield Label("Extraction model")
                yield Field(id="extraction_model")
                yield Label("Local server URL")
                yield Field(id="local_base_url")
                yield Label("Local model")
                yield Field(id="local_model")
                yield Label("Greet me in a new chat")
                yield Select(GREETINGS, id="greet_new_chats", allow_blank=False)
            yield Static("", id="key-status")
            yield Static("This computer", classes="section")
            with Grid(classes="settings-grid"):
                yield Label("Auto-lock (minutes)")
                yield Field(id="auto_lock", restrict=r"[0-9]*", max_length=3)
                yield Label("Theme")
                yield Select(THEMES, id="theme", allow_blank=False)
                yield Label("Region (US, CA, GB...)")
                yield Field(id="region", max_length=2)
                yield Label("Your crisis line")
                yield Field(id="crisis_name", placeholder="name (leave empty for the default)")
                yield Label("Its number")
                yield Field(id="crisis_contact", placeholder="call or text ...")
            yield Static("Memory", classes="section")
            with Horizontal(id="memory-buttons"):
                yield Button("Edit extraction prompt", id="edit-prompt")
                yield Button("Reset extraction prompt", id="reset-prompt")
                yield Button("Ledger of calls", id="show-ledger")
                yield Button("Import history", id="import")
            yield Static("", id="prompt-status")
            yield Static("Ctrl+S saves.", id="settings-hint")

    def form(self) -> dict[str, str]:
        values = {name: self.query_one(f"#{name}", Input).value for name in INPUTS}
        for name in SELECTS:
            value = self.query_one(f"#{name}", Select).value
            values[name] = value if isinstance(value, str) else ""
        return values

    def first_show(self) -> None:
        prompt = drafts.load(self.vault, "settings-prompt")
        if prompt:
            text = str(prompt.get("text", ""))
            self.when_shown(lambda: self.edit_prompt(text))
            self.notice("Restored the extraction prompt you had not saved.")
        draft = drafts.load(self.vault, "settings")
        if not draft:
            return
        self.refresh_data()
        fields = dict(draft.get("fields", {}))
        offered = {
            "provider": {v for _, v in PROVIDERS},
            "theme": {v for _, v in THEMES},
            "greet_new_chats": {v for _, v in GREETINGS},
        }
        for name, value in fields.items():
            if name in INPUTS:
                self.query_one(f"#{name}", Input).value = str(value)
            elif name in SELECTS and value in offered[name]:  # a choice a later version dropped
                self.query_one(f"#{name}", Select).value = str(value)
        self.notice("Restored the settings you had not saved (Ctrl+S saves).")

    def stash(self) -> None:
        """On lock or quit, unsaved changes are kept as an encrypted draft."""
        if self.companion.vault is None:
            return
        if self.prompt_editor is not None:
            editor, start = self.prompt_editor
            text = editor.typed() if editor.is_attached else start
            if text != start:
                drafts.save(self.vault, "settings-prompt", text)
        if not self.loaded:
            return
        # A pasted API key is not kept until the user saves it: a secret stays where it was put.
        changed = {
            k: v
            for k, v in self.form().items()
            if v != self.loaded.get(k) and k != "anthropic_api_key"
        }
        if changed:
            drafts.save(self.vault, "settings", "", fields=changed)
        else:
            drafts.discard(self.vault, "settings")

    def refresh_data(self) -> None:
        if self.loaded and self.form() != self.loaded:
            return  # unsaved changes stay on screen
        vault = self.vault
        self.query_one("#provider", Select).value = settings.get(vault, "provider")
        greet = "yes" if settings.get(vault, "greet_new_chats") else "no"
        self.query_one("#greet_new_chats", Select).value = greet
        for key in VAULT_FIELDS:
            self.query_one(f"#{key}", Input).value = str(settings.get(vault, key))
        stored = bool(settings.get(vault, "anthropic_api_key"))
        self.query_one("#key-status", Static).update(
            "An API key is stored in your vault."
            if stored
            else "No API key stored (ANTHROPIC_API_KEY from the environment is used if set)."
        )
        config = self.companion.config
        self.query_one("#auto_lock", Input).value = str(config.auto_lock_minutes)
        self.query_one("#theme", Select).value = (
            config.theme if config.theme in dict((v, v) for _, v in THEMES) else "textual-dark"
        )
        self.query_one("#region", Input).value = config.region
        if config.crisis_lines:
            self.query_one("#crisis_name", Input).value = config.crisis_lines[0].name
            self.query_one("#crisis_contact", Input).value = config.crisis_lines[0].contact
        self.show_prompt_status()
        self.loaded = self.form()

    def show_prompt_status(self) -> None:
        from companion.llm import prompts

        custom = prompts.override_path("extraction.md").is_file()
        self.query_one("#prompt-status", Static).update(
            "The extraction prompt is your own version."
            if custom
            else "The extraction prompt is the one Companion ships."
        )

    @on(Button.Pressed, "#edit-prompt")
    def action_edit_prompt(self) -> None:
        self.edit_prompt()

    def edit_prompt(self, text: str | None = None) -> None:
        """The extraction prompt in an editor: as saved, or ``text`` left unsaved at lock."""
        from companion.llm import prompts

        def save(text: str | None) -> None:
            self.prompt_editor = None
            drafts.discard(self.vault, "settings-prompt")
            if text is None:
                return
            path = prompts.override_path("extraction.md")
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
            self.notify("Extraction prompt saved; it is used from the next run.")
            self.show_prompt_status()

        current = prompts.load("extraction.md")
        editor = EditorScreen("Extraction prompt", current if text is None else text)
        self.prompt_editor = (editor, current)
        self.app.push_screen(editor, save)

    @on(Button.Pressed, "#reset-prompt")
    def action_reset_prompt(self) -> None:
        from companion.llm import prompts

        prompts.override_path("extraction.md").unlink(missing_ok=True)
        self.notify("Extraction prompt reset to the one Companion ships.")
        self.show_prompt_status()

    @on(Button.Pressed, "#import")
    def open_import(self) -> None:
        self.companion.action_import()

    @on(Button.Pressed, "#show-ledger")
    def action_ledger(self) -> None:
        from companion.llm import ledger

        calls = ledger.calls(self.vault, 100)
        lines = [
            f"{c.created_at:%Y-%m-%d %H:%M}  {c.purpose:<10} {c.model:<20} "
            f"{c.input_tokens:>6}+{c.output_tokens:<5} ${c.cost_usd:.4f} {c.error or 'ok'}"
            for c in calls
        ] or ["No call has left this machine."]
        total = sum(c.cost_usd for c in calls)
        lines.append(f"\nEstimated total: ${total:.4f}")
        self.app.push_screen(TextScreen("Every call that left this machine", "\n".join(lines)))

    @on(Select.Changed, "#theme")
    def preview_theme(self, event: Select.Changed) -> None:
        if isinstance(event.value, str):
            self.app.theme = event.value

    @on(Input.Submitted)
    def submitted(self, event: Input.Submitted) -> None:
        """Enter saves (most of these fields are optional: walking them one by one would be a
        chore); a crisis line's name goes on to its contact."""
        contact = self.query_one("#crisis_contact", Input)
        if (
            event.input.id == "crisis_name"
            and event.input.value.strip()
            and not contact.value.strip()
        ):
            contact.focus()
        else:
            self.action_save()

    def action_save(self) -> None:
        vault = self.vault
        minutes_text = self.query_one("#auto_lock", Input).value
        minutes = int(minutes_text) if minutes_text.isdigit() else 0
        if not 1 <= minutes <= 240:
            self.notify("Auto-lock must be from 1 to 240 minutes.", severity="error")
            return
        name = self.query_one("#crisis_name", Input).value.strip()
        contact = self.query_one("#crisis_contact", Input).value.strip()
        if bool(name) != bool(contact):  # one without the other was dropped without a word
            self.notify(
                "Your crisis line needs both a name and its number; leave both empty for "
                "the built-in lines.",
                severity="error",
            )
            return
        provider = self.query_one("#provider", Select).value
        settings.put(vault, "provider", provider)
        greet = self.query_one("#greet_new_chats", Select).value == "yes"
        settings.put(vault, "greet_new_chats", greet)
        for key in VAULT_FIELDS:
            settings.put(
                vault, key, self.query_one(f"#{key}", Input).value.strip() or settings.DEFAULTS[key]
            )
        key_input = self.query_one("#anthropic_api_key", Input)
        if key_input.value.strip():
            settings.put(vault, "anthropic_api_key", key_input.value.strip())
            key_input.value = ""
        config = self.companion.config
        config.auto_lock_minutes = minutes
        theme = self.query_one("#theme", Select).value
        config.theme = theme if isinstance(theme, str) else config.theme
        config.region = self.query_one("#region", Input).value.strip().upper()
        config.crisis_lines = [CrisisLine(name, contact)] if name else []
        app_config.save(config)
        drafts.discard(vault, "settings")
        self.loaded = {}
        self.notify("Settings saved.")
        self.refresh_data()
