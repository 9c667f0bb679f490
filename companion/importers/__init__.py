"""Bringing history in from jrnl, Day One and Markdown folders, without losing a word."""
