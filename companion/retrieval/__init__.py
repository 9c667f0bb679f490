"""Finding what matters: words as the index sees them, dates in questions, people by name or
relation, and ranking. Domain logic only; no user interface here."""
