"""Companion: a terminal companion for recovery and journaling, with an encrypted vault."""

__version__ = "0.1.0"
