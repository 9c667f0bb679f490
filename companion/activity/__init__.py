"""What the user does: check-ins, journal entries and chats, stored sealed in the vault."""
