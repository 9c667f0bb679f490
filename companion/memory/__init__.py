"""What the app learns about the user: facts, daily memories, session summaries."""
