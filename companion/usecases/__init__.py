"""What a person does with Companion, shared by the app and the command line: each use case
holds the rule (what follows a journal save, which chat a message goes to, accepting a change)
so the screens and the commands only ask and show."""
