"""Textual's Button, with only the styles our buttons use.

Textual's Button carries about 7 KB of CSS (two styles, five variants, ANSI themes); parsing it
took about 11 ms, the largest single cost of the unlock form's first paint. This one keeps the
default look for the variants we use (default, primary, warning, error) and the ANSI fallback,
in a quarter of the text. Every screen uses it, so Textual's own CSS never loads.
"""

from __future__ import annotations

from textual.widgets import Button as TextualButton


class Button(TextualButton, inherit_css=False):
    DEFAULT_CSS = """
    Button {
        width: auto;
        min-width: 16;
        height: auto;
        line-pad: 1;
        text-align: center;
        content-align: center middle;
        pointer: pointer;
        text-style: bold;
        color: $button-foreground;
        background: $surface;
        border: none;
        border-top: tall $surface-lighten-1;
        border-bottom: tall $surface-darken-1;

        &:disabled { text-opacity: 0.6; pointer: not-allowed; }
        &:focus { text-style: $button-focus-text-style; background-tint: $foreground 5%; }
        &:hover { border-top: tall $surface; background: $surface-darken-1; }
        &.-active {
            background: $surface;
            border-bottom: tall $surface-lighten-1;
            border-top: tall $surface-darken-1;
            tint: $background 30%;
        }
        &.-primary {
            color: $button-color-foreground;
            background: $primary;
            border-top: tall $primary-lighten-3;
            border-bottom: tall $primary-darken-3;
            &:hover { background: $primary-darken-2; border-top: tall $primary; }
            &.-active {
                background: $primary;
                border-bottom: tall $primary-lighten-3;
                border-top: tall $primary-darken-3;
            }
        }
        &.-warning {
            color: $button-color-foreground;
            background: $warning;
            border-top: tall $warning-lighten-2;
            border-bottom: tall $warning-darken-3;
            &:hover { background: $warning-darken-2; border-top: tall $warning; }
        }
        &.-error {
            color: $button-color-foreground;
            background: $error;
            border-top: tall $error-lighten-2;
            border-bottom: tall $error-darken-3;
            &:hover { background: $error-darken-1; border-top: tall $error; }
        }
    }
    Button:ansi {
        border: tall $border-blurred;
        background: ansi_default;
        &:hover { background: $ansi-background; border: tall $border; }
        &.-primary { color: $primary; border: tall $primary; background: ansi_default; }
        &.-warning { color: $warning; border: tall $warning; background: ansi_default; }
        &.-error { color: $error; border: tall $error; background: ansi_default; }
    }
    """
