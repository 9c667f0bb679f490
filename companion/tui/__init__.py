"""The full-screen app. Imported only when ``companion`` runs with no command."""
