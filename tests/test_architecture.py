"""Architecture rules for the ``companion`` package, read from the source with ``ast``.

They describe the target house: imports run down the layers, no import circles, one door to
the model SDKs, and one owner module per sealed table. Each rule is a plain function over
(module, tree) or an import graph, so the self-tests can prove it fails on made-up sources.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Iterator, Mapping
from functools import cache
from itertools import pairwise
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
MODELS = "companion.vault.models"
Rule = Callable[[str, ast.AST], list[str]]
Graph = dict[str, dict[str, int]]  # module -> imported module -> line of the first import

_TABLE: list[tuple[int, str, tuple[str, ...]]] = [  # a layer may import its own or lower ones
    (7, "views", ("companion.cli", "companion.tui", "companion.__main__")),
    (6, "use cases", ("companion.usecases",)),
    (5, "conversation/history", ("companion.coach", "companion.importers")),
    (4, "memory", ("companion.memory", "companion.retrieval")),
    (3, "llm", ("companion.llm",)),
    (2, "activity", ("companion.activity",)),
    (1, "vault", ("companion.vault",)),
    (0, "base", ("companion.errors", "companion.clock", "companion.paths", "companion.config")),
    (0, "base", ("companion.logs",)),
]
LAYERS = {prefix: layer for layer, _, prefixes in _TABLE for prefix in prefixes}
LAYER_NAMES = {layer: name for layer, name, _ in _TABLE}
OWNERS: dict[str, set[str]] = {
    "companion.activity.checkins": {"CheckIn"},
    "companion.activity.journal": {"JournalEntry"},
    "companion.activity.chat": {"ChatSession", "ChatMessage"},
    "companion.activity.profile": {"Profile"},
    "companion.activity.drafts": {"Draft"},
    "companion.vault.settings": {"Setting"},
    "companion.vault.index": {"IndexBucket", "IndexDelta", "IndexState"},
    "companion.llm.ledger": {"OutboundCall"},
    "companion.memory.store": {"Fact"},
    "companion.memory.summaries": {"DailyMemory", "SessionSummary"},
    "companion.memory.runs": {"ExtractionRun"},
    "companion.memory.followups": {"FollowUp"},
    "companion.memory.urges": {"UrgeEvent"},
}
SEALED_ATTRS = {"payload", "sealer", "unseal", "seal", "seal_bytes", "open_bytes"}
SQL_VERB = re.compile(r"\b(select|update|insert)\b", re.IGNORECASE)
SQL_PAYLOAD = re.compile(r"\bpayload\b", re.IGNORECASE)
SDKS = {"anthropic", "openai", "httpx"}


def module_name(path: Path) -> str:
    """Dotted name of a file under companion/; a package is named by its ``__init__.py``."""
    return ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")


FILES = {module_name(p): p for p in sorted((ROOT / "companion").rglob("*.py"))}
KNOWN = frozenset(FILES)
PACKAGES = frozenset(m for m, p in FILES.items() if p.name == "__init__.py")


def path_of(module: str) -> str:
    """Repo-relative file of a module (made up for modules that exist only in a self-test)."""
    if module in FILES:
        return FILES[module].relative_to(ROOT).as_posix()
    return module.replace(".", "/") + ".py"


def within(module: str, package: str) -> bool:
    """Whether ``module`` is ``package`` or inside it."""
    return module == package or module.startswith(package + ".")


def layer_of(module: str) -> int | None:
    """The layer a module lives in, or None when the table has no place for it."""
    parts = module.split(".")
    for n in range(len(parts), 1, -1):
        if (layer := LAYERS.get(".".join(parts[:n]))) is not None:
            return layer
    return 0 if module == "companion" else None


def resolve(module: str, node: ast.ImportFrom) -> str:
    """Absolute module named by a ``from`` import, relative ones included."""
    if not node.level:
        return node.module or ""
    base = module.split(".") if module in PACKAGES else module.split(".")[:-1]
    base = base[: len(base) - node.level + 1]
    return ".".join([*base, node.module] if node.module else base)


def imported(module: str, tree: ast.AST) -> Iterator[tuple[str, dict[str, str | None], int]]:
    """Every import anywhere in the file: (module, {name: alias} of a ``from`` import, line)."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from ((a.name, {}, node.lineno) for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            names = {a.name: a.asname for a in node.names}
            yield resolve(module, node), names, node.lineno


def edges(module: str, tree: ast.AST, known: frozenset[str] = KNOWN) -> list[tuple[str, int]]:
    """Companion modules imported: ``from a import b`` is ``a.b`` if that is a file, else ``a``.

    A ``from pkg import submodule`` is not also an edge to ``pkg``: Python runs ``pkg`` for any
    submodule anyway, and counting it turns every ``pkg/__init__`` re-export into a circle."""
    out: list[tuple[str, int]] = []
    for target, names, line in imported(module, tree):
        if within(target, "companion"):
            subs = [f"{target}.{n}" for n in names if f"{target}.{n}" in known]
            out += [(s, line) for s in subs]
            if not names or len(subs) < len(names):
                out.append((target, line))
    return out


def unlayered(module: str, _tree: ast.AST) -> list[str]:
    """Rule: every module sits in a layer."""
    if layer_of(module) is not None:
        return []
    return [f"{path_of(module)}:1: [every module in a layer] {module} is in no layer of LAYERS"]


def layer_violations(module: str, tree: ast.AST, known: frozenset[str] = KNOWN) -> list[str]:
    """Rule: no import runs up the layers."""
    out, mine = [], layer_of(module)
    for target, line in edges(module, tree, known):
        theirs = layer_of(target)
        if mine is not None and theirs is not None and theirs > mine:
            where = f"{path_of(module)}:{line}: [no import runs up] {module} imports {target}"
            up = f"layer {mine} {LAYER_NAMES[mine]} < layer {theirs} {LAYER_NAMES[theirs]}"
            out.append(f"{where} ({path_of(target)}); {up}")
    return out


def sdk_violations(module: str, tree: ast.AST) -> list[str]:
    """Rule: only companion/llm/ talks to a model SDK or raw HTTP."""
    if within(module, "companion.llm"):
        return []
    return [
        f"{path_of(module)}:{line}: [only companion/llm/ imports SDKs] {module} imports {target}"
        for target, _, line in imported(module, tree)
        if target.split(".")[0] in SDKS
    ]


def build_graph(trees: Mapping[str, ast.AST], known: frozenset[str] = KNOWN) -> Graph:
    """Module import graph, minus self-edges and edges wholly inside companion.tui."""
    graph: Graph = {}
    for module, tree in trees.items():
        out = graph.setdefault(module, {})
        for target, line in edges(module, tree, known):
            tui = within(module, "companion.tui") and within(target, "companion.tui")
            if target != module and not tui:
                out.setdefault(target, line)
    return graph


def find_cycles(graph: Graph) -> list[list[str]]:
    """The shortest circle through each module, as [a, b, ..., a], each set of modules once."""
    found: dict[frozenset[str], list[str]] = {}
    for start in sorted(graph):
        paths, queue = {start: [start]}, [start]
        for node in queue:
            if start in graph.get(node, {}):
                loop = [*paths[node], start]
                found.setdefault(frozenset(loop), loop)
                break
            for nxt in sorted(set(graph.get(node, {})) - set(paths)):
                paths[nxt] = [*paths[node], nxt]
                queue.append(nxt)
    return list(found.values())


def describe_cycle(cycle: list[str], graph: Graph) -> str:
    """A circle with the file and line of every link, so it can be cut."""
    links = "; ".join(f"{path_of(a)}:{graph[a][b]} imports {b}" for a, b in pairwise(cycle))
    return f"[no import circle] {' -> '.join(cycle)} ({links})"


def owner_violations(module: str, tree: ast.AST) -> list[str]:
    """Rule: a sealed table is read and written only by its owner module (and the vault)."""
    if within(module, "companion.vault"):
        return []
    owner, owned = module in OWNERS, OWNERS.get(module, set())
    say = f"[one owner per sealed record] {'owner' if owner else 'non-owner'} {module}"
    out: list[str] = []
    plain = [a for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names]
    aliases = {a.asname or MODELS for a in plain if a.name == MODELS}  # names bound to models
    for source, names, line in imported(module, tree):
        where = f"{path_of(module)}:{line}: {say}"
        if source == MODELS:
            out += [f"{where} imports {n} from {MODELS}" for n in names if n not in owned]
        if via_package := source == "companion.vault" and "models" in names:
            aliases.add(names["models"] or "models")
        if (via_package or (source == MODELS and not names)) and not owner:
            out.append(f"{where} imports {MODELS}")
        if source == "companion.vault.crypto" and "Sealer" in names and not owner:
            out.append(f"{where} imports Sealer")
    kinds = (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)
    firsts = [n.body[0] for n in ast.walk(tree) if isinstance(n, kinds) and n.body]
    docs = {id(f.value) for f in firsts if isinstance(f, ast.Expr)}  # prose is not SQL
    for node in ast.walk(tree):
        where = f"{path_of(module)}:{getattr(node, 'lineno', 1)}: {say}"
        if isinstance(node, ast.Attribute):
            if node.attr not in owned and ast.unparse(node.value) in aliases:
                out.append(f"{where} uses {ast.unparse(node)}, a table it does not own")
            if node.attr in SEALED_ATTRS and not owner:
                out.append(f"{where} uses .{node.attr}")
        text = node.value if isinstance(node, ast.Constant) and id(node) not in docs else None
        sql = isinstance(text, str) and SQL_VERB.search(text) and SQL_PAYLOAD.search(text)
        if sql and not owner:
            out.append(f"{where} has a raw SQL string touching payload")
    return list(dict.fromkeys(out))


def screen_model_imports(module: str, tree: ast.AST) -> list[str]:
    """Rule: no screen reaches into the vault's tables."""
    return [
        f"{path_of(module)}:{line}: [no screen imports vault.models] {module} imports {MODELS}"
        for target, line in edges(module, tree)
        if target == MODELS and within(module, "companion.tui")
    ]


@cache
def trees() -> dict[str, ast.Module]:
    """Every companion module, parsed once."""
    return {m: ast.parse(p.read_text(encoding="utf-8"), str(p)) for m, p in FILES.items()}


def each(rule: Rule) -> str:
    """A per-module rule run over the whole package, as one message per line."""
    return "\n".join(problem for m, t in trees().items() for problem in rule(m, t))


def test_every_module_has_a_layer() -> None:
    """Every module under companion/ belongs to a layer of the table."""
    assert not (problems := each(unlayered)), problems


def test_no_import_runs_up_the_layers() -> None:
    """A module imports only modules of its own layer or lower ones."""
    assert not (problems := each(layer_violations)), problems


def test_no_import_circle_outside_tui() -> None:
    """The import graph has no circle, except circles wholly inside companion/tui/."""
    graph = build_graph(trees())
    assert not (cycles := find_cycles(graph)), "\n".join(describe_cycle(c, graph) for c in cycles)


def test_only_llm_imports_model_sdks() -> None:
    """anthropic, openai and httpx are imported only under companion/llm/."""
    assert not (problems := each(sdk_violations)), problems


def test_owner_map_covers_every_sealed_table() -> None:
    """Each sealed table in models.py has exactly one owner module, so rule 4 misses none."""
    classes = [n for n in trees()[MODELS].body if isinstance(n, ast.ClassDef)]
    sealed = sorted(c.name for c in classes if "Record" in map(ast.unparse, c.bases))
    claimed = sorted(t for tables in OWNERS.values() for t in tables)
    assert claimed == sealed, "OWNERS and companion/vault/models.py (Record subclasses) disagree"


def test_one_owner_per_sealed_record() -> None:
    """Only a table's owner imports it, touches payloads, seals, or writes SQL on payloads."""
    assert not (problems := each(owner_violations)), problems


def test_no_screen_imports_vault_models() -> None:
    """Screens go through activity and use-case modules, never the tables."""
    assert not (problems := each(screen_model_imports)), problems


RULES: dict[str, Rule] = {
    "layers": layer_violations,
    "unlayered": unlayered,
    "sdk": sdk_violations,
    "owner": owner_violations,
    "screen": screen_model_imports,
}
JOURNAL = "from companion.vault.models import JournalEntry"
BAD = [  # (rule, pretend module, source, text the report must contain)
    ("owner", "companion.coach.recall", JOURNAL, "imports JournalEntry"),
    ("owner", "companion.tui.screens.today", JOURNAL, "imports JournalEntry"),
    ("screen", "companion.tui.screens.today", "from companion.vault import models", MODELS),
    ("owner", "companion.memory.insights", "def f(row):\n    return row.payload\n", ".payload"),
    ("owner", "companion.activity.search", 'Q = "SELECT id, payload FROM journal_entry"', "SQL"),
    ("owner", "companion.memory.insights", "from companion.vault.crypto import Sealer", "Sealer"),
    ("owner", "companion.coach.recall", "import companion.vault.models", MODELS),
    ("owner", "companion.activity.chat", "import companion.vault.models as m\nm.Fact", "m.Fact"),
    ("owner", "companion.activity.chat", f"import {MODELS}\n{MODELS}.Fact", f"{MODELS}.Fact"),
    ("layers", "companion.activity.journal", "import companion.coach.safety", "coach.safety"),
    ("layers", "companion.activity.journal", "from ..coach import safety", "coach.safety"),
    ("layers", "companion.vault.store", "def f():\n    from companion.memory import x\n", "memory"),
    ("layers", "companion.llm.x", "if TYPE_CHECKING:\n    import companion.usecases\n", "usecases"),
    ("sdk", "companion.coach.x", "def f():\n    import anthropic\n", "anthropic"),
    ("sdk", "companion.memory.x", "from httpx import Client", "httpx"),
    ("unlayered", "companion.helpers", "", "no layer"),
]


@pytest.mark.parametrize(("rule", "module", "source", "needle"), BAD)
def test_the_checker_can_fail(rule: str, module: str, source: str, needle: str) -> None:
    """Each rule reports a planted violation with its file, so a green run means something."""
    problems = RULES[rule](module, ast.parse(source))
    assert any(needle in p and path_of(module) in p for p in problems), problems


def test_the_checker_finds_a_cycle() -> None:
    """A two-module circle is found with its lines; one inside companion/tui/ is let be."""
    sources = {
        "companion.memory.a": "import companion.memory.b",
        "companion.memory.b": "def f():\n    from companion.memory.a import g\n",
        "companion.tui.a": "import companion.tui.b",
        "companion.tui.b": "from companion.tui import a",
    }
    graph = build_graph({m: ast.parse(s) for m, s in sources.items()}, KNOWN | set(sources))
    cycles = find_cycles(graph)
    assert cycles == [["companion.memory.a", "companion.memory.b", "companion.memory.a"]]
    assert "companion/memory/b.py:2 imports companion.memory.a" in describe_cycle(cycles[0], graph)


def test_the_checker_spares_owners() -> None:
    """An owner touching its own table is not reported; nor is a docstring about payloads."""
    source = (
        '"""Update the payload of a row."""\n'
        f"{JOURNAL}\nfrom companion.vault import models\n"
        "def f(row):\n    return row.payload, models.JournalEntry, row.seal()\n"
        'SQL = "UPDATE journal_entry SET payload = ?"\n'
    )
    assert owner_violations("companion.activity.journal", ast.parse(source)) == []
    assert layer_violations("companion.activity.journal", ast.parse("import companion.vault")) == []
