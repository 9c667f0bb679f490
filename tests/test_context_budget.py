"""The memory section never exceeds its budget, whatever the vault holds."""

from __future__ import annotations

from datetime import date, timedelta

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.activity import checkins, profile
from companion.coach import context
from companion.llm.tokens import CLAUDE_BUDGET, LOCAL_BUDGET
from companion.memory import followups, store
from companion.vault.models import CheckIn, DailyMemory, Fact, FollowUp, Profile

words = st.text(
    alphabet=st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")),
    min_size=1,
    max_size=400,
)
contents = st.fixed_dictionaries(
    {
        "name": st.one_of(st.none(), words),
        "triggers": st.lists(words, max_size=6),
        "coping": st.one_of(st.none(), words),
        "facts": st.lists(
            st.tuples(words, st.sampled_from(["preferences", "goals", "misc"]), st.booleans()),
            max_size=40,
        ),
        "notes": st.lists(st.one_of(st.none(), words), max_size=7),
        "follow_ups": st.lists(words, max_size=5),
        "message": st.one_of(
            st.just(""), words, words.map(lambda w: f"do you remember what we said about {w}?")
        ),
    }
)


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=contents)
def test_budget_is_never_exceeded(vault, data) -> None:
    for model in (Fact, FollowUp, DailyMemory, CheckIn, Profile):
        vault.delete_where(model, None)
    profile.update(
        vault,
        {
            "preferred_name": (data["name"] and data["name"].strip()) or None,
            "known_triggers": [t for t in data["triggers"] if t.strip()] or None,
            "coping_plan": (data["coping"] and data["coping"].strip()) or None,
        },
    )
    for text, category, pinned in data["facts"]:
        if text.strip():
            store.add_fact(vault, text, category, pinned=pinned)
    today = date.today()
    for back, note in enumerate(data["notes"]):
        checkins.record(vault, today - timedelta(days=back), mood=5, note=note)
    for item in data["follow_ups"]:
        if item.strip():
            followups.add(vault, item)
    for budget in (LOCAL_BUDGET, CLAUDE_BUDGET):
        built = context.build(vault, data["message"], budget)
        assert built.tokens <= budget, (budget, built.tokens)
        assert built.text.startswith(context.HEADER)
