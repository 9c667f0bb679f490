"""The coach: providers, the system prompt with what the app knows, recall, offline capture
and safety. Nothing here imports the TUI, and the anthropic SDK loads only when a call is made."""
