"""The coach: the conversation, its system prompt with what the app knows, recall, offline
capture, safety and crisis lines. Models are reached through ``companion.llm`` only."""
