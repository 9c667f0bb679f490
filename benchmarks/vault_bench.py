"""Vault benchmark on a ten-year vault. Prints medians; run from the repository root:

    python -m benchmarks.vault_bench [--jrnl PATH] [--runs N] [--keep DIR]

With jrnl available (on PATH or --jrnl), it also builds the same 10,000 entries as an encrypted
jrnl journal and compares adding one entry and searching, as whole commands.
"""

from __future__ import annotations

import argparse
import os
import platform
import resource
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from benchmarks.common import bytecode_env, median_ms, row
from benchmarks.tenyear import PASSPHRASE, Sizes, build, journal_entries
from companion.activity import journal
from companion.retrieval.search import SearchIndex
from companion.vault import Vault, keys
from companion.vault.maintenance import verify

ENTRY = " ".join(["Today I noticed the urge at four and called my sponsor instead."] * 25)
QUERIES = ["sponsor", "kitchen rain", "grateful sister", "lighthouse", "meditate honest"]


def machine() -> str:
    return f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}"


def downgrade_to_schema_5(db: Path, passphrase: str = PASSPHRASE) -> None:
    """What schema 5 wrote: no row versions or MACs, no manifest, no header MAC or epoch, no
    search index, and a
    passphrase slot wrapped without the schema floor (which takes the passphrase)."""
    from companion.paths import VaultPaths
    from companion.vault import crypto, migrations
    from companion.vault.files import read_header
    from companion.vault.header import Header, Slot

    header = read_header(db, VaultPaths(db.parent))
    opened = keys.open_with_passphrase(header, passphrase)
    assert opened is not None and opened.kek is not None, "wrong passphrase for the downgrade"
    aad = crypto.slot_aad(header.vault_id, "passphrase", floor=0)
    nonce, wrapped = crypto.wrap_key(opened.kek, opened.data_key, aad)
    old = header.slots["passphrase"]
    header.slots["passphrase"] = Slot("passphrase", old.kdf, nonce, wrapped, old.issued_at)
    body = header.to_body()
    conn = sqlite3.connect(db, isolation_level=None)
    try:
        conn.execute("UPDATE header SET body = ?, sha256 = ?", (body, Header.checksum(body)))
        for table in migrations.SEALED:
            conn.execute(f'ALTER TABLE "{table}" DROP COLUMN "row_mac"')
            conn.execute(f'ALTER TABLE "{table}" DROP COLUMN "row_version"')
        conn.execute('ALTER TABLE "header" DROP COLUMN "hmac"')
        conn.execute('DROP TABLE "manifest"')
        conn.execute('DROP TABLE "session_epoch"')
        for table in ("index_bucket", "index_delta", "index_state"):  # schema 7's
            conn.execute(f'DROP TABLE IF EXISTS "{table}"')
        for index in (
            "chat_message_created_at", "daily_memory_covering_to", "session_summary_updated_at"
        ):  # fmt: skip
            conn.execute(f'DROP INDEX IF EXISTS "{index}"')
        conn.execute("PRAGMA user_version = 5")
    finally:
        conn.close()


def bench_migration(paths, workdir: Path, runs: int) -> None:
    """The schema 6 upgrade of this vault (pre-migration backup included), on copies."""
    from companion.paths import VaultPaths
    from companion.vault import migrations

    times = []
    for _ in range(runs):
        copy = VaultPaths(workdir / "migrating")
        shutil.rmtree(copy.root, ignore_errors=True)
        copy.root.mkdir(mode=0o700)
        shutil.copy(paths.db, copy.db)
        conn = sqlite3.connect(copy.db)
        version = migrations.schema_version(conn)
        conn.close()
        if version >= 6:
            downgrade_to_schema_5(copy.db)
        started = time.perf_counter()
        vault = Vault.unlock(copy, PASSPHRASE, daily_backup=False)
        times.append((time.perf_counter() - started) * 1000)
        vault.close()
    kdf_ms = median_ms(lambda: keys.open_with_passphrase(vault.header, PASSPHRASE), runs)
    print(f"\nSchema 6 upgrade ({runs} runs, medians)")
    row("unlock that upgrades (KDF + backup + a MAC per row)", statistics.median(times))
    row("  of which key derivation", kdf_ms)
    shutil.rmtree(workdir / "migrating", ignore_errors=True)


def bench_in_process(paths, runs: int) -> None:
    header_kdf = None
    vault = Vault.unlock(paths, PASSPHRASE)  # today's daily backup, outside the timings
    header_kdf = vault.header.slots["passphrase"].argon2()
    vault.close()
    print(
        f"\nIn process ({runs} runs each, medians); KDF: t={header_kdf.time_cost}, "
        f"m={header_kdf.memory_kib // 1024} MiB, p={header_kdf.parallelism}"
    )
    kdf = median_ms(lambda: keys.open_with_passphrase(vault.header, PASSPHRASE), runs)
    row("key derivation alone", kdf)
    unlock = median_ms(lambda: Vault.unlock(paths, PASSPHRASE).close(), runs)
    row("unlock (derive + open + checks)", unlock, target="target <= 1000 ms")

    vault = Vault.unlock(paths, PASSPHRASE)
    try:
        add = median_ms(lambda: journal.add(vault, ENTRY), runs * 4)
        row("add a journal entry (fsync'd)", add, target="target <= 20 ms")
        ref = reference_insert(paths.root / "reference.db", runs * 4)
        row("  reference: bare SQLite insert, same size", ref)
        row("  ratio add / reference", add / ref, unit="")
        newest = median_ms(lambda: journal.newest(vault, 50), runs * 4)
        row("list the newest 50 entries", newest, target="target <= 50 ms")
        vault.index.merge()  # what the adds above left waiting, as the app does when idle
        build_ms = median_ms(vault.rebuild_index, 1, warmup=0)
        row("rebuild the sealed index (verify --rebuild-index; once)", build_ms)
        index = SearchIndex(vault)
        row("  documents indexed", len(index), unit="count")
        vault.index.forget()
        cold = elapsed_ms(lambda: [index.search(q) for q in QUERIES]) / len(QUERIES)
        row("search all text, first after unlock (buckets read)", cold)
        search = median_ms(lambda: [index.search(q) for q in QUERIES], runs) / len(QUERIES)
        row("search all text (buckets cached)", search, target="target <= 300 ms")
        journal.add(vault, ENTRY)
        merge = median_ms(lambda: (journal.add(vault, ENTRY), vault.index.merge()), runs)
        row("add an entry and merge it into the buckets", merge)
        verify_ms = median_ms(lambda: verify(vault), 3, warmup=0)
        row(
            "verify every record (row MACs over the payloads, manifest)",
            verify_ms,
            target="target <= 1500 ms",
        )
        row("  ratio verify / index build", verify_ms / build_ms, unit="")
    finally:
        vault.close()
    row("file size", paths.db.stat().st_size / 2**20, unit="MiB")
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    row("peak memory of this process", peak, unit="MiB")


def reference_insert(path: Path, runs: int) -> float:
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=FULL")
    conn.execute("CREATE TABLE IF NOT EXISTS t (id INTEGER PRIMARY KEY, b BLOB)")
    blob = os.urandom(len(ENTRY) + 300)

    def insert() -> None:
        conn.execute("BEGIN IMMEDIATE")
        conn.execute("INSERT INTO t (b) VALUES (?)", (blob,))
        conn.execute("COMMIT")

    try:
        return median_ms(insert, runs)
    finally:
        conn.close()


def companion_cmd(paths, *args: str) -> list[str]:
    return [sys.executable, "-m", "companion", "--data-dir", str(paths.root), *args]


def bench_commands(paths, runs: int, jrnl: str | None, workdir: Path) -> None:
    runtime = workdir / "run"
    runtime.mkdir(mode=0o700)
    env = bytecode_env(workdir, COMPANION_PASSPHRASE=PASSPHRASE, XDG_RUNTIME_DIR=str(runtime))
    print(f"\nWhole commands ({runs} runs each, medians)")
    add_cmd = companion_cmd(paths, "journal", "add", ENTRY)
    started = subprocess.run(
        companion_cmd(paths, "unlock", "--for", "2h"), env=env, capture_output=True, text=True
    )
    if started.returncode != 0:
        raise SystemExit(f"companion unlock failed: {started.stderr[-500:]}")
    token = started.stdout.strip().split("=", 1)[1]
    session_env = {k: v for k, v in env.items() if k != "COMPANION_PASSPHRASE"}
    session_env["COMPANION_SESSION"] = token
    commands = {
        "companion journal add (passphrase: derives key)": lambda: run(add_cmd, env),
        "companion journal add (unlock session)": lambda: run(add_cmd, session_env),
    }
    if jrnl:
        jenv = setup_jrnl(jrnl, workdir)
        commands["jrnl add (rewrites its whole file)"] = lambda: run([jrnl, ENTRY], jenv)
    # Alternate the tools so a noisy neighbour slows all of them, and compare round by round.
    times: dict[str, list[float]] = {label: [] for label in commands}
    for _ in range(runs + 1):
        for label, command in commands.items():
            times[label].append(elapsed_ms(command))
    times = {label: samples[1:] for label, samples in times.items()}  # round one warms caches
    for label, samples in times.items():
        row(label, statistics.median(samples))
    search_cmd = companion_cmd(paths, "journal", "search", "sponsor")
    search = median_ms(lambda: run(search_cmd, session_env), runs)
    row("companion journal search (unlock session)", search)
    if not jrnl:
        print("  jrnl not found: install it (pip install jrnl keyrings.alt) or pass --jrnl")
        return
    jsearch = median_ms(lambda: run([jrnl, "-contains", "sponsor", "--short"], jenv), runs)
    row("jrnl -contains", jsearch)
    jadds = times["jrnl add (rewrites its whole file)"]
    for label, name in (
        ("companion journal add (passphrase: derives key)", "with the passphrase"),
        ("companion journal add (unlock session)", "in an unlock session"),
    ):
        ratios = [j / c for j, c in zip(jadds, times[label], strict=True)]
        row(
            f"ratio jrnl add / companion add, {name}",
            statistics.median(ratios),
            unit="",
            target="target >= 5",
        )
        print(f"  {'  rounds ranged':<48} {min(ratios):>7.2f} to {max(ratios):.2f}")
    row("ratio jrnl search / companion search", jsearch / search, unit="")


def elapsed_ms(fn: Callable[[], object]) -> float:
    started = time.perf_counter()
    fn()
    return (time.perf_counter() - started) * 1000


def run(cmd: list[str], env: dict[str, str]) -> None:
    result = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=600)
    if result.returncode != 0:
        raise SystemExit(f"{cmd[:4]} failed: {result.stderr[-500:]}")


def setup_jrnl(jrnl: str, workdir: Path) -> dict[str, str]:
    """An encrypted jrnl journal holding the same 10,000 entries, password in a keyring."""
    home = workdir / "jrnl-home"
    (home / "config" / "jrnl").mkdir(parents=True)
    env = {
        **bytecode_env(workdir),
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / "config"),
        "XDG_DATA_HOME": str(home / "data"),
        "PYTHON_KEYRING_BACKEND": "keyrings.alt.file.PlaintextKeyring",
    }
    journal_file = home / "journal.txt"
    lines = []
    for moment, title, text in journal_entries(Sizes()):
        head = title + "." if title else text.split(" ", 3)[0].capitalize() + "."
        lines.append(f"[{moment:%Y-%m-%d %I:%M:%S %p}] {head} {text}\n\n")
    (home / "config" / "jrnl" / "jrnl.yaml").write_text(
        "journals:\n  default:\n    journal: " + str(journal_file) + "\n"
        "encrypt: true\neditor: ''\ntemplate: false\ndefault_hour: 9\ndefault_minute: 0\n"
        "timeformat: '%F %r'\ntagsymbols: '#@'\nhighlight: false\nlinewrap: 79\n"
        "indent_character: '|'\ncolors: {body: none, date: none, tags: none, title: none}\n"
        "version: v4.6\n"
    )
    python = str(Path(jrnl).resolve().parent / "python")
    script = (
        "import sys, keyring\n"
        "from jrnl.encryption.Jrnlv3Encryption import Jrnlv3Encryption\n"
        "keyring.set_password('jrnl', 'default', sys.argv[2])\n"
        "enc = Jrnlv3Encryption('default', {})\n"
        "enc.password = sys.argv[2]\n"
        "open(sys.argv[1], 'wb').write(enc.encrypt(sys.stdin.read()))\n"
    )
    subprocess.run(
        [python, "-c", script, str(journal_file), PASSPHRASE],
        input="".join(lines),
        text=True,
        env=env,
        check=True,
    )
    started = time.perf_counter()
    run([jrnl, "-n", "1", "--short"], env)
    print(
        f"  jrnl journal ready ({len(lines):,} entries, "
        f"{journal_file.stat().st_size / 2**20:.1f} MiB encrypted); "
        f"one read: {(time.perf_counter() - started) * 1000:,.0f} ms"
    )
    return env


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--jrnl", default=shutil.which("jrnl"), help="path to the jrnl command")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--keep", type=Path, help="build the vault here (reused if present)")
    parser.add_argument("--in-process-only", action="store_true", help="skip the commands")
    args = parser.parse_args()
    workdir = Path(tempfile.mkdtemp(prefix="companion-bench-"))
    root = args.keep or workdir / "vault"
    print(f"Companion vault benchmark on {machine()}")
    if not (root / "vault.db").exists():
        started = time.perf_counter()
        build(root)
        print(f"built the ten-year vault in {time.perf_counter() - started:,.1f} s")
    from companion.paths import VaultPaths

    paths = VaultPaths(root)
    try:
        bench_migration(paths, workdir, max(3, args.runs // 2))
        bench_in_process(paths, args.runs)
        if not args.in_process_only:
            bench_commands(paths, args.runs, args.jrnl, workdir)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
